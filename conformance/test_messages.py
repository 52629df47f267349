"""Messages: the JSON-RPC 2.0 shape of what the server sends (docs/spec/requirements.md, messages).

Each test opens a session at its revision (the handshake before 2026-07-28, nothing after) and
probes with a request every revision defines: ``ping``, or ``server/discover`` at 2026-07-28.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from conformance.covers import for_req
from conformance.harness.frames import BOTH_TRANSPORTS, UNKNOWN_METHOD
from conformance.harness.peer import Peer
from conformance.harness.schema import violations
from conformance.harness.scripted_server import ScriptedPeer
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.plugin import ClientRun

PROBE_NOTIFICATION = "notifications/mcp-matrix/probe"
MODERN = "2026-07-28"
RunClient = Callable[[str], ClientRun]


def probe(server: Peer) -> dict:
    server.open()
    return server.rpc(server.probe_method, check=False)


def answer_to_a_string_id(server: Peer) -> dict:
    """The first frame the server sends after a probe whose id is a string (ids need not be numbers)."""
    server.open()
    server.send_request(server.envelope(server.probe_method, "string-id-7"))
    return server.receive()


@for_req("messages-jsonrpc-2-0", "server", transports=BOTH_TRANSPORTS)
def test_every_frame_is_json_rpc_2_0(revision: str, transport: str, peer: Peer) -> None:
    response = probe(peer)
    assert response.get("jsonrpc") == "2.0", response
    problems = violations(revision, "JSONRPCMessage", response, strict=False)
    assert not problems, "\n".join(problems)


@for_req("messages-response-id-matches-request", "server", transports=BOTH_TRANSPORTS)
def test_a_response_carries_the_id_of_its_request(revision: str, transport: str, peer: Peer) -> None:
    answer = answer_to_a_string_id(peer)
    assert answer.get("id") == "string-id-7", f"answered {answer}"


@for_req("messages-result-response-id-matches-request", "server", transports=BOTH_TRANSPORTS)
def test_a_result_response_carries_the_id_of_its_request(revision: str, transport: str, peer: Peer) -> None:
    check_result_response_id(peer)


@for_req("messages-server-result-response-id", "server", transports=BOTH_TRANSPORTS)
def test_a_server_result_response_carries_the_id_of_its_request(revision: str, transport: str, peer: Peer) -> None:
    check_result_response_id(peer)


@for_req("messages-response-result-or-error", "server", transports=BOTH_TRANSPORTS)
def test_a_response_holds_a_result_or_an_error(revision: str, transport: str, peer: Peer) -> None:
    response = probe(peer)
    assert "result" in response or "error" in response, response


@for_req("messages-response-not-both", "server", transports=BOTH_TRANSPORTS)
def test_a_response_never_holds_both_result_and_error(revision: str, transport: str, peer: Peer) -> None:
    for response in (probe(peer), peer.rpc(UNKNOWN_METHOD, check=False)):
        assert not ("result" in response and "error" in response), response


@for_req("messages-result-response-has-result", "server", transports=BOTH_TRANSPORTS)
def test_a_successful_response_holds_a_result(revision: str, transport: str, peer: Peer) -> None:
    check_result_present(peer)


@for_req("messages-server-result-response-has-result", "server", transports=BOTH_TRANSPORTS)
def test_a_servers_successful_response_holds_a_result(revision: str, transport: str, peer: Peer) -> None:
    check_result_present(peer)


@for_req("messages-error-response-id-matches-request", "server", transports=BOTH_TRANSPORTS)
def test_an_error_response_carries_the_id_of_its_request(revision: str, transport: str, peer: Peer) -> None:
    check_error_response_id(peer)


@for_req("messages-server-error-response-id", "server", transports=BOTH_TRANSPORTS)
def test_a_servers_error_response_carries_the_id_of_its_request(revision: str, transport: str, peer: Peer) -> None:
    check_error_response_id(peer)


@for_req("messages-error-code-and-message", "server", transports=BOTH_TRANSPORTS)
def test_an_error_holds_a_code_and_a_message(revision: str, transport: str, peer: Peer) -> None:
    check_error_code_and_message(peer)


@for_req("messages-server-error-code-and-message", "server", transports=BOTH_TRANSPORTS)
def test_a_servers_error_holds_a_code_and_a_message(revision: str, transport: str, peer: Peer) -> None:
    check_error_code_and_message(peer)


@for_req("messages-error-code-integer", "server", transports=BOTH_TRANSPORTS)
def test_an_error_code_is_an_integer(revision: str, transport: str, peer: Peer) -> None:
    check_error_code_integer(peer)


@for_req("messages-server-error-code-integer", "server", transports=BOTH_TRANSPORTS)
def test_a_servers_error_code_is_an_integer(revision: str, transport: str, peer: Peer) -> None:
    check_error_code_integer(peer)


# The checks shared by a requirement and its 2026-07-28 server-only successor (the catalogue splits
# rows where 2026-07-28 leaves only one side able to act); each test names its own requirement.


def check_result_response_id(peer: Peer) -> None:
    answer = answer_to_a_string_id(peer)
    assert "result" in answer, f"the probe failed: {answer}"
    assert answer.get("id") == "string-id-7", f"answered {answer}"


def check_result_present(peer: Peer) -> None:
    response = probe(peer)
    assert "error" not in response, response
    assert isinstance(response.get("result"), dict), response


def check_error_response_id(peer: Peer) -> None:
    peer.open()
    peer.send_request(peer.envelope(UNKNOWN_METHOD, "error-id-9"))
    answer = peer.receive()
    assert "error" in answer, f"an unknown method was answered with {answer}"
    assert answer.get("id") == "error-id-9", f"answered {answer}"


def check_error_code_and_message(peer: Peer) -> None:
    peer.open()
    error = peer.rpc(UNKNOWN_METHOD, check=False).get("error")
    assert isinstance(error, dict), "an unknown method was not answered with an error"
    assert "code" in error and "message" in error, error


def check_error_code_integer(peer: Peer) -> None:
    peer.open()
    error = peer.rpc(UNKNOWN_METHOD, check=False).get("error", {})
    assert type(error.get("code")) is int, error


@for_req("messages-notification-no-response", "server", transports=BOTH_TRANSPORTS)
def test_a_notification_gets_no_response(revision: str, transport: str, peer: Peer) -> None:
    peer.open()
    params = peer.envelope(PROBE_NOTIFICATION, None).get("params")
    peer.notify(PROBE_NOTIFICATION, params)
    response = peer.rpc(peer.probe_method, check=False)
    assert "result" in response, response
    assert not peer.stray_responses(), f"answered a notification: {peer.stray_responses()}"


@for_req("messages-batch-receive", "server")
def test_a_batch_is_processed(revision: str, server: Peer) -> None:
    server.open()
    server.send_request([server.envelope("ping", "batch-1"), server.envelope("ping", "batch-2")])
    answers: list = []
    while len(answers) < 2:
        frame = server.receive()
        answers.extend(frame if isinstance(frame, list) else [frame])
    assert {a.get("id") for a in answers} == {"batch-1", "batch-2"}, answers


@for_req("messages-result-type-present", "server", transports=BOTH_TRANSPORTS)
def test_every_result_carries_a_result_type(revision: str, transport: str, peer: Peer) -> None:
    for method in ("server/discover", "tools/list"):
        result = peer.rpc(method, check=False).get("result", {})
        assert isinstance(result.get("resultType"), str), f"{method}: {result}"


# -- the client side: what the SDK's client sends the scripted server of each transport -------------


def client_frames(run_client: RunClient, server: ScriptedPeer) -> list[dict]:
    run_client("tools_call").require_completed()
    return [f for f in server.frames() if isinstance(f, dict)]


@for_req("messages-jsonrpc-2-0", "client", transports=BOTH_TRANSPORTS)
def test_every_client_frame_is_json_rpc_2_0(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    frames = client_frames(run_peer_client, scripted_peer)
    assert frames and all(f.get("jsonrpc") == "2.0" for f in frames), frames


@for_req("messages-request-id-type", "client", transports=BOTH_TRANSPORTS)
def test_client_request_ids_are_strings_or_integers(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    check_client_request_ids(client_frames(run_peer_client, scripted_peer))


@for_req("messages-client-request-id-type", "client", transports=BOTH_TRANSPORTS)
def test_a_modern_clients_request_ids_are_strings_or_integers(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    check_client_request_ids(client_frames(run_peer_client, scripted_peer))


@for_req("messages-request-id-not-null", "client", transports=BOTH_TRANSPORTS)
def test_client_request_ids_are_never_null(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    check_no_null_ids(client_frames(run_peer_client, scripted_peer))


@for_req("messages-client-request-id-not-null", "client", transports=BOTH_TRANSPORTS)
def test_a_modern_clients_request_ids_are_never_null(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    check_no_null_ids(client_frames(run_peer_client, scripted_peer))


@for_req("messages-request-id-unique-in-session", "client", transports=BOTH_TRANSPORTS)
def test_client_request_ids_are_not_reused_in_a_session(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    ids = [f["id"] for f in client_frames(run_peer_client, scripted_peer) if "method" in f and "id" in f]
    assert len(ids) == len(set(map(json.dumps, ids))), f"ids {ids}"


@for_req("messages-notification-no-id", "client", transports=BOTH_TRANSPORTS)
def test_client_notifications_carry_no_id(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    if revision != MODERN:
        run_peer_client("initialize").require_completed()  # the handshake ends with notifications/initialized
    elif isinstance(scripted_peer, ScriptedStdio):  # a 2026-07-28 client notifies only to cancel, on stdio
        scripted_peer.hold.add("tools/call")
        run_peer_client("cancel").require_completed()
    else:
        pytest.skip(f"fixture-missing: a 2026-07-28 client sends no notification over {transport}")
    notifications = [
        f for f in scripted_peer.frames() if isinstance(f, dict) and f.get("method", "").startswith("notifications/")
    ]
    if not notifications:
        pytest.skip("fixture-missing: the client sent no notification in this scenario")
    assert not [f for f in notifications if "id" in f], notifications


def check_client_request_ids(frames: list[dict]) -> None:
    requests = [f for f in frames if "method" in f and "id" in f]
    assert requests, "the client sent no request"
    bad = [f["id"] for f in requests if isinstance(f["id"], bool) or not isinstance(f["id"], (str, int))]
    assert not bad, f"request ids of other types: {bad}"


def check_no_null_ids(frames: list[dict]) -> None:
    assert not [f for f in frames if "method" in f and "id" in f and f["id"] is None], "a request with id null"
