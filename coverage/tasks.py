"""Coverage of the tasks area (2025-11-25): the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.

The pinned SDK serves no tasks, so the default profile (targets/sdk-python.yaml) gaps the cells whose
tests need a task to N-001; they run on every target that declares task-augmented tools/call.
"""

from conformance.harness.faults import Fault, answer_twice, drop_field, http_header, inject_before, set_field, silence
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_tasks.py"
RELATED_TASK = "io.modelcontextprotocol/related-task"
TASK_VIEW = {
    "taskId": "mcp-matrix-client-task",
    "status": "working",
    "createdAt": "2025-11-25T00:00:00Z",
    "lastUpdatedAt": "2025-11-25T00:00:00Z",
    "ttl": 60000,
}
FAKE_TASK = {
    "taskId": "mcp-matrix-fault",
    "status": "working",
    "createdAt": "2025-11-25T00:00:00Z",
    "lastUpdatedAt": "2025-11-25T00:00:00Z",
    "ttl": None,
}

QUESTION_AFTER_CANCEL = {
    "jsonrpc": "2.0",
    "id": "mcp-matrix-after-cancel",
    "method": "elicitation/create",
    "params": {"message": "Which one?", "requestedSchema": {"type": "object", "properties": {}}},
}


COVERS: list[Cover] = [
    # capability and tool-level negotiation
    Cover(
        "tasks-ignore-undeclared-augmentation",
        "server",
        f"{TESTS}::test_a_server_without_task_support_for_tools_treats_an_augmented_call_as_a_plain_one",
        fault=set_field("tools/call", "result.task", FAKE_TASK),
    ),
    Cover(
        "tasks-declare-capability",
        "server",
        f"{TESTS}::test_a_server_that_creates_tasks_for_tools_declares_it",
        fault=drop_field("initialize", "result.capabilities.tasks"),
    ),
    Cover(
        "tasks-tools-forbidden-augmented-error",
        "server",
        f"{TESTS}::test_an_augmented_call_of_a_tool_without_task_support_is_refused_with_32601",
        fault=set_field("tools/call", "error.code", -32602),
    ),
    Cover(
        "tasks-tools-required-plain-call-error",
        "server",
        f"{TESTS}::test_a_plain_call_of_a_tool_that_requires_tasks_is_refused_with_32601",
        fault=set_field("tools/call", "error.code", -32600),
    ),
    Cover(
        "tasks-may-require-augmentation",
        "server",
        f"{TESTS}::test_a_plain_request_may_be_refused_with_32600_where_tasks_are_declared",
    ),
    # creation
    Cover(
        "tasks-create-task-result",
        "server",
        f"{TESTS}::test_an_accepted_augmented_call_is_answered_with_a_create_task_result",
        fault=drop_field("tools/call", "result.task"),
    ),
    Cover(
        "tasks-create-task-result-promptly",
        "server",
        f"{TESTS}::test_the_create_task_result_comes_before_the_work_is_done",
        fault=set_field("tools/call", "result.task.status", "completed"),
    ),
    Cover(
        "tasks-id-string",
        "server",
        f"{TESTS}::test_task_ids_are_strings",
        fault=set_field("tools/call", "result.task.taskId", 7),
    ),
    Cover(
        "tasks-id-receiver-generated",
        "server",
        f"{TESTS}::test_the_server_mints_the_task_id",
        fault=set_field("tools/call", "result.task.taskId", "mcp-matrix-requestor-chosen-id"),
    ),
    Cover(
        "tasks-id-unique",
        "server",
        f"{TESTS}::test_no_two_tasks_share_an_id",
        fault=set_field("tools/call", "result.task.taskId", "mcp-matrix-same-id"),
    ),
    Cover(
        "tasks-unguessable-ids",
        "server",
        f"{TESTS}::test_task_ids_cannot_be_guessed",
        fault=set_field("tools/call", "result.task.taskId", "task-1"),
    ),
    Cover(
        "tasks-initial-status-working",
        "server",
        f"{TESTS}::test_a_new_task_is_working",
        fault=set_field("tools/call", "result.task.status", "completed"),
    ),
    # the task object
    Cover(
        "tasks-created-at",
        "server",
        f"{TESTS}::test_every_task_object_carries_created_at",
        fault=drop_field("tasks/get", "result.createdAt"),
    ),
    Cover(
        "tasks-last-updated-at",
        "server",
        f"{TESTS}::test_every_task_object_carries_last_updated_at",
        fault=drop_field("tasks/get", "result.lastUpdatedAt"),
    ),
    Cover(
        "tasks-ttl-reported",
        "server",
        f"{TESTS}::test_tasks_get_reports_the_ttl",
        fault=drop_field("tasks/get", "result.ttl"),
    ),
    Cover("tasks-ttl-override", "server", f"{TESTS}::test_the_server_may_grant_another_ttl"),
    Cover(
        "tasks-max-ttl",
        "server",
        f"{TESTS}::test_no_task_is_granted_an_unlimited_ttl",
        fault=set_field("tools/call", "result.task.ttl", None),
    ),
    Cover("tasks-poll-interval-hint", "server", f"{TESTS}::test_tasks_get_may_suggest_a_poll_interval"),
    Cover("tasks-delete-after-ttl", "server", f"{TESTS}::test_a_task_may_be_discarded_once_its_ttl_has_run_out"),
    # status
    Cover(
        "tasks-valid-transitions",
        "server",
        f"{TESTS}::test_a_task_changes_status_only_along_the_lifecycle",
        fault=set_field("tools/call", "result.task.status", "completed"),  # created completed, then polled working
    ),
    Cover(
        "tasks-terminal-is-final",
        "server",
        f"{TESTS}::test_a_terminal_task_keeps_its_status",
        fault=set_field("tasks/get", "result.status", "working", occurrence=2),
    ),
    Cover(
        "tasks-status-notification-optional",
        "server",
        f"{TESTS}::test_status_changes_may_be_notified_with_the_full_task",
    ),
    Cover(
        "tasks-status-notification-no-related-task",
        "server",
        f"{TESTS}::test_status_notifications_carry_no_related_task",
        fault=set_field("notifications/tasks/status", "params._meta", {RELATED_TASK: {"taskId": "mcp-matrix-fault"}}),
    ),
    # results
    Cover(
        "tasks-result-terminal-verbatim",
        "server",
        f"{TESTS}::test_the_result_of_a_completed_tool_task_is_the_tool_result",
        fault=drop_field("tasks/result", "result.content"),
    ),
    Cover(
        "tasks-result-blocks-until-terminal",
        "server",
        f"{TESTS}::test_tasks_result_answers_only_once_the_task_has_ended",
        fault=set_field("tasks/get", "result.status", "working"),
    ),
    Cover(
        "tasks-result-related-task",
        "server",
        f"{TESTS}::test_tasks_result_names_its_task_in_meta",
        fault=drop_field("tasks/result", "result._meta"),
    ),
    Cover(
        "tasks-related-task-meta",
        "server",
        f"{TESTS}::test_messages_tied_to_a_task_name_it",
        fault=drop_field("tasks/result", "result._meta"),
    ),
    Cover(
        "tasks-failed-status-message",
        "server",
        f"{TESTS}::test_a_failed_task_says_why",
        fault=drop_field("tasks/get", "result.statusMessage"),
    ),
    # addressing tasks
    Cover(
        "tasks-task-id-param-authoritative",
        "server",
        f"{TESTS}::test_tasks_get_answers_for_the_task_its_param_names",
        fault=set_field("tasks/get", "result.taskId", "mcp-matrix-other-task"),
    ),
    Cover(
        "tasks-receiver-ignore-related-task",
        "server",
        f"{TESTS}::test_a_related_task_in_meta_does_not_redirect_tasks_get",
        fault=set_field("tasks/get", "result.taskId", "mcp-matrix-other-task"),
    ),
    Cover(
        "tasks-receiver-omit-related-task",
        "server",
        f"{TESTS}::test_tasks_get_list_and_cancel_results_carry_no_related_task",
        fault=set_field("tasks/get", "result._meta", {RELATED_TASK: {"taskId": "mcp-matrix-fault"}}),
    ),
    # listing
    Cover(
        "tasks-list-covers-gettable",
        "server",
        f"{TESTS}::test_every_task_that_can_be_fetched_is_listed",
        fault=set_field("tasks/list", "result.tasks", []),
    ),
    Cover(
        "tasks-list-next-cursor",
        "server",
        f"{TESTS}::test_a_tasks_list_page_that_leaves_tasks_out_gives_a_cursor",
        fault=set_field("tasks/list", "result.tasks", []),
    ),
    Cover(
        "tasks-no-list-without-identity",
        "server",
        f"{TESTS}::test_a_server_that_shows_every_client_every_task_does_not_offer_listing",
    ),
    # cancelling
    Cover(
        "tasks-cancel-status-before-response",
        "server",
        f"{TESTS}::test_a_cancelled_task_is_cancelled_when_the_answer_comes",
        fault=set_field("tasks/cancel", "result.status", "working"),
    ),
    Cover(
        "tasks-cancelled-sticky",
        "server",
        f"{TESTS}::test_a_cancelled_task_stays_cancelled",
        fault=set_field("tasks/get", "result.status", "completed", occurrence=2),
    ),
    Cover("tasks-cancelled-may-delete", "server", f"{TESTS}::test_a_cancelled_task_may_be_deleted"),
    Cover(
        "tasks-cancel-terminal-rejected",
        "server",
        f"{TESTS}::test_cancelling_a_finished_task_is_refused_with_32602",
        fault=set_field("tasks/cancel", "error.code", -32603, occurrence=2),
    ),
    # errors
    Cover(
        "tasks-error-invalid-task-id",
        "server",
        f"{TESTS}::test_an_unknown_task_id_is_refused_with_32602",
        fault=set_field("tasks/get", "error.code", -32603),
    ),
    Cover(
        "tasks-error-invalid-cursor",
        "server",
        f"{TESTS}::test_an_unknown_tasks_list_cursor_is_refused_with_32602",
        fault=set_field("tasks/list", "error.code", -32603),
    ),
    Cover(
        "tasks-error-messages-informative",
        "server",
        f"{TESTS}::test_task_errors_say_what_went_wrong",
        fault=set_field("tasks/get", "error.message", "Invalid params"),
    ),
    # over Streamable HTTP
    Cover(
        "tasks-no-sse-for-tasks-get",
        "server",
        f"{TESTS}::test_tasks_get_is_answered_with_plain_json",
        fault=http_header("tasks/get", "content-type", "text/event-stream"),
    ),
    Cover(
        "tasks-streamable-http-rules-still-apply",
        "server",
        f"{TESTS}::test_task_messages_over_http_are_answered_as_the_transport_requires",
        fault=http_header("tasks/get", "content-type", "text/plain"),
    ),
    # the server as requestor: of the client's tasks, the harness playing the receiver
    Cover("tasks-request-ttl", "server", f"{TESTS}::test_the_server_may_ask_for_a_task_lifetime"),
    Cover("tasks-honour-poll-interval", "server", f"{TESTS}::test_the_server_polls_no_faster_than_the_poll_interval"),
    Cover("tasks-poll-until-terminal", "server", f"{TESTS}::test_the_server_polls_until_its_task_has_ended"),
    Cover(
        "tasks-requestor-omit-related-task",
        "server",
        f"{TESTS}::test_the_servers_task_requests_carry_no_related_task",
        fault=set_field("tasks/get", "params._meta", {RELATED_TASK: {"taskId": "mcp-matrix-fault"}}),
    ),
    Cover(
        "tasks-no-reliance-on-status-notification",
        "server",
        f"{TESTS}::test_the_server_finishes_without_status_notifications",
        fault=set_field("tools/call", "result.isError", True),
    ),
    Cover(
        "tasks-requestor-result-on-input-required",
        "server",
        f"{TESTS}::test_the_server_fetches_the_result_of_a_task_that_needs_input",
    ),
    # a task that needs the requestor's input (input-task-tool), the harness as requestor
    Cover(
        "tasks-input-required-when-needed",
        "server",
        f"{TESTS}::test_a_task_that_waits_for_the_requestors_answer_is_input_required",
        fault=set_field("tasks/get", "result.status", "working"),
    ),
    Cover(
        "tasks-leave-input-required",
        "server",
        f"{TESTS}::test_a_task_leaves_input_required_once_answered",
        fault=set_field("tasks/get", "result.status", "input_required"),
    ),
    # tasks and authorization contexts: the server configured with two bearer tokens (two-bearer-tokens); the
    # faults damage only what the other principal is told
    Cover(
        "tasks-bind-auth-context",
        "server",
        f"{TESTS}::test_a_task_belongs_to_the_principal_that_created_it",
        fault=set_field("tasks/get", "result", FAKE_TASK),
    ),
    Cover(
        "tasks-reject-foreign-context",
        "server",
        f"{TESTS}::test_another_principals_task_requests_are_refused",
        fault=set_field("tasks/get", "result", FAKE_TASK),
    ),
    Cover(
        "tasks-list-own-context-only",
        "server",
        f"{TESTS}::test_tasks_list_shows_a_principal_only_its_own_tasks",
        fault=set_field("tasks/list", "result.tasks", [FAKE_TASK]),
    ),
    Cover(
        "tasks-cancel-stop-execution",
        "server",
        f"{TESTS}::test_a_cancelled_task_stops_working",
        # a question to the requestor, as if the cancelled task's work had gone on
        fault=inject_before("tasks/cancel", QUESTION_AFTER_CANCEL),
    ),
    Cover(
        "tasks-poll-alongside-result",
        "server",
        f"{TESTS}::test_the_server_polls_on_after_a_failed_tasks_result",
        # no fault: no target calls tasks/result before its task has ended (server-everything polls to the end,
        # F-176), so none could be shown to make the test fail at its check
    ),
    Cover(
        "tasks-augment-only-declared-types",
        "server",
        f"{TESTS}::test_the_server_asks_a_client_without_task_support_no_task",
        fault=set_field("sampling/createMessage", "params.task", {}),
    ),
]


# The client as requestor (2025-11-25, over Streamable HTTP): what it sends the scripted receiver of its tasks.
COVERS += [
    Cover(
        "tasks-tools-required-augmented",
        "client",
        f"{TESTS}::test_a_task_required_tool_is_called_as_a_task",
        fault=drop_field("tools/call", "params.task"),
    ),
    Cover(
        "tasks-tools-forbidden-not-augmented",
        "client",
        f"{TESTS}::test_a_task_forbidden_tool_is_not_called_as_a_task",
        fault=set_field("tools/call", "params.task", {"ttl": 60000}),
    ),
    Cover(
        "tasks-tools-no-augment-without-capability",
        "client",
        f"{TESTS}::test_no_task_goes_to_a_server_without_task_support",
        fault=set_field("tools/call", "params.task", {"ttl": 60000}),
    ),
    Cover(
        "tasks-tools-optional-either",
        "client",
        f"{TESTS}::test_a_task_optional_tool_may_be_called_as_a_task",
    ),
    Cover(
        "tasks-augment-only-declared-types",
        "client",
        f"{TESTS}::test_only_declared_request_types_are_augmented",
        # every tools/list made a task too
        fault=set_field("tools/list", "params.task", {}),
    ),
    Cover(
        "tasks-request-ttl",
        "client",
        f"{TESTS}::test_a_requestor_may_ask_for_a_task_lifetime",
    ),
    Cover(
        "tasks-honour-poll-interval",
        "client",
        f"{TESTS}::test_polling_keeps_to_the_poll_interval",
        # each poll sent twice at once
        fault=answer_twice("tasks/get"),
    ),
    Cover(
        "tasks-poll-until-terminal",
        "client",
        f"{TESTS}::test_a_task_is_polled_until_it_ends",
        # no poll reaches the receiver
        fault=silence("tasks/get"),
    ),
    Cover(
        "tasks-requestor-omit-related-task",
        "client",
        f"{TESTS}::test_task_requests_carry_no_related_task",
        fault=set_field("tasks/get", "params._meta", {RELATED_TASK: {"taskId": "mcp-matrix-task-1"}}),
    ),
    Cover(
        "tasks-no-reliance-on-status-notification",
        "client",
        f"{TESTS}::test_a_task_result_arrives_without_status_notifications",
        # the result never fetched: as a client waiting for a status notification
        fault=silence("tasks/result"),
    ),
    Cover(
        "tasks-requestor-result-on-input-required",
        "client",
        f"{TESTS}::test_input_required_is_met_with_tasks_result",
        # no tasks/result reaches the receiver
        fault=silence("tasks/result"),
    ),
    Cover(
        "tasks-list-cursor-opaque",
        "client",
        f"{TESTS}::test_task_list_cursors_go_back_as_they_came",
        fault=set_field("tasks/list", "params.cursor", "mcp-matrix-forged"),
    ),
]

COVERS += [
    Cover(
        "tasks-poll-alongside-result",
        "client",
        f"{TESTS}::test_polling_goes_on_when_tasks_result_fails",
        # the request after three polls and the refused tasks/result swallowed: nothing more about the task
        fault=Fault("silence", ("tasks/get", "tasks/result"), occurrence=5),
    ),
]

# The client as receiver (2025-11-25, over stdio): a sampling request with a task param it never declared.
COVERS += [
    Cover(
        "tasks-declare-capability",
        "client",
        f"{TESTS}::test_a_client_that_takes_sampling_as_a_task_declared_it",
        fault=drop_field("initialize", "params.capabilities.tasks"),  # the tasks it takes left undeclared
    ),
    Cover(
        "tasks-ignore-undeclared-augmentation",
        "client",
        f"{TESTS}::test_an_undeclared_task_param_is_ignored_by_the_client",
        # the client's answer made a CreateTaskResult
        fault=set_field("sampling/createMessage", "result", {"task": TASK_VIEW}),
    ),
]

# The client as receiver of task-augmented sampling (2025-11-25, over stdio): its answers, damaged on the wire.
SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "mcp-matrix"}
COVERS += [
    Cover(
        "tasks-create-task-result",
        "client",
        f"{TESTS}::test_the_client_answers_a_task_request_with_its_task",
        # the sample itself as the answer
        fault=set_field("sampling/createMessage", "result", SAMPLED),
    ),
    Cover(
        "tasks-id-string",
        "client",
        f"{TESTS}::test_the_clients_task_id_is_a_string",
        fault=set_field("sampling/createMessage", "result.task.taskId", 42),
    ),
    Cover(
        "tasks-initial-status-working",
        "client",
        f"{TESTS}::test_the_clients_new_task_is_working",
        fault=set_field("sampling/createMessage", "result.task.status", "completed"),
    ),
    Cover(
        "tasks-created-at",
        "client",
        f"{TESTS}::test_the_clients_task_carries_its_creation_time",
        fault=drop_field("sampling/createMessage", "result.task.createdAt"),
    ),
    Cover(
        "tasks-last-updated-at",
        "client",
        f"{TESTS}::test_the_clients_task_carries_its_update_time",
        fault=drop_field("sampling/createMessage", "result.task.lastUpdatedAt"),
    ),
    Cover(
        "tasks-error-invalid-task-id",
        "client",
        f"{TESTS}::test_the_client_refuses_an_unknown_task_id",
        fault=set_field("tasks/get", "error.code", -32603),
    ),
    Cover(
        "tasks-error-invalid-cursor",
        "client",
        f"{TESTS}::test_the_client_refuses_a_task_list_cursor_it_never_issued",
        fault=set_field("tasks/list", "error.code", -32603),
    ),
]

# The client as receiver: its answers about the task it created (tasks/get, tasks/result, tasks/list).
COVERS += [
    Cover(
        "tasks-ttl-reported",
        "client",
        f"{TESTS}::test_the_clients_task_states_its_ttl",
        fault=drop_field("tasks/get", "result.ttl"),
    ),
    Cover(
        "tasks-poll-interval-hint",
        "client",
        f"{TESTS}::test_the_client_may_suggest_a_poll_interval",
    ),
    Cover(
        "tasks-result-terminal-verbatim",
        "client",
        f"{TESTS}::test_the_clients_task_result_is_the_sample",
        fault=drop_field("tasks/result", "result.content"),
    ),
    Cover(
        "tasks-result-related-task",
        "client",
        f"{TESTS}::test_the_clients_task_result_names_its_task",
        fault=drop_field("tasks/result", "result._meta"),
    ),
    Cover(
        "tasks-receiver-omit-related-task",
        "client",
        f"{TESTS}::test_the_clients_task_results_carry_no_related_task",
        fault=set_field("tasks/get", "result._meta", {RELATED_TASK: {"taskId": "mcp-matrix-client-task"}}),
    ),
    Cover(
        "tasks-list-covers-gettable",
        "client",
        f"{TESTS}::test_the_clients_task_is_in_its_task_list",
        fault=set_field("tasks/list", "result.tasks", []),
    ),
]

# The client as receiver: its task once ended (tasks/result answered), then tasks/get and tasks/cancel about it.
COVERS += [
    Cover(
        "tasks-terminal-is-final",
        "client",
        f"{TESTS}::test_the_clients_ended_task_stays_ended",
        fault=set_field("tasks/get", "result.status", "working"),
    ),
    Cover(
        "tasks-valid-transitions",
        "client",
        f"{TESTS}::test_the_clients_task_moves_only_as_allowed",
        # created cancelled, then seen ended otherwise: a move out of a terminal status (input_required after the
        # end, the fault this had, is a move working allows)
        fault=set_field("sampling/createMessage", "result.task.status", "cancelled"),
    ),
    Cover(
        "tasks-cancel-terminal-rejected",
        "client",
        f"{TESTS}::test_the_client_refuses_to_cancel_an_ended_task",
        fault=set_field("tasks/cancel", "error.code", -32603),
    ),
]

# The client as receiver: several tasks at once (MANY_TASKS), asked tasks/get (once misled by a related-task
# _meta) and tasks/list about them; one task with its answers; one reporting progress, cancelled or run to its
# end; one whose model fails; one with a ttl of a millisecond.
PROGRESS_AFTER_THE_END = {
    "jsonrpc": "2.0",
    "method": "notifications/progress",
    "params": {"progressToken": "mcp-matrix-task-progress", "progress": 5},
}
COVERS += [
    Cover(
        "tasks-id-unique",
        "client",
        f"{TESTS}::test_no_two_of_the_clients_tasks_share_an_id",
        fault=set_field("sampling/createMessage", "result.task.taskId", "mcp-matrix-same-id"),
    ),
    Cover(
        "tasks-id-receiver-generated",
        "client",
        f"{TESTS}::test_the_client_mints_its_task_ids",
        fault=set_field("sampling/createMessage", "result.task.taskId", "mcp-matrix-requestor-chosen-id"),
    ),
    Cover(
        "tasks-unguessable-ids",
        "client",
        f"{TESTS}::test_the_clients_task_ids_cannot_be_guessed",
        fault=set_field("sampling/createMessage", "result.task.taskId", "task-1"),
    ),
    Cover(
        "tasks-max-ttl",
        "client",
        f"{TESTS}::test_no_task_of_the_client_lives_forever",
        fault=set_field("sampling/createMessage", "result.task.ttl", None),
    ),
    Cover(
        "tasks-task-id-param-authoritative",
        "client",
        f"{TESTS}::test_the_clients_tasks_get_answers_for_the_task_named",
        fault=set_field("tasks/get", "result.taskId", "mcp-matrix-other-task"),
    ),
    Cover(
        "tasks-receiver-ignore-related-task",
        "client",
        f"{TESTS}::test_a_related_task_in_meta_does_not_redirect_the_clients_tasks_get",
        fault=set_field("tasks/get", "result.taskId", "mcp-matrix-other-task"),
    ),
    Cover(
        "tasks-list-next-cursor",
        "client",
        f"{TESTS}::test_the_clients_task_list_page_gives_a_cursor_when_tasks_remain",
        fault=drop_field("tasks/list", "result.nextCursor"),
    ),
    Cover("tasks-ttl-override", "client", f"{TESTS}::test_the_client_may_grant_another_ttl"),
    Cover(
        "tasks-create-task-result-promptly",
        "client",
        f"{TESTS}::test_the_clients_create_task_result_comes_before_the_sample",
        fault=set_field("sampling/createMessage", "result.task.status", "completed"),
    ),
    Cover(
        "tasks-error-messages-informative",
        "client",
        f"{TESTS}::test_the_clients_task_errors_say_what_went_wrong",
        fault=set_field("tasks/get", "error.message", "Invalid params"),
    ),
    Cover(
        "tasks-may-require-augmentation",
        "client",
        f"{TESTS}::test_the_client_may_refuse_a_plain_request_it_takes_as_a_task",
    ),
    Cover("tasks-status-notification-optional", "client", f"{TESTS}::test_the_client_may_notify_its_tasks_status"),
    Cover(
        "tasks-status-notification-no-related-task",
        "client",
        f"{TESTS}::test_the_clients_status_notifications_carry_no_related_task",
        fault=set_field("notifications/tasks/status", "params._meta", {RELATED_TASK: {"taskId": "mcp-matrix-fault"}}),
    ),
    Cover(
        "tasks-result-blocks-until-terminal",
        "client",
        f"{TESTS}::test_the_clients_tasks_result_waits_for_the_end",
        fault=set_field("tasks/get", "result.status", "working"),
    ),
    Cover(
        "tasks-related-task-meta",
        "client",
        f"{TESTS}::test_the_clients_task_messages_name_the_task",
        fault=drop_field("tasks/result", "result._meta"),
    ),
    Cover(
        "tasks-cancel-status-before-response",
        "client",
        f"{TESTS}::test_the_clients_cancelled_task_is_cancelled_when_it_answers",
        fault=set_field("tasks/cancel", "result.status", "working"),
    ),
    Cover(
        "tasks-cancelled-sticky",
        "client",
        f"{TESTS}::test_the_clients_cancelled_task_stays_cancelled",
        fault=set_field("tasks/get", "result.status", "completed"),
    ),
    Cover("tasks-cancelled-may-delete", "client", f"{TESTS}::test_the_client_may_delete_a_cancelled_task"),
    Cover(
        "tasks-cancel-stop-execution",
        "client",
        f"{TESTS}::test_the_clients_cancelled_task_stops_working",
        # progress of the task, as if its work went on, before the answer to the tasks/get after the cancel
        fault=inject_before("tasks/get", PROGRESS_AFTER_THE_END),
    ),
    Cover(
        "tasks-failed-status-message",
        "client",
        f"{TESTS}::test_the_clients_failed_task_says_why",
        fault=drop_field("tasks/get", "result.statusMessage"),
    ),
    Cover("tasks-delete-after-ttl", "client", f"{TESTS}::test_the_client_may_delete_a_task_once_its_ttl_has_run_out"),
]

# The client as requestor over Streamable HTTP: its task messages on the transport.
COVERS += [
    Cover(
        "tasks-streamable-http-rules-still-apply",
        "client",
        f"{TESTS}::test_the_clients_task_requests_keep_the_transports_rules",
        fault=http_header("tasks/get", "accept", "application/json"),
    ),
    Cover(
        "tasks-client-any-sse-stream",
        "client",
        f"{TESTS}::test_the_client_takes_task_messages_on_its_get_stream",
        # the client's answer to the request on its GET stream never reaches the server
        fault=silence("ping"),
    ),
    Cover("tasks-client-may-drop-sse", "client", f"{TESTS}::test_the_client_may_leave_a_task_result_stream"),
]

GAPS: list[Gap] = [
    *gaps(
        "L-131",
        "no protocol flow makes a server list or cancel the tasks it asked the client for (its application's "
        "choice alone), and no server of make targets does: no cursor to hand back, no cancellation to follow",
        {
            "tasks-list-cursor-opaque": "server",
            "tasks-no-reliance-on-cancelled-retention": "server",
        },
    ),
    *gaps(
        "L-080",
        "what a receiver writes in its documentation is no part of its wire",
        {
            "tasks-document-unbound": "both",
            "tasks-document-max-ttl": "both",
            "tasks-document-max-concurrent": "both",
        },
    ),
    *gaps(
        "L-081",
        "monitoring, alerting, audit logs and the requestor's own bookkeeping happen inside the implementation",
        {
            "tasks-monitor-resources": "both",
            "tasks-audit-log-events": "both",
            "tasks-audit-log-auth-context": "both",
            "tasks-audit-monitor-suspicious": "both",
            "tasks-requestor-log-lifecycle": "both",
            "tasks-requestor-track-ids": "both",
        },
    ),
    *gaps(
        "L-082",
        "the spec gives no measure (a rate, a count, a delay, a page size) against which a black-box test could "
        "find the receiver wanting",
        {
            "tasks-rate-limit": "both",
            "tasks-limit-concurrent": "both",
            "tasks-prompt-cleanup": "both",
            "tasks-list-paginate": "both",
        },
    ),
    *gaps(
        "L-083",
        "no request of a conforming peer makes a receiver fail internally on purpose",
        {"tasks-error-internal": "both"},
    ),
    *gaps(
        "L-132",
        "a client's sampling or elicitation task needs nothing from the server that asked for it (its model samples, "
        "its user answers): no protocol flow gives the client a request to send its requestor mid-task",
        {"tasks-input-required-when-needed": "client", "tasks-leave-input-required": "client"},
    ),
    *gaps(
        "L-133",
        "what a client counts on once it has cancelled a task is its own expectation: asking about the task later "
        "is allowed, and what its application does next is the driver's",
        {"tasks-no-reliance-on-cancelled-retention": "client"},
    ),
    *gaps(
        "L-134",
        "a client knows which server asks (the session's); whether two servers see each other's tasks is how the "
        "host wires its task store, which no single session shows",
        {"tasks-no-list-without-identity": "client"},
    ),
]
