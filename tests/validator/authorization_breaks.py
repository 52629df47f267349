"""The violation traces of the authorization checks (conformance/validator/checks/authorization.py): check name
-> (the conforming trace it breaks, the break). corpus.py merges them into its BREAKS."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from tests.validator.corpus import C2S, S2C, Break, Event, drop_header, http_events, set_header

AT_2025_03_26 = "authorization-2025-03-26-streamable-http.jsonl"
AT_2025_06_18 = "authorization-2025-06-18-streamable-http.jsonl"
AT_2025_11_25 = "authorization-2025-11-25-streamable-http.jsonl"
AT_2026_07_28 = "authorization-2026-07-28-streamable-http.jsonl"
FALLBACK = "authorization-fallback-2025-11-25-streamable-http.jsonl"  # a 401 naming no resource_metadata
PROTECTED_RESOURCE_METADATA = "/.well-known/oauth-protected-resource"
AUTHORIZATION_SERVER_METADATA = "/.well-known/oauth-authorization-server"


def _answer(events: list[Event], status: int) -> Event:
    return next(e for e in http_events(events, S2C) if e["status"] == status)


def _challenge(events: list[Event], status: int, change: Callable[[str], str]) -> None:
    answer = _answer(events, status)
    set_header(answer, "www-authenticate", change(answer["headers"]["www-authenticate"]))


def _without_parameter(name: str) -> Callable[[str], str]:
    def drop(challenge: str) -> str:
        scheme, _, rest = challenge.partition(" ")
        kept = [part.strip() for part in rest.split(", ") if not part.strip().startswith(f"{name}=")]
        return " ".join([scheme, ", ".join(kept)]).strip()

    return drop


def _requests_to(events: list[Event], path: str) -> list[Event]:
    return [e for e in events if e["kind"] == "http" and urlsplit(e.get("path", "")).path == path]


def _metadata_nowhere(events: list[Event]) -> None:
    """The 401 names no resource_metadata, and both well-known locations answer 404."""
    _challenge(events, 401, _without_parameter("resource_metadata"))
    at_path = _requests_to(events, PROTECTED_RESOURCE_METADATA + "/mcp")
    at_path[-1]["status"] = 404
    index = events.index(at_path[-1])
    root = [{**e, "path": PROTECTED_RESOURCE_METADATA, "headers": dict(e["headers"])} for e in at_path]
    events[index + 1 : index + 1] = root


def _metadata_named_elsewhere(events: list[Event]) -> None:
    """The 401 names another path of the same origin; the client still asks at the well-known one."""
    _challenge(events, 401, lambda c: c.replace(PROTECTED_RESOURCE_METADATA + "/mcp", "/resource-metadata"))


def _root_first(events: list[Event]) -> None:
    """The client asks at the root first, then with the endpoint's path."""
    at_path = _requests_to(events, PROTECTED_RESOURCE_METADATA + "/mcp")
    at_root = _requests_to(events, PROTECTED_RESOURCE_METADATA)
    for event in at_path:
        event["path"] = PROTECTED_RESOURCE_METADATA
    for event in at_root:
        event["path"] = PROTECTED_RESOURCE_METADATA + "/mcp"


def _token_in_query(events: list[Event]) -> None:
    post = http_events(events, C2S, "POST")[-1]
    post["path"] += "?access_token=leaked"


def _metadata_below_the_endpoint(events: list[Event]) -> None:
    for event in _requests_to(events, AUTHORIZATION_SERVER_METADATA):
        event["path"] = AUTHORIZATION_SERVER_METADATA + "/v1/mcp"


def _no_metadata_request(events: list[Event]) -> None:
    for event in _requests_to(events, AUTHORIZATION_SERVER_METADATA):
        events.remove(event)


AUTHORIZATION_BREAKS: dict[str, tuple[str, Break]] = {
    "unauthorized-answers-carry-a-bearer-challenge": (
        AT_2025_11_25,
        lambda ev: drop_header(_answer(ev, 401), "www-authenticate"),
    ),
    "unauthorized-answers-name-the-metadata": (AT_2025_06_18, lambda ev: _challenge(ev, 401, lambda _: "Bearer")),
    "protected-resource-metadata-findable": (AT_2025_11_25, _metadata_nowhere),
    "unauthorized-challenges-name-scopes": (AT_2025_11_25, lambda ev: _challenge(ev, 401, _without_parameter("scope"))),
    "insufficient-scope-answered-403": (AT_2025_11_25, lambda ev: _answer(ev, 403).update(status=401)),
    "runtime-insufficient-scope-answered-403": (AT_2026_07_28, lambda ev: _answer(ev, 403).update(status=400)),
    "insufficient-scope-challenge-complete": (
        AT_2025_11_25,
        lambda ev: _challenge(ev, 403, _without_parameter("scope")),
    ),
    "offline-access-not-challenged": (
        AT_2026_07_28,
        lambda ev: _challenge(ev, 401, lambda c: c.replace('scope="', 'scope="offline_access ')),
    ),
    "no-access-token-in-query": (AT_2025_11_25, _token_in_query),
    "metadata-fetched-where-the-challenge-says": (AT_2025_11_25, _metadata_named_elsewhere),
    "well-known-metadata-in-order": (FALLBACK, _root_first),
    "metadata-request-names-the-version": (
        AT_2025_03_26,
        lambda ev: drop_header(_requests_to(ev, AUTHORIZATION_SERVER_METADATA)[0], "mcp-protocol-version"),
    ),
    "metadata-asked-at-the-origin": (AT_2025_03_26, _metadata_below_the_endpoint),
    "metadata-before-default-endpoints": (AT_2025_03_26, _no_metadata_request),
}
