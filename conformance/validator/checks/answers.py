"""How a request was answered: the first answer and its error code (shared by the feature checks)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from conformance.validator.judgement import Judgement
from conformance.validator.session import ERROR, Message, Session


def first_answer(session: Session, request: Message) -> Message | None:
    answers = session.answers_to(request)
    return answers[0] if answers else None


def error_code(answer: Message) -> Any:
    """The error code of an error answer; None for a result."""
    error = answer.frame.get("error") if answer.kind == ERROR else None
    return error.get("code") if isinstance(error, dict) else None


def answered_by(answer: Message) -> str:
    """What an answer was, for a reason: its error code, or 'a result'."""
    return str(error_code(answer) or "a result")


def judge_refusals(
    session: Session, judgement: Judgement, requests: Iterable[Message], code: int, reason: Callable[[Message], str]
) -> None:
    """Each answered request of ``requests`` is a subject; one whose first answer is not error ``code`` fails at
    that answer, with ``reason(request)`` (an unanswered request is no subject: the trace may end first)."""
    for request in requests:
        answer = first_answer(session, request)
        if answer is None:
            continue
        judgement.examine()
        if error_code(answer) != code:
            judgement.fail(answer.seq, f"{reason(request)}, answered with {answered_by(answer)}")
