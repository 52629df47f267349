"""Coverage of the streamable-http area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.faults import (
    arrives_early,
    bundled_with,
    change_id,
    drop_field,
    http_body,
    http_header,
    http_method,
    http_status,
    inject_before,
    same_event_id,
    set_field,
    silence,
)
from conformance.harness.frames import PROBE_METHODS, UNKNOWN_METHOD
from conformance.matrix.covers import Cover, Gap

#: The fixture's first progress notification of test_tool_with_progress (token progress-1), as the
#: server sends it on the request's own stream: injected on the GET stream, it is sent on two streams.
FIRST_PROGRESS = {
    "jsonrpc": "2.0",
    "method": "notifications/progress",
    "params": {"progressToken": "progress-1", "progress": 0, "total": 100, "message": "Completed step 0 of 100"},
}

#: A response posted in the same body as a request: a batch that mixes the two kinds.
POSTED_RESPONSE = {"jsonrpc": "2.0", "id": "mcp-matrix-response", "result": {}}
#: A notification in the same POST as a request.
EXTRA_NOTIFICATION = {"jsonrpc": "2.0", "method": "notifications/mcp-matrix/extra"}

TESTS = "conformance/test_streamable_http.py"
HEADERS_TESTS = "conformance/test_streamable_http_headers.py"

COVERS: list[Cover] = [
    Cover(
        "streamable-http-endpoint-accepts-post",
        "server",
        f"{TESTS}::test_the_endpoint_accepts_post",
        fault=http_status(PROBE_METHODS, 405),
    ),
    Cover(
        "streamable-http-request-response-content-type",
        "server",
        f"{TESTS}::test_a_request_is_answered_with_json_or_an_event_stream",
        fault=http_header(PROBE_METHODS, "content-type", "text/plain"),
    ),
    Cover(
        "streamable-http-accepted-no-request-202",
        "server",
        f"{TESTS}::test_an_accepted_notification_gets_202_and_no_body",
        fault=http_status("notifications/initialized", 200),
        revisions="2025-03-26..2025-11-25",
    ),
    Cover(
        "streamable-http-get-response",
        "server",
        f"{TESTS}::test_get_opens_an_event_stream_or_is_refused_with_405",
        fault=http_status("GET", 500),
    ),
    Cover(
        "streamable-http-session-id-visible-ascii",
        "server",
        f"{TESTS}::test_a_session_id_is_visible_ascii",
        fault=http_header("initialize", "mcp-session-id", "two words"),
    ),
    Cover(
        "streamable-http-ended-session-404",
        "server",
        f"{TESTS}::test_a_request_in_an_ended_session_gets_404",
        fault=http_status("ping", 200),
    ),
    Cover(
        "streamable-http-unsupported-protocol-version-400",
        "server",
        f"{TESTS}::test_an_unsupported_protocol_version_header_gets_400",
        fault=http_status(PROBE_METHODS, 200),
    ),
    Cover(
        "streamable-http-origin-validation",
        "server",
        f"{TESTS}::test_a_foreign_origin_is_refused",
        fault=http_status(("initialize", "server/discover"), 200),
    ),
    Cover(
        "streamable-http-origin-invalid-403",
        "server",
        f"{TESTS}::test_a_foreign_origin_gets_403",
        fault=http_status(("initialize", "server/discover"), 400),
    ),
    Cover(
        "streamable-http-method-not-found-404",
        "server",
        f"{TESTS}::test_an_unknown_method_gets_404_with_minus_32601",
        fault=http_status(UNKNOWN_METHOD, 200),
    ),
    Cover(
        "streamable-http-client-sends-via-post",
        "client",
        f"{TESTS}::test_the_client_sends_every_message_by_post",
        fault=http_method("tools/list", "PUT"),
    ),
    Cover(
        "streamable-http-client-new-post-per-message",
        "client",
        f"{TESTS}::test_each_client_message_travels_in_its_own_post",
        fault=bundled_with("tools/list", EXTRA_NOTIFICATION),
    ),
    Cover(
        "streamable-http-client-accept-header-post",
        "client",
        f"{TESTS}::test_every_client_post_accepts_json_and_event_streams",
        fault=http_header("tools/list", "accept", "application/json"),
    ),
    Cover(
        "streamable-http-client-sends-session-id",
        "client",
        f"{TESTS}::test_the_client_sends_its_session_id_after_initialization",
        fault=http_header("tools/list", "mcp-session-id", None),
    ),
    Cover(
        "streamable-http-protocol-version-header-after-init",
        "client",
        f"{TESTS}::test_the_client_sends_the_protocol_version_header_after_initialization",
        fault=http_header("tools/list", "mcp-protocol-version", None),
    ),
    Cover(
        "streamable-http-protocol-version-header-negotiated",
        "client",
        f"{TESTS}::test_the_protocol_version_header_names_the_negotiated_version",
        fault=http_header("tools/list", "mcp-protocol-version", "2024-11-05"),
    ),
    Cover(
        "streamable-http-protocol-version-header-every-post",
        "client",
        f"{TESTS}::test_every_modern_client_post_names_its_protocol_version",
        fault=http_header("tools/list", "mcp-protocol-version", None),
    ),
    Cover(
        "streamable-http-protocol-version-header-matches-meta",
        "client",
        f"{TESTS}::test_the_protocol_version_header_equals_the_meta_version",
        fault=http_header("tools/list", "mcp-protocol-version", "2025-11-25"),
    ),
    Cover(
        "streamable-http-client-no-responses",
        "client",
        f"{TESTS}::test_a_modern_client_posts_no_responses",
        fault=inject_before("tools/list", {"jsonrpc": "2.0", "id": "r", "result": {}}),
    ),
    Cover(
        "streamable-http-session-id-unique",
        "server",
        f"{TESTS}::test_two_sessions_get_different_ids",
        fault=http_header("initialize", "mcp-session-id", "same-for-all"),
    ),
    Cover(
        "streamable-http-missing-session-id-400",
        "server",
        f"{TESTS}::test_a_request_without_the_session_id_gets_400",
        fault=http_status("ping", 200),
    ),
    Cover(
        "streamable-http-sse-priming-event",
        "server",
        f"{TESTS}::test_an_sse_answer_opens_with_a_priming_event",
        # the first event carries no id: nothing to resume from
        fault=same_event_id("tools/call", ""),
    ),
    Cover(
        "streamable-http-event-id-unique",
        "server",
        f"{TESTS}::test_event_ids_are_unique_across_the_sessions_streams",
        fault=same_event_id("tools/call"),
    ),
    Cover(
        "streamable-http-post-stream-close-after-response",
        "server",
        f"{TESTS}::test_a_request_stream_ends_after_its_response",
        # No fault: what would break this is a frame after the response on its stream, and the only kind that
        # moves a frame after another (reorder) is not applied to Streamable HTTP streams by the harness.
    ),
    Cover(
        "streamable-http-header-validation-400",
        "server",
        f"{TESTS}::test_a_header_body_mismatch_gets_400",
        fault=http_status("tools/list", 200),
    ),
    Cover(
        "streamable-http-header-validation-error-code",
        "server",
        f"{TESTS}::test_a_header_validation_failure_carries_minus_32020",
        fault=set_field("tools/list", "error.code", -32602),
    ),
    Cover(
        "streamable-http-reject-header-body-mismatch",
        "server",
        f"{TESTS}::test_a_mirrored_header_that_disagrees_with_the_body_is_rejected",
        fault=http_status("tools/list", 200),
    ),
    *(
        Cover(
            "streamable-http-reject-header-body-mismatch",
            "server",
            f"{HEADERS_TESTS}::{test}",
            fault=http_status("tools/call", 200),
        )
        for test in (
            "test_a_protocol_version_header_that_disagrees_with_the_body_is_rejected",
            "test_an_mcp_name_header_that_disagrees_with_the_body_is_rejected",
            "test_an_mcp_param_header_that_disagrees_with_the_body_is_rejected",
        )
    ),
    Cover(
        "streamable-http-reject-missing-standard-header",
        "server",
        f"{TESTS}::test_a_request_without_mcp_method_is_rejected",
        fault=http_status("tools/list", 200),
    ),
    Cover(
        "streamable-http-unsupported-protocol-version-error",
        "server",
        f"{TESTS}::test_an_unsupported_version_400_lists_the_supported_versions",
        fault=drop_field("server/discover", "error.data"),
    ),
    Cover(
        "streamable-http-modern-server-ignore-session-id",
        "server",
        f"{TESTS}::test_a_stray_session_id_is_ignored",
        fault=http_status("tools/list", 404),
    ),
    Cover(
        "streamable-http-modern-server-no-session-id",
        "server",
        f"{TESTS}::test_a_modern_server_issues_no_session_id",
        fault=http_header("tools/list", "mcp-session-id", "issued"),
    ),
    Cover(
        "streamable-http-server-decode-base64",
        "server",
        f"{TESTS}::test_a_base64_encoded_name_header_is_decoded",
        fault=http_status("tools/call", 400),
    ),
    Cover(
        "streamable-http-endpoint-handles-get",
        "server",
        f"{TESTS}::test_the_endpoint_serves_get_beside_post",
        fault=http_status("GET", 404),
    ),
    Cover(
        "streamable-http-get-stream-requests-notifications",
        "server",
        f"{TESTS}::test_the_server_sends_its_own_notifications_on_the_get_stream",
    ),
    Cover(
        "streamable-http-get-stream-batched",
        "server",
        f"{TESTS}::test_a_batch_on_the_get_stream_holds_only_requests_and_notifications",
    ),
    Cover(
        "streamable-http-get-stream-no-responses",
        "server",
        f"{TESTS}::test_the_get_stream_carries_no_responses",
        fault=inject_before("notifications/tools/list_changed", {"jsonrpc": "2.0", "id": "stray", "result": {}}),
    ),
    Cover(
        "streamable-http-get-stream-unrelated",
        "server",
        f"{TESTS}::test_the_get_stream_carries_nothing_of_the_requests_in_flight",
        # the call's progress on the GET stream
        fault=inject_before("notifications/tools/list_changed", FIRST_PROGRESS),
    ),
    Cover(
        "streamable-http-no-broadcast",
        "server",
        f"{TESTS}::test_each_message_travels_on_one_stream_only",
        fault=inject_before("notifications/tools/list_changed", FIRST_PROGRESS),
    ),
    Cover(
        "streamable-http-get-stream-server-close",
        "server",
        f"{TESTS}::test_the_server_can_close_its_get_stream_and_the_session_goes_on",
    ),
    Cover(
        "streamable-http-event-ids-allowed",
        "server",
        f"{TESTS}::test_event_ids_follow_the_sse_standard",
    ),
    Cover(
        "streamable-http-resumable-streams-allowed",
        "server",
        f"{TESTS}::test_a_dropped_request_stream_resumes_without_loss",
    ),
    Cover(
        "streamable-http-replay-on-resume",
        "server",
        f"{TESTS}::test_a_resumed_get_stream_replays_what_it_missed_then_goes_on",
    ),
    # No fault: the harness rewrites an SSE event's id or name, never drops its retry field.
    Cover(
        "streamable-http-retry-before-close",
        "server",
        f"{TESTS}::test_a_stream_closed_early_carried_a_retry_field",
    ),
    Cover(
        "streamable-http-server-close-connection-keep-stream",
        "server",
        f"{TESTS}::test_a_connection_closed_early_leaves_the_stream_resumable",
    ),
    # No fault: the request ids are random, so no rewrite can hand one stream's response to the other;
    # a changed id is a response the resumed read never recognises, and it ends in the harness's wait.
    Cover(
        "streamable-http-event-id-identifies-stream",
        "server",
        f"{TESTS}::test_a_last_event_id_resumes_its_own_stream",
    ),
    Cover(
        "streamable-http-modern-server-ignore-last-event-id",
        "server",
        f"{TESTS}::test_a_stray_last_event_id_is_ignored",
        # the request carrying Last-Event-ID is answered otherwise
        fault=set_field("tools/list", "result.tools", [], occurrence=2),
    ),
    Cover(
        "streamable-http-x-accel-buffering",
        "server",
        f"{TESTS}::test_an_event_stream_answer_turns_proxy_buffering_off",
        fault=http_header("tools/call", "x-accel-buffering", None),
    ),
]

GAPS: list[Gap] = [
    Gap(
        "streamable-http-no-cross-stream-replay",
        "server",
        "F-070",
        "the SDK keys every session's standalone stream as _GET_stream in one shared event store and replays "
        "any Last-Event-ID: a resumed GET stream replays another session's messages",
    ),
    Gap(
        "streamable-http-get-stream-retry-before-close",
        "server",
        "F-071",
        "the SDK closes the standalone GET stream (close_standalone_sse_stream) without ever having sent a "
        "retry field on it",
    ),
]

# -- 2026-07-28's per-request headers (Mcp-Method, Mcp-Name, x-mcp-header / Mcp-Param-*) --------------


def _tool_with(properties: dict) -> list[dict]:
    """A tools/list answer's tools, replaced by one tool whose inputSchema has ``properties``."""
    return [{"name": "broken_by_fault", "inputSchema": {"type": "object", "properties": properties}}]


COVERS += [
    Cover(
        "streamable-http-x-mcp-header-designation",
        "server",
        f"{HEADERS_TESTS}::test_a_server_may_mirror_tool_parameters_into_headers",
    ),
    Cover(
        "streamable-http-x-mcp-header-not-empty",
        "server",
        f"{HEADERS_TESTS}::test_no_x_mcp_header_is_empty",
        fault=set_field("tools/list", "result.tools", _tool_with({"a": {"type": "string", "x-mcp-header": ""}})),
    ),
    Cover(
        "streamable-http-x-mcp-header-token",
        "server",
        f"{HEADERS_TESTS}::test_every_x_mcp_header_is_an_http_token",
        fault=set_field(
            "tools/list", "result.tools", _tool_with({"a": {"type": "string", "x-mcp-header": "Two Words"}})
        ),
    ),
    Cover(
        "streamable-http-x-mcp-header-no-control-chars",
        "server",
        f"{HEADERS_TESTS}::test_no_x_mcp_header_holds_control_characters",
        fault=set_field(
            "tools/list", "result.tools", _tool_with({"a": {"type": "string", "x-mcp-header": "Region\r\nX"}})
        ),
    ),
    Cover(
        "streamable-http-x-mcp-header-unique",
        "server",
        f"{HEADERS_TESTS}::test_x_mcp_headers_are_unique_within_a_tool_ignoring_case",
        fault=set_field(
            "tools/list",
            "result.tools",
            _tool_with(
                {"a": {"type": "string", "x-mcp-header": "Region"}, "b": {"type": "string", "x-mcp-header": "REGION"}}
            ),
        ),
    ),
    Cover(
        "streamable-http-x-mcp-header-primitive-types",
        "server",
        f"{HEADERS_TESTS}::test_x_mcp_header_annotates_only_strings_integers_and_booleans",
        fault=set_field("tools/list", "result.tools", _tool_with({"a": {"type": "number", "x-mcp-header": "A"}})),
    ),
    Cover(
        "streamable-http-x-mcp-header-static-path",
        "server",
        f"{HEADERS_TESTS}::test_x_mcp_header_sits_only_where_properties_alone_reach",
        fault=set_field(
            "tools/list",
            "result.tools",
            _tool_with({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}),
        ),
    ),
    Cover(
        "streamable-http-x-mcp-header-integer-range",
        "server",
        f"{HEADERS_TESTS}::test_the_integer_values_a_definition_gives_a_mirrored_parameter_are_safe",
        fault=set_field(
            "tools/list", "result.tools", _tool_with({"a": {"type": "integer", "x-mcp-header": "A", "default": 2**53}})
        ),
    ),
    Cover(
        "streamable-http-reject-missing-param-header",
        "server",
        f"{HEADERS_TESTS}::test_a_call_without_the_header_of_a_mirrored_argument_is_rejected",
        fault=http_status("tools/call", 200),
    ),
    Cover(
        "streamable-http-no-param-header-expected-when-absent",
        "server",
        f"{HEADERS_TESTS}::test_no_header_is_expected_for_an_absent_or_null_argument",
        fault=http_status("tools/call", 400),
    ),
    Cover(
        "streamable-http-header-names-case-insensitive",
        "server",
        f"{HEADERS_TESTS}::test_the_server_reads_header_names_in_any_case",
        fault=http_status("tools/call", 400),
    ),
    Cover(
        "streamable-http-integer-header-numeric-compare",
        "server",
        f"{HEADERS_TESTS}::test_an_integer_header_is_compared_as_a_number",
        fault=http_status("tools/call", 400),
    ),
    Cover(
        "streamable-http-client-mirror-param-headers",
        "client",
        f"{HEADERS_TESTS}::test_the_client_mirrors_annotated_arguments_into_headers",
        fault=http_header("tools/call", "mcp-param-region", None),
    ),
    Cover(
        "streamable-http-client-omit-absent-param-header",
        "client",
        f"{HEADERS_TESTS}::test_the_client_sends_no_header_for_an_absent_or_null_argument",
        fault=http_header("tools/call", "mcp-param-region", "us-west1"),
    ),
    Cover(
        "streamable-http-client-encode-param-values",
        "client",
        f"{HEADERS_TESTS}::test_the_client_writes_strings_integers_and_booleans_as_the_spec_says",
        fault=http_header("tools/call", "mcp-param-flag", "True"),
    ),
    Cover(
        "streamable-http-client-base64-unsafe-values",
        "client",
        f"{HEADERS_TESTS}::test_the_client_base64_encodes_values_unsafe_in_a_header",
        fault=http_header("tools/call", "mcp-param-text", "line1 line2"),
    ),
    Cover(
        "streamable-http-base64-markers-lowercase",
        "client",
        f"{HEADERS_TESTS}::test_the_base64_markers_are_written_in_lowercase",
        fault=http_header("tools/call", "mcp-param-text", "=?BASE64?SGVsbG8=?="),
    ),
    Cover(
        "streamable-http-client-base64-sentinel-lookalike",
        "client",
        f"{HEADERS_TESTS}::test_a_value_shaped_like_the_sentinel_is_encoded_too",
        fault=http_header("tools/call", "mcp-param-text", "=?base64?literal?="),
    ),
    Cover(
        "streamable-http-client-reject-invalid-x-mcp-header",
        "client",
        f"{HEADERS_TESTS}::test_the_client_drops_tools_whose_annotations_break_the_rules",
        fault=set_field("tools/call", "params.name", "empty_annotation"),
    ),
    # No fault: the warning is in the client's own output, which no fault on the messages it sends can change.
    Cover(
        "streamable-http-client-warn-rejected-tool",
        "client",
        f"{HEADERS_TESTS}::test_the_client_warns_of_each_tool_it_drops",
    ),
    Cover(
        "streamable-http-client-refresh-tools-on-header-mismatch",
        "client",
        f"{HEADERS_TESTS}::test_after_a_header_mismatch_the_client_relists_and_retries",
        fault=http_header("tools/call", "mcp-param-region", None),
    ),
    Cover(
        "streamable-http-mcp-method-header",
        "client",
        f"{HEADERS_TESTS}::test_every_request_post_names_its_method_in_mcp_method",
        fault=http_header("tools/list", "mcp-method", None),
    ),
    Cover(
        "streamable-http-mcp-name-header",
        "client",
        f"{HEADERS_TESTS}::test_named_requests_carry_their_name_in_mcp_name",
        fault=http_header("resources/read", "mcp-name", None),
    ),
    Cover(
        "streamable-http-mcp-name-base64",
        "client",
        f"{HEADERS_TESTS}::test_a_name_unsafe_in_a_header_goes_base64_encoded",
        fault=http_header("tools/call", "mcp-name", "meteo"),
    ),
    Cover(
        "streamable-http-header-names-case-insensitive",
        "client",
        f"{HEADERS_TESTS}::test_the_client_reads_response_header_names_in_any_case",
        fault=set_field("tools/call", "params.name", "not-listed"),
    ),
    Cover(
        "streamable-http-other-transports-ignore-x-mcp-header",
        "client",
        f"{HEADERS_TESTS}::test_over_stdio_an_annotated_tool_is_called_as_any",
    ),
]

GAPS += [
    Gap(
        "streamable-http-reject-invalid-header-chars",
        "server",
        "F-080",
        "an Mcp-Param-* header holding a control character or a non-ASCII byte is served when it reads as the body",
    ),
    Gap(
        "streamable-http-x-mcp-header-integer-range",
        "client",
        "F-081",
        "the client sends an annotated integer beyond +-(2^53-1) in the body and its Mcp-Param-* header",
    ),
]

# -- the client side of the transport: message bodies, JSON and SSE answers, sessions, GET streams,
# resumption, and 2026-07-28's era detection (conformance/test_streamable_http.py) ---------------------


COVERS += [
    Cover(
        "streamable-http-post-body-batch",
        "client",
        f"{TESTS}::test_every_client_post_body_is_a_message_or_a_batch_of_one_kind",
        fault=bundled_with("tools/list", POSTED_RESPONSE),
    ),
    Cover(
        "streamable-http-post-body-single-message",
        "client",
        f"{TESTS}::test_every_client_post_body_is_one_message",
        fault=bundled_with("tools/list", EXTRA_NOTIFICATION),
    ),
    Cover(
        "streamable-http-client-handles-json-and-sse",
        "client",
        f"{TESTS}::test_the_client_takes_answers_in_json_and_in_event_streams",
        fault=set_field("tools/call", "params.name", "echo"),
    ),
    Cover(
        "streamable-http-client-cancel-notification",
        "client",
        f"{TESTS}::test_the_client_cancels_with_a_cancelled_notification",
        fault=set_field("notifications/cancelled", "params.requestId", "not-the-call"),
    ),
    Cover(
        "streamable-http-client-delete-session",
        "client",
        f"{TESTS}::test_the_client_ends_its_session_with_delete",
        fault=http_header("DELETE", "mcp-session-id", None),
    ),
    Cover(
        "streamable-http-client-accept-header-get",
        "client",
        f"{TESTS}::test_every_client_get_accepts_event_streams",
        fault=http_header("GET", "accept", "application/json"),
    ),
    Cover("streamable-http-client-get-stream", "client", f"{TESTS}::test_the_client_listens_on_a_get_stream"),
    Cover(
        "streamable-http-get-stream-client-close", "client", f"{TESTS}::test_the_client_closes_its_get_stream_itself"
    ),
    Cover("streamable-http-multiple-streams", "client", f"{TESTS}::test_the_client_listens_on_two_streams_at_once"),
    Cover(
        "streamable-http-client-session-id-secure-handling",
        "client",
        f"{TESTS}::test_the_session_id_goes_only_to_the_server_that_issued_it",
        fault=http_header("tools/list", "host", "attacker.example"),
    ),
    Cover(
        "streamable-http-backcompat-modern-first",
        "client",
        f"{TESTS}::test_a_dual_era_client_tries_a_modern_request_first",
    ),
    Cover(
        "streamable-http-client-poll-after-close",
        "client",
        f"{TESTS}::test_the_client_reconnects_to_a_stream_the_server_closed",
        fault=http_header("GET", "last-event-id", None),
    ),
    Cover(
        "streamable-http-client-honor-retry",
        "client",
        f"{TESTS}::test_the_client_waits_the_retry_before_reconnecting",
        fault=arrives_early("GET", 1.0),
    ),
    Cover(
        "streamable-http-client-resume-get-last-event-id",
        "client",
        f"{TESTS}::test_the_client_resumes_a_broken_stream_from_its_last_event",
        fault=http_header("GET", "last-event-id", None),
    ),
    Cover(
        "streamable-http-client-resume-after-any-disconnect",
        "client",
        f"{TESTS}::test_the_client_resumes_every_dropped_stream_from_its_last_event",
        fault=http_header("GET", "last-event-id", None),
    ),
]

GAPS += [
    Gap(
        "streamable-http-client-reinitialize-on-404",
        "client",
        "F-090",
        "on a 404 to a request carrying its session id the client fails the request and never sends a new initialize",
    ),
    Gap(
        "streamable-http-backcompat-inspect-400-body",
        "client",
        "F-091",
        "a 400 answering the server/discover probe with -32021 or -32020 in its body makes the client fall back "
        "to initialize; only -32022 is read as a modern server",
    ),
    Gap(
        "streamable-http-broken-stream-reissue",
        "client",
        "F-092",
        "when the response stream of a request breaks, the client fails the request and does not send it again",
    ),
]

# -- a request's stream, sessions, the version header, the endpoint's security, and cancellation by
# closing a request's stream (conformance/test_streamable_http.py) -----------------------------------

#: A request of the server, as if sent on a 2026-07-28 request's stream.
SERVER_REQUEST = {
    "jsonrpc": "2.0",
    "id": "mcp-matrix-server-request",
    "method": "sampling/createMessage",
    "params": {"messages": [], "maxTokens": 1},
}
#: A change notification, as if sent on a request's stream.
LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
#: Progress of the cancelled slow operation (token slow-op), as if sent after its stream was closed.
LEAKED_PROGRESS = {
    "jsonrpc": "2.0",
    "method": "notifications/progress",
    "params": {"progressToken": "slow-op", "progress": 1, "total": 40},
}
#: The outcome tool's answer for a run that went on to its end.
RAN_TO_COMPLETION = [{"type": "text", "text": "completed after 40 steps"}]
#: The outcome tool's answer for a run cancelled when its stream dropped, after its first step.
CANCELLED_EARLY = [{"type": "text", "text": "cancelled after 1 steps"}]
#: The outcome tool's answer for a run that stopped only after 15 steps of 50 ms once its stream was closed.
CANCELLED_LATE = [{"type": "text", "text": "cancelled after 15 steps"}]

COVERS += [
    Cover(
        "streamable-http-accepted-no-request-202",
        "server",
        f"{TESTS}::test_an_accepted_notification_gets_202_and_no_body",
        fault=http_status("notifications/cancelled", 200),
        revisions="2026-07-28",
    ),
    Cover(
        "streamable-http-single-endpoint",
        "server",
        f"{TESTS}::test_all_traffic_goes_to_the_one_endpoint",
        fault=http_status(PROBE_METHODS, 307),
    ),
    Cover(
        "streamable-http-rejected-no-request-error-status",
        "server",
        f"{TESTS}::test_a_notification_the_server_cannot_accept_gets_an_error_status",
        fault=http_status("POST", 202),
    ),
    Cover(
        "streamable-http-rejected-no-request-error-body",
        "server",
        f"{TESTS}::test_the_error_answer_to_a_refused_notification_names_no_request",
    ),
    Cover(
        "streamable-http-origin-403-error-body",
        "server",
        f"{TESTS}::test_a_403_for_a_foreign_origin_carries_at_most_an_id_less_error",
    ),
    # No fault: the addresses a server listens on are in the machine's socket table, not in anything it sends.
    Cover(
        "streamable-http-bind-localhost",
        "server",
        f"{TESTS}::test_the_server_listens_on_loopback_only",
    ),
    # No fault: the test speaks to the configured server through a side peer of its own, which carries none.
    Cover(
        "streamable-http-authentication",
        "server",
        f"{TESTS}::test_a_connection_must_authenticate",
    ),
    Cover(
        "streamable-http-post-stream-includes-response",
        "server",
        f"{TESTS}::test_a_request_stream_delivers_its_response",
        # the stream ends without the response
        fault=silence("tools/call"),
    ),
    Cover(
        "streamable-http-post-stream-keep-open-until-response",
        "server",
        f"{TESTS}::test_a_request_stream_stays_open_until_its_response",
        # the stream ends without the response
        fault=silence("tools/call"),
    ),
    Cover(
        "streamable-http-post-stream-notifications",
        "server",
        f"{TESTS}::test_notifications_may_precede_the_response_on_its_stream",
    ),
    Cover(
        "streamable-http-post-stream-requests",
        "server",
        f"{TESTS}::test_a_request_of_the_server_on_a_request_stream_is_answered_and_the_call_completes",
    ),
    Cover(
        "streamable-http-post-stream-batched-messages",
        "server",
        f"{TESTS}::test_a_batch_on_a_request_stream_holds_only_requests_and_notifications",
    ),
    Cover(
        "streamable-http-post-stream-messages-related",
        "server",
        f"{TESTS}::test_a_request_stream_carries_only_what_concerns_its_request",
        # progress of another request on each call's stream
        fault=inject_before("tools/call", LEAKED_PROGRESS),
    ),
    Cover(
        "streamable-http-post-stream-notifications-related",
        "server",
        f"{TESTS}::test_a_modern_request_stream_carries_only_notifications_of_its_request",
        fault=inject_before("tools/call", LIST_CHANGED),
    ),
    Cover(
        "streamable-http-post-stream-no-requests",
        "server",
        f"{TESTS}::test_a_modern_server_sends_no_requests_on_a_request_stream",
        fault=inject_before("tools/call", SERVER_REQUEST),
    ),
    Cover(
        "streamable-http-post-stream-end-on-session-expiry",
        "server",
        f"{TESTS}::test_a_request_stream_may_end_with_its_session",
    ),
    Cover(
        "streamable-http-session-id-assign",
        "server",
        f"{TESTS}::test_a_session_id_assigned_with_the_initialize_result_keys_the_session",
    ),
    Cover(
        "streamable-http-session-id-secure",
        "server",
        f"{TESTS}::test_session_ids_are_not_guessable",
        # a counter's id
        fault=http_header("initialize", "mcp-session-id", "1"),
    ),
    Cover(
        "streamable-http-server-may-end-session",
        "server",
        f"{TESTS}::test_a_session_the_server_ended_on_its_own_answers_404",
    ),
    Cover(
        "streamable-http-delete-405",
        "server",
        f"{TESTS}::test_a_refused_delete_leaves_the_session_in_place",
    ),
    Cover(
        "streamable-http-missing-protocol-version-assume-2025-03-26",
        "server",
        f"{TESTS}::test_a_request_without_the_version_header_is_still_served",
        # refused for the missing header
        fault=http_status(PROBE_METHODS, 400),
    ),
    Cover(
        "streamable-http-missing-protocol-version-legacy",
        "server",
        f"{TESTS}::test_a_client_without_the_version_header_is_served_as_2025_03_26",
    ),
    Cover(
        "streamable-http-missing-protocol-version-reject",
        "server",
        f"{TESTS}::test_a_request_without_the_version_header_is_rejected_unless_old_clients_are_served",
        fault=http_status("initialize", 400),
    ),
    Cover(
        "streamable-http-modern-server-get-delete-405",
        "server",
        f"{TESTS}::test_get_and_delete_are_refused_with_405",
        fault=http_status("GET", 404),
    ),
    Cover(
        "streamable-http-disconnect-not-cancel",
        "server",
        f"{TESTS}::test_a_dropped_request_stream_does_not_cancel_the_request",
        fault=set_field("tools/call", "result.content", CANCELLED_EARLY),
    ),
    Cover(
        "streamable-http-stream-close-is-cancel",
        "server",
        f"{TESTS}::test_closing_a_request_stream_cancels_the_request",
        fault=set_field("tools/call", "result.content", RAN_TO_COMPLETION),
    ),
    Cover(
        "streamable-http-server-stop-cancelled-work",
        "server",
        f"{TESTS}::test_the_work_of_a_cancelled_request_stops_promptly",
        fault=set_field("tools/call", "result.content", CANCELLED_LATE),
    ),
    Cover(
        "streamable-http-server-silent-after-cancel",
        "server",
        f"{TESTS}::test_nothing_more_comes_for_a_request_whose_stream_was_closed",
        fault=inject_before("tools/call", LEAKED_PROGRESS),
    ),
]

GAPS += [
    Gap(
        "streamable-http-post-stream-batched-responses",
        "server",
        "F-100",
        "a POST holding a batch of requests is refused with 400 (-32602), so no stream answers a batch at all",
    ),
]

# The body half of the rows whose tests judge both an answer's HTTP status and its body: each of those tests
# declares a second fault that leaves the status as it was and breaks the body (make falsify runs it as an
# item of its own, ``...+fault2``), so that neither half of its check goes unproven.
REFUSED_WITH_A_RESULT = {"tools/list": {"tools": []}, "tools/call": {"content": []}}
ACCEPTED_WITH_A_BODY = '{"jsonrpc": "2.0", "id": null, "result": {}}'
COVERS += [
    Cover(
        "streamable-http-accepted-no-request-202",
        "server",
        f"{TESTS}::test_an_accepted_notification_gets_202_and_no_body",
        fault=http_body("notifications/initialized", ACCEPTED_WITH_A_BODY),
        revisions="2025-03-26..2025-11-25",
    ),
    Cover(
        "streamable-http-accepted-no-request-202",
        "server",
        f"{TESTS}::test_an_accepted_notification_gets_202_and_no_body",
        fault=http_body("notifications/cancelled", ACCEPTED_WITH_A_BODY),
        revisions="2026-07-28",
    ),
    Cover(
        "streamable-http-method-not-found-404",
        "server",
        f"{TESTS}::test_an_unknown_method_gets_404_with_minus_32601",
        fault=set_field(UNKNOWN_METHOD, "error.code", -32600),
    ),
    Cover(
        "streamable-http-reject-header-body-mismatch",
        "server",
        f"{TESTS}::test_a_mirrored_header_that_disagrees_with_the_body_is_rejected",
        fault=set_field("tools/list", "result", REFUSED_WITH_A_RESULT["tools/list"]),
    ),
    *(
        Cover(
            "streamable-http-reject-header-body-mismatch",
            "server",
            f"{HEADERS_TESTS}::{test}",
            fault=set_field("tools/call", "result", REFUSED_WITH_A_RESULT["tools/call"]),
        )
        # (not the MCP-Protocol-Version one: the SDK refuses that request before reading its id, with an
        # error whose id is null, which no fault can tie to the call)
        for test in (
            "test_an_mcp_name_header_that_disagrees_with_the_body_is_rejected",
            "test_an_mcp_param_header_that_disagrees_with_the_body_is_rejected",
        )
    ),
    Cover(
        "streamable-http-reject-missing-param-header",
        "server",
        f"{HEADERS_TESTS}::test_a_call_without_the_header_of_a_mirrored_argument_is_rejected",
        fault=set_field("tools/call", "result", REFUSED_WITH_A_RESULT["tools/call"]),
    ),
    Cover(
        "streamable-http-reject-missing-standard-header",
        "server",
        f"{TESTS}::test_a_request_without_mcp_method_is_rejected",
        fault=set_field("tools/list", "error.code", -32600),
    ),
    Cover(
        "streamable-http-modern-server-ignore-session-id",
        "server",
        f"{TESTS}::test_a_stray_session_id_is_ignored",
        fault=drop_field("tools/list", "result"),
    ),
    Cover(
        "streamable-http-server-decode-base64",
        "server",
        f"{TESTS}::test_a_base64_encoded_name_header_is_decoded",
        fault=drop_field("tools/call", "result"),
    ),
    *(
        Cover(requirement, "server", f"{HEADERS_TESTS}::{test}", fault=drop_field("tools/call", "result"))
        for requirement, test in (
            (
                "streamable-http-no-param-header-expected-when-absent",
                "test_no_header_is_expected_for_an_absent_or_null_argument",
            ),
            ("streamable-http-header-names-case-insensitive", "test_the_server_reads_header_names_in_any_case"),
            ("streamable-http-integer-header-numeric-compare", "test_an_integer_header_is_compared_as_a_number"),
        )
    ),
    Cover(
        "streamable-http-endpoint-handles-get",
        "server",
        f"{TESTS}::test_the_endpoint_serves_get_beside_post",
        fault=change_id(PROBE_METHODS, "not-the-probe"),  # the POST beside the open GET stream goes unanswered
    ),
]
