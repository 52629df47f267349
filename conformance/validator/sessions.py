"""A trace cut into the sessions it holds, each judged on its own.

One trace may hold several sessions: a client that tries Streamable HTTP and falls back to 2024-11-05's
HTTP+SSE, a client probing with server/discover and falling back to initialize, round after round, a
capture of a server launched twice. Judged as one, the second session's ``initialize`` reads as a repeated
handshake and its requests as answered by the first session's responses. A new session starts at:

- stdio: a ``lifecycle`` ``spawn``, ``open`` or ``start`` (the transport opened again);
- a change of transport (Streamable HTTP, then HTTP+SSE);
- HTTP+SSE: a second ``lifecycle`` ``endpoint`` (the server named another session's POST endpoint);
- Streamable HTTP and HTTP+SSE: a client ``initialize`` request whose POST carries no ``Mcp-Session-Id``
  (a re-initialize inside a session carries the session's id, and stays in it), and a client
  ``server/discover`` once the session under way began with ``initialize`` (a new probe: a legacy session
  has no server/discover).

A cut takes along what was recorded just before it and belongs to it: an initialize's or discover's POST
(where ``post_pairs`` is certain of it);
an endpoint's GET and the client messages the client queued before connecting. Events before the first
cut, and a stretch holding no message, belong to the session that follows. Sessions are contiguous
stretches of the trace: a capture interleaving two sessions' events is not cut apart (the capture proxy
writes each session to a trace of its own).
"""

from __future__ import annotations

import json
from itertools import pairwise

from conformance.validator.reader import Event
from conformance.validator.session import SESSION_ID_HEADER, header, post_pairs

OPENED = ("spawn", "open", "start")
PROBES = ("initialize", "server/discover")


def _opens_http_session(events: list[Event], index: int, post_at: dict[int, int]) -> int | None:
    """The index the session opened by the request at ``index`` starts at (its POST's, when that is certain
    and was recorded before it), or None when its POST names a session (a re-initialize within it)."""
    post_index = index if events[index]["kind"] == "http" else post_at.get(events[index]["seq"])
    if post_index is None:
        return index
    if header(events[post_index], SESSION_ID_HEADER) is not None:
        return None
    return min(index, post_index)


def _client_method(event: Event) -> str | None:
    """The method of the client request the event carries, if it carries one of PROBES: a message, or a POST
    whose recorder kept its JSON-RPC body in the http event (``body``: the harness's authorization traces)."""
    if event["direction"] != "client-to-server":
        return None
    payload = event["payload"] if event["kind"] == "message" else _posted(event)
    frames = payload if isinstance(payload, list) else [payload]
    return next((f["method"] for f in frames if isinstance(f, dict) and f.get("method") in PROBES and "id" in f), None)


def _posted(event: Event) -> object:
    """The JSON value of a POST's recorded ``body``, or None."""
    if event["kind"] != "http" or event.get("method") != "POST" or not isinstance(event.get("body"), str):
        return None
    try:
        return json.loads(event["body"])
    except ValueError:
        return None


def _with_what_came_before(events: list[Event], index: int, start: int) -> int:
    """An endpoint's cut moves back over the GET it answered and the client messages queued before it."""
    while index > start and (events[index - 1].get("method") == "GET" or _client_method(events[index - 1]) is not None):
        index -= 1
    return index


def cuts(events: list[Event]) -> list[int]:
    """The index each session after the first starts at."""
    found: list[int] = []
    index_of = {event["seq"]: index for index, event in enumerate(events)}
    post_at = {body: index_of[post] for post, body in post_pairs(events)[0].items()}  # body seq -> its POST's index
    start, substantial, endpoints = 0, False, 0
    transport: str | None = None  # the transport of the session's messages
    began_with: str | None = None  # initialize or server/discover, whichever the session's client sent first
    for index, event in enumerate(events):
        opening: int | None = None
        method = _client_method(event)
        if event["kind"] == "lifecycle" and event.get("event") in OPENED:
            opening = index
        elif event["kind"] == "lifecycle" and event.get("event") == "endpoint":
            endpoints += 1
            if endpoints > 1:
                opening = _with_what_came_before(events, index, start)
        elif transport is not None and event["kind"] != "lifecycle" and event["transport"] != transport:
            opening = index
        elif method is not None and event["transport"] != "stdio" and "initialize" in (method, began_with):
            opening = _opens_http_session(events, index, post_at)
        if opening is not None and opening > start and substantial:
            found.append(opening)
            start, substantial, transport, began_with = opening, False, None, None
            endpoints = 1 if event.get("event") == "endpoint" else 0
        if event["kind"] == "message" or method is not None:
            substantial, transport = True, transport or event["transport"]
        began_with = began_with or method
    return found


def split(events: list[Event]) -> list[list[Event]]:
    """The trace's sessions, in order (a trace of one session: itself)."""
    bounds = [0, *cuts(events), len(events)]
    return [events[a:b] for a, b in pairwise(bounds)]
