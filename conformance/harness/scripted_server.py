"""The scripted server: the harness playing an MCP server of one revision, for a client under test.

A real HTTP listener on 127.0.0.1:0 that speaks Streamable HTTP as the revision defines it (the
initialize handshake and sessions up to 2025-11-25; 2026-07-28's per-request ``_meta``, with
``server/discover``) and answers each request from a script: a mapping of method to result, with
defaults for the common ones. It records every exchange in the session trace and checks each of
the client's frames strictly against the revision's schema (``violations``); the tests judge
the record.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from conformance.harness import schema
from conformance.harness.faults import Fault
from conformance.harness.peer import method_definitions, result_definitions
from conformance.harness.trace import Trace

MODERN = "2026-07-28"
SERVER_INFO = {"name": "mcp-matrix-scripted-server", "version": "0.1.0"}
SCRIPTED_TOOL = {"name": "echo", "description": "Echoes its text.", "inputSchema": {"type": "object"}}

Answer = Callable[[dict], dict]  # request frame -> result (or {"error": ...} for an error response)


@dataclass
class Received:
    """One HTTP request from the client, as the scripted server saw it."""

    method: str
    headers: dict[str, str]
    frames: list[Any] = field(default_factory=list)
    status: int = 0


def default_results(revision: str) -> dict[str, Answer]:
    complete = {"resultType": "complete"} if revision == MODERN else {}
    cacheable = complete | ({"ttlMs": 0, "cacheScope": "private"} if revision == MODERN else {})
    capabilities = {"tools": {}, "resources": {}, "prompts": {}}
    return {
        "ping": lambda _: dict(complete),
        "tools/list": lambda _: {"tools": [SCRIPTED_TOOL]} | cacheable,
        "tools/call": lambda frame: {"content": [{"type": "text", "text": "echo"}], "isError": False} | complete,
        "resources/list": lambda _: {"resources": []} | cacheable,
        "prompts/list": lambda _: {"prompts": []} | cacheable,
        "server/discover": lambda _: (
            {
                "supportedVersions": [MODERN],
                "capabilities": capabilities,
                "ttlMs": 0,
                "cacheScope": "private",
                "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
            }
            | complete
        ),
        "initialize": lambda frame: {
            "protocolVersion": revision,
            "capabilities": capabilities,
            "serverInfo": SERVER_INFO,
        },
    }


class ScriptedPeer(Protocol):
    """What every scripted server (Streamable HTTP here, stdio in ``scripted_stdio``) shows the tests
    of the client under test: the client's frames, in order, and the verdicts on them."""

    revision: str
    violations: list[str]  # every way the client's frames break the revision's schema
    harness_errors: list[str]  # every way our own answers break it (the harness's fault, not the client's)

    def frames(self) -> list[Any]: ...

    def requests(self) -> list[dict]: ...

    def sent_before_answer(self, method: str) -> list[Any]:
        """The client's frames that reached the server before it answered the first ``method``
        request (that request itself left out)."""
        ...


def judge(revision: str, frame: Any) -> list[str]:
    """Every way a frame of the client breaks the revision's schema: the JSON-RPC envelope loosely,
    the definition of its method (request or notification) strictly."""
    problems = schema.violations(revision, "JSONRPCMessage", frame, strict=False)
    definition = method_definitions(revision).get(frame.get("method")) if isinstance(frame, dict) else None
    if definition:
        problems += schema.violations(revision, definition, _as_defined(revision, definition, frame))
    return problems


def respond(revision: str, answers: Mapping[str, Answer], request: dict) -> tuple[dict, list[str]]:
    """The response to a client's request, from ``answers`` (method not found when none answers it),
    and every way our own result breaks the revision's schema: a harness error, since a client's
    reaction to a wrong answer proves nothing."""
    method = request["method"]
    answer = answers.get(method)
    if answer is None:
        return _error(request["id"], -32601, f"Method not found: {method}"), []
    result = answer(request)
    if "error" in result:
        return {"jsonrpc": "2.0", "id": request["id"], "error": result["error"]}, []
    definition = result_definitions(revision).get(method)
    problems = schema.violations(revision, definition, result) if definition else []
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}, problems


class ScriptedServer:
    """A one-revision MCP server on loopback; ``received`` holds what the client sent, in order."""

    def __init__(
        self, revision: str, trace: Trace, script: Mapping[str, Answer] | None = None, fault: Fault | None = None
    ) -> None:
        self.revision = revision
        self.fault = fault
        self.trace = trace
        self.answers = default_results(revision) | dict(script or {})
        self.received: list[Received] = []
        self.violations: list[str] = []
        self.harness_errors: list[str] = []
        self.session_id: str | None = None
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet: the trace is the record
                pass

            def do_POST(self) -> None:
                owner._post(self)

            def do_GET(self) -> None:
                owner._reply(self, Received("GET", _headers(self)), 405, None)

            def do_DELETE(self) -> None:
                received = Received("DELETE", _headers(self))
                with owner._lock:
                    ended = owner.session_id is not None and received.headers.get("mcp-session-id") == owner.session_id
                    if ended:
                        owner.session_id = None
                owner._reply(self, received, 200 if ended else 404, None)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/mcp"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    # -- what the client sent ----------------------------------------------------------------------

    def frames(self) -> list[Any]:
        return [frame for received in self.received for frame in received.frames]

    def requests(self) -> list[dict]:
        return [f for f in self.frames() if isinstance(f, dict) and "method" in f and "id" in f]

    def sent_before_answer(self, method: str) -> list[Any]:
        """Over HTTP the answer to a request goes back on the POST that carried it: the frames of
        that POST and of every earlier one reached the server before the answer."""
        before: list[Any] = []
        for received in self.received:
            for frame in received.frames:
                if isinstance(frame, dict) and frame.get("method") == method and "id" in frame:
                    return before + [f for f in received.frames if f is not frame]
            before += received.frames
        return before

    # -- serving -----------------------------------------------------------------------------------

    def _post(self, handler: BaseHTTPRequestHandler) -> None:
        received = Received("POST", _headers(handler))
        length = int(received.headers.get("content-length", "0") or 0)
        body = handler.rfile.read(length) if length else b""
        try:
            document = json.loads(body)
        except json.JSONDecodeError:
            self.violations.append(f"the client POSTed a body that is not JSON: {body[:200]!r}")
            self._reply(handler, received, 400, _error(None, -32700, "Parse error"))
            return
        frames = document if isinstance(document, list) else [document]
        judged, sent_headers = frames, received.headers
        if self.fault is not None:
            # The fault damages the record the tests judge, not the exchange: the client is answered
            # as usual, and the record reads as if it had sent the damaged frames.
            judged = [
                json.loads(line) for f in frames for line in self.fault.mutate(json.dumps(f).encode(), _no_method)
            ]
            method = next((f.get("method") for f in frames if isinstance(f, dict) and "method" in f), "POST")
            received.headers = self.fault.rewrite_http(method, 0, received.headers)[1]
            if self.fault.kind == "http-method" and self.fault.targets(method):
                received.method = str(self.fault.value)
        received.frames = judged
        for frame in judged:
            self.trace.message("client-to-server", frame)
            self.violations += judge(self.revision, frame)
        requests = [f for f in frames if isinstance(f, dict) and "method" in f and "id" in f]
        if not requests:
            self._reply(handler, received, 202, None)
            return
        responses = []
        status = 200
        for request in requests:
            response, status = self._answer(request, sent_headers)
            responses.append(response)
        headers = {"Mcp-Session-Id": self.session_id} if self.session_id and self.revision != MODERN else {}
        self._reply(handler, received, status, responses[0] if len(responses) == 1 else responses, headers)

    def _answer(self, request: dict, headers: Mapping[str, str]) -> tuple[dict, int]:
        method = request["method"]
        if self.revision != MODERN:
            if method == "initialize":
                with self._lock:
                    self.session_id = self.session_id or secrets.token_hex(16)
            elif self.session_id is None or headers.get("mcp-session-id") != self.session_id:
                return _error(request["id"], -32600, "Bad Request: no valid session"), 400
        response, problems = respond(self.revision, self.answers, request)
        self.harness_errors += problems
        unknown = method not in self.answers
        return response, 404 if unknown and self.revision == MODERN else 200

    def _reply(
        self,
        handler: BaseHTTPRequestHandler,
        received: Received,
        status: int,
        payload: Any,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        received.status = status
        with self._lock:
            self.received.append(received)
        self.trace.record("client-to-server", "http", method=received.method, headers=received.headers)
        body = json.dumps(payload).encode() if payload is not None else b""
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        if payload is not None:
            handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
        self.trace.record(
            "server-to-client", "http", method=received.method, status=status, headers=dict(headers or {})
        )
        if payload is not None:
            self.trace.message("server-to-client", payload)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2)


def _as_defined(revision: str, definition: str, frame: dict) -> dict:
    """The frame as the definition describes it: older schemas define a request without the JSON-RPC
    envelope (``jsonrpc``, ``id``), which ``JSONRPCRequest`` adds around it."""
    document = schema.revision_schema(revision, strict=False)
    if "jsonrpc" in document[schema.definitions_key(document)][definition].get("properties", {}):
        return frame
    return {key: value for key, value in frame.items() if key not in ("jsonrpc", "id")}


def _no_method(frame: Any) -> None:
    return None


def _headers(handler: BaseHTTPRequestHandler) -> dict[str, str]:
    return {name.lower(): value for name, value in handler.headers.items()}


def _error(request_id: Any, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
