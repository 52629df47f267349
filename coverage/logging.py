"""Coverage of the logging area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import drop_field, inject_before, set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_logging.py"
HANDSHAKE = "2024-11-05..2025-11-25"  # capabilities in the initialize result; server/discover's after
STREAMABLE_HTTP = "2025-03-26.."  # where a configured server checks a bearer token on every request
FIXTURE_TOKEN = "mcp-matrix-fixture-token"  # the default profile's bearer-token configuration
# A log message the server did not mean to send, as if it had sent it just before another frame.
STRAY_MESSAGE = {
    "jsonrpc": "2.0",
    "method": "notifications/message",
    "params": {"level": "info", "logger": "mcp-matrix-fault", "data": "a message nobody asked for"},
}

COVERS: list[Cover] = [
    Cover(
        "logging-capability-declared",
        "server",
        f"{TESTS}::test_a_server_that_sends_log_messages_declares_logging",
        fault=drop_field("initialize", "result.capabilities.logging"),
        revisions=HANDSHAKE,
    ),
    Cover(
        "logging-capability-declared",
        "server",
        f"{TESTS}::test_a_server_that_sends_log_messages_declares_logging",
        fault=drop_field("server/discover", "result.capabilities.logging"),
        revisions="2026-07-28",
    ),
    Cover(
        "logging-set-level-invalid-level-error",
        "server",
        f"{TESTS}::test_set_level_with_an_unknown_level_is_invalid_params",
        fault=set_field("logging/setLevel", "error.code", -32603),
    ),
    Cover(
        "logging-no-messages-without-level",
        "server",
        f"{TESTS}::test_no_log_message_for_a_request_that_asked_for_none",
        fault=inject_before("tools/call", STRAY_MESSAGE),
    ),
    Cover(
        "logging-per-request-messages-allowed",
        "server",
        f"{TESTS}::test_log_messages_for_a_request_keep_to_its_level_and_come_before_its_answer",
        fault=set_field("notifications/message", "params.level", "debug"),
    ),
    Cover(
        "logging-messages-request-scoped",
        "server",
        f"{TESTS}::test_log_messages_come_only_with_the_request_that_asked_for_them",
        fault=inject_before("notifications/subscriptions/acknowledged", STRAY_MESSAGE),
    ),
    Cover(
        "logging-invalid-meta-level-rejected",
        "server",
        f"{TESTS}::test_a_request_with_an_unknown_log_level_is_invalid_params",
        fault=set_field("tools/list", "error.code", -32603),
    ),
    Cover(
        "logging-no-credentials",
        "server",
        f"{TESTS}::test_log_messages_do_not_carry_the_clients_credential",
        fault=set_field("notifications/message", "params.data", f"authorized with {FIXTURE_TOKEN}"),
        revisions=STREAMABLE_HTTP,
    ),
    Cover(
        "logging-include-context",
        "server",
        f"{TESTS}::test_log_messages_carry_data",
        fault=set_field("notifications/message", "params.data", ""),
    ),
    Cover(
        "logging-consistent-logger-names",
        "server",
        f"{TESTS}::test_the_same_tool_logs_under_the_same_logger_names_each_time",
        fault=set_field("notifications/message", "params.logger", "another-logger", occurrence=4),
    ),
    # the client side
    Cover(
        "logging-set-level-allowed",
        "client",
        f"{TESTS}::test_the_client_may_set_the_log_level_of_a_server_that_logs",
        fault=set_field("logging/setLevel", "params.level", "verbose"),
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-070",
        "which part of a log message is a secret, personal data or a detail that helps an attacker is known to "
        "the server alone; no frame tells a clean message from a leaking one",
        {
            "logging-no-personal-data": "server",
            "logging-no-attack-aiding-details": "server",
            "logging-remove-sensitive-info": "server",
            "logging-monitor-sensitive-content": "server",
        },
    ),
    Gap(
        "logging-no-credentials",
        "server",
        "L-070",
        "over 2024-11-05's HTTP+SSE the suite plants no credential the server's log messages could leak",
        revisions="2024-11-05",
    ),
    *gaps(
        "L-071",
        "what the server does with its logs inside (validation, access control, a configuration that fails to "
        "apply, an internal failure) shows in no frame and cannot be provoked from outside",
        {
            "logging-validate-data-fields": "server",
            "logging-control-access": "server",
            "logging-set-level-configuration-error": "server",
            "logging-meta-level-internal-error-code": "server",
        },
    ),
    Gap(
        "logging-rate-limit",
        "server",
        "L-072",
        "the specification gives flooding no measure: any rate a test demanded would be the suite's own",
    ),
    *gaps(
        "L-073",
        "whether an implementation is new or existing, and whether it also logs to stderr or OpenTelemetry, "
        "shows in no frame; the deprecation window keeps the feature in the revision",
        {
            "logging-deprecated-not-adopted": "server",
            "logging-deprecated-migrate": "server",
        },
    ),
    Gap(
        "logging-server-default-messages-loggingmessagenotification",
        "server",
        "L-074",
        "a permission with nothing to break: before logging/setLevel any choice of messages is the server's",
    ),
    *gaps(
        "L-095",
        "how a client shows, filters, colours or keeps the log messages it received is its interface (a permission)",
        {"logging-client-presentation-options": "client"},
    ),
    *gaps(
        "L-096",
        "what a client does inside with the log messages it received (validating their data, who may read them, "
        "watching them for sensitive content) shows in no frame",
        {
            "logging-control-access": "client",
            "logging-monitor-sensitive-content": "client",
            "logging-validate-data-fields": "client",
        },
    ),
    *gaps(
        "L-098",
        "a rate limit with no rate: any number a test demanded would be the suite's",
        {"logging-rate-limit": "client"},
    ),
    *gaps(
        "L-125",
        "whether a client is a new or an existing implementation, and whether it also reads its servers' stderr "
        "or OpenTelemetry, shows in no frame; asking for log messages stays allowed through the deprecation window",
        {
            "logging-deprecated-not-adopted": "client",
            "logging-deprecated-migrate": "client",
        },
    ),
]
