"""Tasks (2025-11-25): task-augmented requests only where declared and allowed, the task objects a receiver
returns (string ids, timestamps, the first status, no change after a terminal one), CreateTaskResult as the
answer, cancelling a finished task refused, task-list cursors passed back unchanged."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from conformance.validator.checks.capabilities import declared
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, ERROR, NOTIFICATION, REQUEST, RESULT, SERVER, Message, Session, other

TERMINAL = frozenset({"completed", "failed", "cancelled"})
ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$")
AUGMENTABLE = {  # method -> its path under the receiver's tasks.requests capability
    "tools/call": ("tools", "call"),
    "sampling/createMessage": ("sampling", "createMessage"),
    "elicitation/create": ("elicitation", "create"),
}
INVALID_PARAMS = -32602


def _capabilities_of(session: Session, side: str) -> dict | None:
    return session.server_capabilities if side == SERVER else session.client_capabilities


def _augmented(message: Message) -> bool:
    return message.kind == REQUEST and isinstance(message.params.get("task"), dict)


def task_objects(session: Session) -> Iterator[tuple[Message, dict]]:
    """Every task object a receiver sent: in a CreateTaskResult, a tasks/get or tasks/cancel result, a
    tasks/list result, a status notification."""
    for message in session.messages:
        if message.kind == NOTIFICATION and message.method == "notifications/tasks/status":
            yield message, message.params
        elif message.kind == RESULT and isinstance(message.result, dict):
            request = session.request_answered(message)
            method = request.method if request else None
            if isinstance(message.result.get("task"), dict):
                yield message, message.result["task"]
            elif method in ("tasks/get", "tasks/cancel"):
                yield message, message.result
            elif method == "tasks/list":
                for task in message.result.get("tasks") or []:
                    if isinstance(task, dict):
                        yield message, task


def _tools_by_name(session: Session) -> dict[Any, dict]:
    tools: dict[Any, dict] = {}
    for response in session.results_by_method.get((SERVER, "tools/list"), []):
        for tool in (response.result or {}).get("tools") or [] if isinstance(response.result, dict) else []:
            if isinstance(tool, dict):
                tools[tool.get("name")] = tool
    return tools


def _task_support(tool: dict | None) -> Any:
    execution = tool.get("execution") if isinstance(tool, dict) else None
    return execution.get("taskSupport") if isinstance(execution, dict) else None


@check("tasks-tools-no-augment-without-capability")
def tool_calls_augmented_only_where_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No task-augmented tools/call to a server whose capabilities lack tasks.requests.tools.call."""
    for request in session.sent_by(CLIENT, REQUEST):
        if request.method != "tools/call" or not _augmented(request):
            continue
        judgement.examine()
        if not declared(session.server_capabilities, ("tasks", "requests", "tools", "call")):
            judgement.fail(
                request.seq, "a task-augmented tools/call, but the server declared no tasks.requests.tools.call"
            )


@check("tasks-tools-forbidden-not-augmented")
def forbidden_tools_not_augmented(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No task-augmented tools/call of a tool whose execution.taskSupport is forbidden."""
    tools = _tools_by_name(session)
    for request in session.sent_by(CLIENT, REQUEST):
        if request.method != "tools/call" or request.params.get("name") not in tools:
            continue
        judgement.examine()
        if _augmented(request) and _task_support(tools[request.params["name"]]) == "forbidden":
            judgement.fail(
                request.seq, f"a task-augmented call of {request.params['name']!r}, whose taskSupport is forbidden"
            )


@check("tasks-tools-required-augmented")
def required_tools_augmented(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every tools/call of a tool whose execution.taskSupport is required carries the task param."""
    tools = _tools_by_name(session)
    for request in session.sent_by(CLIENT, REQUEST):
        if request.method != "tools/call" or _task_support(tools.get(request.params.get("name"))) != "required":
            continue
        judgement.examine()
        if not _augmented(request):
            judgement.fail(
                request.seq, f"a plain call of {request.params.get('name')!r}, whose taskSupport is required"
            )


@check("tasks-declare-capability")
def task_receivers_declare(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A side that answers a task-augmented request with a task declared tasks.requests for that request type."""
    for request in session.messages:
        if not _augmented(request) or request.method not in AUGMENTABLE:
            continue
        answers = [a for a in session.answers_to(request) if a.kind == RESULT and isinstance(a.result, dict)]
        if not answers or not isinstance(answers[0].result.get("task"), dict):
            continue
        receiver = other(request.sender)
        judgement.examine()
        path = ("tasks", "requests", *AUGMENTABLE[request.method])
        if not declared(_capabilities_of(session, receiver), path):
            judgement.fail(
                answers[0].seq, f"the {receiver} created a task for {request.method} without {'.'.join(path)}"
            )


@check("tasks-create-task-result")
def augmented_requests_answered_with_a_task(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A receiver that declared task support for a request type answers its task-augmented requests with a
    CreateTaskResult (a task), not with the operation's result."""
    for request in session.messages:
        if not _augmented(request) or request.method not in AUGMENTABLE:
            continue
        receiver = other(request.sender)
        if not declared(_capabilities_of(session, receiver), ("tasks", "requests", *AUGMENTABLE[request.method])):
            continue
        answers = [a for a in session.answers_to(request) if a.kind == RESULT]
        if not answers:
            continue
        judgement.examine()
        if not (isinstance(answers[0].result, dict) and isinstance(answers[0].result.get("task"), dict)):
            judgement.fail(answers[0].seq, f"the {receiver} answered a task-augmented {request.method} without a task")


@check("tasks-id-string")
def task_ids_are_strings(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every task id is a JSON string."""
    for message, task in task_objects(session):
        judgement.examine()
        if not isinstance(task.get("taskId"), str):
            judgement.fail(message.seq, f"the {message.sender}'s task id {task.get('taskId')!r} is not a string")


@check("tasks-initial-status-working")
def new_tasks_are_working(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A task a CreateTaskResult announces has status working."""
    for message in session.messages:
        task = message.result.get("task") if message.kind == RESULT and isinstance(message.result, dict) else None
        if isinstance(task, dict):
            judgement.examine()
            if task.get("status") != "working":
                judgement.fail(message.seq, f"a new task {task.get('taskId')!r} has status {task.get('status')!r}")


def _timestamp(member: str, session: Session, judgement: Judgement) -> None:
    for message, task in task_objects(session):
        judgement.examine()
        value = task.get(member)
        if not (isinstance(value, str) and ISO_8601.match(value)):
            judgement.fail(
                message.seq, f"task {task.get('taskId')!r} has {member} {value!r}, not an ISO 8601 timestamp"
            )


@check("tasks-created-at")
def tasks_carry_created_at(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every task object carries createdAt, an ISO 8601 timestamp."""
    _timestamp("createdAt", session, judgement)


@check("tasks-last-updated-at")
def tasks_carry_last_updated_at(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every task object carries lastUpdatedAt, an ISO 8601 timestamp."""
    _timestamp("lastUpdatedAt", session, judgement)


@check("tasks-terminal-is-final")
def terminal_status_final(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Once a receiver has shown a task completed, failed or cancelled, it never shows it in another status."""
    final: dict[tuple[str, Any], str] = {}
    for message, task in task_objects(session):
        key = (message.sender, task.get("taskId"))
        status = task.get("status")
        judgement.examine()
        if key in final and status != final[key]:
            judgement.fail(message.seq, f"task {key[1]!r} went from {final[key]} to {status!r}")
        elif status in TERMINAL:
            final[key] = status


@check("tasks-cancel-terminal-rejected")
def finished_tasks_not_cancelled(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """tasks/cancel of a task the receiver had already shown completed, failed or cancelled is answered with
    error -32602."""
    shown_in: dict[int, list[dict]] = {}
    for shown, task in task_objects(session):
        shown_in.setdefault(id(shown), []).append(task)
    last: dict[tuple[str, Any], Any] = {}  # (receiver, task id) -> the status it last showed
    for message in session.messages:
        for task in shown_in.get(id(message), []):
            last[(message.sender, task.get("taskId"))] = task.get("status")
        if message.kind != REQUEST or message.method != "tasks/cancel":
            continue
        status = last.get((other(message.sender), message.params.get("taskId")))
        answers = session.answers_to(message)
        if status not in TERMINAL or not answers:
            continue
        judgement.examine()
        error = answers[0].frame.get("error") if answers[0].kind == ERROR else None
        if not (isinstance(error, dict) and error.get("code") == INVALID_PARAMS):
            judgement.fail(answers[0].seq, f"tasks/cancel of a {status} task answered without error -32602")


@check("tasks-list-cursor-opaque")
def task_list_cursors_unchanged(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A requestor sends back only tasks/list cursors its receiver issued, unchanged."""
    issued: dict[str, set[Any]] = {CLIENT: set(), SERVER: set()}
    for message in session.messages:
        if message.kind == RESULT and isinstance(message.result, dict) and "nextCursor" in message.result:
            request = session.request_answered(message)
            if request is not None and request.method == "tasks/list":
                issued[message.sender].add(message.result["nextCursor"])
        elif message.kind == REQUEST and message.method == "tasks/list" and "cursor" in message.params:
            judgement.examine()
            if message.params["cursor"] not in issued[other(message.sender)]:
                judgement.fail(message.seq, f"tasks/list cursor {message.params['cursor']!r} was never issued")
