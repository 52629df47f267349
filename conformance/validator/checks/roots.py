"""Roots (up to 2025-11-25, where the server asks with its own request): roots/list only to a client that
declared roots, and a client without roots refuses it with -32601."""

from __future__ import annotations

from conformance.validator.checks.answers import judge_refusals
from conformance.validator.checks.capabilities import declared
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import REQUEST, SERVER, Message, Session

METHOD_NOT_FOUND = -32601


def _roots_requests(session: Session) -> list[Message]:
    return [m for m in session.sent_by(SERVER, REQUEST) if m.method == "roots/list"]


def _handshake_only(session: Session) -> str | None:
    return "roots are asked for in inputRequests at 2026-07-28" if session.modern else None


@check("roots-server-check-capability", not_applicable=_handshake_only)
def roots_asked_only_where_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The server sends roots/list only to a client that declared roots."""
    for request in _roots_requests(session):
        judgement.examine()
        if not declared(session.client_capabilities, ("roots",)):
            judgement.fail(request.seq, "roots/list to a client that declared no roots")


@check("roots-error-not-supported", not_applicable=_handshake_only)
def undeclared_roots_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client that declared no roots answers roots/list with error -32601."""
    if declared(session.client_capabilities, ("roots",)):
        return
    judge_refusals(
        session, judgement, _roots_requests(session), METHOD_NOT_FOUND, lambda _: "roots/list, without roots declared"
    )
