"""A trace cut into the sessions it holds, each judged on its own.

One trace may hold several sessions: a client that tries Streamable HTTP and falls back to 2024-11-05's
HTTP+SSE, a capture of a server launched twice, a test that opens a second session. Judged as one, the
second session's ``initialize`` reads as a repeated handshake and its requests as answered by the first
session's responses. A new session starts, the first of these that applies:

- stdio: a ``lifecycle`` ``spawn``, ``open`` or ``start`` (the transport opened again);
- HTTP+SSE: a ``lifecycle`` ``endpoint`` (the server named a new session's POST endpoint);
- Streamable HTTP and HTTP+SSE: a client ``initialize`` request whose POST carries no ``Mcp-Session-Id``
  (a re-initialize inside a session carries the session's id, and stays in it); its POST goes with it when
  it was recorded just before it.

Events before the first cut, and a stretch holding no message, belong to the session that follows (an
``endpoint`` takes the GET recorded just before it, which it answered). Sessions are contiguous stretches
of the trace: a capture interleaving two sessions' events is not cut apart (the capture proxy writes each
session to a trace of its own).
"""

from __future__ import annotations

from itertools import pairwise

from conformance.validator.reader import Event
from conformance.validator.session import SESSION_ID_HEADER, header

OPENED = ("spawn", "open", "start", "endpoint")


def _is_post(event: Event | None) -> bool:
    return (
        event is not None
        and event["kind"] == "http"
        and event["direction"] == "client-to-server"
        and event.get("method") == "POST"
    )


def _opens_http_session(events: list[Event], index: int) -> int | None:
    """The index the session opened by the initialize at ``index`` starts at (its POST's, when that was
    recorded just before it), or None when the POST names a session (a re-initialize within it)."""
    before = events[index - 1] if index else None
    after = events[index + 1] if index + 1 < len(events) else None
    post = before if _is_post(before) else after if _is_post(after) else None
    if post is not None and header(post, SESSION_ID_HEADER) is not None:
        return None
    return index - 1 if post is before and post is not None else index


def _initializes(event: Event) -> bool:
    if event["kind"] != "message" or event["direction"] != "client-to-server":
        return False
    payload = event["payload"]
    frames = payload if isinstance(payload, list) else [payload]
    return any(isinstance(f, dict) and f.get("method") == "initialize" and "id" in f for f in frames)


def cuts(events: list[Event]) -> list[int]:
    """The index each session after the first starts at."""
    found: list[int] = []
    start, substantial = 0, False
    for index, event in enumerate(events):
        opening: int | None = None
        if event["kind"] == "lifecycle" and event.get("event") in OPENED:
            opening = index
            while opening > start and events[opening - 1].get("method") == "GET":  # the GET the endpoint answered
                opening -= 1
        elif _initializes(event) and event["transport"] != "stdio":
            opening = _opens_http_session(events, index)
        if opening is not None and opening > start and substantial:
            found.append(opening)
            start, substantial = opening, False
        substantial = substantial or event["kind"] == "message"
    return found


def split(events: list[Event]) -> list[list[Event]]:
    """The trace's sessions, in order (a trace of one session: itself)."""
    bounds = [0, *cuts(events), len(events)]
    return [events[a:b] for a, b in pairwise(bounds)]
