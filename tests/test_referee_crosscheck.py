"""The cross-check of the referee's verdicts against the matrix, on synthetic evidence and matrices."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.referee.crosscheck import crosscheck, render, validate_mapping
from conformance.referee.evidence import fingerprint

STAMP = "2026-01-02T03-04-05-678Z"
REQUIREMENTS = {
    "tools-name-length": {"revisions": ["2025-11-25", "2026-07-28"], "side": "server"},
    "prompts-get-unknown-name-error": {"revisions": ["2025-11-25", "2026-07-28"], "side": "server"},
    "resources-read-not-found-invalid-params": {"revisions": ["2026-07-28"], "side": "server"},
    "roots-capability-declare-per-request": {"revisions": ["2026-07-28"], "side": "client"},
}


def check(identifier: str, status: str = "SUCCESS", message: str = "") -> dict[str, Any]:
    return {"id": identifier, "name": identifier, "status": status, "errorMessage": message, "timestamp": "t"}


def cell(requirement: str, state: str, ref: str = "", revision: str = "2026-07-28", side: str = "server"):
    return {"requirement": requirement, "revision": revision, "side": side, "state": state, "ref": ref}


def matrix(*cells: dict[str, Any]) -> dict[str, Any]:
    return {"cells": list(cells)}


def setup_run(tmp_path: Path, scenarios: dict[str, list[dict[str, Any]]], not_scored: tuple[str, ...] = ()) -> Path:
    """Evidence of the profile server-2026-07-28 under tmp_path/reports, and the referee's requirement set."""
    for scenario, checks in scenarios.items():
        folder = tmp_path / "reports" / "server-2026-07-28" / "raw" / f"server-{scenario}-{STAMP}"
        folder.mkdir(parents=True)
        (folder / "checks.json").write_text(json.dumps(checks))
    requirement_sets = tmp_path / "requirements"
    requirement_sets.mkdir()
    scored = [s for s in scenarios if s not in not_scored]
    not_scored_entries = [{"scenario": s, "leg": "server", "reason": "pending"} for s in not_scored]
    (requirement_sets / "2026-07-28.yaml").write_text(json.dumps({"server": scored, "not_scored": not_scored_entries}))
    return requirement_sets


def baseline(classifications: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    profile = {"leg": "server", "requirements": "2026-07-28", "classifications": classifications or []}
    return {"profiles": {"server-2026-07-28": profile}}


MAPPING = {
    "server": {
        "tools-name-format": {"requirements": ["tools-name-length"], "note": "names 1-128 characters"},
        "prompts-unknown": {"requirements": ["prompts-get-unknown-name-error"], "note": "unknown prompt -32602"},
        "sep-2164-error-code": {"requirements": ["resources-read-not-found-invalid-params"], "note": "-32602"},
        "wire-schema-valid": {"requirements": [], "note": "judged elsewhere"},
    }
}


def run(tmp_path: Path, scenarios, the_matrix, classifications=None, mapping=MAPPING, not_scored=()):
    requirement_sets = setup_run(tmp_path, scenarios, not_scored)
    return crosscheck(
        mapping, the_matrix, baseline(classifications), tmp_path / "reports", requirement_sets, REQUIREMENTS
    )


def test_agreement_is_counted(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        {"tools-list": [check("tools-name-format"), check("wire-schema-valid")]},
        matrix(cell("tools-name-length", "tested")),
    )
    assert result.passed, render(result)
    assert len(result.agreements) == 1
    assert result.agreements[0]["requirement"] == "tools-name-length"
    assert "1 cells agree, 0 disagree" in render(result)


def test_a_referee_pass_on_a_cell_the_matrix_gaps_to_a_finding_fails_naming_both(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        {"prompts": [check("prompts-unknown")]},
        matrix(cell("prompts-get-unknown-name-error", "gap", "F-021")),
    )
    assert not result.passed
    (disagreement,) = result.disagreements
    assert "the matrix says breaks (gapped to F-021)" in disagreement
    assert "the referee says meets (prompts/prompts-unknown SUCCESS)" in disagreement


def test_a_genuine_referee_failure_on_a_tested_cell_fails_naming_both(tmp_path: Path) -> None:
    failed = check("prompts-unknown", "FAILURE", "got -32603")
    entry = {
        "scenario": "prompts",
        "check": "prompts-unknown",
        "status": "FAILURE",
        "fingerprint": fingerprint(failed),
        "classification": "genuine_protocol_failure",
        "finding": "F-021",
        "reason": "the SDK answers -32603",
    }
    result = run(tmp_path, {"prompts": [failed]}, matrix(cell("prompts-get-unknown-name-error", "tested")), [entry])
    (disagreement,) = result.disagreements
    assert "the matrix says meets (tested)" in disagreement and "the referee says breaks" in disagreement


def test_a_genuine_referee_failure_agrees_with_a_finding(tmp_path: Path) -> None:
    failed = check("prompts-unknown", "FAILURE", "got -32603")
    entry = {
        "scenario": "prompts",
        "check": "prompts-unknown",
        "status": "FAILURE",
        "fingerprint": fingerprint(failed),
        "classification": "genuine_protocol_failure",
        "finding": "F-021",
        "reason": "the SDK answers -32603",
    }
    the_matrix = matrix(cell("prompts-get-unknown-name-error", "gap", "F-021"))
    result = run(tmp_path, {"prompts": [failed]}, the_matrix, [entry])
    assert result.passed and result.agreements[0]["verdict"] == "breaks"


@pytest.mark.parametrize("classification", ["missing_harness_fixture", "harness_limitation_pending"])
def test_a_failure_of_the_harness_judges_nothing(tmp_path: Path, classification: str) -> None:
    failed = check("prompts-unknown", "FAILURE", "Not testable: no such prompt")
    entry = {
        "scenario": "prompts",
        "check": "prompts-unknown",
        "status": "FAILURE",
        "fingerprint": fingerprint(failed),
        "classification": classification,
        "reason": "the fixture lacks the prompt",
    }
    result = run(tmp_path, {"prompts": [failed]}, matrix(cell("prompts-get-unknown-name-error", "tested")), [entry])
    assert result.passed and not result.agreements


def test_a_failure_of_a_not_scored_scenario_judges_nothing(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        {"prompts": [check("prompts-unknown", "FAILURE", "boom")]},
        matrix(cell("prompts-get-unknown-name-error", "tested")),
        not_scored=("prompts",),
    )
    assert result.passed and not result.agreements


def test_a_cell_gapped_to_an_issue_or_not_applicable_is_not_compared(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        {"tools-list": [check("tools-name-format")], "prompts": [check("prompts-unknown")]},
        matrix(cell("tools-name-length", "gap", "#3"), cell("prompts-get-unknown-name-error", "n/a")),
    )
    assert result.passed and not result.agreements
    assert result.counts["cells only the referee judges"] == 2


def test_one_breaking_check_outweighs_a_passing_one(tmp_path: Path) -> None:
    failed = check("prompts-unknown", "FAILURE", "got -32603")
    entry = {
        "scenario": "prompts",
        "check": "prompts-unknown",
        "status": "FAILURE",
        "fingerprint": fingerprint(failed),
        "classification": "genuine_protocol_failure",
        "finding": "F-021",
        "reason": "r",
    }
    result = run(
        tmp_path,
        {"prompts": [check("prompts-unknown"), failed]},
        matrix(cell("prompts-get-unknown-name-error", "tested")),
        [entry],
    )
    assert "the referee says breaks (prompts/prompts-unknown FAILURE)" in result.disagreements[0]


def test_a_check_missing_from_the_mapping_fails(tmp_path: Path) -> None:
    result = run(tmp_path, {"tools-list": [check("brand-new-check")]}, matrix())
    assert any("'brand-new-check' is not in referee/mapping.yaml" in p for p in result.problems)


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        pytest.param({"requirements": ["no-such-row"], "note": "n"}, "no requirement 'no-such-row'", id="unknown"),
        pytest.param(
            {"requirements": ["roots-capability-declare-per-request"], "note": "n"}, "binds the client", id="side"
        ),
        pytest.param({"requirements": ["tools-name-length"]}, "needs a note", id="no-note"),
        pytest.param({"note": "n"}, "needs a requirements list", id="no-list"),
    ],
)
def test_a_malformed_mapping_entry_fails(tmp_path: Path, entry: dict[str, Any], words: str) -> None:
    mapping = {"server": {**MAPPING["server"], "tools-name-format": entry}}
    result = run(tmp_path, {"tools-list": [check("tools-name-format")]}, matrix(), mapping=mapping)
    assert any(words in p for p in result.problems), result.problems


def test_a_mapping_that_never_applies_where_the_check_ran_fails(tmp_path: Path) -> None:
    requirements = {**REQUIREMENTS, "tools-name-length": {"revisions": ["2025-06-18"], "side": "server"}}
    requirement_sets = setup_run(tmp_path, {"tools-list": [check("tools-name-format")]})
    result = crosscheck(MAPPING, matrix(), baseline(), tmp_path / "reports", requirement_sets, requirements)
    assert any("applies at the revisions where the check ran" in p for p in result.problems)


def test_missing_evidence_fails(tmp_path: Path) -> None:
    requirement_sets = tmp_path / "requirements"
    requirement_sets.mkdir()
    result = crosscheck(MAPPING, matrix(), baseline(), tmp_path / "reports", requirement_sets, REQUIREMENTS)
    assert any("no evidence" in p for p in result.problems)


def test_the_committed_mapping_names_only_catalogue_rows_of_its_side() -> None:
    import yaml

    from conformance.referee import MAPPING, ROOT
    from conformance.referee.crosscheck import validate_mapping

    rows = json.loads((ROOT / "conformance" / "requirements.json").read_text(encoding="utf-8"))["requirements"]
    requirements = {row["id"]: row for row in rows}
    assert validate_mapping(yaml.safe_load(MAPPING.read_text(encoding="utf-8")), requirements) == []


def authorization_run(tmp_path: Path, checks: list[dict[str, Any]], the_matrix: dict[str, Any], mapping: dict) -> Any:
    """Evidence of the profile authorization-2025-11-25 (the authorization-server leg, whose scenarios the referee
    scores at no revision) under tmp_path/reports."""
    folder = tmp_path / "reports" / "authorization-2025-11-25" / "raw"
    folder /= f"authorization-server-authorization-server-metadata-endpoint-{STAMP}"
    folder.mkdir(parents=True)
    (folder / "checks.json").write_text(json.dumps(checks))
    profile = {"leg": "authorization", "requirements": "2025-11-25", "classifications": []}
    the_baseline = {"profiles": {"authorization-2025-11-25": profile}}
    requirements = {"authorization-as-discovery-mechanism": {"revisions": ["2025-11-25"], "side": "server"}}
    return crosscheck(mapping, the_matrix, the_baseline, tmp_path / "reports", tmp_path, requirements)


AUTHORIZATION_MAPPING = {
    "authorization": {
        "authorization-server-metadata": {"requirements": ["authorization-as-discovery-mechanism"], "note": "8414"},
        "authorization-server-metadata-cimd": {"requirements": [], "note": "cimd"},
    }
}


def test_the_authorization_server_leg_judges_the_server_side(tmp_path: Path) -> None:
    result = authorization_run(
        tmp_path,
        [check("authorization-server-metadata"), check("authorization-server-metadata-cimd", "WARNING", "absent")],
        matrix(cell("authorization-as-discovery-mechanism", "gap", "F-999", revision="2025-11-25")),
        AUTHORIZATION_MAPPING,
    )
    (disagreement,) = result.disagreements
    assert "authorization-as-discovery-mechanism (2025-11-25, server)" in disagreement
    assert "the referee says meets (authorization-server-metadata-endpoint/authorization-server-metadata SUCCESS)" in (
        disagreement
    )
    assert result.counts["checks not judged"] == 1  # a WARNING of a scenario no one scores


def test_an_authorization_leg_entry_naming_a_client_row_fails(tmp_path: Path) -> None:
    mapping = {"authorization": {"authorization-server-metadata": {"requirements": ["client-row"], "note": "n"}}}
    problems = validate_mapping(mapping, {"client-row": {"revisions": ["2025-11-25"], "side": "client"}})
    assert problems == [
        "mapping authorization/authorization-server-metadata: client-row binds the client, not the server"
    ]
