"""The Streamable HTTP transport: POST, GET and DELETE on one endpoint, JSON or SSE answers.

Each frame is POSTed on its own connection; an ``application/json`` answer is delivered whole, a
``text/event-stream`` answer is read by a thread that delivers each ``message`` event as it
comes, keeping its event id for resumption. The session id (``Mcp-Session-Id``) is learnt from
the answer to ``initialize`` and sent on every later request; ``MCP-Protocol-Version`` follows
negotiation (2025-06-18 and later), and 2026-07-28's per-request headers (``Mcp-Method``,
``Mcp-Name``) are added to every request of that revision. Every exchange is recorded in the
trace as an ``http`` event; only loopback addresses are accepted.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import queue
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from conformance.catalogue.vocabulary import REVISIONS, revision_index
from conformance.harness.faults import Fault
from conformance.harness.peer import (
    CLOSED,
    DEFAULT_TIMEOUT_SECONDS,
    HarnessError,
    ImplementationTimeout,
    Peer,
    ProtocolViolation,
)
from conformance.harness.trace import Trace

HEADER_VERSION_FROM = "2025-06-18"  # the first revision with the MCP-Protocol-Version header
MODERN = "2026-07-28"
MAX_RESUMES = 3  # GETs after a request's stream ended unanswered, before its answer counts as never sent
MAX_RETRY_WAIT_SECONDS = 1.0  # the longest retry a server may ask of the harness before a resumption
NAME_SOURCES = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def require_loopback(url: str) -> urllib.parse.SplitResult:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise HarnessError(f"{url!r}: only http:// URLs on a loopback address are put under test")
    host = parts.hostname
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise HarnessError(f"{url!r}: {host} is not a loopback address; the suite only talks to this machine")
    return parts


@dataclass
class Exchange:
    """One HTTP request and its answer, as the transport saw them."""

    method: str
    status: int
    headers: dict[str, str]
    body: bytes = b""
    events: list[dict[str, str]] = field(default_factory=list)
    recorded: bool = False  # its messages were written to the trace as they arrived (``HttpPeer.exchange``)


def _payloads(exchange: Exchange) -> list[str]:
    """The message payloads of an exchange's answer: its SSE ``message`` events' data, then its body."""
    payloads = [e["data"] for e in exchange.events if e.get("event", "message") == "message" and e["data"].strip()]
    if exchange.body.strip():
        payloads.append(exchange.body.decode("utf-8", "replace"))
    return payloads


def parse_sse(lines: Any) -> Any:
    """Yield each server-sent event as {event, data, id, retry} from an iterator of byte lines."""
    event: dict[str, str] = {}
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if not line:
            if data or event:
                yield event | {"data": "\n".join(data)}
            event, data = {}, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name in ("event", "id", "retry"):
            event[name] = value
    if data or event:
        yield event | {"data": "\n".join(data)}


class OpenRequest:
    """A request POSTed by ``HttpPeer.open_request``: its answer reaches the session as any does, and
    the client can drop the response stream mid-request (2026-07-28's cancellation on Streamable HTTP)."""

    def __init__(self, response: http.client.HTTPResponse, trace: Trace, request_id: Any) -> None:
        self._response = response
        self._trace = trace
        self.request_id = request_id
        self.ended = threading.Event()  # the answer is over: the server ended it, or the client dropped it

    def close(self, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        """Drop the response stream (the server sees the client disconnect), bounded by ``timeout``."""
        self._trace.lifecycle("client-to-server", "close-response-stream", id=self.request_id)
        connection = getattr(self._response, "connection_of_mcp_matrix", None)
        with contextlib.suppress(OSError):
            if connection is not None and connection.sock is not None:
                connection.sock.shutdown(socket.SHUT_RDWR)
        self.ended.wait(timeout)


_STREAM_OVER = object()  # the reader's last item: the server ended the stream's body


class EventStream:
    """An event-stream answer held open (``HttpPeer.stream``), for cells about the streams themselves.

    A thread reads the events as they come; the test takes them one at a time (``next_event``), each
    wait bounded, and can drop the connection at any point (``close``). Every event taken is kept in
    ``events`` and the JSON-RPC frames it carried in ``frames`` (faults applied, traced and
    schema-checked like every frame the peer reads). ``ended`` says the server ended the body; a
    stream the reader lost otherwise (a socket timeout, our own ``close``) is over but not ended.
    """

    def __init__(
        self, peer: HttpPeer, exchange: Exchange, response: http.client.HTTPResponse | None, target: str
    ) -> None:
        self.peer = peer
        self.exchange = exchange
        self.events: list[dict[str, str]] = []
        self.frames: list[Any] = []
        self.ended = False
        self.over = False
        self.lost: BaseException | None = None  # why the reader lost a stream the server did not end
        self._response = response
        self._target = target
        self._queue: queue.Queue[Any] = queue.Queue()
        if response is None:
            self._queue.put(_STREAM_OVER)
            return
        reader = threading.Thread(target=self._read, args=(response,), daemon=True)
        with peer._lock:
            peer._readers.append(reader)
        reader.start()

    def _read(self, response: http.client.HTTPResponse) -> None:
        outcome: Any = _STREAM_OVER
        try:
            for event in parse_sse(iter(response.readline, b"")):
                self._queue.put(event)
        except Exception as exc:  # dropped by the client, or by teardown, or a socket timeout
            outcome = exc
        finally:
            self._queue.put(outcome)

    def next_event(self, timeout: float | None = None) -> dict[str, str] | None:
        """The next event, or None once the stream is over; ImplementationTimeout after ``timeout`` seconds."""
        if self.over:
            return None
        bound = self.peer.timeout if timeout is None else timeout
        try:
            item = self._queue.get(timeout=max(0.0, bound))
        except queue.Empty:
            raise ImplementationTimeout(
                f"no event on the {self.exchange.method} stream within {bound:g}s{self.peer._said()}"
            ) from None
        if item is _STREAM_OVER or isinstance(item, BaseException):
            self.over, self.ended = True, item is _STREAM_OVER
            self.lost = item if isinstance(item, BaseException) else None
            self.peer.trace.lifecycle("server-to-client", "stream-over", method=self.exchange.method, ended=self.ended)
            return None
        if self.peer.fault is not None and self.peer.fault.kind == "sse-event-id":
            item = self.peer.fault.rewrite_events(self._target, [item])[0]
        self.events.append(item)
        self.frames.extend(self.peer.frames_of(Exchange(self.exchange.method, self.exchange.status, {}, events=[item])))
        return item

    def read_until(self, wanted: Any, timeout: float | None = None) -> list[Any]:
        """Take events until one carries a frame for which ``wanted(frame)`` holds; the frames taken.

        ImplementationTimeout when none comes within ``timeout`` seconds in all, ProtocolViolation when
        the stream ends first."""
        bound = self.peer.timeout if timeout is None else timeout
        deadline = time.monotonic() + bound
        start = len(self.frames)
        while True:
            seen = len(self.frames)
            if self.next_event(deadline - time.monotonic()) is None:
                if isinstance(self.lost, TimeoutError):  # the socket's bound, not the server's doing
                    raise ImplementationTimeout(
                        f"nothing awaited came on the {self.exchange.method} stream within the harness's read "
                        f"bound ({self.peer.timeout:g}s); it carried {self.frames[start:]}"
                    )
                if self.lost is not None:
                    raise HarnessError(f"the harness lost the {self.exchange.method} stream: {self.lost!r}")
                method, carried = self.exchange.method, self.frames[start:]
                raise ProtocolViolation(f"the server ended the {method} stream before the awaited frame: {carried}")
            if any(wanted(frame) for frame in self.frames[seen:]):
                return self.frames[start:]

    def read_to_end(self, timeout: float | None = None) -> list[Any]:
        """Take events until the stream is over (ImplementationTimeout after ``timeout`` s in all); the frames."""
        bound = self.peer.timeout if timeout is None else timeout
        deadline = time.monotonic() + bound
        start = len(self.frames)
        while self.next_event(deadline - time.monotonic()) is not None:
            pass
        return self.frames[start:]

    def close(self) -> None:
        """Drop the connection (the server sees the client disconnect)."""
        self.peer.trace.lifecycle("client-to-server", "close-stream", method=self.exchange.method)
        if self._response is not None:
            connection = getattr(self._response, "connection_of_mcp_matrix", None)
            with contextlib.suppress(OSError):
                if connection is not None and connection.sock is not None:
                    connection.sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(Exception):
                self.peer._done(self._response)


class HttpTransport(Peer):
    """What the HTTP peers share: one connection per request, to a loopback URL; each answer's status
    and headers recorded as an ``Exchange`` (through the fault, if any) and traced."""

    def __init__(self, trace: Trace, revision: str, timeout: float, fault: Fault | None) -> None:
        super().__init__(trace, revision, timeout, fault)
        self.exchanges: list[Exchange] = []
        self._connections: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def _request(self, method: str, url: str, body: bytes | None, headers: dict[str, str]) -> http.client.HTTPResponse:
        """Send one HTTP request on a connection of its own and return the response, body unread.

        The connection is closed with the response (``_done``), or at teardown for a stream."""
        parts = require_loopback(url)
        connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=self.timeout)
        with self._lock:
            self._connections.append(connection)
        target = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
        except TimeoutError as exc:
            raise ProtocolViolation(f"{method} {url}: no answer within {self.timeout:g}s") from exc
        except OSError as exc:
            raise ProtocolViolation(f"{method} {url}: {exc}") from exc
        response.connection_of_mcp_matrix = connection  # type: ignore[attr-defined]
        return response

    def _done(self, response: http.client.HTTPResponse) -> None:
        response.close()
        connection = getattr(response, "connection_of_mcp_matrix", None)
        if connection is not None:
            with contextlib.suppress(OSError):
                if connection.sock is not None:
                    connection.sock.shutdown(socket.SHUT_RDWR)
            connection.close()
            with self._lock:
                if connection in self._connections:
                    self._connections.remove(connection)

    def traced_path(self) -> str | None:
        """The path of the exchange under way, for its trace's http events (None: not written)."""
        return None

    def _trace_request(self, method: str, headers: dict[str, str]) -> None:
        where = {"path": path} if (path := self.traced_path()) is not None else {}
        self.trace.record("client-to-server", "http", method=method, headers=headers, **where)

    def _record(self, method: str, response: http.client.HTTPResponse, target: str) -> Exchange:
        headers = {k.lower(): v for k, v in response.getheaders()}
        status = response.status
        if self.fault is not None:
            status, headers = self.fault.rewrite_http(target, status, headers)
        exchange = Exchange(method, status, headers)
        self.exchanges.append(exchange)
        where = {"path": path} if (path := self.traced_path()) is not None else {}
        self.trace.record("server-to-client", "http", method=method, status=status, headers=headers, **where)
        return exchange


class HttpPeer(HttpTransport):
    """The client end of one Streamable HTTP session (or, at 2026-07-28, of stateless requests)."""

    transport = "streamable-http"

    def __init__(
        self,
        url: str,
        trace: Trace,
        revision: str,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        fault: Fault | None = None,
    ) -> None:
        super().__init__(trace, revision, timeout, fault)
        parts = require_loopback(url)
        self.url = url
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.path = parts.path or "/"
        self.session_id: str | None = None
        self.negotiated_version: str | None = MODERN if revision == MODERN else None
        self.last_event_id: str | None = None
        self._refused: dict[Any, str] = {}  # request id -> why its response cannot come (an error status)
        self._closing = False  # teardown under way: no stream is resumed any more
        self._readers: list[threading.Thread] = []

    # -- headers ------------------------------------------------------------------------------------

    def headers_for(self, frame: Any) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        version = self.negotiated_version
        if version and revision_index(version) >= revision_index(HEADER_VERSION_FROM):
            headers["MCP-Protocol-Version"] = version
        if self.revision == MODERN and isinstance(frame, dict) and "method" in frame:
            headers["Mcp-Method"] = frame["method"]
            source = NAME_SOURCES.get(frame["method"])
            name = (frame.get("params") or {}).get(source) if source else None
            if isinstance(name, str):
                headers["Mcp-Name"] = name
        return headers

    # -- exchanges ----------------------------------------------------------------------------------

    def _send_http(self, method: str, body: bytes | None, headers: dict[str, str]) -> http.client.HTTPResponse:
        return self._request(method, self.url, body, headers)

    def traced_path(self) -> str:
        """The path and query of the peer's URL: a test may point the peer at a document beside the endpoint
        (protected-resource metadata), and a validator tells the MCP endpoint's exchanges from others by it."""
        parts = urllib.parse.urlsplit(self.url)
        return urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))

    def exchange(
        self,
        method: str,
        frame: Any = None,
        headers: dict[str, str] | None = None,
        *,
        body: bytes | None = None,
        read_events: bool = True,
    ) -> Exchange:
        """One HTTP exchange for transport-level cells, bypassing the session's frame queue.

        ``frame`` is serialized as the body (or ``body`` sent as it is); ``headers`` default to the
        session's. An SSE answer is read to its end (bounded by the timeout) unless ``read_events``
        is false, when only the status and headers are taken and the stream is dropped.
        """
        if frame is not None:
            self._check_own(frame)
            self.trace.message("client-to-server", frame)
            body = json.dumps(frame).encode()
            for item in frame if isinstance(frame, list) else [frame]:
                if isinstance(item, dict) and "id" in item and "method" in item:
                    self._pending_methods[item["id"]] = item["method"]
        sent = headers if headers is not None else self.headers_for(frame)
        self._trace_request(method, sent)
        response = self._send_http(method, body, sent)
        target = _target(method, frame)
        exchange = self._record(method, response, target)
        try:
            if exchange.headers.get("content-type", "").startswith("text/event-stream"):
                if read_events:
                    with contextlib.suppress(TimeoutError, OSError):
                        exchange.events = list(parse_sse(iter(response.readline, b"")))
                    if self.fault is not None and self.fault.kind == "sse-event-id":
                        exchange.events = self.fault.rewrite_events(target, exchange.events)
            else:
                exchange.body = response.read()
                if self.fault is not None and self.fault.kind == "http-body" and self.fault.targets(target):
                    exchange.body = str(self.fault.value).encode()
        finally:
            self._done(response)
        json_success = exchange.status < 300 and exchange.headers.get("content-type", "").startswith("application/json")
        at_endpoint = urllib.parse.urlsplit(self.url).path == self.path  # not a document beside it
        if at_endpoint and (exchange.events or json_success):
            self._record_arrived(exchange)
        return exchange

    def _record_arrived(self, exchange: Exchange) -> None:
        """Write the messages an answer carried (its SSE events, or a success's JSON body) to the trace as they
        arrived, whether or not the test reads them: a trace holds the whole session, so a response a test
        never looks at still ends its request there. An error's body may be no JSON-RPC message (an OAuth
        error object); it is written only if the test reads it as one (``frames_of``)."""
        for payload in _payloads(exchange):
            with contextlib.suppress(json.JSONDecodeError):
                self.trace.message("server-to-client", json.loads(payload))
        exchange.recorded = True

    def frames_of(self, exchange: Exchange) -> list[Any]:
        """The JSON-RPC frames an exchange carried (JSON body or SSE events), schema-checked like any."""
        payloads = _payloads(exchange)
        if self.fault is not None:  # the same damage the session's own frames get (faults.py)
            payloads = [
                line.decode("utf-8", "replace")
                for payload in payloads
                for line in self.fault.mutate(payload.encode(), self._method_answered, counts=self._fault_counts)
            ]
        frames = []
        for payload in payloads:
            try:
                frame = json.loads(payload)
            except json.JSONDecodeError as exc:
                raise ProtocolViolation(
                    f"{exchange.method} answered with a body that is not JSON: {payload[:200]!r}"
                ) from exc
            if not exchange.recorded:
                self.trace.message("server-to-client", frame)
            self._check_theirs(frame)
            frames.extend(frame if isinstance(frame, list) else [frame])
        return frames

    def _transmit(self, data: bytes, frame: Any) -> None:
        headers = self.headers_for(frame)
        self._trace_request("POST", headers)
        response = self._send_http("POST", data, headers)
        exchange = self._record("POST", response, _target("POST", frame))
        session = exchange.headers.get("mcp-session-id")
        if session and isinstance(frame, dict) and frame.get("method") == "initialize":
            self.session_id = session
        content_type = exchange.headers.get("content-type", "")
        if content_type.startswith("text/event-stream"):
            asked = {f.get("id") for f in (frame if isinstance(frame, list) else [frame]) if _is_request(f)}
            reader = threading.Thread(target=self._read_stream, args=(response, asked), daemon=True)
            with self._lock:
                self._readers.append(reader)
            reader.start()
            return
        try:
            body = response.read()
        finally:
            self._done(response)
        exchange.body = body
        # An error status may come with any body (a JSON-RPC error "MAY" be it): one that is no JSON, such as a
        # framework's HTML page for a 413, is kept in the exchange, not read as a message.
        if body.strip() and (exchange.status < 400 or body.strip()[:1] in (b"{", b"[")):
            self.inbound.put(body.strip() + b"\n")
        request_id = frame.get("id") if isinstance(frame, dict) and "method" in frame else None
        if request_id is not None and exchange.status >= 400 and not _answers_in(body, request_id):
            self._refused[request_id] = f"the POST carrying it was answered {exchange.status} without it"

    def open_request(self, frame: dict) -> OpenRequest:
        """POST a request as ``send_request`` does, keeping hold of its answer (see ``OpenRequest``).

        The answer, an event stream or a JSON body, is read by a thread of its own, so the client can
        drop it at any point after the status line."""
        self._pending_methods[frame["id"]] = frame["method"]
        self._check_own(frame)
        self.trace.message("client-to-server", frame)
        headers = self.headers_for(frame)
        self._trace_request("POST", headers)
        response = self._send_http("POST", json.dumps(frame, separators=(",", ":")).encode(), headers)
        streamed = self._record("POST", response, _target("POST", frame)).headers.get("content-type", "")
        handle = OpenRequest(response, self.trace, frame["id"])

        def read() -> None:
            try:
                if streamed.startswith("text/event-stream"):
                    self._read_stream(response)
                    return
                with contextlib.suppress(Exception):  # dropped by the client, or by teardown
                    body = response.read().strip()
                    if body:
                        self.inbound.put(body + b"\n")
                with contextlib.suppress(Exception):
                    self._done(response)
            finally:
                handle.ended.set()

        reader = threading.Thread(target=read, daemon=True)
        with self._lock:
            self._readers.append(reader)
        reader.start()
        return handle

    def stream(self, method: str = "GET", headers: dict[str, str] | None = None) -> EventStream:
        """Send a request without a body (a GET, with ``headers``) and hold its answer open as an
        ``EventStream``; an answer that is not an event stream is read whole into the stream's
        ``exchange`` and the stream is over at once."""
        sent = headers if headers is not None else self.headers_for(None)
        self._trace_request(method, sent)
        response = self._send_http(method, None, sent)
        exchange = self._record(method, response, method)
        if exchange.headers.get("content-type", "").startswith("text/event-stream"):
            return EventStream(self, exchange, response, method)
        try:
            exchange.body = response.read()
        finally:
            self._done(response)
        return EventStream(self, exchange, None, method)

    def _read_stream(self, response: http.client.HTTPResponse, asked: set[Any] | None = None, resumes: int = 0) -> None:
        """Read a request's event stream into the session. A server may end that stream before it has
        answered, once it gave an event id (SEP-1699, 2025-11-25, and a dropped stream since 2025-03-26):
        the answers of ``asked`` then come on a GET resuming after that id, as a client would fetch them
        (the cells about the resumption itself read the streams as they are: ``exchange``, ``stream``)."""
        # A reader thread never raises: teardown closes its socket under it (http.client then fails
        # in several ways), and a stream that breaks mid-test shows as a missing frame, bounded.
        asked = set(asked or ())
        last_id, retry = None, None
        try:
            with contextlib.suppress(Exception):
                for event in parse_sse(iter(response.readline, b"")):
                    if event.get("id"):
                        self.last_event_id = last_id = event["id"]
                    if event.get("retry", "").isdigit():
                        retry = int(event["retry"]) / 1000
                    if event.get("event", "message") == "message" and event["data"].strip():
                        asked -= _answered_ids(event["data"])
                        self.inbound.put(event["data"].encode() + b"\n")
        finally:
            with contextlib.suppress(Exception):
                self._done(response)
        if asked and last_id is not None and resumes < MAX_RESUMES and not self._closing:
            self._resume(last_id, asked, retry, resumes + 1)

    def _resume(self, last_id: str, asked: set[Any], retry: float | None, resumes: int) -> None:
        """GET the stream again after ``last_id``, waiting the server's retry first (capped)."""
        time.sleep(min(retry if retry is not None else 0.0, MAX_RETRY_WAIT_SECONDS))  # the server's own wait
        if self._closing:
            return
        headers = self.headers_for(None) | {"Accept": "text/event-stream", "Last-Event-ID": last_id}
        headers.pop("Content-Type", None)
        self._trace_request("GET", headers)
        with contextlib.suppress(AssertionError, OSError):
            response = self._send_http("GET", None, headers)
            if self._record("GET", response, "GET").headers.get("content-type", "").startswith("text/event-stream"):
                self._read_stream(response, asked, resumes)
            else:
                self._done(response)

    def refusal_of(self, request_id: Any) -> str | None:
        return self._refused.get(request_id)

    def negotiated(self, result: dict) -> None:
        version = result.get("protocolVersion")
        if version in REVISIONS:  # a version no revision names (a server's, or a fault's) gives no header to send
            self.negotiated_version = version

    def diagnostics(self) -> str:
        return "\n".join(f"{e.method} -> {e.status}" for e in self.exchanges[-5:])

    def _shutdown(self) -> None:
        self._closing = True
        with self._lock:
            connections, readers = list(self._connections), list(self._readers)
        for connection in connections:
            with contextlib.suppress(OSError):
                if connection.sock is not None:
                    connection.sock.shutdown(socket.SHUT_RDWR)
                connection.close()
        for reader in readers:
            reader.join(timeout=2)
        self.inbound.put(CLOSED)
        if self.session_id and self.revision != MODERN:
            # the session's headers, MCP-Protocol-Version included: the DELETE is a request of the session too
            headers = {k: v for k, v in self.headers_for(None).items() if k not in ("Content-Type", "Accept")}
            with contextlib.suppress(AssertionError, OSError):
                self.exchange("DELETE", headers=headers)


def _is_request(frame: Any) -> bool:
    return isinstance(frame, dict) and "method" in frame and "id" in frame


def _answered_ids(data: str) -> set[Any]:
    """The ids a JSON-RPC payload answers (a response, or a batch of them)."""
    try:
        parsed = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return set()
    frames = parsed if isinstance(parsed, list) else [parsed]
    return {f.get("id") for f in frames if isinstance(f, dict) and "method" not in f and "id" in f}


def _answers_in(body: bytes, request_id: Any) -> bool:
    """Whether a JSON body holds a response to ``request_id`` (alone or in a batch)."""
    try:
        parsed = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    return any(
        isinstance(f, dict) and f.get("id") == request_id for f in (parsed if isinstance(parsed, list) else [parsed])
    )


def _target(method: str, frame: Any) -> str:
    """What an HTTP fault names: the JSON-RPC method a POST carries, else the HTTP method."""
    if isinstance(frame, dict) and isinstance(frame.get("method"), str):
        return frame["method"]
    return method
