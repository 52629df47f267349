"""The two judges agree (conformance/capture/calibration.py): on the traces a run of the suite keeps, the
offline validator fails what the suite gaps to a finding and passes what the suite passes; and a trace
altered after the run is caught as a disagreement naming both verdicts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.capture.calibration import (
    Findings,
    Pair,
    broken_elsewhere,
    compare,
    failing_cell,
    live_verdict,
    summary,
)
from conformance.catalogue.spec_pin import PROJECT_ROOT

# Client cells the SDK passes (request ids never null) and one its finding F-040 gaps (it sends prompts/list
# to a server that declared no prompts), at 2025-11-25, over stdio and Streamable HTTP.
SELECTION = (
    "conformance/test_lifecycle.py",
    "conformance/test_messages.py",
    "-k",
    "(uses_only_negotiated_features or request_ids_are_never_null) and 2025-11-25",
)
PASSED_CELL = "messages-request-id-not-null"


@pytest.fixture(scope="module")
def kept_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report directory of a run of the selection that kept every trace."""
    reports = tmp_path_factory.mktemp("reports")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--keep-traces", *SELECTION]
    env = os.environ | {"MCP_MATRIX_REPORTS": str(reports)}
    run = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    return reports / "sdk-python"


def test_the_validator_agrees_with_the_suite_on_its_traces(kept_run: Path) -> None:
    pairs = compare(kept_run, "sdk-python")
    judged = [p for p in pairs if p.judged_both_ways]
    assert [p.describe() for p in judged if not p.agrees] == []
    assert {p.requirement for p in judged if p.live == "pass"} >= {PASSED_CELL}
    gapped = [p for p in judged if p.live.startswith("F-")]
    assert {(p.requirement, p.live, p.offline) for p in gapped} == {
        ("lifecycle-negotiated-capabilities-only-must", "F-040", "fail")
    }
    assert len(gapped) == 2  # one trace per transport
    assert "disagreements: 0" in summary(pairs)


def test_a_trace_that_breaks_a_passed_requirement_is_a_disagreement(kept_run: Path, tmp_path: Path) -> None:
    """The suite passed the client's request ids; a null id put into its trace afterwards must make the
    validator fail that requirement there, and the calibration say so with both verdicts."""
    report = json.loads((kept_run / "report.json").read_text(encoding="utf-8"))
    cell = next(c for c in report["cells"] if c["requirement"] == PASSED_CELL)
    assert cell["outcome"] == "pass" and cell["traces"]
    trace = Path(cell["traces"][0])
    events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    request = next(
        e for e in events if e["kind"] == "message" and e["direction"] == "client-to-server" and "id" in e["payload"]
    )
    request["payload"]["id"] = None
    trace.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    broken = [p for p in compare(kept_run, "sdk-python") if p.trace == str(trace) and p.requirement == PASSED_CELL]
    assert [(p.live, p.offline, p.agrees) for p in broken] == [("pass", "fail", False)]
    assert f"DISAGREE {PASSED_CELL} 2025-11-25 client: live: pass; offline: fail" in summary(broken)


def test_a_trace_the_validator_cannot_judge_is_named_and_fails_the_calibration(tmp_path: Path) -> None:
    trace = tmp_path / "traces" / "cut.jsonl"
    trace.parent.mkdir()
    trace.write_text('{"seq": 1, "direction": "client-to-server"\n', encoding="utf-8")  # cut off mid-event
    cell = {"requirement": PASSED_CELL, "revision": "2025-11-25", "side": "client", "outcome": "pass"}
    report = {"cells": [cell | {"traces": [str(trace)]}]}
    (tmp_path / "report.json").write_text(json.dumps(report), encoding="utf-8")
    (pair,) = compare(tmp_path, "sdk-python")
    assert (pair.offline, pair.judged_both_ways) == ("validator-error", False)
    assert f"VALIDATOR ERROR on {trace}: TraceError" in summary([pair])
    run = subprocess.run(
        [sys.executable, "-m", "conformance.capture.calibration", str(tmp_path)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1, run.stdout + run.stderr


def test_a_cell_is_held_to_its_verdict_over_the_traces_transport() -> None:
    """A finding may break a cell over one transport only (F-120: batches dropped over stdio, taken over
    HTTP): the trace of the other transport is held to that transport's live verdict, not to the finding."""
    cell = {
        "requirement": "lifecycle-negotiated-capabilities-only-must",
        "revision": "2025-11-25",
        "side": "client",
        "outcome": "gap",
        "transports": {"stdio": "gap", "streamable-http": "pass", "http+sse": "fixture-missing"},
    }
    findings = Findings("sdk-python")
    assert live_verdict(cell, "stdio", findings) == "F-040"
    assert live_verdict(cell, "streamable-http", findings) == "pass"
    assert live_verdict(cell, "http+sse", findings) is None  # not judged live there
    assert live_verdict(cell, None, findings) == "F-040"  # a trace of two transports: the cell's verdict


def test_a_failing_cell_is_held_to_its_traces_together() -> None:
    """A test may record several sessions and meet the fault in one (F-190: a form-mode client beside a
    URL-only one): one trace that breaks the requirement offline carries the cell; none that does is one
    disagreement naming the cell, not one a trace."""
    key = ("elicitation-mode-must-be-declared", "2025-11-25", "server", "F-190")
    form_only = Pair(*key, "pass", "", "form.jsonl")
    url_only = Pair(*key, "fail", "seq 9: a form to a URL-only client", "url.jsonl")
    carried = failing_cell([form_only, url_only])
    assert (carried.offline, carried.trace, carried.agrees) == ("fail", "url.jsonl", True)
    assert "the cell's 2 traces together" in carried.reason
    missed = failing_cell([form_only, replace(url_only, offline="pass", reason="")])
    assert (missed.offline, missed.agrees) == ("pass", False)
    assert failing_cell([url_only]) == url_only
    assert carried.other_traces == ("form.jsonl",)


def test_a_passed_cell_is_held_to_every_trace_of_the_run() -> None:
    """The suite passed the server's structured-content mirroring on the one tool its test calls; another
    test's session, judged for the same side at the same revision, shows a tool that breaks it: a
    disagreement naming that trace. A trace judged for the other side, or at another revision, is not."""
    requirement = "tools-structured-content-text-mirror"
    broken = {"outcome": "warn", "id": requirement, "side": "server", "findings": [{"seq": 7, "reason": "no JSON"}]}
    session = {"revision": "2025-06-18", "requirements": [broken]}
    validation = {"sessions": [session], "directions": {7: "server-to-client"}}
    reports = {("other.jsonl", "server"): validation, ("client.jsonl", "client"): validation}
    passed = {(requirement, "2025-06-18", "server"): {"own.jsonl"}, (requirement, "2025-11-25", "server"): set()}
    (pair,) = broken_elsewhere(reports, passed)
    assert broken_elsewhere({("own.jsonl", "server"): validation}, passed) == []  # its own: compared pair by pair
    assert (pair.revision, pair.side, pair.trace) == ("2025-06-18", "server", "other.jsonl")
    assert pair.elsewhere and pair.judged_both_ways and not pair.agrees
    assert "another test's trace other.jsonl" in summary([pair])
    assert "cells passed live that another test's trace breaks offline: 1" in summary([pair])
