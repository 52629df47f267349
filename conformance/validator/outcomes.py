"""From checks to outcomes: one outcome per catalogue requirement of the judged revision, totals and a
verdict per trace, and the report document every format renders (``report.schema.json``).

pass: subjects examined, nothing wrong. fail: a MUST / MUST NOT broken. warn: a SHOULD / SHOULD NOT not
followed (fails the verdict only under ``--strict``). not-applicable: its capability or exchange was never
negotiated. not-observed: no subject in the trace. excluded: a trace cannot show it (with the reason).
Never a pass without a subject.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

from conformance.validator import registry
from conformance.validator.reader import Event
from conformance.validator.revision import Inference, infer
from conformance.validator.session import Session
from conformance.validator.sessions import split

PASS, FAIL, WARN = "pass", "fail", "warn"
NOT_APPLICABLE, NOT_OBSERVED, EXCLUDED = "not-applicable", "not-observed", "excluded"
OUTCOMES = (FAIL, WARN, PASS, NOT_APPLICABLE, NOT_OBSERVED, EXCLUDED)
BROKEN_BY_LEVEL = {"MUST": FAIL, "MUST NOT": FAIL, "SHOULD": WARN, "SHOULD NOT": WARN}
VERDICT_PASS, VERDICT_FAIL, VERDICT_NOTHING = "pass", "fail", "nothing-judged"
REPORT_FORMAT = "mcp-matrix-validation/1"

EXIT_OK, EXIT_FAILURES, EXIT_BAD_INVOCATION, EXIT_MALFORMED = 0, 1, 2, 3
SIDES = ("client", "server")


@dataclass(frozen=True)
class Trace:
    source: str
    events: list[Event]


@cache
def _sentences() -> dict[tuple[str, str], Any]:
    """(revision, fingerprint) -> the swept unit of the pinned spec; an extension's revision qualified by its
    name (``ext-apps:2026-01-26``), as its rows' locators name it."""
    from conformance.catalogue.accounting import load_sweep

    return {(unit.qualified_revision, unit.fingerprint): unit for unit in load_sweep()}


def source_for(row: dict, revision: str) -> str:
    """The row's locator for ``revision``: the one of that revision, else the latest earlier one."""
    sources = sorted(row["sources"], key=lambda s: s.split("/", 1)[0])
    earlier = [s for s in sources if s.split("/", 1)[0] <= revision]
    return (earlier or sources)[-1]


def clause(row: dict, revision: str) -> str:
    """The exact clause the row's locator resolves to in the pinned spec (a schema definition by name)."""
    from conformance.catalogue.sweep import DEFINITION

    locator = source_for(row, revision)
    fingerprint = locator.rsplit("@", 1)[1]
    unit = _sentences().get((locator.split("/", 1)[0], fingerprint))
    if unit is None:
        return f"(the locator {locator} does not resolve in the pinned spec: review the row)"
    if unit.kind == DEFINITION:
        return f"the definition {unit.anchor} of schema.json at {unit.revision}"
    return unit.text


def _requirement_outcome(row: dict, session: Session, judgements: dict[str, Any], side: str | None) -> dict:
    entry: dict[str, Any] = {
        "id": row["id"],
        "level": row["level"],
        "side": row["side"],
        "outcome": EXCLUDED,
        "check": None,
        "subjects": 0,
        "reason": None,
        "findings": [],
        "source": source_for(row, session.revision),
        "clause": None,
    }
    check = registry.judged_by().get(row["id"])
    if check is None:
        entry["reason"] = registry.exclusions()[row["id"]].reason
        return entry
    entry["check"] = check.name
    if side is not None and side not in registry.sides_of(row):
        entry["outcome"], entry["reason"] = NOT_APPLICABLE, f"binds the {row['side']}: --side {side} judges the {side}"
        return entry
    not_applicable = check.not_applicable(session) if check.not_applicable else None
    if not_applicable:
        entry["outcome"], entry["reason"] = NOT_APPLICABLE, not_applicable
        return entry
    judgement = judgements[check.name]
    entry["subjects"] = judgement.subjects
    entry["findings"] = [{"seq": f.seq, "reason": f.reason} for f in judgement.findings]
    if judgement.findings:
        entry["outcome"] = BROKEN_BY_LEVEL[row["level"]]
        entry["clause"] = clause(row, session.revision)
    elif judgement.subjects:
        entry["outcome"] = PASS
    else:
        entry["outcome"], entry["reason"] = NOT_OBSERVED, "no subject of this check in the trace"
    return entry


def judge_session(
    source: str,
    events: list[Event],
    fallback: str | None,
    asked_for: str | None,
    strict: bool,
    side: str | None,
    following: list[Event] | None = None,
) -> dict[str, Any]:
    """The report of one session; ``fallback`` is the revision of the whole trace, for a session (a refused
    probe) that names none of its own; ``following``: the trace's events after the session."""
    inference = infer(events, registry.revisions(), asked_for)
    if inference.revision is None and fallback is not None:
        inference = Inference(fallback, "the trace's other sessions (this one names no revision)", inference.notes)
    report: dict[str, Any] = {
        "source": source,
        "events": len(events),
        "revision": inference.revision,
        "revision_evidence": inference.evidence,
        "notes": list(inference.notes),
        "verdict": VERDICT_NOTHING,
        "totals": dict.fromkeys(OUTCOMES, 0),
        "requirements": [],
    }
    if inference.revision is None:
        return report
    report["notes"] += _deliberate_note(events, side)
    session = Session(events, inference.revision, following or [])
    catalogue = registry.rows()  # built afresh by each call: once a session, not once a requirement
    rows = [row for row in catalogue.values() if inference.revision in row["revisions"]]
    judgements = {}
    for check in registry.checks():
        applicable = [catalogue[r] for r in check.requirements if r in catalogue]
        applicable = [row for row in applicable if inference.revision in row["revisions"]]
        sides = frozenset().union(*(registry.sides_of(row) for row in applicable))
        if side is not None:
            sides &= {side}
        if sides:
            judgements[check.name] = judgement = check.run(session, sides)
            report["notes"] += [f"{check.name}: seq {f.seq}: not judged: {f.reason}" for f in judgement.unjudged]
    entries = [_requirement_outcome(row, session, judgements, side) for row in sorted(rows, key=lambda r: r["id"])]
    totals = Counter(entry["outcome"] for entry in entries)
    report["requirements"] = entries
    report["totals"] = {outcome: totals.get(outcome, 0) for outcome in OUTCOMES}
    if totals[FAIL] or (strict and totals[WARN]):
        report["verdict"] = VERDICT_FAIL
    elif totals[PASS] or totals[WARN]:
        report["verdict"] = VERDICT_PASS
    return report


def _deliberate_note(events: list[Event], side: str | None) -> list[str]:
    """A note of the acts the recorder marks deliberate (a harness breaking a rule on purpose, to see what the
    other side does: docs/trace-format.md) when the report judges the side that made them. The marks excuse
    nothing: a trace cannot vouch for itself, so those acts are judged like any, and the note says how to
    judge the other side alone."""
    marked: dict[str, list[int]] = {}
    for event in events:
        if event.get("kind") == "lifecycle" and event.get("event") == "deliberate":
            actor = "client" if event["direction"] == "client-to-server" else "server"
            marked.setdefault(actor, []).append(event["seq"])
    return [
        f"the recorder marks acts of the {actor} as deliberate (seq {', '.join(map(str, seqs))}): "
        f"--side {'server' if actor == 'client' else 'client'} judges the other side alone"
        for actor, seqs in sorted(marked.items())
        if side in (None, actor)
    ]


def judge_trace(trace: Trace, asked_for: str | None, strict: bool, side: str | None = None) -> list[dict[str, Any]]:
    """The report of each session the trace holds (``sessions.split``): one, named after the trace, for a
    trace of one session; ``TRACE#N`` for the Nth of several, each with a note of its extent."""
    sessions = split(trace.events)
    whole = infer(trace.events, registry.revisions(), asked_for).revision
    if len(sessions) == 1:
        return [judge_session(trace.source, trace.events, whole, asked_for, strict, side)]
    reports = []
    ends = [len(events) for events in sessions]
    for number, events in enumerate(sessions, 1):
        following = trace.events[sum(ends[:number]) :]
        report = judge_session(f"{trace.source}#{number}", events, whole, asked_for, strict, side, following)
        report["notes"].insert(
            0, f"session {number} of {len(sessions)} in the trace: seq {events[0]['seq']} to {events[-1]['seq']}"
        )
        reports.append(report)
    return reports


def exit_code(traces: list[list[dict[str, Any]]]) -> int:
    """From each trace's session reports: a trace none of whose sessions judged anything is a bad invocation
    (a refused probe before the session that follows it judges nothing, and is no error)."""
    if not traces or any(all(s["verdict"] == VERDICT_NOTHING for s in sessions) for sessions in traces):
        return EXIT_BAD_INVOCATION
    if any(s["verdict"] == VERDICT_FAIL for sessions in traces for s in sessions):
        return EXIT_FAILURES
    return EXIT_OK


def judge(
    traces: list[Trace], asked_for: str | None = None, strict: bool = False, side: str | None = None
) -> dict[str, Any]:
    """The report document of every trace: each session's report, the totals over all and the exit code.
    ``side`` (client or server) judges only the requirements binding that side; None judges both."""
    by_trace = [judge_trace(trace, asked_for, strict, side) for trace in traces]
    reports = [report for sessions in by_trace for report in sessions]
    totals = Counter()
    for report in reports:
        totals.update(report["totals"])
    code = exit_code(by_trace)
    verdict = {EXIT_OK: VERDICT_PASS, EXIT_FAILURES: VERDICT_FAIL}.get(code, VERDICT_NOTHING)
    return {
        "format": REPORT_FORMAT,
        "strict": strict,
        "revision_asked": asked_for,
        "traces": reports,
        "totals": {outcome: totals.get(outcome, 0) for outcome in OUTCOMES},
        "verdict": verdict,
        "exit_code": code,
    }
