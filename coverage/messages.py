"""Coverage of the messages area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps
from conformance.harness.faults import change_id, drop_field, inject_before, set_field
from conformance.harness.frames import UNKNOWN_METHOD

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

GAPS: list[Gap] = [
    Gap(
        "messages-batch-receive",
        "server",
        "F-002",
        "a JSON-RPC batch gets no answer at all: the SDK drops arrays without a word",
    ),
    *gaps(
        "#4",
        "base protocol: tested with the harness (issue #4)",
        {
            "messages-request-id-type": "server",
            "messages-request-id-not-null": "server",
            "messages-request-id-unique-in-session": "server",
            "messages-request-id-unique-in-flight": "client",
            "messages-response-id-matches-request": "client",
            "messages-response-result-or-error": "client",
            "messages-response-not-both": "client",
            "messages-result-any-object": "both",
            "messages-result-response-id-matches-request": "client",
            "messages-result-response-has-result": "client",
            "messages-result-type-supported-set": "both",
            "messages-result-type-unknown-invalid": "client",
            "messages-result-type-absent-complete": "client",
            "messages-error-response-id-matches-request": "client",
            "messages-error-code-and-message": "client",
            "messages-error-code-integer": "client",
            "messages-error-data-optional": "server",
            "messages-notification-no-response": "client",
            "messages-notification-no-id": "server",
            "messages-batch-send-optional": "both",
            "messages-batch-receive": "client",
            "messages-server-no-requests": "server",
            "messages-request-scoped-notifications": "server",
            "messages-server-result-any-object": "server",
        },
    ),
]
