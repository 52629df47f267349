"""The scripted server: the harness playing an MCP server of one revision, for a client under test.

A real HTTP listener on 127.0.0.1:0 that speaks Streamable HTTP as the revision defines it (the
initialize handshake and sessions up to 2025-11-25; 2026-07-28's per-request ``_meta``, with
``server/discover``) and answers each request from a script: a mapping of method to result, with
defaults for the common ones. It records every exchange in the session trace and checks each of
the client's frames against the revision's schema as published (``violations``); the tests judge
the record.

A test can also script the transport itself: answers over SSE streams that end early or break and
are resumed by GET (``streams``), a standalone GET stream (``get_stream``), refusals with an HTTP
status (``refusals``), redirects, session expiry (``expire_after``) and gated answers (``gates``).
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import secrets
import select
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from conformance.harness import schema
from conformance.harness.faults import Fault
from conformance.harness.peer import method_definitions, result_definition
from conformance.harness.trace import Trace

if TYPE_CHECKING:
    from http.server import BaseHTTPRequestHandler

MODERN = "2026-07-28"
SERVER_INFO = {"name": "mcp-matrix-scripted-server", "version": "0.1.0"}
SCRIPTED_TOOL = {"name": "echo", "description": "Echoes its text.", "inputSchema": {"type": "object"}}
# The HTTP status 2026-07-28 fixes for an error a script answers with (HeaderMismatch: always 400).
MODERN_ERROR_STATUSES = {-32020: 400}
# Every SSE answer's headers; X-Accel-Buffering: no keeps a proxy from holding events back (2026-07-28 asks for it).
SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}

Answer = Callable[[dict], dict]  # request frame -> result (or {"error": ...} for an error response)


@dataclass
class Received:
    """One HTTP request from the client, as the scripted server saw it."""

    method: str
    headers: dict[str, str]
    frames: list[Any] = field(default_factory=list)
    status: int = 0
    path: str = ""  # the request target (path and query), where it matters (HTTP+SSE's POST endpoint)
    batch: bool = False  # the body was a JSON array (a JSON-RPC batch)
    at: float = field(default_factory=time.monotonic)  # when it arrived (a fault may move it)


PACE_BOUND_SECONDS = 10.0  # a paced answer (see Pace) never takes longer, whatever it says
ASK_SECONDS = 5.0  # how long a scripted server awaits the client's answer to one of its own requests
CANCEL_POLL_SECONDS = 0.02  # how often a request held until its cancellation (Pace.answer_on_cancel) looks


@dataclass(frozen=True)
class Pace:
    """How a scripted server answers one method when not at once (the paced methods of ``paces``).

    First each request of ``ask`` (a method, sent without params) goes to the client and its answer
    is awaited (bounded); then the answer comes after ``delay`` seconds, or never when ``delay`` is
    None (the request is held, at most PACE_BOUND_SECONDS); meanwhile, every ``progress_every``
    seconds, a ``notifications/progress`` for the request's progressToken (if it carries one). Over
    Streamable HTTP a paced answer is an SSE stream, and the client closing it is recorded
    (lifecycle ``stream-closed``, with the request's id).
    """

    delay: float | None = 0.0
    progress_every: float = 0.0
    ask: tuple[str, ...] = ()
    # The params each method of ``ask`` is sent with (none given: sent without params).
    ask_params: dict[str, Any] = field(default_factory=dict)
    # With ``delay`` None: held only until the client cancels the request (its notifications/cancelled
    # naming it), then answered all the same: a response that arrives after the cancellation (bounded).
    answer_on_cancel: bool = False
    # Not None: each request of ``ask`` is cancelled as soon as it is sent (a notifications/cancelled naming it,
    # with this reason), its answer not awaited: a request of the server that the client is still working on.
    cancel_asks: str | None = None
    # Notifications sent as they are, before anything else (a log message during a held initialize, say).
    notify_first: tuple[dict, ...] = ()

    def to_json(self) -> str:
        fields = {"delay": self.delay, "progress_every": self.progress_every, "ask": list(self.ask)}
        fields |= {"ask_params": self.ask_params, "answer_on_cancel": self.answer_on_cancel}
        return json.dumps(fields | {"cancel_asks": self.cancel_asks, "notify_first": list(self.notify_first)})

    @classmethod
    def from_json(cls, text: str) -> Pace:
        fields = json.loads(text)
        return cls(
            fields.get("delay"),
            fields.get("progress_every", 0.0),
            tuple(fields.get("ask", ())),
            ask_params=fields.get("ask_params") or {},
            answer_on_cancel=bool(fields.get("answer_on_cancel")),
            cancel_asks=fields.get("cancel_asks"),
            notify_first=tuple(fields.get("notify_first") or ()),
        )


def progress_token(request: dict) -> Any:
    """The progressToken of a request, or None."""
    params = request.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get("progressToken") if isinstance(meta, dict) else None


def cancellation(request_id: Any, reason: str) -> dict:
    """The scripted server's notifications/cancelled of its own request ``request_id``."""
    params = {"requestId": request_id, "reason": reason}
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}


def progress_notification(token: Any, progress: int) -> dict:
    params = {"progressToken": token, "progress": progress}
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}


class ClientAnswers:
    """The client's responses to the scripted server's own requests, awaited by id (bounded)."""

    def __init__(self) -> None:
        self.asked: dict[Any, str] = {}  # id -> method of each request the server sent
        self._answers: dict[Any, Any] = {}
        self._condition = threading.Condition()
        self._ids = iter(range(1, 1 << 30))

    def request(self, method: str, params: dict | None = None) -> dict:
        with self._condition:
            request_id = f"mcp-matrix-server-{next(self._ids)}"
            self.asked[request_id] = method
        request = {"jsonrpc": "2.0", "id": request_id, "method": method}
        return request if params is None else request | {"params": params}

    def method_answered(self, frame: Any) -> str | None:
        """The method of the server's request that ``frame`` (a client's response) answers."""
        if isinstance(frame, dict) and "method" not in frame:
            return self.asked.get(frame.get("id"))
        return None

    def take(self, frame: Any) -> None:
        if self.method_answered(frame) is not None:
            with self._condition:
                self._answers[frame["id"]] = frame
                self._condition.notify_all()

    def wait(self, request_id: Any, seconds: float = ASK_SECONDS) -> Any:
        with self._condition:
            self._condition.wait_for(lambda: request_id in self._answers, timeout=seconds)
            return self._answers.get(request_id)


# -- the transport's own behaviour, scripted: SSE answers, GET streams, refusals, redirects, expiry -----

GATE_SECONDS = 3.0  # how long a gated answer waits for what it waits for (``ScriptedServer.gates``)
HOLD_SECONDS = 10.0  # how long a GET stream is held open at most, whatever the client does
Refusal = tuple[int, dict | None]  # an HTTP status, and the JSON-RPC error its body carries (None: no body)


@dataclass
class StreamScript:
    """How the scripted server answers a method's requests over an SSE stream instead of JSON
    (``ScriptedServer.streams``): ``events`` first (server notifications or requests), then, once
    ``respond_when`` holds (bounded), the response and a clean end (``end="respond"``); or an end
    without the response: ``"close"`` ends the stream cleanly, ``"break"`` drops the connection
    mid-stream (no terminating chunk). A response left unsent is kept for a GET that resumes the
    stream with ``Last-Event-ID``. Up to 2025-11-25 every event carries an id naming its stream
    (``p1-1``, ``p1-2``, ...); ``prime`` opens the stream with a priming event (an id and no data;
    None: as a 2025-11-25 server does), ``retry_ms`` puts a ``retry:`` field on the first event.
    Only the method's first ``times`` requests are answered so; later ones get JSON."""

    events: list[dict] = field(default_factory=list)
    end: str = "respond"
    prime: bool | None = None
    retry_ms: int | None = None
    respond_when: Callable[[], bool] | None = None
    times: int = 1


@dataclass
class GetStreamScript:
    """How the scripted server answers the client's first GET without ``Last-Event-ID``
    (``ScriptedServer.get_stream``; None, the default, refuses GET with 405): an SSE stream that
    sends ``events`` once ``send_when`` holds (bounded), ``retry_ms`` on the first, then is held
    open until the client closes it (``end="hold"``) or ended cleanly (``"close"``). Later GETs
    (another stream, or one resuming a stream without a response to replay) are held open quietly."""

    events: list[dict] = field(default_factory=list)
    retry_ms: int | None = None
    end: str = "hold"
    send_when: Callable[[], bool] | None = None


@dataclass
class StreamRecord:
    """One SSE stream the scripted server answered with: what opened it (a method, or ``GET``), the
    ids of its events, when it opened and ended (``time.monotonic``) and how: ``server`` (ended
    cleanly), ``break`` (connection dropped mid-stream), ``client`` (the client closed it) or
    ``bound`` (held until HOLD_SECONDS)."""

    key: str
    method: str
    opened: float
    resumes: str | None = None  # the stream a GET with Last-Event-ID resumed
    event_ids: list[str] = field(default_factory=list)
    closed: float | None = None
    ended_by: str = ""


class ScriptedStream:
    """An SSE answer being written, over chunked HTTP/1.1 so that it can end cleanly (the terminating
    chunk) or break (the connection dropped without it)."""

    def __init__(self, server: ScriptedServer, handler: BaseHTTPRequestHandler, record: StreamRecord) -> None:
        self.server, self.handler, self.record = server, handler, record
        self.ids = server.revision != MODERN  # 2026-07-28 streams are not resumable: no event ids

    def open(self, headers: Mapping[str, str]) -> None:
        handler = self.handler
        handler.protocol_version = "HTTP/1.1"
        fixed = SSE_HEADERS | {"Transfer-Encoding": "chunked"}
        method = "GET" if self.record.method == "GET" else "POST"  # the HTTP method it answers
        self.server.trace.record("server-to-client", "http", method=method, status=200, headers=fixed | dict(headers))
        handler.send_response(200)
        for name, value in (fixed | {"Connection": "close"} | dict(headers)).items():
            handler.send_header(self.server.header_name(name), value)
        handler.end_headers()

    def send(self, frame: Any, retry_ms: int | None = None) -> bool:
        """One event carrying ``frame`` (None: a priming event, no data); False once the client has gone."""
        lines = []
        if self.ids:
            event_id = f"{self.record.key}-{len(self.record.event_ids) + 1}"
            self.record.event_ids.append(event_id)
            lines.append(f"id: {event_id}")
        if retry_ms is not None:
            lines.append(f"retry: {retry_ms}")
        lines.append("data: " + ("" if frame is None else json.dumps(frame)))
        if frame is not None:
            self.server.trace.message("server-to-client", frame)
        return self._chunk(("\n".join(lines) + "\n\n").encode())

    def _chunk(self, data: bytes) -> bool:
        if self.record.closed is not None:
            return False
        try:
            self.handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            return True
        except OSError:
            self.finish("client")
            return False

    def end(self, how: str = "server") -> None:
        """End the stream cleanly (``server``, ``bound``) or drop its connection (``break``)."""
        if self.record.closed is not None:
            return
        if how == "break":
            with contextlib.suppress(OSError):
                self.handler.connection.shutdown(socket.SHUT_RDWR)
        elif not self._chunk(b""):  # the terminating chunk: "0\r\n\r\n"
            return
        self.finish(how)

    def hold(self) -> None:
        """Keep the stream open until the client closes it (or the server closes, or the bound)."""
        how = self.server._until_client_leaves(self.handler)
        if how == "client":
            self.finish("client")
        else:
            self.end(how)

    def finish(self, how: str) -> None:
        if self.record.closed is None:
            self.record.closed = time.monotonic()
            self.record.ended_by = how
            self.server.trace.lifecycle("server-to-client", "sse-end", stream=self.record.key, by=how)


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


def listing_tools(answer: Answer, tools: list[dict]) -> Answer:
    """A ``tools/list`` answer like ``answer`` (a default's cache hints and all), listing ``tools``."""
    return lambda frame: answer(frame) | {"tools": tools}


CONNECTION_MARK = "{connection}"  # in a paged listing's cursors: the number of the client's connection


def page_cursors(pages: list[dict], connection: int) -> list[Any]:
    """The ``nextCursor`` each page of ``pages`` (see ``paged_answer``) carries on ``connection`` (None:
    the last page, which carries none)."""
    cursors = []
    for page in pages:
        cursor = page.get("nextCursor")
        if isinstance(cursor, str):
            cursor = cursor.replace(CONNECTION_MARK, str(connection))
        cursors.append(cursor if "nextCursor" in page else None)
    return cursors


def paged_answer(answer: Answer, key: str, pages: list[dict], connection: Callable[[], int] = lambda: 1) -> Answer:
    """A list method answered page by page, like ``answer`` (a default's cache hints and all) but listing
    ``pages``: each ``{"items": [...], "nextCursor": ...}`` (without ``nextCursor``: the last page). A
    request without a cursor gets the first page, one carrying a page's ``nextCursor`` (the same JSON
    value) the page after it; any other cursor is refused with -32602. In a cursor, CONNECTION_MARK reads
    as the number of the client's connection (``connection()``), so that each connection has cursors of
    its own."""

    def serve(frame: dict) -> dict:
        params = frame.get("params") if isinstance(frame.get("params"), dict) else {}
        cursors = page_cursors(pages, connection())
        index = 0
        if params.get("cursor") is not None:
            cursor = params["cursor"]
            issued = [(i + 1, c) for i, c in enumerate(cursors[:-1]) if c is not None]
            follows = [after for after, c in issued if json.dumps(c) == json.dumps(cursor)]
            if not follows:
                return {"error": {"code": -32602, "message": f"Invalid cursor: {cursor!r}"}}
            index = follows[0]
        result = {k: v for k, v in answer(frame).items() if k != "nextCursor"} | {key: list(pages[index]["items"])}
        if cursors[index] is not None:
            result["nextCursor"] = cursors[index]
        return result

    return serve


class ScriptedPeer(Protocol):
    """What every scripted server (Streamable HTTP here, stdio in ``scripted_stdio``) shows the tests
    of the client under test: the client's frames, in order, and the verdicts on them."""

    revision: str
    violations: list[str]  # every way the client's frames break the revision's schema
    harness_errors: list[str]  # every way our own answers break it (the harness's fault, not the client's)
    raw: dict[str, Any]  # method -> a deliberately wrong answer, sent unchecked (``raw_response``)

    def frames(self) -> list[Any]: ...

    def requests(self) -> list[dict]: ...

    def sent_before_answer(self, method: str) -> list[Any]:
        """The client's frames that reached the server before it answered the first ``method``
        request (that request itself left out)."""
        ...


def judge(revision: str, frame: Any) -> list[str]:
    """Every way a frame of the client breaks the revision's published schema: the JSON-RPC envelope,
    and the definition of its method (request or notification). Members the revision does not
    define are not judged here (see ``schema.undefined_members``)."""
    problems = schema.violations(revision, "JSONRPCMessage", frame)
    definition = method_definitions(revision).get(frame.get("method")) if isinstance(frame, dict) else None
    if definition:
        problems += schema.violations(revision, definition, _as_defined(revision, definition, frame))
    return problems


def respond(revision: str, answers: Mapping[str, Answer], request: dict) -> tuple[dict, list[str]]:
    """The response to a client's request (see ``response_to``) and every way it breaks the
    revision's schema (see ``answer_problems``)."""
    response = response_to(answers, request)
    return response, answer_problems(revision, request["method"], response)


def response_to(answers: Mapping[str, Answer], request: dict) -> dict:
    """The response to a client's request, from ``answers`` (method not found when none answers it)."""
    answer = answers.get(request["method"])
    if answer is None:
        return _error(request["id"], -32601, f"Method not found: {request['method']}")
    result = answer(request)
    if "error" in result:
        return {"jsonrpc": "2.0", "id": request["id"], "error": result["error"]}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def answer_problems(revision: str, method: str, response: dict) -> list[str]:
    """Every way our own result breaks the revision's schema: a harness error, since a client's
    reaction to a wrong answer proves nothing."""
    definition = result_definition(revision, method, response.get("result"))
    return schema.violations(revision, definition, response["result"]) if definition and "result" in response else []


def raw_response(request: dict, template: Any) -> Any:
    """A deliberately wrong answer to ``request``, sent without the schema check: ``template`` over
    the envelope (``{"jsonrpc": "2.0", "id": <the request's>}``), so it may replace the id, drop the
    result's ``resultType``, or be a list (a batch, each element over the envelope)."""
    envelope = {"jsonrpc": "2.0", "id": request.get("id")}
    if isinstance(template, list):
        return [envelope | item if isinstance(item, dict) else item for item in template]
    return envelope | template if isinstance(template, dict) else template


class ScriptedServer:
    """A one-revision MCP server on loopback; ``received`` holds what the client sent, in order."""

    def __init__(
        self, revision: str, trace: Trace, script: Mapping[str, Answer] | None = None, fault: Fault | None = None
    ) -> None:
        self.revision = revision
        self.fault = fault
        self.trace = trace
        self.answers = default_results(revision) | dict(script or {})
        self.raw: dict[str, Any] = {}  # method -> a response template sent as it is (``raw_response``)
        self.received: list[Received] = []
        self.violations: list[str] = []
        self.harness_errors: list[str] = []
        self.session_id: str | None = None
        self.paces: dict[str, Pace] = {}  # methods answered slowly, with progress, or not at all (Pace)
        self.client_answers = ClientAnswers()
        self._fault_counts: dict[str, int] = {}  # the fault's count of the frames it targets (one occurrence)
        self.pages_url = ""  # the base URL of the session's page server (harness/pages.py), if it has one
        # How the names of the headers we answer with are written (header names are case-insensitive).
        self.header_name: Callable[[str], str] = _as_written
        self._lock = threading.Lock()
        # The transport's own behaviour, scripted per test (client-side Streamable HTTP tests):
        self.streams: dict[str, StreamScript] = {}  # method -> answer it over an SSE stream
        self.get_stream: GetStreamScript | None = None  # None: GET is refused with 405
        self.gates: dict[str, Callable[[], bool]] = {}  # method -> answer only once this holds (bounded)
        self.refusals: dict[str, list[Refusal]] = {}  # method -> refusals of its next requests, in order
        self.redirects: dict[str, str] = {}  # method -> answer 307 to this URL
        self.expire_after: set[str] = set()  # methods whose answer ends the session (then 404)
        self.issued_sessions: list[str] = []
        self.ended_sessions: set[str] = set()
        self.stream_log: list[StreamRecord] = []
        self.pending: dict[str, list[Any]] = {}  # stream key -> the frames a resuming GET gets
        self._streamed: collections.Counter[str] = collections.Counter()
        self._stream_numbers = itertools.count(1)
        self._get_streams_opened = 0
        self._closing = threading.Event()
        owner = self
        # here, not at the top: the scripted stdio server imports this module, serves no HTTP, and starts once
        # a test
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet: the trace is the record
                pass

            def do_POST(self) -> None:
                owner._post(self)

            def do_GET(self) -> None:
                owner._get(self)

            def do_DELETE(self) -> None:
                received = Received("DELETE", _headers(self), path=self.path)
                owner._damage(received, "DELETE")
                with owner._lock:
                    ended = owner.session_id is not None and received.headers.get("mcp-session-id") == owner.session_id
                if ended:  # the session is over: a request that names it later is answered 404
                    owner._end_session()
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
        received = Received("POST", _headers(handler), path=handler.path)
        length = int(received.headers.get("content-length", "0") or 0)
        body = handler.rfile.read(length) if length else b""
        if self.fault is not None:
            body = self._through_fault(handler, received, body)
            if body is None:
                return
        try:
            document = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):  # not JSON, or not UTF-8
            self.violations.append(f"the client POSTed a body that is not JSON: {body[:200]!r}")
            self._reply(handler, received, 400, _error(None, -32700, "Parse error"))
            return
        frames = document if isinstance(document, list) else [document]
        received.batch = isinstance(document, list)
        received.frames = frames
        self._take(frames)
        if received.method != "POST":  # the fault made it another HTTP method: the endpoint refuses it
            self._reply(handler, received, 405, None)
            return
        sent_headers = received.headers
        requests = [f for f in frames if isinstance(f, dict) and "method" in f and "id" in f]
        if sent_headers.get("mcp-session-id") in self.ended_sessions:  # a notification or a batch too
            error = _error(requests[0]["id"] if len(requests) == 1 else None, -32600, "Session not found")
            self._reply(handler, received, 404, error if requests else None)
            return
        if not requests:
            self._reply(handler, received, 202, None)
            return
        if len(requests) == 1 and self._served_otherwise(handler, received, requests[0], sent_headers):
            return
        if len(requests) == 1 and requests[0]["method"] in self.paces:
            self._paced(handler, received, requests[0], self.paces[requests[0]["method"]], sent_headers)
            return
        responses = []
        status = 200
        for request in requests:
            response, status = self._answer(request, sent_headers)
            responses.append(response)
        headers = {"Mcp-Session-Id": self.session_id} if self.session_id and self.revision != MODERN else {}
        self._deliver(handler, received, status, responses[0] if len(responses) == 1 else responses, headers)

    def _take(self, frames: list[Any]) -> None:
        """Record and judge the client's frames of one POST, and note its answers to our requests."""
        for frame in frames:
            self.trace.message("client-to-server", frame)
            self.violations += judge(self.revision, frame)
            self.client_answers.take(frame)

    def _through_fault(self, handler: BaseHTTPRequestHandler, received: Received, body: bytes) -> bytes | None:
        """The fault stands between the client and us: the POST as it lets it through. Its headers and
        HTTP method as rewritten; its body's messages as ``Fault.mutate`` leaves them, each but the last
        delivered as a POST of its own (an injected or duplicated message), whose answers go nowhere. None:
        the fault swallowed the message, so nothing reached us, and the client's POST waits, unanswered,
        until it gives up or we close."""
        try:
            document = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return body
        items = document if isinstance(document, list) else [document]
        method = next((f.get("method") for f in items if isinstance(f, dict) and "method" in f), "POST")
        received.headers = self.fault.rewrite_http(method, 0, received.headers)[1]
        self._shift(received, method)
        if self.fault.kind == "http-method" and self.fault.targets(method):
            received.method = str(self.fault.value)
        through = [
            piece
            for item in items
            for piece in self.fault.mutate(
                json.dumps(item).encode(),
                self.client_answers.method_answered,
                counts=self._fault_counts,
                pages=self.pages_url,
            )
        ]
        if isinstance(document, list):
            return b"[" + b",".join(piece.strip() for piece in through) + b"]"
        if not through:
            self.trace.lifecycle("client-to-server", "swallowed", method=method)
            self._until_client_leaves(handler)
            handler.close_connection = True
            return None
        for piece in through[:-1]:
            self._delivered_aside(received, piece)
        return through[-1]

    def _delivered_aside(self, carrier: Received, piece: bytes) -> None:
        """A message the fault added to a POST, taken as a POST of its own with the carrier's headers:
        recorded, judged and answered (a request's answer goes nowhere: no connection carries it)."""
        aside = Received("POST", dict(carrier.headers), path=carrier.path, status=202)
        with contextlib.suppress(json.JSONDecodeError, UnicodeDecodeError):
            aside.frames = [json.loads(piece)]
        with self._lock:
            self.received.append(aside)
        self.trace.record("client-to-server", "http", method="POST", headers=aside.headers)
        self._take(aside.frames)
        for request in [f for f in aside.frames if isinstance(f, dict) and "method" in f and "id" in f]:
            self._answer(request, aside.headers)

    def _get(self, handler: BaseHTTPRequestHandler) -> None:
        """A GET: resume a stream (``Last-Event-ID``), open the scripted standalone stream (``get_stream``),
        or 405 (a transport whose GET does something else overrides this)."""
        received = Received("GET", _headers(handler), path=handler.path)
        self._damage(received, "GET")
        sent = received.headers
        last_event_id = sent.get("last-event-id")
        resumes = (last_event_id or "").rpartition("-")[0] or None  # the stream its event ids name
        if self.revision == MODERN or (resumes is None and self.get_stream is None):
            self._reply(handler, received, 405, None)
            return
        session = sent.get("mcp-session-id")
        if session in self.ended_sessions or self.session_id is None or session != self.session_id:
            self._reply(handler, received, 404 if session in self.ended_sessions else 400, None)
            return
        self._log(received, 200)
        stream = ScriptedStream(self, handler, self._new_stream("g", "GET", resumes))
        stream.open({})
        with self._lock:
            replay = self.pending.pop(resumes, None) if resumes else None
            script = self.get_stream if resumes is None and not self._get_streams_opened else None
            if resumes is None:
                self._get_streams_opened += 1
        if replay is not None:
            if all(stream.send(frame) for frame in replay):
                stream.end()
            return
        if script is not None:
            if script.send_when is not None and not self.wait_until(script.send_when):
                self.trace.lifecycle("server-to-client", "gate-timeout", method="GET")
            retry = script.retry_ms
            for event in script.events:
                if not stream.send(event, retry):
                    return
                retry = None
            if script.end == "close":
                stream.end()
                return
        stream.hold()

    def _deliver(
        self,
        handler: BaseHTTPRequestHandler,
        received: Received,
        status: int,
        payload: Any,
        headers: Mapping[str, str],
    ) -> None:
        """Send the answers to a POST's requests: on the POST's own response here."""
        self._reply(handler, received, status, payload, headers)

    def _answer(self, request: dict, headers: Mapping[str, str]) -> tuple[dict, int]:
        method = request["method"]
        self._await_gate(method)
        if self.revision != MODERN:
            if method == "initialize":
                with self._lock:
                    self.session_id = self.session_id or secrets.token_hex(16)
                    if self.session_id not in self.issued_sessions:
                        self.issued_sessions.append(self.session_id)
            elif self.session_id is None or headers.get("mcp-session-id") != self.session_id:
                return _error(request["id"], -32600, "Bad Request: no valid session"), 400
        if method in self.raw:
            return raw_response(request, self.raw[method]), 200
        response, problems = respond(self.revision, self.answers, request)
        if _creates_task(request, response):  # a task-augmented request answered with its task (2025-11-25)
            problems = schema.violations(self.revision, "CreateTaskResult", response["result"])
        self.harness_errors += problems
        if method in self.expire_after:
            self._end_session()
        unknown = method not in self.answers
        if self.revision == MODERN and "error" in response and response["error"].get("code") in MODERN_ERROR_STATUSES:
            return response, MODERN_ERROR_STATUSES[response["error"]["code"]]
        return response, 404 if unknown and self.revision == MODERN else 200

    def _paced(
        self,
        handler: BaseHTTPRequestHandler,
        received: Received,
        request: dict,
        pace: Pace,
        headers: Mapping[str, str],
    ) -> None:
        """Answer ``request`` as ``pace`` says, on an SSE stream (see Pace)."""
        received.status = 200
        with self._lock:
            self.received.append(received)
        self.trace.record("client-to-server", "http", method=received.method, headers=received.headers)
        sent = dict(SSE_HEADERS)
        if self.session_id and self.revision != MODERN:
            sent["Mcp-Session-Id"] = self.session_id
        self.trace.record("server-to-client", "http", method=received.method, status=200, headers=sent)
        handler.send_response(200)
        for name, value in sent.items():
            handler.send_header(name, value)
        handler.end_headers()

        def event(frame: dict) -> bool:
            self.trace.message("server-to-client", frame)
            try:
                handler.wfile.write(f"data: {json.dumps(frame)}\n\n".encode())
                handler.wfile.flush()
            except OSError:
                return False
            return True

        for notification in pace.notify_first:
            event(notification)
        for method in pace.ask:
            asked = self.client_answers.request(method, pace.ask_params.get(method))
            if pace.cancel_asks is not None:  # sent, then cancelled at once (Pace.cancel_asks)
                if not event(asked) or not event(cancellation(asked["id"], pace.cancel_asks)):
                    break
                continue
            if not event(asked) or self.client_answers.wait(asked["id"]) is None:
                break
        start = time.monotonic()
        end = start + min(PACE_BOUND_SECONDS, PACE_BOUND_SECONDS if pace.delay is None else pace.delay)
        token, sent_progress = progress_token(request), 0
        reporting = bool(pace.progress_every) and token is not None
        cancelled = False  # answer_on_cancel: the client's cancellation has come
        while (now := time.monotonic()) < end:
            if pace.answer_on_cancel and self.cancelled_by_client(request["id"]):
                cancelled = True
                break
            due = start + pace.progress_every * (sent_progress + 1) if reporting else end
            look = min(due, end, now + CANCEL_POLL_SECONDS) if pace.answer_on_cancel else min(due, end)
            if _closed_by_peer(handler.connection, look - now):
                self.trace.lifecycle("client-to-server", "stream-closed", id=request["id"])
                return
            if time.monotonic() >= due and due < end:
                sent_progress += 1
                if not event(progress_notification(token, sent_progress)):
                    self.trace.lifecycle("client-to-server", "stream-closed", id=request["id"])
                    return
        if pace.delay is None and not cancelled:
            self.trace.lifecycle("server-to-client", "held", id=request["id"], method=request["method"])
            return
        response, _ = self._answer(request, headers)
        event(response)

    def cancelled_by_client(self, request_id: Any) -> bool:
        """Whether the client has sent a notifications/cancelled naming ``request_id``."""
        return any(
            isinstance(f, dict)
            and f.get("method") == "notifications/cancelled"
            and isinstance(f.get("params"), dict)
            and f["params"].get("requestId") == request_id
            for f in self.frames()
        )

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
        # recorded before it goes: once sent, the client's next POST (another thread) may be recorded first,
        # and the trace would show the client acting before the answer it acted on
        self.trace.record(
            "server-to-client", "http", method=received.method, status=status, headers=dict(headers or {})
        )
        if payload is not None:
            self.trace.message("server-to-client", payload)
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(self.header_name(name), value)
        if payload is not None:
            handler.send_header(self.header_name("Content-Type"), "application/json")
        handler.send_header(self.header_name("Content-Length"), str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    # -- the transport's own behaviour, scripted (see StreamScript, GetStreamScript) -------------------

    def wait_until(self, predicate: Callable[[], bool], seconds: float = GATE_SECONDS) -> bool:
        """Wait, bounded, until ``predicate`` holds (or the server closes); whether it holds."""
        deadline = time.monotonic() + seconds
        while not predicate():
            if time.monotonic() >= deadline or self._closing.wait(0.02):
                return predicate()
        return True

    def streams_settled(self, seconds: float = GATE_SECONDS) -> bool:
        """Wait, bounded, until every SSE stream has ended, so that the record says how each did."""
        return self.wait_until(lambda: all(s.closed is not None for s in self.stream_log), seconds)

    def stream_open(self, method: str) -> Callable[[], bool]:
        """A predicate: an SSE stream opened by ``method`` (or ``GET``) is open now."""
        return lambda: any(s.method == method and s.closed is None for s in self.stream_log)

    def answered(self, request_id: Any) -> Callable[[], bool]:
        """A predicate: the client has answered our request ``request_id``."""
        return lambda: any(
            isinstance(f, dict) and "method" not in f and f.get("id") == request_id for f in self.frames()
        )

    def _await_gate(self, method: str) -> None:
        gate = self.gates.get(method)
        if gate is not None and not self.wait_until(gate):
            self.trace.lifecycle("server-to-client", "gate-timeout", method=method)

    def _end_session(self) -> None:
        with self._lock:
            if self.session_id is not None:
                self.ended_sessions.add(self.session_id)
            self.session_id = None

    def _session_header(self) -> dict[str, str]:
        return {"Mcp-Session-Id": self.session_id} if self.session_id and self.revision != MODERN else {}

    def _damage(self, received: Received, target: str) -> None:
        """Apply the fault to a GET or DELETE before we read it (its headers, its time of arrival)."""
        if self.fault is not None:
            received.headers = self.fault.rewrite_http(target, 0, received.headers)[1]
            self._shift(received, target)

    def _shift(self, received: Received, target: str) -> None:
        if self.fault is not None and self.fault.kind == "http-early" and self.fault.targets(target):
            received.at -= float(self.fault.value)

    def _log(self, received: Received, status: int) -> None:
        """Record a request answered with a ScriptedStream (which records its own answer)."""
        received.status = status
        with self._lock:
            self.received.append(received)
        self.trace.record("client-to-server", "http", method=received.method, headers=received.headers)

    def _new_stream(self, prefix: str, method: str, resumes: str | None = None) -> StreamRecord:
        with self._lock:
            record = StreamRecord(f"{prefix}{next(self._stream_numbers)}", method, time.monotonic(), resumes)
            self.stream_log.append(record)
        return record

    def _served_otherwise(
        self, handler: BaseHTTPRequestHandler, received: Received, request: dict, headers: Mapping[str, str]
    ) -> bool:
        """Answer a POSTed request as the script says, if it says anything else than a JSON answer:
        a refusal, a redirect, or an SSE stream."""
        method = request["method"]
        with self._lock:
            refusal = self.refusals[method].pop(0) if self.refusals.get(method) else None
        if refusal is not None:
            status, error = refusal
            payload = None if error is None else {"jsonrpc": "2.0", "id": request["id"], "error": error}
            self._reply(handler, received, status, payload)
            return True
        if method in self.redirects:
            self._reply(handler, received, 307, None, {"Location": self.redirects[method]})
            return True
        script = self.streams.get(method)
        if script is None or self._streamed[method] >= script.times:
            return False
        self._streamed[method] += 1
        response, status = self._answer(request, headers)
        if status != 200:
            self._reply(handler, received, status, response, self._session_header())
            return True
        self._log(received, 200)
        self._stream_answer(handler, request, response, script)
        return True

    def _stream_answer(
        self, handler: BaseHTTPRequestHandler, request: dict, response: dict, script: StreamScript
    ) -> None:
        stream = ScriptedStream(self, handler, self._new_stream("p", request["method"]))
        stream.open(self._session_header())
        retry = script.retry_ms
        events: list[Any] = list(script.events)
        if script.prime if script.prime is not None else self.revision == "2025-11-25":
            events.insert(0, None)
        for event in events:
            if not stream.send(event, retry):
                return
            retry = None
        if script.end != "respond":
            with self._lock:
                self.pending[stream.record.key] = [response]
            stream.end("break" if script.end == "break" else "server")
            return
        if script.respond_when is not None and not self.wait_until(script.respond_when):
            self.trace.lifecycle("server-to-client", "gate-timeout", method=request["method"])
        if stream.send(response, retry):
            stream.end()

    def _until_client_leaves(self, handler: BaseHTTPRequestHandler) -> str:
        """Wait until the client closes the connection (``client``), the server closes (``server``) or
        HOLD_SECONDS pass (``bound``)."""
        deadline = time.monotonic() + HOLD_SECONDS
        while time.monotonic() < deadline:
            if self._closing.is_set():
                return "server"
            if _closed_by_peer(handler.connection, 0.05):
                return "client"
        return "bound"

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2)


def _creates_task(request: dict, response: dict) -> bool:
    """A response that answers a task-augmented request (its params carry ``task``) with the task it created
    (a result holding ``task``): judged as the CreateTaskResult it is, not as the method's own result."""
    params, result = request.get("params"), response.get("result")
    return isinstance(params, dict) and "task" in params and isinstance(result, dict) and "task" in result


def _as_defined(revision: str, definition: str, frame: dict) -> dict:
    """The frame as the definition describes it: older schemas define a request without the JSON-RPC
    envelope (``jsonrpc``, ``id``), which ``JSONRPCRequest`` adds around it."""
    document = schema.revision_schema(revision)
    if "jsonrpc" in document[schema.definitions_key(document)][definition].get("properties", {}):
        return frame
    return {key: value for key, value in frame.items() if key not in ("jsonrpc", "id")}


def _closed_by_peer(connection: socket.socket, seconds: float) -> bool:
    """Wait up to ``seconds`` for the client to close its end of ``connection`` (it sends nothing
    more on a request's stream): True if it did."""
    try:
        if not select.select([connection], [], [], max(0.0, seconds))[0]:
            return False
        if connection.recv(1, socket.MSG_PEEK) == b"":
            return True
    except OSError:
        return True
    time.sleep(max(0.0, seconds))  # the client sent more on this connection: not a close; pace on
    return False


def _as_written(name: str) -> str:
    return name


def _headers(handler: BaseHTTPRequestHandler) -> dict[str, str]:
    return {name.lower(): value for name, value in handler.headers.items()}


def _error(request_id: Any, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
