"""Coverage of the cancellation area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.faults import drop_field, inject_before, misreport, set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_cancellation.py"
# A cancellation of a request nobody issued, as if the server had sent it (2026-07-28 faults).
STRAY_CANCELLATION = {
    "jsonrpc": "2.0",
    "method": "notifications/cancelled",
    "params": {"requestId": "mcp-matrix-never-issued"},
}
# An answer to the cancelled slow operation, arriving before the next tool call's answer.
ANSWERED_AFTER_CANCEL = {"jsonrpc": "2.0", "id": "slow-op", "error": {"code": -32800, "message": "Request cancelled"}}
# An error answering nothing the client asked, as if the server had answered a notification or a response.
ERROR_FOR_A_NOTIFICATION = {"jsonrpc": "2.0", "id": None, "error": {"code": -32602, "message": "bad cancellation"}}
# The fixture's account of the cancelled run, as a server that kept working after the cancellation gives it.
RAN_TO_COMPLETION = [{"type": "text", "text": "completed after 20 steps"}]

# A cancellation of the server's first request to the client (the TypeScript SDK numbers them from 0: its
# task-augmented sampling request), as if the server had cancelled that request with notifications/cancelled.
CANCELLED_TASK_REQUEST = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}}

# The client side (faults on what the client sends): a cancellation naming a request the client never issued;
# a cancellation of the initialize request (the SDK's client numbers it 1); what the application is told of the
# abandoned call and of the next request, each given the other's (a client that hands a late answer on).
NEVER_ISSUED = "mcp-matrix-never-issued"
# The client's answer to the scripted server's sampling request (its first request), which the server cancelled.
SAMPLED_AFTER_CANCEL = {
    "jsonrpc": "2.0",
    "id": "mcp-matrix-server-1",
    "result": {"role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "mcp-matrix"},
}
CANCELLED_INITIALIZE = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
# A cancellation of the task-augmented tools/call sent with the client's tasks/cancel: the call numbered as the
# TypeScript SDK numbers it in ``cancel_task`` (initialize 0, tools/list 1, tools/call 2); the default target,
# whose client has no tasks, gaps the cell (#12), so --falsify never runs it there.
CANCELLED_TASK_CALL = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}

COVERS: list[Cover] = [
    Cover(
        "cancellation-tasks-use-tasks-cancel",
        "server",
        f"{TESTS}::test_the_server_cancels_its_task_augmented_requests_with_tasks_cancel",
        fault=inject_before("sampling/createMessage", CANCELLED_TASK_REQUEST),
    ),
    Cover(
        "cancellation-receiver-stop-processing",
        "server",
        f"{TESTS}::test_a_cancelled_request_stops_being_processed",
        fault=set_field("tools/call", "result.content", RAN_TO_COMPLETION),
    ),
    Cover(
        "cancellation-server-stop-processing",
        "server",
        f"{TESTS}::test_a_modern_server_stops_processing_a_cancelled_request",
        fault=set_field("tools/call", "result.content", RAN_TO_COMPLETION),
    ),
    Cover(
        "cancellation-receiver-no-response",
        "server",
        f"{TESTS}::test_a_cancelled_request_gets_no_response",
        fault=inject_before("tools/call", ANSWERED_AFTER_CANCEL),
    ),
    Cover(
        "cancellation-server-no-response",
        "server",
        f"{TESTS}::test_a_modern_server_does_not_answer_a_cancelled_request",
        fault=inject_before("tools/call", ANSWERED_AFTER_CANCEL),
    ),
    Cover(
        "cancellation-ignore-invalid",
        "server",
        f"{TESTS}::test_invalid_cancellations_are_ignored",
        fault=inject_before(("ping", "server/discover"), ERROR_FOR_A_NOTIFICATION),
    ),
    Cover(
        "cancellation-race-graceful",
        "server",
        f"{TESTS}::test_a_cancellation_that_crosses_the_response_does_no_harm",
        fault=drop_field("tools/call", "result"),
    ),
    Cover(
        "cancellation-reference-own-inflight-request",
        "server",
        f"{TESTS}::test_the_server_cancels_only_its_own_requests_in_flight",
        fault=set_field("notifications/cancelled", "params.requestId", "sampling-call"),
    ),
    Cover(
        "cancellation-target-in-flight-cancellednotification",
        "server",
        f"{TESTS}::test_the_server_cancels_requests_still_in_flight",
        fault=set_field("notifications/cancelled", "params.requestId", "sampling-call"),
        revisions="2024-11-05..2025-11-25",
    ),
    Cover(
        "cancellation-target-in-flight-cancellednotification",
        "server",
        f"{TESTS}::test_the_server_cancels_requests_still_in_flight",
        fault=inject_before("tools/call", STRAY_CANCELLATION),
        revisions="2026-07-28",
    ),
    Cover(
        "cancellation-request-id-for-non-task-requestid",
        "server",
        f"{TESTS}::test_the_servers_cancellations_carry_a_request_id",
        fault=drop_field("notifications/cancelled", "params.requestId"),
    ),
    Cover(
        "cancellation-sender-ignore-late-response",
        "server",
        f"{TESTS}::test_the_server_ignores_a_late_answer_to_a_request_it_cancelled",
        fault=inject_before("ping", ERROR_FOR_A_NOTIFICATION),
    ),
    Cover(
        "cancellation-reference-client-request",
        "server",
        f"{TESTS}::test_a_modern_server_cancels_only_client_requests_in_flight",
        fault=inject_before("tools/call", STRAY_CANCELLATION),
    ),
    Cover(
        "cancellation-server-sent-only-subscriptions",
        "server",
        f"{TESTS}::test_a_modern_server_cancels_only_subscription_streams",
        fault=inject_before("tools/call", STRAY_CANCELLATION),
    ),
    Cover(
        "cancellation-server-subscription-teardown",
        "server",
        f"{TESTS}::test_a_torn_down_subscription_stream_is_ended_for_its_client",
        fault=inject_before("tools/call", STRAY_CANCELLATION),
    ),
]

COVERS += [
    Cover(
        "cancellation-reference-own-inflight-request",
        "client",
        f"{TESTS}::test_the_client_cancels_only_its_own_requests_in_flight",
        fault=set_field("notifications/cancelled", "params.requestId", NEVER_ISSUED),
    ),
    Cover(
        "cancellation-reference-client-request",
        "client",
        f"{TESTS}::test_the_modern_client_cancels_only_its_own_requests_in_flight",
        fault=set_field("notifications/cancelled", "params.requestId", NEVER_ISSUED),
    ),
    Cover(
        "cancellation-target-in-flight-cancellednotification",
        "client",
        f"{TESTS}::test_the_client_cancels_requests_still_in_flight",
        fault=set_field("notifications/cancelled", "params.requestId", NEVER_ISSUED),
    ),
    Cover(
        "cancellation-request-id-for-non-task-requestid",
        "client",
        f"{TESTS}::test_the_clients_cancellations_carry_a_request_id",
        fault=drop_field("notifications/cancelled", "params.requestId"),
    ),
    Cover(
        "cancellation-client-signals-cancel",
        "client",
        f"{TESTS}::test_the_modern_client_signals_the_call_it_abandons",  # no fault: over HTTP the signal is
        # the close of the call's stream, which no fault on the client's messages can undo (a SHOULD)
    ),
    Cover(
        "cancellation-sender-ignore-late-response",
        "client",
        f"{TESTS}::test_the_client_ignores_a_late_answer_to_a_request_it_cancelled",
        fault=misreport("calls"),
    ),
    Cover(
        "cancellation-client-ignore-late-response",
        "client",
        f"{TESTS}::test_the_modern_client_ignores_a_late_answer_to_a_request_it_cancelled",
        fault=misreport("calls"),
    ),
    Cover(
        "cancellation-race-graceful",
        "client",
        f"{TESTS}::test_the_client_copes_with_an_answer_crossing_its_cancellation",
        fault=misreport("calls"),
    ),
    Cover(
        "cancellation-ignore-invalid",
        "client",
        f"{TESTS}::test_the_client_ignores_invalid_cancellations",
        fault=inject_before("tools/call", ERROR_FOR_A_NOTIFICATION),
    ),
    Cover(
        "cancellation-receiver-stop-processing",
        "client",
        f"{TESTS}::test_the_client_stops_processing_a_request_the_server_cancelled",
        fault=misreport("sampling", "answered"),  # the host's model left to run to its answer
    ),
    Cover(
        "cancellation-receiver-no-response",
        "client",
        f"{TESTS}::test_the_client_does_not_answer_a_request_the_server_cancelled",
        fault=inject_before("tools/list", SAMPLED_AFTER_CANCEL),
    ),
    Cover(
        "cancellation-log-reasons",
        "client",
        f"{TESTS}::test_the_client_logs_the_reason_of_a_cancellation",
    ),
    Cover(
        "cancellation-tasks-use-tasks-cancel",
        "client",
        f"{TESTS}::test_the_client_cancels_its_task_augmented_request_with_tasks_cancel",
        fault=inject_before("tasks/cancel", CANCELLED_TASK_CALL),
    ),
    Cover(
        "cancellation-initialize-not-cancellable",
        "client",
        f"{TESTS}::test_the_client_never_cancels_its_initialize_request",
        fault=inject_before("initialize", CANCELLED_INITIALIZE),
    ),
]

GAPS: list[Gap] = [
    Gap(
        "cancellation-receiver-no-response",
        "server",
        "F-010",
        "on Streamable HTTP the SDK answers a cancelled request with error -32800 (stdio stays silent)",
        revisions="2025-03-26..2025-11-25",
    ),
    Gap(
        "cancellation-log-reasons",
        "server",
        "F-011",
        "the SDK drops the reason of a notifications/cancelled it receives: nothing logs it",
    ),
    *gaps(
        "L-074",
        "a permission of the receiving server with nothing to break (which cancellations to act on, whether to "
        "log or show the reason)",
        {
            "cancellation-receiver-may-ignore": "server",
            "cancellation-server-may-ignore": "server",
            "cancellation-reason-logged-or-shown-reason": "server",
        },
    ),
    *gaps(
        "L-095",
        "the host's user interface showing that a cancellation was requested is on its screen, not on the wire",
        {"cancellation-ui-indication": "client"},
    ),
    *gaps(
        "L-115",
        "a permission of the client with nothing to break (which cancellations to act on, whether to log or "
        "show the reason)",
        {
            "cancellation-receiver-may-ignore": "client",
            "cancellation-reason-logged-or-shown-reason": "client",
        },
    ),
]
