"""Coverage of the messages area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.exchanges import PING_ID, UNKNOWN_ID, client_sends
from conformance.harness.faults import Fault, change_id, drop_field, inject_before, set_field
from conformance.harness.frames import UNKNOWN_METHOD
from conformance.matrix.covers import Cover, Gap

TESTS = "conformance/test_messages.py"

COVERS: list[Cover] = [
    Cover(
        "messages-jsonrpc-2-0",
        "server",
        f"{TESTS}::test_every_frame_is_json_rpc_2_0",
        fault=set_field("ping", "jsonrpc", "1.0"),
        revisions="2024-11-05..2025-11-25",
    ),
    Cover(
        "messages-jsonrpc-2-0",
        "server",
        f"{TESTS}::test_every_frame_is_json_rpc_2_0",
        fault=set_field("server/discover", "jsonrpc", "1.0"),
        revisions="2026-07-28",
    ),
    Cover(
        "messages-response-id-matches-request",
        "server",
        f"{TESTS}::test_a_response_carries_the_id_of_its_request",
        fault=change_id("ping"),
    ),
    Cover(
        "messages-response-id-matches-request",
        "server",
        f"{TESTS}::test_an_error_response_too_carries_the_id_of_its_request",
        fault=change_id(UNKNOWN_METHOD),
    ),
    Cover(
        "messages-server-result-response-id",
        "server",
        f"{TESTS}::test_a_server_result_response_carries_the_id_of_its_request",
        fault=change_id("server/discover"),
    ),
    Cover(
        "messages-result-response-id-matches-request",
        "server",
        f"{TESTS}::test_a_result_response_carries_the_id_of_its_request",
        fault=change_id("ping"),
    ),
    Cover(
        "messages-response-result-or-error",
        "server",
        f"{TESTS}::test_a_response_holds_a_result_or_an_error",
        fault=drop_field("ping", "result"),
    ),
    Cover(
        "messages-response-not-both",
        "server",
        f"{TESTS}::test_a_response_never_holds_both_result_and_error",
        fault=set_field("ping", "error", {"code": -32603, "message": "both"}),
    ),
    Cover(
        "messages-result-response-has-result",
        "server",
        f"{TESTS}::test_a_successful_response_holds_a_result",
        fault=drop_field("ping", "result"),
    ),
    Cover(
        "messages-server-result-response-has-result",
        "server",
        f"{TESTS}::test_a_servers_successful_response_holds_a_result",
        fault=drop_field("server/discover", "result"),
    ),
    Cover(
        "messages-error-response-id-matches-request",
        "server",
        f"{TESTS}::test_an_error_response_carries_the_id_of_its_request",
        fault=change_id(UNKNOWN_METHOD),
    ),
    Cover(
        "messages-error-code-and-message",
        "server",
        f"{TESTS}::test_an_error_holds_a_code_and_a_message",
        fault=drop_field(UNKNOWN_METHOD, "error.message"),
    ),
    Cover(
        "messages-server-error-response-id",
        "server",
        f"{TESTS}::test_a_servers_error_response_carries_the_id_of_its_request",
        fault=change_id(UNKNOWN_METHOD),
    ),
    Cover(
        "messages-server-error-code-and-message",
        "server",
        f"{TESTS}::test_a_servers_error_holds_a_code_and_a_message",
        fault=drop_field(UNKNOWN_METHOD, "error.message"),
    ),
    Cover(
        "messages-server-error-code-integer",
        "server",
        f"{TESTS}::test_a_servers_error_code_is_an_integer",
        fault=set_field(UNKNOWN_METHOD, "error.code", "-32601"),
    ),
    Cover(
        "messages-error-code-integer",
        "server",
        f"{TESTS}::test_an_error_code_is_an_integer",
        fault=set_field(UNKNOWN_METHOD, "error.code", "-32601"),
    ),
    Cover(
        "messages-notification-no-response",
        "server",
        f"{TESTS}::test_a_notification_gets_no_response",
        fault=inject_before("ping", {"jsonrpc": "2.0", "id": "stray", "result": {}}),
        revisions="2025-03-26..2025-11-25",
    ),
    Cover(
        "messages-notification-no-response",
        "server",
        f"{TESTS}::test_a_notification_gets_no_response",
        fault=inject_before("server/discover", {"jsonrpc": "2.0", "id": "stray", "result": {}}),
        revisions="2026-07-28",
    ),
    Cover(
        "messages-result-type-present",
        "server",
        f"{TESTS}::test_every_result_carries_a_result_type",
        fault=drop_field("server/discover", "result.resultType"),
    ),
    Cover(
        "messages-jsonrpc-2-0",
        "client",
        f"{TESTS}::test_every_client_frame_is_json_rpc_2_0",
        fault=set_field("tools/list", "jsonrpc", "1.0"),
    ),
    Cover(
        "messages-request-id-type",
        "client",
        f"{TESTS}::test_client_request_ids_are_strings_or_integers",
        fault=change_id("tools/list", 1.5),
    ),
    Cover(
        "messages-client-request-id-type",
        "client",
        f"{TESTS}::test_a_modern_clients_request_ids_are_strings_or_integers",
        fault=change_id("tools/list", 1.5),
    ),
    Cover(
        "messages-request-id-not-null",
        "client",
        f"{TESTS}::test_client_request_ids_are_never_null",
        fault=set_field("tools/list", "id", None),
    ),
    Cover(
        "messages-client-request-id-not-null",
        "client",
        f"{TESTS}::test_a_modern_clients_request_ids_are_never_null",
        fault=set_field("tools/list", "id", None),
    ),
    Cover(
        "messages-request-id-unique-in-session",
        "client",
        f"{TESTS}::test_client_request_ids_are_not_reused_in_a_session",
        fault=change_id("tools/call", 2),
    ),
    Cover(
        "messages-notification-no-id",
        "client",
        f"{TESTS}::test_client_notifications_carry_no_id",
        fault=set_field("notifications/initialized", "id", 99),
        revisions="2024-11-05..2025-11-25",
    ),
    Cover(
        "messages-notification-no-id",
        "client",
        f"{TESTS}::test_client_notifications_carry_no_id",
        fault=set_field("notifications/cancelled", "id", 99),
        revisions="2026-07-28",
    ),
]

# The base protocol over whole conversations (issue #4): the server's frames of a rich conversation, the
# client's answers to what the scripted stdio server asks it, and its reactions to scripted answers.
NOT_ASKED = "mcp-matrix-not-asked"  # an id the scripted server never used: an answer to nothing


COVERS += [
    Cover(
        "messages-notification-no-id",
        "server",
        f"{TESTS}::test_server_notifications_carry_no_id",
        fault=set_field("notifications/progress", "id", 99),
    ),
    Cover(
        "messages-server-no-requests",
        "server",
        f"{TESTS}::test_a_modern_server_sends_no_requests",
        fault=inject_before("tools/list", {"jsonrpc": "2.0", "id": "mcp-matrix-injected", "method": "ping"}),
    ),
    Cover("messages-result-any-object", "server", f"{TESTS}::test_server_results_are_json_objects"),
    Cover("messages-server-result-any-object", "server", f"{TESTS}::test_a_modern_servers_results_are_json_objects"),
    Cover(
        "messages-result-type-supported-set",
        "server",
        f"{TESTS}::test_a_servers_result_types_are_the_core_ones",
        fault=set_field("tools/list", "result.resultType", "task"),
    ),
    Cover(
        "messages-request-scoped-notifications", "server", f"{TESTS}::test_a_server_notifies_about_requests_in_flight"
    ),
    Cover("messages-error-data-optional", "server", f"{TESTS}::test_a_servers_errors_may_carry_data"),
    Cover(
        "messages-batch-send-optional", "server", f"{TESTS}::test_a_server_batch_holds_only_requests_and_notifications"
    ),
    Cover(
        "messages-request-id-type",
        "server",
        f"{TESTS}::test_server_request_ids_are_strings_or_integers",
        fault=change_id("sampling/createMessage", 1.5),
    ),
    Cover(
        "messages-request-id-not-null",
        "server",
        f"{TESTS}::test_server_request_ids_are_never_null",
        fault=set_field("sampling/createMessage", "id", None),
    ),
    Cover(
        "messages-request-id-unique-in-session",
        "server",
        f"{TESTS}::test_server_request_ids_are_not_reused_in_a_session",
        fault=change_id("sampling/createMessage", "mcp-matrix-same"),
    ),
    Cover(
        "messages-response-id-matches-request",
        "client",
        f"{TESTS}::test_client_responses_carry_the_id_of_their_request",
        fault=client_sends({"id": NOT_ASKED, "result": {}}),
    ),
    Cover(
        "messages-result-response-id-matches-request",
        "client",
        f"{TESTS}::test_client_result_responses_carry_the_id_of_their_request",
        fault=client_sends({"id": NOT_ASKED, "result": {}}),
    ),
    Cover(
        "messages-error-response-id-matches-request",
        "client",
        f"{TESTS}::test_client_error_responses_carry_the_id_of_their_request",
        fault=client_sends({"id": NOT_ASKED, "error": {"code": -32601, "message": "Method not found"}}),
    ),
    Cover(
        "messages-response-result-or-error",
        "client",
        f"{TESTS}::test_client_responses_hold_a_result_or_an_error",
        fault=client_sends({"id": PING_ID}),
    ),
    Cover(
        "messages-response-not-both",
        "client",
        f"{TESTS}::test_client_responses_never_hold_both_result_and_error",
        fault=client_sends({"id": PING_ID, "result": {}, "error": {"code": -32603, "message": "Both."}}),
    ),
    Cover(
        "messages-result-response-has-result",
        "client",
        f"{TESTS}::test_client_successful_responses_hold_a_result",
        fault=client_sends({"id": PING_ID}),
    ),
    Cover(
        "messages-error-code-and-message",
        "client",
        f"{TESTS}::test_client_errors_hold_a_code_and_a_message",
        fault=client_sends({"id": UNKNOWN_ID, "error": {"code": -32601}}),
    ),
    Cover(
        "messages-error-code-integer",
        "client",
        f"{TESTS}::test_client_error_codes_are_integers",
        fault=client_sends({"id": UNKNOWN_ID, "error": {"code": "-32601", "message": "Method not found"}}),
    ),
    Cover("messages-result-any-object", "client", f"{TESTS}::test_client_results_are_json_objects"),
    Cover(
        "messages-notification-no-response",
        "client",
        f"{TESTS}::test_the_client_answers_no_notification",
        fault=client_sends({"id": None, "result": {}}),
    ),
    Cover(
        "messages-batch-send-optional", "client", f"{TESTS}::test_a_client_batch_holds_only_requests_and_notifications"
    ),
    Cover(
        "messages-request-id-unique-in-flight",
        "client",
        f"{TESTS}::test_client_request_ids_are_unique_among_requests_in_flight",
        fault=Fault("change-id", ("prompts/list", "resources/list"), value="mcp-matrix-same"),
    ),
]

GAPS: list[Gap] = [
    Gap(
        "messages-batch-receive",
        "client",
        "F-051",
        "a JSON-RPC batch from the server is refused as an invalid message: the ping in it is never answered",
    ),
    Gap(
        "messages-result-type-unknown-invalid",
        "client",
        "F-050",
        "a result whose resultType the client does not know (tools/list, tools/call) is taken as a valid result",
    ),
    Gap(
        "messages-result-type-supported-set",
        "client",
        "F-050",
        "a result of resultType 'task' (an extension the client did not advertise) is taken as a valid result",
    ),
    Gap(
        "messages-result-type-absent-complete",
        "client",
        "F-052",
        "a 2026-07-28 client refuses a legacy server's result without resultType (pydantic: resultType required)",
    ),
    Gap(
        "messages-batch-receive",
        "server",
        "F-002",
        "a JSON-RPC batch gets no answer at all: over stdio the SDK drops arrays without a word (F-002), over "
        "Streamable HTTP it refuses the POST with 400 (F-100)",
    ),
]
