"""Messages: the JSON-RPC 2.0 shape of what the server sends (docs/spec/requirements.md, messages).

Each test opens a session at its revision (the handshake before 2026-07-28, nothing after) and
probes with a request every revision defines: ``ping``, or ``server/discover`` at 2026-07-28.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import pytest

from conformance.harness.exchanges import (
    CLIENT_RESULTS,
    PING_ID,
    PUSHED,
    PUSHED_IDS,
    bad_requests,
    client_responses,
    converse,
    error_objects,
    is_notification,
    is_request,
    items,
    opened,
    ordered,
    server_frames,
)
from conformance.harness.frames import BOTH_TRANSPORTS, UNKNOWN_METHOD
from conformance.harness.peer import ImplementationTimeout, Peer
from conformance.harness.roles import bound, require_role
from conformance.harness.schema import violations
from conformance.harness.scripted_server import Pace, ScriptedPeer, ScriptedServer
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.wire import Wire, is_response, params_of, tool_call
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun

PROBE_NOTIFICATION = "notifications/mcp-matrix/probe"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
CORE_RESULT_TYPES = {"complete", "input_required"}
HOLD_BACK_SECONDS = 1.0
RunClient = Callable[[str], ClientRun]


def probe(server: Peer) -> dict:
    server.open()
    return server.rpc(server.probe_method, check=False)


def answer_to_a_string_id(server: Peer) -> dict:
    """The first response the server sends after a probe whose id is a string (ids need not be numbers)."""
    server.open()
    server.send_request(server.envelope(server.probe_method, "string-id-7"))
    return server.next_response()


@for_req("messages-jsonrpc-2-0", "server", transports=BOTH_TRANSPORTS)
def test_every_frame_is_json_rpc_2_0(revision: str, transport: str, peer: Peer) -> None:
    response = probe(peer)
    assert response.get("jsonrpc") == "2.0", response
    problems = violations(revision, "JSONRPCMessage", response)
    assert not problems, "\n".join(problems)


@for_req("messages-response-id-matches-request", "server", transports=BOTH_TRANSPORTS)
def test_a_response_carries_the_id_of_its_request(revision: str, transport: str, peer: Peer) -> None:
    """The row's first clause: a success response (its error responses: the next test)."""
    answer = answer_to_a_string_id(peer)
    assert answer.get("id") == "string-id-7", f"answered {answer}"


@for_req("messages-response-id-matches-request", "server", transports=BOTH_TRANSPORTS)
def test_an_error_response_too_carries_the_id_of_its_request(revision: str, transport: str, peer: Peer) -> None:
    """The row's second clause: an error response."""
    check_error_response_id(peer)


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
    answer = peer.next_response()
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


@for_req("messages-batch-receive", "server", transports=BOTH_TRANSPORTS)
def test_a_batch_is_processed(revision: str, transport: str, peer: Peer) -> None:
    """Over every transport: a batch refused by one binding and served by another is a breach of that
    binding's cell alone (streamable-http-batch-post and its kin judge how HTTP carries it)."""
    peer.open()
    batch = {"batch-1", "batch-2"}
    peer.send_request([peer.envelope("ping", request_id) for request_id in sorted(batch)])
    answered: dict = {}  # request id -> its response
    while not batch <= answered.keys():  # what else the server sends meanwhile (a notification, a request) is no answer
        try:
            frame = peer.receive()
        except ImplementationTimeout as timeout:
            unanswered = ", ".join(sorted(batch - answered.keys()))
            raise AssertionError(f"the batch's ping requests {unanswered} went unanswered: {timeout}") from None
        frames = [f for f in (frame if isinstance(frame, list) else [frame]) if isinstance(f, dict) and is_response(f)]
        whole = [f for f in frames if f["id"] is None and "error" in f]  # an error for the batch as a whole
        assert not whole, f"the batch was refused as a whole: {str(whole[0]['error'])[:300]}"
        answered |= {f["id"]: f for f in frames if f["id"] in batch}
    refused = {request_id: r.get("error", r) for request_id, r in answered.items() if "result" not in r}
    assert not refused, f"the batch's ping requests were refused: {refused}"


@for_req("messages-result-type-present", "server", transports=BOTH_TRANSPORTS)
def test_every_result_carries_a_result_type(revision: str, transport: str, peer: Peer) -> None:
    for method in ("server/discover", "tools/list"):
        result = peer.rpc(method, check=False).get("result", {})
        assert isinstance(result.get("resultType"), str), f"{method}: {result}"


# -- the client side: what the SDK's client sends the scripted server of each transport -------------


def judge_client_frames(run_client: RunClient, server: ScriptedPeer, check: Callable[[list[dict]], None]) -> None:
    """Run the client through a tool call and ``check`` what it sent. The check comes before the run must
    have completed: a client whose broken message stalled the exchange fails on that message (the
    evidence), and only a run that stalled with nothing to blame in the record is inconclusive."""
    run_client("tools_call").judge(lambda: check([f for f in server.frames() if isinstance(f, dict)]))


def check_every_frame_is_json_rpc_2_0(frames: list[dict]) -> None:
    assert frames and all(f.get("jsonrpc") == "2.0" for f in frames), frames


def check_ids_not_reused(frames: list[dict]) -> None:
    ids = [f["id"] for f in frames if "method" in f and "id" in f]
    assert len(ids) == len(set(map(json.dumps, ids))), f"ids {ids}"


@for_req("messages-jsonrpc-2-0", "client", transports=BOTH_TRANSPORTS)
def test_every_client_frame_is_json_rpc_2_0(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    judge_client_frames(run_peer_client, scripted_peer, check_every_frame_is_json_rpc_2_0)


@for_req("messages-request-id-type", "client", transports=BOTH_TRANSPORTS)
def test_client_request_ids_are_strings_or_integers(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    judge_client_frames(run_peer_client, scripted_peer, check_client_request_ids)


@for_req("messages-client-request-id-type", "client", transports=BOTH_TRANSPORTS)
def test_a_modern_clients_request_ids_are_strings_or_integers(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    judge_client_frames(run_peer_client, scripted_peer, check_client_request_ids)


@for_req("messages-request-id-not-null", "client", transports=BOTH_TRANSPORTS)
def test_client_request_ids_are_never_null(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    judge_client_frames(run_peer_client, scripted_peer, check_no_null_ids)


@for_req("messages-client-request-id-not-null", "client", transports=BOTH_TRANSPORTS)
def test_a_modern_clients_request_ids_are_never_null(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    judge_client_frames(run_peer_client, scripted_peer, check_no_null_ids)


@for_req("messages-request-id-unique-in-session", "client", transports=BOTH_TRANSPORTS)
def test_client_request_ids_are_not_reused_in_a_session(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    judge_client_frames(run_peer_client, scripted_peer, check_ids_not_reused)


# A 2026-07-28 client notifies only to cancel, and over Streamable HTTP it cancels by closing the stream.
@for_req("messages-notification-no-id", "client", transports=BOTH_TRANSPORTS, not_over={MODERN: ("streamable-http",)})
def test_client_notifications_carry_no_id(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    if revision != MODERN:
        run_peer_client("initialize").require_completed()  # the handshake ends with notifications/initialized
    else:  # a 2026-07-28 client notifies only to cancel, on stdio
        scripted_peer.hold.add("tools/call")
        run_peer_client("cancel").require_completed()
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


# -- the server side over a whole conversation (harness/exchanges.py) --------------------------------


def results_of(frames: list) -> list:
    return [f["result"] for f in frames if isinstance(f, dict) and "result" in f]


@for_req("messages-notification-no-id", "server", transports=BOTH_TRANSPORTS)
def test_server_notifications_carry_no_id(revision: str, transport: str, peer: Peer) -> None:
    notifications = [
        f for f in server_frames(peer) if isinstance(f, dict) and str(f.get("method", "")).startswith("notifications/")
    ]
    if not notifications:
        pytest.skip("fixture-missing: the server sent no notification in the conversation")
    assert not [f for f in notifications if "id" in f], notifications


@for_req("messages-server-no-requests", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_server_sends_no_requests(revision: str, transport: str, peer: Peer) -> None:
    """The conversation includes a tool that needs sampling: at 2026-07-28 the server asks for it in an
    input_required result, never with a request of its own."""
    requests = [f for f in server_frames(peer) if is_request(f)]
    assert not requests, f"the server sent requests: {requests}"


@for_req("messages-result-any-object", "server", transports=BOTH_TRANSPORTS)
def test_server_results_are_json_objects(revision: str, transport: str, peer: Peer) -> None:
    check_results_are_objects(server_frames(peer))


@for_req("messages-server-result-any-object", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_servers_results_are_json_objects(revision: str, transport: str, peer: Peer) -> None:
    check_results_are_objects(server_frames(peer))


def check_results_are_objects(frames: list) -> None:
    """The permission is "any JSON object": results of many shapes (lists, contents, empty ones), each an object."""
    results = results_of(frames)
    assert len({json.dumps(sorted(r)) for r in results if isinstance(r, dict)}) > 1, f"results: {results}"
    assert all(isinstance(r, dict) for r in results), [r for r in results if not isinstance(r, dict)]


@for_req("messages-result-type-supported-set", "server", transports=BOTH_TRANSPORTS)
def test_a_servers_result_types_are_the_core_ones(revision: str, transport: str, peer: Peer) -> None:
    """The harness declares no extension, so every resultType is a core one (the conversation has an
    input_required result: a tool that needs sampling)."""
    kinds = [r.get("resultType") for r in results_of(server_frames(peer))]
    assert kinds, "the server answered nothing with a result"
    assert set(kinds) <= CORE_RESULT_TYPES, f"resultType values {sorted(set(map(str, kinds)))}"


@for_req("messages-request-scoped-notifications", "server", transports=BOTH_TRANSPORTS)
def test_a_server_notifies_about_requests_in_flight(revision: str, transport: str, peer: Peer) -> None:
    """The permission used (progress and log notifications while tool calls run) and kept to its
    bounds: each comes while a request it is about is still unanswered."""
    wire = converse(peer)
    scoped = [s for s in wire.seen if is_notification(s.frame)]
    if not scoped:
        pytest.skip("fixture-missing: the server sent no notification while a request was in flight")
    for seen in scoped:
        assert seen.client_requests, f"{seen.frame} came with no request in flight"
        token = params_of(seen.frame).get("progressToken")
        if token is not None:
            tokens = [params_of(r).get("_meta", {}).get("progressToken") for r in seen.client_requests.values()]
            assert token in tokens, f"{seen.frame} names no request in flight (their tokens: {tokens})"


@for_req("messages-error-data-optional", "server", transports=BOTH_TRANSPORTS)
def test_a_servers_errors_may_carry_data(revision: str, transport: str, peer: Peer) -> None:
    """The permission used (errors that carry ``data``) and kept to its bounds: ``data`` comes on top of
    an integer code and a message, never instead of them."""
    with_data = [e for e in error_objects(server_frames(peer, bad_requests)) if "data" in e]
    if not with_data:
        pytest.skip("fixture-missing: no error of the server carried data")
    for error in with_data:
        assert type(error.get("code")) is int and isinstance(error.get("message"), str), error


@for_req("messages-batch-send-optional", "server", transports=BOTH_TRANSPORTS)
def test_a_server_batch_holds_only_requests_and_notifications(revision: str, transport: str, peer: Peer) -> None:
    """Sending batches is allowed, not required: any the server sends is a non-empty array of requests
    and notifications (the harness sends none, so no batch of responses is due)."""
    check_batches(server_frames(peer))


def check_batches(frames: list) -> None:
    for frame in frames:
        if isinstance(frame, list):
            assert frame, "an empty batch"
            assert all(is_request(f) or is_notification(f) for f in frame), f"a batch holding {frame}"


# Before 2026-07-28 a server sends requests too: two sampling tool calls in flight at once make it ask twice.


def server_requests(peer: Peer, check: Callable[[dict], None]) -> list[dict]:
    """Every request the server sends while two sampling tool calls run, each passed to ``check`` as
    it comes (before it is answered)."""
    bound(peer, "sampling-tool")
    opened(peer)
    tool = require_role(peer, "sampling-tool")
    wire = Wire(peer)
    pending = {wire.send(tool_call(peer, f"sampling-{n}", tool.name, tool.args())).id for n in (1, 2)}
    asked: list[dict] = []
    while pending:
        frame = wire.until(
            lambda f: not isinstance(f, dict) or is_request(f) or (is_response(f) and f["id"] in pending),
            "a sampling request or the end of the tool calls",
        )
        if is_request(frame):
            check(frame)
            asked.append(frame)
            peer.send({"jsonrpc": "2.0", "id": frame["id"], "result": CLIENT_RESULTS.get(frame["method"], {})})
        elif isinstance(frame, dict):
            pending.discard(frame["id"])
    if not asked:
        pytest.skip(f"fixture-missing: {tool.name} sent the client no request")
    return asked


@for_req("messages-request-id-type", "server", transports=BOTH_TRANSPORTS)
def test_server_request_ids_are_strings_or_integers(revision: str, transport: str, peer: Peer) -> None:
    def check(request: dict) -> None:
        request_id = request.get("id")
        assert isinstance(request_id, (str, int)) and not isinstance(request_id, bool), f"request {request}"

    server_requests(peer, check)


@for_req("messages-request-id-not-null", "server", transports=BOTH_TRANSPORTS)
def test_server_request_ids_are_never_null(revision: str, transport: str, peer: Peer) -> None:
    def check(request: dict) -> None:
        assert request.get("id") is not None, f"request {request}"

    server_requests(peer, check)


@for_req("messages-request-id-unique-in-session", "server", transports=BOTH_TRANSPORTS)
def test_server_request_ids_are_not_reused_in_a_session(revision: str, transport: str, peer: Peer) -> None:
    used: list[str] = []

    def check(request: dict) -> None:
        request_id = json.dumps(request.get("id"))
        assert request_id not in used, f"request id {request_id} used again (ids so far {used})"
        used.append(request_id)

    if len(server_requests(peer, check)) < 2:
        pytest.skip("fixture-missing: the server sent fewer than two requests in the session")


# -- the client side: how it answers what the (scripted stdio) server asks it ---------------------------


def answers_of(run_stdio_client: RunClient, scripted_stdio: ScriptedStdio) -> list:
    responses = client_responses(run_stdio_client, scripted_stdio)
    assert responses, "the client answered none of the server's requests"
    return responses


@for_req("messages-response-id-matches-request", "client")
def test_client_responses_carry_the_id_of_their_request(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    check_ids_answer_requests(answers_of(run_stdio_client, scripted_stdio))


@for_req("messages-result-response-id-matches-request", "client")
def test_client_result_responses_carry_the_id_of_their_request(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    results = [r for r in answers_of(run_stdio_client, scripted_stdio) if "error" not in r]
    assert results, "the client answered even the ping with an error"
    check_ids_answer_requests(results)


@for_req("messages-error-response-id-matches-request", "client")
def test_client_error_responses_carry_the_id_of_their_request(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    check_ids_answer_requests(client_errors(run_stdio_client, scripted_stdio))


def check_ids_answer_requests(responses: list) -> None:
    strays = [r for r in responses if not isinstance(r, dict) or r.get("id") not in PUSHED_IDS]
    assert not strays, f"responses to no request the server sent ({sorted(PUSHED_IDS)}): {strays}"


def client_errors(run_stdio_client: RunClient, scripted_stdio: ScriptedStdio) -> list[dict]:
    """The client's error responses (it knows no ``mcp-matrix/no-such-method``)."""
    errors = [r for r in answers_of(run_stdio_client, scripted_stdio) if isinstance(r, dict) and "error" in r]
    if not errors:
        pytest.skip("fixture-missing: the client answered no request with an error")
    return errors


@for_req("messages-response-result-or-error", "client")
def test_client_responses_hold_a_result_or_an_error(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    for response in answers_of(run_stdio_client, scripted_stdio):
        assert "result" in response or "error" in response, response


@for_req("messages-response-not-both", "client")
def test_client_responses_never_hold_both_result_and_error(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    for response in answers_of(run_stdio_client, scripted_stdio):
        assert not ("result" in response and "error" in response), response


@for_req("messages-result-response-has-result", "client")
def test_client_successful_responses_hold_a_result(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    for response in answers_of(run_stdio_client, scripted_stdio):
        assert "error" in response or isinstance(response.get("result"), dict), response


@for_req("messages-error-code-and-message", "client")
def test_client_errors_hold_a_code_and_a_message(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    for response in client_errors(run_stdio_client, scripted_stdio):
        error = response["error"]
        assert isinstance(error, dict) and "code" in error and "message" in error, response


@for_req("messages-error-code-integer", "client")
def test_client_error_codes_are_integers(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    for response in client_errors(run_stdio_client, scripted_stdio):
        assert type(response["error"].get("code")) is int, response


@for_req("messages-result-any-object", "client")
def test_client_results_are_json_objects(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    results = [r["result"] for r in answers_of(run_stdio_client, scripted_stdio) if "result" in r]
    if not results:
        pytest.skip("fixture-missing: the client answered nothing with a result")
    assert all(isinstance(r, dict) for r in results), results


@for_req("messages-notification-no-response", "client")
def test_the_client_answers_no_notification(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The server's notification (``notifications/mcp-matrix/probe``) comes with two requests: the
    client answers those, and nothing else."""
    responses = client_responses(run_stdio_client, scripted_stdio)
    extra = [r for r in responses if not isinstance(r, dict) or r.get("id") not in PUSHED_IDS]
    assert not extra, f"responses beyond the server's requests: {extra}"


@for_req("messages-batch-receive", "client")
def test_the_client_processes_a_batch(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The server sends a batch (a ping and a notification): the client answers the ping."""
    scripted_stdio.push["tools/list"] = [[PUSHED[0], PUSHED[2]]]
    run_stdio_client("tools_call")
    responses = [f for frame in scripted_stdio.load().frames() for f in items(frame) if is_response(f)]
    assert [r for r in responses if r.get("id") == PING_ID], f"the client's responses: {responses}"


@for_req("messages-batch-send-optional", "client")
def test_a_client_batch_holds_only_requests_and_notifications(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """Sending batches is allowed, not required: every line the client writes that is an array is a
    non-empty batch of requests and notifications."""
    run_stdio_client("rich").require_completed()
    lines = [json.loads(line) for line in scripted_stdio.load().lines() if line.strip()]
    check_batches(lines)


@for_req("messages-request-id-unique-in-flight", "client", transports=BOTH_TRANSPORTS)
def test_client_request_ids_are_unique_among_requests_in_flight(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    hold_back_prompts_list(scripted_peer)
    run = run_peer_client("concurrent_requests")
    overlapped = run.judge(lambda: check_unique_in_flight(scripted_peer))
    if not overlapped:
        pytest.skip("fixture-missing: the client never had two requests in flight at once")


def check_unique_in_flight(server: ScriptedPeer) -> int:
    """No request of the client's reuses the id of one still unanswered; how often two were in flight."""
    in_flight: dict[str, dict] = {}
    overlapped = 0
    for direction, frame in ordered(server):
        for item in items(frame):
            if not isinstance(item, dict) or "id" not in item:
                continue
            key = json.dumps(item["id"])
            if direction == "client-to-server" and "method" in item:
                assert key not in in_flight, f"{item} reuses the id of {in_flight[key]}, still unanswered"
                overlapped += bool(in_flight)
                in_flight[key] = item
            elif direction == "server-to-client" and "method" not in item:
                in_flight.pop(key, None)
    return overlapped


def hold_back_prompts_list(server: ScriptedPeer) -> None:
    """The answer to the client's prompts/list waits (bounded) until its resources/list, started at the
    same time, has come too: a client that sends them concurrently then has both in flight at once."""
    if isinstance(server, ScriptedStdio):  # a paced answer comes late (a ping, which 2026-07-28 forbids, no more)
        server.paces["prompts/list"] = Pace(delay=HOLD_BACK_SECONDS)
        return
    assert isinstance(server, ScriptedServer)
    came = threading.Event()
    resources, prompts = server.answers["resources/list"], server.answers["prompts/list"]
    server.answers["resources/list"] = lambda frame: (came.set(), resources(frame))[1]
    server.answers["prompts/list"] = lambda frame: (came.wait(HOLD_BACK_SECONDS), prompts(frame))[1]


# -- the client side: resultType at 2026-07-28 ------------------------------------------------------------

LISTED = [{"name": "echo", "description": "Echoes its text.", "inputSchema": {"type": "object"}}]
CACHE_HINTS = {"ttlMs": 0, "cacheScope": "private"}


def calls_after_listing(run_client: RunClient, server: ScriptedPeer, result_type: str | None) -> list[dict]:
    """The tools/call requests of a client whose tools/list is answered with ``result_type`` (None: no
    resultType at all): a client that takes the listing goes on to call the tool it names."""
    result: dict = {"tools": LISTED} | CACHE_HINTS
    if result_type is not None:
        result["resultType"] = result_type
    server.raw["tools/list"] = {"result": result}
    run_client("tools_call")
    return [f for f in server.frames() if isinstance(f, dict) and f.get("method") == "tools/call"]


@for_req("messages-result-type-unknown-invalid", "client")
def test_a_result_of_an_unknown_result_type_is_refused(
    revision: str, run_client: RunClient, scripted_server: ScriptedPeer
) -> None:
    calls = calls_after_listing(run_client, scripted_server, "mcp-matrix-unknown")
    assert not calls, f"the client took a tools/list result of resultType 'mcp-matrix-unknown' and called {calls}"


@for_req("messages-result-type-supported-set", "client")
def test_only_core_and_negotiated_result_types_are_accepted(
    revision: str, run_client: RunClient, scripted_server: ScriptedPeer
) -> None:
    """``task`` is a resultType of the tasks extension, which the client did not advertise: outside its
    supported set, so the listing is refused."""
    calls = calls_after_listing(run_client, scripted_server, "task")
    assert not calls, f"the client took a tools/list result of resultType 'task' and called {calls}"


@for_req("messages-result-type-absent-complete", "client")
def test_a_result_without_result_type_is_complete(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """A client speaking only 2026-07-28 meets a server of 2025-11-25 that does not insist on the
    handshake (the case the stdio transport's backward compatibility describes): its tools/list result
    has no resultType, which the client takes as complete, and goes on to call the tool."""
    scripted_stdio.revision = LEGACY
    scripted_stdio.raw["tools/list"] = {"result": {"tools": LISTED} | CACHE_HINTS}
    run_stdio_client("modern_tools_call")
    calls = [f for f in scripted_stdio.load().frames() if isinstance(f, dict) and f.get("method") == "tools/call"]
    assert calls, "the client refused a tools/list result without resultType: it never called the tool"
