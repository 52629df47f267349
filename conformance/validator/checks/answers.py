"""How a request was answered: the first answer and its error code (shared by the feature checks)."""

from __future__ import annotations

from typing import Any

from conformance.validator.session import ERROR, Message, Session


def first_answer(session: Session, request: Message) -> Message | None:
    answers = session.answers_to(request)
    return answers[0] if answers else None


def error_code(answer: Message) -> Any:
    """The error code of an error answer; None for a result."""
    error = answer.frame.get("error") if answer.kind == ERROR else None
    return error.get("code") if isinstance(error, dict) else None


def refused_with(session: Session, request: Message, code: int) -> tuple[Message, bool] | None:
    """(the first answer to ``request``, whether it is error ``code``), or None when it went unanswered."""
    answer = first_answer(session, request)
    return None if answer is None else (answer, error_code(answer) == code)
