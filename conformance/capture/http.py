"""``capture --listen PORT --upstream URL``: a recording proxy for Streamable HTTP (and HTTP+SSE).

It listens on 127.0.0.1:PORT (or another loopback address; nothing else) and forwards each request
to the same path and query on the upstream's host (a loopback address, or it refuses to start),
then the upstream's answer back: status, headers and body bytes as they came, a stream (an SSE
response to a POST, a GET stream) chunk by chunk as the upstream sends it, until either side ends
it (a JSON body whole). What a chunk completes is recorded before the chunk is passed on, so that
what the client sends in reaction comes later in ``seq``. Only what HTTP itself requires of a
proxy changes: the hop-by-hop headers (``Connection``, ``Transfer-Encoding`` ...) are not
forwarded, and a body's chunked framing is the proxy's own. A request's headers go on as they came,
names lowercased as uvicorn hands them over (``Host`` and ``Origin`` included: the upstream judges
them as it would the client's). Uvicorn serves, httpx2 (the SDK's HTTP client) forwards.

What it records, in the trace of the request's session: an ``http`` event for each request and
each response (``method``, ``path``, ``status``, the headers ``trace.py`` keeps), a ``message``
event for the JSON body of a request or of a JSON response (``lifecycle`` ``http-body``, its size only, for a
body of another path than the MCP endpoint's and for an error answer's JSON that is no JSON-RPC message), and
one for each SSE event's data
(``recording.py``), ``lifecycle`` ``stream-closed`` when a stream ends (``by`` ``server`` or
``client``). A session is told by its ``Mcp-Session-Id`` (or, at 2024-11-05, the session named in
the endpoint URL's query): an ``initialize`` request (or an HTTP+SSE GET) without one opens a new
recording, and the session id its response assigns keys it from then on; requests that name no
session (the stateless exchanges of 2026-07-28) share one recording.

An upstream that cannot be reached gets the client a 502 (recorded as ``lifecycle``
``upstream-unreachable``): the only bytes the proxy ever makes up; an answer the upstream breaks off
is cut off for the client at the same byte (``upstream-broke-off``). A client that leaves before its
answer has come makes the proxy drop the upstream request too.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx2
import uvicorn

from conformance.capture.recording import SseParser, parse_json, record_sse_event, record_unit, recording_path
from conformance.harness.trace import SESSION_HEADER, Trace

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"te", b"trailer", b"transfer-encoding", b"upgrade"}
)
LISTEN_HOST = "127.0.0.1"
CONNECT_SECONDS = 10.0
WRITE_SECONDS = 30.0
SHUTDOWN_SECONDS = 2  # open streams are cut after this long once the proxy is told to stop
UNREACHABLE = b"capture: the upstream could not be reached\n"


class NotLoopback(ValueError):
    """An address the proxy refuses: it listens on, and forwards to, loopback only."""


def loopback_origin(url: str) -> str:
    """``scheme://host:port`` of ``url``, a loopback http(s) URL, or ``NotLoopback``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise NotLoopback(f"--upstream must be an http:// or https:// URL, not {url!r}")
    if parts.hostname != "localhost":
        try:
            loopback = ipaddress.ip_address(parts.hostname).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise NotLoopback(
                f"--upstream {url} is not a loopback address: capture forwards only to 127.0.0.0/8, ::1 or localhost"
            )
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


class Recordings:
    """The recording of each session the proxy has seen, found by the session's id."""

    def __init__(self, pattern: str, transport: str) -> None:
        self.pattern, self.transport = pattern, transport
        self.by_session: dict[str, Trace] = {}
        self.sessionless: Trace | None = None
        self.opened: list[Trace] = []

    def open(self) -> Trace:
        trace = Trace(recording_path(self.pattern), self.transport)
        trace.lifecycle("client-to-server", "open")
        self.opened.append(trace)
        return trace

    def for_request(self, session: str | None, method: str, body: bytes) -> Trace:
        if session is not None:
            if session not in self.by_session:  # a session begun before the proxy saw it
                self.by_session[session] = self.open()
            return self.by_session[session]
        if _opens_session(method, body, self.transport):
            return self.open()
        if self.sessionless is None:
            self.sessionless = self.open()
        return self.sessionless

    def bind(self, session: str | None, trace: Trace) -> None:
        if session is not None and session not in self.by_session:
            self.by_session[session] = trace

    def close(self) -> None:
        for trace in self.opened:
            trace.lifecycle("client-to-server", "close")
            trace.close()


def _opens_session(method: str, body: bytes, transport: str) -> bool:
    if transport == "sse":
        return method == "GET"
    try:
        frame = parse_json(body)
    except ValueError:
        return False
    frames = frame if isinstance(frame, list) else [frame]
    return any(isinstance(f, dict) and f.get("method") == "initialize" for f in frames)


def _session_of(headers: list[tuple[bytes, bytes]], target: str) -> str | None:
    """The session a request or response names: its ``Mcp-Session-Id``, or a ``session`` query parameter."""
    for name, value in headers:
        if name.lower() == SESSION_HEADER.encode():
            return value.decode("latin-1")
    for name, value in parse_qsl(urlsplit(target).query):
        if "session" in name.lower():
            return value
    return None


def _header_map(headers: list[tuple[bytes, bytes]]) -> dict[str, str]:
    joined: dict[str, str] = {}
    for name, value in headers:
        key, text = name.decode("latin-1"), value.decode("latin-1")
        joined[key.lower()] = f"{joined[key.lower()]}, {text}" if key.lower() in joined else text
    return joined


class Proxy:
    """The ASGI application: forward, record, stream."""

    def __init__(self, upstream: str, recordings: Recordings) -> None:
        self.origin = loopback_origin(upstream)
        self.endpoint = urlsplit(upstream).path or "/"
        self.recordings = recordings
        self.client: httpx2.AsyncClient | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._exchange(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                timeout = httpx2.Timeout(CONNECT_SECONDS, read=None, write=WRITE_SECONDS, pool=None)
                self.client = httpx2.AsyncClient(timeout=timeout, trust_env=False, follow_redirects=False)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.client is not None:
                    await self.client.aclose()
                self.recordings.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _exchange(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.client is not None
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        method = scope["method"]
        query = scope["query_string"].decode("latin-1")
        target = scope["raw_path"].decode("latin-1") + (f"?{query}" if query else "")
        headers = [(name, value) for name, value in scope["headers"] if name.lower() not in HOP_BY_HOP]
        trace = self.recordings.for_request(_session_of(headers, target), method, bytes(body))
        # the trace writes the session a path's query names as a pseudonym
        trace.record("client-to-server", "http", method=method, path=target, headers=_header_map(headers))
        if body:
            self._record_body(trace, "client-to-server", bytes(body), target, None)
        answering = asyncio.create_task(
            self._answer(
                httpx2.Request(method, self.origin + target, headers=headers, content=bytes(body)), trace, send
            )
        )
        watching = asyncio.create_task(_client_gone(receive))
        await asyncio.wait({answering, watching}, return_when=asyncio.FIRST_COMPLETED)
        for task in (answering, watching):  # the client gone: what was still being answered stops
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _answer(self, request: httpx2.Request, trace: Trace, send: Send) -> None:
        """Forward ``request``, then pass the answer on chunk by chunk, recording it, until it ends."""
        assert self.client is not None
        method, path = request.method, request.url.raw_path.decode("latin-1")
        try:
            response = await self.client.send(request, stream=True)
        except httpx2.HTTPError as exc:
            trace.lifecycle("server-to-client", "upstream-unreachable", path=path, detail=str(exc))
            await send({"type": "http.response.start", "status": 502, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": UNREACHABLE})
            return
        content_type = response.headers.get("content-type", "").lower()
        sse = SseParser() if content_type.startswith("text/event-stream") else None
        whole = bytearray() if content_type.startswith("application/json") else None
        ended_by = "server"
        try:
            answered = [(name, value) for name, value in response.headers.raw if name.lower() not in HOP_BY_HOP]
            self.recordings.bind(_session_of(answered, ""), trace)
            fields = {"method": method, "path": path, "status": response.status_code}
            trace.record("server-to-client", "http", headers=_header_map(answered), **fields)
            await send({"type": "http.response.start", "status": response.status_code, "headers": answered})
            async for chunk in response.aiter_raw():
                # recorded before passed on: what the client sends in reaction comes later in seq
                if sse is not None:
                    for event in sse.feed(chunk):
                        if event.name == "endpoint":  # 2024-11-05: the POST URL names the session
                            self.recordings.bind(_session_of([], b"".join(event.data).decode("latin-1")), trace)
                        record_sse_event(trace, event)
                elif whole is not None:  # a JSON body is passed on whole, once recorded
                    whole.extend(chunk)
                    continue
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if whole:
                self._record_body(trace, "server-to-client", bytes(whole), path, response.status_code)
                await send({"type": "http.response.body", "body": bytes(whole), "more_body": True})
                whole.clear()
            await send({"type": "http.response.body", "body": b""})
        except asyncio.CancelledError:
            ended_by = "client"
            raise
        except (httpx2.HTTPError, OSError) as exc:  # the upstream broke off: the client's answer is cut off too
            trace.lifecycle("server-to-client", "upstream-broke-off", path=path, detail=str(exc))
        finally:
            await response.aclose()
            if whole:
                self._record_body(trace, "server-to-client", bytes(whole), path, response.status_code)
            if sse is not None:
                direction = "server-to-client" if ended_by == "server" else "client-to-server"
                trace.lifecycle(direction, "stream-closed", by=ended_by)

    def _record_body(self, trace: Trace, direction: str, data: bytes, target: str, status: int | None) -> None:
        """A body as a ``message`` (or ``unparsable``) where it belongs to the MCP exchange; else ``lifecycle``
        ``http-body`` with its size only: a Streamable HTTP body of another path than the MCP endpoint's (a
        metadata document, an authorization server's registration or token exchange, whose bodies carry
        credentials), or an error answer's JSON that is no JSON-RPC message (an OAuth error object of a 401)."""
        elsewhere = self.recordings.transport == "streamable-http" and urlsplit(target).path != self.endpoint
        refusal = status is not None and not 200 <= status < 300 and not _json_rpc_shaped(data)
        if elsewhere or refusal:
            fields = {"path": target, "size": len(data)} | ({"status": status} if status is not None else {})
            trace.lifecycle(direction, "http-body", **fields)
        else:
            record_unit(trace, direction, data)


def _json_rpc_shaped(data: bytes) -> bool:
    """Whether a body is JSON naming the JSON-RPC version: a message, or a batch holding one."""
    try:
        value = parse_json(data)
    except ValueError:
        return False
    items = value if isinstance(value, list) else [value]
    return any(isinstance(item, dict) and "jsonrpc" in item for item in items)


async def _client_gone(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def listen_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` as (host, port): a loopback IP address (127.0.0.1 by default), or ``NotLoopback``."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or LISTEN_HOST
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise NotLoopback(f"--listen {text}: capture listens on a loopback address only (127.0.0.1 by default)")
    if not port.isdigit() or int(port) > 65535:
        raise NotLoopback(f"--listen {text}: not a port number")
    return host, int(port)


def serve(listen: str, upstream: str, pattern: str, transport: str) -> int:
    """Run the proxy until SIGINT or SIGTERM; each session's recording goes to ``pattern``."""
    host, port = listen_address(listen)
    proxy = Proxy(upstream, Recordings(pattern, transport))
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        print(f"capture: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return 1
    listener.listen(128)  # before the announcement: a client may connect as soon as it reads it
    config = uvicorn.Config(
        proxy,
        lifespan="on",
        log_level="warning",
        server_header=False,
        date_header=False,
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
    )
    bound = listener.getsockname()[1]
    print(
        f"capture: proxying http://{_netloc(host, bound)} to {proxy.origin}, recording to {Path(pattern)}",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.Server(config).run(sockets=[listener])
    return 0


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
