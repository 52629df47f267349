"""Cancellation, server side: what the server does with a cancelled request, and what it cancels itself
(docs/spec/requirements.md, cancellation).

A request is cancelled the way its revision and transport say (C-15): by ``notifications/cancelled``,
except on Streamable HTTP at 2026-07-28, where closing the request's response stream is the signal.
The tool of role ``slow-tool`` (the fixture's ``test_cancellable_operation``) works in 50 ms steps, so
that a cancellation lands while it runs, and ``cancellation-outcome-tool`` (the fixture's
``test_cancellable_operation_outcome``) tells how a run ended: once its response stream is closed,
nothing else shows whether the server stopped. ``Wire`` keeps every frame the server sends
in order, with the requests of either side still in flight when it came.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

import pytest

from conformance.catalogue.vocabulary import TRANSPORT_REVISIONS
from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.http import HttpPeer
from conformance.harness.peer import ImplementationTimeout, Peer, precondition
from conformance.harness.roles import bound, require_roles
from conformance.harness.scripted_server import MODERN, Pace, ScriptedPeer, ScriptedServer, StreamScript
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.stdio import StdioPeer
from conformance.harness.timing import Event, Timeline, script
from conformance.harness.wire import (
    QUIET_SECONDS,
    REASON,
    Call,
    Seen,
    Wire,
    answers,
    cancel,
    cancels,
    is_response,
    params_of,
    reports_progress,
    tool_call,
)
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, SessionFactory

SLOW_STEPS = 40  # 2 s of the fixture's work: an ignored cancellation shows as a run that completed
SLOW_TOOLS = ("slow-tool", "cancellation-outcome-tool")


# -- a slow operation, cancelled ------------------------------------------------------------------


def slow_operation(peer: Peer, wire: Wire | None = None, steps: int = SLOW_STEPS) -> tuple[Call, str]:
    """Start the slow tool and wait until it is under way (its first progress notification)."""
    for role in SLOW_TOOLS:
        bound(peer, role)
    peer.open()
    slow, _ = require_roles(peer, *SLOW_TOOLS)
    wire = wire or Wire(peer)
    run_id = f"run-{uuid.uuid4().hex}"
    call = wire.send(tool_call(peer, "slow-op", slow.name, slow.args(run_id=run_id, steps=steps), token="slow-op"))
    first = wire.until(
        lambda f: answers(f, call.id) or reports_progress(f, "slow-op"),
        "progress notification of the slow operation",
    )
    assert not is_response(first), f"the operation ended before it could be cancelled: {first}"
    return call, run_id


def outcome(peer: Peer, run_id: str) -> str:
    """How the run ended, once it has (the fixture's outcome tool waits up to 3 s for that)."""
    tool = bound(peer, "cancellation-outcome-tool")
    response = peer.rpc("tools/call", {"name": tool.name, "arguments": tool.args(run_id=run_id)}, check=False)
    assert "result" in response, f"{tool.name} failed: {response}"
    return " ".join(item.get("text", "") for item in response["result"].get("content", []))


def check_stops_processing(peer: Peer) -> None:
    call, run_id = slow_operation(peer)
    cancel(call)
    ended = outcome(peer, run_id)
    assert ended.startswith("cancelled"), f"cancelled after its first step, the operation ended {ended!r}"


def check_no_response(peer: Peer) -> None:
    call, run_id = slow_operation(peer)
    cancel(call)
    outcome(peer, run_id)  # the operation is over: an answer to it, if any, is on its way
    try:
        answer = peer.expect_response(call.id, timeout=QUIET_SECONDS)
    except ImplementationTimeout:
        return
    raise AssertionError(f"the server answered the request it was told to cancel: {answer}")


@for_req("cancellation-receiver-stop-processing", "server", transports=BOTH_TRANSPORTS)
def test_a_cancelled_request_stops_being_processed(revision: str, transport: str, peer: Peer) -> None:
    check_stops_processing(peer)


@for_req("cancellation-server-stop-processing", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_server_stops_processing_a_cancelled_request(revision: str, transport: str, peer: Peer) -> None:
    check_stops_processing(peer)


@for_req("cancellation-receiver-no-response", "server")
def test_a_cancelled_request_gets_no_response(
    revision: str, request: pytest.FixtureRequest, open_session: SessionFactory
) -> None:
    """Over stdio and, where the revision has it, Streamable HTTP, in one cell: the SDK fails this over
    HTTP only (F-010) and a gap holds a whole cell, so each cell's test tries both transports."""
    if revision not in TRANSPORT_REVISIONS["streamable-http"]:
        check_no_response(request.getfixturevalue("server"))
        return
    with open_session(revision) as stdio:
        check_no_response(stdio)
    check_no_response(request.getfixturevalue("http_server"))


@for_req("cancellation-server-no-response", "server")
def test_a_modern_server_does_not_answer_a_cancelled_request(revision: str, server: Peer) -> None:
    """stdio only: on Streamable HTTP a 2026-07-28 client cancels by closing the response stream, after
    which no answer can reach it; that transport's own rule is a streamable-http row (C-17)."""
    check_no_response(server)


@for_req("cancellation-log-reasons", "server")
def test_the_server_logs_the_reason_of_a_cancellation(revision: str, server: StdioPeer) -> None:
    """stdio only: a server's log is its stderr there; over HTTP the suite does not see the server's log."""
    call, run_id = slow_operation(server)
    reason = f"mcp-matrix reason {uuid.uuid4().hex}"
    cancel(call, reason)
    outcome(server, run_id)  # the cancellation has been handled
    if reason not in server.stderr:
        Wire(server).settle()  # stderr is read by a thread of its own: give it a bounded moment
    assert reason in server.stderr, f"the reason {reason!r} is nowhere in the server's stderr:\n{server.stderr[-2000:]}"


# -- cancellations the server receives out of turn --------------------------------------------------

INVALID_CANCELLATIONS: tuple[dict | None, ...] = (
    None,  # no params at all
    {},  # no requestId
    {"requestId": {"not": "an id"}},
    {"requestId": True},
    {"requestId": "mcp-matrix-unknown-request", "reason": REASON},
)


@for_req("cancellation-ignore-invalid", "server", transports=BOTH_TRANSPORTS)
def test_invalid_cancellations_are_ignored(revision: str, transport: str, peer: Peer) -> None:
    peer.open()
    finished = peer.rpc(peer.probe_method, check=False)
    posted = len(peer.exchanges) if isinstance(peer, HttpPeer) else 0
    for params in (*INVALID_CANCELLATIONS, {"requestId": finished["id"]}):
        peer.notify("notifications/cancelled", params)
    if isinstance(peer, HttpPeer):
        refused = [e.status for e in peer.exchanges[posted:] if not 200 <= e.status < 300]
        assert not refused, f"the server refused cancellations with HTTP {refused}"
    wire = Wire(peer)
    probe = wire.send(peer.envelope(peer.probe_method, "probe"))
    answer = wire.answer(probe.id)
    assert "result" in answer, f"after the invalid cancellations the server answered {answer}"
    wire.settle()
    errors = [s.frame for s in wire.seen if is_response(s.frame) and s.frame["id"] != "probe"]
    assert not errors, f"the server answered cancellations it had to ignore: {errors}"


@for_req("cancellation-race-graceful", "server", transports=BOTH_TRANSPORTS)
def test_a_cancellation_that_crosses_the_response_does_no_harm(revision: str, transport: str, peer: Peer) -> None:
    bound(peer, "simple-tool")
    peer.open()
    (quick,) = require_roles(peer, "simple-tool")
    wire = Wire(peer)
    finished = wire.send(tool_call(peer, "race-after", quick.name, quick.args()))
    wire.answer(finished.id)
    cancel(finished)  # the request is over and its response went out
    racing = wire.send(tool_call(peer, "race-during", quick.name, quick.args()))
    cancel(racing)  # the cancellation crosses the request
    probe = wire.send(tool_call(peer, "probe", quick.name, quick.args()))
    answer = wire.answer(probe.id)
    assert "result" in answer and not answer["result"].get("isError"), f"then a tool call was answered {answer}"
    wire.settle()
    raced = [s.frame for s in wire.seen if is_response(s.frame) and s.frame["id"] == racing.id]
    assert len(raced) <= 1, f"the racing request was answered {len(raced)} times: {raced}"
    assert all("result" in f or "error" in f for f in raced), raced


# -- the cancellations the server sends ---------------------------------------------------------------


def sampling_cancelled(peer: Peer) -> Wire:
    """Before 2026-07-28: the server asks for sampling during a tool call, and the call is cancelled."""
    bound(peer, "sampling-tool")
    peer.open({"sampling": {}})
    (sampling,) = require_roles(peer, "sampling-tool")
    wire = Wire(peer)
    call = wire.send(tool_call(peer, "sampling-call", sampling.name, sampling.args()))
    asked = wire.until(lambda f: "id" in f and ("method" in f or f["id"] == call.id), "sampling request")
    if is_response(asked):
        pytest.skip(f"fixture-missing: {sampling.name} sent the client no request ({asked})")
    wire.cancel(call)
    wire.answer(wire.send(peer.envelope("ping", "probe")).id)
    wire.settle()
    return wire


def open_listen(peer: Peer, wire: Wire) -> Call:
    """At 2026-07-28: open a subscriptions/listen stream and wait for its acknowledgement."""
    listen = wire.send(peer.envelope("subscriptions/listen", "listen", {"notifications": {"toolsListChanged": True}}))
    first = wire.until(
        lambda f: f.get("method") == "notifications/subscriptions/acknowledged" or is_response(f), "acknowledgement"
    )
    if is_response(first):
        pytest.skip(f"fixture-missing: the server does not serve subscriptions/listen ({first})")
    return listen


def end_listen(peer: Peer, wire: Wire, listen: Call) -> str:
    """Have the server tear the stream down; how it ended it: ``cancelled``, ``response`` or ``closed``."""
    ender = bound(peer, "subscription-ender")
    wire.answer(wire.send(tool_call(peer, "end", ender.name, ender.args())).id)

    def ends(frame: dict) -> bool:
        return answers(frame, listen.id) or cancels(frame, listen.id)

    try:
        last = next((s.frame for s in wire.seen if ends(s.frame)), None) or wire.until(ends, "end of the stream")
    except ImplementationTimeout:
        if listen.stream is not None and listen.stream.ended.is_set():
            return "closed"
        raise
    return "response" if is_response(last) else "cancelled"


def listen_torn_down(peer: Peer) -> Wire:
    """At 2026-07-28: a subscription stream, a tool call cancelled mid-way, then the stream torn down."""
    for role in (*SLOW_TOOLS, "subscription-ender"):
        bound(peer, role)
    peer.open()
    require_roles(peer, *SLOW_TOOLS, "subscription-ender")
    wire = Wire(peer)
    listen = open_listen(peer, wire)
    call, _ = slow_operation(peer, wire, steps=4)
    wire.cancel(call)
    end_listen(peer, wire, listen)
    wire.settle()
    return wire


def server_cancellations(peer: Peer) -> Wire:
    return listen_torn_down(peer) if peer.stateless else sampling_cancelled(peer)


def cancellations_seen(wire: Wire) -> list[Seen]:
    """The server's cancellations in the scenario; none leaves the requirement unexercised, not met."""
    seen = wire.notifications("notifications/cancelled")
    if not seen:
        pytest.skip("fixture-missing: the server sent no notifications/cancelled in this scenario")
    return seen


def check_cancellations_in_flight(wire: Wire) -> None:
    """Every notifications/cancelled names a request in flight when it came: the server's own before
    2026-07-28, a client's (a subscriptions/listen) at 2026-07-28."""
    for seen in cancellations_seen(wire):
        named = params_of(seen.frame).get("requestId")
        in_flight = seen.client_requests if wire.peer.stateless else seen.server_requests
        assert named in in_flight, (
            f"{seen.frame} names no request in flight (in flight then: {sorted(map(repr, in_flight))})"
        )


@for_req("cancellation-reference-own-inflight-request", "server", transports=BOTH_TRANSPORTS)
def test_the_server_cancels_only_its_own_requests_in_flight(revision: str, transport: str, peer: Peer) -> None:
    check_cancellations_in_flight(sampling_cancelled(peer))


@for_req("cancellation-target-in-flight-cancellednotification", "server", transports=BOTH_TRANSPORTS)
def test_the_server_cancels_requests_still_in_flight(revision: str, transport: str, peer: Peer) -> None:
    check_cancellations_in_flight(server_cancellations(peer))


@for_req("cancellation-request-id-for-non-task-requestid", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_cancellations_carry_a_request_id(revision: str, transport: str, peer: Peer) -> None:
    for seen in cancellations_seen(sampling_cancelled(peer)):
        assert "requestId" in params_of(seen.frame), f"a cancellation without requestId: {seen.frame}"


@for_req("cancellation-sender-ignore-late-response", "server", transports=BOTH_TRANSPORTS)
def test_the_server_ignores_a_late_answer_to_a_request_it_cancelled(revision: str, transport: str, peer: Peer) -> None:
    wire = sampling_cancelled(peer)
    cancelled = [params_of(s.frame).get("requestId") for s in wire.notifications("notifications/cancelled")]
    if not cancelled:
        pytest.skip("fixture-missing: the server cancelled none of its requests when its tool call was cancelled")
    late = {"role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "mcp-matrix"}
    peer.send({"jsonrpc": "2.0", "id": cancelled[0], "result": late})
    answer = wire.answer(wire.send(peer.envelope("ping", "after-late")).id)
    assert "result" in answer, f"after the late answer the server answered a ping with {answer}"
    wire.settle()
    replies = [s.frame for s in wire.seen if is_response(s.frame) and s.frame["id"] not in wire.sent]
    assert not replies, f"the server answered the late response: {replies}"


@for_req("cancellation-reference-client-request", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_server_cancels_only_client_requests_in_flight(revision: str, transport: str, peer: Peer) -> None:
    check_cancellations_in_flight(listen_torn_down(peer))


@for_req("cancellation-server-sent-only-subscriptions", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_server_cancels_only_subscription_streams(revision: str, transport: str, peer: Peer) -> None:
    wire = listen_torn_down(peer)
    listens = {request_id for request_id, request in wire.sent.items() if request["method"] == "subscriptions/listen"}
    for seen in cancellations_seen(wire):
        named = params_of(seen.frame).get("requestId")
        assert named in listens, f"{seen.frame} names no subscriptions/listen request (those were {sorted(listens)})"


@for_req("cancellation-server-subscription-teardown", "server", transports=BOTH_TRANSPORTS)
def test_a_torn_down_subscription_stream_is_ended_for_its_client(revision: str, transport: str, peer: Peer) -> None:
    """C-16: on stdio a notifications/cancelled or a successful subscriptions/listen response ends the
    stream; on Streamable HTTP closing the stream ends it too. A cancellation naming another request fails."""
    bound(peer, "subscription-ender")
    peer.open()
    require_roles(peer, "subscription-ender")
    wire = Wire(peer)
    listen = open_listen(peer, wire)
    ending = end_listen(peer, wire, listen)
    wire.settle()
    if ending == "response":
        answer = next(s.frame for s in wire.seen if is_response(s.frame) and s.frame["id"] == listen.id)
        assert "result" in answer, f"the stream ended with an error, not a teardown: {answer}"
    for seen in cancellations_seen(wire):
        named = params_of(seen.frame).get("requestId")
        assert named == listen.id, f"at teardown the server cancelled {named!r}, not the stream {listen.id!r}"


# -- a task-augmented request of the server (2025-11-25) -------------------------------------------------

TASK_CLIENT = {"sampling": {}, "tasks": {"requests": {"sampling": {"createMessage": {}}}}}
CLIENT_TASK_ID = "mcp-matrix-client-task"


def client_task(now: str = "2026-01-01T00:00:00Z") -> dict:
    """The CreateTaskResult with which the harness, as a client, takes the server's request as a task."""
    return {
        "task": {
            "taskId": CLIENT_TASK_ID,
            "status": "working",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttl": 300000,
            "pollInterval": 1000,
        }
    }


@for_req("cancellation-tasks-use-tasks-cancel", "server", transports=BOTH_TRANSPORTS)
def test_the_server_cancels_its_task_augmented_requests_with_tasks_cancel(
    revision: str, transport: str, peer: Peer
) -> None:
    """The server asks for sampling as a task, the harness takes it as a task (CreateTaskResult), then the
    tool call that asked is cancelled: the server may cancel the client's task, with tasks/cancel, and never
    sends notifications/cancelled for its task-augmented request."""
    bound(peer, "task-sampling-tool")
    peer.open(TASK_CLIENT)
    (tool,) = require_roles(peer, "task-sampling-tool")
    wire = Wire(peer)
    call = wire.send(tool_call(peer, "task-sampling-call", tool.name, tool.args()))
    asked = wire.until(lambda f: "id" in f and ("method" in f or f["id"] == call.id), "request of the server")
    if is_response(asked) or not isinstance(params_of(asked).get("task"), dict):
        pytest.skip(f"fixture-missing: {tool.name} sent no task-augmented request ({asked})")
    peer.send({"jsonrpc": "2.0", "id": asked["id"], "result": client_task()})
    wire.cancel(call)
    wire.settle()
    wrong = [s.frame for s in wire.notifications("notifications/cancelled") if cancels(s.frame, asked["id"])]
    assert not wrong, f"the server cancelled its task-augmented {asked['method']} with notifications/cancelled: {wrong}"


# -- the client side: a call the client abandons, cancellations it receives ------------------------------
#
# The client under test (the SDK's through the driver's scenarios, conformance/fixtures/client.py) calls a
# tool that the scripted server holds, with progress every PROGRESS_EVERY seconds; at the first progress the
# application abandons the call (``cancel_on_progress``, ``concurrent_progress``): an event, not a clock,
# decides when. Up to 2025-11-25, and over stdio at 2026-07-28, a client cancels with notifications/cancelled;
# over Streamable HTTP at 2026-07-28 by closing the call's response stream (C-15), where no notification
# is sent, so the rows about the notification leave that pair out (``NOTIFIED``).

PROGRESS_EVERY = 0.05  # the held call's progress: the first comes at once, and makes the client abandon it
HELD_WITH_PROGRESS = Pace(delay=None, progress_every=PROGRESS_EVERY)
# Held until the client cancels it, then answered all the same: a response that arrives after the cancellation.
ANSWERED_LATE = Pace(delay=None, progress_every=PROGRESS_EVERY, answer_on_cancel=True)
NOTIFIED = {MODERN: ("streamable-http",)}  # 2026-07-28 over HTTP: cancelled by closing the stream, no notification
LISTED_TOOLS = ["echo"]  # the scripted server's tools/list, as the driver reports it
RunClient = Callable[[str], ClientRun]


def client_cancellations(timeline: Timeline) -> list[Event]:
    """The client's notifications/cancelled; none leaves a row about them unexercised, not met."""
    sent = [e for e in timeline.from_client() if e.payload.get("method") == "notifications/cancelled"]
    if not sent:
        pytest.skip("fixture-missing: the client sent no notifications/cancelled for the call it abandoned")
    return sent


def abandoned(run_client: RunClient, server: ScriptedPeer, check: Callable[[Timeline], None], pace: Pace) -> ClientRun:
    """Run ``cancel_on_progress`` with tools/call answered as ``pace`` says; ``check`` judges the record
    before the run must have completed (``ClientRun.judge``)."""
    script(server, paces={"tools/call": pace})
    run = run_client("cancel_on_progress")
    run.judge(lambda: check(Timeline(server)))
    return run


def check_cancels_only_its_requests_in_flight(timeline: Timeline) -> None:
    """Each notifications/cancelled of the client names a request the client itself sent earlier (the same
    direction) and that was still in flight then: not answered yet."""
    sent: set[str] = set()
    answered: set[str] = set()
    cancellations = {id(e) for e in client_cancellations(timeline)}
    for event in timeline.events:
        if event.kind != "message" or not isinstance(event.payload, dict):
            continue
        frame = event.payload
        key = json.dumps(frame.get("id"))
        if event.direction == "client-to-server" and "method" in frame and "id" in frame:
            sent.add(key)
        elif event.direction == "server-to-client" and "method" not in frame and "id" in frame:
            answered.add(key)
        if id(event) in cancellations:
            named = json.dumps(params_of(frame).get("requestId"))
            assert named in sent, f"{frame} names no request the client sent (it sent {sorted(sent)})"
            assert named not in answered, f"{frame} names a request already answered"


@for_req("cancellation-reference-own-inflight-request", "client", transports=BOTH_TRANSPORTS)
def test_the_client_cancels_only_its_own_requests_in_flight(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    abandoned(run_peer_client, scripted_peer, check_cancels_only_its_requests_in_flight, HELD_WITH_PROGRESS)


@for_req("cancellation-reference-client-request", "client", transports=BOTH_TRANSPORTS, not_over=NOTIFIED)
def test_the_modern_client_cancels_only_its_own_requests_in_flight(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    abandoned(run_peer_client, scripted_peer, check_cancels_only_its_requests_in_flight, HELD_WITH_PROGRESS)


@for_req("cancellation-target-in-flight-cancellednotification", "client", transports=BOTH_TRANSPORTS, not_over=NOTIFIED)
def test_the_client_cancels_requests_still_in_flight(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    abandoned(run_peer_client, scripted_peer, check_cancels_only_its_requests_in_flight, HELD_WITH_PROGRESS)


def check_request_ids(timeline: Timeline) -> None:
    for event in client_cancellations(timeline):
        assert "requestId" in params_of(event.payload), f"a cancellation without requestId: {event.payload}"


@for_req("cancellation-request-id-for-non-task-requestid", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_cancellations_carry_a_request_id(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    abandoned(run_peer_client, scripted_peer, check_request_ids, HELD_WITH_PROGRESS)


@for_req("cancellation-client-signals-cancel", "client", transports=BOTH_TRANSPORTS)
def test_the_modern_client_signals_the_call_it_abandons(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Over stdio by notifications/cancelled naming the call; over Streamable HTTP, where the page's transport
    section makes it the signal (C-15), by closing the call's response stream."""
    by = ("notification",) if transport == "stdio" else ("stream",)

    def check(timeline: Timeline) -> None:
        call = timeline.requests("tools/call")[0]
        signal = timeline.cancellation_of(call.payload["id"], by=by)
        assert signal is not None, f"the client abandoned {call.payload} without signalling it ({by[0]})"

    abandoned(run_peer_client, scripted_peer, check, HELD_WITH_PROGRESS)


# -- responses after the cancellation: ignored, and no harm done ------------------------------------------


def check_late_answer_ignored(run: ClientRun, timeline: Timeline) -> None:
    """The call was answered after the client had cancelled it; the application never got that answer (the
    call reads as abandoned, or failed), the client sent nothing in reply to it, and the next request got
    its own answer, not the late one."""
    call = timeline.requests("tools/call")[0]
    cancellation = timeline.cancellation_of(call.payload["id"], by=("notification",))
    if cancellation is None or not timeline.answered(call):
        pytest.skip("fixture-missing: no answer to the call came after the client's cancellation of it")
    calls = run.report("calls")
    assert isinstance(calls, dict), f"the driver reported no calls: {run.output[-1000:]}"
    got = calls.get("abandoned")
    assert isinstance(got, str) and got != "answered", f"the application was handed the late answer: {got!r}"
    assert calls.get("after") == LISTED_TOOLS, f"the request after the late answer got {calls.get('after')!r}"
    replies = [e.payload for e in timeline.from_client() if "method" not in e.payload and e.ts >= cancellation.ts]
    assert not replies, f"the client answered the late response: {replies}"


def answer_late(server: ScriptedPeer) -> None:
    """tools/call answered only once the client has cancelled it. Over HTTP the client's next request (its
    tools/list) waits (bounded) for that late answer, which the call's response stream then still carries:
    the client cannot end the session first. Over stdio the late answer goes out as the cancellation is read."""
    script(server, paces={"tools/call": ANSWERED_LATE})
    if isinstance(server, ScriptedServer):

        def call_settled() -> bool:
            timeline = Timeline(server)
            calls = timeline.requests("tools/call")
            return not calls or timeline.answered(calls[0])

        server.gates["tools/list"] = call_settled


def late_answer(run_client: RunClient, server: ScriptedPeer) -> None:
    answer_late(server)
    run = run_client("cancel_on_progress")
    run.judge(lambda: check_late_answer_ignored(run, Timeline(server)))


@for_req("cancellation-sender-ignore-late-response", "client", transports=BOTH_TRANSPORTS)
def test_the_client_ignores_a_late_answer_to_a_request_it_cancelled(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    late_answer(run_peer_client, scripted_peer)


@for_req("cancellation-client-ignore-late-response", "client", transports=BOTH_TRANSPORTS, not_over=NOTIFIED)
def test_the_modern_client_ignores_a_late_answer_to_a_request_it_cancelled(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    late_answer(run_peer_client, scripted_peer)


@for_req("cancellation-race-graceful", "client", transports=BOTH_TRANSPORTS, not_over=NOTIFIED)
def test_the_client_copes_with_an_answer_crossing_its_cancellation(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The call's answer comes after the client cancelled it (as when the two cross on the wire): the client
    takes either outcome for the call, and goes on; its next request is answered as its own."""
    answer_late(scripted_peer)
    run = run_peer_client("cancel_on_progress")

    def check() -> None:
        timeline = Timeline(scripted_peer)
        call = timeline.requests("tools/call")[0]
        if not timeline.answered(call):
            pytest.skip("fixture-missing: the call's answer never crossed the client's cancellation")
        calls = run.report("calls")
        assert isinstance(calls, dict), f"the driver reported no calls: {run.output[-1000:]}"
        assert isinstance(calls.get("abandoned"), str), f"the crossed call's outcome: {calls.get('abandoned')!r}"
        assert calls.get("after") == LISTED_TOOLS, f"after the crossing, tools/list gave {calls.get('after')!r}"

    run.judge(check)


# -- cancellations the client receives that name nothing it can cancel ------------------------------------

# Sent by the scripted server before it answers the client's first tools/list: malformed, or naming a
# request that was never issued.
INVALID_FOR_THE_CLIENT = [
    {"jsonrpc": "2.0", "method": "notifications/cancelled"},
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}},
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": {"not": "an id"}}},
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "mcp-matrix-never-issued"}},
]


@for_req("cancellation-ignore-invalid", "client", transports=BOTH_TRANSPORTS)
def test_the_client_ignores_invalid_cancellations(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Invalid cancellations reach the client while it waits for its tools/list: it answers none of them
    (no error), and goes on to call the tool it listed."""
    if isinstance(scripted_peer, ScriptedStdio):
        scripted_peer.push["tools/list"] = list(INVALID_FOR_THE_CLIENT)
    else:
        assert isinstance(scripted_peer, ScriptedServer)
        scripted_peer.streams["tools/list"] = StreamScript(events=list(INVALID_FOR_THE_CLIENT))
    run = run_peer_client("tools_call")

    def check() -> None:
        frames = [f for f in scripted_peer.frames() if isinstance(f, dict)]
        replies = [f for f in frames if "method" not in f]  # the scripted server asked the client nothing
        assert not replies, f"the client answered cancellations it had to ignore: {replies}"
        assert any(f.get("method") == "tools/call" for f in frames), "the client did not go on to call the tool"

    run.judge(check)


# -- initialize is never cancelled ---------------------------------------------------------------------------

LOG_DURING_HANDSHAKE = {
    "jsonrpc": "2.0",
    "method": "notifications/message",
    "params": {"level": "info", "logger": "mcp-matrix", "data": "still initializing"},
}


@for_req("cancellation-initialize-not-cancellable", "client", transports=BOTH_TRANSPORTS)
def test_the_client_never_cancels_its_initialize_request(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The scripted server holds initialize, sending only a log message meanwhile (which a server may send
    before its result); at that message the application gives up connecting (``abandoned_handshake``): the
    client abandons the handshake without a notifications/cancelled for it."""
    script(scripted_peer, paces={"initialize": Pace(delay=None, notify_first=(LOG_DURING_HANDSHAKE,))})
    run = run_peer_client("abandoned_handshake")

    def check() -> None:
        initialize = [f for f in scripted_peer.requests() if f.get("method") == "initialize"]
        precondition(bool(initialize), "the client sent no initialize request")
        precondition(run.report("handshake") == "abandoned", f"the handshake was not abandoned: {run.output[-500:]}")
        named = {json.dumps(f["id"]) for f in initialize}
        cancelled = [
            f
            for f in scripted_peer.frames()
            if isinstance(f, dict)
            and f.get("method") == "notifications/cancelled"
            and json.dumps(params_of(f).get("requestId")) in named
        ]
        assert not cancelled, f"the client cancelled its initialize request: {cancelled}"

    run.judge(check)


# -- a request of the server that the client is working on, cancelled -----------------------------------------

SAMPLING_PARAMS = {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello"}}], "maxTokens": 16}


def cancelled_sampling(run_client: RunClient, server: ScriptedPeer, reason: str) -> ClientRun:
    """Before 2026-07-28: during the client's tool call the scripted server asks for sampling and cancels that
    request at once (with ``reason``), while the host is still at work on it (``cancelled_sampling``)."""
    ask = Pace(
        delay=0.0,
        ask=("sampling/createMessage",),
        ask_params={"sampling/createMessage": SAMPLING_PARAMS},
        cancel_asks=reason,
    )
    script(server, paces={"tools/call": ask})
    return run_client("cancelled_sampling")


def sampling_requests(server: ScriptedPeer) -> list[dict]:
    timeline = Timeline(server)
    return [e.payload for e in timeline.to_client("sampling/createMessage") if "id" in e.payload]


@for_req("cancellation-receiver-no-response", "client", transports=BOTH_TRANSPORTS)
def test_the_client_does_not_answer_a_request_the_server_cancelled(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    run = cancelled_sampling(run_peer_client, scripted_peer, REASON)

    def check() -> None:
        asked = sampling_requests(scripted_peer)
        precondition(bool(asked), "the scripted server sent no sampling request")
        named = {json.dumps(request["id"]) for request in asked}
        answers = [
            f
            for f in scripted_peer.frames()
            if isinstance(f, dict) and "method" not in f and json.dumps(f.get("id")) in named
        ]
        assert not answers, f"the client answered the request the server had cancelled: {answers}"

    run.judge(check)


@for_req("cancellation-receiver-stop-processing", "client", transports=BOTH_TRANSPORTS)
def test_the_client_stops_processing_a_request_the_server_cancelled(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The server's sampling request reaches the host, whose model takes 2 s; the server cancels it at once.
    The host (the driver's sampling callback, as the server half's outcome tool) tells how its work ended:
    the client stops it (``cancelled``) rather than let it run to its answer. Freeing the resources tied to
    the request, the clause's other half, shows on no wire."""
    run = cancelled_sampling(run_peer_client, scripted_peer, REASON)

    def check() -> None:
        precondition(bool(sampling_requests(scripted_peer)), "the scripted server sent no sampling request")
        ended = run.report("sampling")
        precondition(ended is not None, f"the driver did not say how the host's sampling ended:\n{run.output[-1000:]}")
        if ended == "never asked":
            pytest.skip("fixture-missing: the cancellation came before the client asked its host: nothing under way")
        assert ended == "cancelled", f"the host's work on the cancelled sampling request ended {ended!r}"

    run.judge(check)


def assert_reason_logged(run: ClientRun, reason: str) -> None:
    assert reason in run.output, f"the reason {reason!r} is nowhere in the client's output:\n{run.output[-2000:]}"


@for_req("cancellation-log-reasons", "client", transports=BOTH_TRANSPORTS, not_over=NOTIFIED)
def test_the_client_logs_the_reason_of_a_cancellation(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The server cancels, with a reason, its sampling request (before 2026-07-28) or the client's
    subscriptions/listen (2026-07-28, over stdio, where a server's cancellation tears a subscription down);
    the host logs everything the client logs (at debug level, on stderr): the reason is among it."""
    reason = f"mcp-matrix reason {uuid.uuid4().hex}"
    if revision != MODERN:
        run = cancelled_sampling(run_peer_client, scripted_peer, reason)
    else:
        assert isinstance(scripted_peer, ScriptedStdio)
        scripted_peer.listen, scripted_peer.cancel_listen = 1, reason
        run = run_peer_client("cancelled_subscription")

    def check() -> None:
        sent = Timeline(scripted_peer).to_client("notifications/cancelled")
        precondition(bool(sent), f"the scripted server had nothing of the client's to cancel: {run.output[-500:]}")
        assert_reason_logged(run, reason)

    run.judge(check)


# -- a task-augmented request the client abandons (2025-11-25) -----------------------------------------------


@for_req("cancellation-tasks-use-tasks-cancel", "client")
def test_the_client_cancels_its_task_augmented_request_with_tasks_cancel(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The scripted server plays a receiver of task-augmented tools/call (``ScriptedTasks`` of test_tasks.py);
    the application calls the tool whose taskSupport is required as a task and abandons it once the task
    exists (``cancel_task``): the client may cancel it with tasks/cancel, and never names the task-augmented
    tools/call in a notifications/cancelled."""
    from conformance.test_tasks import ScriptedTasks

    ScriptedTasks(scripted_server)
    run = run_client("cancel_task")

    def check() -> None:
        augmented = [
            f
            for f in scripted_server.requests()
            if f.get("method") == "tools/call" and isinstance(params_of(f).get("task"), dict)
        ]
        if not augmented:
            pytest.skip("fixture-missing: the client made no task-augmented tools/call to abandon")
        named = {json.dumps(f["id"]) for f in augmented}
        wrong = [
            f
            for f in scripted_server.frames()
            if isinstance(f, dict)
            and f.get("method") == "notifications/cancelled"
            and json.dumps(params_of(f).get("requestId")) in named
        ]
        assert not wrong, f"the client cancelled its task-augmented tools/call with notifications/cancelled: {wrong}"

    run.judge(check)
