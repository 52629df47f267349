"""Coverage of the stdio area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.faults import (
    inject_before,
    inject_raw_before,
    misreport,
    pretty_print,
    set_field,
    silence,
    strip_newline,
)
from conformance.matrix.covers import Cover, Gap

TESTS = "conformance/test_stdio.py"
STRAY_RESPONSE = {"jsonrpc": "2.0", "id": "stray", "result": {}}
EARLY_REQUEST = {"jsonrpc": "2.0", "id": "early", "method": "tools/list"}
SERVER_REQUEST = {"jsonrpc": "2.0", "id": "server-request", "method": "ping"}
#: A progress notification of the fixture's slow operation (test_cancellation.slow_operation's token).
LATE_PROGRESS = {
    "jsonrpc": "2.0",
    "method": "notifications/progress",
    "params": {"progressToken": "slow-op", "progress": 99},
}

#: The fixture's account of the cancelled run, as a server that kept working after the cancellation gives it.
RAN_TO_COMPLETION = [{"type": "text", "text": "completed after 20 steps"}]

COVERS: list[Cover] = [
    Cover(
        "stdio-newline-delimited",
        "server",
        f"{TESTS}::test_every_message_on_stdout_ends_with_a_newline",
        fault=strip_newline("ping"),
        revisions="2024-11-05..2025-11-25",
    ),
    Cover(
        "stdio-newline-delimited",
        "server",
        f"{TESTS}::test_every_message_on_stdout_ends_with_a_newline",
        fault=strip_newline("server/discover"),
        revisions="2026-07-28",
    ),
    Cover(
        "stdio-no-embedded-newlines",
        "server",
        f"{TESTS}::test_no_message_spans_several_lines",
        fault=pretty_print("ping"),
        revisions="2024-11-05..2025-11-25",
    ),
    Cover(
        "stdio-no-embedded-newlines",
        "server",
        f"{TESTS}::test_no_message_spans_several_lines",
        fault=pretty_print("server/discover"),
        revisions="2026-07-28",
    ),
    Cover(
        "stdio-server-stdout-only-mcp",
        "server",
        f"{TESTS}::test_stdout_carries_only_mcp_messages",
        fault=inject_raw_before("tools/list", "server ready"),
    ),
    # No fault: whether the process exits is not in any frame it sends.
    Cover("stdio-server-exit-on-stdin-eof", "server", f"{TESTS}::test_the_server_exits_when_its_stdin_closes"),
    Cover(
        "stdio-newline-delimited",
        "client",
        f"{TESTS}::test_every_message_on_the_servers_stdin_ends_with_a_newline",
        fault=strip_newline("tools/list"),
    ),
    Cover(
        "stdio-no-embedded-newlines",
        "client",
        f"{TESTS}::test_no_client_message_spans_several_lines",
        fault=pretty_print("tools/list"),
    ),
    Cover(
        "stdio-client-stdin-only-mcp",
        "client",
        f"{TESTS}::test_the_servers_stdin_carries_only_mcp_messages",
        fault=inject_raw_before("tools/list", "client ready"),
    ),
    Cover(
        "stdio-client-no-responses",
        "client",
        f"{TESTS}::test_a_modern_client_writes_no_responses",
        fault=inject_before("tools/list", STRAY_RESPONSE),
    ),
    Cover(
        "stdio-client-cancel-notification",
        "client",
        f"{TESTS}::test_a_cancellation_names_the_request_it_cancels",
        fault=set_field("notifications/cancelled", "params.requestId", "not-the-request"),
    ),
    # No fault for the next three: how the client ends the server's process (closing stdin, waiting,
    # killing) and whether it finishes its run are not in the lines it writes, the only thing a fault
    # can rewrite on this side.
    Cover(
        "stdio-client-shutdown-close-stdin",
        "client",
        f"{TESTS}::test_the_client_shuts_down_by_closing_stdin_and_waiting",
    ),
    Cover(
        "stdio-client-shutdown-force-kill",
        "client",
        f"{TESTS}::test_a_server_that_outstays_its_stdin_is_killed",
    ),
    Cover(
        "stdio-client-stderr-not-error",
        "client",
        f"{TESTS}::test_stderr_output_is_not_taken_for_a_failure",
    ),
    Cover(
        "stdio-backcompat-probe-discover",
        "client",
        f"{TESTS}::test_a_dual_era_client_probes_with_discover_first",
        fault=inject_before("server/discover", EARLY_REQUEST),
    ),
    Cover(
        "stdio-backcompat-fallback-not-single-code",
        "client",
        f"{TESTS}::test_any_legacy_refusal_of_the_probe_leads_to_initialize",
        fault=silence("initialize"),
    ),
]

COVERS += [
    Cover("stdio-server-stderr-logging", "server", f"{TESTS}::test_what_the_server_logs_on_stderr_is_utf8_text"),
    Cover(
        "stdio-server-no-requests",
        "server",
        f"{TESTS}::test_a_modern_server_writes_no_requests",
        fault=inject_before("tools/call", SERVER_REQUEST),
    ),
    Cover(
        "stdio-server-silent-after-cancel",
        "server",
        f"{TESTS}::test_nothing_more_comes_for_a_cancelled_request",
        fault=inject_before("tools/call", LATE_PROGRESS),
    ),
    Cover(
        "stdio-server-stop-cancelled-work",
        "server",
        f"{TESTS}::test_a_cancelled_request_is_abandoned_promptly",
        fault=set_field("tools/call", "result.content", RAN_TO_COMPLETION),
    ),
    Cover(
        "stdio-client-stderr-handling",
        "client",
        f"{TESTS}::test_the_client_copes_with_whatever_the_server_logs_on_stderr",
    ),
    Cover(
        "stdio-client-correlate-subscription-notifications",
        "client",
        f"{TESTS}::test_a_notification_reaches_the_subscription_it_names",
        fault=misreport("delivered"),  # the notification handed to the other subscription
    ),
]

GAPS: list[Gap] = [
    Gap(
        "stdio-backcompat-modern-only-probe",
        "client",
        "F-030",
        "pinned to 2026-07-28 (mode='2026-07-28'), the client sends its first request without a server/discover probe",
    ),
    Gap(
        "stdio-server-may-initiate-shutdown",
        "server",
        "F-061",
        "a server ending its stdio session itself (its run cancelled) keeps stdout open and does not exit while "
        "the client holds stdin open: the SDK's stdin reader cannot be cancelled",
    ),
    Gap(
        "stdio-client-restart-crashed-server",
        "client",
        "F-060",
        "when its stdio server dies, the client fails every later request ('Connection closed') and never "
        "launches the server again",
    ),
]
