"""Pagination, server side: cursors of the list requests, valid and invalid.

Each test holds the server under test to one requirement of docs/spec/requirements.md
(pagination), at every revision its cover claims (see coverage/pagination.py), over every list
request the server serves: ``tools/list``, ``resources/list``, ``resources/templates/list`` and
``prompts/list``.
"""

from __future__ import annotations

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import Peer
from conformance.harness.surface import LIST_KEYS, list_pages
from conformance.matrix.covers import for_req

INVALID_CURSOR = "mcp-matrix-not-a-cursor-the-server-issued"
INVALID_PARAMS = -32602


def served_lists(peer: Peer) -> list[str]:
    """The list methods the server answers (with a result) in this session."""
    peer.open()
    served = [method for method in LIST_KEYS if "result" in peer.rpc(method, check=False)]
    if not served:
        pytest.skip("fixture-missing: the server answers no list request")
    return served


def with_invalid_cursor(peer: Peer) -> dict[str, dict]:
    """Each served list request's answer to a cursor the server never issued."""
    return {method: peer.rpc(method, {"cursor": INVALID_CURSOR}, check=False) for method in served_lists(peer)}


@for_req("pagination-server-stable-cursors", "server", transports=BOTH_TRANSPORTS)
def test_a_cursor_gives_the_same_page_each_time(revision: str, transport: str, peer: Peer) -> None:
    paginated = 0
    for method in served_lists(peer):
        pages = list_pages(peer, method)
        for page in pages[:-1]:
            cursor = page["result"]["nextCursor"]
            first = peer.rpc(method, {"cursor": cursor}, check=False)
            again = peer.rpc(method, {"cursor": cursor}, check=False)
            assert first.get("result") == again.get("result"), f"{method} cursor {cursor!r}: {first} then {again}"
            paginated += 1
    if not paginated:
        pytest.skip("fixture-missing: the server issues no cursor (every list fits on one page)")


@for_req("pagination-server-invalid-cursor-graceful", "server", transports=BOTH_TRANSPORTS)
def test_an_invalid_cursor_is_answered_and_the_server_carries_on(revision: str, transport: str, peer: Peer) -> None:
    for method, response in with_invalid_cursor(peer).items():
        if "error" in response:
            assert type(response["error"].get("code")) is int, f"{method}: {response}"
        else:
            assert isinstance(response.get("result", {}).get(LIST_KEYS[method]), list), f"{method}: {response}"
    after = peer.rpc(peer.probe_method, check=False)
    assert "result" in after, f"after invalid cursors the server answered {after}"


@for_req("pagination-invalid-cursor-error", "server", transports=BOTH_TRANSPORTS)
def test_an_invalid_cursor_gets_minus_32602(revision: str, transport: str, peer: Peer) -> None:
    answers = with_invalid_cursor(peer)
    codes = {method: response.get("error", {}).get("code") for method, response in answers.items()}
    wrong = {method: code for method, code in codes.items() if code != INVALID_PARAMS}
    assert not wrong, f"error codes for cursor {INVALID_CURSOR!r} (None: answered with a result): {wrong}"
