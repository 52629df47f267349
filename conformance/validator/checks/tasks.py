"""Tasks (2025-11-25): task-augmented requests only where declared and allowed, the task objects a receiver
returns (string ids, timestamps, the first status, no change after a terminal one), CreateTaskResult as the
answer, cancelling a finished task refused, task-list cursors passed back unchanged."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from conformance.validator.checks.answers import error_code, first_answer, judge_refusals
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


def _no_tool_tasks(session: Session) -> str | None:
    """A tool's taskSupport binds the client only where the server declared tasks.requests.tools.call; without
    it no call may be a task at all (tasks-tools-no-augment-without-capability)."""
    if declared(session.server_capabilities, ("tasks", "requests", "tools", "call")):
        return None
    return "the server declared no tasks.requests.tools.call"


@check("tasks-tools-forbidden-not-augmented", not_applicable=_no_tool_tasks)
def forbidden_tools_not_augmented(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Where the server declared tasks.requests.tools.call, no task-augmented tools/call of a tool whose
    execution.taskSupport is forbidden or absent (absent means forbidden). Without that declaration every
    augmented call breaks tasks-tools-no-augment-without-capability, which judges it."""
    tools = _tools_by_name(session)
    for request in session.sent_by(CLIENT, REQUEST):
        if request.method != "tools/call" or request.params.get("name") not in tools:
            continue
        judgement.examine()
        support = _task_support(tools[request.params["name"]])
        if _augmented(request) and support in (None, "forbidden"):
            said = "forbidden" if support else "absent (forbidden)"
            judgement.fail(
                request.seq, f"a task-augmented call of {request.params['name']!r}, whose taskSupport is {said}"
            )


@check("tasks-tools-required-augmented", not_applicable=_no_tool_tasks)
def required_tools_augmented(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Where the server declared tasks.requests.tools.call, every tools/call of a tool whose
    execution.taskSupport is required carries the task param."""
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
        if receiver not in sides:
            continue
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
        if receiver not in sides:
            continue
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
        if message.sender not in sides:
            continue
        judgement.examine()
        if not isinstance(task.get("taskId"), str):
            judgement.fail(message.seq, f"the {message.sender}'s task id {task.get('taskId')!r} is not a string")


@check("tasks-initial-status-working")
def new_tasks_are_working(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A task a CreateTaskResult announces has status working."""
    for message in session.messages:
        task = message.result.get("task") if message.kind == RESULT and isinstance(message.result, dict) else None
        if isinstance(task, dict) and message.sender in sides:
            judgement.examine()
            if task.get("status") != "working":
                judgement.fail(message.seq, f"a new task {task.get('taskId')!r} has status {task.get('status')!r}")


def _timestamp(member: str, session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    for message, task in task_objects(session):
        if message.sender not in sides:
            continue
        judgement.examine()
        value = task.get(member)
        if not (isinstance(value, str) and ISO_8601.match(value)):
            judgement.fail(
                message.seq, f"task {task.get('taskId')!r} has {member} {value!r}, not an ISO 8601 timestamp"
            )


@check("tasks-created-at")
def tasks_carry_created_at(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every task object carries createdAt, an ISO 8601 timestamp."""
    _timestamp("createdAt", session, judgement, sides)


@check("tasks-last-updated-at")
def tasks_carry_last_updated_at(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every task object carries lastUpdatedAt, an ISO 8601 timestamp."""
    _timestamp("lastUpdatedAt", session, judgement, sides)


@check("tasks-terminal-is-final")
def terminal_status_final(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Once a receiver has shown a task completed, failed or cancelled, it never shows it in another status."""
    final: dict[tuple[str, Any], str] = {}
    for message, task in task_objects(session):
        if message.sender not in sides:
            continue
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
        receiver = other(message.sender)
        status = last.get((receiver, message.params.get("taskId")))
        answers = session.answers_to(message)
        if receiver not in sides or status not in TERMINAL or not answers:
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
            if message.sender not in sides:
                continue  # judged for the requestor's side only (--side)
            judgement.examine()
            if message.params["cursor"] not in issued[other(message.sender)]:
                judgement.fail(message.seq, f"tasks/list cursor {message.params['cursor']!r} was never issued")


RELATED_TASK = "io.modelcontextprotocol/related-task"
TASK_OPERATIONS = ("tasks/get", "tasks/cancel", "tasks/result")
METHOD_NOT_FOUND = -32601
ALLOWED_CHANGES = {
    "working": frozenset({"input_required", "completed", "failed", "cancelled"}),
    "input_required": frozenset({"working", "completed", "failed", "cancelled"}),
}


def _created_tasks(session: Session) -> Iterator[tuple[Message, Message, dict]]:
    """(augmented request, its CreateTaskResult, the task) for every task a receiver created."""
    for request in session.messages:
        if not _augmented(request):
            continue
        answer = first_answer(session, request)
        task = (
            answer.result.get("task") if answer and answer.kind == RESULT and isinstance(answer.result, dict) else None
        )
        if isinstance(task, dict):
            yield request, answer, task


@check("tasks-augment-only-declared-types")
def augmented_only_where_receiver_lists(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A requestor adds the task param only to a request type its receiver listed under tasks.requests."""
    for request in session.messages:
        if not _augmented(request) or request.sender not in sides:
            continue
        judgement.examine()
        receiver = other(request.sender)
        path = ("tasks", "requests", *AUGMENTABLE.get(request.method or "", (request.method or "?",)))
        if not declared(_capabilities_of(session, receiver), path):
            judgement.fail(request.seq, f"a task-augmented {request.method}, which the {receiver} did not list")


@check("tasks-error-invalid-task-id")
def unknown_task_ids_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """tasks/get, tasks/cancel or tasks/result naming a task its receiver never showed in the trace, and
    refused, is refused with error -32602. (A success answer says the receiver knows the task, perhaps from
    an earlier session: not a subject.)"""
    shown: dict[str, set[Any]] = {CLIENT: set(), SERVER: set()}
    for message in session.messages:
        for task in _tasks_in(session, message):
            shown[message.sender].add(_hashable(task.get("taskId")))
        if message.kind != REQUEST or message.method not in TASK_OPERATIONS:
            continue
        receiver, task_id = other(message.sender), message.params.get("taskId")
        answer = first_answer(session, message)
        if receiver not in sides or _hashable(task_id) in shown[receiver] or answer is None or answer.kind != ERROR:
            continue
        judgement.examine()
        if error_code(answer) != INVALID_PARAMS:
            judgement.fail(
                answer.seq,
                f"{message.method} of unknown task {task_id!r} refused with {error_code(answer)}, not -32602",
            )


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def _tasks_in(session: Session, message: Message) -> list[dict]:
    """The task objects ``message`` shows (an index over the trace, built once)."""
    if "tasks-by-message" not in session.memo:
        index: dict[int, list[dict]] = {}
        for shown, task in task_objects(session):
            index.setdefault(id(shown), []).append(task)
        session.memo["tasks-by-message"] = index
    return session.memo["tasks-by-message"].get(id(message), [])


@check("tasks-id-unique")
def task_ids_unique(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No receiver announces two new tasks with one task id."""
    created: dict[tuple[str, Any], int] = {}
    for _, answer, task in _created_tasks(session):
        if answer.sender not in sides:
            continue
        judgement.examine()
        key = (answer.sender, _hashable(task.get("taskId")))
        if key in created:
            judgement.fail(answer.seq, f"task id {task.get('taskId')!r} was already given (seq {created[key]})")
        created.setdefault(key, answer.seq)


@check("tasks-id-receiver-generated")
def task_ids_minted_by_receiver(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A new task's id is not one the requestor proposed in its request."""
    for request, answer, task in _created_tasks(session):
        if answer.sender not in sides:
            continue
        judgement.examine()
        related = request.meta.get(RELATED_TASK)
        proposed = {request.params["task"].get("taskId"), related.get("taskId") if isinstance(related, dict) else None}
        if task.get("taskId") in proposed - {None}:
            judgement.fail(answer.seq, f"the new task took the id {task.get('taskId')!r} its requestor proposed")


def _carries_related_task(message: Message) -> bool:
    if message.kind == RESULT:
        meta = message.result.get("_meta") if isinstance(message.result, dict) else None
        return isinstance(meta, dict) and RELATED_TASK in meta
    return RELATED_TASK in message.meta


@check("tasks-receiver-omit-related-task")
def receiver_results_without_related_task(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Results to tasks/get, tasks/cancel and tasks/list carry no related-task _meta."""
    for method in ("tasks/get", "tasks/cancel", "tasks/list"):
        for side in sides:
            for answer in session.results_by_method.get((side, method), []):
                judgement.examine()
                if _carries_related_task(answer):
                    judgement.fail(answer.seq, f"a {method} result carries {RELATED_TASK} in _meta")


@check("tasks-requestor-omit-related-task")
def requestor_operations_without_related_task(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """tasks/get, tasks/cancel, tasks/result and tasks/list requests carry no related-task _meta."""
    for request in session.messages:
        if request.kind == REQUEST and request.sender in sides and request.method in (*TASK_OPERATIONS, "tasks/list"):
            judgement.examine()
            if _carries_related_task(request):
                judgement.fail(request.seq, f"a {request.method} request carries {RELATED_TASK} in _meta")


@check("tasks-status-notification-no-related-task")
def status_notifications_without_related_task(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """notifications/tasks/status carries no related-task _meta."""
    for side in sides:
        for notice in session.notifications_by_method.get((side, "notifications/tasks/status"), []):
            judgement.examine()
            if _carries_related_task(notice):
                judgement.fail(notice.seq, f"a status notification carries {RELATED_TASK} in _meta")


@check("tasks-result-related-task")
def task_results_name_their_task(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tasks/result result carries related-task _meta naming the task asked for."""
    for side in sides:
        for answer in session.results_by_method.get((side, "tasks/result"), []):
            request = session.request_answered(answer)
            judgement.examine()
            meta = answer.result.get("_meta") if isinstance(answer.result, dict) else None
            related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
            wanted = request.params.get("taskId") if request else None
            if not (isinstance(related, dict) and related.get("taskId") == wanted):
                judgement.fail(answer.seq, f"a tasks/result result for {wanted!r} lacks {RELATED_TASK} naming it")


@check("tasks-ttl-reported")
def task_get_states_ttl(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tasks/get result states ttl: a number of milliseconds, or null."""
    for side in sides:
        for answer in session.results_by_method.get((side, "tasks/get"), []):
            judgement.examine()
            result = answer.result if isinstance(answer.result, dict) else {}
            ttl = result.get("ttl", "absent")
            if not (ttl is None or (isinstance(ttl, (int, float)) and not isinstance(ttl, bool))):
                judgement.fail(answer.seq, f"a tasks/get result states ttl {ttl!r}, not milliseconds or null")


@check("tasks-valid-transitions")
def status_changes_allowed(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each change of a task's status the receiver shows is one the task lifecycle allows."""
    last: dict[tuple[str, Any], Any] = {}
    for message, task in task_objects(session):
        if message.sender not in sides:
            continue
        key = (message.sender, _hashable(task.get("taskId")))
        status = task.get("status")
        judgement.examine()
        before = last.get(key)
        if before is not None and status != before and status not in ALLOWED_CHANGES.get(before, ()):
            judgement.fail(message.seq, f"task {key[1]!r} went from {before} to {status!r}")
        last[key] = status


@check("tasks-cancelled-sticky")
def cancelled_stays_cancelled(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A task shown cancelled (in any task object, the tasks/cancel result included) is never shown otherwise."""
    cancelled: dict[tuple[str, Any], int] = {}
    for message, task in task_objects(session):
        if message.sender not in sides:
            continue
        key = (message.sender, _hashable(task.get("taskId")))
        if key in cancelled:
            judgement.examine()
            if task.get("status") != "cancelled":
                judgement.fail(
                    message.seq, f"task {key[1]!r}, cancelled at seq {cancelled[key]}, is now {task.get('status')!r}"
                )
        elif task.get("status") == "cancelled":
            cancelled[key] = message.seq


@check("tasks-cancel-status-before-response")
def cancel_answers_show_cancelled(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A successful tasks/cancel result shows the task already cancelled."""
    for side in sides:
        for answer in session.results_by_method.get((side, "tasks/cancel"), []):
            judgement.examine()
            status = answer.result.get("status") if isinstance(answer.result, dict) else None
            if status != "cancelled":
                judgement.fail(answer.seq, f"tasks/cancel answered with the task still {status!r}")


@check("tasks-failed-status-message")
def failed_tasks_explained(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tasks/get result for a failed task carries a statusMessage."""
    for side in sides:
        for answer in session.results_by_method.get((side, "tasks/get"), []):
            result = answer.result if isinstance(answer.result, dict) else {}
            if result.get("status") != "failed":
                continue
            judgement.examine()
            if not isinstance(result.get("statusMessage"), str) or not result["statusMessage"].strip():
                judgement.fail(answer.seq, f"failed task {result.get('taskId')!r} has no statusMessage")


@check("tasks-task-id-param-authoritative")
def operations_answer_the_named_task(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tasks/get or tasks/cancel result is about the task its request's taskId param named."""
    for side in sides:
        for method in ("tasks/get", "tasks/cancel"):
            for answer in session.results_by_method.get((side, method), []):
                request = session.request_answered(answer)
                if request is None or not isinstance(answer.result, dict):
                    continue
                judgement.examine()
                if answer.result.get("taskId") != request.params.get("taskId"):
                    judgement.fail(
                        answer.seq,
                        f"{method} for {request.params.get('taskId')!r} answered about {answer.result.get('taskId')!r}",
                    )


@check("tasks-receiver-ignore-related-task")
def related_task_of_operations_ignored(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tasks/get or tasks/cancel whose _meta names another task (related-task) is answered about the task of
    its taskId param."""
    for side in sides:
        for method in ("tasks/get", "tasks/cancel"):
            for answer in session.results_by_method.get((side, method), []):
                request = session.request_answered(answer)
                related = request.meta.get(RELATED_TASK) if request else None
                if not isinstance(related, dict) or related.get("taskId") == request.params.get("taskId"):
                    continue
                judgement.examine()
                if isinstance(answer.result, dict) and answer.result.get("taskId") == related.get("taskId"):
                    judgement.fail(answer.seq, f"{method} answered about the related-task {related.get('taskId')!r}")


def _tool_calls_of_support(session: Session, supports: frozenset[Any], augmented: bool) -> Iterator[Message]:
    tools = _tools_by_name(session)
    for request in session.sent_by(CLIENT, REQUEST):
        name = request.params.get("name")
        if (
            request.method == "tools/call"
            and name in tools
            and _augmented(request) == augmented
            and _task_support(tools[name]) in supports
        ):
            yield request


@check("tasks-tools-required-plain-call-error")
def plain_calls_of_required_tools_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tools/call without the task param, of a tool whose taskSupport is required, is answered with -32601."""
    plain = _tool_calls_of_support(session, frozenset({"required"}), augmented=False)
    judge_refusals(
        session, judgement, plain, METHOD_NOT_FOUND, lambda r: f"a plain call of task-required {r.params['name']!r}"
    )


@check("tasks-tools-forbidden-augmented-error")
def augmented_calls_of_forbidden_tools_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A server declaring tasks.requests.tools.call answers a task-augmented call of a tool whose taskSupport
    is forbidden or absent with -32601."""
    if not declared(session.server_capabilities, ("tasks", "requests", "tools", "call")):
        return
    augmented = _tool_calls_of_support(session, frozenset({"forbidden", None}), augmented=True)
    judge_refusals(
        session, judgement, augmented, METHOD_NOT_FOUND, lambda r: f"a task-augmented call of {r.params['name']!r}"
    )


@check("tasks-result-blocks-until-terminal")
def task_results_wait_for_the_end(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tasks/result answered before its task ended shows up as a later task object of that task still
    working or input_required (shown after the answer, in reply to a request sent after it)."""
    answered: list[tuple[Message, Any]] = []
    for side in sides:
        for answer in session.results_by_method.get((side, "tasks/result"), []):
            request = session.request_answered(answer)
            if request is not None:
                answered.append((answer, request.params.get("taskId")))
    for answer, task_id in answered:
        judgement.examine()
        for message, task in task_objects(session):
            if message.sender != answer.sender or task.get("taskId") != task_id or message.seq <= answer.seq:
                continue
            asked = session.request_answered(message) if message.kind == RESULT else None
            if (asked is None or asked.seq > answer.seq) and task.get("status") in ALLOWED_CHANGES:
                judgement.fail(answer.seq, f"tasks/result for {task_id!r} answered while it was still {task['status']}")
                break


@check("tasks-error-invalid-cursor")
def unknown_task_list_cursors_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tasks/list with a cursor its receiver never issued, if refused, is refused with error -32602 (a
    success answer: the cursor may be from an earlier session, not a subject)."""
    issued: dict[str, set[Any]] = {CLIENT: set(), SERVER: set()}
    for side in (CLIENT, SERVER):
        for answer in session.results_by_method.get((side, "tasks/list"), []):
            issued[side].add(_hashable(answer.result.get("nextCursor")) if isinstance(answer.result, dict) else None)
    for request in session.messages:
        if request.kind != REQUEST or request.method != "tasks/list" or "cursor" not in request.params:
            continue
        receiver, answer = other(request.sender), first_answer(session, request)
        if receiver not in sides or answer is None or answer.kind != ERROR:
            continue
        if _hashable(request.params["cursor"]) in issued[receiver]:
            continue
        judgement.examine()
        if error_code(answer) != INVALID_PARAMS:
            judgement.fail(answer.seq, f"tasks/list cursor never issued refused with {error_code(answer)}, not -32602")
