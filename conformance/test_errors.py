"""Errors (2026-07-28): the codes a server uses when it refuses requests (docs/spec/requirements.md, errors).

Each test sends the same handful of bad requests (an unknown method, an unknown resource, an unknown
prompt, a request without its ``_meta`` envelope, a tool that needs an undeclared client capability)
and judges the error codes that come back.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from conformance.harness.exchanges import bad_requests, client_responses, error_objects, server_frames
from conformance.harness.frames import BOTH_TRANSPORTS, UNKNOWN_METHOD
from conformance.harness.peer import HarnessError, Peer
from conformance.harness.scripted_server import ScriptedServer
from conformance.harness.scripted_stdio import ScriptedStdio, error_answer
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun

RunClient = Callable[[str], ClientRun]
LEGACY = "2025-11-25"

RETIRED = {-32002, -32042}  # resource-not-found and URL-elicitation-required before 2026-07-28
DEFINED_IN_RESERVED_RANGE = {-32020, -32021, -32022}


def error_codes_of_bad_requests(peer: Peer) -> list[int]:
    """The error codes of the answers to requests a server refuses: an unknown method, resource and
    prompt, the tool bound to ``sampling-required-tool`` (if the profile binds one) from a client that
    did not declare sampling, and a tools/list without ``_meta`` (refused at 2026-07-28)."""
    needing_sampling = peer.roles.get("sampling-required-tool")
    answers = [
        peer.rpc(UNKNOWN_METHOD, check=False),
        peer.rpc("resources/read", {"uri": "test://mcp-matrix/no-such-resource"}, check=False),
        peer.rpc("prompts/get", {"name": "mcp-matrix-no-such-prompt"}, check=False),
    ]
    if needing_sampling:
        call = {"name": needing_sampling.name, "arguments": needing_sampling.args()}
        answers.append(peer.rpc("tools/call", call, check=False))
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


# -- the definitions behind each range, and the codes a side writes over a whole conversation ------------

JSON_RPC_RANGE = range(-32768, -32000 + 1)
LEGACY_RANGE = range(-32019, -32000 + 1)
RESERVED_RANGE = range(-32099, -32020 + 1)
STANDARD_CODES = {-32700, -32600, -32601, -32602, -32603}  # JSON-RPC 2.0's own
DEFINED_CODES = STANDARD_CODES | DEFINED_IN_RESERVED_RANGE
# The condition each MCP-defined code stands for, and the bad requests (harness/exchanges.py) that meet it.
MEANINGS = {-32020: "header mismatch", -32021: "missing client capability", -32022: "unsupported version"}
MEETS = {"bad-5": {-32021}, "bad-7": {-32020, -32022}}  # a tool needing sampling; a version nobody speaks
SENTENCE_BREAK = re.compile(r"[.!?][\"')\]]*\s+[A-Z]|\n")


def codes_of(errors: list[dict]) -> list:
    return [e.get("code") for e in errors]


def server_errors(peer: Peer) -> list[dict]:
    """Every error object of the server's answers to the bad requests."""
    return errors_among(server_frames(peer, bad_requests))


def errors_among(frames: list) -> list[dict]:
    errors = error_objects(frames)
    if not errors:
        pytest.skip("fixture-missing: the server refused none of the bad requests with an error")
    return errors


def client_errors(run_stdio_client: RunClient, scripted_stdio: ScriptedStdio) -> list[dict]:
    """The error objects of the client's answers to what the scripted stdio server asks it: a ping and a
    method nobody defines (up to 2025-11-25: at 2026-07-28 a client writes no responses, and the client
    cells of the errors rows are n/a, overrides/applicability-messages.yaml)."""
    errors = error_objects(client_responses(run_stdio_client, scripted_stdio))
    if not errors:
        pytest.skip("fixture-missing: the client answered nothing with an error")
    return errors


@for_req("errors-new-codes-outside-jsonrpc-range", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_own_codes_lie_outside_the_json_rpc_range(revision: str, transport: str, peer: Peer) -> None:
    check_own_codes_outside_the_range(codes_of(server_errors(peer)))


def check_own_codes_outside_the_range(codes: list) -> None:
    """A code of -32768..-32000 that neither JSON-RPC nor MCP defines (nor defined once: the retired ones)
    is one the implementation made up inside the reserved range. The legacy sub-range -32000..-32019 is
    left to its own rows: a code there may predate the policy (L-050), and using one at all is
    errors-legacy-range-avoid."""
    known = DEFINED_CODES | RETIRED
    own = [c for c in codes if isinstance(c, int) and c in JSON_RPC_RANGE and c not in known | set(LEGACY_RANGE)]
    assert not own, f"codes of the implementation's own inside -32768..-32000: {own} (all: {codes})"


@for_req("errors-reserved-range-defined-meaning", "server", transports=BOTH_TRANSPORTS)
def test_the_server_uses_each_defined_code_for_its_condition_only(revision: str, transport: str, peer: Peer) -> None:
    """Each bad request meets at most one of the conditions MCP gives a code (``MEETS``); any of those
    codes in an answer is the one of the condition that request meets."""
    frames = server_frames(peer, bad_requests)
    errors_among(frames)
    for frame in frames:
        error = frame.get("error") if isinstance(frame, dict) else None
        if not isinstance(error, dict) or error.get("code") not in MEANINGS:
            continue
        allowed = MEETS.get(frame.get("id"), set())
        assert error["code"] in allowed, (
            f"{MEANINGS[error['code']]} ({error['code']}) answered request {frame.get('id')!r}, "
            f"which meets {sorted(MEANINGS[c] for c in allowed) or 'none of those conditions'}: {frame}"
        )


@for_req("errors-message-one-sentence-message", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_error_messages_are_one_sentence(revision: str, transport: str, peer: Peer) -> None:
    check_one_sentence(server_errors(peer))


@for_req("errors-server-message-one-sentence", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_servers_error_messages_are_one_sentence(revision: str, transport: str, peer: Peer) -> None:
    check_one_sentence(server_errors(peer))


@for_req("errors-message-one-sentence-message", "client")
def test_the_clients_error_messages_are_one_sentence(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    check_one_sentence(client_errors(run_stdio_client, scripted_stdio))


def check_one_sentence(errors: list[dict]) -> None:
    for error in errors:
        message = error.get("message")
        assert isinstance(message, str) and message.strip(), error
        assert not SENTENCE_BREAK.search(message.strip()), f"more than one sentence: {message!r}"


# -- how a client takes the codes it receives ------------------------------------------------------------

FOLLOW_UP = "tools/list"  # what the client's scenario does after its resources/read, whatever the answer
NO_MEANING = 1000  # an application's code: no meaning anyone could assume
LEGACY_CODES = (-32000, -32001, -32019)  # the ends of the legacy range (SDKs use -32000 and -32001 locally)


def reaction_to(run_client: RunClient, server: ScriptedServer, code: int) -> list[str]:
    """The methods the client sends after its resources/read is refused with ``code``, which must include
    its scenario's next request (``FOLLOW_UP``): judged before the run must have completed, so a client
    that stalls after the refusal fails here."""
    server.answers["resources/read"] = error_answer(code)
    before = len(server.frames())
    run = run_client("read_then_list")

    def check_carries_on() -> list[str]:
        frames = [f for f in server.frames()[before:] if isinstance(f, dict) and "method" in f]
        reads = [i for i, f in enumerate(frames) if f["method"] == "resources/read"]
        if not reads:  # the scenario never reached the refusal: nothing to judge
            raise HarnessError(f"the client did not read the resource: {frames}")
        reaction = [f["method"] for f in frames[reads[0] + 1 :]]
        assert FOLLOW_UP in reaction, f"after {code} the client stopped: {reaction}"
        return reaction

    return run.judge(check_carries_on)


@for_req("errors-legacy-range-no-assumed-meaning", "client")
def test_the_client_assumes_no_meaning_for_legacy_codes(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """A read refused with a code of -32000..-32019 leaves the client doing what it does after a code
    with no meaning at all: its next request, nothing more (no retry, no reconnection), nothing less."""
    reactions = {code: reaction_to(run_client, scripted_server, code) for code in LEGACY_CODES}
    baseline = reaction_to(run_client, scripted_server, NO_MEANING)
    for code, reaction in reactions.items():
        assert reaction == baseline, f"after {code} the client sent {reaction}; after {NO_MEANING}, {baseline}"


@for_req("errors-accept-legacy-resource-not-found", "client")
def test_the_client_takes_minus_32002_from_a_legacy_server_as_not_found(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """A 2025-11-25 server refuses a read with -32002, its resource-not-found code: the client carries on
    (its scenario lists the tools next), and does what it does after -32602 (the code of 2026-07-28)."""
    scripted_stdio.revision = LEGACY

    def reaction() -> list[str]:
        """The methods the client sent, in the latest run, after its refused read."""
        frames = [f for f in scripted_stdio.load().frames() if isinstance(f, dict) and "method" in f]
        methods = [f["method"] for f in frames]
        if "resources/read" not in methods:  # the scenario never reached the refusal: nothing to judge
            raise HarnessError(f"the client did not read the resource: {methods}")
        return methods[methods.index("resources/read") + 1 :]

    def check_carries_on() -> None:
        assert FOLLOW_UP in reaction(), f"after -32002 the client stopped: {reaction()}"

    scripted_stdio.errors["resources/read"] = -32002
    run_stdio_client("read_then_list").judge(check_carries_on)
    after_legacy_code = reaction()
    scripted_stdio.errors["resources/read"] = -32602
    run_stdio_client("read_then_list").require_completed()
    assert after_legacy_code == reaction(), (
        f"after -32002 the client sent {after_legacy_code}; after -32602 {reaction()}"
    )
