"""The wire between the harness and a server, request by request: calls in flight, their
cancellation (C-15: ``notifications/cancelled``, or at 2026-07-28 on Streamable HTTP closing the
response stream), and ``Wire``, every frame the server sends in order with what was in flight when it
came. Used by the tests that need to see interleaving: cancellation and progress.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from conformance.harness.http import HttpPeer, OpenRequest
from conformance.harness.peer import ImplementationTimeout, Peer

QUIET_SECONDS = 0.25  # how long a frame that must not come is awaited once the server is done (loopback: a frame
# already on its way arrives in milliseconds; this bounds how late a stray frame can be and still be seen)
REASON = "mcp-matrix: cancelled by the conformance suite"


@dataclass
class Call:
    """A request in flight, and on Streamable HTTP the hold on its answer."""

    peer: Peer
    frame: dict
    stream: OpenRequest | None = None

    @property
    def id(self) -> Any:
        return self.frame["id"]


def start(peer: Peer, frame: dict) -> Call:
    """Send a request without waiting for its answer."""
    if isinstance(peer, HttpPeer):
        return Call(peer, frame, peer.open_request(frame))
    peer.send_request(frame)
    return Call(peer, frame)


def cancel(call: Call, reason: str = REASON) -> None:
    """Signal the cancellation of ``call`` as its revision and transport say (C-15)."""
    if call.stream is not None and call.peer.stateless:
        call.stream.close()  # 2026-07-28 on Streamable HTTP: closing the response stream is the signal
    else:
        call.peer.notify("notifications/cancelled", {"requestId": call.id, "reason": reason})


def tool_call(peer: Peer, request_id: Any, name: str, arguments: dict | None = None, token: Any = None) -> dict:
    """A tools/call request in its revision's form, with a progress token when ``token`` is given."""
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return peer.envelope("tools/call", request_id, params)


def is_response(frame: dict) -> bool:
    return "method" not in frame and "id" in frame


def answers(frame: dict, request_id: Any) -> bool:
    return is_response(frame) and frame["id"] == request_id


def params_of(frame: dict) -> dict:
    params = frame.get("params")
    return params if isinstance(params, dict) else {}


def cancels(frame: dict, request_id: Any) -> bool:
    """``frame`` is a notifications/cancelled naming ``request_id``."""
    return frame.get("method") == "notifications/cancelled" and params_of(frame).get("requestId") == request_id


def reports_progress(frame: dict, token: Any) -> bool:
    return frame.get("method") == "notifications/progress" and params_of(frame).get("progressToken") == token


@dataclass
class Seen:
    """A frame from the server, with what was in flight when it came."""

    frame: dict
    client_requests: dict[Any, dict]  # the client's requests not yet answered nor cancelled: id -> request
    server_requests: dict[Any, str]  # the server's requests not yet answered: id -> method


@dataclass
class Wire:
    """Every frame the server sends, in order, against the requests in flight at the time."""

    peer: Peer
    seen: list[Seen] = field(default_factory=list)
    sent: dict[Any, dict] = field(default_factory=dict)  # every request the client sent: id -> request
    client_requests: dict[Any, dict] = field(default_factory=dict)
    server_requests: dict[Any, str] = field(default_factory=dict)

    def send(self, frame: dict) -> Call:
        self.sent[frame["id"]] = self.client_requests[frame["id"]] = frame
        return start(self.peer, frame)

    def cancel(self, call: Call, reason: str = REASON) -> None:
        self.client_requests.pop(call.id, None)
        cancel(call, reason)

    def until(self, predicate: Callable[[dict], bool], what: str, timeout: float | None = None) -> dict:
        """Take frames until one satisfies ``predicate``; ImplementationTimeout after ``timeout`` (by default the
        peer's bound, a fresh process's start-up allowance included)."""
        bound = self.peer.default_bound() if timeout is None else timeout
        deadline = time.monotonic() + bound
        while True:
            try:
                frame = self.peer.receive(max(0.0, deadline - time.monotonic()))
            except ImplementationTimeout:
                raise ImplementationTimeout(f"no {what} within {bound:g}s") from None
            self.seen.append(Seen(frame, dict(self.client_requests), dict(self.server_requests)))
            if is_response(frame):
                self.client_requests.pop(frame["id"], None)
            elif "id" in frame:
                self.server_requests[frame["id"]] = frame["method"]
            if predicate(frame):
                return frame

    def answer(self, request_id: Any) -> dict:
        """The response to ``request_id``, whether it already came or is still to come."""
        came = next((s.frame for s in self.seen if answers(s.frame, request_id)), None)
        return came or self.until(lambda f: answers(f, request_id), f"response to {request_id!r}")

    def settle(self) -> None:
        """Take whatever else the server sends within QUIET_SECONDS."""
        with contextlib.suppress(ImplementationTimeout):
            self.until(lambda _: False, "frame", QUIET_SECONDS)

    def notifications(self, method: str) -> list[Seen]:
        return [s for s in self.seen if s.frame.get("method") == method and "id" not in s.frame]
