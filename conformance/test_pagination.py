"""Pagination: the server's cursors of the list requests, valid and invalid; the client following them.

Each test holds the implementation under test to one requirement of docs/spec/requirements.md
(pagination), at every revision its cover claims (see coverage/pagination.py). Server side: over every
list request the server serves (``tools/list``, ``resources/list``, ``resources/templates/list`` and
``prompts/list``). Client side: over the listings a scripted server pages (see the client section).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conformance.harness.frames import ALL_TRANSPORTS, BOTH_TRANSPORTS
from conformance.harness.peer import Peer, precondition
from conformance.harness.scripted_server import ScriptedPeer, ScriptedServer, page_cursors, paged_answer
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.surface import LIST_KEYS, list_pages
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun

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


# -- the client side: following the cursors of the scripted server's listings ---------------------------
#
# The scripted server (stdio, Streamable HTTP, 2024-11-05's HTTP+SSE) answers ``tools/list`` page by page
# (``PAGES``: pages of 3, 1, 2, 2, 1 and 1 tools, their cursors of five unlike forms) and ``prompts/list`` in
# one page without a cursor; the client runs ``paginated_lists``: its application asks for every tool and
# every prompt and reports what it received (``mcp-matrix: listed {...}``). A cursor no page issued is refused
# with -32602.

TOOL_PAGE_SIZES = (3, 1, 2, 2, 1, 1)
CURSORS = (  # the nextCursor of each page but the last: "{connection}" is the connection's number (1, 2)
    "{connection}/eyJvZmZzZXQiOiAzfQ==",  # looks like base64 of JSON (an offset a client could rewrite)
    "page=3&size=1&connection={connection}",  # looks like a query string (a page size a client could change)
    '  ünïcödé ✓ {connection} "quoted"\ttab  ',  # spaces at both ends, a tab, quotes, non-ASCII text
    "0000{connection}",  # looks like a number (its leading zeros lost if it were read as one)
    "{connection}" + "-opaque" * 64,  # long
)


def tool(name: str) -> dict:
    return {"name": name, "description": f"{name}, listed on a page", "inputSchema": {"type": "object"}}


def pages_of(items: list[dict], sizes: tuple[int, ...], cursors: tuple[str, ...]) -> list[dict]:
    """``items`` cut into pages of ``sizes``, each but the last carrying the next of ``cursors``."""
    pages, start = [], 0
    for number, size in enumerate(sizes):
        page: dict = {"items": items[start : start + size]}
        if number < len(sizes) - 1:
            page["nextCursor"] = cursors[number]
        pages.append(page)
        start += size
    return pages


TOOLS = [tool(f"tool-{n}") for n in range(1, sum(TOOL_PAGE_SIZES) + 1)]
PAGES = pages_of(TOOLS, TOOL_PAGE_SIZES, CURSORS)
PROMPTS = [{"name": "prompt-a", "description": "A prompt."}, {"name": "prompt-b", "description": "Another."}]
PROMPT_PAGES = [{"items": PROMPTS}]  # one page, no nextCursor: a listing that is not paginated
# 2026-07-28: an empty string is a cursor like any other, not the end of the results.
PRESENCE_PAGES = pages_of(TOOLS[:4], (2, 1, 1), ("", "after-the-empty-one"))
SHORT_PAGE = 1  # PAGES[1] holds fewer tools than PAGES[0]: its cursor asks for the page after a short one
RunClient = Callable[[str], ClientRun]


def names(items: list[dict]) -> list[str]:
    return [item["name"] for item in items]


def connections_seen(server: ScriptedServer) -> int:
    """Over Streamable HTTP up to 2025-11-25, each connection opens with ``initialize``: its number."""
    return max(1, sum(1 for f in server.frames() if isinstance(f, dict) and f.get("method") == "initialize"))


def paged(server: ScriptedPeer, method: str, key: str, pages: list[dict]) -> None:
    """``server`` answers ``method`` page by page (scripted_server.paged_answer)."""
    if isinstance(server, ScriptedStdio):
        server.pages[method] = {"key": key, "pages": pages}
        return
    assert isinstance(server, ScriptedServer)
    server.answers[method] = paged_answer(server.answers[method], key, pages, lambda: connections_seen(server))


def run_paginated(
    run_client: RunClient, server: ScriptedPeer, pages: list[dict] = PAGES, scenario: str = "paginated_lists"
) -> ClientRun:
    paged(server, "tools/list", "tools", pages)
    paged(server, "prompts/list", "prompts", PROMPT_PAGES)
    return run_client(scenario)


def listings(frames: list[Any], method: str = "tools/list") -> list[dict]:
    """The client's ``method`` requests among ``frames``, in the order it sent them."""
    return [f for f in frames if isinstance(f, dict) and f.get("method") == method and "id" in f]


def params(request: dict) -> dict:
    return request["params"] if isinstance(request.get("params"), dict) else {}


def cursor_of(request: dict) -> Any:
    """The cursor a list request carries (None: none, or ``null``, which asks for the first page too)."""
    return params(request).get("cursor")


def cursors_sent(frames: list[Any], method: str = "tools/list") -> list[Any]:
    """The cursors the client's ``method`` requests carried, in order (JSON values as sent)."""
    return [cursor_of(r) for r in listings(frames, method) if cursor_of(r) is not None]


def spelt(values: list[Any]) -> set[str]:
    """JSON texts of ``values``: a cursor is the same only with the same type and the same characters."""
    return {json.dumps(value) for value in values}


def listed(run: ClientRun) -> dict:
    """What the client's application received (``paginated_lists``'s report)."""
    report = run.report("listed")
    precondition(isinstance(report, dict), f"the client reported no listing: {run.output[-1000:]}")
    return report


@for_req("pagination-cursor-not-parsed-or-modified", "client", transports=ALL_TRANSPORTS)
def test_the_client_hands_each_cursor_back_as_it_came(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Every cursor the client sends is one the server issued, character for character (and a string):
    none trimmed, re-encoded, decoded, renumbered or made up."""
    run = run_paginated(run_peer_client, scripted_peer)
    issued = [cursor for cursor in page_cursors(PAGES, 1) if cursor is not None]

    def check() -> list[Any]:
        sent = cursors_sent(scripted_peer.frames())
        altered = [cursor for cursor in sent if json.dumps(cursor) not in spelt(issued)]
        assert not altered, f"the client sent cursors the server never issued: {altered!r}; it issued {issued!r}"
        return sent

    if not run.judge(check):
        pytest.skip("fixture-missing: the client followed no cursor, so it handed none back")


@for_req("pagination-cursor-no-format-assumptions", "client", transports=ALL_TRANSPORTS)
def test_the_client_follows_cursors_of_any_form(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The cursors look like base64, a query string, padded non-ASCII text, a number and a long token:
    each is a cursor all the same, and the client asks for the page it names."""
    run = run_paginated(run_peer_client, scripted_peer)
    issued = [cursor for cursor in page_cursors(PAGES, 1) if cursor is not None]

    def check() -> None:
        sent = spelt(cursors_sent(scripted_peer.frames()))
        unfollowed = [cursor for cursor in issued if json.dumps(cursor) not in sent]
        assert not unfollowed, f"the client never asked for the page of these cursors: {unfollowed!r}"

    run.judge(check)


@for_req("pagination-client-no-fixed-page-size", "client", transports=ALL_TRANSPORTS)
def test_the_client_goes_on_after_a_shorter_page(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The pages hold 3, 1, 2, 2, 1 and 1 tools: after the page of one (shorter than the first) the client
    asks for the next, since its cursor says there is one, and its application gets every tool."""
    run = run_paginated(run_peer_client, scripted_peer)
    after_short = page_cursors(PAGES, 1)[SHORT_PAGE]

    def check() -> None:
        sent = spelt(cursors_sent(scripted_peer.frames()))
        assert json.dumps(after_short) in sent, (
            f"after a page of {TOOL_PAGE_SIZES[SHORT_PAGE]} tool(s) (the first had {TOOL_PAGE_SIZES[0]}) the client "
            f"did not ask for the next page (cursor {after_short!r})"
        )

    run.judge(check)
    missing = [name for name in names(TOOLS) if name not in listed(run).get("tools", [])]
    assert not missing, f"the client's application did not get the tools {missing} (pages of {TOOL_PAGE_SIZES})"


@for_req("pagination-client-missing-cursor-ends", "client", transports=ALL_TRANSPORTS)
def test_a_page_without_a_cursor_ends_the_listing(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Once the client has a page without ``nextCursor`` (the tools' sixth, the prompts' only page) it asks
    for no further page of that listing: no later request of it carries a cursor."""
    run = run_paginated(run_peer_client, scripted_peer)
    last_tools = page_cursors(PAGES, 1)[-2]

    def check() -> None:
        tools = listings(scripted_peer.frames())
        ended = [i for i, r in enumerate(tools) if cursor_of(r) == last_tools]
        prompts = listings(scripted_peer.frames(), "prompts/list")
        ended_prompts = [i for i, r in enumerate(prompts) if cursor_of(r) is None]
        beyond = [r for r in tools[ended[0] + 1 :] if cursor_of(r) is not None] if ended else []
        beyond += [r for r in prompts[ended_prompts[0] + 1 :] if cursor_of(r) is not None] if ended_prompts else []
        assert not beyond, f"after a page without nextCursor the client asked for more: {beyond}"
        precondition(ended or ended_prompts, "the client reached the end of neither listing")

    run.judge(check)


@for_req("pagination-client-supports-both-flows", "client", transports=ALL_TRANSPORTS)
def test_the_client_takes_paginated_and_unpaginated_listings(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The tools come in six pages, the prompts in one without a cursor: the client's application gets
    every tool and every prompt."""
    run = run_paginated(run_peer_client, scripted_peer)
    run.require_completed()
    received = listed(run)
    missing = {
        "tools (paginated)": [name for name in names(TOOLS) if name not in received.get("tools", [])],
        "prompts (one page)": [name for name in names(PROMPTS) if name not in received.get("prompts", [])],
    }
    assert not any(missing.values()), f"the client's application did not get {missing}; it got {received}"


def frames_of_connections(server: ScriptedPeer) -> tuple[list[Any], list[Any]]:
    """What the client sent on its first connection and on its second (``paginated_lists_reconnect``)."""
    if isinstance(server, ScriptedStdio):
        later = server.restarts()
        precondition(later, "the client launched no second server")
        return server.frames(), later[0].frames()
    frames = server.frames()
    opened = [i for i, f in enumerate(frames) if isinstance(f, dict) and f.get("method") == "initialize"]
    precondition(len(opened) >= 2, f"the client opened {len(opened)} session(s), not two")
    return frames[: opened[1]], frames[opened[1] :]


@for_req("pagination-cursor-not-persisted", "client", transports=ALL_TRANSPORTS)
def test_no_cursor_of_an_earlier_session_is_used(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """On its first connection the client lists only the first page (a cursor in hand), then connects
    again and lists everything: on the second connection (whose cursors differ) it sends none of the
    first connection's cursors."""
    run = run_paginated(run_peer_client, scripted_peer, scenario="paginated_lists_reconnect")
    earlier = [cursor for cursor in page_cursors(PAGES, 1) if cursor is not None]

    def check() -> None:
        first, second = frames_of_connections(scripted_peer)
        precondition(listings(first), "the client listed nothing on its first connection")
        kept = [cursor for cursor in cursors_sent(second) if json.dumps(cursor) in spelt(earlier)]
        assert not kept, f"on its second connection the client sent cursors issued on the first: {kept!r}"

    run.judge(check)


@for_req("pagination-cursor-presence-only", "client", transports=ALL_TRANSPORTS)
def test_an_empty_cursor_does_not_end_the_listing(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The first page's ``nextCursor`` is the empty string: the client asks for the page it names (cursor
    ``""``), and goes on to the end; its application gets the tools of every page."""
    run = run_paginated(run_peer_client, scripted_peer, PRESENCE_PAGES)

    def check() -> None:
        sent = cursors_sent(scripted_peer.frames())
        assert "" in sent, f"given the cursor '' the client did not ask for its page (cursors sent: {sent!r})"

    run.judge(check)
    missing = [name for name in names(TOOLS[:4]) if name not in listed(run).get("tools", [])]
    assert not missing, f"after the cursor '' the client's application did not get the tools {missing}"


# The same at 2026-07-28 with the pages walked by the client on its own: it calls ``tool-4`` without listing
# the tools (``call_tool_by_name``), the server rejects the call (HeaderMismatch: it does not know that the
# client has the tool's schema), and a client that lists the tools again to find it (the SDK does) follows
# the pages itself, not as the driver's application would.
HEADER_MISMATCH = {"error": {"code": -32020, "message": "HeaderMismatch: list the tools to get this one's schema"}}
CALLED = {"content": [{"type": "text", "text": "called"}], "isError": False, "resultType": "complete"}


def rejecting_the_first_call(server: ScriptedPeer) -> None:
    """The first tools/call is rejected with HeaderMismatch, every later one answered."""
    if isinstance(server, ScriptedStdio):
        server.rounds["tools/call"] = [HEADER_MISMATCH, CALLED]
        return
    assert isinstance(server, ScriptedServer)
    calls = iter(range(1 << 30))
    server.answers["tools/call"] = lambda frame: dict(HEADER_MISMATCH if next(calls) == 0 else CALLED)


@for_req("pagination-cursor-presence-only", "client", transports=BOTH_TRANSPORTS)
def test_an_empty_cursor_does_not_end_the_clients_own_listing(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The tool the client looks for is on the last page; the first page's ``nextCursor`` is ``""``: a client
    that lists the tools again after its call was rejected asks for the page of the cursor ``""``."""
    paged(scripted_peer, "tools/list", "tools", PRESENCE_PAGES)
    rejecting_the_first_call(scripted_peer)
    run = run_peer_client("call_tool_by_name")

    def check() -> bool:
        frames = [f for f in scripted_peer.frames() if isinstance(f, dict)]
        calls = [i for i, f in enumerate(frames) if f.get("method") == "tools/call" and "id" in f]
        relisting = listings(frames[calls[0] + 1 :]) if calls else []
        if not relisting:
            return False
        sent = [cursor_of(request) for request in relisting]
        assert "" in sent, f"listing the tools again, the client took the cursor '' for the end (it sent {sent!r})"
        return True

    if not run.judge(check):
        pytest.skip("fixture-missing: the client did not list the tools again after its call was rejected")


# ``tool-4`` on none of these pages: a client that lists the tools again to find it walks every page (one
# shorter than the first among them) to the last, which carries no cursor.
WITHOUT_THE_TOOL = pages_of(TOOLS[4:], (3, 1, 2), CURSORS[:2])


def relisting(run_client: RunClient, server: ScriptedPeer) -> tuple[ClientRun, Callable[[], list[dict]]]:
    """``call_tool_by_name`` against a server that rejects the first call and lists WITHOUT_THE_TOOL; and the
    tools/list requests the client sent after the rejected call (read when called)."""
    paged(server, "tools/list", "tools", WITHOUT_THE_TOOL)
    rejecting_the_first_call(server)
    run = run_client("call_tool_by_name")

    def requests() -> list[dict]:
        frames = [f for f in server.frames() if isinstance(f, dict)]
        calls = [i for i, f in enumerate(frames) if f.get("method") == "tools/call" and "id" in f]
        return listings(frames[calls[0] + 1 :]) if calls else []

    return run, requests


@for_req("pagination-client-no-fixed-page-size", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_own_listing_goes_on_after_a_shorter_page(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Listing the tools again on its own (its call rejected, the tool on no page), the client asks for the
    page after the second one, which held one tool where the first held three."""
    run, relisted = relisting(run_peer_client, scripted_peer)
    first, after_short = page_cursors(WITHOUT_THE_TOOL, 1)[: SHORT_PAGE + 1]

    def check() -> bool:
        sent = [cursor_of(request) for request in relisted()]
        if first not in sent:  # it never asked for the short page: it does not walk the pages on its own
            return False
        assert after_short in sent, f"after a page of one tool the client's listing stopped (cursors sent: {sent!r})"
        return True

    if not run.judge(check):
        pytest.skip("fixture-missing: the client did not walk the pages on its own after its call was rejected")


@for_req("pagination-client-missing-cursor-ends", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_own_listing_ends_at_a_page_without_a_cursor(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Listing the tools again on its own (its call rejected, the tool on no page), the client stops at the
    page without ``nextCursor``: no later request of its listing carries a cursor."""
    run, relisted = relisting(run_peer_client, scripted_peer)
    last = page_cursors(WITHOUT_THE_TOOL, 1)[-2]

    def check() -> bool:
        requests = relisted()
        ended = [i for i, request in enumerate(requests) if cursor_of(request) == last]
        if not ended:
            return False
        beyond = [r for r in requests[ended[0] + 1 :] if cursor_of(r) is not None]
        assert not beyond, f"after the page without nextCursor the client's listing asked for more: {beyond}"
        return True

    if not run.judge(check):
        pytest.skip("fixture-missing: the client's own listing never reached the page without a cursor")
