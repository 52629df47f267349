"""Lifecycle: the initialize handshake, version negotiation, and 2026-07-28's ``server/discover``.

Each test holds the server under test to one requirement of docs/spec/requirements.md, at every
revision its cover claims (see coverage/lifecycle.py).
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.covers import for_req
from conformance.harness import schema
from conformance.harness.frames import BOTH_TRANSPORTS, UNKNOWN_VERSION, initialize_params, modern_meta
from conformance.harness.peer import Peer, result_definitions
from conformance.harness.scripted_server import ScriptedPeer
from conformance.plugin import ClientRun, SessionFactory
from conformance.vocabulary import REVISIONS

HANDSHAKE_REVISIONS = REVISIONS[:-1]  # 2026-07-28 has no initialize handshake
RunClient = Callable[[str], ClientRun]


@for_req("lifecycle-server-initialize-result", "server", transports=BOTH_TRANSPORTS)
def test_initialize_result_is_the_revisions_initialize_result(revision: str, transport: str, peer: Peer) -> None:
    """The answer to initialize is an InitializeResult of the revision: version, capabilities, serverInfo."""
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
    peer.send_request({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": initialize_params(revision)})
    first = peer.receive()
    assert first.get("id") == "init" and "method" not in first, f"the server sent {first} before answering initialize"


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
def test_results_keep_to_the_negotiated_revision_should(revision: str, transport: str, peer: Peer) -> None:
    assert_results_keep_to_the_revision(revision, peer)


@for_req("lifecycle-use-negotiated-version-must", "server", transports=BOTH_TRANSPORTS)
def test_results_keep_to_the_negotiated_revision(revision: str, transport: str, peer: Peer) -> None:
    assert_results_keep_to_the_revision(revision, peer)


def assert_results_keep_to_the_revision(revision: str, peer: Peer) -> None:
    """After the handshake, the answers to the list requests are that revision's results, strictly."""
    peer.open()
    problems: list[str] = []
    for method in ("tools/list", "resources/list", "prompts/list"):
        response = peer.rpc(method, check=False)
        if "result" in response:
            problems += schema.violations(revision, result_definitions(revision)[method], response["result"])
    assert not problems, "\n".join(problems)


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
    run_peer_client("initialize").require_completed()
    after = [f.get("method") for f in client_messages(scripted_peer)[1:]]
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


def assert_client_keeps_to_the_revision(run_client: RunClient, server: ScriptedPeer) -> None:
    """Every request and notification of a session is the negotiated revision's, strictly."""
    run_client("tools_call").require_completed()
    assert not server.violations, "\n".join(server.violations)
