"""The scripted server over 2024-11-05's HTTP+SSE transport, for a client under test.

The scripted Streamable HTTP server (``scripted_server.py``) with the old transport's shape: a GET on
``/sse`` opens a session's event stream, whose first event, ``endpoint``, names the URI (with a
session token in its query) where the client POSTs its messages; each POST is accepted with 202 and
the answers to its requests go out as ``message`` events on that session's stream. Everything else
(the answers, the schema check of the client's frames, the record, faults damaging the
record) is the scripted server's own. ``endpoint`` is the URI the stream names; each ``Received``
keeps the path it was POSTed to.
"""

from __future__ import annotations

import json
import queue
import secrets
import threading
import urllib.parse
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any

from conformance.harness.faults import Fault
from conformance.harness.scripted_server import Answer, Received, ScriptedServer, _headers
from conformance.harness.trace import Trace

SSE_PATH = "/sse"
POST_PATH = "/mcp-matrix/messages"  # not under the SSE path: a client must take it from the endpoint event
STREAM_POLL_SECONDS = 0.05  # how often a stream's writer looks for the server closing


class ScriptedSseServer(ScriptedServer):
    """A one-revision MCP server on loopback over HTTP+SSE; ``received`` holds what the client sent."""

    def __init__(
        self, revision: str, trace: Trace, script: Mapping[str, Answer] | None = None, fault: Fault | None = None
    ) -> None:
        self._streams: dict[str, queue.Queue[Any]] = {}  # session token -> what its stream is to carry
        self._closing = threading.Event()
        self._answered: dict[Any, int] = {}  # request id -> how many POSTs had come when its answer went out
        self.endpoint = ""  # the URI the latest stream's endpoint event named
        super().__init__(revision, trace, script, fault)
        self.url = self.url.removesuffix("/mcp") + SSE_PATH

    # -- serving -----------------------------------------------------------------------------------

    def _get(self, handler: BaseHTTPRequestHandler) -> None:
        received = Received("GET", _headers(handler), path=handler.path)
        if urllib.parse.urlsplit(handler.path).path != SSE_PATH:
            self._reply(handler, received, 404, None)
            return
        token = secrets.token_hex(8)
        stream: queue.Queue[Any] = queue.Queue()
        with self._lock:
            self._streams[token] = stream
            self.endpoint = f"{POST_PATH}?session={token}"
            received.status = 200
            self.received.append(received)
        self.trace.record("client-to-server", "http", method="GET", headers=received.headers)
        sent = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        handler.send_response(200)
        for name, value in sent.items():
            handler.send_header(name, value)
        handler.end_headers()
        self.trace.record("server-to-client", "http", method="GET", status=200, headers=sent)
        self.trace.lifecycle("server-to-client", "endpoint", data=self.endpoint)
        if not _write_event(handler, "endpoint", self.endpoint):
            return
        while not self._closing.is_set():
            try:
                payload = stream.get(timeout=STREAM_POLL_SECONDS)
            except queue.Empty:
                continue
            with self._lock:
                posts = sum(1 for r in self.received if r.method != "GET")
                for item in payload if isinstance(payload, list) else [payload]:
                    if isinstance(item, dict) and "id" in item:
                        self._answered.setdefault(item["id"], posts)
            self.trace.message("server-to-client", payload)
            if not _write_event(handler, "message", json.dumps(payload)):
                return

    def _deliver(
        self,
        handler: BaseHTTPRequestHandler,
        received: Received,
        status: int,
        payload: Any,
        headers: Mapping[str, str],
    ) -> None:
        """The POST is accepted; its answers go out on the stream its URI names (404: no such stream)."""
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query).get("session", [""])[0]
        with self._lock:
            stream = self._streams.get(token)
        self._reply(handler, received, 202 if stream is not None else 404, None)
        if stream is not None:
            stream.put(payload)

    def _answer(self, request: dict, headers: Mapping[str, str]) -> tuple[dict, int]:
        # HTTP+SSE has no Mcp-Session-Id: the session is the stream that the POST's URI names.
        return super()._answer(request, dict(headers) | {"mcp-session-id": self.session_id or ""})

    # -- what the client sent ----------------------------------------------------------------------

    def sent_before_answer(self, method: str) -> list[Any]:
        """The answer goes out on the stream after its POST is accepted: the frames of every POST
        that had come by the time it was written reached the server before it."""
        posts = [r for r in self.received if r.method != "GET"]
        for received in posts:
            for frame in received.frames:
                if isinstance(frame, dict) and frame.get("method") == method and "id" in frame:
                    before = [f for r in posts[: self._answered.get(frame["id"], len(posts))] for f in r.frames]
                    return [f for f in before if f is not frame]
        return [f for r in posts for f in r.frames]

    def close(self) -> None:
        self._closing.set()  # each stream's writer ends within STREAM_POLL_SECONDS
        super().close()


def _write_event(handler: BaseHTTPRequestHandler, event: str, data: str) -> bool:
    try:
        handler.wfile.write(f"event: {event}\ndata: {data}\n\n".encode())
        handler.wfile.flush()
    except OSError:
        return False
    return True
