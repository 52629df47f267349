"""The page server: URLs outside the MCP endpoint that the scripted server hands a client, and the record of
every request the client makes to them.

Some requirements bind what a client fetches on its own: an icon's ``src``, a ``$ref`` of a tool's schema, the
URL of a URL-mode elicitation. Their breach is a request to that URL, never a frame on the MCP exchange. The
page server is a loopback HTTP listener (``url``) that serves the pages a test scripts (``pages``: a body, a
content type, a status, headers such as ``Location`` or ``Set-Cookie``), answers 404 for any other path, and
records everything that reaches it: each HTTP request (method, path, headers, wall-clock ``ts`` comparable
with a session trace's), and each connection, whatever it carried (a TLS handshake or an FTP client's silence
on this plain-HTTP port is a connection with no request). A second listener (``other_url``) shares the pages
and the record: the same host on another port, that is another origin.

Over Streamable HTTP the MCP session's trace gets a ``page-request`` lifecycle event for each request, so that
``seq`` places it among the session's frames. ``fetch_page`` is how the ``fetch`` fault (faults.py) makes the
request a client breaking a clause would make.
"""

from __future__ import annotations

import re
import select
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from conformance.harness.trace import Trace

MAIN, OTHER = "main", "other"  # the listeners: the page server's origin, and another origin beside it
QUIET_CONNECTION_SECONDS = 1.0  # how long a connection that sends nothing is kept before it is closed
SETTLE_SECONDS = 2.0  # how long the record waits for the connections still being served
FETCH_SECONDS = 2.0  # the bound of one fetch the fault makes
HTTP_START = re.compile(rb"^[A-Z]{1,15}( |$)")  # how an HTTP request line begins (its method)


@dataclass(frozen=True)
class Page:
    """What the page server answers for one path."""

    body: bytes = b""
    content_type: str = "application/octet-stream"
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PageRequest:
    """One HTTP request that reached the page server."""

    listener: str  # MAIN or OTHER
    method: str
    path: str  # the request target: path and query
    headers: dict[str, str]  # names lower-cased
    ts: float  # wall clock (time.time()), as a session trace's ``ts``

    @property
    def bare_path(self) -> str:
        return self.path.split("?", 1)[0]


@dataclass(frozen=True)
class PageConnection:
    """One connection accepted by a listener, and how it began (the first bytes; empty: it sent nothing)."""

    listener: str
    ts: float
    began: bytes = b""

    @property
    def http(self) -> bool:
        return bool(HTTP_START.match(self.began))


class PageServer:
    """Two loopback listeners serving ``pages`` (path -> Page) and recording what reaches them."""

    def __init__(self, trace: Trace | None = None) -> None:
        self.pages: dict[str, Page] = {}
        self.trace = trace
        self._requests: list[PageRequest] = []
        self._connections: list[PageConnection] = []
        self._serving = 0  # connections whose handler has not ended yet
        self._changed = threading.Condition()
        self._listeners = {MAIN: self._listen(MAIN), OTHER: self._listen(OTHER)}
        self.url, self.other_url = (f"http://127.0.0.1:{self._listeners[n].server_address[1]}" for n in (MAIN, OTHER))
        self._threads = [
            threading.Thread(target=listener.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
            for listener in self._listeners.values()
        ]
        for thread in self._threads:
            thread.start()

    # -- the record ----------------------------------------------------------------------------------------

    def requests(self) -> list[PageRequest]:
        """Every HTTP request so far, once the connections still being served have ended (bounded)."""
        self.settle()
        with self._changed:
            return list(self._requests)

    def connections(self) -> list[PageConnection]:
        """Every connection so far, whatever it carried (see ``requests`` for the wait)."""
        self.settle()
        with self._changed:
            return list(self._connections)

    def settle(self, seconds: float = SETTLE_SECONDS) -> bool:
        """Wait until no connection is pending or being served (at most ``seconds``): what a client had sent
        before it ended is then in the record."""
        deadline = time.monotonic() + seconds
        while True:
            pending = any(_readable(listener.socket) for listener in self._listeners.values())
            with self._changed:
                if not pending and not self._serving:
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.02))

    def fetched(self, path: str, listener: str = MAIN) -> list[PageRequest]:
        """The requests for ``path`` (its query ignored) on ``listener``."""
        return [r for r in self.requests() if r.bare_path == path and r.listener == listener]

    def _add(self, entry: PageRequest | PageConnection) -> None:
        with self._changed:
            if isinstance(entry, PageRequest):
                self._requests.append(entry)
            else:
                self._connections.append(entry)
            self._changed.notify_all()
        if isinstance(entry, PageRequest) and self.trace is not None:
            self.trace.lifecycle(
                "client-to-server",
                "page-request",
                listener=entry.listener,
                method=entry.method,
                path=entry.path,
                headers=entry.headers,
            )

    def _served(self, delta: int) -> None:
        with self._changed:
            self._serving += delta
            self._changed.notify_all()

    # -- serving -------------------------------------------------------------------------------------------

    def _listen(self, name: str) -> ThreadingHTTPServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            timeout = QUIET_CONNECTION_SECONDS
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet: the record is the record
                pass

            def handle(self) -> None:
                ts = time.time()
                try:
                    began = self.connection.recv(16, socket.MSG_PEEK)
                except OSError:  # it said nothing within the bound
                    began = b""
                owner._add(PageConnection(name, ts, began))
                if HTTP_START.match(began):
                    super().handle()

            def _answer(self) -> None:
                headers = {key.lower(): value for key, value in self.headers.items()}
                owner._add(PageRequest(name, self.command, self.path, headers, time.time()))
                page = owner.pages.get(self.path.split("?", 1)[0], Page(b"not found", "text/plain", 404))
                self.send_response(page.status)
                self.send_header("Content-Type", page.content_type)
                self.send_header("Content-Length", str(len(page.body)))
                for key, value in page.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(page.body)

            do_GET = do_HEAD = do_POST = do_OPTIONS = do_PUT = do_DELETE = _answer

        class Listener(ThreadingHTTPServer):
            daemon_threads = True

            def verify_request(self, request: Any, client_address: Any) -> bool:
                owner._served(+1)  # counted before its handler runs, so that ``settle`` waits for it
                return True

            def shutdown_request(self, request: Any) -> None:  # every accepted connection ends here, served or not
                try:
                    super().shutdown_request(request)
                finally:
                    owner._served(-1)

        return Listener(("127.0.0.1", 0), Handler)

    def close(self) -> None:
        for listener in self._listeners.values():
            listener.shutdown()
            listener.server_close()
        for thread in self._threads:
            thread.join(timeout=2)


def _readable(sock: socket.socket) -> bool:
    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return False


def fetch_page(url: str, headers: Mapping[str, str] | None = None) -> None:
    """GET ``url`` as a client would fetch it (redirects followed, ``headers`` sent), bounded; what comes back
    does not matter, only that the request was made."""
    request = urllib.request.Request(url, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(request, timeout=FETCH_SECONDS) as response:
            response.read()
    except (urllib.error.URLError, OSError, ValueError):
        pass  # a 404, a redirect to a scheme urllib does not follow, a refused connection: the request went
