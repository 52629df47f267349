"""Pagination: the client sends back only cursors the server issued, unchanged; the server answers a
cursor it never issued with -32602."""

from __future__ import annotations

from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, ERROR, REQUEST, RESULT, SERVER, Message, Session

LIST_METHODS = frozenset({"tools/list", "resources/list", "resources/templates/list", "prompts/list", "tasks/list"})
INVALID_PARAMS = -32602


def _cursor_requests(session: Session) -> list[tuple[Message, bool]]:
    """Each client list request carrying a cursor, and whether the server issued that cursor for its
    method before the request (as some earlier result's nextCursor)."""
    issued: dict[str, set[str]] = {}
    found = []
    for message in session.messages:
        if message.sender == SERVER and message.kind == RESULT and isinstance(message.result, dict):
            request = session.request_answered(message)
            cursor = message.result.get("nextCursor")
            if request is not None and request.method in LIST_METHODS and isinstance(cursor, str):
                issued.setdefault(request.method, set()).add(cursor)
        elif message.sender == CLIENT and message.kind == REQUEST and message.method in LIST_METHODS:
            cursor = message.params.get("cursor", None)
            if "cursor" in message.params:
                found.append((message, cursor in issued.get(message.method, set())))
    return found


@check("pagination-cursor-not-parsed-or-modified")
def cursors_sent_back_unchanged(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every cursor the client sends in a list request is one the server issued for that method, unchanged."""
    for request, issued in _cursor_requests(session):
        judgement.examine()
        if not issued:
            cursor = request.params["cursor"]
            judgement.fail(
                request.seq, f"the client sent {request.method} cursor {cursor!r}, which the server never issued"
            )


@check("pagination-invalid-cursor-error")
def invalid_cursor_answered_invalid_params(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A list request with a cursor the server never issued is answered with error -32602."""
    for request, issued in _cursor_requests(session):
        if issued:
            continue
        answers = session.answers_to(request)
        if not answers:
            continue
        judgement.examine()
        answer = answers[0]
        error = answer.frame.get("error") if answer.kind == ERROR else None
        code = error.get("code") if isinstance(error, dict) else None
        if code != INVALID_PARAMS:
            given = f"error {code}" if answer.kind == ERROR else "a result"
            judgement.fail(answer.seq, f"a cursor the server never issued was answered with {given}, not -32602")
