"""Transports in general: what every binding carries and how (docs/spec/requirements.md, transports).

Server cells run over every transport the server offers (``<rev>/transports/<id>@<transport>``);
client cells run the client under test against the scripted server of each transport. The rows about
custom transports bind the design of a transport of the implementer's own, which no standard binding
reaches: they are n/a (overrides/applicability-transports.yaml).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS, NON_ASCII_TEXT
from conformance.harness.http import HttpPeer
from conformance.harness.peer import ImplementationTimeout, Peer
from conformance.harness.roles import bound, require_role
from conformance.harness.scripted_server import Pace, ScriptedPeer
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.surface import text_of
from conformance.harness.wire import Wire, reports_progress, tool_call
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun
from conformance.test_cancellation import SLOW_TOOLS, check_stops_processing

RunClient = Callable[[str], ClientRun]
PROGRESS_TOKEN = "mcp-matrix-progress"
MODERN_REQUESTS = ("server/discover", "tools/list", "prompts/list", "resources/list")


def strictly_utf8(lines: list[bytes]) -> list[str]:
    """Every way the lines break UTF-8."""
    problems = []
    for line in lines:
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(f"{exc.reason} at byte {exc.start}: {line[:120]!r}")
    return problems


# -- the server --------------------------------------------------------------------------------------


@for_req("transports-jsonrpc-utf8", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_messages_are_utf8(revision: str, transport: str, peer: Peer) -> None:
    """A prompt that quotes its arguments, given text well outside ASCII: every byte the server sends is
    UTF-8, and the text comes back as it went."""
    bound(peer, "arguments-prompt")
    peer.open()
    echo = require_role(peer, "arguments-prompt")  # its text quotes its arguments
    first = next(iter(echo.arguments), None)
    if first is None:
        pytest.skip(f"fixture-missing: the profile gives {echo.name} no argument to quote")
    arguments = echo.args(**{first: NON_ASCII_TEXT})
    peer.lenient_lines = True  # a line that is not UTF-8 is this test's to judge, not the peer's to refuse
    try:
        response = peer.rpc("prompts/get", {"name": echo.name, "arguments": arguments}, check=False)
    except ImplementationTimeout:
        response = {}  # its answer may have been the line that is not UTF-8: judged first, below
    problems = strictly_utf8(peer.received_lines)
    assert not problems, "the server sent bytes that are not UTF-8:\n" + "\n".join(problems)
    assert "result" in response, f"prompts/get failed: {response}"
    texts = [m.get("content", {}).get("text", "") for m in response["result"].get("messages", [])]
    assert any(NON_ASCII_TEXT in text for text in texts), f"{NON_ASCII_TEXT!r} came back as {texts}"


def answer_or_nothing(peer: Peer, method: str) -> dict:
    """The answer to ``method``, or nothing once the bounded wait gives up: an unanswered request is the
    breach these tests judge, not a harness failure."""
    try:
        return peer.rpc(method, check=False)
    except ImplementationTimeout:
        return {}


@for_req("transports-binding-delivers-client-messages", "server", transports=BOTH_TRANSPORTS)
def test_the_clients_requests_and_notifications_reach_the_server(revision: str, transport: str, peer: Peer) -> None:
    """Each request the client sends is answered; its notification is taken: on stdio a cancellation,
    which stops the operation it names; over Streamable HTTP (where 2026-07-28 defines no client
    notification: closing a response stream cancels) the binding's delivery of one, a POST accepted
    with 202."""
    if not isinstance(peer, HttpPeer):
        for role in SLOW_TOOLS:
            bound(peer, role)
    unanswered = [m for m in MODERN_REQUESTS if "result" not in answer_or_nothing(peer, m)]
    assert not unanswered, f"requests the server did not answer: {unanswered}"
    if isinstance(peer, HttpPeer):
        notification = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "none"}}
        exchange = peer.exchange("POST", notification)
        assert exchange.status == 202, f"a POSTed notification was answered {exchange.status}"
    else:
        check_stops_processing(peer)


@for_req("transports-binding-delivers-server-messages", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_responses_and_notifications_reach_the_client(revision: str, transport: str, peer: Peer) -> None:
    """A tool that reports progress: its notifications and then its response reach the client."""
    bound(peer, "progress-tool")
    peer.open()
    tool = require_role(peer, "progress-tool")
    wire = Wire(peer)
    call = wire.send(tool_call(peer, "with-progress", tool.name, tool.args(), token=PROGRESS_TOKEN))
    try:
        response = wire.answer(call.id)
    except ImplementationTimeout as exc:
        raise AssertionError(f"the response to {tool.name} never reached the client: {exc}") from None
    assert "result" in response, f"{tool.name} failed: {response}"
    progress = [s.frame for s in wire.seen if reports_progress(s.frame, PROGRESS_TOKEN)]
    assert progress, f"no progress notification of {tool.name} reached the client (its result: {text_of(response)})"


# -- the client --------------------------------------------------------------------------------------


def tool_calls(server: ScriptedPeer) -> list[dict]:
    return [f for f in server.requests() if f.get("method") == "tools/call"]


@for_req("transports-jsonrpc-utf8", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_messages_are_utf8(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """A tool called with text well outside ASCII: what reaches the server decodes as UTF-8 to that text."""
    run = run_peer_client("non_ascii_call")
    calls = tool_calls(scripted_peer)
    assert calls, f"no tools/call reached the server ({scripted_peer.violations[:3]}):\n{run.output[-1500:]}"
    texts = [(c.get("params") or {}).get("arguments", {}).get("text") for c in calls]
    assert texts == [NON_ASCII_TEXT], f"the text {NON_ASCII_TEXT!r} reached the server as {texts}"
    if isinstance(scripted_peer, ScriptedStdio):
        garbled = [line for line in scripted_peer.record.lines() if "\ufffd" in line]
        assert not garbled, f"lines that are not UTF-8 reached the server: {garbled[:2]}"


@for_req("transports-binding-delivers-client-messages", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_binding_delivers_its_requests_and_notifications(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The requests of a session reach the server; on stdio so does the cancellation of an abandoned call
    (over Streamable HTTP, 2026-07-28 has the client send no notification: closing the stream cancels)."""
    run_peer_client("tools_call").judge(lambda: check_requests_delivered(scripted_peer))
    if isinstance(scripted_peer, ScriptedStdio):
        scripted_peer.hold.add("tools/call")
        run_peer_client("cancel").judge(lambda: check_cancellation_delivered(scripted_peer))


def check_requests_delivered(server: ScriptedPeer) -> None:
    methods = [f.get("method") for f in server.requests()]
    assert "tools/list" in methods and "tools/call" in methods, f"the server received the requests {methods}"
    assert tool_calls(server)[0]["params"].get("arguments") == {"text": "hello"}, tool_calls(server)


def check_cancellation_delivered(server: ScriptedPeer) -> None:
    sent = [f.get("method") for f in server.frames() if isinstance(f, dict) and "id" not in f]
    assert "notifications/cancelled" in sent, f"the abandoned call's cancellation never came: {sent}"


@for_req("transports-binding-delivers-server-messages", "client", transports=BOTH_TRANSPORTS)
def test_the_servers_notifications_and_response_reach_the_application(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The server answers a tool call after progress notifications: the application gets both."""
    scripted_peer.paces["tools/call"] = Pace(delay=0.3, progress_every=0.1)
    run = run_peer_client("progress_then_result")
    run.require_completed()
    tokens = [((c.get("params") or {}).get("_meta") or {}).get("progressToken") for c in tool_calls(scripted_peer)]
    assert tokens and tokens[0] is not None, f"the client's tools/call carried no progress token: {tokens}"
    said = run.output.splitlines()
    progress = [line for line in said if line.startswith("mcp-matrix: progress ")]
    results = [line for line in said if line.startswith("mcp-matrix: result ")]
    assert progress, f"no progress notification reached the application:\n{run.output[-1500:]}"
    assert results == ["mcp-matrix: result echo"], f"the response reached the application as {results}"


@for_req("transports-client-supports-stdio", "client")
def test_the_client_speaks_stdio(revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio) -> None:
    run = run_stdio_client("initialize")
    methods = [f.get("method") for f in scripted_stdio.requests()]
    assert run.completed and "tools/list" in methods, f"over stdio the client sent {methods}:\n{run.output[-1500:]}"
