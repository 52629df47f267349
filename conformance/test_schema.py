"""Schema: what each side sends of each message type is valid against its published definition.

One test per row of the ``schema`` area (docs/spec/requirements.md), each judging the messages of
its own type. The messages come from one rich exchange per revision and side, recorded once per
worker (``conformance/harness/tour.py``): the server's from a session in which the harness provokes
every message type the target offers, the client's from the client driver's ``schema_tour`` against
a scripted stdio server. Each test validates every message of its type in that exchange against the
definition as the revision publishes it, and names the frame that breaks it; a type the exchange
never carried is fixture-missing. Members a revision does not define are not judged here (the
published objects are open): see the lifecycle rows about keeping to the negotiated revision.
Under ``--falsify`` the test's fault damages the recorded frames as they are read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance.harness.tour import Tour, breaches
from conformance.matrix.covers import for_req
from conformance.run.tours import Judged, client_tour_for, server_tour_for

Sent = Callable[[str], "Validated"]


class Validated(Judged):
    def valid(self, definition: str) -> None:
        """Every message of ``definition`` in the tour is valid against it, as the revision publishes it."""
        messages = self.messages(definition)
        if not messages:
            self.missing(definition)
        problems = breaches(self.tour, definition, self.fault)
        assert not problems, f"{len(problems)} breach(es) of {self.revision}'s {definition}:\n" + "\n".join(problems)


@pytest.fixture
def server_sent(request: pytest.FixtureRequest) -> Sent:
    """``server_sent(revision)``: the server's messages in its tour at ``revision`` (recorded once a worker)."""
    return lambda revision: Validated(server_tour_for(request, revision), request)


@pytest.fixture
def client_sent(request: pytest.FixtureRequest) -> Sent:
    """``client_sent(revision)``: the client's messages in its stdio tour at ``revision`` (recorded once a worker)."""
    return lambda revision: Validated(client_tour_for(request, revision), request)


TaskRequestsSent = Callable[[str, str], "Validated"]


@pytest.fixture
def client_task_requests(request: pytest.FixtureRequest, run_client: Any, scripted_server: Any) -> TaskRequestsSent:
    """``client_task_requests(revision, scenario)``: what the client sent as the requestor of tasks through
    ``scenario`` (``task_tool_calls``, ``task_list``, ``cancel_task``) over Streamable HTTP, the scripted server a
    receiver of task-augmented tools/call (``ScriptedTasks`` of test_tasks.py, three tasks held already). The tour
    has no task of the server's to poll, list or cancel; the test's fault damages the client's frames as the
    server reads them."""
    from conformance.test_tasks import ScriptedTasks

    def sent(revision: str, scenario: str) -> Validated:
        ScriptedTasks(scripted_server, seeded=3)
        run = run_client(scenario)
        tour = Tour(revision, "client", frames=scripted_server.frames())
        if not run.completed:
            tour.notes.append(f"the client did not complete {scenario}: {run.output[-500:]}")
        return Validated(tour, request)

    return sent


@for_req("schema-call-tool-request", "client")
def test_call_tool_request(revision: str, client_sent: Sent) -> None:
    """Each CallToolRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("CallToolRequest")


@for_req("schema-call-tool-result", "server")
def test_call_tool_result(revision: str, server_sent: Sent) -> None:
    """Each CallToolResult the server sent is valid against its published definition."""
    server_sent(revision).valid("CallToolResult")


@for_req("schema-cancel-task-request-server", "server")
def test_cancel_task_request_server(revision: str, server_sent: Sent) -> None:
    """Each CancelTaskRequest the server sent is valid against its published definition."""
    server_sent(revision).valid("CancelTaskRequest")


@for_req("schema-cancel-task-request-client", "client")
def test_cancel_task_request_client(revision: str, client_task_requests: TaskRequestsSent) -> None:
    """Each CancelTaskRequest the client sent as the requestor of tasks (``cancel_task``) is valid against
    its published definition."""
    client_task_requests(revision, "cancel_task").valid("CancelTaskRequest")


@for_req("schema-cancel-task-result-server", "server")
def test_cancel_task_result_server(revision: str, server_sent: Sent) -> None:
    """Each CancelTaskResult the server sent is valid against its published definition."""
    server_sent(revision).valid("CancelTaskResult")


@for_req("schema-cancel-task-result-client", "client")
def test_cancel_task_result_client(revision: str, client_sent: Sent) -> None:
    """Each CancelTaskResult the client sent is valid against its published definition."""
    client_sent(revision).valid("CancelTaskResult")


@for_req("schema-cancelled-notification-server", "server")
def test_cancelled_notification_server(revision: str, server_sent: Sent) -> None:
    """Each CancelledNotification the server sent is valid against its published definition."""
    server_sent(revision).valid("CancelledNotification")


@for_req("schema-cancelled-notification-client", "client")
def test_cancelled_notification_client(revision: str, client_sent: Sent) -> None:
    """Each CancelledNotification the client sent is valid against its published definition."""
    client_sent(revision).valid("CancelledNotification")


@for_req("schema-complete-request", "client")
def test_complete_request(revision: str, client_sent: Sent) -> None:
    """Each CompleteRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("CompleteRequest")


@for_req("schema-complete-result", "server")
def test_complete_result(revision: str, server_sent: Sent) -> None:
    """Each CompleteResult the server sent is valid against its published definition."""
    server_sent(revision).valid("CompleteResult")


@for_req("schema-create-message-request", "server")
def test_create_message_request(revision: str, server_sent: Sent) -> None:
    """Each CreateMessageRequest the server sent is valid against its published definition."""
    server_sent(revision).valid("CreateMessageRequest")


@for_req("schema-create-message-result", "client")
def test_create_message_result(revision: str, client_sent: Sent) -> None:
    """Each CreateMessageResult the client sent is valid against its published definition."""
    client_sent(revision).valid("CreateMessageResult")


@for_req("schema-discover-request", "client")
def test_discover_request(revision: str, client_sent: Sent) -> None:
    """Each DiscoverRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("DiscoverRequest")


@for_req("schema-discover-result", "server")
def test_discover_result(revision: str, server_sent: Sent) -> None:
    """Each DiscoverResult the server sent is valid against its published definition."""
    server_sent(revision).valid("DiscoverResult")


@for_req("schema-elicit-request", "server")
def test_elicit_request(revision: str, server_sent: Sent) -> None:
    """Each ElicitRequest the server sent is valid against its published definition."""
    server_sent(revision).valid("ElicitRequest")


@for_req("schema-elicit-result", "client")
def test_elicit_result(revision: str, client_sent: Sent) -> None:
    """Each ElicitResult the client sent is valid against its published definition."""
    client_sent(revision).valid("ElicitResult")


@for_req("schema-elicitation-complete-notification", "server")
def test_elicitation_complete_notification(revision: str, server_sent: Sent) -> None:
    """Each ElicitationCompleteNotification the server sent is valid against its published definition."""
    server_sent(revision).valid("ElicitationCompleteNotification")


@for_req("schema-get-prompt-request", "client")
def test_get_prompt_request(revision: str, client_sent: Sent) -> None:
    """Each GetPromptRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("GetPromptRequest")


@for_req("schema-get-prompt-result", "server")
def test_get_prompt_result(revision: str, server_sent: Sent) -> None:
    """Each GetPromptResult the server sent is valid against its published definition."""
    server_sent(revision).valid("GetPromptResult")


@for_req("schema-get-task-payload-request-server", "server")
def test_get_task_payload_request_server(revision: str, server_sent: Sent) -> None:
    """Each GetTaskPayloadRequest the server sent is valid against its published definition."""
    server_sent(revision).valid("GetTaskPayloadRequest")


@for_req("schema-get-task-payload-request-client", "client")
def test_get_task_payload_request_client(revision: str, client_task_requests: TaskRequestsSent) -> None:
    """Each GetTaskPayloadRequest the client sent as the requestor of tasks (``task_tool_calls``) is valid against
    its published definition."""
    client_task_requests(revision, "task_tool_calls").valid("GetTaskPayloadRequest")


@for_req("schema-get-task-payload-result-server", "server")
def test_get_task_payload_result_server(revision: str, server_sent: Sent) -> None:
    """Each GetTaskPayloadResult the server sent is valid against its published definition."""
    server_sent(revision).valid("GetTaskPayloadResult")


@for_req("schema-get-task-payload-result-client", "client")
def test_get_task_payload_result_client(revision: str, client_sent: Sent) -> None:
    """Each GetTaskPayloadResult the client sent is valid against its published definition."""
    client_sent(revision).valid("GetTaskPayloadResult")


@for_req("schema-get-task-request-server", "server")
def test_get_task_request_server(revision: str, server_sent: Sent) -> None:
    """Each GetTaskRequest the server sent is valid against its published definition."""
    server_sent(revision).valid("GetTaskRequest")


@for_req("schema-get-task-request-client", "client")
def test_get_task_request_client(revision: str, client_task_requests: TaskRequestsSent) -> None:
    """Each GetTaskRequest the client sent as the requestor of tasks (``task_tool_calls``) is valid against
    its published definition."""
    client_task_requests(revision, "task_tool_calls").valid("GetTaskRequest")


@for_req("schema-get-task-result-server", "server")
def test_get_task_result_server(revision: str, server_sent: Sent) -> None:
    """Each GetTaskResult the server sent is valid against its published definition."""
    server_sent(revision).valid("GetTaskResult")


@for_req("schema-get-task-result-client", "client")
def test_get_task_result_client(revision: str, client_sent: Sent) -> None:
    """Each GetTaskResult the client sent is valid against its published definition."""
    client_sent(revision).valid("GetTaskResult")


@for_req("schema-initialize-request", "client")
def test_initialize_request(revision: str, client_sent: Sent) -> None:
    """Each InitializeRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("InitializeRequest")


@for_req("schema-initialize-result", "server")
def test_initialize_result(revision: str, server_sent: Sent) -> None:
    """Each InitializeResult the server sent is valid against its published definition."""
    server_sent(revision).valid("InitializeResult")


@for_req("schema-initialized-notification", "client")
def test_initialized_notification(revision: str, client_sent: Sent) -> None:
    """Each InitializedNotification the client sent is valid against its published definition."""
    client_sent(revision).valid("InitializedNotification")


@for_req("schema-input-required-result", "server")
def test_input_required_result(revision: str, server_sent: Sent) -> None:
    """Each InputRequiredResult the server sent is valid against its published definition."""
    server_sent(revision).valid("InputRequiredResult")


@for_req("schema-list-prompts-request", "client")
def test_list_prompts_request(revision: str, client_sent: Sent) -> None:
    """Each ListPromptsRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("ListPromptsRequest")


@for_req("schema-list-prompts-result", "server")
def test_list_prompts_result(revision: str, server_sent: Sent) -> None:
    """Each ListPromptsResult the server sent is valid against its published definition."""
    server_sent(revision).valid("ListPromptsResult")


@for_req("schema-list-resource-templates-request", "client")
def test_list_resource_templates_request(revision: str, client_sent: Sent) -> None:
    """Each ListResourceTemplatesRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("ListResourceTemplatesRequest")


@for_req("schema-list-resource-templates-result", "server")
def test_list_resource_templates_result(revision: str, server_sent: Sent) -> None:
    """Each ListResourceTemplatesResult the server sent is valid against its published definition."""
    server_sent(revision).valid("ListResourceTemplatesResult")


@for_req("schema-list-resources-request", "client")
def test_list_resources_request(revision: str, client_sent: Sent) -> None:
    """Each ListResourcesRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("ListResourcesRequest")


@for_req("schema-list-resources-result", "server")
def test_list_resources_result(revision: str, server_sent: Sent) -> None:
    """Each ListResourcesResult the server sent is valid against its published definition."""
    server_sent(revision).valid("ListResourcesResult")


@for_req("schema-list-roots-request", "server")
def test_list_roots_request(revision: str, server_sent: Sent) -> None:
    """Each ListRootsRequest the server sent is valid against its published definition."""
    server_sent(revision).valid("ListRootsRequest")


@for_req("schema-list-roots-result", "client")
def test_list_roots_result(revision: str, client_sent: Sent) -> None:
    """Each ListRootsResult the client sent is valid against its published definition."""
    client_sent(revision).valid("ListRootsResult")


@for_req("schema-list-tasks-request-server", "server")
def test_list_tasks_request_server(revision: str, server_sent: Sent) -> None:
    """Each ListTasksRequest the server sent is valid against its published definition."""
    server_sent(revision).valid("ListTasksRequest")


@for_req("schema-list-tasks-request-client", "client")
def test_list_tasks_request_client(revision: str, client_task_requests: TaskRequestsSent) -> None:
    """Each ListTasksRequest the client sent as the requestor of tasks (``task_list``) is valid against
    its published definition."""
    client_task_requests(revision, "task_list").valid("ListTasksRequest")


@for_req("schema-list-tasks-result-server", "server")
def test_list_tasks_result_server(revision: str, server_sent: Sent) -> None:
    """Each ListTasksResult the server sent is valid against its published definition."""
    server_sent(revision).valid("ListTasksResult")


@for_req("schema-list-tasks-result-client", "client")
def test_list_tasks_result_client(revision: str, client_sent: Sent) -> None:
    """Each ListTasksResult the client sent is valid against its published definition."""
    client_sent(revision).valid("ListTasksResult")


@for_req("schema-list-tools-request", "client")
def test_list_tools_request(revision: str, client_sent: Sent) -> None:
    """Each ListToolsRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("ListToolsRequest")


@for_req("schema-list-tools-result", "server")
def test_list_tools_result(revision: str, server_sent: Sent) -> None:
    """Each ListToolsResult the server sent is valid against its published definition."""
    server_sent(revision).valid("ListToolsResult")


@for_req("schema-logging-message-notification", "server")
def test_logging_message_notification(revision: str, server_sent: Sent) -> None:
    """Each LoggingMessageNotification the server sent is valid against its published definition."""
    server_sent(revision).valid("LoggingMessageNotification")


@for_req("schema-ping-request-server", "server")
def test_ping_request_server(revision: str, server_sent: Sent) -> None:
    """Each PingRequest the server sent is valid against its published definition."""
    server_sent(revision).valid("PingRequest")


@for_req("schema-ping-request-client", "client")
def test_ping_request_client(revision: str, client_sent: Sent) -> None:
    """Each PingRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("PingRequest")


@for_req("schema-progress-notification-server", "server")
def test_progress_notification_server(revision: str, server_sent: Sent) -> None:
    """Each ProgressNotification the server sent is valid against its published definition."""
    server_sent(revision).valid("ProgressNotification")


@for_req("schema-progress-notification-client", "client")
def test_progress_notification_client(revision: str, client_sent: Sent) -> None:
    """Each ProgressNotification the client sent is valid against its published definition."""
    client_sent(revision).valid("ProgressNotification")


@for_req("schema-prompt-list-changed-notification", "server")
def test_prompt_list_changed_notification(revision: str, server_sent: Sent) -> None:
    """Each PromptListChangedNotification the server sent is valid against its published definition."""
    server_sent(revision).valid("PromptListChangedNotification")


@for_req("schema-read-resource-request", "client")
def test_read_resource_request(revision: str, client_sent: Sent) -> None:
    """Each ReadResourceRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("ReadResourceRequest")


@for_req("schema-read-resource-result", "server")
def test_read_resource_result(revision: str, server_sent: Sent) -> None:
    """Each ReadResourceResult the server sent is valid against its published definition."""
    server_sent(revision).valid("ReadResourceResult")


@for_req("schema-resource-list-changed-notification", "server")
def test_resource_list_changed_notification(revision: str, server_sent: Sent) -> None:
    """Each ResourceListChangedNotification the server sent is valid against its published definition."""
    server_sent(revision).valid("ResourceListChangedNotification")


@for_req("schema-resource-updated-notification", "server")
def test_resource_updated_notification(revision: str, server_sent: Sent) -> None:
    """Each ResourceUpdatedNotification the server sent is valid against its published definition."""
    server_sent(revision).valid("ResourceUpdatedNotification")


@for_req("schema-result-server", "server")
def test_result_server(revision: str, server_sent: Sent) -> None:
    """Each Result the server sent is valid against its published definition."""
    server_sent(revision).valid("Result")


@for_req("schema-result-client", "client")
def test_result_client(revision: str, client_sent: Sent) -> None:
    """Each Result the client sent is valid against its published definition."""
    client_sent(revision).valid("Result")


@for_req("schema-roots-list-changed-notification", "client")
def test_roots_list_changed_notification(revision: str, client_sent: Sent) -> None:
    """Each RootsListChangedNotification the client sent is valid against its published definition."""
    client_sent(revision).valid("RootsListChangedNotification")


@for_req("schema-set-level-request", "client")
def test_set_level_request(revision: str, client_sent: Sent) -> None:
    """Each SetLevelRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("SetLevelRequest")


@for_req("schema-subscribe-request", "client")
def test_subscribe_request(revision: str, client_sent: Sent) -> None:
    """Each SubscribeRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("SubscribeRequest")


@for_req("schema-subscriptions-acknowledged-notification", "server")
def test_subscriptions_acknowledged_notification(revision: str, server_sent: Sent) -> None:
    """Each SubscriptionsAcknowledgedNotification the server sent is valid against its published definition."""
    server_sent(revision).valid("SubscriptionsAcknowledgedNotification")


@for_req("schema-subscriptions-listen-request", "client")
def test_subscriptions_listen_request(revision: str, client_sent: Sent) -> None:
    """Each SubscriptionsListenRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("SubscriptionsListenRequest")


@for_req("schema-subscriptions-listen-result", "server")
def test_subscriptions_listen_result(revision: str, server_sent: Sent) -> None:
    """Each SubscriptionsListenResult the server sent is valid against its published definition."""
    server_sent(revision).valid("SubscriptionsListenResult")


@for_req("schema-task-status-notification-server", "server")
def test_task_status_notification_server(revision: str, server_sent: Sent) -> None:
    """Each TaskStatusNotification the server sent is valid against its published definition."""
    server_sent(revision).valid("TaskStatusNotification")


@for_req("schema-task-status-notification-client", "client")
def test_task_status_notification_client(revision: str, client_sent: Sent) -> None:
    """Each TaskStatusNotification the client sent is valid against its published definition."""
    client_sent(revision).valid("TaskStatusNotification")


@for_req("schema-tool-list-changed-notification", "server")
def test_tool_list_changed_notification(revision: str, server_sent: Sent) -> None:
    """Each ToolListChangedNotification the server sent is valid against its published definition."""
    server_sent(revision).valid("ToolListChangedNotification")


@for_req("schema-unsubscribe-request", "client")
def test_unsubscribe_request(revision: str, client_sent: Sent) -> None:
    """Each UnsubscribeRequest the client sent is valid against its published definition."""
    client_sent(revision).valid("UnsubscribeRequest")
