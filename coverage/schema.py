"""Coverage of the schema area: what each side sends of each message type is valid against the
revision's published definition (conformance/test_schema.py, one test per row).

Each cover's fault damages its own message type in the recorded tour: a required member dropped or a
member's type broken, under which the test must fail (``make falsify``). Loaded by path (this folder is
not a package); see conformance/matrix/covers.py.
"""

from conformance.harness.faults import drop_field, set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_schema.py"
# The requests a server answers with a bare Result (EmptyResult) in the tour.
EMPTY_RESULT_METHODS = ("ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe")

COVERS = [
    Cover(
        "schema-call-tool-request",
        "client",
        f"{TESTS}::test_call_tool_request",
        fault=drop_field("tools/call", "params.name"),
    ),
    Cover(
        "schema-call-tool-result",
        "server",
        f"{TESTS}::test_call_tool_result",
        fault=drop_field("tools/call", "result.content"),
    ),
    Cover(
        "schema-cancelled-notification-server",
        "server",
        f"{TESTS}::test_cancelled_notification_server",
        fault=set_field("notifications/cancelled", "params.requestId", {"not": "an id"}),
    ),
    Cover(
        "schema-cancelled-notification-client",
        "client",
        f"{TESTS}::test_cancelled_notification_client",
        fault=set_field("notifications/cancelled", "params.requestId", {"not": "an id"}),
    ),
    Cover(
        "schema-complete-request",
        "client",
        f"{TESTS}::test_complete_request",
        fault=drop_field("completion/complete", "params.ref"),
    ),
    Cover(
        "schema-complete-result",
        "server",
        f"{TESTS}::test_complete_result",
        fault=drop_field("completion/complete", "result.completion"),
    ),
    Cover(
        "schema-create-message-request",
        "server",
        f"{TESTS}::test_create_message_request",
        fault=drop_field("sampling/createMessage", "params.messages"),
    ),
    Cover(
        "schema-create-message-result",
        "client",
        f"{TESTS}::test_create_message_result",
        fault=drop_field("sampling/createMessage", "result.model"),
    ),
    Cover(
        "schema-discover-request",
        "client",
        f"{TESTS}::test_discover_request",
        fault=set_field("server/discover", "params", "not an object"),
    ),
    Cover(
        "schema-discover-result",
        "server",
        f"{TESTS}::test_discover_result",
        fault=drop_field("server/discover", "result.supportedVersions"),
    ),
    Cover(
        "schema-elicit-request",
        "server",
        f"{TESTS}::test_elicit_request",
        fault=drop_field("elicitation/create", "params.message"),
    ),
    Cover(
        "schema-elicitation-complete-notification",
        "server",
        f"{TESTS}::test_elicitation_complete_notification",
        fault=drop_field("notifications/elicitation/complete", "params.elicitationId"),
    ),
    Cover(
        "schema-elicit-result",
        "client",
        f"{TESTS}::test_elicit_result",
        fault=drop_field("elicitation/create", "result.action"),
    ),
    Cover(
        "schema-get-prompt-request",
        "client",
        f"{TESTS}::test_get_prompt_request",
        fault=drop_field("prompts/get", "params.name"),
    ),
    Cover(
        "schema-get-prompt-result",
        "server",
        f"{TESTS}::test_get_prompt_result",
        fault=drop_field("prompts/get", "result.messages"),
    ),
    Cover(
        "schema-initialize-request",
        "client",
        f"{TESTS}::test_initialize_request",
        fault=drop_field("initialize", "params.clientInfo"),
    ),
    Cover(
        "schema-initialize-result",
        "server",
        f"{TESTS}::test_initialize_result",
        fault=drop_field("initialize", "result.protocolVersion"),
    ),
    Cover(
        "schema-initialized-notification",
        "client",
        f"{TESTS}::test_initialized_notification",
        fault=set_field("notifications/initialized", "params", "not an object"),
    ),
    Cover(
        "schema-input-required-result",
        "server",
        f"{TESTS}::test_input_required_result",
        fault=set_field("tools/call", "result.inputRequests", "not an object"),
    ),
    Cover(
        "schema-list-prompts-request",
        "client",
        f"{TESTS}::test_list_prompts_request",
        fault=set_field("prompts/list", "params.cursor", 7),
    ),
    Cover(
        "schema-list-prompts-result",
        "server",
        f"{TESTS}::test_list_prompts_result",
        fault=drop_field("prompts/list", "result.prompts"),
    ),
    Cover(
        "schema-list-resource-templates-request",
        "client",
        f"{TESTS}::test_list_resource_templates_request",
        fault=set_field("resources/templates/list", "params.cursor", 7),
    ),
    Cover(
        "schema-list-resource-templates-result",
        "server",
        f"{TESTS}::test_list_resource_templates_result",
        fault=drop_field("resources/templates/list", "result.resourceTemplates"),
    ),
    Cover(
        "schema-list-resources-request",
        "client",
        f"{TESTS}::test_list_resources_request",
        fault=set_field("resources/list", "params.cursor", 7),
    ),
    Cover(
        "schema-list-resources-result",
        "server",
        f"{TESTS}::test_list_resources_result",
        fault=drop_field("resources/list", "result.resources"),
    ),
    Cover(
        "schema-list-roots-request",
        "server",
        f"{TESTS}::test_list_roots_request",
        fault=set_field("roots/list", "params", "not an object"),
    ),
    Cover(
        "schema-list-roots-result",
        "client",
        f"{TESTS}::test_list_roots_result",
        fault=drop_field("roots/list", "result.roots"),
    ),
    Cover(
        "schema-list-tools-request",
        "client",
        f"{TESTS}::test_list_tools_request",
        fault=set_field("tools/list", "params.cursor", 7),
    ),
    Cover(
        "schema-list-tools-result",
        "server",
        f"{TESTS}::test_list_tools_result",
        fault=drop_field("tools/list", "result.tools"),
    ),
    Cover(
        "schema-logging-message-notification",
        "server",
        f"{TESTS}::test_logging_message_notification",
        fault=set_field("notifications/message", "params.level", "loud"),
    ),
    Cover(
        "schema-ping-request-server",
        "server",
        f"{TESTS}::test_ping_request_server",
        fault=set_field("ping", "params", "not an object"),
    ),
    Cover(
        "schema-ping-request-client",
        "client",
        f"{TESTS}::test_ping_request_client",
        fault=set_field("ping", "params", "not an object"),
    ),
    Cover(
        "schema-progress-notification-server",
        "server",
        f"{TESTS}::test_progress_notification_server",
        fault=drop_field("notifications/progress", "params.progressToken"),
    ),
    Cover(
        "schema-prompt-list-changed-notification",
        "server",
        f"{TESTS}::test_prompt_list_changed_notification",
        fault=set_field("notifications/prompts/list_changed", "params", "not an object"),
    ),
    Cover(
        "schema-read-resource-request",
        "client",
        f"{TESTS}::test_read_resource_request",
        fault=drop_field("resources/read", "params.uri"),
    ),
    Cover(
        "schema-read-resource-result",
        "server",
        f"{TESTS}::test_read_resource_result",
        fault=drop_field("resources/read", "result.contents"),
    ),
    Cover(
        "schema-resource-list-changed-notification",
        "server",
        f"{TESTS}::test_resource_list_changed_notification",
        fault=set_field("notifications/resources/list_changed", "params", "not an object"),
    ),
    Cover(
        "schema-resource-updated-notification",
        "server",
        f"{TESTS}::test_resource_updated_notification",
        fault=drop_field("notifications/resources/updated", "params.uri"),
    ),
    Cover(
        "schema-result-server",
        "server",
        f"{TESTS}::test_result_server",
        fault=set_field(EMPTY_RESULT_METHODS, "result._meta", "not an object"),
    ),
    Cover(
        "schema-result-client",
        "client",
        f"{TESTS}::test_result_client",
        fault=set_field("ping", "result._meta", "not an object"),
    ),
    Cover(
        "schema-roots-list-changed-notification",
        "client",
        f"{TESTS}::test_roots_list_changed_notification",
        fault=set_field("notifications/roots/list_changed", "params", "not an object"),
    ),
    Cover(
        "schema-set-level-request",
        "client",
        f"{TESTS}::test_set_level_request",
        fault=set_field("logging/setLevel", "params.level", "loud"),
    ),
    Cover(
        "schema-subscribe-request",
        "client",
        f"{TESTS}::test_subscribe_request",
        fault=drop_field("resources/subscribe", "params.uri"),
    ),
    Cover(
        "schema-subscriptions-acknowledged-notification",
        "server",
        f"{TESTS}::test_subscriptions_acknowledged_notification",
        fault=set_field("notifications/subscriptions/acknowledged", "params", "not an object"),
    ),
    Cover(
        "schema-subscriptions-listen-request",
        "client",
        f"{TESTS}::test_subscriptions_listen_request",
        fault=drop_field("subscriptions/listen", "params.notifications"),
    ),
    Cover(
        "schema-subscriptions-listen-result",
        "server",
        f"{TESTS}::test_subscriptions_listen_result",
        fault=set_field("subscriptions/listen", "result._meta", "not an object"),
    ),
    # tasks (2025-11-25): the tour's task of the server's own task tool (read, listed, cancelled, its result
    # fetched) and the task-augmented sampling of task-sampling-tool, the tour as receiver (tasks/get, tasks/result)
    Cover(
        "schema-cancel-task-result-server",
        "server",
        f"{TESTS}::test_cancel_task_result_server",
        fault=drop_field("tasks/cancel", "result.taskId"),
    ),
    Cover(
        "schema-get-task-payload-request-server",
        "server",
        f"{TESTS}::test_get_task_payload_request_server",
        fault=drop_field("tasks/result", "params.taskId"),
    ),
    Cover(
        "schema-get-task-payload-result-server",
        "server",
        f"{TESTS}::test_get_task_payload_result_server",
        fault=set_field("tasks/result", "result._meta", "not an object"),
    ),
    Cover(
        "schema-get-task-request-server",
        "server",
        f"{TESTS}::test_get_task_request_server",
        fault=drop_field("tasks/get", "params.taskId"),
    ),
    Cover(
        "schema-get-task-result-server",
        "server",
        f"{TESTS}::test_get_task_result_server",
        fault=drop_field("tasks/get", "result.status"),
    ),
    Cover(
        "schema-list-tasks-result-server",
        "server",
        f"{TESTS}::test_list_tasks_result_server",
        fault=drop_field("tasks/list", "result.tasks"),
    ),
    Cover(
        "schema-task-status-notification-server",
        "server",
        f"{TESTS}::test_task_status_notification_server",
        fault=drop_field("notifications/tasks/status", "params.taskId"),
    ),
    Cover(
        "schema-progress-notification-client",
        "client",
        f"{TESTS}::test_progress_notification_client",
        fault=drop_field("notifications/progress", "params.progressToken"),
    ),
    Cover(
        "schema-tool-list-changed-notification",
        "server",
        f"{TESTS}::test_tool_list_changed_notification",
        fault=set_field("notifications/tools/list_changed", "params", "not an object"),
    ),
    Cover(
        "schema-unsubscribe-request",
        "client",
        f"{TESTS}::test_unsubscribe_request",
        fault=drop_field("resources/unsubscribe", "params.uri"),
    ),
]

# The client's task messages (2025-11-25): as receiver, from the tour (two task-augmented sampling requests, one
# cancelled, one asked about until it ends); as requestor, from the task scenarios over Streamable HTTP
# (``client_task_requests``).
COVERS += [
    Cover(
        "schema-cancel-task-result-client",
        "client",
        f"{TESTS}::test_cancel_task_result_client",
        fault=drop_field("tasks/cancel", "result.status"),
    ),
    Cover(
        "schema-get-task-payload-result-client",
        "client",
        f"{TESTS}::test_get_task_payload_result_client",
        fault=set_field("tasks/result", "result._meta", "not an object"),
    ),
    Cover(
        "schema-get-task-result-client",
        "client",
        f"{TESTS}::test_get_task_result_client",
        fault=drop_field("tasks/get", "result.status"),
    ),
    Cover(
        "schema-list-tasks-result-client",
        "client",
        f"{TESTS}::test_list_tasks_result_client",
        fault=drop_field("tasks/list", "result.tasks"),
    ),
    Cover(
        "schema-task-status-notification-client",
        "client",
        f"{TESTS}::test_task_status_notification_client",
        fault=drop_field("notifications/tasks/status", "params.taskId"),
    ),
    Cover(
        "schema-cancel-task-request-client",
        "client",
        f"{TESTS}::test_cancel_task_request_client",
        fault=drop_field("tasks/cancel", "params.taskId"),
    ),
    Cover(
        "schema-get-task-payload-request-client",
        "client",
        f"{TESTS}::test_get_task_payload_request_client",
        fault=drop_field("tasks/result", "params.taskId"),
    ),
    Cover(
        "schema-get-task-request-client",
        "client",
        f"{TESTS}::test_get_task_request_client",
        fault=drop_field("tasks/get", "params.taskId"),
    ),
    Cover(
        "schema-list-tasks-request-client",
        "client",
        f"{TESTS}::test_list_tasks_request_client",
        fault=set_field("tasks/list", "params.cursor", 7),
    ),
]

GAPS: list[Gap] = [
    Gap(
        "schema-call-tool-result",
        "server",
        "F-110",
        "a tools/call result carries audio content, which 2024-11-05's CallToolResult does not admit",
        revisions="2024-11-05",
    ),
    Gap(
        "schema-elicit-request",
        "server",
        "F-404",
        "the SEP-1330 tool's elicitation asks multi-select (array) fields, which 2025-06-18's primitive shapes do not "
        "admit",
        revisions="2025-06-18",
    ),
    Gap(
        "schema-get-prompt-result",
        "server",
        "F-110",
        "a prompts/get result carries audio content, which 2024-11-05's PromptMessage does not admit",
        revisions="2024-11-05",
    ),
    Gap(
        "schema-result-server",
        "server",
        "L-130",
        "every request of 2026-07-28's core protocol has a result type of its own: only an extension's request "
        "is answered with a bare Result, and which requests an extension defines is not on the wire",
        revisions="2026-07-28",
    ),
    *gaps(
        "L-131",
        "a server sends tasks/cancel or tasks/list to a client only where its application decides to (no "
        "protocol flow asks it to), and no server of make targets does: the tour cannot provoke the message",
        {
            "schema-cancel-task-request-server": "server",
            "schema-list-tasks-request-server": "server",
        },
    ),
]
