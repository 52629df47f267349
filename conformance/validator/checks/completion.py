"""Completion: a server without the completions capability refuses completion/complete with -32601, and a
completion/complete lacking its ref or argument is refused with -32602."""

from __future__ import annotations

from conformance.validator.checks.answers import error_code, first_answer
from conformance.validator.checks.capabilities import declared
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, REQUEST, Message, Session

METHOD_NOT_FOUND, INVALID_PARAMS = -32601, -32602


def _completions(session: Session) -> list[tuple[Message, Message]]:
    """(completion/complete request, its first answer) for each answered one."""
    found = []
    for request in session.sent_by(CLIENT, REQUEST):
        answer = first_answer(session, request) if request.method == "completion/complete" else None
        if answer is not None:
            found.append((request, answer))
    return found


@check("completion-unsupported-method-not-found")
def completion_refused_without_capability(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A server that declared no completions capability answers completion/complete with -32601."""
    if session.server_capabilities is None or declared(session.server_capabilities, ("completions",)):
        return
    for _, answer in _completions(session):
        judgement.examine()
        if error_code(answer) != METHOD_NOT_FOUND:
            judgement.fail(
                answer.seq, f"completion/complete, undeclared, answered with {error_code(answer) or 'a result'}"
            )


def _lacks_arguments(request: Message) -> bool:
    argument = request.params.get("argument")
    return not (
        isinstance(request.params.get("ref"), dict)
        and isinstance(argument, dict)
        and isinstance(argument.get("name"), str)
        and isinstance(argument.get("value"), str)
    )


@check("completion-missing-arguments-error")
def incomplete_completion_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A completion/complete lacking its ref or its argument's name or value is answered with -32602."""
    for request, answer in _completions(session):
        if not _lacks_arguments(request):
            continue
        judgement.examine()
        if error_code(answer) != INVALID_PARAMS:
            judgement.fail(
                answer.seq, f"an incomplete completion/complete answered with {error_code(answer) or 'a result'}"
            )
