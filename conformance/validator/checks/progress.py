"""Progress: token types and uniqueness, values that increase, notifications only for active requests."""

from __future__ import annotations

from typing import Any

from conformance.validator.checks.tasks import TERMINAL, task_objects
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import NOTIFICATION, REQUEST, RESULT, Message, Session, id_key, other

PROGRESS = "notifications/progress"


def _token_of(request: Message) -> Any:
    return request.meta.get("progressToken")


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@check("progress-token-type", "progress-client-token-type")
def token_type(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A progressToken in a request's _meta is a string or an integer."""
    for message in session.messages:
        if message.kind != REQUEST or message.sender not in sides or "progressToken" not in message.meta:
            continue
        judgement.examine()
        token = _token_of(message)
        if not (isinstance(token, str) or _is_integer(token)):
            judgement.fail(message.seq, f"the {message.sender}'s progressToken {token!r} is neither string nor integer")


def _tokened_requests(session: Session, sides: frozenset[str]) -> list[Message]:
    return [m for m in session.messages if m.kind == REQUEST and m.sender in sides and "progressToken" in m.meta]


def _finished_at(session: Session, request: Message) -> int | None:
    """The seq of the response that ended ``request`` (a task's CreateTaskResult does not end its work)."""
    for response in session.answers_to(request):
        result = response.result
        if response.kind == RESULT and isinstance(result, dict) and isinstance(result.get("task"), dict):
            continue
        return response.seq
    return None


@check("progress-token-unique", "progress-client-token-unique")
def token_unique(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No progressToken serves two requests of one sender that are active at the same time."""
    active: dict[tuple[str, str], tuple[int, int | None]] = {}  # (sender, token) -> (seq, finished at)
    for request in _tokened_requests(session, sides):
        judgement.examine()
        key = (request.sender, id_key(_token_of(request)))
        earlier = active.get(key)
        if earlier is not None and (earlier[1] is None or earlier[1] > request.seq):
            judgement.fail(request.seq, f"progressToken {_token_of(request)!r} is already in use (seq {earlier[0]})")
        active[key] = (request.seq, _finished_at(session, request))


def _progress_notifications(session: Session, sides: frozenset[str]) -> list[Message]:
    return [m for m in session.messages if m.kind == NOTIFICATION and m.method == PROGRESS and m.sender in sides]


@check("progress-value-increases", "progress-server-value-increases")
def value_increases(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Across one sender's notifications for one token, progress strictly increases: for one request that
    carried it (a token may serve another request once the first is done, and its progress starts anew)."""
    index = _token_index(session)
    last: dict[tuple[Any, ...], Any] = {}
    for notice in _progress_notifications(session, sides):
        value = notice.params.get("progress")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue  # the schema row judges its type
        judgement.examine()
        request = _request_for(index, notice)
        key = (notice.sender, id_key(notice.params.get("progressToken")), request.seq if request else None)
        if key in last and value <= last[key]:
            judgement.fail(notice.seq, f"progress {value} does not exceed the previous {last[key]} for its token")
        last[key] = value


def _token_index(session: Session) -> dict[tuple[str, str], list[Message]]:
    """(requester, token key) -> its requests that carried that progressToken, in order."""
    index: dict[tuple[str, str], list[Message]] = {}
    for request in session.messages:
        if request.kind == REQUEST and "progressToken" in request.meta:
            index.setdefault((request.sender, id_key(_token_of(request))), []).append(request)
    return index


def _request_for(index: dict[tuple[str, str], list[Message]], notice: Message) -> Message | None:
    """The latest request of the notifier's peer, before the notification, that carried its token."""
    candidates = index.get((other(notice.sender), id_key(notice.params.get("progressToken"))), [])
    earlier = [request for request in candidates if request.seq < notice.seq]
    return earlier[-1] if earlier else None


@check("progress-reference-active-token", "progress-server-reference-active-token")
def token_known(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A progress notification carries a token that a request of its peer gave it."""
    index = _token_index(session)
    for notice in _progress_notifications(session, sides):
        judgement.examine()
        if _request_for(index, notice) is None:
            token = notice.params.get("progressToken")
            judgement.fail(
                notice.seq, f"progress for token {token!r}, which no request of the {other(notice.sender)} gave"
            )


@check("progress-stop-after-completion", "progress-server-stop-after-completion")
def no_progress_after_completion(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No progress notification for a request after the response that completed it."""
    index = _token_index(session)
    for notice in _progress_notifications(session, sides):
        request = _request_for(index, notice)
        if request is None:
            continue
        judgement.examine()
        finished = _finished_at(session, request)
        if finished is not None and finished < notice.seq:
            judgement.fail(notice.seq, f"progress after the request {request.id!r} was answered (seq {finished})")


RELATED_TASK = "io.modelcontextprotocol/related-task"


def _task_tokens(session: Session) -> dict[tuple[str, Any], tuple[Message, Any]]:
    """(receiver, task id) -> (the task-augmented request that created it, its progressToken)."""
    found: dict[tuple[str, Any], tuple[Message, Any]] = {}
    for request in session.messages:
        if request.kind != REQUEST or not isinstance(request.params.get("task"), dict):
            continue
        for answer in session.answers_to(request)[:1]:
            task = answer.result.get("task") if answer.kind == RESULT and isinstance(answer.result, dict) else None
            if isinstance(task, dict) and isinstance(task.get("taskId"), str):
                found[(answer.sender, task["taskId"])] = (request, _token_of(request))
    return found


@check("progress-task-token-persists")
def task_progress_keeps_its_token(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A progress notification tied to a task (related-task _meta) uses the token of the request that
    created the task."""
    tokens = _task_tokens(session)
    for notice in _progress_notifications(session, sides):
        related = notice.meta.get(RELATED_TASK)
        origin = tokens.get((notice.sender, related.get("taskId"))) if isinstance(related, dict) else None
        if origin is None or "progressToken" not in origin[0].meta:
            continue
        judgement.examine()
        if id_key(notice.params.get("progressToken")) != id_key(origin[1]):
            judgement.fail(
                notice.seq, f"task progress under token {notice.params.get('progressToken')!r}, not {origin[1]!r}"
            )


@check("progress-task-stop-at-terminal")
def no_task_progress_after_its_end(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No progress notification for a task's token once the task was shown completed, failed or cancelled."""
    by_token = {
        (receiver, id_key(token)): task_id
        for (receiver, task_id), (request, token) in _task_tokens(session).items()
        if "progressToken" in request.meta
    }
    ended: dict[tuple[str, Any], int] = {}
    for message, task in task_objects(session):
        if task.get("status") in TERMINAL:
            ended.setdefault((message.sender, task.get("taskId")), message.seq)
    for notice in _progress_notifications(session, sides):
        task_id = by_token.get((notice.sender, id_key(notice.params.get("progressToken"))))
        if task_id is None:
            continue
        judgement.examine()
        end = ended.get((notice.sender, task_id))
        if end is not None and end < notice.seq:
            judgement.fail(notice.seq, f"progress for task {task_id!r} after it ended (seq {end})")
