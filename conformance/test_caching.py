"""Caching hints, server side (2026-07-28): ``ttlMs`` and ``cacheScope`` on the cacheable results.

Each test holds the server under test to one requirement of docs/spec/requirements.md (caching),
at every revision its cover claims (see coverage/caching.py). The cacheable results asked for are
``server/discover``, every page of ``tools/list``, ``prompts/list``, ``resources/list`` and
``resources/templates/list``, and a ``resources/read`` of the resource the profile binds to
``static-text-resource``; interim ``input_required`` results carry no hints and are passed over.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import HarnessError, Peer, precondition
from conformance.harness.roles import bound, require_roles
from conformance.harness.scripted_server import SCRIPTED_TOOL, ScriptedServer, paged_answer
from conformance.harness.surface import LIST_KEYS, call, list_pages, server_capabilities
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun

CACHEABLE_LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
CAPABILITY_OF_LIST = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resources",
}
SCOPES = ("public", "private")
RunClient = Callable[[str], ClientRun]


def complete(result: object) -> bool:
    """A final result (``resultType`` "complete", or absent, which means complete): the cacheable kind."""
    return isinstance(result, dict) and result.get("resultType", "complete") == "complete"


def paged_lists(peer: Peer) -> dict[str, list[dict]]:
    """Every page (its result) of each list the server answers, by method."""
    peer.open()
    pages: dict[str, list[dict]] = {}
    for method in CACHEABLE_LISTS:
        results = [response.get("result") for response in list_pages(peer, method)]
        if all(isinstance(result, dict) for result in results):
            pages[method] = results
    return pages


def cacheable_results(peer: Peer) -> list[tuple[str, dict]]:
    """(what was asked, its complete result) for every cacheable request the server answers here."""
    answers: list[tuple[str, dict]] = [("server/discover", peer.rpc("server/discover", check=False).get("result"))]
    for method, results in paged_lists(peer).items():
        answers += [(f"{method} page {n}", result) for n, result in enumerate(results, 1)]
    resource = peer.roles.get("static-text-resource")
    if resource is not None:
        read = peer.rpc("resources/read", {"uri": resource.name}, check=False).get("result")
        answers.append((f"resources/read {resource.name}", read))
    found = [(asked, result) for asked, result in answers if complete(result)]
    if not found:
        pytest.skip("fixture-missing: the server answered no cacheable request with a complete result")
    return found


@for_req("caching-hints-required", "server", transports=BOTH_TRANSPORTS)
def test_every_cacheable_result_carries_ttl_and_scope(revision: str, transport: str, peer: Peer) -> None:
    missing = {
        asked: [key for key in ("ttlMs", "cacheScope") if key not in result]
        for asked, result in cacheable_results(peer)
        if "ttlMs" not in result or "cacheScope" not in result
    }
    assert not missing, f"cacheable results without their caching hints: {missing}"


@for_req("caching-ttl-non-negative", "server", transports=BOTH_TRANSPORTS)
def test_no_ttl_is_negative(revision: str, transport: str, peer: Peer) -> None:
    ttls = {asked: result["ttlMs"] for asked, result in cacheable_results(peer) if "ttlMs" in result}
    if not ttls:
        pytest.skip("fixture-missing: no cacheable result carried a ttlMs")
    # Only the sign is this row's: a ttlMs that is no integer at all is the schema rows' business.
    bad = {asked: ttl for asked, ttl in ttls.items() if isinstance(ttl, int | float) and ttl < 0}
    assert not bad, f"negative ttlMs values: {bad}"


def multi_page_lists(peer: Peer) -> dict[str, list[dict]]:
    paged = {method: pages for method, pages in paged_lists(peer).items() if len(pages) > 1}
    if not paged:
        pytest.skip("fixture-missing: the server pages none of its lists (each fits on one page)")
    return paged


@for_req("caching-uniform-scope-across-pages", "server", transports=BOTH_TRANSPORTS)
def test_every_page_of_a_list_has_the_same_scope(revision: str, transport: str, peer: Peer) -> None:
    # A page without a cacheScope is caching-hints-required's business: the scopes the pages carry are compared.
    scopes = {method: [page.get("cacheScope") for page in pages] for method, pages in multi_page_lists(peer).items()}
    mixed = {method: found for method, found in scopes.items() if len({str(s) for s in found if s is not None}) > 1}
    assert not mixed, f"pages of one list with different cacheScope values (page by page): {mixed}"


@for_req("caching-per-page-ttl", "server", transports=BOTH_TRANSPORTS)
def test_pages_of_a_list_may_carry_their_own_ttl(revision: str, transport: str, peer: Peer) -> None:
    """A permission: a list whose pages carry different ttlMs values shows the server taking it."""
    ttls = {method: [page.get("ttlMs") for page in pages] for method, pages in multi_page_lists(peer).items()}
    own = {method: found for method, found in ttls.items() if len(set(map(str, found))) > 1}
    assert own, f"every page of each paged list carries the same ttlMs: {ttls}"


@for_req("caching-ttl-with-or-without-list-changed", "server", transports=BOTH_TRANSPORTS)
def test_lists_may_carry_a_ttl_with_or_without_list_changed(revision: str, transport: str, peer: Peer) -> None:
    """A permission: lists carrying ``ttlMs``, whatever the server declares of ``listChanged``; the pass
    names which of the two cases were seen."""
    capabilities = server_capabilities(peer)
    seen = {}
    for method, pages in paged_lists(peer).items():
        if any(complete(page) and "ttlMs" in page for page in pages):
            declared = capabilities.get(CAPABILITY_OF_LIST[method]) or {}
            seen[method] = "with listChanged" if declared.get("listChanged") is True else "without listChanged"
    assert seen, f"no list ({', '.join(LIST_KEYS)}) carried a ttlMs"


@for_req("caching-data-may-change-within-ttl", "server", transports=BOTH_TRANSPORTS)
def test_data_may_change_before_its_ttl_runs_out(revision: str, transport: str, peer: Peer) -> None:
    """A permission: the resource of ``updating-resource`` read twice around the update ``resource-updater``
    announces, within the first read's ``ttlMs``, reading differently shows the server taking it."""
    resource, updater = bound(peer, "updating-resource"), bound(peer, "resource-updater")
    peer.open()
    require_roles(peer, "updating-resource", "resource-updater")
    first = peer.rpc("resources/read", {"uri": resource.name}, check=False).get("result")
    read_at = time.monotonic()
    precondition(complete(first), f"reading {resource.name} failed: {first}")
    called = call(peer, updater)
    precondition("result" in called, f"{updater.name} (resource-updater) failed: {called}")
    again = peer.rpc("resources/read", {"uri": resource.name}, check=False).get("result")
    within = (time.monotonic() - read_at) * 1000 < (first.get("ttlMs") or 0)
    changed = complete(again) and again.get("contents") != first.get("contents")
    assert within and changed, (
        f"{resource.name} read the same after the update, or its ttlMs "
        f"({first.get('ttlMs')!r}) had run out: {first.get('contents')} then {(again or {}).get('contents')}"
    )


# -- the client (2026-07-28): what it fetches again, and what its application gets ------------------------
#
# The scripted server answers the cacheable requests with the hints a test scripts (``ttlMs``, ``cacheScope``,
# absent or negative ones sent unchecked); the client driver's scenarios (``list_twice``, ``read_resources``,
# ``paged_lists_thrice``, ...) use the results as an application would and report what they got. What reached
# the server (the record) shows what the client fetched and what it served from its cache.

LONG_TTL_MS = 60_000  # fresh for the whole run
SHORT_TTL_MS = 10  # stale well before the expiry scenarios' second use (STALE_AFTER_SECONDS)
POLL_TTL_MS = 100  # several times over within ``idle_after_list``'s idle time
RESOURCES = {"test://mcp-matrix/a": "the text of a", "test://mcp-matrix/b": "the text of b"}
CURSOR = "mcp-matrix-page-2"
PAGES = [{"items": [{**SCRIPTED_TOOL, "name": "first"}], "nextCursor": CURSOR}, {"items": [SCRIPTED_TOOL]}]
TOKENS = {"alice": "mcp-matrix-token-alice", "bob": "mcp-matrix-token-bob"}


def hinted(ttl: int | None, scope: str | None = "private", **result: Any) -> dict:
    """A complete result with these cache hints (None: left out)."""
    hints = {"ttlMs": ttl, "cacheScope": scope}
    return {"resultType": "complete", **result} | {k: v for k, v in hints.items() if v is not None}


def listing(server: ScriptedServer, ttl: int | None, scope: str | None = "private") -> None:
    """tools/list answered with these hints: through the schema check when they are valid, else unchecked."""
    result = hinted(ttl, scope, tools=[SCRIPTED_TOOL])
    if ttl is None or ttl < 0:
        server.raw["tools/list"] = {"result": result}
    else:
        server.answers["tools/list"] = lambda frame: dict(result)


def lists_of(server: ScriptedServer) -> list[dict]:
    return [f for f in server.requests() if f.get("method") == "tools/list"]


def cursor_of(frame: dict) -> Any:
    return (frame.get("params") or {}).get("cursor")


def check_reused(server: ScriptedServer, run: ClientRun) -> None:
    lists = lists_of(server)
    if not lists:
        raise HarnessError(f"the client never listed the tools:\n{run.output[-1500:]}")
    assert len(lists) == 1, f"a fresh tool list was fetched again: {len(lists)} tools/list requests"
    listed = run.report("listed")
    if not (isinstance(listed, list) and len(listed) == 2 and listed[0] == listed[1] == [SCRIPTED_TOOL["name"]]):
        raise HarnessError(f"the application did not get the tools twice: {listed}")


def check_fetched_again(server: ScriptedServer) -> None:
    count = len(lists_of(server))
    assert count >= 2, f"the tools, needed twice, were fetched {count} time(s): the stale list was reused"


@for_req("caching-ttl-positive-fresh", "client")
def test_a_result_is_fresh_for_its_ttl_only(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The tool list carries ttlMs 10; the application needs it again 50 ms after it arrived: fresh for 10 ms
    from its receipt and no longer, it is fetched again. (Whether a client keeps a fresh result at all is
    the option of caching-ttl-fresh-window: one that never caches passes here.)"""
    listing(scripted_server, SHORT_TTL_MS)
    run_client("list_after_expiry").judge(lambda: check_fetched_again(scripted_server))


@for_req("caching-ttl-fresh-window", "client")
def test_a_client_may_reuse_a_fresh_result(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The tool list carries ttlMs 60000 (public): the client may serve its second use from its cache; one
    that asks again does not take the option (not-exercised)."""
    listing(scripted_server, LONG_TTL_MS, "public")
    run = run_client("list_twice")
    run.judge(lambda: check_reused(scripted_server, run))


@for_req("caching-private-same-context", "client")
def test_a_private_result_may_be_reused_in_its_context(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The tool list is private with ttlMs 60000: the same client (one authorization context) may serve its
    second use from its cache (not-exercised when it asks again)."""
    listing(scripted_server, LONG_TTL_MS, "private")
    run = run_client("list_twice")
    run.judge(lambda: check_reused(scripted_server, run))


@for_req("caching-ttl-zero-stale", "client")
def test_a_zero_ttl_result_is_stale_at_once(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The tool list carries ttlMs 0: needed twice in a row, it is fetched twice."""
    listing(scripted_server, 0)
    run_client("list_twice").judge(lambda: check_fetched_again(scripted_server))


@for_req("caching-ttl-zero-refetch-each-use", "client")
def test_a_zero_ttl_result_may_be_fetched_at_each_use(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The tool list carries ttlMs 0: the client may fetch it at each use (not-exercised when it does not)."""
    listing(scripted_server, 0)
    run_client("list_twice").judge(lambda: check_fetched_again(scripted_server))


@for_req("caching-ttl-absent-zero", "client")
def test_a_result_without_ttl_is_stale_at_once(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The tool list carries no ttlMs (as an older server's would; sent unchecked): needed twice in a row,
    it is fetched twice."""
    listing(scripted_server, None)
    run_client("list_twice").judge(lambda: check_fetched_again(scripted_server))


@for_req("caching-ttl-negative-zero", "client")
def test_a_negative_ttl_counts_as_zero(revision: str, run_client: RunClient, scripted_server: ScriptedServer) -> None:
    """The tool list carries ttlMs -60000 (sent unchecked): taken as 0, so the list is fetched twice."""
    listing(scripted_server, -LONG_TTL_MS)
    run_client("list_twice").judge(lambda: check_fetched_again(scripted_server))


@for_req("caching-refetch-when-stale", "client")
def test_a_stale_result_is_fetched_again(revision: str, run_client: RunClient, scripted_server: ScriptedServer) -> None:
    """The tool list carries ttlMs 10; the application needs it again 50 ms later: it is fetched again."""
    listing(scripted_server, SHORT_TTL_MS)
    run_client("list_after_expiry").judge(lambda: check_fetched_again(scripted_server))


@for_req("caching-stale-on-error", "client")
def test_a_stale_result_may_stand_in_when_refetching_fails(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The tool list carries ttlMs 10; 50 ms later its re-fetch is answered with an internal error: the client
    may give its application the stale list (not-exercised when it reports the failure)."""
    calls = itertools.count()
    first = hinted(SHORT_TTL_MS, tools=[SCRIPTED_TOOL])
    failed = {"error": {"code": -32603, "message": "the server is down for a moment"}}
    scripted_server.answers["tools/list"] = lambda frame: dict(first) if next(calls) == 0 else dict(failed)
    run = run_client("list_after_expiry")
    listed = run.report("listed")
    if len(lists_of(scripted_server)) < 2 or not isinstance(listed, list) or len(listed) != 2:
        raise HarnessError(f"the scenario did not go as scripted (a list, then a failed re-fetch): {listed}")
    assert listed[1] == listed[0], f"after the failed re-fetch the application got {listed[1]!r}, not the stale list"


def resource_reads(server: ScriptedServer) -> None:
    """resources/read answered with the text of each uri of RESOURCES, fresh for the whole run."""

    def read(frame: dict) -> dict:
        uri = (frame.get("params") or {}).get("uri")
        if uri not in RESOURCES:
            return {"error": {"code": -32602, "message": f"Resource not found: {uri}"}}
        return hinted(LONG_TTL_MS, contents=[{"uri": uri, "mimeType": "text/plain", "text": RESOURCES[uri]}])

    server.answers["resources/read"] = read


def check_each_read_its_own(run: ClientRun) -> None:
    read = run.report("read")
    if not isinstance(read, dict) or sorted(read) != sorted(RESOURCES):
        raise HarnessError(f"the application did not report its reads: {read}\n{run.output[-1500:]}")
    for uri, texts in read.items():
        wrong = [t for t in texts if t != [RESOURCES[uri]]]
        assert not wrong, f"reading {uri} gave the application {wrong}, not its own text {RESOURCES[uri]!r}"


@for_req("caching-key-match", "client")
def test_a_cached_result_answers_only_its_own_request(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Two resources, each read result fresh for the whole run: reading a, then b, then a again, the
    application gets each resource's own text (b is not served from a's cached result)."""
    resource_reads(scripted_server)
    run = run_client("read_resources")
    run.judge(lambda: check_each_read_its_own(run))


ELICIT = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Which edition?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    },
}


def check_retry_result_not_cached(server: ScriptedServer) -> None:
    reads = [f for f in server.requests() if f.get("method") == "resources/read"]
    retried = [f for f in reads if {"inputResponses", "requestState"} & set(f.get("params") or {})]
    if not retried:
        raise HarnessError(f"the client never retried the read with its answers: {reads}")
    fresh = [f for f in reads[reads.index(retried[0]) + 1 :] if f not in retried]
    assert fresh, "the result of a retry with inputResponses was served from a cache: the second read never came"


@for_req("caching-no-cache-mrtr-retries", "client")
def test_a_result_reached_through_a_retry_is_not_cached(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The first read of a resource is answered with an input_required result (an elicitation, a
    requestState); its retry with the answers gets the resource, marked fresh for the whole run and
    public. The application's second read of it still reaches the server."""
    uri, calls = next(iter(RESOURCES)), itertools.count()
    asked = {"resultType": "input_required", "inputRequests": {"edition": ELICIT}, "requestState": "mcp-matrix/read"}
    found = hinted(LONG_TTL_MS, "public", contents=[{"uri": uri, "mimeType": "text/plain", "text": RESOURCES[uri]}])
    scripted_server.answers["resources/read"] = lambda frame: dict(asked) if next(calls) == 0 else dict(found)
    run_client("read_after_input").judge(lambda: check_retry_result_not_cached(scripted_server))


def check_no_background_polling(server: ScriptedServer) -> None:
    count = len(lists_of(server))
    assert count == 1, f"needed once, the tool list (ttlMs {POLL_TTL_MS}) was fetched {count} times while idle"


@for_req("caching-ttl-not-poll-interval", "client")
def test_a_ttl_is_no_polling_interval(revision: str, run_client: RunClient, scripted_server: ScriptedServer) -> None:
    """The tool list carries ttlMs 100; the application lists once and stays idle 600 ms: the client fetches
    it no more (a background re-fetch each time the TTL runs out is polling on the TTL)."""
    listing(scripted_server, POLL_TTL_MS)
    run_client("idle_after_list").judge(lambda: check_no_background_polling(scripted_server))


def check_jitter_and_backoff(server: ScriptedServer) -> None:
    arrivals = [
        r.at for r in server.received if any(isinstance(f, dict) and f.get("method") == "tools/list" for f in r.frames)
    ]
    if len(arrivals) < 3:
        pytest.skip("fixture-missing: the client does not re-fetch on a schedule (fewer than two re-fetches)")
    intervals = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
    assert intervals[-1] > intervals[0] * 1.1 + 0.005, f"the client polls at steady intervals {intervals}: no backoff"
    assert max(intervals) - min(intervals) > 0.001, f"the client polls at identical intervals {intervals}: no jitter"


@for_req("caching-poll-jitter-backoff", "client")
def test_a_client_that_polls_adds_jitter_and_backoff(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The tool list carries ttlMs 100; the application lists once and stays idle 600 ms. A client that
    re-fetches on a schedule meanwhile spaces its re-fetches out more and more (backoff) and not to the
    millisecond alike (jitter). Only a growing interval shows backoff; jitter is judged loosely (intervals
    not identical), since the wire cannot tell jitter from scheduling noise. A client that does not poll
    does not reach the situation (fixture-missing)."""
    listing(scripted_server, POLL_TTL_MS)
    run_client("idle_after_list").judge(lambda: check_jitter_and_backoff(scripted_server))


@for_req("caching-early-refetch", "client")
def test_a_client_may_refetch_early_after_an_unexpected_error(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The tool list is fresh for the whole run; calling its tool is refused with invalid params: the client
    may take that as a sign the list changed and fetch it again before its TTL runs out (not-exercised when
    it serves the cached list)."""
    listing(scripted_server, LONG_TTL_MS)
    scripted_server.answers["tools/call"] = lambda frame: {"error": {"code": -32602, "message": "Unknown argument"}}
    run_client("list_call_list").judge(lambda: check_fetched_again(scripted_server))


def paged_listing(server: ScriptedServer, first_ttl: int, second_ttl: int, refuse_again: bool = False) -> None:
    """tools/list answered page by page (PAGES: the second page behind CURSOR), each page with its own ttlMs;
    with ``refuse_again``, CURSOR is refused as invalid (-32602) from its second use on."""
    pages = paged_answer(server.answers["tools/list"], "tools", PAGES)
    uses = itertools.count()

    def serve(frame: dict) -> dict:
        later = cursor_of(frame) is not None
        if later and refuse_again and next(uses) > 0:
            return {"error": {"code": -32602, "message": f"Invalid cursor: {CURSOR!r}"}}
        result = pages(frame)
        return result if "error" in result else result | {"ttlMs": second_ttl if later else first_ttl}

    server.answers["tools/list"] = serve


def check_page_refetched(server: ScriptedServer) -> None:
    lists = lists_of(server)
    with_cursor = [f for f in lists if cursor_of(f) == CURSOR]
    if not with_cursor:
        assert lists, "the client never listed the tools"
    assert len(with_cursor) >= 2, (
        f"the expired second page was not fetched again with its cursor: cursors sent {[cursor_of(f) for f in lists]}"
    )


@for_req("caching-refetch-expired-page", "client")
def test_an_expired_page_is_fetched_again_with_its_cursor(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Two pages of tools: the first fresh for the whole run, the second with ttlMs 0. Gathering the whole
    list again, the client asks for the second page again with its cursor (a client that starts over from
    the first page asks for it too)."""
    paged_listing(scripted_server, LONG_TTL_MS, 0)
    run_client("paged_lists_thrice").judge(lambda: check_page_refetched(scripted_server))


def check_starts_over(server: ScriptedServer) -> None:
    lists = lists_of(server)
    start = next((n for n, f in enumerate(lists) if cursor_of(f) is None), len(lists))
    first_end = next((n for n, f in enumerate(lists) if n > start and cursor_of(f) == CURSOR), None)
    if first_end is None or first_end + 1 >= len(lists):
        raise HarnessError(f"the client did not gather the list twice: cursors {[cursor_of(f) for f in lists]}")
    following = lists[first_end + 1]
    assert cursor_of(following) is None, f"gathering the list again, the client began at {cursor_of(following)!r}"


@for_req("caching-snapshot-from-start", "client")
def test_the_whole_list_is_gathered_again_from_its_first_page(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Two pages of tools, each with ttlMs 0; the application gathers the whole list again: the client's
    next tools/list after the first traversal carries no cursor."""
    paged_listing(scripted_server, 0, 0)
    run_client("paged_lists_thrice").judge(lambda: check_starts_over(scripted_server))


def check_discarded_after_invalid_cursor(server: ScriptedServer) -> None:
    lists = lists_of(server)
    with_cursor = [n for n, f in enumerate(lists) if cursor_of(f) == CURSOR]
    if len(with_cursor) < 2:
        raise HarnessError(f"the client never used the cursor again to be refused: {[cursor_of(f) for f in lists]}")
    after = lists[with_cursor[1] + 1 :]
    assert any(cursor_of(f) is None for f in after), (
        "after its cursor was refused as invalid, the client never fetched the list from its first page "
        f"(it kept the cached first page): cursors sent {[cursor_of(f) for f in lists]}"
    )


@for_req("caching-invalid-cursor-discard", "client")
def test_an_invalid_cursor_discards_the_cached_pages(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Two pages of tools: the first fresh for the whole run, the second with ttlMs 0, and its cursor refused
    as invalid from its second use on. The application gathers the whole list three times: once the cursor
    is refused, the client drops the cached first page and fetches the list from its beginning."""
    paged_listing(scripted_server, LONG_TTL_MS, 0, refuse_again=True)
    run_client("paged_lists_thrice").judge(lambda: check_discarded_after_invalid_cursor(scripted_server))


def lists_by_token(server: ScriptedServer) -> list[str]:
    """The bearer token of each tools/list request, in order."""
    return [
        r.headers.get("authorization", "").removeprefix("Bearer ")
        for r in server.received
        for f in r.frames
        if isinstance(f, dict) and f.get("method") == "tools/list"
    ]


def per_context_listing(server: ScriptedServer, scope: str) -> None:
    """tools/list fresh for the whole run, marked ``scope``, listing a tool named after the user whose turn
    it is (the scenario lists as alice, then as bob: the tokens on the record show who asked)."""
    calls, users = itertools.count(), list(TOKENS)

    def serve(frame: dict) -> dict:
        user = users[min(next(calls), len(users) - 1)]
        return hinted(LONG_TTL_MS, scope, tools=[{**SCRIPTED_TOOL, "name": f"tool-of-{user}"}])

    server.answers["tools/list"] = serve


def check_contexts_apart(server: ScriptedServer, run: ClientRun) -> None:
    listed = run.report("listed")
    if not isinstance(listed, dict) or sorted(listed) != sorted(TOKENS):
        raise HarnessError(f"the application did not report both users' lists: {listed}\n{run.output[-1500:]}")
    tokens = lists_by_token(server)
    if tokens != list(TOKENS.values())[: len(tokens)]:
        raise HarnessError(f"the tool lists were not asked for as alice, then as bob: tokens {tokens}")
    for user, tools in listed.items():
        assert tools == [f"tool-of-{user}"], f"{user} was given {tools}: the private list of another context"


@for_req("caching-private-not-shared", "client")
def test_a_private_result_stays_in_its_authorization_context(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Two users of one application, each with a bearer token of its own, their clients sharing a response
    cache: alice's tool list, private and fresh for the whole run, is not given to bob, who gets his own."""
    per_context_listing(scripted_server, "private")
    run = run_client("lists_in_two_contexts")
    run.judge(lambda: check_contexts_apart(scripted_server, run))


def check_public_shared(server: ScriptedServer, run: ClientRun) -> None:
    tokens = lists_by_token(server)
    if TOKENS["alice"] not in tokens:
        raise HarnessError(f"alice never listed the tools (tokens {tokens}):\n{run.output[-1500:]}")
    assert TOKENS["bob"] not in tokens, "bob's client fetched the public tool list again instead of sharing alice's"


@for_req("caching-public-shared", "client")
def test_a_public_result_may_be_shared_across_contexts(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """As the private case, the tool list marked public: bob's client may be served alice's cached list
    (not-exercised when it fetches its own)."""
    per_context_listing(scripted_server, "public")
    run = run_client("lists_in_two_contexts")
    run.judge(lambda: check_public_shared(scripted_server, run))
