"""Coverage of the progress area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.faults import Fault, inject_before, reorder, set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_progress.py"
SERVER_REQUESTS = ("ping", "sampling/createMessage")  # what the server asks the client during a tool call
# Progress for a token no request in flight carries: before a tool call's answer it names no
# request at all; before the tools/list that follows the call it comes after the call completed.
STRAY_PROGRESS = {
    "jsonrpc": "2.0",
    "method": "notifications/progress",
    "params": {"progressToken": "mcp-matrix-stale-token", "progress": 1},
}
LATE_PROGRESS = {
    "jsonrpc": "2.0",
    "method": "notifications/progress",
    "params": {"progressToken": "progress-token-1", "progress": 101, "total": 100},
}

# Progress of the task under its request's token, arriving after the task ended (before the probe's answer).
TASK_PROGRESS = {
    "jsonrpc": "2.0",
    "method": "notifications/progress",
    "params": {"progressToken": "task-progress-token", "progress": 1000},
}

COVERS: list[Cover] = [
    Cover(
        "progress-notifications-optional",
        "server",
        f"{TESTS}::test_progress_notifications_carry_token_progress_and_total",
        fault=set_field("notifications/progress", "params.progressToken", "another-token"),
    ),
    Cover(
        "progress-server-notifications-optional",
        "server",
        f"{TESTS}::test_a_modern_servers_progress_carries_token_progress_and_total",
        fault=set_field("notifications/progress", "params.progressToken", "another-token"),
    ),
    Cover(
        "progress-value-increases",
        "server",
        f"{TESTS}::test_progress_increases_with_each_notification",
        fault=set_field("notifications/progress", "params.progress", 7),
    ),
    Cover(
        "progress-server-value-increases",
        "server",
        f"{TESTS}::test_a_modern_servers_progress_increases",
        fault=set_field("notifications/progress", "params.progress", 7),
    ),
    Cover(
        "progress-message-human-readable",
        "server",
        f"{TESTS}::test_a_progress_message_is_for_a_human_reader",
        fault=set_field("notifications/progress", "params.message", "42"),
    ),
    Cover(
        "progress-server-message-human-readable",
        "server",
        f"{TESTS}::test_a_modern_servers_progress_message_is_for_a_human_reader",
        fault=set_field("notifications/progress", "params.message", "42"),
    ),
    Cover(
        "progress-reference-active-token",
        "server",
        f"{TESTS}::test_progress_names_only_active_tokens",
        fault=inject_before("tools/call", STRAY_PROGRESS),
    ),
    Cover(
        "progress-server-reference-active-token",
        "server",
        f"{TESTS}::test_a_modern_servers_progress_names_only_active_tokens",
        fault=inject_before("tools/call", STRAY_PROGRESS),
    ),
    Cover(
        "progress-stop-after-completion",
        "server",
        f"{TESTS}::test_no_progress_after_completion",
        fault=inject_before("tools/list", LATE_PROGRESS),
    ),
    Cover(
        "progress-server-stop-after-completion",
        "server",
        f"{TESTS}::test_a_modern_server_sends_no_progress_after_completion",
        fault=reorder("notifications/progress"),
    ),
    Cover(
        "progress-track-tokens",
        "server",
        f"{TESTS}::test_concurrent_progress_tokens_are_kept_apart",
        fault=set_field("notifications/progress", "params.progressToken", "track-a"),
    ),
    Cover(
        "progress-task-token-persists",
        "server",
        f"{TESTS}::test_a_tasks_progress_keeps_the_token_of_its_request",
        fault=set_field("notifications/progress", "params.progressToken", "another-token"),
    ),
    Cover(
        "progress-task-stop-at-terminal",
        "server",
        f"{TESTS}::test_no_progress_once_a_task_has_ended",
        fault=inject_before("tools/list", TASK_PROGRESS),
    ),
    Cover(
        "progress-token-type",
        "server",
        f"{TESTS}::test_the_servers_progress_tokens_are_strings_or_integers",
        fault=Fault("set", SERVER_REQUESTS, "params._meta.progressToken", 1.5),
    ),
    Cover(
        "progress-token-unique",
        "server",
        f"{TESTS}::test_the_servers_concurrent_requests_have_distinct_progress_tokens",
        fault=Fault("set", SERVER_REQUESTS, "params._meta.progressToken", "shared-token"),
    ),
]

# The client side (faults on what the client sends): its calls' tokens made a float, or one token for every
# call; its progress for the scripted server's sampling request (token SAMPLING_TOKEN) made flat, progress
# for a token no request carries, progress for that request once the client has answered it.
SAMPLING_TOKEN = "mcp-matrix-sampling-progress"
LATE_CLIENT_PROGRESS = {
    "jsonrpc": "2.0",
    "method": "notifications/progress",
    "params": {"progressToken": SAMPLING_TOKEN, "progress": 99},
}

COVERS += [
    Cover(
        "progress-token-type",
        "client",
        f"{TESTS}::test_the_clients_progress_tokens_are_strings_or_integers",
        fault=Fault("set", "tools/call", "params._meta.progressToken", 1.5),
    ),
    Cover(
        "progress-client-token-type",
        "client",
        f"{TESTS}::test_the_modern_clients_progress_tokens_are_strings_or_integers",
        fault=Fault("set", "tools/call", "params._meta.progressToken", 1.5),
    ),
    Cover(
        "progress-token-unique",
        "client",
        f"{TESTS}::test_the_clients_active_requests_have_distinct_progress_tokens",
        fault=Fault("set", "tools/call", "params._meta.progressToken", "shared-token"),
    ),
    Cover(
        "progress-client-token-unique",
        "client",
        f"{TESTS}::test_the_modern_clients_active_requests_have_distinct_progress_tokens",
        fault=Fault("set", "tools/call", "params._meta.progressToken", "shared-token"),
    ),
    Cover(
        "progress-notifications-optional",
        "client",
        f"{TESTS}::test_the_clients_progress_carries_token_progress_and_total",
        fault=set_field("notifications/progress", "params.progressToken", "another-token"),
    ),
    Cover(
        "progress-value-increases",
        "client",
        f"{TESTS}::test_the_clients_progress_increases",
        fault=set_field("notifications/progress", "params.progress", 7),
    ),
    Cover(
        "progress-reference-active-token",
        "client",
        f"{TESTS}::test_the_clients_progress_names_only_active_tokens",
        fault=inject_before("sampling/createMessage", STRAY_PROGRESS),
    ),
    Cover(
        "progress-stop-after-completion",
        "client",
        f"{TESTS}::test_the_client_sends_no_progress_after_completion",
        fault=inject_before("tools/list", LATE_CLIENT_PROGRESS),
    ),
]

# The client as the receiver of a task-augmented sampling request that asks for progress (2025-11-25, stdio): the
# scripted server fetches the task's result (tasks/result), then asks tasks/get; tested in test_tasks.py.
TASK_TESTS = "conformance/test_tasks.py"
COVERS += [
    Cover(
        "progress-task-token-persists",
        "client",
        f"{TASK_TESTS}::test_the_clients_task_progress_keeps_the_requests_token",
        fault=set_field("notifications/progress", "params.progressToken", "mcp-matrix-other-token"),
    ),
    Cover(
        "progress-task-stop-at-terminal",
        "client",
        f"{TASK_TESTS}::test_the_clients_task_progress_stops_at_its_end",
        # the task's progress once more, before the client answers the tasks/get after tasks/result
        fault=inject_before(
            "tasks/get",
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "mcp-matrix-task-progress", "progress": 5},
            },
        ),
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-074",
        "a permission of the sending server with nothing to break (fractional values, any frequency, no total "
        "when the amount is unknown)",
        {
            "progress-values-may-be-fractional": "server",
            "progress-frequency-free": "server",
            "progress-total-optional": "server",
            "progress-server-values-may-be-fractional": "server",
            "progress-server-frequency-free": "server",
            "progress-server-total-optional": "server",
        },
    ),
    Gap(
        "progress-rate-limit",
        "server",
        "L-072",
        "the spec gives flooding no measure, and the fixture's own tools set the pace (3 notifications, 50 ms apart)",
    ),
    *gaps(
        "L-096",
        "which progress tokens a client counts as active is its bookkeeping; what that leads to on the wire is "
        "progress-token-unique and progress-reference-active-token",
        {"progress-track-tokens": "client"},
    ),
    *gaps(
        "L-097",
        "'relevant' and 'human readable' give a progress message no criterion a frame could fail",
        {"progress-message-human-readable": "client"},
    ),
    *gaps(
        "L-098",
        "a rate limit with no rate: any number a test demanded would be the suite's",
        {"progress-rate-limit": "client"},
    ),
    *gaps(
        "L-115",
        "a permission of the client, as the receiver of a request that asks for progress, with nothing to break "
        "(fractional values, any frequency, no total when the amount is unknown)",
        {
            "progress-values-may-be-fractional": "client",
            "progress-frequency-free": "client",
            "progress-total-optional": "client",
        },
    ),
]
