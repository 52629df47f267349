"""Ping: a ping is answered promptly with an empty result, and what either side does about its own
pings: how often it sends them, how long it waits for them, and what a failed one leads to
(docs/spec/requirements.md, ping).

A client's pings are seen by the scripted server of either transport; a server's own pings are made
by the fixture's ``test_timed_request`` tool through the SDK (the SDK never pings on its own), and
answered late or not at all by the harness (conformance/harness/timing.py).
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from pathlib import Path

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import ImplementationTimeout, Peer, ProtocolViolation
from conformance.harness.scripted_server import Pace, ScriptedPeer
from conformance.harness.stdio import StdioPeer
from conformance.harness.timing import (
    EARLY,
    LATE,
    Event,
    ServerRequest,
    Timeline,
    assert_waited_about,
    script,
    server_request,
    waited,
)
from conformance.harness.trace import Trace
from conformance.harness.wire import Wire, answers
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, ConfiguredServer

RunClient = Callable[[str], ClientRun]

PROMPT_SECONDS = 1.0  # "promptly": well inside the harness's own bound, far above a healthy answer


@for_req("ping-respond-promptly-empty", "server")
def test_a_ping_is_answered_promptly_with_an_empty_result(revision: str, server: Peer) -> None:
    server.open()
    start = time.monotonic()
    response = server.rpc("ping", check=False)
    elapsed = time.monotonic() - start
    assert response.get("result") == {}, f"ping was answered with {response}"
    assert elapsed < PROMPT_SECONDS, f"ping took {elapsed:.2f}s"


# -- the client answers the server's ping --------------------------------------------------------------


@for_req("ping-respond-promptly-empty", "client", transports=BOTH_TRANSPORTS)
def test_the_client_answers_a_ping_promptly_with_an_empty_result(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The scripted server pings the client in the middle of a tool call (before answering it)."""
    script(scripted_peer, paces={"tools/call": Pace(ask=("ping",))})
    run_peer_client("tools_call").require_completed()
    timeline = Timeline(scripted_peer)
    pings = timeline.to_client("ping")
    assert pings, "the scripted server sent no ping (harness)"
    answer = next((e for e in timeline.from_client() if answers(e.payload, pings[0].payload["id"])), None)
    assert answer is not None, "the client never answered the server's ping"
    assert answer.payload.get("result") == {}, f"the client answered the ping with {answer.payload}"
    assert answer.ts - pings[0].ts < PROMPT_SECONDS, f"the client took {answer.ts - pings[0].ts:.2f}s to answer"


# -- how often a client pings ----------------------------------------------------------------------------

IDLE_SECONDS = 1.0  # the driver's IDLE_SECONDS: how long the idle scenarios keep the connection open
KEEPALIVE_INTERVAL = 0.2  # the driver's KEEPALIVE_INTERVAL_SECONDS: the interval "keepalive" asks for
MAX_PINGS_PER_SECOND = 1.0  # more often than this, pinging an idle connection is excessive by any measure


def client_pings(run_client: RunClient, server: ScriptedPeer, scenario: str) -> list[Event]:
    run_client(scenario).require_completed()
    return Timeline(server).requests("ping")


def assert_pings_at(pings: list[Event], interval: float, who: str) -> None:
    """At least two pings over the idle time, one every ``interval`` seconds."""
    assert len(pings) >= 2, f"told to ping every {interval}s, {who} sent {len(pings)} pings in {IDLE_SECONDS}s idle"
    gaps = [later.ts - earlier.ts for earlier, later in itertools.pairwise(pings)]
    assert all(interval - EARLY <= gap <= interval + LATE / 3 for gap in gaps), (
        f"told to ping every {interval}s, {who} pinged at intervals of {[round(g, 2) for g in gaps]}"
    )


@for_req("ping-periodic", "client", transports=BOTH_TRANSPORTS)
def test_the_client_pings_an_idle_connection(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Set to ping every KEEPALIVE_INTERVAL seconds (the "keepalive" scenario), the client pings again and again."""
    pings = client_pings(run_peer_client, scripted_peer, "keepalive")
    assert len(pings) >= 2, f"told to ping every {KEEPALIVE_INTERVAL}s, the client sent {len(pings)} pings"


@for_req("ping-frequency-configurable", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_ping_interval_is_the_one_set(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_pings_at(client_pings(run_peer_client, scripted_peer, "keepalive"), KEEPALIVE_INTERVAL, "the client")


@for_req("ping-avoid-excessive", "client", transports=BOTH_TRANSPORTS)
def test_the_client_does_not_ping_excessively(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Left to its defaults on an idle connection ("idle"), the client pings at most once a second."""
    pings = client_pings(run_peer_client, scripted_peer, "idle")
    assert len(pings) <= IDLE_SECONDS * MAX_PINGS_PER_SECOND, f"{len(pings)} pings in {IDLE_SECONDS}s idle"


# -- what a client does when its ping goes unanswered ------------------------------------------------------

PING_TIMEOUT = 0.5  # the driver's SHORT_TIMEOUT_SECONDS: the timeout of the scenarios' pings
SLOW_NETWORK_TIMEOUTS = (1.0, 0.15)  # the driver's: a generous ping timeout, then a tight one
SLOW_PING = Pace(delay=0.3)  # the scripted server answers each ping after 0.3 s, as over a slow network
HELD = Pace(delay=None)
RUN_BOUND = 5.0  # a scenario with unanswered pings ends well within this (the driver's own bound is 10 s)


def unanswered_pings(run_client: RunClient, server: ScriptedPeer, scenario: str) -> tuple[ClientRun, Timeline]:
    """Run ``scenario`` with every ping of the client left unanswered."""
    script(server, paces={"ping": HELD})
    start = time.monotonic()
    run = run_client(scenario)
    assert time.monotonic() - start < RUN_BOUND, f"with its pings unanswered, the client hung:\n{run.output[-1000:]}"
    return run, Timeline(server)


def tells_of_a_failed_ping(line: str) -> bool:
    """A log line about a ping that failed (not merely one that was sent)."""
    return bool(re.search(r"\bping\b", line, re.I) and re.search(r"time|fail|error|respon|answer", line, re.I))


def requests_after(timeline: Timeline, event: Event) -> list[str]:
    return [e.payload["method"] for e in timeline.requests() if e.ts > event.ts and e is not event]


@for_req("ping-timeout-suits-network", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_ping_timeout_is_the_one_set_for_the_network(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Pings answered after 0.3 s: with a timeout set for a slow network (1 s) the answer is taken; with a
    tight one (0.15 s) the ping is given up at that timeout."""
    script(scripted_peer, paces={"ping": SLOW_PING})
    run_peer_client("ping_slow_network").require_completed()
    timeline = Timeline(scripted_peer)
    pings = timeline.requests("ping")
    assert len(pings) == len(SLOW_NETWORK_TIMEOUTS), f"expected {len(SLOW_NETWORK_TIMEOUTS)} pings, saw {len(pings)}"
    generous, tight = pings
    assert timeline.cancellation_of(generous.payload["id"]) is None, "a ping answered within its 1 s was cancelled"
    assert_waited_about(waited(timeline, tight), SLOW_NETWORK_TIMEOUTS[1], "the ping with a 0.15 s timeout")


@for_req("ping-timeout-is-failure", "client", transports=BOTH_TRANSPORTS)
def test_the_client_treats_a_ping_timeout_as_a_connection_failure(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """After its ping timed out, the client does not go on with the connection as if it were sound: it
    sends nothing more on it, or opens a new one (initialize first)."""
    _, timeline = unanswered_pings(run_peer_client, scripted_peer, "ping_timeout")
    ping = timeline.requests("ping")[0]
    after = requests_after(timeline, ping)
    assert not after or after[0] == "initialize", f"after its ping timed out the client went on to send {after}"


@for_req("ping-log-failures", "client", transports=BOTH_TRANSPORTS)
def test_the_client_logs_a_failed_ping(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The client's own output (the driver's lines left out: it logs nothing about the ping) tells of it."""
    run, _ = unanswered_pings(run_peer_client, scripted_peer, "ping_timeout")
    logged = [line for line in run.output.splitlines() if not line.startswith("mcp-matrix:")]
    assert any(map(tells_of_a_failed_ping, logged)), f"the failed ping left no log line:\n{run.output[-2000:]}"


def assert_carries_on_or_resets(run_client: RunClient, server: ScriptedPeer, scenario: str, count: int) -> None:
    """``count`` pings go unanswered. The client may treat the connection as stale and close it, open a
    new one, or carry on; whichever it does, it gives each ping up (no waiting past its timeout), and what
    it sends afterwards is a new connection's initialize or works."""
    run, timeline = unanswered_pings(run_client, server, scenario)
    pings = timeline.requests("ping")
    assert pings, f"the scenario has the client ping {count} times; it sent no ping"
    after = requests_after(timeline, pings[-1])
    if not after:  # the connection was closed, after the first failed ping or later: the client may do that
        return
    for ping in pings:
        assert_waited_about(waited(timeline, ping), PING_TIMEOUT, "an unanswered ping")
    assert after[0] == "initialize" or run.completed, (
        f"after {count} failed pings the client sent {after} and did not get on:\n{run.output[-1000:]}"
    )


@for_req("ping-no-response-sender-options", "client", transports=BOTH_TRANSPORTS)
def test_the_client_handles_an_unanswered_ping(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_carries_on_or_resets(run_peer_client, scripted_peer, "ping_timeout", 1)


@for_req("ping-reset-after-failures", "client", transports=BOTH_TRANSPORTS)
def test_the_client_handles_several_failed_pings(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    assert_carries_on_or_resets(run_peer_client, scripted_peer, "ping_failures", 2)


# -- how often a server pings ----------------------------------------------------------------------------

# The setting a server under test is started with to ping every N seconds. The fixture server would hand
# it to its SDK, which has no such setting and never pings on its own (docs/findings/041-*.md).


def server_pings(session: Peer) -> list[Event]:
    """The server's pings over IDLE_SECONDS of an idle session (each answered), with their times."""
    session.open()
    wire, pings = Wire(session), []
    deadline = time.monotonic() + IDLE_SECONDS
    while (left := deadline - time.monotonic()) > 0:
        try:
            frame = wire.until(lambda f: f.get("method") == "ping" and "id" in f, "ping", left)
        except ImplementationTimeout:
            break
        pings.append(Event(time.monotonic(), "message", "server-to-client", frame))
        session.send({"jsonrpc": "2.0", "id": frame["id"], "result": {}})
    return pings


def configured_session(configured_server: ConfiguredServer, revision: str, tmp_path: Path) -> tuple[StdioPeer, float]:
    """A stdio session with the server configured to ping idle sessions (its profile's ``ping-interval``),
    and that interval."""
    configured = configured_server("ping-interval", transport="stdio")
    assert configured.launcher is not None
    trace = Trace(tmp_path / "configured.jsonl", "stdio")
    return StdioPeer(configured.launcher.start(), trace, revision), float(configured.values["seconds"])


@for_req("ping-periodic", "server")
def test_the_server_pings_an_idle_session(revision: str, configured_server: ConfiguredServer, tmp_path: Path) -> None:
    session, interval = configured_session(configured_server, revision, tmp_path)
    with session:
        pings = server_pings(session)
    assert len(pings) >= 2, f"told to ping every {interval}s, the server sent {len(pings)} pings"


@for_req("ping-frequency-configurable", "server")
def test_the_servers_ping_interval_is_the_one_set(
    revision: str, configured_server: ConfiguredServer, tmp_path: Path
) -> None:
    session, interval = configured_session(configured_server, revision, tmp_path)
    with session:
        pings = server_pings(session)
    assert_pings_at(pings, interval, "the server")


@for_req("ping-avoid-excessive", "server")
def test_the_server_does_not_ping_excessively(revision: str, server: Peer) -> None:
    """Left to its defaults on an idle session, the server pings at most once a second."""
    pings = server_pings(server)
    assert len(pings) <= IDLE_SECONDS * MAX_PINGS_PER_SECOND, f"{len(pings)} pings in {IDLE_SECONDS}s idle"


# -- what a server does when its ping goes unanswered ----------------------------------------------------


def failed_server_ping(peer: Peer) -> ServerRequest:
    """The server pings the harness (test_timed_request, PING_TIMEOUT), which does not answer."""
    outcome = server_request(peer, "ping", PING_TIMEOUT)
    assert_waited_about(outcome.gave_up_after, PING_TIMEOUT, "the server's unanswered ping")
    return outcome


@for_req("ping-timeout-suits-network", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_ping_timeout_is_the_one_set_for_the_network(revision: str, transport: str, peer: Peer) -> None:
    """The harness answers the server's pings after 0.3 s: with a timeout set for a slow network (1 s) the
    answer is taken; with a tight one (0.15 s) the ping is given up at that timeout."""
    peer.open()
    generous, tight = SLOW_NETWORK_TIMEOUTS
    slow = server_request(peer, "ping", generous, answer_after=SLOW_PING.delay)
    assert slow.succeeded and slow.cancelled_at is None, f"a ping answered within its {generous}s: {slow.text()}"
    cut = server_request(peer, "ping", tight, answer_after=SLOW_PING.delay)
    assert not cut.succeeded, f"a ping answered after its {tight}s timeout was taken: {cut.text()}"
    assert_waited_about(cut.gave_up_after, tight, f"the ping with a {tight}s timeout")


@for_req("ping-timeout-is-failure", "server", transports=BOTH_TRANSPORTS)
def test_the_server_treats_a_ping_timeout_as_a_connection_failure(revision: str, transport: str, peer: Peer) -> None:
    """After its ping timed out, the server does not go on serving the session as if it were sound."""
    peer.open()
    failed_server_ping(peer)
    try:
        response = peer.rpc(peer.probe_method, check=False)
    except (ProtocolViolation, ImplementationTimeout):
        return  # the connection is closed, or no longer served
    assert "result" not in response, f"after its ping timed out the server still answered {response}"


@for_req("ping-log-failures", "server")
def test_the_server_logs_a_failed_ping(revision: str, server: StdioPeer) -> None:
    """stdio: a server's log is its stderr there; over HTTP the suite does not see the server's log."""
    server.open()
    failed_server_ping(server)
    Wire(server).settle()  # stderr is read by a thread of its own: a bounded moment for it
    logged = server.stderr.splitlines()
    assert any(map(tells_of_a_failed_ping, logged)), f"the failed ping left no log line:\n{server.stderr[-2000:]}"


def assert_server_carries_on_or_closes(peer: Peer, count: int) -> None:
    """``count`` of the server's pings go unanswered. The server may treat the connection as stale and
    close it, or carry on; whichever it does, it gives each ping up at its timeout, and a session it keeps
    still works."""
    peer.open()
    try:
        for _ in range(count):
            failed_server_ping(peer)
        response = peer.rpc(peer.probe_method, check=False)
    except ProtocolViolation:
        return  # the server closed the connection
    assert "result" in response or "error" in response, f"after {count} failed pings the server answered {response}"


@for_req("ping-no-response-sender-options", "server", transports=BOTH_TRANSPORTS)
def test_the_server_handles_an_unanswered_ping(revision: str, transport: str, peer: Peer) -> None:
    assert_server_carries_on_or_closes(peer, 1)


@for_req("ping-reset-after-failures", "server", transports=BOTH_TRANSPORTS)
def test_the_server_handles_several_failed_pings(revision: str, transport: str, peer: Peer) -> None:
    assert_server_carries_on_or_closes(peer, 2)
