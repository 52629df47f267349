"""The gate over one profile's evidence: every non-success check of a scored scenario classified exactly.

The gate reads the raw ``checks.json`` tree (never the referee's summary), the run's metadata, the
referee's frozen requirement set and the profile's entry in ``referee/baseline.yaml``. It fails on:

- a required scenario not reported, reported twice, or an unknown one; a scenario with no
  checks.json, an empty one, or no verdict at all (only INFO lines); a check with an unknown status;
- a timeout, a transport exception or a harness error of any scenario, scored or not; the referee
  killed, or an exit code other than 0/1, or one that disagrees with the scored failures; on the
  client leg, a client run that timed out or was abandoned, a scenario whose client never ran, a
  driver exit status the baseline does not record;
- capability drift against the baseline's snapshot (naming the classifications that rely on an
  absent capability that is now there);
- a FAILURE / WARNING / SKIPPED check of a scored scenario without its exact classification: the
  same scenario, check id, status and evidence fingerprint, as many times as it occurs (check ids
  repeat within a scenario: the baseline pins the multiset); a classification whose check now
  passes or disappeared; one whose status or fingerprint changed; an inconclusive_infrastructure
  classification that is observed (it never passes); a malformed, wildcard or not-scored entry.

Not-scored scenarios run and are reported; their checks consume no classification.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.referee import ROOT
from conformance.referee.evidence import (
    HARNESS_ERROR_IDS,
    NON_SUCCESS,
    SCENARIO_THREW,
    SCENARIO_TIMEOUT,
    STATUSES,
    TRANSPORT_EXCEPTION,
    VERDICTS,
    ScenarioResult,
    canonical,
    fingerprint,
    normalise,
    read_results,
)

CLASSIFICATIONS = (
    "genuine_protocol_failure",
    "missing_harness_fixture",
    "optional_capability_not_implemented",
    "harness_limitation_pending",
    "inconclusive_infrastructure",
)
ENTRY_KEYS = {"scenario", "check", "status", "fingerprint", "count", "classification", "reason", "finding", "relies_on"}
FINDINGS = ROOT / "docs" / "findings"
_FINDING = re.compile(r"^F-(\d{3})$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


@dataclass
class GateResult:
    profile: str
    failures: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    fingerprints: list[dict[str, Any]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


#: The scenarios of the referee's authorization-server leg (its ``authorization`` command, ``list --authorization``),
#: at every revision. Its requirement sets have no authorization-server section (they say why: the specification
#: leaves authorization servers out of its own scope), so none is scored: they are run and reported, and their
#: checks consume no classification. A scenario a new referee adds is reported as unknown: review it here.
AUTHORIZATION_SCENARIOS = ("authorization-server-metadata-endpoint", "authorization-code-grant")


def load_requirement_set(requirements_dir: Path, revision: str, leg: str) -> dict[str, list[str]]:
    """The referee's frozen set for ``revision`` and ``leg``: scored and not-scored scenario names."""
    if leg == "authorization":
        return {"scored": [], "not_scored": list(AUTHORIZATION_SCENARIOS)}
    data = yaml.safe_load((requirements_dir / f"{revision}.yaml").read_text(encoding="utf-8"))
    return {
        "scored": list(data.get(leg) or []),
        "not_scored": [e["scenario"] for e in data.get("not_scored") or [] if e.get("leg") == leg],
    }


def finding_exists(reference: str, findings_dir: Path = FINDINGS) -> bool:
    match = _FINDING.match(reference)
    return bool(match) and any(findings_dir.glob(f"{match.group(1)}-*.md"))


# ---------------------------------------------------------------------------------------------
# Capability snapshots
# ---------------------------------------------------------------------------------------------


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """A JSON value as {json-pointer: leaf}; an empty object is a leaf of its own."""
    if isinstance(value, dict) and value:
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(flatten(item, f"{prefix}/{str(key).replace('~', '~0').replace('/', '~1')}"))
        return flat
    return {prefix or "/": value}


def present(snapshot: Any, pointer: str) -> bool:
    """Whether the JSON pointer names something in the snapshot."""
    node = snapshot
    for part in pointer.strip("/").split("/") if pointer.strip("/") else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def capability_drift(expected: Any, observed: Any) -> list[str]:
    before, after = flatten(expected), flatten(observed)
    changes = []
    for pointer in sorted(set(before) | set(after)):
        if pointer not in after:
            changes.append(f"{pointer} was {canonical(before[pointer])}, now absent")
        elif pointer not in before:
            changes.append(f"{pointer} is new: {canonical(after[pointer])}")
        elif before[pointer] != after[pointer]:
            changes.append(f"{pointer} was {canonical(before[pointer])}, now {canonical(after[pointer])}")
    return changes


# ---------------------------------------------------------------------------------------------
# The baseline's entries
# ---------------------------------------------------------------------------------------------


def validate_profile(name: str, profile: dict[str, Any], requirement_set: dict[str, list[str]]) -> list[str]:
    """Problems of the baseline's entry for one profile, before any run is looked at."""
    problems = []
    for key in ("scored", "not_scored"):
        listed = list(profile.get(key) or [])
        if sorted(listed) != sorted(requirement_set[key]):
            missing = sorted(set(requirement_set[key]) - set(listed))
            extra = sorted(set(listed) - set(requirement_set[key]))
            problems.append(
                f"baseline {name}.{key} differs from the referee's frozen set: "
                f"missing {missing}, not in the set {extra}"
            )
        if len(set(listed)) != len(listed):
            problems.append(f"baseline {name}.{key} lists a scenario twice")
    scored = set(profile.get("scored") or [])
    not_scored = set(profile.get("not_scored") or [])
    seen: set[tuple[str, str, str, str]] = set()
    for index, entry in enumerate(profile.get("classifications") or []):
        where = f"baseline {name}.classifications[{index}]"
        if not isinstance(entry, dict):
            problems.append(f"{where} is not a mapping")
            continue
        where += f" ({entry.get('scenario')}, {entry.get('check')})"
        unknown = set(entry) - ENTRY_KEYS
        if unknown:
            problems.append(f"{where} has unknown keys {sorted(unknown)}")
        for key in ("scenario", "check", "status", "fingerprint", "classification", "reason"):
            if not isinstance(entry.get(key), str) or not entry.get(key):
                problems.append(f"{where} has no {key}")
        scenario, check = str(entry.get("scenario", "")), str(entry.get("check", ""))
        if any(ch in scenario + check for ch in "*?[]") or check in ("", "all"):
            problems.append(f"{where} is a wildcard: classify each check exactly, by id, status and fingerprint")
        if scenario in not_scored:
            problems.append(f"{where} classifies a not-scored scenario: those are reported, never classified")
        elif scenario not in scored:
            problems.append(f"{where} names a scenario that is not in the profile's scored set")
        if entry.get("status") not in NON_SUCCESS:
            problems.append(f"{where} has status {entry.get('status')!r}: only {', '.join(NON_SUCCESS)} are classified")
        if not _HEX64.match(str(entry.get("fingerprint", ""))):
            problems.append(f"{where} has no sha256 fingerprint")
        count = entry.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            problems.append(f"{where} has count {count!r}: a positive integer")
        if entry.get("classification") not in CLASSIFICATIONS:
            problems.append(f"{where} has classification {entry.get('classification')!r}, not one of {CLASSIFICATIONS}")
        if entry.get("classification") == "genuine_protocol_failure":
            finding = entry.get("finding")
            if not isinstance(finding, str) or not finding_exists(finding):
                problems.append(
                    f"{where} is a genuine_protocol_failure without a finding in docs/findings/ ({finding!r})"
                )
        relies_on = entry.get("relies_on", [])
        if not isinstance(relies_on, list) or not all(isinstance(p, str) and p.startswith("/") for p in relies_on):
            problems.append(f"{where} relies_on must be a list of JSON pointers into the capability snapshot")
        elif entry.get("classification") == "optional_capability_not_implemented" and not relies_on:
            problems.append(
                f"{where} is optional_capability_not_implemented but names no absent capability (relies_on)"
            )
        else:
            for pointer in relies_on:
                if present(profile.get("capabilities"), pointer):
                    problems.append(f"{where} relies on {pointer} being absent, but the baseline snapshot has it")
        key = (scenario, check, str(entry.get("status")), str(entry.get("fingerprint")))
        if key in seen:
            problems.append(f"{where} is listed twice: use count for a check that repeats with the same evidence")
        seen.add(key)
    exits = profile.get("client_exits") or {}
    if not isinstance(exits, dict):
        problems.append(f"baseline {name}.client_exits is not a mapping")
    else:
        for scenario, value in exits.items():
            if not isinstance(value, dict) or not isinstance(value.get("exit"), int) or not value.get("reason"):
                problems.append(f"baseline {name}.client_exits[{scenario}] needs an integer exit and a reason")
    return problems


# ---------------------------------------------------------------------------------------------
# The gate
# ---------------------------------------------------------------------------------------------


def blocking_check(scenario: str, check: dict[str, Any]) -> str | None:
    """Why a check is a timeout, a transport exception or a harness error, or None."""
    identifier, status = check.get("id"), check.get("status")
    message = str(check.get("errorMessage") or "")
    if identifier == SCENARIO_TIMEOUT:
        return f"timeout: {message}"
    if identifier in HARNESS_ERROR_IDS:
        return f"harness error ({identifier}): {message}"
    if identifier == scenario and check.get("description") == SCENARIO_THREW:
        return f"the scenario threw (harness error): {message}"
    if status in ("FAILURE", "WARNING") and TRANSPORT_EXCEPTION.search(message):
        return f"transport exception: {message}"
    return None


def gate(
    profile_name: str,
    profile: dict[str, Any],
    evidence_dir: Path,
    requirement_set: dict[str, list[str]],
) -> GateResult:
    result = GateResult(profile_name)
    fail = result.failures.append
    for problem in validate_profile(profile_name, profile, requirement_set):
        fail(problem)
    metadata_path = evidence_dir / "metadata.json"
    if not metadata_path.is_file():
        fail(f"no metadata.json in {evidence_dir}: the profile did not run")
        return result
    metadata = json.loads(metadata_path.read_text(encoding="utf-8"))
    leg = profile.get("leg", metadata.get("leg"))
    if metadata.get("run_error"):
        fail(f"the run did not complete: {metadata['run_error']}")
    scored, not_scored = set(requirement_set["scored"]), set(requirement_set["not_scored"])

    # Scenarios: each required one exactly once, nothing else, each with a verdict.
    results = read_results(evidence_dir / "raw", leg)
    by_scenario: dict[str, list[ScenarioResult]] = defaultdict(list)
    for scenario_result in results:
        by_scenario[scenario_result.scenario].append(scenario_result)
    for scenario in sorted(scored | not_scored):
        if scenario not in by_scenario:
            fail(f"{scenario}: required scenario not reported (no result folder)")
    for scenario, reported in sorted(by_scenario.items()):
        if scenario not in scored | not_scored:
            fail(f"{scenario}: unknown scenario reported ({reported[0].folder}); not in the requirement set")
        if len(reported) > 1:
            fail(f"{scenario}: reported {len(reported)} times ({', '.join(r.folder for r in reported)})")
    for scenario_result in results:
        scenario = scenario_result.scenario
        if scenario_result.error:
            fail(f"{scenario}: {scenario_result.error}")
            continue
        if not scenario_result.checks:
            fail(f"{scenario}: checks.json is empty: the scenario has no verdict")
            continue
        if not any(c.get("status") in VERDICTS for c in scenario_result.checks):
            fail(f"{scenario}: no verdict at all (only INFO checks)")
        for check in scenario_result.checks:
            if check.get("status") not in STATUSES:
                fail(f"{scenario}: check {check.get('id')!r} has unknown status {check.get('status')!r}")
            if not isinstance(check.get("id"), str) or not check.get("id"):
                fail(f"{scenario}: a check without an id")
            blocking = blocking_check(scenario, check)
            if blocking:
                kind = "scored" if scenario in scored else "not scored"
                fail(f"{scenario} ({kind}): {blocking}")

    # Exit code, timeouts, client runs.
    exit_code = metadata.get("exit_code")
    scored_failures = sorted(
        {r.scenario for r in results if r.scenario in scored and any(c.get("status") == "FAILURE" for c in r.checks)}
    )
    if metadata.get("timed_out"):
        fail("the referee did not finish within its bound and was killed")
    elif exit_code not in (0, 1):
        fail(f"the referee exited abnormally ({exit_code!r}): usage error, crash or signal")
    elif exit_code != (1 if scored_failures else 0):
        fail(
            f"the referee exited {exit_code} but the scored scenarios have "
            f"{'FAILURE checks in ' + ', '.join(scored_failures) if scored_failures else 'no FAILURE check'}"
        )
    if leg == "client":
        _gate_client_runs(profile_name, profile, evidence_dir, by_scenario, fail)

    # Capabilities.
    observed_capabilities = metadata.get("capabilities")
    drift = capability_drift(profile.get("capabilities"), observed_capabilities)
    if observed_capabilities is None:
        fail("no capability snapshot was taken before the run")
    elif drift:
        fail("capability drift against the baseline snapshot: " + "; ".join(drift))
        for entry in profile.get("classifications") or []:
            relies_on = entry.get("relies_on") if isinstance(entry, dict) else None
            now_there = [p for p in relies_on or [] if isinstance(p, str) and present(observed_capabilities, p)]
            if now_there:
                fail(
                    f"{entry.get('scenario')}: classification of {entry.get('check')} ({entry.get('classification')}) "
                    f"relies on {', '.join(now_there)} being absent, which is now advertised: review it"
                )

    # Classifications: the observed multiset of (scenario, id, status, fingerprint) against the baseline.
    observed: Counter[tuple[str, str, str, str]] = Counter()
    passing: dict[str, set[str]] = defaultdict(set)
    for scenario_result in results:
        for check in scenario_result.checks:
            status, identifier = check.get("status"), str(check.get("id"))
            if status == "SUCCESS":
                passing[scenario_result.scenario].add(identifier)
            if status in NON_SUCCESS:
                digest = fingerprint(check)
                result.fingerprints.append(
                    {
                        "scenario": scenario_result.scenario,
                        "check": identifier,
                        "status": status,
                        "fingerprint": digest,
                        "scored": scenario_result.scenario in scored,
                        "normalised": normalise(check),
                    }
                )
                if scenario_result.scenario in scored:
                    observed[(scenario_result.scenario, identifier, status, digest)] += 1
    entries = [e for e in profile.get("classifications") or [] if isinstance(e, dict)]
    expected: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for entry in entries:
        key = (
            str(entry.get("scenario")),
            str(entry.get("check")),
            str(entry.get("status")),
            str(entry.get("fingerprint")),
        )
        expected.setdefault(key, entry)
    by_check: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for entry in entries:
        by_check[(str(entry.get("scenario")), str(entry.get("check")))].append(entry)
    kinds: Counter[str] = Counter()
    for key, count in sorted(observed.items()):
        scenario, identifier, status, digest = key
        entry = expected.get(key)
        if entry is None:
            others = by_check.get((scenario, identifier), [])
            if any(e.get("status") != status for e in others) and not any(e.get("status") == status for e in others):
                was = ", ".join(sorted({str(e.get("status")) for e in others}))
                fail(f"{scenario}: {identifier} is {status} (x{count}); the baseline classified it as {was}")
            elif others:
                pinned = ", ".join(str(e.get("fingerprint"))[:12] for e in others)
                fail(
                    f"{scenario}: {identifier} {status} (x{count}) has changed evidence: fingerprint {digest[:12]}, "
                    f"the baseline pins {pinned} (diff the normalised evidence in fingerprints.jsonl)"
                )
            else:
                fail(f"{scenario}: {identifier} {status} (x{count}) is not classified (fingerprint {digest})")
            continue
        pinned_count = entry.get("count", 1)
        if pinned_count != count:
            fail(
                f"{scenario}: {identifier} {status} occurs {count} times with this evidence; "
                f"the baseline says {pinned_count}"
            )
        if entry.get("classification") == "inconclusive_infrastructure":
            fail(f"{scenario}: {identifier} is classified inconclusive_infrastructure, which never passes the gate")
        kinds[str(entry.get("classification"))] += count
    for key, entry in expected.items():
        if key in observed:
            continue
        scenario, identifier, status, _digest = key
        same_check = [k for k in observed if k[0] == scenario and k[1] == identifier]
        if same_check:
            continue  # reported above as a changed status or fingerprint
        if identifier in passing.get(scenario, set()):
            fail(f"{scenario}: {identifier} now passes; remove its classification ({entry.get('classification')})")
        else:
            fail(f"{scenario}: {identifier} ({status}) is classified but was not reported: a stale classification")

    result.summary = _summary(profile_name, metadata, results, scored, not_scored, kinds, result.failures)
    return result


def _gate_client_runs(
    profile_name: str,
    profile: dict[str, Any],
    evidence_dir: Path,
    by_scenario: dict[str, list[ScenarioResult]],
    fail: Any,
) -> None:
    path = evidence_dir / "launches.jsonl"
    if not path.is_file():
        fail("no launches.jsonl: the client runs were not recorded")
        return
    launches = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for launch in launches:
        runs[str(launch.get("scenario"))].append(launch)
    exits = profile.get("client_exits") or {}
    for scenario in sorted(by_scenario):
        if not runs.get(scenario):
            fail(f"{scenario}: the client was never run (harness error)")
    for scenario, scenario_runs in sorted(runs.items()):
        if scenario not in by_scenario:
            fail(f"{scenario}: a client run for a scenario that reported nothing")
        for run in scenario_runs:
            if run.get("outcome") != "exited":
                fail(
                    f"{scenario}: the client run {run.get('outcome')} after {run.get('duration')} s "
                    "(timeout or harness error)"
                )
        codes = sorted({run.get("exit") for run in scenario_runs if run.get("outcome") == "exited"}, key=str)
        expected = exits.get(scenario, {}).get("exit", 0) if isinstance(exits.get(scenario), dict) else 0
        for code in codes:
            if code != expected:
                fail(f"{scenario}: the driver exited {code}; the baseline expects {expected} (client_exits)")
    for scenario in exits:
        if scenario not in runs:
            fail(f"{scenario}: client_exits names a scenario whose client did not run")


def _summary(
    profile_name: str,
    metadata: dict[str, Any],
    results: list[ScenarioResult],
    scored: set[str],
    not_scored: set[str],
    kinds: Counter[str],
    failures: list[str],
) -> dict[str, Any]:
    counts: dict[str, Counter[str]] = {"scored": Counter(), "not_scored": Counter()}
    failing: dict[str, list[str]] = {"scored": [], "not_scored": []}
    for scenario_result in results:
        side = "scored" if scenario_result.scenario in scored else "not_scored"
        statuses = Counter(str(c.get("status")) for c in scenario_result.checks)
        counts[side].update(statuses)
        if statuses.get("FAILURE"):
            failing[side].append(scenario_result.scenario)
    return {
        "profile": profile_name,
        "passed": not failures,
        "exit_code": metadata.get("exit_code"),
        "wall_seconds": metadata.get("wall_seconds"),
        "scenarios": {
            "reported": len(results),
            "scored": len([r for r in results if r.scenario in scored]),
            "not_scored": len([r for r in results if r.scenario in not_scored]),
        },
        "checks": {side: dict(sorted(c.items())) for side, c in counts.items()},
        "scenarios_with_failures": {side: sorted(names) for side, names in failing.items()},
        "classifications": dict(sorted(kinds.items())),
        "failures": list(failures),
    }


def write_report(result: GateResult, evidence_dir: Path) -> None:
    (evidence_dir / "gate.json").write_text(
        json.dumps(result.summary, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    (evidence_dir / "fingerprints.jsonl").write_text(
        "".join(json.dumps(f, sort_keys=True, ensure_ascii=False) + "\n" for f in result.fingerprints), encoding="utf-8"
    )
    (evidence_dir / "gate.txt").write_text(render(result) + "\n", encoding="utf-8")


def render(result: GateResult) -> str:
    summary = result.summary
    lines = [f"referee {result.profile}: {'PASS' if result.passed else 'FAIL'}"]
    if summary:
        scenarios = summary["scenarios"]
        lines.append(
            f"  scenarios {scenarios['reported']} "
            f"({scenarios['scored']} scored, {scenarios['not_scored']} not scored); "
            f"exit {summary['exit_code']}; wall {summary['wall_seconds']} s"
        )
        for side in ("scored", "not_scored"):
            counts = ", ".join(f"{k} {v}" for k, v in summary["checks"][side].items()) or "none"
            lines.append(f"  checks, {side.replace('_', ' ')}: {counts}")
        if summary["classifications"]:
            lines.append("  classified: " + ", ".join(f"{k} {v}" for k, v in summary["classifications"].items()))
    lines.extend(f"  FAIL {failure}" for failure in result.failures)
    return "\n".join(lines)
