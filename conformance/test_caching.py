"""Caching hints, server side (2026-07-28): ``ttlMs`` and ``cacheScope`` on the cacheable results.

Each test holds the server under test to one requirement of docs/spec/requirements.md (caching),
at every revision its cover claims (see coverage/caching.py). The cacheable results asked for are
``server/discover``, every page of ``tools/list``, ``prompts/list``, ``resources/list`` and
``resources/templates/list``, and a ``resources/read`` of the resource the profile binds to
``static-text-resource``; interim ``input_required`` results carry no hints and are passed over.
"""

from __future__ import annotations

import time

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import Peer, precondition
from conformance.harness.roles import bound, require_roles
from conformance.harness.surface import LIST_KEYS, call, list_pages, server_capabilities
from conformance.matrix.covers import for_req

CACHEABLE_LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
CAPABILITY_OF_LIST = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resources",
}
SCOPES = ("public", "private")


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
