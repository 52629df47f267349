"""Every legal shape accepted: the suite's own tests, run against small servers that take a path the
clause allows but the fixture never takes, pass (and fail on the shape the clause forbids)."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conformance import test_lifecycle as lifecycle  # the modules, so that their tests are not collected here again
from conformance import test_ping as ping
from conformance.harness.frames import COMPLETED
from conformance.harness.http import HttpPeer
from conformance.harness.launcher import CommandLauncher, HttpServerProcess
from conformance.harness.scripted_server import ScriptedServer
from conformance.harness.stdio import StdioPeer
from conformance.harness.trace import Trace
from conformance.run.plugin import run_client_process

REVISION = "2025-06-18"
# Reads initialize, sends BEFORE (one JSON frame a line), then answers initialize.
SPEAKS_FIRST = """
import json, sys
request = json.loads(sys.stdin.readline())
for line in sys.argv[1:]:
    print(line, flush=True)
version = request["params"]["protocolVersion"]
result = {"protocolVersion": version, "capabilities": {"logging": {}}, "serverInfo": {"name": "s", "version": "1"}}
print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
sys.stdin.readline()
"""
LOG = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "starting"}}
PING = {"jsonrpc": "2.0", "id": "server-ping", "method": "ping"}
ANNOUNCEMENT = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


@contextmanager
def server_saying_first(frames: list[dict], tmp_path: Path) -> Iterator[StdioPeer]:
    launcher = CommandLauncher([sys.executable, "-c", SPEAKS_FIRST, *map(json.dumps, frames)])
    try:
        with StdioPeer(launcher.start(), Trace(tmp_path / "t.jsonl", "stdio"), REVISION) as peer:
            yield peer
    finally:
        launcher.close()


def test_a_server_that_logs_and_pings_before_its_initialize_result_passes(tmp_path: Path) -> None:
    with server_saying_first([LOG, PING], tmp_path) as peer:
        lifecycle.test_nothing_comes_from_the_server_before_its_initialize_result(REVISION, "stdio", peer)


def test_a_server_that_announces_a_change_before_its_initialize_result_fails(tmp_path: Path) -> None:
    with (
        server_saying_first([LOG, ANNOUNCEMENT], tmp_path) as peer,
        pytest.raises(AssertionError, match="list_changed"),
    ):
        lifecycle.test_nothing_comes_from_the_server_before_its_initialize_result(REVISION, "stdio", peer)


def test_an_answer_that_comes_on_the_resumed_stream_is_taken(tmp_path: Path) -> None:
    """At 2025-11-25 a server may end a request's stream after an event id and answer on the stream the
    client resumes (SEP-1699): the fixture's reconnection tool does; the harness resumes and is answered."""
    command = [sys.executable, "-m", "conformance.fixtures.server", "--transport", "streamable-http", "--port", "0"]
    server = HttpServerProcess(command, log=tmp_path / "server.log")
    try:
        with HttpPeer(server.url, Trace(tmp_path / "t.jsonl", "streamable-http"), "2025-11-25") as peer:
            peer.open()
            response = peer.rpc("tools/call", {"name": "test_reconnection", "arguments": {}}, check=False)
            assert "result" in response, response
            assert [e.method for e in peer.exchanges[-2:]] == ["POST", "GET"], "answered on a resumed GET"
    finally:
        server.close()


# A client of few words, over Streamable HTTP: initializes, pings once, and when the ping is not answered
# within its timeout treats the connection as broken and leaves (which the ping rules allow).
LEAVES_AFTER_A_FAILED_PING = """
import json, sys, urllib.request
url = sys.argv[-1]
session = None
def post(frame, timeout=5.0):
    global session
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}
    if session:
        headers["Mcp-Session-Id"] = session
    request = urllib.request.Request(url, json.dumps(frame).encode(), headers)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        session = response.headers.get("Mcp-Session-Id") or session
        return response.read()
params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "leaver", "version": "1"}}
post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
post({"jsonrpc": "2.0", "method": "notifications/initialized"})
try:
    post({"jsonrpc": "2.0", "id": 2, "method": "ping"}, timeout=0.5)
except OSError:
    print("ping timed out: the connection is broken, leaving", file=sys.stderr)
print("COMPLETED")
"""


def test_a_client_that_leaves_after_one_failed_ping_passes(tmp_path: Path) -> None:
    """The scenario offers two unanswered pings; a client that gives the connection up after the first
    is within the rules (it may treat a failed ping as a broken connection)."""
    trace = Trace(tmp_path / "t.jsonl", "streamable-http")
    server = ScriptedServer("2025-06-18", trace)
    script = LEAVES_AFTER_A_FAILED_PING.replace("COMPLETED", COMPLETED)
    launcher = CommandLauncher([sys.executable, "-c", script])
    try:
        run = functools.partial(run_client_process, launcher, revision="2025-06-18", argv=[server.url])
        ping.assert_carries_on_or_resets(run, server, "ping_failures", 2)
    finally:
        launcher.close()
        server.close()
        trace.close()
