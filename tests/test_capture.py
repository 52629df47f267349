"""``python -m conformance capture`` (conformance/capture/): it changes no byte of what passes, records what
passed in the trace format, passes signals and exit statuses through, refuses anything but loopback, and
leaves no process behind."""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from conformance.capture import real
from conformance.capture.recording import LineSplitter, SseParser
from conformance.catalogue.spec_pin import PROJECT_ROOT
from conformance.harness.trace import PSEUDONYM_PREFIX
from conformance.validator import TRACE_EVENT_SCHEMA

EVENT_SCHEMA = Draft202012Validator(json.loads(TRACE_EVENT_SCHEMA.read_text(encoding="utf-8")))
CAPTURE = [sys.executable, "-m", "conformance", "capture"]
BOUND = 20.0  # seconds: no wait of these tests is longer


def capture_command(output: Path, *server: str) -> list[str]:
    return [*CAPTURE, "-o", str(output / "{session}.jsonl"), "--", *server]


def recording(output: Path) -> list[dict]:
    """The one recording under ``output``, every line valid against the format's schema."""
    paths = sorted(output.glob("*.jsonl"))
    assert len(paths) == 1, paths
    events = [json.loads(line) for line in paths[0].read_text(encoding="utf-8").splitlines()]
    errors = [f"seq {e.get('seq')}: {error.message}" for e in events for error in EVENT_SCHEMA.iter_errors(e)]
    assert errors == []
    assert [e["seq"] for e in events] == sorted({e["seq"] for e in events})
    return events


def lifecycle(events: list[dict], name: str) -> list[dict]:
    return [e for e in events if e["kind"] == "lifecycle" and e["event"] == name]


def units(events: list[dict], direction: str) -> list[dict]:
    """The direction's recorded lines: its messages and unparsable lines, in order."""
    return [e for e in events if e["direction"] == direction and (e["kind"] == "message" or e["event"] == "unparsable")]


def gone(pid: int, within: float = BOUND) -> bool:
    """Whether process ``pid`` ends within ``within`` seconds (a pidfd becomes readable when it does)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], within)[0])
    finally:
        os.close(fd)


def read_line(stream: object, within: float = BOUND) -> bytes:
    """One line from a pipe, waiting at most ``within`` seconds for it."""
    fd = stream.fileno()  # type: ignore[attr-defined]
    line = b""
    while not line.endswith(b"\n"):
        assert select.select([fd], [], [], within)[0], f"no line within {within}s (so far {line!r})"
        byte = os.read(fd, 1)
        assert byte, f"the stream ended after {line!r}"
        line += byte
    return line


# -- stdio ----------------------------------------------------------------------------------------------------

BIG = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + b"x" * (3 << 20) + b'"}}'
WIRE = b"".join(
    [
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}\n',
        b"not json at all\n",
        b"\xff\xfe not UTF-8\n",
        BIG + b"\n",
        b"\r\n",
        b'{"jsonrpc": "2.0", "id": 2, "method": "ping"}',  # the stream ends inside this line
    ]
)


def test_stdio_capture_passes_every_byte_both_ways_and_records_each_line(tmp_path: Path) -> None:
    """``cat`` as the server: what the client gets back is what it sent, only if no byte changed either way."""
    run = subprocess.run(
        capture_command(tmp_path, "cat"), input=WIRE, capture_output=True, cwd=PROJECT_ROOT, timeout=BOUND
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == WIRE
    events = recording(tmp_path)
    assert [e["event"] for e in events if e["kind"] == "lifecycle" and e["event"] != "unparsable"] == [
        "open",
        "close",
        "close",
        "exit",
    ]
    assert lifecycle(events, "open")[0]["program"] == "cat"
    assert lifecycle(events, "exit")[0]["status"] == 0
    sent, echoed = units(events, "client-to-server"), units(events, "server-to-client")
    assert all(line["seq"] < echo["seq"] for line, echo in zip(sent, echoed, strict=True))  # cause before effect
    for direction in ("client-to-server", "server-to-client"):
        initialize, text, binary, big, blank, unterminated = units(events, direction)
        assert initialize["payload"]["method"] == "initialize"
        assert (text["event"], text["data"], text["size"]) == ("unparsable", "not json at all", 15)
        assert binary["base64"] == "//4gbm90IFVURi04" and binary["reason"].startswith("not UTF-8")
        assert big["payload"] == json.loads(BIG)
        assert (blank["event"], blank["data"]) == ("unparsable", "\r")
        assert unterminated["payload"] == {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        assert unterminated["unterminated"] is True
        assert all("unterminated" not in e for e in (initialize, text, binary, big, blank))


def test_stdio_capture_exits_with_the_servers_status(tmp_path: Path) -> None:
    run = subprocess.run(
        capture_command(tmp_path, "sh", "-c", "cat >/dev/null; exit 7"),
        input=b"{}\n",
        capture_output=True,
        cwd=PROJECT_ROOT,
        timeout=BOUND,
    )
    assert run.returncode == 7
    assert lifecycle(recording(tmp_path), "exit")[0]["status"] == 7


def test_stdio_capture_dies_of_the_signal_the_server_died_of(tmp_path: Path) -> None:
    run = subprocess.run(
        capture_command(tmp_path, "sh", "-c", "kill -KILL $$"), capture_output=True, cwd=PROJECT_ROOT, timeout=BOUND
    )
    assert run.returncode == -signal.SIGKILL
    assert lifecycle(recording(tmp_path), "exit")[0]["signal"] == "SIGKILL"


@contextlib.contextmanager
def captured(output: Path, *server: str) -> Iterator[subprocess.Popen[bytes]]:
    """Capture running ``server`` with pipes for its stdin and stdout; killed at the end if still running."""
    with subprocess.Popen(
        capture_command(output, *server), stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=PROJECT_ROOT
    ) as process:
        try:
            yield process
        finally:
            process.kill()
            process.wait(BOUND)


TERM_AWARE_SERVER = """
import signal, sys
def leave(number, frame):
    sys.stdout.write("terminated\\n"); sys.stdout.flush(); sys.exit(42)
signal.signal(signal.SIGTERM, leave)
sys.stdout.write("ready\\n"); sys.stdout.flush()
sys.stdin.read()
"""


def test_stdio_capture_passes_a_signal_to_the_server(tmp_path: Path) -> None:
    with captured(tmp_path, sys.executable, "-c", TERM_AWARE_SERVER) as process:
        assert read_line(process.stdout) == b"ready\n"
        process.send_signal(signal.SIGTERM)
        assert read_line(process.stdout) == b"terminated\n"
        assert process.wait(BOUND) == 42
    events = recording(tmp_path)
    assert [e["signal"] for e in lifecycle(events, "signal")] == ["SIGTERM"]
    assert lifecycle(events, "exit")[0]["status"] == 42


PID_SERVER = "import os, sys; print(os.getpid(), flush=True); sys.stdin.read()"


def test_the_server_does_not_outlive_a_killed_capture(tmp_path: Path) -> None:
    with captured(tmp_path, sys.executable, "-c", PID_SERVER) as process:
        server = int(read_line(process.stdout))
        process.kill()
        process.wait(BOUND)
        assert gone(server), f"the server (pid {server}) outlived capture"


DEAF_SERVER = "import os, time; print(os.getpid(), flush=True); time.sleep(60)"  # never reads its stdin
STUBBORN_SERVER = "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); " + DEAF_SERVER


@pytest.mark.parametrize(
    ("server", "killed"),
    [
        pytest.param(DEAF_SERVER, False, id="a-server-that-stops-on-sigterm"),
        pytest.param(STUBBORN_SERVER, True, id="a-server-that-ignores-sigterm"),
    ],
)
def test_neither_capture_nor_the_server_outlives_a_killed_client(server: str, killed: bool, tmp_path: Path) -> None:
    """The client (here a Python process that launched capture) dies without a word: capture tells the server
    as a client would (SIGTERM), kills it if it stays, and ends."""
    client_code = (
        "import subprocess, sys, time\n"
        f"capture = subprocess.Popen({capture_command(tmp_path, sys.executable, '-c', server)!r}, "
        "stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
        "print(capture.pid, capture.stdout.readline().decode().strip(), flush=True)\n"
        "time.sleep(60)\n"
    )
    with subprocess.Popen([sys.executable, "-c", client_code], stdout=subprocess.PIPE, cwd=PROJECT_ROOT) as client:
        try:
            capture, server_pid = (int(pid) for pid in read_line(client.stdout).split())
            client.kill()
            client.wait(BOUND)
            assert gone(server_pid), f"the server (pid {server_pid}) outlived its client"
            assert gone(capture), f"capture (pid {capture}) outlived its client"
        finally:
            client.kill()
    seen = [e["event"] for e in recording(tmp_path) if e["kind"] == "lifecycle"]
    assert "client-gone" in seen
    assert ("kill" in seen) == killed
    assert seen[-1] == "exit"


def test_capture_ends_and_leaves_nothing_running_when_the_server_left_a_child_holding_its_stdout(
    tmp_path: Path,
) -> None:
    run = subprocess.run(
        capture_command(tmp_path, "sh", "-c", "sleep 60 & echo $!; exit 0"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=PROJECT_ROOT,
        timeout=BOUND,
    )
    assert run.returncode == 0
    left = int(run.stdout)
    assert gone(left, within=5.0), f"the server's child (pid {left}) outlived capture"


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        pytest.param([], "give the stdio server's command", id="no-command"),
        pytest.param(["--listen", "0", "--upstream", "http://192.0.2.1/mcp"], "not a loopback", id="remote-upstream"),
        pytest.param(["--listen", "0", "--upstream", "http://example.com/"], "not a loopback", id="named-upstream"),
        pytest.param(["--listen", "0.0.0.0:0", "--upstream", "http://127.0.0.1:9/"], "loopback", id="listen-anywhere"),
        pytest.param(["--listen", "0"], "together", id="listen-without-upstream"),
    ],
)
def test_a_bad_invocation_exits_2_saying_why(arguments: list[str], said: str, tmp_path: Path) -> None:
    run = subprocess.run(
        [*CAPTURE, "-o", str(tmp_path / "x.jsonl"), *arguments],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=BOUND,
    )
    assert run.returncode == 2
    assert said in run.stderr
    assert not list(tmp_path.iterdir())


def _chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts} | {0, len(data)})
    return [data[start:end] for start, end in itertools.pairwise(points)]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.lists(st.integers(min_value=0, max_value=300), max_size=20))
def test_the_recorders_cut_any_bytes_the_same_in_any_chunks(data: bytes, cuts: list[int]) -> None:
    """What a recorder makes of a stream never depends on how the stream was cut into chunks."""
    splitter = LineSplitter()
    lines = [line for chunk in _chunked(data, cuts) for line in splitter.feed(chunk)]
    assert [*lines, splitter.rest()] == data.split(b"\n")
    parser = SseParser()
    assert [e for chunk in _chunked(data, cuts) for e in parser.feed(chunk)] == SseParser().feed(data)


def test_lines_and_sse_events_are_cut_alike_whatever_the_chunks() -> None:
    wire = b': hello\r\nid: 7\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata: x\n\nretry: 5\r\rdata: cut'
    whole = SseParser().feed(wire)
    for size in (1, 2, 3, 7):
        parser, events = SseParser(), []
        for start in range(0, len(wire), size):
            events += parser.feed(wire[start : start + size])
        assert events == whole
    assert [(e.name, e.id, e.data, e.retry) for e in whole] == [
        ("message", "7", [b'{"a":', b"1}"], None),
        ("", None, [b"x"], None),
        ("", None, [], 5),
    ]
    splitter, lines = LineSplitter(), []
    for byte in range(len(WIRE[:200])):
        lines += splitter.feed(WIRE[byte : byte + 1])
    assert lines == WIRE[:200].split(b"\n")[:-1]


# -- Streamable HTTP ------------------------------------------------------------------------------------------

SESSION = "session-3c1f-not-for-traces"
TOKEN = "Bearer tok-not-for-traces"
INITIALIZE = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}'
INITIALIZED_RESULT = b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}'
CALL = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}'
STREAM = [  # the upstream writes each piece on its own; the SSE events cross the pieces
    b": a comment\r\n\r\nid: 7\r\nevent: message\r\ndata: ",
    b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\r\n\r\n',
    b"data: not json\n\ndata: "
    + b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"'
    + b"y" * (1 << 20)
    + b'"}}\n\n',
    b'data: {"jsonrpc":"2.0",\ndata: "id":2,"result":{"content":[]}}\n\n',
]
GET_EVENT = b'id: 9\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n'
# an OAuth flow on the MCP server's origin: a 401 (its OAuth error object), the protected resource metadata, a
# token exchange whose form and answer carry credentials
EXPIRED = "Bearer expired-not-for-traces"
UNAUTHORIZED = b'{"error":"invalid_token","error_description":"expired"}'
PROTECTED_RESOURCE_METADATA = "/.well-known/oauth-protected-resource/mcp"
METADATA = b'{"resource":"http://127.0.0.1/mcp","authorization_servers":["http://127.0.0.1"]}'
TOKEN_FORM = b"grant_type=refresh_token&refresh_token=refresh-not-for-traces"
TOKEN_ANSWER = b'{"access_token":"access-not-for-traces","token_type":"Bearer"}'
LEGACY_SESSION = "legacy-session-not-for-traces"
LEGACY_ENDPOINT = f"event: endpoint\ndata: /messages?session_id={LEGACY_SESSION}\n\n".encode()


class Upstream(BaseHTTPRequestHandler):
    """A scripted Streamable HTTP server: fixed bytes for each request, and a record of what it received."""

    protocol_version = "HTTP/1.1"
    received: list[tuple[str, str, dict[str, str], bytes]]
    stream_ended_by_client: threading.Event
    request_arrived: threading.Event

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _receive(self) -> bytes:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.received.append((self.command, self.path, headers, body))
        self.request_arrived.set()
        return body

    def _json(self, status: int, body: bytes, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        body = self._receive()
        if self.headers.get("authorization") == EXPIRED:
            self._json(401, UNAUTHORIZED, WWW_Authenticate='Bearer error="invalid_token"')
            return
        if self.path == "/token":
            self._json(200, TOKEN_ANSWER)
            return
        if self.path.startswith("/hang"):  # no answer: wait for the proxy to let go of the request
            if select.select([self.connection], [], [], BOUND)[0] and not self.connection.recv(1):
                self.stream_ended_by_client.set()
            self.close_connection = True
            return
        if self.path.startswith("/messages"):  # 2024-11-05: the answer comes on the stream
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if body == INITIALIZE:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Mcp-Session-Id", SESSION)
            self.send_header("Set-Cookie", "sid=cookie-not-for-traces")
            self.send_header("Content-Length", str(len(INITIALIZED_RESULT)))
            self.end_headers()
            self.wfile.write(INITIALIZED_RESULT)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for piece in STREAM:
            self.wfile.write(piece)
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        self._receive()
        if self.path == PROTECTED_RESOURCE_METADATA:
            self._json(200, METADATA)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write((LEGACY_ENDPOINT if self.path.startswith("/sse") else b"") + GET_EVENT)
        self.wfile.flush()
        # the stream stays open until the proxy lets go of it (the client left), or the bound
        if select.select([self.connection], [], [], BOUND)[0] and not self.connection.recv(1):
            self.stream_ended_by_client.set()
        self.close_connection = True

    def do_DELETE(self) -> None:
        self._receive()
        self.send_response(204)
        self.end_headers()


@pytest.fixture
def upstream() -> Iterator[tuple[ThreadingHTTPServer, type[Upstream]]]:
    events = {"stream_ended_by_client": threading.Event(), "request_arrived": threading.Event()}
    handler = type("RecordingUpstream", (Upstream,), {"received": [], **events})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, handler
    server.shutdown()
    server.server_close()


@contextlib.contextmanager
def proxy(upstream_url: str, output: Path, transport: str = "streamable-http") -> Iterator[int]:
    """A capture proxy in front of ``upstream_url``: its port; stopped with SIGTERM, which it must obey."""
    command = [*CAPTURE, "--listen", "0", "--upstream", upstream_url, "-o", str(output / "{session}.jsonl")]
    command += ["--transport", transport]
    with subprocess.Popen(command, stderr=subprocess.PIPE, cwd=PROJECT_ROOT) as process:
        try:
            said = read_line(process.stderr).decode()
            yield int(said.split("http://127.0.0.1:")[1].split()[0])
            process.send_signal(signal.SIGTERM)  # uvicorn stops, then ends the process by the same signal
            assert process.wait(BOUND) == -signal.SIGTERM
        finally:
            process.kill()
            process.wait(BOUND)


def exchange(
    port: int, method: str, body: bytes | None, headers: dict[str, str], target: str = "/mcp?x=1"
) -> tuple[http.client.HTTPResponse, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=BOUND)
    try:
        connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        return response, response.read()
    finally:
        connection.close()


def test_the_http_proxy_forwards_bytes_unchanged_and_records_the_session(
    upstream: tuple[ThreadingHTTPServer, type[Upstream]], tmp_path: Path
) -> None:
    server, handler = upstream
    url = f"http://127.0.0.1:{server.server_address[1]}/mcp"
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with proxy(url, tmp_path) as port:
        answer, body = exchange(port, "POST", INITIALIZE, sent | {"Authorization": TOKEN, "Cookie": "c=not-for-traces"})
        assert (answer.status, answer.getheader("mcp-session-id"), body) == (200, SESSION, INITIALIZED_RESULT)
        assert answer.getheader("set-cookie") == "sid=cookie-not-for-traces"
        in_session = sent | {"Mcp-Session-Id": SESSION, "Authorization": TOKEN}
        answer, body = exchange(port, "POST", CALL, in_session)
        assert (answer.status, body) == (200, b"".join(STREAM))
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=BOUND)
        connection.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": SESSION})
        stream = connection.getresponse()
        assert stream.readline() == GET_EVENT.split(b"\n")[0] + b"\n"
        connection.sock.shutdown(socket.SHUT_RDWR)  # the client leaves the stream
        connection.close()
        assert handler.stream_ended_by_client.wait(BOUND), "the upstream stream outlived the client's"
        answer, body = exchange(port, "DELETE", None, {"Mcp-Session-Id": SESSION})
        assert (answer.status, body) == (204, b"")
    initialize, call, get, delete = handler.received
    assert initialize[:2] == ("POST", "/mcp?x=1") and initialize[3] == INITIALIZE
    assert initialize[2]["authorization"] == TOKEN and initialize[2]["cookie"] == "c=not-for-traces"
    assert call[3] == CALL and call[2]["mcp-session-id"] == SESSION
    assert (get[0], delete[0]) == ("GET", "DELETE")

    events = recording(tmp_path)
    text = json.dumps(events)
    for secret in (SESSION, "tok-not-for-traces", "cookie-not-for-traces", "c=not-for-traces"):
        assert secret not in text
    http_events = [e for e in events if e["kind"] == "http"]
    assert [(e["method"], e.get("status")) for e in http_events] == [
        ("POST", None),
        ("POST", 200),
        ("POST", None),
        ("POST", 200),
        ("GET", None),
        ("GET", 200),
        ("DELETE", None),
        ("DELETE", 204),
    ]
    pseudonyms = {e["headers"].get("mcp-session-id") for e in http_events} - {None}
    assert len(pseudonyms) == 1 and pseudonyms.pop().startswith(PSEUDONYM_PREFIX)
    assert all(e["path"] == "/mcp?x=1" for e in http_events if e["method"] == "POST")
    assert all(not {"authorization", "cookie", "set-cookie"} & set(e["headers"]) for e in http_events), (
        "a credential header was written"
    )
    messages = [(e["direction"], e["payload"]) for e in events if e["kind"] == "message"]
    assert [payload.get("method", payload.get("id")) for _, payload in messages] == [
        "initialize",
        1,
        "tools/call",
        "notifications/progress",
        "notifications/message",
        2,
        "notifications/tools/list_changed",
    ]
    progress = next(
        e for e in events if e["kind"] == "message" and e["payload"].get("method") == "notifications/progress"
    )
    assert (progress["sse_id"], progress["sse_event"]) == ("7", "message")
    assert [e["data"] for e in lifecycle(events, "unparsable")] == ["not json"]
    assert [(e["direction"], e["by"]) for e in lifecycle(events, "stream-closed")] == [
        ("server-to-client", "server"),
        ("client-to-server", "client"),
    ]


def test_the_proxy_keeps_what_is_not_the_mcp_exchange_out_of_the_messages(
    upstream: tuple[ThreadingHTTPServer, type[Upstream]], tmp_path: Path
) -> None:
    """An OAuth flow through the proxy, on the MCP server's origin: the 401's OAuth error object, the metadata
    document and the token exchange are no JSON-RPC messages (recorded so, the validator called them broken
    ones), and the token exchange's bodies carry credentials: each is an ``http-body`` of its size only."""
    server, _ = upstream
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with proxy(f"http://127.0.0.1:{server.server_address[1]}/mcp", tmp_path) as port:
        refused, _ = exchange(port, "POST", INITIALIZE, sent | {"Authorization": EXPIRED}, "/mcp")
        metadata, _ = exchange(port, "GET", None, {"Accept": "application/json"}, PROTECTED_RESOURCE_METADATA)
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        token, answer = exchange(port, "POST", TOKEN_FORM, form, "/token")
    assert (refused.status, metadata.status, token.status, answer) == (401, 200, 200, TOKEN_ANSWER)
    events = [json.loads(line) for path in tmp_path.glob("*.jsonl") for line in path.read_text().splitlines()]
    assert not [secret for secret in ("not-for-traces",) if secret in json.dumps(events)]
    assert [e["payload"] for e in events if e["kind"] == "message"] == [json.loads(INITIALIZE)]
    assert sorted((e["direction"], e["path"], e.get("status"), e["size"]) for e in lifecycle(events, "http-body")) == [
        ("client-to-server", "/token", None, len(TOKEN_FORM)),
        ("server-to-client", PROTECTED_RESOURCE_METADATA, 200, len(METADATA)),
        ("server-to-client", "/mcp", 401, len(UNAUTHORIZED)),
        ("server-to-client", "/token", 200, len(TOKEN_ANSWER)),
    ]


# -- a real client and server -----------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "streamable-http"])
def test_a_capture_of_a_real_client_and_server_is_a_trace_the_validator_judges(transport: str, tmp_path: Path) -> None:
    """The TypeScript SDK's client and the npm "everything" server (make targets), through capture: a trace of
    the format that the validator reads and judges (exit 0 or 1, never 2 or 3), with requirements it saw."""
    try:
        recording_of = {"stdio": real.capture_stdio, "streamable-http": real.capture_streamable_http}[transport]
        recorded = recording_of(tmp_path)
    except real.NotInstalled as exc:
        pytest.skip(f"fixture-missing: {exc}")
    assert recording(tmp_path)[0]["transport"] == transport
    report = real.validate(recorded)
    assert report.returncode in (0, 1), report.stderr
    print(real.headline(report.stdout))
    totals = re.search(r"all traces: (\d+) fail, (\d+) warn, (\d+) pass", report.stdout)
    assert totals is not None, report.stdout[-2000:]
    assert int(totals.group(3)) > 0, "the validator judged no requirement on the capture"


def test_a_client_that_gives_up_on_an_answer_makes_the_proxy_give_up_on_the_upstream(
    upstream: tuple[ThreadingHTTPServer, type[Upstream]], tmp_path: Path
) -> None:
    server, handler = upstream
    with proxy(f"http://127.0.0.1:{server.server_address[1]}/mcp", tmp_path) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=BOUND)
        connection.request("POST", "/hang", body=INITIALIZE, headers={"Content-Type": "application/json"})
        assert handler.request_arrived.wait(BOUND), "the proxy did not forward the request"
        connection.sock.shutdown(socket.SHUT_RDWR)
        connection.close()
        assert handler.stream_ended_by_client.wait(BOUND), "the proxy held the upstream request after the client left"
    assert [e["method"] for e in recording(tmp_path) if e["kind"] == "http"] == ["POST"]


def test_the_proxy_records_a_2024_11_05_http_sse_session_as_one_recording(
    upstream: tuple[ThreadingHTTPServer, type[Upstream]], tmp_path: Path
) -> None:
    server, handler = upstream
    with proxy(f"http://127.0.0.1:{server.server_address[1]}/sse", tmp_path, "sse") as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=BOUND)
        connection.request("GET", "/sse", headers={"Accept": "text/event-stream"})
        stream = connection.getresponse()
        assert stream.readline() + stream.readline() + stream.readline() == LEGACY_ENDPOINT
        answer, body = exchange(
            port, "POST", INITIALIZE, {"Content-Type": "application/json"}, "/messages?session_id=" + LEGACY_SESSION
        )
        assert (answer.status, body) == (202, b"")
        connection.sock.shutdown(socket.SHUT_RDWR)
        connection.close()
        assert handler.stream_ended_by_client.wait(BOUND)
    events = recording(tmp_path)  # the POST joined the stream's recording through the session it named
    assert LEGACY_SESSION not in json.dumps(events)
    assert {e["transport"] for e in events} == {"sse"}
    (endpoint,) = lifecycle(events, "endpoint")
    posted = next(e for e in events if e["kind"] == "http" and e["method"] == "POST")
    assert endpoint["data"] == posted["path"] and endpoint["data"].startswith("/messages?session_id=pseudonym-")
    assert [e["payload"].get("method") for e in events if e["kind"] == "message"] == [
        "notifications/tools/list_changed",
        "initialize",
    ]
