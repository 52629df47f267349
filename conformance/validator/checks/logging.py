"""Logging: logging/setLevel with a level that is not one of the eight is refused with -32602; at 2026-07-28
no notifications/message unless some request asked for it with io.modelcontextprotocol/logLevel."""

from __future__ import annotations

from conformance.validator.checks.answers import judge_refusals
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, REQUEST, SERVER, Session

LEVELS = frozenset({"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"})
INVALID_PARAMS = -32602
LOG_LEVEL = "io.modelcontextprotocol/logLevel"


@check("logging-set-level-invalid-level-error")
def unknown_levels_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """logging/setLevel naming no known level is answered with -32602."""
    unknown = [
        request
        for request in session.sent_by(CLIENT, REQUEST)
        if request.method == "logging/setLevel" and request.params.get("level") not in LEVELS
    ]
    judge_refusals(
        session, judgement, unknown, INVALID_PARAMS, lambda request: f"level {request.params.get('level')!r}"
    )


@check("logging-no-messages-without-level")
def log_messages_only_when_asked(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A notifications/message comes only after some client request carried logLevel in _meta
    (a request-scoped notification belongs to a request, and none before it asked for log messages)."""
    asked = False
    for message in session.messages:
        if message.sender == CLIENT and message.kind == REQUEST and LOG_LEVEL in message.meta:
            asked = True
        elif message.sender == SERVER and message.method == "notifications/message":
            judgement.examine()
            if not asked:
                judgement.fail(message.seq, "a log message, though no request asked for one (no logLevel in _meta)")
