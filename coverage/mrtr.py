"""Coverage of the mrtr area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import Fault, answer_twice, drop_field, inject_before, inject_raw_before, set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_mrtr.py"
SAMPLING_QUESTION = {
    "method": "sampling/createMessage",
    "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}], "maxTokens": 10},
}
ASKING_SAMPLING = {"resultType": "input_required", "inputRequests": {"q": SAMPLING_QUESTION}}
COMPLETE = {"content": [{"type": "text", "text": "done"}], "isError": False, "resultType": "complete"}
FAILED = {"content": [{"type": "text", "text": "failed"}], "isError": True, "resultType": "complete"}
# The first tools/call of the keys test (id mrtr-keys-1) answered, before its real answer, by a line whose
# inputRequests map names the same key twice.
REPEATED_KEYS = (
    '{"jsonrpc":"2.0","id":"mrtr-keys-1","result":{"resultType":"input_required",'
    '"inputRequests":{"q":{"method":"roots/list"},"q":{"method":"roots/list"}}}}'
)


def nth_answer(result: dict, occurrence: int) -> Fault:
    """The Nth answer to tools/call replaced by ``result`` (a retry the server refused, made to complete)."""
    return set_field("tools/call", "result", result, occurrence=occurrence)


COVERS: list[Cover] = [
    Cover(
        "mrtr-server-requests-via-mrtr",
        "server",
        f"{TESTS}::test_a_server_asks_the_client_only_through_input_required_results",
        fault=inject_before("tools/call", {"jsonrpc": "2.0", "id": "mcp-matrix-pushed", "method": "roots/list"}),
    ),
    Cover(
        "mrtr-input-required-allowed-methods",
        "server",
        f"{TESTS}::test_a_server_may_ask_for_input_on_calls_gets_and_reads",
    ),
    Cover(
        "mrtr-input-required-other-methods-forbidden",
        "server",
        f"{TESTS}::test_no_other_request_is_answered_with_input_required",
        fault=set_field("tools/list", "result.resultType", "input_required"),
    ),
    Cover(
        "mrtr-input-requests-optional",
        "server",
        f"{TESTS}::test_an_input_required_result_may_carry_input_requests",
    ),
    Cover(
        "mrtr-input-requests-unique-keys",
        "server",
        f"{TESTS}::test_input_request_keys_are_not_repeated",
        fault=inject_raw_before("tools/call", REPEATED_KEYS),
    ),
    Cover(
        "mrtr-input-requests-allowed-types",
        "server",
        f"{TESTS}::test_input_requests_are_sampling_elicitation_or_roots_requests",
        fault=set_field("tools/call", "result.inputRequests", {"q": {"method": "ping"}}),
    ),
    Cover(
        "mrtr-request-state-optional",
        "server",
        f"{TESTS}::test_an_input_required_result_may_carry_request_state",
    ),
    Cover(
        "mrtr-input-required-nonempty",
        "server",
        f"{TESTS}::test_every_input_required_result_asks_or_keeps_state",
        fault=set_field("tools/call", "result", {"resultType": "input_required"}),
    ),
    Cover(
        "mrtr-input-requests-declared-capabilities",
        "server",
        f"{TESTS}::test_a_server_asks_only_for_what_the_client_declared",
        fault=set_field("tools/call", "result", ASKING_SAMPLING),
    ),
    Cover(
        "mrtr-server-no-assumed-retry",
        "server",
        f"{TESTS}::test_a_server_does_not_wait_for_a_retry_that_never_comes",
        fault=set_field("tools/call", "error", {"code": -32603, "message": "busy"}, occurrence=4),
    ),
    Cover(
        "mrtr-server-repeat-input-required",
        "server",
        f"{TESTS}::test_a_server_may_ask_again_on_the_retry",
    ),
    Cover(
        "mrtr-request-state-untrusted",
        "server",
        f"{TESTS}::test_a_crafted_request_state_is_handled_as_hostile_input",
        fault=set_field("tools/call", "error", {"code": -32603, "message": "state"}, occurrence=2),
    ),
    Cover(
        "mrtr-request-state-integrity",
        "server",
        f"{TESTS}::test_a_tampered_request_state_does_not_complete_the_request",
        fault=nth_answer(COMPLETE, 3),  # 1: first round, 2: the retry without its state, 3: the first tampered one
    ),
    Cover(
        "mrtr-request-state-reject-unverified",
        "server",
        f"{TESTS}::test_a_request_state_that_fails_verification_is_refused",
        fault=nth_answer(COMPLETE, 3),
    ),
    Cover(
        "mrtr-request-state-bind-request",
        "server",
        f"{TESTS}::test_a_request_state_is_refused_on_another_request",
        fault=nth_answer(COMPLETE, 2),
    ),
    Cover(
        "mrtr-request-state-single-use",
        "server",
        f"{TESTS}::test_a_single_use_request_state_is_redeemed_once",
        fault=nth_answer(COMPLETE, 3),  # 1: first round, 2: the redemption, 3: its replay
    ),
    Cover(
        "mrtr-server-validate-input-responses",
        "server",
        f"{TESTS}::test_answers_of_the_wrong_kind_are_not_taken",
        fault=nth_answer(COMPLETE, 2),
    ),
    Cover(
        "mrtr-protocol-errors-jsonrpc",
        "server",
        f"{TESTS}::test_a_malformed_retry_is_a_json_rpc_error",
        fault=set_field("tools/call", "error.code", -32603, occurrence=2),
    ),
    Cover(
        "mrtr-ignore-unexpected-input-responses",
        "server",
        f"{TESTS}::test_an_unexpected_answer_is_ignored",
        fault=nth_answer(FAILED, 2),
    ),
    Cover(
        "mrtr-rerequest-missing-input",
        "server",
        f"{TESTS}::test_missing_answers_are_asked_for_again",
        fault=nth_answer(FAILED, 2),
    ),
]

# The client's side (2026-07-28): its calls of the scripted server's ``ask`` tool, damaged on the wire.
ANOTHER_CALL_WITH_THE_STATE = {
    "jsonrpc": "2.0",
    "id": "mcp-matrix-parallel",
    "method": "tools/call",
    "params": {
        "name": "echo",
        "arguments": {"text": "in parallel"},
        "requestState": 'mcp-matrix/1 eyJyb3VuZCI6MX0= +/ "q" \\ café',
        "inputResponses": {"name": {"action": "accept", "content": {"name": "mcp-matrix"}}},
    },
}
COVERS += [
    Cover(
        "mrtr-client-fulfil-input-requests",
        "client",
        f"{TESTS}::test_the_client_answers_every_question_before_it_retries",
        fault=drop_field("tools/call", "params.inputResponses"),
    ),
    Cover(
        "mrtr-client-echo-request-state",
        "client",
        f"{TESTS}::test_the_client_sends_each_request_state_back_exactly",
        fault=set_field("tools/call", "params.requestState", "mcp-matrix/forged"),
    ),
    Cover(
        "mrtr-client-no-invented-request-state",
        "client",
        f"{TESTS}::test_the_client_invents_no_request_state",
        fault=set_field("tools/call", "params.requestState", "mcp-matrix/invented"),
    ),
    Cover(
        "mrtr-retry-new-jsonrpc-id",
        "client",
        f"{TESTS}::test_each_retry_has_an_id_of_its_own",
        # the initial call sent again under its own id (as a client that retries by resending it would)
        fault=answer_twice("tools/call"),
    ),
    Cover(
        "mrtr-client-request-state-opaque",
        "client",
        f"{TESTS}::test_the_client_treats_request_state_as_opaque",
        # the retry after the round whose state is JSON text (the fifth call) carrying it parsed and re-serialized
        fault=set_field(
            "tools/call", "params.requestState", '{"round": 4, "exp": 946684800, "done": true}', occurrence=5
        ),
    ),
    Cover("mrtr-client-immediate-retry", "client", f"{TESTS}::test_the_client_may_retry_a_state_only_round_at_once"),
    Cover(
        "mrtr-input-scoped-to-retry",
        "client",
        f"{TESTS}::test_a_round_trips_state_and_answers_go_only_on_its_retry",
        fault=inject_before("tools/call", ANOTHER_CALL_WITH_THE_STATE),
    ),
]

# requestState replay protection, judged on the server configured for it (the profile's configurations)
COVERS += [
    Cover(
        "mrtr-request-state-bind-principal",
        "server",
        f"{TESTS}::test_a_request_state_presented_by_another_principal_is_refused",
        # what the other principal is told: the request completed
        fault=set_field("tools/call", "result", COMPLETE),
    ),
    Cover(
        "mrtr-request-state-expiry",
        "server",
        f"{TESTS}::test_a_request_state_presented_after_its_lifetime_is_refused",
        # the fourth answer (first round, retry without state, retry at once, retry after the lifetime) completes
        fault=nth_answer(COMPLETE, 4),
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-085",
        "whether tampering with an unprotected requestState could do worse than fail the request is the "
        "server's own semantics, not visible on the wire",
        {"mrtr-request-state-integrity-omission": "server"},
    ),
]
