"""Lifecycle: the initialize handshake, version negotiation, and 2026-07-28's ``server/discover``.

Each test holds the server under test to one requirement of docs/spec/requirements.md, at every
revision its cover claims (see coverage/lifecycle.py).
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.catalogue.vocabulary import REVISIONS
from conformance.harness import schema
from conformance.harness.frames import BOTH_TRANSPORTS, UNKNOWN_VERSION, initialize_params, modern_meta
from conformance.harness.launcher import Launcher
from conformance.harness.peer import Peer
from conformance.harness.roles import bound, optional_roles, require_role
from conformance.harness.scripted_server import SERVER_INFO, Pace, ScriptedPeer, ScriptedServer
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.timing import EARLY, Timeline, assert_waited_about, script, server_request, waited
from conformance.harness.tour import Tour, undefined_in
from conformance.harness.trace import Trace
from conformance.harness.wire import Wire, tool_call
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, SessionFactory, run_client_process
from conformance.run.tours import Judged, server_tour_for
from conformance.test_tasks import ScriptedTasks

HANDSHAKE_REVISIONS = REVISIONS[:-1]  # 2026-07-28 has no initialize handshake
RunClient = Callable[[str], ClientRun]


@for_req("lifecycle-server-initialize-result", "server", transports=BOTH_TRANSPORTS)
def test_initialize_result_is_the_revisions_initialize_result(revision: str, transport: str, peer: Peer) -> None:
    """The answer to initialize is an InitializeResult of the revision, as published: version, capabilities,
    serverInfo (members the revision does not define are the revision-keeping rows' business)."""
    response = peer.request("initialize", initialize_params(revision), check=False)
    assert "result" in response, f"initialize at {revision} was refused: {response}"
    assert {"protocolVersion", "capabilities", "serverInfo"} <= response["result"].keys()
    problems = schema.violations(revision, "InitializeResult", response["result"])
    assert not problems, "\n".join(problems)


@for_req("lifecycle-server-version-echo", "server", transports=BOTH_TRANSPORTS)
def test_initialize_echoes_a_supported_requested_version(revision: str, transport: str, peer: Peer) -> None:
    response = peer.request("initialize", initialize_params(revision), check=False)
    assert response.get("result", {}).get("protocolVersion") == revision, response


@for_req("lifecycle-server-version-alternative", "server", transports=BOTH_TRANSPORTS)
def test_initialize_with_an_unknown_version_proposes_a_supported_one(revision: str, transport: str, peer: Peer) -> None:
    response = peer.request("initialize", initialize_params(UNKNOWN_VERSION), check=False)
    assert "result" in response, f"the server refused instead of proposing a version: {response}"
    proposed = response["result"].get("protocolVersion")
    assert proposed != UNKNOWN_VERSION and proposed in REVISIONS, f"proposed {proposed!r}"


@for_req("lifecycle-discover-implemented", "server", transports=BOTH_TRANSPORTS)
def test_discover_answers_with_a_discover_result(revision: str, transport: str, peer: Peer) -> None:
    response = peer.request("server/discover", {"_meta": modern_meta(revision)}, check=False)
    assert "result" in response, f"server/discover failed: {response}"
    problems = schema.violations(revision, "DiscoverResult", response["result"])
    assert not problems, "\n".join(problems)
    assert revision in response["result"]["supportedVersions"]


@for_req("lifecycle-initialize-first", "server", transports=BOTH_TRANSPORTS)
def test_nothing_comes_from_the_server_before_its_initialize_result(revision: str, transport: str, peer: Peer) -> None:
    """Before its initialize result the server sends nothing of the operation phase. A ping, and a log
    message (which the lifecycle lets a server send before initialized), are no operation: they may come."""
    peer.send_request({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": initialize_params(revision)})
    before: list = []
    while not answers_initialize(frame := peer.receive()):
        before.append(frame)
    operation = [f for f in before if not (isinstance(f, dict) and f.get("method") in ALLOWED_BEFORE_INITIALIZE)]
    assert not operation, f"the server sent {operation} before answering initialize"


ALLOWED_BEFORE_INITIALIZE = ("ping", "notifications/message")


def answers_initialize(frame: object) -> bool:
    return isinstance(frame, dict) and frame.get("id") == "init" and "method" not in frame


@for_req("lifecycle-server-no-requests-before-initialized", "server", transports=BOTH_TRANSPORTS)
def test_no_request_from_the_server_before_initialized(revision: str, transport: str, peer: Peer) -> None:
    peer.request("initialize", initialize_params(revision), check=False)
    peer.rpc("ping", check=False)  # before notifications/initialized: only pings may cross
    requests = [f for f in peer._pending if isinstance(f, dict) and "method" in f and "id" in f]
    assert not requests, f"the server sent requests before notifications/initialized: {requests}"


@for_req("lifecycle-server-version-latest", "server")
def test_the_counter_offer_is_the_newest_version_the_server_accepts(
    revision: str, server: Peer, open_session: SessionFactory
) -> None:
    response = server.request("initialize", initialize_params(UNKNOWN_VERSION), check=False)
    proposed = response.get("result", {}).get("protocolVersion")
    assert proposed in HANDSHAKE_REVISIONS, f"proposed {proposed!r}"
    newer = [r for r in HANDSHAKE_REVISIONS if REVISIONS.index(r) > REVISIONS.index(proposed)]
    for candidate in newer:  # each probed on a session of its own
        with open_session(candidate) as probe:
            echoed = probe.request("initialize", initialize_params(candidate), check=False)
        assert echoed.get("result", {}).get("protocolVersion") != candidate, (
            f"proposed {proposed} although the server accepts the newer {candidate}"
        )


@for_req("lifecycle-use-negotiated-version-should", "server", transports=BOTH_TRANSPORTS)
def test_results_keep_to_the_negotiated_revision_should(
    revision: str, transport: str, request: pytest.FixtureRequest
) -> None:
    assert_keeps_to_the_revision(Judged(server_tour_for(request, revision, transport), request))


@for_req("lifecycle-use-negotiated-version-must", "server", transports=BOTH_TRANSPORTS)
def test_results_keep_to_the_negotiated_revision(revision: str, transport: str, request: pytest.FixtureRequest) -> None:
    assert_keeps_to_the_revision(Judged(server_tour_for(request, revision, transport), request))


def assert_keeps_to_the_revision(judged: Judged) -> None:
    """Every message the server sent in its tour (the handshake's result, every list, read, prompt,
    completion and tool result, its notifications and requests) has only members the negotiated
    revision defines: each other member is named, with its frame. The published schema's own rules
    are the schema rows' business (conformance/test_schema.py), not this one's."""
    messages = judged.messages()
    if not messages:
        judged.missing("message")
    problems = [f"{member} in {m.describe()}" for m in messages for member in undefined_in(judged.revision, m)]
    assert not problems, f"members {judged.revision} does not define:\n" + "\n".join(problems)


# -- the client side: the SDK's client through a scenario, against the scripted server of each transport --


def client_messages(server: ScriptedPeer) -> list[dict]:
    """What the client sent, JSON-RPC frames only, in order."""
    return [f for f in server.frames() if isinstance(f, dict)]


@for_req("lifecycle-initialize-first", "client", transports=BOTH_TRANSPORTS)
def test_the_client_opens_with_initialize(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    run_peer_client("initialize").require_completed()
    first = client_messages(scripted_peer)[0]
    assert first.get("method") == "initialize", f"the client opened with {first}"


@for_req("lifecycle-client-sends-initialize", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_initialize_carries_version_capabilities_and_client_info(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    run_peer_client("initialize").require_completed()
    initialize = next(f for f in client_messages(scripted_peer) if f.get("method") == "initialize")
    assert {"protocolVersion", "capabilities", "clientInfo"} <= (initialize.get("params") or {}).keys(), initialize
    assert not scripted_peer.violations, "\n".join(scripted_peer.violations)


@for_req("lifecycle-client-sends-initialized", "client", transports=BOTH_TRANSPORTS)
def test_the_client_sends_initialized_before_anything_else(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    run_peer_client("initialize").judge(lambda: check_initialized_first(scripted_peer))


def check_initialized_first(server: ScriptedPeer) -> None:
    after = [f.get("method") for f in client_messages(server)[1:]]
    assert after and after[0] == "notifications/initialized", f"after initialize the client sent {after}"


@for_req("lifecycle-client-no-requests-before-init-response", "client", transports=BOTH_TRANSPORTS)
def test_the_client_waits_for_the_initialize_result(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    run_peer_client("initialize").require_completed()
    early = scripted_peer.sent_before_answer("initialize")
    requests = [f for f in early if isinstance(f, dict) and "method" in f and "id" in f and f["method"] != "ping"]
    assert not requests, f"requests sent before the initialize result reached the client: {requests}"


@for_req("lifecycle-client-version-supported", "client", transports=BOTH_TRANSPORTS)
def test_the_client_requests_a_known_version(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    run_peer_client("initialize").require_completed()
    initialize = next(f for f in client_messages(scripted_peer) if f.get("method") == "initialize")
    assert initialize["params"].get("protocolVersion") in HANDSHAKE_REVISIONS, initialize["params"]


@for_req("lifecycle-use-negotiated-version-must", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_messages_keep_to_the_negotiated_revision(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_client_keeps_to_the_revision(run_peer_client, scripted_peer)


@for_req("lifecycle-use-negotiated-version-should", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_messages_keep_to_the_negotiated_revision_should(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_client_keeps_to_the_revision(run_peer_client, scripted_peer)


TASKS_REVISION = "2025-11-25"  # the revision that defines tasks (tasks/get, tasks/result, task-augmented calls)


def assert_client_keeps_to_the_revision(run_client: RunClient, server: ScriptedPeer) -> None:
    """Every request and notification the client sends in a session has only members the negotiated
    revision defines: each other member is named, with its frame (the published schema's own rules are
    the schema rows' business). Where tasks are defined (2025-11-25) and the scripted Streamable HTTP server
    can serve them, a second session calls its tools as a task-aware application does (``task_tool_calls``:
    a task created, polled with tasks/get, its result fetched), if the client offers that."""
    run_client("tools_call").require_completed()
    if server.revision == TASKS_REVISION and isinstance(server, ScriptedServer):
        ScriptedTasks(server)
        with contextlib.suppress(pytest.skip.Exception):  # a client that makes no task calls: the first session
            run_client("task_tool_calls").require_completed()
    messages = Tour(server.revision, "client", frames=server.frames()).messages()
    problems = [f"{member} in {m.describe()}" for m in messages for member in undefined_in(server.revision, m)]
    assert not problems, f"members {server.revision} does not define:\n" + "\n".join(problems)


# -- the client side: what it does with the handshake's result ---------------------------------------

DISCONNECT_SECONDS = 5.0  # a client that refuses the server's version ends well within this (its own bound is 10 s)


def initialize_result(revision: str, **fields: object) -> dict:
    """The scripted server's InitializeResult, with ``fields`` replaced."""
    return {"protocolVersion": revision, "capabilities": {"tools": {}}, "serverInfo": SERVER_INFO} | fields


def run_and_read(run_client: RunClient, server: ScriptedPeer, scenario: str) -> tuple[ClientRun, list[dict]]:
    """Run ``scenario``; the run, and the messages the client sent in it (a scripted HTTP server keeps
    those of earlier runs too; a scripted stdio server's record is the latest run's)."""
    before = 0 if isinstance(server, ScriptedStdio) else len(client_messages(server))
    run = run_client(scenario)
    return run, client_messages(server)[before:]


def assert_disconnects_on_unknown_version(run_client: RunClient, server: ScriptedPeer) -> None:
    """Offered a version it does not implement, the client says nothing more and ends the connection."""
    script(server, results={"initialize": initialize_result(server.revision, protocolVersion=UNKNOWN_VERSION)})
    run, messages = run_and_read(run_client, server, "initialize")
    ended = time.time()  # the record's clock; counted from the initialize, not from the client's own start-up
    asked = Timeline(server).requests("initialize")
    elapsed = ended - asked[-1].ts if asked else 0.0
    methods = [f.get("method") for f in messages]
    assert methods == ["initialize"], f"offered {UNKNOWN_VERSION}, the client went on to send {methods}"
    assert not run.completed and elapsed < DISCONNECT_SECONDS, (
        f"offered {UNKNOWN_VERSION}, the client {'completed its scenario' if run.completed else 'hung'}"
        f" ({elapsed:.1f}s):\n{run.output[-1000:]}"
    )
    if isinstance(server, ScriptedStdio):
        assert server.record.lifecycle("stdin-closed"), "the client did not close the server's stdin"


@for_req("lifecycle-client-disconnect-unsupported-protocolversion", "client", transports=BOTH_TRANSPORTS)
def test_the_client_disconnects_from_a_version_it_cannot_support(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_disconnects_on_unknown_version(run_peer_client, scripted_peer)


@for_req("lifecycle-client-disconnect-unsupported-version", "client", transports=BOTH_TRANSPORTS)
def test_the_client_disconnects_from_a_version_it_does_not_implement(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_disconnects_on_unknown_version(run_peer_client, scripted_peer)


@for_req("lifecycle-client-older-versions-protocolversion", "client", transports=BOTH_TRANSPORTS)
def test_the_client_works_with_the_servers_older_version(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The scripted server answers with its own revision, older than the client's newest where it can be:
    a client that supports that version as well goes on with the session."""
    run_peer_client("initialize").require_completed()
    messages = client_messages(scripted_peer)
    requested = messages[0].get("params", {}).get("protocolVersion")
    after = [f.get("method") for f in messages[1:]]
    assert "notifications/initialized" in after and "tools/list" in after, (
        f"requested {requested}, offered {revision}: the client then sent only {after}"
    )


@for_req("lifecycle-client-version-latest", "client")
def test_the_client_requests_the_newest_version_it_accepts(
    revision: str,
    run_client: RunClient,
    scripted_server: ScriptedServer,
    client_launcher: Launcher,
    tmp_path: Path,
) -> None:
    """Offered, each by a server of its own, every handshake revision newer than the one it requested,
    the client refuses them all: what it requested is the newest it implements."""
    run_client("initialize").require_completed()
    requested = client_messages(scripted_server)[0]["params"]["protocolVersion"]
    assert requested in HANDSHAKE_REVISIONS, f"the client requested {requested!r}"
    for newer in HANDSHAKE_REVISIONS[HANDSHAKE_REVISIONS.index(requested) + 1 :]:
        trace = Trace(tmp_path / f"probe-{newer}.jsonl", "streamable-http")
        probe = ScriptedServer(newer, trace)
        try:
            accepted = run_client_process(client_launcher, "initialize", newer, [probe.url]).completed
        finally:
            probe.close()
            trace.close()
        assert not accepted, f"the client requested {requested} although it works with the newer {newer}"


def batched_initialize(server: ScriptedPeer) -> list[Any]:
    """Every JSON-RPC batch (array) the client sent that holds its initialize request."""

    def holds_initialize(batch: list) -> bool:
        return any(isinstance(f, dict) and f.get("method") == "initialize" for f in batch)

    batches = [f for f in server.frames() if isinstance(f, list) and holds_initialize(f)]
    if isinstance(server, ScriptedServer):
        batches += [r.frames for r in server.received if r.batch and holds_initialize(r.frames)]
    return batches


@for_req("lifecycle-initialize-not-batched", "client", transports=BOTH_TRANSPORTS)
def test_the_client_sends_initialize_on_its_own(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    run_peer_client("initialize").require_completed()
    assert any(f.get("method") == "initialize" for f in client_messages(scripted_peer)), "no initialize was sent"
    batches = batched_initialize(scripted_peer)
    assert not batches, f"the client sent initialize inside a batch: {batches}"


@for_req("lifecycle-instructions-system-prompt-instructions", "client", transports=BOTH_TRANSPORTS)
def test_the_servers_instructions_reach_the_application(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The instructions of InitializeResult come to the application intact, for it to put in a system
    prompt (the driver prints them as JSON), and do not disturb the session."""
    text = f"mcp-matrix instructions {uuid.uuid4().hex}: use the echo tool for anything loud"
    script(scripted_peer, results={"initialize": initialize_result(revision, instructions=text)})
    run = run_peer_client("instructions")
    run.require_completed()
    assert f"instructions: {json.dumps(text)}" in run.output, (
        f"the instructions did not reach the application:\n{run.output}"
    )


UNDECLARED_FEATURES = ("prompts/list", "resources/list", "logging/setLevel")


def assert_client_uses_only_negotiated_features(run_client: RunClient, server: ScriptedPeer) -> None:
    """The server declares tools only; asked by its application for prompts, resources and logging, the
    client sends none of those requests."""
    script(server, results={"initialize": initialize_result(server.revision, capabilities={"tools": {}})})
    run_client("unnegotiated_features").require_completed()
    used = [f for f in client_messages(server) if f.get("method") in UNDECLARED_FEATURES and "id" in f]
    assert not used, f"the server declared only tools; the client still sent {[f['method'] for f in used]}"


@for_req("lifecycle-negotiated-capabilities-only-must", "client", transports=BOTH_TRANSPORTS)
def test_the_client_uses_only_negotiated_features(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_client_uses_only_negotiated_features(run_peer_client, scripted_peer)


@for_req("lifecycle-negotiated-capabilities-only-should", "client", transports=BOTH_TRANSPORTS)
def test_the_client_uses_only_negotiated_features_should(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_client_uses_only_negotiated_features(run_peer_client, scripted_peer)


# -- the client side: timeouts on the requests it sends ---------------------------------------------

HELD = Pace(delay=None)  # a request the scripted server never answers
SHORT_TIMEOUT = 0.5  # the driver's SHORT_TIMEOUT_SECONDS: one request's timeout
SESSION_TIMEOUT = 1.5  # the driver's SESSION_TIMEOUT_SECONDS: the session's timeout in "session_timeout"
PER_REQUEST_TIMEOUTS = (0.2, 0.8)  # the driver's PER_REQUEST_TIMEOUTS


def held_call(
    run_client: RunClient, server: ScriptedPeer, scenario: str, check: Callable[[Timeline], None], pace: Pace = HELD
) -> None:
    """Run ``scenario`` with tools/call answered as ``pace`` says; ``check`` judges the record, with times,
    before the run must have completed (``ClientRun.judge``)."""
    script(server, paces={"tools/call": pace})
    run_client(scenario).judge(lambda: check(Timeline(server)))


def assert_gives_up_at_its_timeout(run_client: RunClient, server: ScriptedPeer, scenario: str, timeout: float) -> None:
    def check(timeline: Timeline) -> None:
        call = timeline.requests("tools/call")[-1]
        assert_waited_about(waited(timeline, call), timeout, "the unanswered tools/call")
        later = timeline.next_request_after(call)
        assert later is not None, "the client sent nothing after abandoning the call"

    held_call(run_client, server, scenario, check)


@for_req("lifecycle-request-timeouts", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_requests_time_out(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Under the session's timeout (set by the application), an unanswered request is given up in time."""
    assert_gives_up_at_its_timeout(run_peer_client, scripted_peer, "session_timeout", SESSION_TIMEOUT)


@for_req("lifecycle-client-request-timeouts", "client", transports=BOTH_TRANSPORTS)
def test_the_modern_clients_requests_time_out(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_gives_up_at_its_timeout(run_peer_client, scripted_peer, "session_timeout", SESSION_TIMEOUT)


def assert_cancels_at_its_timeout(timeline: Timeline, by: str) -> None:
    """The timed-out call is cancelled ``by`` notifications/cancelled (notification) or by closing its
    response stream (stream), at its timeout, before the client goes on with its next request."""
    call = timeline.requests("tools/call")[0]
    cancellation = timeline.cancellation_of(call.payload["id"], by=(by,))
    assert cancellation is not None, f"the client never cancelled the timed-out request {call.payload['id']!r} ({by})"
    assert_waited_about(cancellation.ts - call.ts, SHORT_TIMEOUT, "the unanswered tools/call")
    later = timeline.next_request_after(call)
    assert later is not None and later.ts >= cancellation.ts - EARLY, "the client did not go on after cancelling"


@for_req("lifecycle-timeout-cancel", "client", transports=BOTH_TRANSPORTS)
def test_the_client_cancels_a_timed_out_request(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    held_call(
        run_peer_client, scripted_peer, "request_timeout", lambda t: assert_cancels_at_its_timeout(t, "notification")
    )


@for_req("lifecycle-timeout-cancel-transport", "client", transports=BOTH_TRANSPORTS)
def test_the_modern_client_cancels_a_timed_out_request_its_transports_way(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Over stdio by notifications/cancelled; over Streamable HTTP, which has no client notifications at
    2026-07-28, by closing the request's response stream."""
    by = "notification" if transport == "stdio" else "stream"
    held_call(run_peer_client, scripted_peer, "request_timeout", lambda t: assert_cancels_at_its_timeout(t, by))


def assert_own_timeouts(seconds: list[float]) -> None:
    """The waits of the PER_REQUEST_TIMEOUTS requests differ as their timeouts do: neither got the other's."""
    shorter, longer = PER_REQUEST_TIMEOUTS
    assert seconds[1] - seconds[0] >= (longer - shorter) / 2, (
        f"requests with timeouts {PER_REQUEST_TIMEOUTS} were given up after {[round(s, 2) for s in seconds]}s"
    )


def assert_per_request_timeouts(run_client: RunClient, server: ScriptedPeer) -> None:
    """Two unanswered calls, each with a timeout of its own: each is given up after its own."""

    def check(timeline: Timeline) -> None:
        calls = timeline.requests("tools/call")
        assert len(calls) == len(PER_REQUEST_TIMEOUTS), f"expected {len(PER_REQUEST_TIMEOUTS)} calls, saw {len(calls)}"
        seconds = [waited(timeline, call) for call in calls]
        for waited_for, timeout in zip(seconds, PER_REQUEST_TIMEOUTS, strict=True):
            assert_waited_about(waited_for, timeout, f"the call with a {timeout}s timeout")
        assert_own_timeouts(seconds)

    held_call(run_client, server, "per_request_timeouts", check)


@for_req("lifecycle-timeout-per-request-config", "client", transports=BOTH_TRANSPORTS)
def test_each_request_of_the_client_has_its_own_timeout(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_per_request_timeouts(run_peer_client, scripted_peer)


@for_req("lifecycle-client-timeout-per-request-config", "client", transports=BOTH_TRANSPORTS)
def test_each_request_of_the_modern_client_has_its_own_timeout(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_per_request_timeouts(run_peer_client, scripted_peer)


PROGRESS_EVERY = 0.1  # the scripted server's progress on a held call: far more often than the timeout
MAXIMUM_BOUND = SHORT_TIMEOUT + 1.0  # by then a client enforcing a maximum has given up, progress or not


def assert_maximum_timeout(run_client: RunClient, server: ScriptedPeer) -> None:
    """A call kept alive by progress every PROGRESS_EVERY seconds, never answered: the client still gives up."""

    def check(timeline: Timeline) -> None:
        call = timeline.requests("tools/call")[0]
        assert call.payload.get("params", {}).get("_meta", {}).get("progressToken") is not None, (
            "the scenario's call carries no progressToken: no progress could be sent for it"
        )
        seconds = waited(timeline, call)
        progress = [e for e in timeline.to_client("notifications/progress") if e.ts <= call.ts + seconds]
        assert len(progress) >= 2, f"only {len(progress)} progress notifications came before the client gave up"
        assert seconds <= MAXIMUM_BOUND, (
            f"with progress coming, the client waited {seconds:.2f}s (timeout {SHORT_TIMEOUT}s)"
        )

    held_call(run_client, server, "progress_timeout", check, Pace(delay=None, progress_every=PROGRESS_EVERY))


@for_req("lifecycle-timeout-maximum", "client", transports=BOTH_TRANSPORTS)
def test_progress_does_not_keep_the_clients_request_alive_forever(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_maximum_timeout(run_peer_client, scripted_peer)


@for_req("lifecycle-client-timeout-maximum", "client", transports=BOTH_TRANSPORTS)
def test_progress_does_not_keep_the_modern_clients_request_alive_forever(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_maximum_timeout(run_peer_client, scripted_peer)


SLOW_ANSWER = Pace(delay=SHORT_TIMEOUT + 0.4, progress_every=0.15)  # answered after the timeout, progress meanwhile


def assert_progress_resets_or_not(run_client: RunClient, server: ScriptedPeer) -> None:
    """A call answered after its timeout, with progress for it every 0.15 s meanwhile. A client may restart
    its clock on each (then it takes the answer) or not (then it gives up at its timeout); either way the
    progress reaches the application, and nothing is abandoned before its time."""
    script(server, paces={"tools/call": SLOW_ANSWER})
    run = run_client("progress_timeout")
    run.require_completed()
    timeline = Timeline(server)
    call = timeline.requests("tools/call")[0]
    assert "progress notifications: 0" not in run.output, "the progress for the call never reached the application"
    cancellation = timeline.cancellation_of(call.payload["id"])
    if "call answered" in run.output:  # the clock was reset
        assert cancellation is None, "the client took the answer of a call it had cancelled"
        return
    assert_waited_about(waited(timeline, call), SHORT_TIMEOUT, "the call kept alive by progress")


@for_req("lifecycle-timeout-reset-on-progress", "client", transports=BOTH_TRANSPORTS)
def test_the_client_may_restart_its_clock_on_progress(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_progress_resets_or_not(run_peer_client, scripted_peer)


@for_req("lifecycle-client-timeout-reset-on-progress", "client", transports=BOTH_TRANSPORTS)
def test_the_modern_client_may_restart_its_clock_on_progress(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_progress_resets_or_not(run_peer_client, scripted_peer)


@for_req("lifecycle-handle-error-cases", "client", transports=BOTH_TRANSPORTS)
def test_the_client_copes_with_timeouts_and_version_mismatch(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """A request that times out is given up and the session goes on; a version it cannot speak ends the
    connection promptly instead of hanging it."""
    assert_gives_up_at_its_timeout(run_peer_client, scripted_peer, "request_timeout", SHORT_TIMEOUT)
    assert_disconnects_on_unknown_version(run_peer_client, scripted_peer)


# -- the server side: features, timeouts ---------------------------------------------------------------

CLIENT_FEATURE_ROLES = ("sampling-tool", "elicitation-tool", "roots-tool")  # tools that would ask the client


def assert_server_uses_only_negotiated_features(peer: Peer) -> None:
    """A client that declares no capabilities calls the tools that need sampling, elicitation and roots:
    each call is answered, and the server sends none of those requests."""
    if not any(role in peer.roles for role in CLIENT_FEATURE_ROLES):
        pytest.skip(f"fixture-missing: target's profile maps none of {', '.join(CLIENT_FEATURE_ROLES)}")
    peer.open(capabilities={})
    tools = optional_roles(peer, *CLIENT_FEATURE_ROLES)  # a server may list them only to a client able to serve
    if not tools:
        pytest.skip(f"fixture-missing: the server lists none of the tools of {', '.join(CLIENT_FEATURE_ROLES)}")
    wire = Wire(peer)
    for tool in tools:
        call = wire.send(tool_call(peer, f"call-{tool.name}", tool.name, tool.args()))
        wire.answer(call.id)
    asked = [s.frame for s in wire.seen if "method" in s.frame and "id" in s.frame]
    assert not asked, f"the client declared no capabilities; the server still sent {asked}"


@for_req("lifecycle-negotiated-capabilities-only-must", "server", transports=BOTH_TRANSPORTS)
def test_the_server_uses_only_negotiated_features(revision: str, transport: str, peer: Peer) -> None:
    assert_server_uses_only_negotiated_features(peer)


@for_req("lifecycle-negotiated-capabilities-only-should", "server", transports=BOTH_TRANSPORTS)
def test_the_server_uses_only_negotiated_features_should(revision: str, transport: str, peer: Peer) -> None:
    assert_server_uses_only_negotiated_features(peer)


ROOTS_CAPABILITY = {"roots": {}}  # the harness declares roots: the server may ask for them


def assert_session_still_serves(peer: Peer) -> None:
    response = peer.rpc(peer.probe_method, check=False)
    assert "result" in response, f"after that, the server no longer answers {peer.probe_method}: {response}"


@for_req("lifecycle-request-timeouts", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_requests_time_out(revision: str, transport: str, peer: Peer) -> None:
    """The server's roots/list, sent with a timeout (the fixture sets it through the SDK), is left
    unanswered: the server stops waiting at its timeout, and the call that asked ends."""
    peer.open(capabilities=ROOTS_CAPABILITY)
    outcome = server_request(peer, "roots/list", SHORT_TIMEOUT)
    assert_waited_about(outcome.gave_up_after, SHORT_TIMEOUT, "the server's unanswered roots/list")
    assert outcome.response is not None and not outcome.succeeded, f"the call ended as {outcome.response}"


@for_req("lifecycle-timeout-cancel", "server", transports=BOTH_TRANSPORTS)
def test_the_server_cancels_a_timed_out_request(revision: str, transport: str, peer: Peer) -> None:
    peer.open(capabilities=ROOTS_CAPABILITY)
    outcome = server_request(peer, "roots/list", SHORT_TIMEOUT)
    assert outcome.request is not None, f"the server sent no roots/list: {outcome.response}"
    assert outcome.cancelled_at is not None, (
        f"the server never cancelled its timed-out request {outcome.request['id']!r}: {outcome.frames}"
    )
    assert_waited_about(outcome.cancelled_at - outcome.sent_at, SHORT_TIMEOUT, "the server's unanswered roots/list")
    assert_session_still_serves(peer)


@for_req("lifecycle-timeout-per-request-config", "server", transports=BOTH_TRANSPORTS)
def test_each_request_of_the_server_has_its_own_timeout(revision: str, transport: str, peer: Peer) -> None:
    peer.open(capabilities=ROOTS_CAPABILITY)
    seconds = []
    for timeout in PER_REQUEST_TIMEOUTS:
        outcome = server_request(peer, "roots/list", timeout)
        assert_waited_about(outcome.gave_up_after, timeout, f"the server's roots/list with a {timeout}s timeout")
        seconds.append(outcome.gave_up_after)
    assert_own_timeouts(seconds)


@for_req("lifecycle-timeout-maximum", "server", transports=BOTH_TRANSPORTS)
def test_progress_does_not_keep_the_servers_request_alive_forever(revision: str, transport: str, peer: Peer) -> None:
    """The harness sends progress for the server's roots/list every PROGRESS_EVERY seconds and never
    answers: the server still gives up."""
    peer.open(capabilities=ROOTS_CAPABILITY)
    outcome = server_request(peer, "roots/list", SHORT_TIMEOUT, progress_every=PROGRESS_EVERY)
    assert outcome.progress_sent >= 2, (
        f"only {outcome.progress_sent} progress notifications could be sent (does the request carry a token?)"
    )
    assert outcome.gave_up_after <= MAXIMUM_BOUND, (
        f"with progress coming, the server waited {outcome.gave_up_after:.2f}s (timeout {SHORT_TIMEOUT}s)"
    )


@for_req("lifecycle-timeout-reset-on-progress", "server", transports=BOTH_TRANSPORTS)
def test_the_server_may_restart_its_clock_on_progress(revision: str, transport: str, peer: Peer) -> None:
    """The harness answers the server's roots/list after its timeout, with progress for it every 0.15 s
    meanwhile: the server takes the answer (its clock restarted) or gave up at its timeout, not before;
    and the late answer does not disturb the session."""
    peer.open(capabilities=ROOTS_CAPABILITY)
    outcome = server_request(
        peer, "roots/list", SHORT_TIMEOUT, answer_after=SLOW_ANSWER.delay, progress_every=SLOW_ANSWER.progress_every
    )
    assert outcome.progress_sent >= 2, f"only {outcome.progress_sent} progress notifications could be sent"
    if outcome.succeeded:
        assert outcome.cancelled_at is None, "the server took the answer of a request it had cancelled"
    else:
        assert_waited_about(outcome.gave_up_after, SHORT_TIMEOUT, "the server's roots/list kept alive by progress")
        assert outcome.request is not None
        peer.send({"jsonrpc": "2.0", "id": outcome.request["id"], "result": {"roots": []}})  # the late answer
    assert_session_still_serves(peer)


@for_req("lifecycle-handle-error-cases", "server", transports=BOTH_TRANSPORTS)
def test_the_server_copes_with_timeouts_and_missing_capabilities(revision: str, transport: str, peer: Peer) -> None:
    """A request of the server that times out, and a call needing a capability the client did not declare
    (sampling), each end that call with an answer; the session goes on."""
    bound(peer, "timed-request-tool")
    bound(peer, "sampling-required-tool")
    peer.open(capabilities=ROOTS_CAPABILITY)
    outcome = server_request(peer, "roots/list", SHORT_TIMEOUT)
    assert outcome.response is not None and not outcome.succeeded, f"the timed-out call ended as {outcome.response}"
    assert_session_still_serves(peer)
    tool = require_role(peer, "sampling-required-tool")
    wire = Wire(peer)
    call = wire.send(tool_call(peer, "call-sampling", tool.name, tool.args()))
    answer = wire.answer(call.id)
    failed = "error" in answer or answer.get("result", {}).get("isError")
    assert failed, f"without the sampling capability, {tool.name} answered {answer}"
    assert_session_still_serves(peer)
