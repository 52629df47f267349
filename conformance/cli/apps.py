"""``python -m conformance apps``: the MCP Apps checks against one server, summed up per check.

    python -m conformance apps --target server-basic-vanillajs
    python -m conformance apps --server-command "node my-apps-server.js --stdio"

runs conformance/test_apps.py against the target as any run of the suite does (the same plugin, report
directory, ``report.json``, ``junit.xml`` and exit codes: conformance/cli/run.py), then judges each check
of ``CHECKS`` from the outcomes of its tests:

- ``failed``: one of its tests failed (a MUST broken), or failed as a gap of the target's profile (known) on
  a MUST row;
- ``incomplete``: none failed, but one could not run (inconclusive), or none reached a verdict: a check that
  could not run is never a pass;
- ``passed``: its tests passed (a SHOULD not followed is counted as a warning, gapped to a finding in the
  profile or not: it fails only under --strict);
- ``not applicable``: the server offers nothing the check judges (its tests found "nothing to check"); every
  check is, for a server with no Apps surface, which the summary says.

The summary line reads ``N/M checks passed, X failed, Y could not run, Z not applicable``; the run's
directory gets ``apps-checks.json`` and ``apps-checks.junit.xml`` (one test case a check) beside the suite's
own reports. Exit 0 no check failed; 1 a check failed (under --strict also a warning or a check that could
not run); 2 bad invocation or profile; 3 the target could not be started or reached (every check could not
run).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputError, InputErrors
from conformance.catalogue.spec_pin import SpecPinError, materialise
from conformance.cli import run
from conformance.matrix.covers import registry

APPS_TESTS = PROJECT_ROOT / "conformance" / "test_apps.py"
PASSED, FAILED, INCOMPLETE, NOT_APPLICABLE = "passed", "failed", "incomplete", "not applicable"
NO_SURFACE = "the server has no Apps surface: it links no tool to a UI resource"


@dataclass
class CheckResult:
    check: str
    outcome: str = INCOMPLETE
    tests: Counter[str] = field(default_factory=Counter)  # test outcome -> items
    by_test: dict[str, Counter[str]] = field(default_factory=dict)  # test function -> its outcomes, as above
    rows: set[str] = field(default_factory=set)
    evidence: list[str] = field(default_factory=list)  # of the failures, warnings and inconclusive items

    def as_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "outcome": self.outcome,
            "rows": sorted(self.rows),
            "tests": dict(sorted(self.tests.items())),
            "by-test": {name: dict(sorted(counts.items())) for name, counts in sorted(self.by_test.items())},
            "evidence": sorted(set(self.evidence)),
        }


class Collector:
    """The outcome of every test_apps.py item, as the suite's plugin judged it (on the controller, xdist or not)."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str, str, str]] = []  # (test function, row, outcome, evidence)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        properties = dict(report.user_properties)
        outcome = properties.get("conformance-outcome")
        if outcome is None or "cell" not in properties:
            return
        function = report.nodeid.split("::", 1)[-1].split("[", 1)[0]
        evidence = f"{function}[{report.nodeid.split('[', 1)[-1].rstrip(']')}]: {properties.get('evidence', '')}"
        self.items.append((function, properties["cell"][0], outcome, evidence))


def judge_checks(
    items: list[tuple[str, str, str, str]],
    checks: dict[str, tuple[str, ...]],
    nothing: str,
    levels: Mapping[str, str] | None = None,
) -> list[CheckResult]:
    """Each check's outcome from its tests' (see the module's docstring); ``nothing`` opens the evidence of a test
    that found nothing to check. ``levels`` (row -> level): a gap of the profile on a SHOULD row is a warning
    known to be there, not a failure; without them every gap fails."""
    results = []
    for check, functions in checks.items():
        result = CheckResult(check)
        for function, row, outcome, evidence in items:
            if function not in functions or outcome in ("revision-not-implemented", "side-not-offered"):
                continue
            if outcome == "fixture-missing" and evidence.split(": ", 1)[-1].startswith(nothing):
                label = "not-applicable"
            elif outcome == "gap" and (levels or {}).get(row, "").startswith("SHOULD"):
                label = "warn"
            else:
                label = outcome
            result.tests[label] += 1
            result.by_test.setdefault(function, Counter())[label] += 1
            result.rows.add(row)
            if outcome in ("fail", "warn", "gap", "inconclusive"):
                result.evidence.append(evidence)
        if result.tests["fail"] or result.tests["gap"]:
            result.outcome = FAILED
        elif result.tests["inconclusive"]:
            result.outcome = INCOMPLETE
        elif result.tests["pass"] or result.tests["warn"]:
            result.outcome = PASSED
        elif result.tests["not-applicable"] or result.tests["not-exercised"]:
            result.outcome = NOT_APPLICABLE  # nothing to check, or only a permission the server did not take
        results.append(result)  # else INCOMPLETE: no test reached a verdict
    return results


def summary_line(results: list[CheckResult]) -> str:
    counts = Counter(result.outcome for result in results)
    return (
        f"{counts[PASSED]}/{len(results)} checks passed, {counts[FAILED]} failed, "
        f"{counts[INCOMPLETE]} could not run, {counts[NOT_APPLICABLE]} not applicable"
    )


def write_reports(directory: Path, target: str, results: list[CheckResult], line: str, no_surface: bool) -> None:
    data = {
        "target": target,
        "summary": line,
        "apps-surface": not no_surface,
        "checks": [result.as_json() for result in results],
    }
    (directory / "apps-checks.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    suite = ElementTree.Element(
        "testsuite",
        name=f"mcp-matrix apps checks: {target}",
        tests=str(len(results)),
        failures=str(sum(result.outcome == FAILED for result in results)),
        skipped=str(sum(result.outcome in (INCOMPLETE, NOT_APPLICABLE) for result in results)),
    )
    for result in results:
        case = ElementTree.SubElement(suite, "testcase", classname="apps", name=result.check)
        said = "\n".join(sorted(set(result.evidence)))
        if result.outcome == FAILED:
            ElementTree.SubElement(case, "failure", message=f"{result.check} failed").text = said
        elif result.outcome in (INCOMPLETE, NOT_APPLICABLE):
            ElementTree.SubElement(case, "skipped", message=result.outcome).text = said
    ElementTree.ElementTree(suite).write(directory / "apps-checks.junit.xml", encoding="utf-8", xml_declaration=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", metavar="NAME|PATH", help="a target profile (default sdk-python)")
    parser.add_argument("--server-command", metavar="CMD", help="a stdio server: a shell-quoted command")
    parser.add_argument("--server-url", metavar="URL", help="a running Streamable HTTP server at a loopback URL")
    parser.add_argument("--strict", action="store_true", help="warnings and checks that could not run fail too")
    parser.add_argument("--workers", type=int, default=2, metavar="N", help="parallel pytest workers (default 2)")
    parser.add_argument(
        "--reports", metavar="DIR", help="where <target>/ goes (default $MCP_MATRIX_REPORTS or ./reports)"
    )


def add_parser(commands: Any) -> None:
    """``python -m conformance apps`` (conformance/cli/main.py)."""
    apps = commands.add_parser(
        "apps",
        help="the MCP Apps checks against one server, summed up per check",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(apps)
    apps.set_defaults(run=check)


def check(args: argparse.Namespace) -> int:
    """Run the checks as ``args`` say; print each check's outcome and the summary line; the exit code."""
    # The servers under test run in this process's children: one that dies while the harness writes to it must
    # be an error the harness reports (exit 3), not a SIGPIPE that kills the run (python -m conformance sets it).
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    reports_root = Path(args.reports or os.environ.get(run.REPORTS_VARIABLE) or "reports").resolve()
    os.environ[run.REPORTS_VARIABLE] = str(reports_root)
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        materialise()
    except (SpecPinError, InputError, InputErrors) as exc:
        print(f"apps: the pinned spec cannot be had: {exc}", file=sys.stderr)
        return run.EXIT_USAGE
    arguments = [str(APPS_TESTS), "-c", str(PROJECT_ROOT / "pyproject.toml"), "--rootdir", str(PROJECT_ROOT)]
    arguments += ["-p", "xdist.plugin", "-n", str(args.workers), "-q"]
    for option in ("target", "server_command", "server_url"):
        value = getattr(args, option)
        if value is not None:
            arguments.append(f"--{option.replace('_', '-')}={value}")
    if args.strict:
        arguments.append("--strict")
    outcome, collector = run.Outcome(), Collector()
    status = pytest.main(arguments, plugins=[outcome, collector])
    code = run.exit_code(status, outcome)
    if code not in (run.EXIT_OK, run.EXIT_FAILED, run.EXIT_UNREACHABLE) or outcome.report is None:
        print(f"apps: exit {code} ({run.MEANING[code]})")
        return code
    from conformance.test_apps import CHECKS, NOTHING_TO_CHECK

    levels = {row: requirement["level"] for row, requirement in registry()[0].items()}
    results = judge_checks(collector.items, CHECKS, NOTHING_TO_CHECK, levels)
    no_surface = bool(results) and all(result.outcome == NOT_APPLICABLE for result in results)
    line = summary_line(results)
    write_reports(
        outcome.report.parent,
        json.loads(outcome.report.read_text(encoding="utf-8"))["target"]["name"],
        results,
        line,
        no_surface,
    )
    for result in results:
        counts = ", ".join(f"{n} {outcome_name}" for outcome_name, n in sorted(result.tests.items()))
        print(f"apps: {result.check:28} {result.outcome:15} ({counts})")
        for evidence in sorted(set(result.evidence))[:5]:
            print(f"apps:     {evidence[:300]}")
    if no_surface:
        print(f"apps: {NO_SURFACE}")
    print(f"apps: {line}")
    shown = run._shown(outcome.report.parent)
    print(f"apps: reports {shown}/apps-checks.json, apps-checks.junit.xml (and the run's report.md, junit.xml)")
    failed = any(result.outcome == FAILED for result in results)
    incomplete = any(result.outcome == INCOMPLETE for result in results)
    if code != run.EXIT_UNREACHABLE:  # unreachable: every check could not run, and the exit code says why
        code = run.EXIT_FAILED if failed or code == run.EXIT_FAILED or (args.strict and incomplete) else run.EXIT_OK
    print(f"apps: exit {code} ({'a check failed' if failed else run.MEANING[code]})")
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance.cli.apps", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    return check(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
