"""Outcomes at the level of their row, revisions a target does not speak, and the run's report.

The end-to-end tests run pytest on a copy of the project with one extra test module whose bodies
fail on purpose, one per rule; the rows they claim are picked from the catalogue (a row of the
level, binding the server at every revision, gapped nowhere), so the tests follow the catalogue.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import jsonschema
import pytest

from conformance.catalogue.errors import InputError
from conformance.matrix.covers import registry
from conformance.run import reports
from conformance.run.outcomes import cell_outcome, failure_outcome, headline, skip_outcome
from conformance.run.plugin import unreached_tested_cells
from conformance.run.targets import Target
from tests.project_copy import pytest_in


def row_of_level(level: str, nth: int = 0) -> str:
    """The ``nth`` row of ``level`` binding the server at every revision, gapped nowhere."""
    requirements, coverage = registry()
    found = []
    for row in requirements.values():
        gapped = any(g.requirement == row["id"] and g.side == "server" for g in coverage.gaps)
        applies = row["applicability"]["server"] == "applies" and len(row["revisions"]) == 5
        if row["level"] == level and applies and not gapped:
            found.append(row["id"])
    if len(found) <= nth:
        raise LookupError(f"no ungapped server row number {nth} of level {level} at every revision")
    return found[nth]


def test_an_assertion_failure_reads_by_level() -> None:
    assert [failure_outcome(level) for level in ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")] == [
        "fail",
        "fail",
        "warn",
        "warn",
        "not-exercised",
    ]


def test_a_skip_names_its_outcome_and_a_bare_skip_is_inconclusive() -> None:
    assert skip_outcome("fixture-missing: no tool") == "fixture-missing"
    assert skip_outcome("Skipped: not-exercised: no batch") == "not-exercised"
    assert skip_outcome("revision-not-implemented: 2026-07-28") == "revision-not-implemented"
    assert skip_outcome("because") == "inconclusive"


def test_a_cell_takes_its_worst_transport() -> None:
    assert cell_outcome(["pass", "fixture-missing"]) == "pass"
    assert cell_outcome(["pass", "warn"]) == "warn"
    assert cell_outcome(["fixture-missing", "fail", "pass"]) == "fail"


def test_the_headline_counts_by_level() -> None:
    line = headline([("MUST", "pass"), ("MUST NOT", "fail"), ("SHOULD", "warn"), ("MAY", "not-exercised")], ["x"])
    assert line.startswith("MUST: 1 passed, 1 failed; SHOULD: 0 passed, 1 warned; MAY: 0 passed; not exercised 1")
    assert line.endswith("revisions not implemented: x")


RULES_MODULE = """
from conformance.harness.peer import HarnessError, precondition
from conformance.matrix.covers import for_req


@for_req({must!r}, "server")
def test_must(revision):
    assert revision != "2025-03-26", "the frame broke the MUST"


@for_req({should!r}, "server")
def test_should(revision):
    assert False, "the SHOULD was not followed"


@for_req({may!r}, "server")
def test_may(revision):
    assert False, "the option was not taken"


@for_req({harness!r}, "server")
def test_harness(revision):
    raise HarnessError("the harness's own read timed out")


@for_req({probe!r}, "server")
def test_probe(revision):
    precondition(False, "the follow-up probe was refused")
    assert False, "never reached"
"""


@pytest.fixture
def rules_project(project: Path) -> Path:
    rows = {"must": "MUST", "should": "SHOULD", "may": "MAY", "harness": "MUST NOT"}
    module = RULES_MODULE.format(probe=row_of_level("MUST", 1), **{n: row_of_level(level) for n, level in rows.items()})
    (project / "conformance" / "test_rules_probe.py").write_text(textwrap.dedent(module))
    (project / "targets" / "old-only.yaml").write_text(
        "name: old-only\nserver: {stdio: fixture}\nclient: fixture\nfixtures: all\nrevisions: 2024-11-05..2025-11-25\n"
    )
    return project


def run_rules(project: Path, *args: str) -> tuple[int, str, dict]:
    result = pytest_in(
        project, "-p", "no:xdist", "conformance/test_rules_probe.py", *args, MCP_MATRIX_REPORTS=str(project / "out")
    )
    target = next(path for path in (project / "out").iterdir() if path.is_dir())
    return result.returncode, result.stdout, json.loads((target / "report.json").read_text())


def outcomes_of(report: dict, requirement: str) -> dict[str, str]:
    return {c["revision"]: c["outcome"] for c in report["cells"] if c["requirement"] == requirement}


def test_levels_decide_what_a_failure_is(rules_project: Path) -> None:
    code, output, report = run_rules(rules_project)
    assert code == 1, output[-2000:]  # the MUST broken at 2025-03-26, and nothing else
    assert outcomes_of(report, row_of_level("MUST"))["2025-03-26"] == "fail"
    assert set(outcomes_of(report, row_of_level("SHOULD")).values()) == {"warn"}
    assert set(outcomes_of(report, row_of_level("MAY")).values()) == {"not-exercised"}, "a MAY cell cannot fail"
    harness = [c for c in report["cells"] if c["requirement"] == row_of_level("MUST NOT")]
    assert {c["outcome"] for c in harness} == {"inconclusive"}, "a harness error is not the requirement failing"
    probed = [c for c in report["cells"] if c["requirement"] == row_of_level("MUST", 1)]
    assert {c["outcome"] for c in probed} == {"inconclusive"}, "a failed precondition is not the requirement failing"
    assert "precondition not met: the follow-up probe was refused" in probed[0]["evidence"][0]
    assert "1 failed" in output and "5 warned" in output and "5 not-exercised" in output
    failed = next(c for c in report["cells"] if c["outcome"] == "fail")
    assert failed["evidence"] == ["fail: the frame broke the MUST\nassert '2025-03-26' != '2025-03-26'"]
    assert failed["clause"].startswith(reports.SPEC_SITE)


def test_strict_fails_the_run_on_a_should(rules_project: Path) -> None:
    (rules_project / "conformance" / "test_rules_probe.py").write_text(
        "from conformance.matrix.covers import for_req\n\n\n"
        f"@for_req({row_of_level('SHOULD')!r}, 'server')\ndef test_should(revision):\n    assert False, 'no'\n"
    )
    assert run_rules(rules_project)[0] == 0
    code, output, report = run_rules(rules_project, "--strict")
    assert code == 1 and "5 failed" in output
    assert {c["outcome"] for c in report["cells"]} == {"warn"}


def test_a_revision_the_target_does_not_speak_is_reported_once_and_fails_no_cell(rules_project: Path) -> None:
    _, output, report = run_rules(rules_project, "--target", "old-only")
    assert all(c["revision"] != "2026-07-28" for c in report["cells"])
    assert report["headline"].endswith("revisions not implemented: 2026-07-28 client, 2026-07-28 server")
    assert [(n["revision"], n["side"]) for n in report["revisions-not-implemented"]] == [
        ("2026-07-28", "client"),
        ("2026-07-28", "server"),
    ]
    assert "5 revision-not-implemented" in output  # one per test of the module


def test_the_report_validates_and_is_byte_identical_for_the_same_outcomes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(reports.REPORTS_VARIABLE, str(tmp_path))
    target = Target(name="t", describes="d")
    requirement = row_of_level("MUST")
    results = [
        reports.TestResult(requirement, "2025-11-25", "server", "fail", "stdio", "fail: at 127.0.0.1:4321 pid 77"),
        reports.TestResult(requirement, "2025-11-25", "server", "pass", "streamable-http"),
    ]
    directory = reports.run_directory(target)
    reports.write(directory, target, results, registry()[0], {})
    first = (directory / "report.json").read_bytes()
    reports.write(directory, target, list(reversed(results)), registry()[0], {})
    assert (directory / "report.json").read_bytes() == first
    data = json.loads(first)
    jsonschema.validate(data, json.loads(reports.SCHEMA_PATH.read_text()))
    assert data["cells"][0]["transports"] == {"stdio": "fail", "streamable-http": "pass"}
    assert data["cells"][0]["evidence"] == ["fail: at 127.0.0.1:PORT pid N"]
    assert "<script" not in (directory / "report.html").read_text()


def test_a_report_directory_the_suite_did_not_write_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(reports.REPORTS_VARIABLE, str(tmp_path))
    theirs = tmp_path / "t"
    theirs.mkdir()
    (theirs / "keep.txt").write_text("mine")
    with pytest.raises(InputError, match="was not written by mcp-matrix"):
        reports.prepare(reports.run_directory(Target(name="t")), "run 1")
    assert (theirs / "keep.txt").read_text() == "mine"


def test_a_side_the_target_does_not_offer_is_reported_once(rules_project: Path) -> None:
    (rules_project / "targets" / "server-only.yaml").write_text("name: server-only\nserver: {stdio: fixture}\n")
    (rules_project / "conformance" / "test_rules_probe.py").write_text(
        "from conformance.matrix.covers import for_req\n\n\n"
        f"@for_req({row_of_level('MUST')!r}, 'client')\ndef test_client(revision):\n    assert False\n"
    )
    code, output, report = run_rules(rules_project, "--target", "server-only")
    assert code == 0 and report["cells"] == [] and report["sides-not-offered"] == ["client"], output[-2000:]
    assert report["headline"].endswith("sides not offered: client")


def test_a_warned_cell_keeps_its_trace(rules_project: Path) -> None:
    """A ``warn`` passes the run unless ``--strict``, yet its report points at its trace: the trace stays;
    a passing test's trace goes."""
    (rules_project / "conformance" / "test_rules_probe.py").write_text(
        "from conformance.matrix.covers import for_req\n\n\n"
        f"@for_req({row_of_level('SHOULD')!r}, 'server')\n"
        "def test_should(revision, server):\n    server.open()\n    assert revision == '2025-03-26', 'no'\n"
    )
    code, output, report = run_rules(rules_project, "-k", "2025-03-26 or 2025-06-18")
    assert code == 0, output[-2000:]
    cells = {c["revision"]: c for c in report["cells"]}
    assert cells["2025-06-18"]["outcome"] == "warn" and cells["2025-03-26"]["outcome"] == "pass"
    kept = cells["2025-06-18"]["traces"]
    assert kept and all(Path(path).is_file() for path in kept), kept
    assert not list((rules_project / "out").glob("*/traces/*2025-03-26*")), "a passing test's trace is not kept"


def test_a_tested_cell_whose_every_test_stopped_short_is_named() -> None:
    def result(revision: str, outcome: str, transport: str, gapped: bool = False) -> reports.TestResult:
        return reports.TestResult("r", revision, "server", outcome, transport, gapped=gapped)

    results = [
        result("2025-06-18", "fixture-missing", "stdio"),
        result("2025-06-18", "fixture-missing", "streamable-http"),  # never reached: named
        result("2025-11-25", "fixture-missing", "stdio"),
        result("2025-11-25", "pass", "streamable-http"),  # reached over one transport: enough
        result("2026-07-28", "fixture-missing", "stdio", gapped=True),  # a gap says why already
        result("2024-11-05", "not-exercised", "stdio"),  # a MAY whose option was not taken: its check ran
    ]
    assert unreached_tested_cells(results) == ["r 2025-06-18 server"]
