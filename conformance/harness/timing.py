"""When things happened: the timeouts of either side, judged from the record of a session.

For a client under test, ``Timeline`` reads a scripted server's record (a session trace, over
stdio or Streamable HTTP) with each event's time: when a request arrived, and when the client
abandoned it (its ``notifications/cancelled``, the close of the request's response stream, or its
next request). ``script`` sets what a scripted server of either transport answers, and how fast.

For a server under test, ``ServerRequest`` drives the tool the profile binds to the role
``timed-request-tool`` (the fixture's ``test_timed_request``): the server sends the client (the
harness) a request with a timeout of its own, which the harness leaves unanswered, answers late,
or keeps alive with progress notifications, while it notes when the server gave up on it. Every
wait is bounded.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from conformance.harness.peer import ImplementationTimeout, Peer
from conformance.harness.roles import require_role
from conformance.harness.scripted_server import Pace, ScriptedPeer, ScriptedServer
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.wire import Call, Wire, answers, params_of, tool_call

EARLY = 0.15  # how much earlier than its timeout a request may read as abandoned (the record lags the wire:
# up to 0.12 s seen at a load average of 15 on 2 cores)
LATE = 1.5  # how much later than its timeout a request may still be abandoned, on a loaded machine
CALL_BOUND_SECONDS = 4.0  # how long a call of the timed-request tool is awaited, whatever happens meanwhile


# -- the client under test: a scripted server's record, with times --------------------------------


def script(peer: ScriptedPeer, results: dict[str, dict] | None = None, paces: dict[str, Pace] | None = None) -> None:
    """Set, on the scripted server of either transport, fixed ``results`` for some methods and the
    ``paces`` (scripted_server.Pace) of others. Over stdio it applies from the next run on."""
    if isinstance(peer, ScriptedStdio):
        peer.results.update(results or {})
        peer.paces.update(paces or {})
        return
    assert isinstance(peer, ScriptedServer)
    for method, result in (results or {}).items():
        peer.answers[method] = lambda _frame, result=result: dict(result)
    peer.paces.update(paces or {})


@dataclass(frozen=True)
class Event:
    ts: float
    kind: str  # message, http, lifecycle
    direction: str
    payload: Any = None  # the frame of a message event
    event: str = ""  # the name of a lifecycle event
    detail: dict = field(default_factory=dict)


class Timeline:
    """The record of a scripted server (the latest run over stdio), in order, with times."""

    def __init__(self, peer: ScriptedPeer) -> None:
        if isinstance(peer, ScriptedStdio):
            raw = list(peer.record.events)
        else:
            assert isinstance(peer, ScriptedServer)
            raw = []
            for line in peer.trace.path.read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(json.JSONDecodeError):  # a line still being written
                    raw.append(json.loads(line))
        self.events = [
            Event(e.get("ts", 0.0), e["kind"], e["direction"], e.get("payload"), e.get("event", ""), e)
            for e in sorted(raw, key=lambda e: e["seq"])
        ]

    def from_client(self) -> Iterator[Event]:
        """The client's JSON-RPC messages."""
        for event in self.events:
            if event.kind == "message" and event.direction == "client-to-server" and isinstance(event.payload, dict):
                yield event

    def requests(self, method: str | None = None) -> list[Event]:
        """The client's requests (of ``method``), in order."""
        return [
            e
            for e in self.from_client()
            if "id" in e.payload and "method" in e.payload and method in (None, e.payload["method"])
        ]

    def to_client(self, method: str) -> list[Event]:
        """What the scripted server sent the client carrying ``method`` (its requests, notifications)."""
        return [
            e
            for e in self.events
            if e.kind == "message"
            and e.direction == "server-to-client"
            and isinstance(e.payload, dict)
            and e.payload.get("method") == method
        ]

    def cancellation_of(self, request_id: Any, by: tuple[str, ...] = ("notification", "stream")) -> Event | None:
        """How the client signalled that it abandoned a request, by the means of ``by``: its
        ``notifications/cancelled`` (notification), or the close of the request's response stream
        (stream, over Streamable HTTP); None if it did neither."""
        for event in self.events:
            closed = event.kind == "lifecycle" and event.event == "stream-closed"
            if "stream" in by and closed and event.detail.get("id") == request_id:
                return event
            if (
                "notification" in by
                and event.kind == "message"
                and event.direction == "client-to-server"
                and isinstance(event.payload, dict)
                and event.payload.get("method") == "notifications/cancelled"
                and params_of(event.payload).get("requestId") == request_id
            ):
                return event
        return None

    def next_request_after(self, request: Event) -> Event | None:
        """The client's first request sent after ``request``."""
        return next((e for e in self.requests() if e.ts >= request.ts and e is not request), None)

    def abandoned_at(self, request: Event) -> float | None:
        """When the client stopped waiting for ``request``: its cancellation, else its next request."""
        signs = [e for e in (self.cancellation_of(request.payload["id"]), self.next_request_after(request)) if e]
        return min((e.ts for e in signs), default=None)

    def answered(self, request: Event) -> bool:
        """Whether the scripted server answered ``request``."""
        return any(
            e.kind == "message" and e.direction == "server-to-client" and answers(e.payload, request.payload["id"])
            for e in self.events
            if isinstance(e.payload, dict)
        )


def waited(timeline: Timeline, request: Event) -> float:
    """How long the client waited for ``request`` before abandoning it (it must have)."""
    abandoned = timeline.abandoned_at(request)
    assert abandoned is not None, f"the client never stopped waiting for {request.payload}"
    return abandoned - request.ts


def assert_waited_about(seconds: float, timeout: float, what: str) -> None:
    """``seconds`` of waiting match a timeout of ``timeout``: not before it, not long after."""
    assert seconds >= timeout - EARLY, f"{what} was abandoned after {seconds:.2f}s, before its {timeout}s timeout"
    assert seconds <= timeout + LATE, f"{what} was abandoned only after {seconds:.2f}s, its timeout was {timeout}s"


# -- the server under test: a request of its own, with a timeout ------------------------------------


@dataclass
class ServerRequest:
    """What became of one call of the timed-request tool: the server's request, and its end."""

    call: Call
    request: dict | None = None  # the server's request to the harness
    sent_at: float = 0.0  # when it arrived (monotonic)
    cancelled_at: float | None = None  # when the server's notifications/cancelled for it arrived
    response: dict | None = None  # the answer to the tool call
    answered_at: float | None = None
    progress_sent: int = 0  # progress notifications the harness sent for the server's request
    frames: list[dict] = field(default_factory=list)

    @property
    def gave_up_after(self) -> float:
        """How long the server waited: until its cancellation, else until the call's answer."""
        end = self.cancelled_at if self.cancelled_at is not None else self.answered_at
        assert self.request is not None, f"the server sent no request during the call: {self.response}"
        assert end is not None, "the server neither cancelled its request nor answered the call"
        return end - self.sent_at

    def text(self) -> str:
        """The call's outcome: its content's text, or its error's message."""
        if self.response is None:
            return ""
        if "error" in self.response:
            return str(self.response["error"].get("message", ""))
        content = self.response.get("result", {}).get("content", [])
        return " ".join(str(item.get("text", "")) for item in content if isinstance(item, dict))

    @property
    def succeeded(self) -> bool:
        result = (self.response or {}).get("result")
        return isinstance(result, dict) and not result.get("isError") and self.text().startswith("answered")


def server_request(
    peer: Peer,
    method: str = "ping",
    timeout: float = 0.5,
    *,
    wire: Wire | None = None,
    answer_after: float | None = None,
    progress_every: float = 0.0,
) -> ServerRequest:
    """Call the timed-request tool: the server sends ``method`` to the harness with ``timeout``. The
    harness answers it after ``answer_after`` seconds (None: never) and meanwhile, every
    ``progress_every`` seconds, sends a progress notification for it (if it carries a token)."""
    tool = require_role(peer, "timed-request-tool")
    wire = wire or Wire(peer)
    call_id = f"timed-{peer.next_id()}"
    outcome = ServerRequest(wire.send(tool_call(peer, call_id, tool.name, tool.args(method=method, timeout=timeout))))
    deadline = time.monotonic() + CALL_BOUND_SECONDS
    answered_request = False
    while outcome.response is None:
        now = time.monotonic()
        if now >= deadline:
            raise ImplementationTimeout(f"no answer to the {tool.name} call within {CALL_BOUND_SECONDS}s")
        due = [deadline]
        if outcome.request is not None and not answered_request:
            if answer_after is not None:
                due.append(outcome.sent_at + answer_after)
            if progress_every and _token(outcome.request) is not None:
                due.append(outcome.sent_at + progress_every * (outcome.progress_sent + 1))
        try:
            frame = wire.until(lambda _: True, "frame", max(0.0, min(due) - now))
        except ImplementationTimeout:
            frame = None
        now = time.monotonic()
        if frame is not None:
            outcome.frames.append(frame)
            if frame.get("method") == method and "id" in frame and outcome.request is None:
                outcome.request, outcome.sent_at = frame, now
            elif _cancels_request(frame, outcome.request):
                outcome.cancelled_at = now
            elif answers(frame, call_id):
                outcome.response, outcome.answered_at = frame, now
            continue
        if outcome.request is None or answered_request:
            continue
        if answer_after is not None and now >= outcome.sent_at + answer_after:
            peer.send({"jsonrpc": "2.0", "id": outcome.request["id"], "result": _answer(method)})
            answered_request = True
        elif progress_every and _token(outcome.request) is not None:
            outcome.progress_sent += 1
            params = {"progressToken": _token(outcome.request), "progress": outcome.progress_sent}
            peer.notify("notifications/progress", params)
    return outcome


def _token(request: dict) -> Any:
    meta = params_of(request).get("_meta")
    return meta.get("progressToken") if isinstance(meta, dict) else None


def _cancels_request(frame: dict, request: dict | None) -> bool:
    return (
        request is not None
        and frame.get("method") == "notifications/cancelled"
        and params_of(frame).get("requestId") == request["id"]
    )


def _answer(method: str) -> dict:
    return {"roots": []} if method == "roots/list" else {}
