"""The HTTP+SSE transport of 2024-11-05: an SSE stream from the server, POSTs from the client.

The client GETs the server's SSE endpoint; the stream's first event, ``endpoint``, names (as a URI
relative to the SSE endpoint's URL) where the client POSTs its messages, one a request. The server
answers each POST with a bare acceptance and sends its own messages, responses included, as SSE
``message`` events on the stream. A reader thread delivers each ``message`` event to the session
as it comes; every exchange is recorded in the trace as an ``http`` event (transport ``sse``),
the ``endpoint`` event as a ``lifecycle`` event. Only loopback addresses are accepted; every wait
is bounded. Faults apply as on the other transports: to the frames (``Peer``), to statuses and
headers (``http-status``, ``http-header``: ``GET`` for the stream, a method for the POST carrying
it) and to the stream's events (``sse-event-id``, ``sse-event-name``, target ``GET``).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import urllib.parse
from collections.abc import Iterator
from typing import Any

from conformance.harness.faults import Fault
from conformance.harness.http import Exchange, HttpTransport, parse_sse, require_loopback
from conformance.harness.peer import (
    CLOSED,
    DEFAULT_TIMEOUT_SECONDS,
    ImplementationTimeout,
    ProtocolViolation,
)
from conformance.harness.trace import Trace

STREAM = "GET"  # what a fault on the SSE stream targets


class HttpSsePeer(HttpTransport):
    """The client end of one HTTP+SSE session: ``url`` is the server's SSE endpoint.

    ``headers`` go on every request (credentials, for a server that authenticates its
    connections). The stream is opened by ``connect`` (or by the first frame sent); ``stream``
    then holds its status and headers, ``events`` every event it carried (as faults left them),
    ``endpoint`` the absolute URL its ``endpoint`` event named."""

    transport = "http+sse"

    def __init__(
        self,
        url: str,
        trace: Trace,
        revision: str,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        fault: Fault | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(trace, revision, timeout, fault)
        require_loopback(url)
        self.url = url
        self.headers = dict(headers or {})
        self.stream: Exchange | None = None
        self.events: list[dict[str, str]] = []
        self.endpoint: str | None = None
        self._endpoint_known = threading.Event()  # the endpoint event came, or the stream ended without it
        self._first_event = threading.Event()  # an event came, or the stream ended without one
        self._reader: threading.Thread | None = None

    # -- HTTP ---------------------------------------------------------------------------------------

    def _events(self, response: http.client.HTTPResponse) -> Iterator[dict[str, str]]:
        """The stream's events as they come, through the stream's faults."""
        for event in parse_sse(iter(response.readline, b"")):
            yield self.fault.rewrite_events(STREAM, [event])[0] if self.fault is not None else event

    def stream_headers(self) -> dict[str, str]:
        return {"Accept": "text/event-stream"} | self.headers

    def post_headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json"} | self.headers

    def exchange(
        self,
        method: str,
        url: str | None = None,
        headers: dict[str, str] | None = None,
        *,
        frame: Any = None,
        events: int = 0,
    ) -> Exchange:
        """One HTTP exchange outside the session, for transport-level cells.

        ``url`` defaults to the SSE endpoint; ``headers`` to the session's for ``method``; ``frame``
        is sent as the body (recorded and schema-checked as ours). An event-stream answer is read
        until ``events`` events have come (bounded by the timeout), then dropped; any other body
        is read whole."""
        body = None
        if frame is not None:
            self._check_own(frame)
            self.trace.message("client-to-server", frame)
            body = json.dumps(frame).encode()
        sent = headers if headers is not None else self.stream_headers() if method == "GET" else self.post_headers()
        self.trace.record("client-to-server", "http", method=method, headers=sent)
        response = self._request(method, url or self.url, body, sent)
        target = frame["method"] if isinstance(frame, dict) and isinstance(frame.get("method"), str) else method
        exchange = self._record(method, response, target)
        try:
            if exchange.headers.get("content-type", "").startswith("text/event-stream"):
                with contextlib.suppress(TimeoutError, OSError):
                    for event in self._events(response) if events else ():
                        exchange.events.append(event)
                        if len(exchange.events) >= events:
                            break
            else:
                with contextlib.suppress(TimeoutError, OSError):
                    exchange.body = response.read()
        finally:
            self._done(response)
        return exchange

    # -- the session's stream -----------------------------------------------------------------------

    def connect(self) -> Exchange:
        """Open the session's SSE stream (once); its events are read by a thread from then on."""
        if self.stream is not None:
            return self.stream
        headers = self.stream_headers()
        self.trace.record("client-to-server", "http", method="GET", headers=headers)
        response = self._request("GET", self.url, None, headers)
        self.stream = self._record("GET", response, STREAM)
        streamed = (response.getheader("content-type") or "").startswith("text/event-stream")
        if self.stream.status == 200 and streamed:
            connection = getattr(response, "connection_of_mcp_matrix", None)
            if connection is not None and connection.sock is not None:
                connection.sock.settimeout(None)  # a quiet stream is not a dead one; teardown ends the read
            self._reader = threading.Thread(target=self._read_stream, args=(response,), daemon=True)
            self._reader.start()
        else:
            if not streamed:  # a stream refused (or seen as refused, under a fault) is dropped unread
                with contextlib.suppress(Exception):
                    self.stream.body = response.read()
            self._done(response)
            self._endpoint_known.set()
            self._first_event.set()
            self.inbound.put(CLOSED)
        return self.stream

    def _read_stream(self, response: http.client.HTTPResponse) -> None:
        # Never raises: teardown closes the socket under it; a broken stream shows as a missing frame.
        try:
            with contextlib.suppress(Exception):
                for event in self._events(response):
                    self.events.append(event)
                    self._first_event.set()
                    name = event.get("event", "message")
                    if name == "endpoint" and self.endpoint is None:
                        self.endpoint = urllib.parse.urljoin(self.url, event["data"].strip())
                        self.trace.lifecycle("server-to-client", "endpoint", data=event["data"])
                        self._endpoint_known.set()
                    elif name == "message" and event["data"].strip():
                        self.inbound.put(event["data"].encode() + b"\n")
        finally:
            self._endpoint_known.set()
            self._first_event.set()
            self.inbound.put(CLOSED)
            with contextlib.suppress(Exception):
                self._done(response)

    def first_event(self, timeout: float | None = None) -> dict[str, str]:
        """The stream's first event, waiting for it within the bound."""
        self.connect()
        bound = self.timeout if timeout is None else timeout
        if not self._first_event.wait(bound):
            raise ImplementationTimeout(f"no event on the SSE stream within {bound:g}s")
        if not self.events:
            assert self.stream is not None
            raise ProtocolViolation(f"the SSE stream (GET -> {self.stream.status}) ended before any event")
        return self.events[0]

    def await_endpoint(self, timeout: float | None = None) -> str:
        """The absolute URL the stream's ``endpoint`` event named, waiting for it within the bound."""
        self.connect()
        bound = self.timeout if timeout is None else timeout
        if not self._endpoint_known.wait(bound):
            raise ImplementationTimeout(f"no endpoint event on the SSE stream within {bound:g}s")
        if self.endpoint is None:
            assert self.stream is not None
            raise ProtocolViolation(
                f"the SSE stream ({self.stream.status}, {self.stream.headers.get('content-type')!r}) ended without "
                f"an endpoint event; it carried {self.events[:3]}{self._said()}"
            )
        return self.endpoint

    def _transmit(self, data: bytes, frame: Any) -> None:
        endpoint = self.await_endpoint()
        headers = self.post_headers()
        self.trace.record("client-to-server", "http", method="POST", headers=headers)
        response = self._request("POST", endpoint, data, headers)
        target = frame["method"] if isinstance(frame, dict) and isinstance(frame.get("method"), str) else "POST"
        exchange = self._record("POST", response, target)
        try:
            with contextlib.suppress(TimeoutError, OSError):
                exchange.body = response.read()  # an acceptance: the answer comes on the stream
        finally:
            self._done(response)

    def posts(self) -> list[Exchange]:
        return [e for e in self.exchanges if e.method == "POST"]

    def diagnostics(self) -> str:
        return "\n".join(f"{e.method} -> {e.status} {e.body[:120]!r}" for e in self.exchanges[-5:])

    def _shutdown(self) -> None:
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                if connection.sock is not None:
                    connection.sock.shutdown(socket.SHUT_RDWR)
                connection.close()
        if self._reader is not None:
            self._reader.join(timeout=2)
        self.inbound.put(CLOSED)
