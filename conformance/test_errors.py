"""Errors (2026-07-28): the codes a server uses when it refuses requests (docs/spec/requirements.md, errors).

Each test sends the same handful of bad requests (an unknown method, an unknown resource, an unknown
prompt, a request without its ``_meta`` envelope, a tool that needs an undeclared client capability)
and judges the error codes that come back.
"""

from __future__ import annotations

import pytest

from conformance.covers import for_req
from conformance.harness.frames import BOTH_TRANSPORTS, UNKNOWN_METHOD
from conformance.harness.peer import Peer

RETIRED = {-32002, -32042}  # resource-not-found and URL-elicitation-required before 2026-07-28
DEFINED_IN_RESERVED_RANGE = {-32020, -32021, -32022}


def error_codes_of_bad_requests(peer: Peer) -> list[int]:
    answers = [
        peer.rpc(UNKNOWN_METHOD, check=False),
        peer.rpc("resources/read", {"uri": "test://mcp-matrix/no-such-resource"}, check=False),
        peer.rpc("prompts/get", {"name": "mcp-matrix-no-such-prompt"}, check=False),
        peer.rpc("tools/call", {"name": "test_sampling", "arguments": {"prompt": "hello"}}, check=False),
    ]
    peer.send_request({"jsonrpc": "2.0", "id": "bare", "method": "tools/list", "params": {}})
    answers.append(peer.expect_response("bare"))
    codes = [a["error"]["code"] for a in answers if isinstance(a.get("error"), dict) and "code" in a["error"]]
    if not codes:
        pytest.skip("fixture-missing: the server refused none of the bad requests with an error")
    return codes


@for_req("errors-retired-codes-not-emitted", "server", transports=BOTH_TRANSPORTS)
def test_no_retired_error_code_is_emitted(revision: str, transport: str, peer: Peer) -> None:
    codes = error_codes_of_bad_requests(peer)
    assert not RETIRED & set(codes), f"retired codes among {codes}"


@for_req("errors-reserved-range-defined-only", "server", transports=BOTH_TRANSPORTS)
def test_the_reserved_range_holds_only_defined_codes(revision: str, transport: str, peer: Peer) -> None:
    codes = error_codes_of_bad_requests(peer)
    undefined = [c for c in codes if -32099 <= c <= -32020 and c not in DEFINED_IN_RESERVED_RANGE]
    assert not undefined, f"undefined codes of -32099..-32020 among {codes}"


@for_req("errors-legacy-range-avoid", "server", transports=BOTH_TRANSPORTS)
def test_no_legacy_range_code_is_emitted(revision: str, transport: str, peer: Peer) -> None:
    codes = error_codes_of_bad_requests(peer)
    legacy = [c for c in codes if -32019 <= c <= -32000]
    assert not legacy, f"legacy-range codes among {codes}"
