"""The referee's verdicts against the matrix's, cell by cell, through ``referee/mapping.yaml``.

A referee check, mapped to catalogue requirements, judges the cells (requirement, revision of the
profile, side of the leg: the authorization-server leg judges the server, which plays its authorization server).
Its verdict on them:

- ``meets``: the check is SUCCESS;
- ``breaks``: FAILURE or WARNING of a scored scenario classified ``genuine_protocol_failure`` (with
  its finding);
- not judged: any other FAILURE / WARNING / SKIPPED (a missing fixture, an extension, a harness
  limitation; and the non-success checks of not-scored scenarios, which no one has classified).

A cell's referee verdict is ``breaks`` if any check breaks it, else ``meets`` if any meets it. The
matrix's verdict (``docs/spec/conformance-matrix.json``): ``tested`` = meets (the suite passes);
a gap to a finding ``F-NNN`` = breaks; any other gap and ``n/a`` = not judged. Where both judge a
cell and differ, the cross-check fails and names both verdicts and the checks behind the referee's.
A check the mapping does not list fails it too (a new referee check must be reviewed), as does a
mapping entry that names an unknown requirement, one of the other side, or one that never applies
at the revisions where the check ran.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.referee import PROFILES
from conformance.referee.evidence import NON_SUCCESS, fingerprint, read_results
from conformance.referee.gate import load_requirement_set

_FINDING = re.compile(r"^F-\d{3}$")
#: The referee's legs, and the side each one's checks judge.
SIDE_OF_LEG = {"server": "server", "client": "client", "authorization": "server"}
LEGS = tuple(SIDE_OF_LEG)


@dataclass
class CrossResult:
    agreements: list[dict[str, Any]] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def passed(self) -> bool:
        return not self.disagreements and not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "agreements": len(self.agreements),
            "agreeing_cells": self.agreements,
            "disagreements": self.disagreements,
            "problems": self.problems,
            "counts": dict(sorted(self.counts.items())),
        }


def matrix_verdicts(matrix: dict[str, Any]) -> dict[tuple[str, str, str], tuple[str | None, str]]:
    """(requirement, revision, side) -> (meets | breaks | None, how the matrix put it)."""
    verdicts = {}
    for cell in matrix["cells"]:
        key = (cell["requirement"], cell["revision"], cell["side"])
        state, ref = cell.get("state"), str(cell.get("ref") or "")
        if state == "tested":
            verdicts[key] = ("meets", "tested")
        elif state == "gap" and _FINDING.match(ref):
            verdicts[key] = ("breaks", f"gapped to {ref}")
        else:
            verdicts[key] = (None, f"{state} {ref}".strip())
    return verdicts


def validate_mapping(mapping: dict[str, Any], requirements: dict[str, dict[str, Any]]) -> list[str]:
    problems = []
    for leg in mapping:
        if leg not in LEGS:
            problems.append(f"mapping: unknown leg {leg!r} (server or client)")
    for leg in LEGS:
        for check, entry in (mapping.get(leg) or {}).items():
            where = f"mapping {leg}/{check}"
            if not isinstance(entry, dict) or not isinstance(entry.get("requirements"), list):
                problems.append(f"{where}: needs a requirements list")
                continue
            if not str(entry.get("note") or "").strip():
                problems.append(f"{where}: needs a note saying what the check judges (or why nothing)")
            side = SIDE_OF_LEG[leg]
            for requirement in entry["requirements"]:
                row = requirements.get(requirement)
                if row is None:
                    problems.append(f"{where}: no requirement {requirement!r} in the catalogue")
                elif row["side"] not in (side, "both"):
                    problems.append(f"{where}: {requirement} binds the {row['side']}, not the {side}")
    return problems


def crosscheck(
    mapping: dict[str, Any],
    matrix: dict[str, Any],
    baseline: dict[str, Any],
    reports: Path,
    requirements_dir: Path,
    requirements: dict[str, dict[str, Any]] | None = None,
) -> CrossResult:
    result = CrossResult()
    if requirements is None:
        requirements = _catalogue(matrix)
    result.problems.extend(validate_mapping(mapping, requirements))
    matrix_says = matrix_verdicts(matrix)
    referee_says: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    applied: dict[tuple[str, str], set[str]] = defaultdict(set)  # (leg, check) -> requirements that applied
    ran: set[tuple[str, str]] = set()
    unmapped: set[tuple[str, str]] = set()
    for name in (baseline.get("profiles") or {}) or PROFILES:
        profile = baseline["profiles"][name]
        leg, revision = profile["leg"], profile["requirements"]
        raw = reports / name / "raw"
        if not raw.is_dir():
            result.problems.append(f"{name}: no evidence in {raw} (run `make referee`)")
            continue
        scored = set(load_requirement_set(requirements_dir, revision, leg)["scored"])
        classified = {
            (e["scenario"], e["check"], e["status"], e["fingerprint"]): e for e in profile.get("classifications") or []
        }
        for scenario_result in read_results(raw, leg):
            for check in scenario_result.checks:
                status, identifier = check.get("status"), str(check.get("id"))
                if status == "INFO":
                    continue
                result.counts["checks"] += 1
                entry = (mapping.get(leg) or {}).get(identifier)
                if entry is None:
                    unmapped.add((leg, identifier))
                    continue
                ran.add((leg, identifier))
                verdict, why = _referee_verdict(
                    scenario_result.scenario, check, scenario_result.scenario in scored, classified
                )
                result.counts[f"checks {verdict or 'not judged'}"] += 1
                for requirement in entry.get("requirements") or []:
                    if revision not in requirements.get(requirement, {}).get("revisions", []):
                        continue
                    applied[(leg, identifier)].add(requirement)
                    referee_says[(requirement, revision, SIDE_OF_LEG[leg])].append(
                        {
                            "verdict": verdict,
                            "why": why,
                            "profile": name,
                            "scenario": scenario_result.scenario,
                            "check": identifier,
                            "status": status,
                        }
                    )
    for leg, identifier in sorted(unmapped):
        result.problems.append(f"{leg} check {identifier!r} is not in referee/mapping.yaml: review what it judges")
    for leg, identifier in sorted(ran):
        mapped = (mapping.get(leg) or {}).get(identifier, {}).get("requirements") or []
        if mapped and not applied[(leg, identifier)]:
            result.problems.append(
                f"mapping {leg}/{identifier}: none of {mapped} applies at the revisions where the check ran"
            )
    for cell, judgements in sorted(referee_says.items()):
        verdicts = [j for j in judgements if j["verdict"]]
        if not verdicts:
            result.counts["cells the referee does not judge"] += 1
            continue
        breaking = [j for j in verdicts if j["verdict"] == "breaks"]
        referee_verdict = "breaks" if breaking else "meets"
        evidence = breaking or verdicts
        matrix_verdict, matrix_how = matrix_says.get(cell, (None, "no such cell"))
        if matrix_verdict is None:
            result.counts["cells only the referee judges"] += 1
            continue
        requirement, revision, side = cell
        checks = ", ".join(sorted({f"{j['scenario']}/{j['check']} {j['status']}" for j in evidence}))
        if matrix_verdict == referee_verdict:
            result.agreements.append(
                {
                    "requirement": requirement,
                    "revision": revision,
                    "side": side,
                    "verdict": referee_verdict,
                    "matrix": matrix_how,
                    "checks": checks,
                }
            )
        else:
            result.disagreements.append(
                f"{requirement} ({revision}, {side}): the matrix says {matrix_verdict} ({matrix_how}); "
                f"the referee says {referee_verdict} ({checks})"
            )
    result.counts["cells judged by both"] = len(result.agreements) + len(result.disagreements)
    return result


def _referee_verdict(
    scenario: str, check: dict[str, Any], scored: bool, classified: dict[tuple[str, str, str, str], dict[str, Any]]
) -> tuple[str | None, str]:
    status = check.get("status")
    if status == "SUCCESS":
        return "meets", "SUCCESS"
    if status not in NON_SUCCESS:
        return None, f"status {status}"
    if not scored:
        return None, "not scored, not classified"
    entry = classified.get((scenario, str(check.get("id")), str(status), fingerprint(check)))
    if entry is None:
        return None, "unclassified (the gate fails on it)"
    if entry.get("classification") == "genuine_protocol_failure" and status in ("FAILURE", "WARNING"):
        return "breaks", f"genuine_protocol_failure, {entry.get('finding')}"
    return None, str(entry.get("classification"))


def _catalogue(matrix: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Requirement id -> its revisions and side, from conformance/requirements.json."""
    from conformance.referee import ROOT

    path = ROOT / "conformance" / "requirements.json"
    rows = json.loads(path.read_text(encoding="utf-8"))["requirements"]
    return {row["id"]: {"revisions": row["revisions"], "side": row["side"]} for row in rows}


def render(result: CrossResult) -> str:
    lines = [
        f"referee cross-check: {'PASS' if result.passed else 'FAIL'}; "
        f"{len(result.agreements)} cells agree, {len(result.disagreements)} disagree"
    ]
    lines.append("  " + "; ".join(f"{k} {v}" for k, v in sorted(result.counts.items())))
    lines.extend(f"  DISAGREE {d}" for d in result.disagreements)
    lines.extend(f"  FAIL {p}" for p in result.problems)
    return "\n".join(lines)
