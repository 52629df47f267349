"""stdio: the framing and the discipline of each side's pipes, and the shutdown and back-compatibility rules
(docs/spec/requirements.md, stdio). Server cells meet the server under test; client cells run the client
under test against the scripted stdio server it launches (conformance/harness/scripted_stdio.py)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from conformance.harness.launcher import process_running
from conformance.harness.peer import HarnessError, ImplementationTimeout, Peer
from conformance.harness.roles import bound, require_role, require_roles
from conformance.harness.schema import violations
from conformance.harness.scripted_stdio import ScriptedStdio, StdioRecord
from conformance.harness.stdio import StdioPeer
from conformance.harness.wire import Wire, answers, reports_progress, tool_call
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun
from conformance.test_cancellation import SLOW_TOOLS, check_stops_processing, outcome, slow_operation

EXIT_SECONDS = 2.0


def short_session(server: Peer) -> None:
    """A few exchanges that make any server write several frames."""
    server.open()
    server.rpc(server.probe_method, check=False)
    server.rpc("tools/list", check=False)


@for_req("stdio-newline-delimited", "server")
def test_every_message_on_stdout_ends_with_a_newline(revision: str, server: Peer) -> None:
    short_session(server)
    unterminated = [line for line in server.received_lines if not line.endswith(b"\n")]
    assert not unterminated, f"messages without their newline: {unterminated[:3]}"


LOST_ANSWER_SECONDS = 1.0  # how long an answer is awaited that may have been a line the peer passed over


def lines_of_a_short_session(server: Peer) -> list[bytes]:
    """The lines a short session makes the server write, as they came. A line that is not JSON is kept
    for the test to judge, not refused by the peer; the answer it may have been is then not awaited."""
    server.lenient_lines = True
    server.open()
    for method in (server.probe_method, "tools/list"):
        request = server.envelope(method, server.next_id())
        server.send_request(request)
        with contextlib.suppress(ImplementationTimeout):  # a late answer only leaves fewer lines to judge
            server.expect_response(request["id"], timeout=LOST_ANSWER_SECONDS)
    return server.received_lines


@for_req("stdio-no-embedded-newlines", "server")
def test_no_message_spans_several_lines(revision: str, server: Peer) -> None:
    for line in lines_of_a_short_session(server):
        assert b"\n" not in line.rstrip(b"\n"), f"a message spans lines: {line[:200]!r}"
        try:
            json.loads(line)
        except ValueError:  # a message split over lines leaves lines that are not JSON
            raise AssertionError(f"a line that is no whole message (one split over lines?): {line[:200]!r}") from None


@for_req("stdio-server-stdout-only-mcp", "server")
def test_stdout_carries_only_mcp_messages(revision: str, server: Peer) -> None:
    for line in lines_of_a_short_session(server):
        try:
            frame = json.loads(line)
        except json.JSONDecodeError:
            raise AssertionError(f"stdout carried a line that is not an MCP message: {line[:200]!r}") from None
        problems = violations(revision, "JSONRPCMessage", frame)
        assert not problems, f"stdout carried {line[:200]!r}: " + "; ".join(problems)


@for_req("stdio-server-exit-on-stdin-eof", "server")
def test_the_server_exits_when_its_stdin_closes(revision: str, server: Peer) -> None:
    short_session(server)
    server.process.stdin.close()
    deadline = time.monotonic() + EXIT_SECONDS
    while time.monotonic() < deadline and process_running(server.process.pid):
        time.sleep(0.02)
    assert not process_running(server.process.pid), f"still running {EXIT_SECONDS:g}s after its stdin closed"


# -- the client side: the SDK's client over stdio, launching the scripted stdio server ---------------

RunClient = Callable[[str], ClientRun]
MODERN = "2026-07-28"
LEGACY_SERVER = "2025-11-25"  # the server a dual-era client meets when its probe is refused
# What legacy servers answer a request they do not know before initialize: no one code.
LEGACY_PROBE_ERRORS = (-32601, -32602, -32600, -32603, -32000)
WIND_DOWN_SECONDS = 0.2  # how long the scripted server takes to exit once its stdin closes


def judge_client_session(
    run_stdio_client: RunClient, scripted_stdio: ScriptedStdio, check: Callable[[StdioRecord], None]
) -> None:
    """A session of a few requests, so that the client writes several lines; ``check`` judges its record
    before the run must have completed (``ClientRun.judge``): a line the server cannot read stalls the
    exchange, and the line is the evidence."""
    run = run_stdio_client("tools_call")
    run.judge(lambda: check(scripted_stdio.record))


def parsed(line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        raise AssertionError(f"the client wrote a line that is not one JSON message: {line[:200]!r}") from None


def check_lines_end_with_a_newline(record: StdioRecord) -> None:
    unterminated = [line for line in record.lines() if not line.endswith("\n")]
    assert not unterminated, f"messages without their newline: {unterminated[:3]}"


def check_each_line_is_one_message(record: StdioRecord) -> None:
    for line in record.lines():
        parsed(line)  # a message split over lines leaves lines that are not JSON


def check_only_mcp_messages(record: StdioRecord, revision: str) -> None:
    for line in record.lines():
        problems = violations(revision, "JSONRPCMessage", parsed(line))
        assert not problems, f"the server's stdin carried {line[:200]!r}: " + "; ".join(problems)


def check_no_responses(record: StdioRecord) -> None:
    messages = [m for f in record.frames() for m in (f if isinstance(f, list) else [f])]
    responses = [m for m in messages if not (isinstance(m, dict) and "method" in m)]
    assert not responses, f"the client wrote responses: {responses}"


@for_req("stdio-newline-delimited", "client")
def test_every_message_on_the_servers_stdin_ends_with_a_newline(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    judge_client_session(run_stdio_client, scripted_stdio, check_lines_end_with_a_newline)


@for_req("stdio-no-embedded-newlines", "client")
def test_no_client_message_spans_several_lines(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    judge_client_session(run_stdio_client, scripted_stdio, check_each_line_is_one_message)


@for_req("stdio-client-stdin-only-mcp", "client")
def test_the_servers_stdin_carries_only_mcp_messages(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    judge_client_session(run_stdio_client, scripted_stdio, lambda record: check_only_mcp_messages(record, revision))


@for_req("stdio-client-no-responses", "client")
def test_a_modern_client_writes_no_responses(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    judge_client_session(run_stdio_client, scripted_stdio, check_no_responses)


@for_req("stdio-client-cancel-notification", "client")
def test_a_cancellation_names_the_request_it_cancels(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    scripted_stdio.hold.add("tools/call")  # never answered: the client gives up on it
    run_stdio_client("cancel").require_completed()
    held = [event["id"] for event in scripted_stdio.record.lifecycle("held")]
    assert held, "the client never sent the tools/call it was to cancel"
    frames = scripted_stdio.frames()
    cancels = [f for f in frames if isinstance(f, dict) and f.get("method") == "notifications/cancelled"]
    assert cancels, "the client abandoned its tools/call without sending notifications/cancelled"
    named = [(f.get("params") or {}).get("requestId") for f in cancels]
    assert held[0] in named, f"the cancellation names {named}; the request in flight was {held[0]!r}"


@for_req("stdio-client-shutdown-close-stdin", "client")
def test_the_client_shuts_down_by_closing_stdin_and_waiting(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    scripted_stdio.wind_down = WIND_DOWN_SECONDS
    run_stdio_client("initialize").require_completed()
    record = scripted_stdio.record
    signals = record.lifecycle("signal")
    assert not signals, f"the client signalled the server ({signals[0]['name']}) before it could exit on its own"
    closed = record.lifecycle("stdin-closed")
    assert closed and closed[0]["client_alive"], "the client never closed the server's stdin: it only exited"
    exits = record.lifecycle("exit")
    assert exits and exits[0]["client_alive"], (
        f"the client did not wait for the server to exit ({WIND_DOWN_SECONDS:g}s after its stdin closed)"
    )


@for_req("stdio-client-shutdown-force-kill", "client")
def test_a_server_that_outstays_its_stdin_is_killed(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    scripted_stdio.linger = True  # the server ignores the end of its stdin
    run = run_stdio_client("initialize")
    assert run.completed, f"the client did not finish its scenario with a server that stays:\n{run.output[-2000:]}"
    record = scripted_stdio.record
    client = record.lifecycle("start")[0]["parent"]
    signals = [s for s in record.lifecycle("signal") if s["client_alive"] and s["sender"] == client]
    assert signals, "the server outstayed its closed stdin and the client never killed it"


@for_req("stdio-client-stderr-not-error", "client")
def test_stderr_output_is_not_taken_for_a_failure(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    scripted_stdio.stderr_chatter = True  # an "ERROR" log line on stderr before every answer
    run = run_stdio_client("tools_call")
    assert run.completed, f"the client failed a session whose server only logged on stderr:\n{run.output[-2000:]}"


def assert_probes_with_discover_first(scripted_stdio: ScriptedStdio) -> None:
    """The client's first request is server/discover, naming a modern version in its _meta."""
    requests = scripted_stdio.requests()
    assert requests, "the client sent no request"
    first = requests[0]
    assert first.get("method") == "server/discover", f"the client's first request was {first.get('method')!r}"
    meta = (first.get("params") or {}).get("_meta") or {}
    assert meta.get("io.modelcontextprotocol/protocolVersion") == MODERN, f"the probe's _meta: {meta}"


@for_req("stdio-backcompat-probe-discover", "client")
def test_a_dual_era_client_probes_with_discover_first(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    run_stdio_client("initialize").require_completed()
    assert_probes_with_discover_first(scripted_stdio)


@for_req("stdio-backcompat-modern-only-probe", "client")
def test_a_modern_only_client_probes_with_discover_first(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    run_stdio_client("modern_only").require_completed()
    assert_probes_with_discover_first(scripted_stdio)


@for_req("stdio-backcompat-fallback-not-single-code", "client")
def test_any_legacy_refusal_of_the_probe_leads_to_initialize(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    scripted_stdio.revision = LEGACY_SERVER
    stranded = []
    for code in LEGACY_PROBE_ERRORS:  # one session each, the probe refused with that code
        scripted_stdio.errors = {"server/discover": code}
        run_stdio_client("initialize")
        methods = [f["method"] for f in scripted_stdio.requests()]
        if "server/discover" not in methods:
            pytest.skip("fixture-missing: the client does not probe with server/discover (not a dual-era client)")
        if "initialize" not in methods[methods.index("server/discover") :]:
            stranded.append(code)
    assert not stranded, f"after server/discover was refused with {stranded} the client did not fall back to initialize"


# -- the server: its stderr, ending the session itself, and 2026-07-28's message rules ------------------

# A notifications/cancelled whose params the revision's schema refuses: what servers drop, and may log.
MALFORMED_CANCELLATION = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"not":"an id"}}}'
INPUT_ROLES = ("sampling-tool", "elicitation-tool", "roots-tool")  # tools that needed the client's input
INPUT_CAPABILITIES = {"sampling": {}, "elicitation": {}, "roots": {}}


@for_req("stdio-server-stderr-logging", "server")
def test_what_the_server_logs_on_stderr_is_utf8_text(revision: str, server: StdioPeer) -> None:
    """What the server writes on stderr (here: whatever it logs about a notification it drops) is UTF-8,
    and the session goes on over stdout meanwhile."""
    short_session(server)
    server.send_raw(MALFORMED_CANCELLATION + b"\n")
    assert "result" in server.rpc(server.probe_method, check=False), "the session stopped after the notification"
    logged = server.stderr_bytes(at_least=1)
    if not logged:
        pytest.skip("fixture-missing: the server wrote nothing on stderr (it logs nothing there)")
    try:
        logged.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AssertionError(f"stderr carried bytes that are not UTF-8 ({exc.reason}): {logged[:200]!r}") from None


@for_req("stdio-server-may-initiate-shutdown", "server")
def test_a_server_ending_the_session_closes_stdout_and_exits(revision: str, server: StdioPeer) -> None:
    """The tool of role ``session-ender`` (the fixture's ``test_end_session``) makes the server end the
    session itself; it must then close its stdout (end of file on the client's side) and exit, while the
    client keeps stdin open."""
    bound(server, "session-ender")
    server.open()
    ender = require_role(server, "session-ender")
    server.send_request(tool_call(server, "end", ender.name, ender.args()))
    deadline = time.monotonic() + EXIT_SECONDS
    closed = server.stdout_ended.wait(EXIT_SECONDS)
    while time.monotonic() < deadline and process_running(server.process.pid):
        time.sleep(0.02)
    alive = process_running(server.process.pid)
    assert closed and not alive, (
        f"{EXIT_SECONDS:g}s after it ended the session, the server's stdout is "
        f"{'closed' if closed else 'still open'} and the process {'still runs' if alive else 'has exited'}"
    )


@for_req("stdio-server-no-requests", "server")
def test_a_modern_server_writes_no_requests(revision: str, server: StdioPeer) -> None:
    """The calls that needed the client's input before 2026-07-28 (sampling, elicitation, roots), by a
    client able to give it: what comes back on stdout are responses and notifications only."""
    for role in INPUT_ROLES:
        bound(server, role)
    server.open()
    meta = {"io.modelcontextprotocol/clientCapabilities": INPUT_CAPABILITIES}
    for tool in require_roles(server, *INPUT_ROLES):
        server.rpc("tools/call", {"name": tool.name, "arguments": tool.args(), "_meta": meta}, check=False)
    Wire(server).settle()
    frames = [json.loads(line) for line in server.received_lines]
    requests = [f for f in frames if isinstance(f, dict) and "method" in f and "id" in f]
    assert not requests, f"the server wrote requests on stdout: {requests[:3]}"


@for_req("stdio-server-silent-after-cancel", "server")
def test_nothing_more_comes_for_a_cancelled_request(revision: str, server: StdioPeer) -> None:
    """After the cancellation, a request sent behind it is answered: whatever the server sends after that
    answer it sent knowing of the cancellation, and none of it may be for the cancelled request (its
    response, an error, a progress notification)."""
    for role in SLOW_TOOLS:
        bound(server, role)
    wire = Wire(server)
    call, run_id = slow_operation(server, wire)
    wire.cancel(call)
    marker = wire.send(server.envelope(server.probe_method, "behind-the-cancellation"))
    wire.answer(marker.id)
    outcome(server, run_id)  # the cancelled run is over: anything it still had to send is on its way
    wire.settle()
    after = next(i for i, seen in enumerate(wire.seen) if answers(seen.frame, marker.id))
    token = call.frame["params"]["_meta"]["progressToken"]
    late = [s.frame for s in wire.seen[after + 1 :] if answers(s.frame, call.id) or reports_progress(s.frame, token)]
    assert not late, f"after handling the cancellation the server still sent for the request: {late}"


@for_req("stdio-server-stop-cancelled-work", "server")
def test_a_cancelled_request_is_abandoned_promptly(revision: str, server: StdioPeer) -> None:
    check_stops_processing(server)


# -- the client: the server's stderr, subscriptions on one channel, a server that dies -----------------

STDERR_FLOOD = 256 * 1024  # bytes of log text: several times what a pipe holds


@for_req("stdio-client-stderr-handling", "client")
def test_the_client_copes_with_whatever_the_server_logs_on_stderr(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The server logs far more on stderr than a pipe holds before it answers anything: a client that
    captures, forwards or discards it lets the server go on; one that leaves it in a pipe nobody drains
    leaves the server blocked and the session stalled."""
    scripted_stdio.stderr_flood = STDERR_FLOOD
    run = run_stdio_client("tools_call")
    record = scripted_stdio.record
    assert record.lifecycle("stderr-flood"), "the server never got past writing its log on stderr"
    answered = [e["payload"] for e in record.messages("server-to-client") if "result" in e["payload"]]
    assert run.completed and len(answered) >= 2, (
        f"with {STDERR_FLOOD} bytes on the server's stderr the session stalled:\n{run.output[-2000:]}"
    )


@for_req("stdio-client-correlate-subscription-notifications", "client")
def test_a_notification_reaches_the_subscription_it_names(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """Two subscriptions with the same filter on the one stdio channel; the server sends one change
    notification stamped with the second's id: only that subscription may deliver it."""
    scripted_stdio.listen = 2
    run = run_stdio_client("two_subscriptions")
    run.require_completed()
    listens = [f["id"] for f in scripted_stdio.requests() if f.get("method") == "subscriptions/listen"]
    stamped = [
        e["payload"]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
        for e in scripted_stdio.record.messages("server-to-client")
        if e["payload"].get("method") == "notifications/tools/list_changed"
    ]
    delivered = run.report("delivered")  # subscription id -> the event it delivered to the application
    if len(stamped) != 1 or stamped[0] not in listens or delivered is None:
        raise HarnessError(f"the scenario did not go as scripted: listens {listens}, stamps {stamped}:\n{run.output}")
    expected = {str(listen): "ToolsListChanged" if listen == stamped[0] else None for listen in listens}
    assert delivered == expected, f"subscriptions delivered {delivered}; stamped for {stamped[0]!r}: {expected}"


@for_req("stdio-client-restart-crashed-server", "client")
def test_a_server_that_dies_is_launched_again(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    scripted_stdio.crash_after = "tools/list"  # the server exits abruptly once it has answered tools/list
    run = run_stdio_client("outlive_crash")
    crashed = scripted_stdio.record.lifecycle("crash")
    if not crashed:
        raise HarnessError(f"the scripted server did not die as planned:\n{run.output[-2000:]}")
    restarts = scripted_stdio.restarts()
    assert restarts, f"the server died and the client did not launch it again:\n{run.output[-1500:]}"
