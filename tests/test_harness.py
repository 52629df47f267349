"""The harness's own guarantees: bounded waits, no orphan processes, faithful traces, schema checks."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conformance.harness import schema
from conformance.harness.frames import initialize_params
from conformance.harness.launcher import CommandLauncher, SharedLauncher, WarmLauncher, process_running
from conformance.harness.peer import HarnessError, ImplementationTimeout, ProtocolViolation
from conformance.harness.scripted_stdio import MODULE as SCRIPTED_STDIO_MODULE
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.stdio import START_ALLOWANCE_SECONDS, StdioPeer
from conformance.harness.trace import Trace

PROJECT_ROOT = Path(__file__).resolve().parent.parent

SILENT_SERVER = [sys.executable, "-c", "import time; time.sleep(60)"]
GARBAGE_SERVER = [sys.executable, "-c", "import sys; sys.stdin.readline(); print('not json', flush=True); input()"]


@contextmanager
def peer_for(command: list[str], tmp_path: Path, timeout: float = 0.5) -> Iterator[StdioPeer]:
    launcher = CommandLauncher(command)
    try:
        with StdioPeer(launcher.start(), Trace(tmp_path / "t.jsonl", "stdio"), "2025-06-18", timeout=timeout) as peer:
            peer.start_allowance = 0.0  # these tests are about the bound itself (see the allowance's own test)
            yield peer
    finally:
        launcher.close()


def test_a_server_that_never_answers_fails_within_the_bound(tmp_path: Path) -> None:
    with peer_for(SILENT_SERVER, tmp_path) as peer:
        start = time.monotonic()
        with pytest.raises(ImplementationTimeout, match=r"no response to request id 1 within 0\.5s"):
            peer.request("ping")
        assert time.monotonic() - start < 2


def test_a_fresh_process_gets_its_start_up_allowance_on_the_first_wait_only(tmp_path: Path) -> None:
    launcher = CommandLauncher(SILENT_SERVER)
    try:
        with StdioPeer(launcher.start(), Trace(tmp_path / "t.jsonl", "stdio"), "2025-06-18", timeout=0.5) as peer:
            assert peer.default_bound() == 0.5 + START_ALLOWANCE_SECONDS
            peer.received_lines.append(b"{}\n")
            assert peer.default_bound() == 0.5
    finally:
        launcher.close()


def test_a_line_that_is_not_json_is_a_protocol_violation(tmp_path: Path) -> None:
    with peer_for(GARBAGE_SERVER, tmp_path, timeout=5) as peer, pytest.raises(ProtocolViolation, match="not JSON"):
        peer.request("ping")


def test_a_harness_frame_that_breaks_the_schema_is_a_harness_error(tmp_path: Path) -> None:
    with peer_for(SILENT_SERVER, tmp_path) as peer, pytest.raises(HarnessError, match="breaks the 2025-06-18 schema"):
        peer.send({"jsonrpc": "1.0", "id": 1, "method": "ping"})


def test_the_trace_records_every_frame_in_order(tmp_path: Path) -> None:
    launcher = WarmLauncher("conformance.fixtures.server")
    try:
        with StdioPeer(launcher.start(), Trace(tmp_path / "t.jsonl", "stdio"), "2025-11-25") as peer:
            peer.initialize()
            peer.request("ping")
    finally:
        launcher.close()
    events = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    messages = [(e["direction"], e["payload"].get("method", "response")) for e in events if e["kind"] == "message"]
    assert messages == [
        ("client-to-server", "initialize"),
        ("server-to-client", "response"),
        ("client-to-server", "notifications/initialized"),
        ("client-to-server", "ping"),
        ("server-to-client", "response"),
    ]
    assert all(e["transport"] == "stdio" for e in events)


def test_no_process_outlives_the_launcher() -> None:
    launcher = WarmLauncher("conformance.fixtures.server")
    children = [launcher.start().pid for _ in range(3)]
    parent = launcher._parent.pid
    assert all(process_running(pid) for pid in [parent, *children])
    launcher.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(process_running(pid) for pid in [parent, *children]):
        time.sleep(0.05)
    assert not any(process_running(pid) for pid in [parent, *children])


def test_a_shared_warm_parent_forks_for_another_process_and_its_children_die_with_their_connections() -> None:
    """The run's warm parent (started by the xdist controller) serves a worker through its relay socket: the
    fork answers on the worker's pipes; stopping it, or the worker's launcher closing, leaves nothing behind."""
    parent = WarmLauncher("conformance.fixtures.server", relays=True, ready_wait=False)
    assert parent.relay_path is not None
    worker = SharedLauncher(parent.relay_path, "conformance.fixtures.server")
    try:
        first, second = worker.start(), worker.start()
        with StdioPeer(first, Trace(Path(parent.relay_path).with_name("t.jsonl"), "stdio"), "2025-06-18") as peer:
            assert "result" in peer.request("initialize", initialize_params("2025-06-18"))
        first.stop()
        worker.close()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(process_running(p.pid) for p in (first, second)):
            time.sleep(0.02)
        assert not process_running(first.pid) and not process_running(second.pid)
    finally:
        worker.close()
        parent.close()


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params("2025-06-18")}


@pytest.fixture(scope="module")
def scripted_stdio_parent() -> Iterator[WarmLauncher]:
    launcher = WarmLauncher(SCRIPTED_STDIO_MODULE, relays=True)
    yield launcher
    launcher.close()


@pytest.mark.parametrize("ending", ["end-of-file", "SIGTERM", "SIGKILL"])
def test_a_relayed_scripted_server_stands_for_the_process_the_client_started(
    ending: str, scripted_stdio_parent: WarmLauncher, tmp_path: Path
) -> None:
    """Started through stdio_relay, the forked server answers on the client's pipes, names the client as its
    parent, gets the signals sent to the relay, ends the relay with its own status, and dies with it."""
    server = ScriptedStdio("2025-06-18", tmp_path / "record.jsonl", warm_parent=scripted_stdio_parent.relay_path)
    command = server.command()
    assert "stdio_relay" in " ".join(command)
    client = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert client.stdin and client.stdout
    client.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    client.stdin.flush()
    assert json.loads(client.stdout.readline())["id"] == 1
    if ending == "end-of-file":
        client.stdin.close()
    else:
        client.send_signal(getattr(signal, ending))
    status = client.wait(timeout=5)
    assert client.stdout.read() == b"", "the server's stdout did not end with it"
    record = server.load()
    start = record.lifecycle("start")[0]
    assert start["relay"] == client.pid and start["pid"] != client.pid
    assert not process_running(start["pid"]), "the forked server outlived its relay"
    expected = {"end-of-file": 0, "SIGTERM": 128 + signal.SIGTERM, "SIGKILL": -signal.SIGKILL}[ending]
    assert status == expected
    if ending == "SIGTERM":  # the server's own handling of it: recorded, then its exit status
        assert record.lifecycle("signal")[0]["name"] == "SIGTERM"
    if ending == "end-of-file":
        assert record.lifecycle("exit")[0]["client_alive"], "the record does not name the client as its parent"
    for stream in (client.stdin, client.stdout, client.stderr):
        stream.close()


def test_a_session_about_the_servers_own_process_gets_a_process_of_its_own(
    scripted_stdio_parent: WarmLauncher, tmp_path: Path
) -> None:
    server = ScriptedStdio("2025-06-18", tmp_path / "record.jsonl", warm_parent=scripted_stdio_parent.relay_path)
    server.linger = True  # the signals it gets, and from whom, are the test's evidence
    assert server.command()[1:3] == ["-m", SCRIPTED_STDIO_MODULE]


# A run that dies with an external server still up: the server's own child must not survive it.
DYING_RUN = """
import sys, time
from conformance.harness.launcher import CommandLauncher
server = CommandLauncher(["sh", "-c", "sleep 600 & echo $!; wait"]).start()
print(server.pid, server.stdout.readline().decode().strip(), flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "crash"])
def test_no_process_outlives_a_run_that_dies(signal_number: int) -> None:
    run = subprocess.Popen([sys.executable, "-c", DYING_RUN], stdout=subprocess.PIPE, cwd=PROJECT_ROOT)
    try:
        assert run.stdout is not None
        pids = [int(pid) for pid in run.stdout.readline().split()]
        assert len(pids) == 2 and all(process_running(pid) for pid in pids)
        run.send_signal(signal_number)
        run.wait(timeout=5)
        deadline = time.monotonic() + 5
        while any(process_running(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not [pid for pid in pids if process_running(pid)], "the server or its child outlived the run"
    finally:
        run.kill()
        run.wait(timeout=5)
        run.stdout.close()


def test_undefined_members_are_named_apart_from_the_published_check() -> None:
    """A member the revision does not define is no breach of the published definition; the closed
    check names it, by path, and nothing else: a real breach is not its business."""
    result = {
        "protocolVersion": "2024-11-05",
        "capabilities": {"completions": {}},
        "serverInfo": {"name": "x", "version": "1", "title": "T"},
    }
    assert schema.violations("2024-11-05", "InitializeResult", result) == []
    assert schema.undefined_members("2024-11-05", "InitializeResult", result) == [
        "InitializeResult: capabilities.completions",
        "InitializeResult: serverInfo.title",
    ]
    result["_meta"] = {"anything": {"goes": True}}
    result["serverInfo"].pop("title")
    result["capabilities"].pop("completions")
    assert schema.undefined_members("2024-11-05", "InitializeResult", result) == []
    result["serverInfo"]["version"] = 1  # a type breach: the published check's, not the closed one's
    assert schema.violations("2024-11-05", "InitializeResult", result)
    assert schema.undefined_members("2024-11-05", "InitializeResult", result) == []


def test_a_capabilities_extensions_member_is_an_extension_point_at_every_revision() -> None:
    """Extensions (MCP Apps among them) are negotiated in ``capabilities.extensions`` at any revision."""
    apps = {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}
    params = {"protocolVersion": "2025-06-18", "capabilities": apps, "clientInfo": {"name": "x", "version": "1"}}
    request = {"method": "initialize", "params": params}
    assert schema.undefined_members("2025-06-18", "InitializeRequest", request) == []
    params["capabilities"] = apps | {"extension": {}}
    assert schema.undefined_members("2025-06-18", "InitializeRequest", request) == [
        "InitializeRequest: params.capabilities.extension"
    ]


def test_undefined_members_inside_a_union_are_named_by_the_branch_they_fit() -> None:
    result = {"content": [{"type": "text", "text": "x", "title": "T"}], "isError": False}
    assert schema.violations("2024-11-05", "CallToolResult", result) == []
    assert schema.undefined_members("2024-11-05", "CallToolResult", result) == ["CallToolResult: content.0.title"]


def test_a_reorder_fault_holds_its_frame_back_until_the_next_frame_has_gone_by() -> None:
    from conformance.harness.faults import reorder

    fault, held = reorder("notifications/progress"), []
    progress = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n'
    response = b'{"jsonrpc":"2.0","id":7,"result":{}}\n'
    assert fault.mutate(progress, lambda frame: None, held) == []
    assert fault.mutate(response, lambda frame: None, held) == [response, progress]
    assert held == []
    assert str(fault) == "each notifications/progress frame swapped with the next frame"


def test_a_reverse_fault_keeps_the_items_and_turns_their_order_round_on_its_occurrence_only() -> None:
    from conformance.harness.faults import reverse_list

    fault, counts = reverse_list("tools/list", "result.tools", occurrence=2), {}
    answer = b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"},{"name":"b"},{"name":"c"}]}}\n'
    method_of = lambda frame: "tools/list"  # noqa: E731
    assert fault.mutate(answer, method_of, counts=counts) == [answer]
    (second,) = fault.mutate(answer, method_of, counts=counts)
    assert [tool["name"] for tool in json.loads(second)["result"]["tools"]] == ["c", "b", "a"]
    assert fault.mutate(answer, method_of, counts=counts) == [answer]
    assert str(fault) == "result.tools reversed in the answer to tools/list of its answer number 2"


def test_an_inject_frames_fault_sends_each_frame_on_its_own_line_before_its_target() -> None:
    from conformance.harness.faults import inject_frames_before

    pings = [{"jsonrpc": "2.0", "id": f"p{n}", "method": "ping"} for n in range(3)]
    fault = inject_frames_before("tools/list", pings)
    request = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'
    lines = fault.mutate(request, lambda frame: None)
    assert [json.loads(line) for line in lines[:-1]] == pings and lines[-1] == request
    assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in lines)
    other = b'{"jsonrpc":"2.0","id":2,"method":"prompts/list"}\n'
    assert fault.mutate(other, lambda frame: None) == [other]


# -- client faults sit on the wire: the scripted server reads, records and answers what they let through ------


def test_a_line_a_client_fault_leaves_without_its_newline_runs_into_the_next(tmp_path: Path) -> None:
    from conformance.harness.faults import strip_newline
    from conformance.harness.scripted_stdio import ScriptedStdio

    scripted = ScriptedStdio("2025-06-18", tmp_path / "record.jsonl", fault=strip_newline("tools/list"))
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params("2025-06-18")},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]
    stdin = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    subprocess.run(scripted.command(), input=stdin, capture_output=True, timeout=30, check=False)
    record = scripted.load()
    assert [line.count('"method"') for line in record.lines()] == [1, 1, 2]  # tools/list and ping on one line
    answered = [f.get("id") for f in (e["payload"] for e in record.messages("server-to-client"))]
    assert answered == [1, None], "the server answers the joined line with a parse error, never tools/list"


def test_a_client_message_a_fault_swallows_never_reaches_the_scripted_server(tmp_path: Path) -> None:
    from conformance.harness.faults import silence
    from conformance.harness.scripted_server import ScriptedServer

    trace = Trace(tmp_path / "t.jsonl", "streamable-http")
    server = ScriptedServer("2025-06-18", trace, fault=silence("tools/list"))
    try:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params("2025-06-18")}
        with urllib.request.urlopen(urllib.request.Request(server.url, json.dumps(init).encode(), headers)) as answer:
            headers["Mcp-Session-Id"] = answer.headers["Mcp-Session-Id"]
        listing = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode()
        with pytest.raises(TimeoutError):  # the POST waits, unanswered, as for a message lost on the way
            urllib.request.urlopen(urllib.request.Request(server.url, listing, headers), timeout=0.3)
        assert [f.get("method") for f in server.frames()] == ["initialize"]
    finally:
        server.close()
        trace.close()


def test_two_messages_a_fault_puts_in_one_post_travel_as_a_batch(tmp_path: Path) -> None:
    from conformance.harness.faults import bundled_with
    from conformance.harness.scripted_server import ScriptedServer

    extra = {"jsonrpc": "2.0", "method": "notifications/mcp-matrix/extra"}
    trace = Trace(tmp_path / "t.jsonl", "streamable-http")
    server = ScriptedServer("2026-07-28", trace, fault=bundled_with("ping", extra))
    try:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
        with urllib.request.urlopen(urllib.request.Request(server.url, ping, headers), timeout=5) as answer:
            assert json.loads(answer.read())["id"] == 1, "the client still gets its answer"
        (post,) = server.received
        assert post.batch and [f.get("method") for f in post.frames] == ["notifications/mcp-matrix/extra", "ping"]
    finally:
        server.close()
        trace.close()


# -- the page server and the fetch fault: a client's requests outside the MCP endpoint ---------------------


def test_the_page_server_records_each_request_and_each_connection_whatever_it_carried() -> None:
    import socket

    from conformance.harness.pages import OTHER, Page, PageServer, fetch_page

    pages = PageServer()
    try:
        pages.pages["/away"] = Page(status=302, headers={"Location": pages.other_url + "/landed"})
        fetch_page(pages.url + "/away", {"Cookie": "c=1"})  # redirects followed: the other origin is reached
        with socket.create_connection(("127.0.0.1", int(pages.url.rsplit(":", 1)[1]))) as raw:
            raw.sendall(b"\x16\x03\x01\x00")  # a TLS handshake's first bytes on the plain-HTTP port
        requests = pages.requests()
        assert [(r.listener, r.path) for r in requests] == [("main", "/away"), (OTHER, "/landed")]
        assert requests[0].headers["cookie"] == "c=1"
        assert [c.http for c in pages.connections()] == [True, True, False]
    finally:
        pages.close()


def test_a_fetch_fault_makes_its_request_before_the_frame_goes_on_over_both_transports(tmp_path: Path) -> None:
    from conformance.harness.faults import fetch
    from conformance.harness.pages import PageServer
    from conformance.harness.scripted_server import ScriptedServer
    from conformance.harness.scripted_stdio import ScriptedStdio

    fault = fetch("ping", "/icon.png", {"Authorization": "Bearer x"})
    trace = Trace(tmp_path / "t.jsonl", "streamable-http")
    pages = PageServer(trace)
    server = ScriptedServer("2026-07-28", trace, fault=fault)
    server.pages_url = pages.url
    try:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
        with urllib.request.urlopen(urllib.request.Request(server.url, ping, headers), timeout=5) as answer:
            assert json.loads(answer.read())["id"] == 1, "the frame itself goes on unchanged"
        scripted = ScriptedStdio("2025-06-18", tmp_path / "record.jsonl", fault=fault)
        scripted.pages_url = pages.url
        lines = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
        stdin = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        subprocess.run(scripted.command(), input=stdin, capture_output=True, timeout=30, check=False)
        assert [f.get("method") for f in scripted.load().frames()] == ["tools/list", "ping"]
        fetched = pages.fetched("/icon.png")
        assert [r.headers.get("authorization") for r in fetched] == ["Bearer x", "Bearer x"]
    finally:
        server.close()
        trace.close()
        pages.close()
    events = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    page_event = next(e["seq"] for e in events if e.get("event") == "page-request")
    assert page_event < next(e["seq"] for e in events if e["kind"] == "message"), "the fetch comes before the frame"
