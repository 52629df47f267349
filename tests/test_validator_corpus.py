"""The validator's corpus: conforming sessions of every revision pass; every check fails on the violation
trace named after its requirement, and examines a subject on some trace of the corpus."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from conformance.validator import registry
from conformance.validator.outcomes import PASS, Trace, judge
from conformance.validator.reader import read_trace
from tests.validator import corpus
from tests.validator.conforming_sessions import side_under_test

CONFORMING = sorted(corpus.CONFORMING.glob("*.jsonl"))
VIOLATIONS = sorted(corpus.VIOLATIONS.glob("*.jsonl"))
BROKEN = {"MUST": "fail", "MUST NOT": "fail", "SHOULD": "warn", "SHOULD NOT": "warn"}
# checks no conforming session can give a passing subject, and why
NEVER_PASSED_ON_A_CONFORMING_SESSION = {
    "include-context-only-when-declared": "its subject, includeContext thisServer or allServers (to a client that "
    "declared sampling.context), is what sampling-include-context-avoid (SHOULD, server) advises against: a "
    "session holding one warns under --strict",
}


@cache
def reports_of(path: str) -> list[dict[str, Any]]:
    """Each session's report of the trace (most hold one: a recorder's trace may hold a refused attempt and
    the session that follows it)."""
    return judge([Trace(path, read_trace(path))], strict=True)["traces"]


def report_of(path: str) -> dict[str, Any]:
    return reports_of(path)[0]


@cache
def conforming_reports(path: str) -> list[dict[str, Any]]:
    """Each session's report of a conforming trace, judged for its side under test (both sides, unless one side
    acts deliberately in it: tests/validator/conforming_sessions.py)."""
    events = read_trace(path)
    return judge([Trace(path, events)], strict=True, side=side_under_test(events))["traces"]


@pytest.mark.parametrize("path", CONFORMING, ids=[p.stem for p in CONFORMING])
def test_a_conforming_session_passes_under_strict(path: Any) -> None:
    for report in conforming_reports(str(path)):
        broken = [(r["id"], r["findings"][:1]) for r in report["requirements"] if r["outcome"] in ("fail", "warn")]
        assert broken == [] and report["verdict"] == PASS, report["source"]


def test_the_conforming_sessions_span_every_revision_and_both_transports() -> None:
    seen = {(report_of(str(p))["revision"], "http" if "streamable-http" in p.name else "stdio") for p in CONFORMING}
    assert {revision for revision, _ in seen} == set(registry.revisions())
    assert {transport for _, transport in seen} == {"stdio", "http"}


@pytest.mark.parametrize("path", VIOLATIONS, ids=[p.stem for p in VIOLATIONS])
def test_a_violation_trace_breaks_its_requirement(path: Any) -> None:
    requirement = path.stem
    row = registry.rows()[requirement]
    outcomes = [r for report in reports_of(str(path)) for r in report["requirements"] if r["id"] == requirement]
    broken = [outcome for outcome in outcomes if outcome["outcome"] == BROKEN[row["level"]]]
    assert broken, outcomes
    assert broken[0]["findings"] and broken[0]["clause"]


def test_every_check_has_a_violation_trace() -> None:
    named = {path.stem for path in VIOLATIONS}
    missing = [check.name for check in registry.checks() if not named & set(check.requirements)]
    assert missing == []


def test_every_check_examines_a_subject_on_some_trace() -> None:
    examined = {
        r["check"]
        for path in CONFORMING + VIOLATIONS
        for report in reports_of(str(path))
        for r in report["requirements"]
        if r["subjects"]
    }
    assert [check.name for check in registry.checks() if check.name not in examined] == []


def test_every_check_passes_a_subject_on_some_conforming_session() -> None:
    """A check that flagged every subject would fail the violation traces all the same: a passing subject on a
    conforming session shows it can say "complied"."""
    passed = {
        r["check"]
        for path in CONFORMING
        for report in conforming_reports(str(path))
        for r in report["requirements"]
        if r["subjects"] and r["outcome"] == PASS
    }
    never = [check.name for check in registry.checks() if check.name not in passed]
    assert sorted(set(never) - set(NEVER_PASSED_ON_A_CONFORMING_SESSION)) == []
    assert sorted(set(NEVER_PASSED_ON_A_CONFORMING_SESSION) - set(never)) == [], "stale exception: it passes now"


def test_the_violation_files_are_what_the_generator_writes() -> None:
    """Generated, never edited by hand: `python -m tests.validator.corpus` rewrites them."""
    expected = {name: corpus.render(events) for name, events in corpus.violations().items()}
    actual = {path.name: path.read_text(encoding="utf-8") for path in VIOLATIONS}
    assert actual == expected, "stale corpus: run `python -m tests.validator.corpus`"
    for name, build in corpus.generated_conforming().items():
        assert (corpus.CONFORMING / name).read_text(encoding="utf-8") == corpus.render(build())
