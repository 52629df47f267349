"""Server-sent events as a recorder keeps them: 2024-11-05's HTTP+SSE endpoint event and the POSTs that
follow it; the event ids a Streamable HTTP server assigns (``sse_id`` on the events that carried them)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from conformance.validator.judgement import Judgement, check
from conformance.validator.reader import Event
from conformance.validator.session import Session

SSE, STREAMABLE_HTTP = "sse", "streamable-http"


def _sse_requests(session: Session, method: str) -> Iterator[Event]:
    return (e for e in session.http_requests() if e["transport"] == SSE and e["method"] == method)


def _endpoint_events(session: Session) -> list[Event]:
    return [
        e for e in session.events if e["kind"] == "lifecycle" and e["event"] == "endpoint" and e["transport"] == SSE
    ]


def _uses_sse(session: Session) -> str | None:
    return None if any(e["transport"] == SSE for e in session.http) else "the trace has no HTTP+SSE exchange"


@check("http-sse-endpoint-event", not_applicable=_uses_sse)
def endpoint_event_on_connect(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2024-11-05) A client's GET that opened the event stream is followed by an endpoint event naming
    where to POST."""
    endpoints = _endpoint_events(session)
    for response in session.http_responses():
        if response["transport"] != SSE or response["method"] != "GET" or not 200 <= response["status"] < 300:
            continue
        judgement.examine()
        named = [e for e in endpoints if e["seq"] > response["seq"] and isinstance(e.get("data"), str) and e["data"]]
        if not named:
            judgement.fail(response["seq"], "an event stream opened with no endpoint event naming the POST URI")


@check("http-sse-client-post-to-endpoint", not_applicable=_uses_sse)
def posts_go_to_the_endpoint(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2024-11-05) After the endpoint event, every client POST goes to the URI it named (compared by the
    recorded path and query)."""
    endpoints = _endpoint_events(session)
    for post in _sse_requests(session, "POST"):
        named = [e["data"] for e in endpoints if e["seq"] < post["seq"] and isinstance(e.get("data"), str)]
        if not named or "path" not in post:
            continue
        judgement.examine()
        target = named[-1]
        if not (post["path"] == target or target.endswith(post["path"]) or post["path"].endswith(target)):
            judgement.fail(post["seq"], f"a POST to {post['path']!r}, not to the endpoint {target!r}")


@check("streamable-http-event-id-unique")
def event_ids_unique(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """An SSE event id the server assigns names one event only: the same id on two different events breaks it
    (the same event replayed on resumption keeps its id)."""
    seen: dict[Any, tuple[int, Any]] = {}
    for event in session.events:
        if event["transport"] != STREAMABLE_HTTP or event["direction"] != "server-to-client" or "sse_id" not in event:
            continue
        judgement.examine()
        content = event.get("payload", event.get("event"))
        earlier = seen.get(event["sse_id"])
        if earlier is not None and earlier[1] != content:
            judgement.fail(event["seq"], f"event id {event['sse_id']!r} already named another event (seq {earlier[0]})")
        seen.setdefault(event["sse_id"], (event["seq"], content))
