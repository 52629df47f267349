"""The MCP Apps checks (conformance/test_apps.py, python -m conformance apps): how a check is judged from its
tests, the shapes they accept, and the deliberately broken Apps server failing exactly at its planted defects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import PROJECT_ROOT
from conformance.cli.apps import FAILED, INCOMPLETE, NOT_APPLICABLE, PASSED, judge_checks, summary_line
from conformance.fixtures.broken_apps_server import DEFECTS
from conformance.test_apps import CHECKS, NOTHING_TO_CHECK, html5_problem, meta_problems, same_mime_type

PRESENT = CHECKS["ui-tools-present"][0]
NESTED_KEY = "test_a_tool_names_its_ui_resource_in_the_nested_key"
VISIBILITY = "test_a_tool_visibility_holds_only_model_and_app"
NOTHING = f"fixture-missing: {NOTHING_TO_CHECK.removeprefix('fixture-missing: ')} no tool sets visibility"


def item(function: str, outcome: str, evidence: str = "") -> tuple[str, str, str, str]:
    return function, "apps-row", outcome, f"{function}[2025-11-25/apps/apps-row@stdio]: {evidence}"


def outcomes(items: list[tuple[str, str, str, str]]) -> dict[str, str]:
    return {result.check: result.outcome for result in judge_checks(items, CHECKS, NOTHING_TO_CHECK)}


def test_a_check_fails_on_one_failed_test_and_passes_with_a_warning() -> None:
    found = outcomes([item(PRESENT, "pass"), item(NESTED_KEY, "warn"), item(VISIBILITY, "fail")])
    assert found["ui-tools-present"] == PASSED
    assert found["ui-tool-metadata-valid"] == FAILED
    assert outcomes([item(PRESENT, "pass"), item(NESTED_KEY, "warn")])["ui-tool-metadata-valid"] == PASSED


def test_a_gapped_should_is_a_known_warning_and_a_gapped_must_a_failure() -> None:
    degrading = CHECKS["ui-tool-graceful-degradation"]
    gapped = [item(PRESENT, "pass"), item(degrading[0], "pass"), (degrading[1], "should-row", "gap", "known")]
    judged = judge_checks(gapped, CHECKS, NOTHING_TO_CHECK, {"should-row": "SHOULD"})
    assert {r.check: r.outcome for r in judged}["ui-tool-graceful-degradation"] == PASSED
    judged = judge_checks(gapped, CHECKS, NOTHING_TO_CHECK, {"should-row": "MUST"})
    assert {r.check: r.outcome for r in judged}["ui-tool-graceful-degradation"] == FAILED


def test_a_check_that_could_not_run_is_never_a_pass() -> None:
    found = outcomes([item(PRESENT, "pass"), item(VISIBILITY, "pass"), item(NESTED_KEY, "inconclusive")])
    assert found["ui-tool-metadata-valid"] == INCOMPLETE
    transport_missing = item(VISIBILITY, "fixture-missing", "fixture-missing: target T offers no stdio server")
    assert outcomes([item(PRESENT, "pass"), transport_missing])["ui-tool-metadata-valid"] == INCOMPLETE


def test_a_check_with_nothing_to_check_is_not_applicable() -> None:
    found = outcomes([item(PRESENT, "pass"), item(VISIBILITY, "fixture-missing", NOTHING)])
    assert found["ui-tool-metadata-valid"] == NOT_APPLICABLE


def test_a_server_without_an_apps_surface_has_every_check_not_applicable() -> None:
    others = [item(f, "fixture-missing", NOTHING) for functions in CHECKS.values() for f in functions if f != PRESENT]
    results = judge_checks([item(PRESENT, "not-exercised"), *others], CHECKS, NOTHING_TO_CHECK)
    assert {result.outcome for result in results} == {NOT_APPLICABLE}
    assert summary_line(results) == "0/8 checks passed, 0 failed, 0 could not run, 8 not applicable"


def test_a_check_no_test_of_which_reached_a_verdict_could_not_run() -> None:
    found = outcomes([item(PRESENT, "pass")])
    assert found["ui-resource-meta-valid"] == INCOMPLETE


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ('<!DOCTYPE html>\n<html lang="en"><body>x</body></html>', None),
        ("\ufeff<!-- built --> <!doctype html><title>x</title><p>no html tag</p>", None),
        ("<html><body>no doctype</body></html>", "does not open with <!DOCTYPE html>"),
        ("<p>a fragment</p>", "does not open with <!DOCTYPE html>"),
        ("<!DOCTYPE html><html></html><!DOCTYPE html><html></html>", "holds 2 DOCTYPEs and 2 <html> elements"),
    ],
)
def test_an_html5_document_opens_with_its_doctype_and_is_one(document: str, problem: str | None) -> None:
    assert html5_problem(document) == problem


def test_mime_types_compare_as_the_grammar_reads_them() -> None:
    assert same_mime_type("Text/HTML; profile=mcp-app", "text/html;profile=mcp-app")
    assert not same_mime_type("text/html", "text/html;profile=mcp-app")
    assert not same_mime_type("text/html;profile=MCP-APP", "text/html;profile=mcp-app")


def test_resource_meta_shapes() -> None:
    sound = {
        "csp": {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://*.cdn.example.com:8443"]},
        "permissions": {"clipboardWrite": {}},
        "domain": "a904794854a047f6.example-host.com",
        "prefersBorder": False,
    }
    assert meta_problems(sound) == []
    assert meta_problems({"csp": {"connectDomains": ["http://[::1]:8080", "http://localhost:3000"]}}) == []
    assert meta_problems({"csp": {"connectDomains": "https://api.example.com"}}) != []
    assert meta_problems({"csp": {"connectDomains": ["api.example.com/path"]}}) != []
    assert meta_problems({"permissions": {"usb": {}}}) != []
    assert meta_problems({"permissions": {"camera": True}}) != []
    assert meta_problems({"prefersBorder": "yes"}) != []
    assert meta_problems({"domain": 7}) != []


def run_apps(tmp_path: Path, *arguments: str) -> tuple[int, dict]:
    env = os.environ | {"MCP_MATRIX_REPORTS": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "apps", "--workers", "2", *arguments],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    written = list(tmp_path.glob("*/apps-checks.json"))
    assert len(written) == 1, done.stdout[-3000:] + done.stderr[-3000:]
    return done.returncode, json.loads(written[0].read_text(encoding="utf-8"))


def test_the_broken_apps_server_fails_exactly_at_its_defects_naming_each(tmp_path: Path) -> None:
    code, report = run_apps(tmp_path, "--target", "conformance/fixtures/broken-apps.yaml")
    expected = {function: "pass" for functions in CHECKS.values() for function in functions}
    for _, tests in DEFECTS.values():
        expected |= tests
    judged = {}  # test function -> its outcomes where it reached a verdict (it runs over stdio alone here)
    evidence = "\n".join(line for check in report["checks"] for line in check["evidence"])
    for check in report["checks"]:
        for function, counts in check["by-test"].items():
            judged[function] = sorted(set(counts) - {"fixture-missing"})
    assert judged == {function: [outcome] for function, outcome in expected.items()}
    for subject, tests in DEFECTS.values():
        for function in (function for function, outcome in tests.items() if outcome != "not-exercised"):
            said = [line for line in evidence.splitlines() if line.startswith(f"{function}[")]
            assert said and all(subject in line for line in said), f"{function} does not name {subject}: {said}"
    failing = {check for check, functions in CHECKS.items() if any(expected[f] == "fail" for f in functions)}
    assert {check["check"] for check in report["checks"] if check["outcome"] == FAILED} == failing
    assert code == 1


def test_a_server_without_apps_is_reported_as_having_none(tmp_path: Path) -> None:
    if not (PROJECT_ROOT / ".cache" / "targets" / "mcp-server-time" / "bin" / "mcp-server-time").is_file():
        pytest.skip("mcp-server-time is not installed (make targets)")
    code, report = run_apps(tmp_path, "--target", "mcp-server-time")
    assert report["apps-surface"] is False
    assert report["summary"] == "0/8 checks passed, 0 failed, 0 could not run, 8 not applicable"
    assert code == 0


def test_a_server_that_cannot_be_started_exits_3_with_every_check_unable_to_run(tmp_path: Path) -> None:
    code, report = run_apps(tmp_path, "--server-command", "/bin/false")
    assert report["summary"] == "0/8 checks passed, 0 failed, 8 could not run, 0 not applicable"
    assert code == 3
