"""What a check is and what it returns: the subjects it examined and what it found wrong with them.

A check is a pure function of the digested trace (``Session``): it reads no clock, no network, no SDK.
It counts every subject it examined (a message, an HTTP exchange, the handshake), so that "complied"
and "never came up" read differently, and names each offending event by its ``seq``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from conformance.validator.session import Session


@dataclass(frozen=True, order=True)
class Finding:
    seq: int
    reason: str


@dataclass
class Judgement:
    subjects: int = 0
    findings: list[Finding] = field(default_factory=list)
    unjudged: list[Finding] = field(default_factory=list)  # subjects it could not judge offline, and why

    def cannot_judge(self, seq: int, reason: str) -> None:
        """A subject the check could not judge from the trace alone: said in the report, never a verdict."""
        self.unjudged.append(Finding(seq, reason))

    def examine(self, count: int = 1) -> None:
        self.subjects += count

    def fail(self, seq: int, reason: str) -> None:
        self.findings.append(Finding(seq, reason))


# judge(session, judgement, sides): ``sides`` are the sides the check's rows bind at the session's revision
Judge = Callable[[Session, Judgement, frozenset[str]], None]
# why the check does not apply to this session (its capability never negotiated), or None
Applies = Callable[[Session], str | None]


@dataclass(frozen=True)
class Check:
    """A named trace check and the catalogue requirement(s) it judges (at most one of them per revision:
    a rule the catalogue restates per revision era keeps one check)."""

    name: str
    requirements: tuple[str, ...]
    judge: Judge
    description: str
    not_applicable: Applies | None = None

    def run(self, session: Session, sides: frozenset[str]) -> Judgement:
        judgement = Judgement()
        self.judge(session, judgement, sides)
        judgement.findings.sort()
        return judgement


CHECKS: list[Check] = []


def check(*requirements: str, not_applicable: Applies | None = None) -> Callable[[Judge], Judge]:
    """Register the decorated judge as a check named after the function, judging ``requirements``."""

    def register(judge: Judge) -> Judge:
        description = " ".join((judge.__doc__ or "").split())
        CHECKS.append(Check(judge.__name__.replace("_", "-"), requirements, judge, description, not_applicable))
        return judge

    return register
