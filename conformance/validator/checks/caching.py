"""Caching hints (2026-07-28): a result's ttlMs is never negative."""

from __future__ import annotations

from conformance.validator.judgement import Judgement, check
from conformance.validator.session import RESULT, SERVER, Session


@check("caching-ttl-non-negative")
def ttl_not_negative(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every ttlMs a server result carries is a number of zero or more."""
    for result in session.sent_by(SERVER, RESULT):
        if not isinstance(result.result, dict) or "ttlMs" not in result.result:
            continue
        judgement.examine()
        ttl = result.result["ttlMs"]
        if isinstance(ttl, (int, float)) and not isinstance(ttl, bool) and ttl < 0:
            judgement.fail(result.seq, f"ttlMs {ttl} is negative")
