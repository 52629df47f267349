"""The referee gate, on small synthetic checks.json trees: no network, no Node, no referee.

Each test builds the evidence folder of one run (raw/<scenario>-<time>/checks.json, metadata.json,
launches.jsonl for the client leg) and a baseline profile, and asserts what the gate says.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conformance.referee.evidence import fingerprint, normalise, scenario_of
from conformance.referee.gate import gate, render

STAMP = "2026-01-02T03-04-05-678Z"
CAPABILITIES = {"method": "server/discover", "capabilities": {"tools": {"listChanged": True}}}
REQUIREMENT_SET = {"scored": ["tools-list", "ping"], "not_scored": ["tasks-lifecycle"]}


def check(identifier: str, status: str = "SUCCESS", message: str | None = None, **extra: Any) -> dict[str, Any]:
    made = {"id": identifier, "name": identifier, "description": f"about {identifier}", "status": status}
    made["timestamp"] = "2026-01-02T03:04:05.678Z"
    if message is not None:
        made["errorMessage"] = message
    made.update(extra)
    return made


def passing() -> dict[str, list[dict[str, Any]]]:
    return {
        "tools-list": [check("tools-list"), check("wire-schema-valid")],
        "ping": [check("ping")],
        "tasks-lifecycle": [
            check("tasks-extension-advertised", "FAILURE", "capabilities.extensions MUST be advertised")
        ],
    }


def write_run(
    root: Path,
    scenarios: dict[str, Any],
    leg: str = "server",
    exit_code: int | None = 0,
    capabilities: Any = CAPABILITIES,
    **metadata: Any,
) -> Path:
    """An evidence folder: one result folder per scenario (a list of checks, a raw string, or None for
    a folder without checks.json), and metadata.json."""
    evidence = root / "evidence"
    for scenario, checks in scenarios.items():
        folder = evidence / "raw" / f"{'server-' if leg == 'server' else ''}{scenario}-{STAMP}"
        folder.mkdir(parents=True)
        if checks is None:
            continue
        text = checks if isinstance(checks, str) else json.dumps(checks)
        (folder / "checks.json").write_text(text)
    (evidence / "raw").mkdir(parents=True, exist_ok=True)
    data = {"profile": "p", "leg": leg, "exit_code": exit_code, "capabilities": capabilities, "wall_seconds": 1.0}
    data.update(metadata)
    (evidence / "metadata.json").write_text(json.dumps(data))
    return evidence


def profile(classifications: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    made = {
        "leg": "server",
        "requirements": "2026-07-28",
        "scored": list(REQUIREMENT_SET["scored"]),
        "not_scored": list(REQUIREMENT_SET["not_scored"]),
        "capabilities": copy.deepcopy(CAPABILITIES),
        "classifications": classifications or [],
    }
    made.update(extra)
    return made


def classify(scenario: str, observed: dict[str, Any], classification: str = "missing_harness_fixture", **extra: Any):
    entry = {
        "scenario": scenario,
        "check": observed["id"],
        "status": observed["status"],
        "fingerprint": fingerprint(observed),
        "classification": classification,
        "reason": "the fixture lacks what the check needs",
    }
    entry.update(extra)
    return entry


def failures_of(tmp_path: Path, scenarios: dict[str, Any], baseline: dict[str, Any], **run: Any) -> list[str]:
    return gate("p", baseline, write_run(tmp_path, scenarios, **run), REQUIREMENT_SET).failures


def one_failure_matching(failures: list[str], *words: str) -> str:
    matching = [f for f in failures if all(w in f for w in words)]
    assert matching, f"no failure mentions {words}: {failures}"
    return matching[0]


# ---------------------------------------------------------------------------------------------


def test_a_clean_run_passes_and_is_summarised(tmp_path: Path) -> None:
    result = gate("p", profile(), write_run(tmp_path, passing()), REQUIREMENT_SET)
    assert result.failures == []
    assert result.summary["scenarios"] == {"reported": 3, "scored": 2, "not_scored": 1}
    assert result.summary["checks"] == {"scored": {"SUCCESS": 3}, "not_scored": {"FAILURE": 1}}
    assert "PASS" in render(result)


def test_a_not_scored_failure_needs_no_classification_and_consumes_none(tmp_path: Path) -> None:
    scenarios = passing()
    entry = classify("tasks-lifecycle", scenarios["tasks-lifecycle"][0])
    failures = failures_of(tmp_path, scenarios, profile([entry]))
    one_failure_matching(failures, "tasks-lifecycle", "not-scored scenario")


def test_all_skipped_output_fails_until_each_skip_is_classified(tmp_path: Path) -> None:
    scenarios = passing()
    scenarios["tools-list"] = [check("tools-list", "SKIPPED", "not exercised"), check("wire-schema-valid", "SKIPPED")]
    scenarios["ping"] = [check("ping", "SKIPPED", "not exercised")]
    failures = failures_of(tmp_path, scenarios, profile())
    assert len([f for f in failures if "SKIPPED (x1) is not classified" in f]) == 3
    entries = [
        classify(name, c, "harness_limitation_pending") for name in ("tools-list", "ping") for c in scenarios[name]
    ]
    assert failures_of(tmp_path / "again", scenarios, profile(entries)) == []


def test_a_required_scenario_that_is_missing_fails(tmp_path: Path) -> None:
    scenarios = passing()
    del scenarios["ping"]
    one_failure_matching(failures_of(tmp_path, scenarios, profile()), "ping", "not reported")


def test_a_scenario_without_checks_json_or_with_an_empty_one_fails(tmp_path: Path) -> None:
    scenarios = passing()
    scenarios["ping"] = None
    scenarios["tools-list"] = []
    failures = failures_of(tmp_path, scenarios, profile())
    one_failure_matching(failures, "ping", "no checks.json")
    one_failure_matching(failures, "tools-list", "empty")


def test_a_scenario_with_only_info_lines_has_no_verdict(tmp_path: Path) -> None:
    scenarios = passing()
    scenarios["ping"] = [check("incoming-request", "INFO")]
    one_failure_matching(failures_of(tmp_path, scenarios, profile()), "ping", "no verdict")


def test_an_unparseable_checks_json_fails(tmp_path: Path) -> None:
    scenarios = passing()
    scenarios["ping"] = "{not json"
    one_failure_matching(failures_of(tmp_path, scenarios, profile()), "ping", "does not parse")


def test_an_unknown_or_duplicated_scenario_fails(tmp_path: Path) -> None:
    evidence = write_run(tmp_path, {**passing(), "made-up": [check("x")]})
    twice = evidence / "raw" / "server-ping-2026-01-02T03-04-06-000Z"
    twice.mkdir()
    (twice / "checks.json").write_text(json.dumps([check("ping")]))
    failures = gate("p", profile(), evidence, REQUIREMENT_SET).failures
    one_failure_matching(failures, "made-up", "unknown scenario")
    one_failure_matching(failures, "ping", "reported 2 times")


def test_an_unknown_status_fails(tmp_path: Path) -> None:
    scenarios = passing()
    scenarios["ping"] = [check("ping", "PASSED")]
    one_failure_matching(failures_of(tmp_path, scenarios, profile()), "ping", "unknown status 'PASSED'")


@pytest.mark.parametrize(
    ("exit_code", "timed_out", "words"),
    [
        pytest.param(137, False, ("exited abnormally", "137"), id="killed"),
        pytest.param(None, True, ("killed",), id="timed-out"),
        pytest.param(1, False, ("exited 1", "no FAILURE"), id="exit-1-without-scored-failures"),
        pytest.param(2, False, ("exited abnormally",), id="usage-error"),
    ],
)
def test_an_abnormal_exit_fails(tmp_path: Path, exit_code: int | None, timed_out: bool, words: tuple[str, ...]) -> None:
    failures = failures_of(tmp_path, passing(), profile(), exit_code=exit_code, timed_out=timed_out)
    one_failure_matching(failures, *words)


def test_exit_0_with_a_classified_scored_failure_disagrees(tmp_path: Path) -> None:
    scenarios = passing()
    scenarios["ping"] = [check("ping", "FAILURE", "no answer")]
    baseline = profile([classify("ping", scenarios["ping"][0])])
    one_failure_matching(failures_of(tmp_path, scenarios, baseline, exit_code=0), "exited 0", "FAILURE checks in ping")
    assert failures_of(tmp_path / "again", scenarios, baseline, exit_code=1) == []


def test_changed_evidence_fails_with_both_fingerprints(tmp_path: Path) -> None:
    scenarios = passing()
    before = check("ping", "FAILURE", "Expected InputRequiredResult")
    scenarios["ping"] = [check("ping", "FAILURE", "Expected something else")]
    failure = one_failure_matching(
        failures_of(tmp_path, scenarios, profile([classify("ping", before)]), exit_code=1), "changed evidence"
    )
    assert fingerprint(before)[:12] in failure and fingerprint(scenarios["ping"][0])[:12] in failure


def test_a_changed_status_fails(tmp_path: Path) -> None:
    scenarios = passing()
    warned = check("ping", "WARNING", "late")
    scenarios["ping"] = [check("ping", "FAILURE", "late")]
    failures = failures_of(tmp_path, scenarios, profile([classify("ping", warned)]), exit_code=1)
    one_failure_matching(failures, "ping is FAILURE", "classified it as WARNING")


def test_a_classification_whose_check_now_passes_is_stale(tmp_path: Path) -> None:
    old = check("ping", "FAILURE", "no answer")
    one_failure_matching(failures_of(tmp_path, passing(), profile([classify("ping", old)])), "now passes")


def test_a_classification_whose_check_disappeared_is_stale(tmp_path: Path) -> None:
    gone = check("ping-twice", "WARNING", "slow")
    failures = failures_of(tmp_path, passing(), profile([classify("ping", gone)]))
    one_failure_matching(failures, "ping-twice", "not reported", "stale")


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        pytest.param("check", "*", ("wildcard",), id="whole-scenario-wildcard"),
        pytest.param("check", "sep-2322-*", ("wildcard",), id="id-glob"),
        pytest.param("scenario", "tasks-lifecycle", ("not-scored",), id="not-scored-scenario"),
        pytest.param("scenario", "made-up", ("not in the profile's scored set",), id="unknown-scenario"),
        pytest.param("status", "SUCCESS", ("only FAILURE, WARNING, SKIPPED",), id="success-status"),
        pytest.param("fingerprint", "abc", ("no sha256 fingerprint",), id="short-fingerprint"),
        pytest.param("classification", "flaky", ("classification 'flaky'",), id="unknown-classification"),
        pytest.param("count", 0, ("count 0",), id="zero-count"),
    ],
)
def test_a_broad_or_malformed_classification_fails(
    tmp_path: Path, field: str, value: Any, words: tuple[str, ...]
) -> None:
    scenarios = passing()
    scenarios["ping"] = [check("ping", "FAILURE", "no answer")]
    entry = classify("ping", scenarios["ping"][0])
    entry[field] = value
    one_failure_matching(failures_of(tmp_path, scenarios, profile([entry]), exit_code=1), *words)


def test_a_genuine_failure_must_name_an_existing_finding(tmp_path: Path) -> None:
    scenarios = passing()
    scenarios["ping"] = [check("ping", "FAILURE", "no answer")]
    without = classify("ping", scenarios["ping"][0], "genuine_protocol_failure")
    one_failure_matching(failures_of(tmp_path, scenarios, profile([without]), exit_code=1), "without a finding")
    unknown = classify("ping", scenarios["ping"][0], "genuine_protocol_failure", finding="F-999")
    one_failure_matching(failures_of(tmp_path / "b", scenarios, profile([unknown]), exit_code=1), "'F-999'")
    known = classify("ping", scenarios["ping"][0], "genuine_protocol_failure", finding="F-020")
    assert failures_of(tmp_path / "c", scenarios, profile([known]), exit_code=1) == []


def test_inconclusive_infrastructure_never_passes(tmp_path: Path) -> None:
    scenarios = passing()
    scenarios["ping"] = [check("ping", "FAILURE", "no answer")]
    entry = classify("ping", scenarios["ping"][0], "inconclusive_infrastructure")
    one_failure_matching(failures_of(tmp_path, scenarios, profile([entry]), exit_code=1), "never passes")


def test_a_check_id_repeated_with_the_same_evidence_is_pinned_by_count(tmp_path: Path) -> None:
    scenarios = passing()
    skipped = check("sep-2243-client-includes-standard-headers", "SKIPPED", "not exercised for this method")
    scenarios["tools-list"] = [check("tools-list"), skipped, copy.deepcopy(skipped)]
    once = classify("tools-list", skipped, "harness_limitation_pending")
    one_failure_matching(failures_of(tmp_path, scenarios, profile([once])), "occurs 2 times", "says 1")
    twice = {**once, "count": 2}
    assert failures_of(tmp_path / "again", scenarios, profile([twice])) == []
    listed_twice = failures_of(tmp_path / "third", scenarios, profile([once, dict(once)]))
    one_failure_matching(listed_twice, "listed twice", "use count")


def test_a_check_id_repeated_with_different_evidence_needs_one_entry_each(tmp_path: Path) -> None:
    scenarios = passing()
    first = check("sep-2243-client-includes-standard-headers", "SKIPPED", "no initialize request")
    second = check("sep-2243-client-includes-standard-headers", "SKIPPED", "no prompts/get request")
    scenarios["tools-list"] = [check("tools-list"), first, second]
    only_first = [classify("tools-list", first, "harness_limitation_pending")]
    failures = failures_of(tmp_path, scenarios, profile(only_first))
    assert len(failures) == 1 and "changed evidence" in failures[0]
    both = [*only_first, classify("tools-list", second, "harness_limitation_pending")]
    assert failures_of(tmp_path / "again", scenarios, profile(both)) == []


@pytest.mark.parametrize(
    ("scenario", "observed", "words"),
    [
        pytest.param(
            "ping", check("scenario-timeout", "FAILURE", "did not complete within"), ("timeout",), id="timeout"
        ),
        pytest.param(
            "tasks-lifecycle",
            check("scenario-timeout", "FAILURE", "did not complete"),
            ("not scored", "timeout"),
            id="nsc",
        ),
        pytest.param("ping", check("ping", "FAILURE", "Failed: fetch failed"), ("transport exception",), id="fetch"),
        pytest.param(
            "ping", check("ping", "FAILURE", "boom", description="Failed to run scenario"), ("threw",), id="threw"
        ),
        pytest.param(
            "ping", check("wire-schema-harness-error", "FAILURE", "bad frame"), ("harness error",), id="harness-frame"
        ),
    ],
)
def test_timeouts_transport_exceptions_and_harness_errors_block_even_when_classified(
    tmp_path: Path, scenario: str, observed: dict[str, Any], words: tuple[str, ...]
) -> None:
    scenarios = passing()
    scenarios[scenario] = [check(scenario if scenario != "tasks-lifecycle" else "x"), observed]
    entries = [classify(scenario, observed, "inconclusive_infrastructure")] if scenario == "ping" else []
    failures = failures_of(tmp_path, scenarios, profile(entries), exit_code=1)
    one_failure_matching(failures, scenario, *words)


def test_capability_drift_fails_and_names_the_classifications_that_rely_on_an_absent_capability(tmp_path: Path) -> None:
    scenarios = passing()
    scenarios["ping"] = [check("ping", "FAILURE", "tasks not advertised")]
    entry = classify(
        "ping", scenarios["ping"][0], "optional_capability_not_implemented", relies_on=["/capabilities/extensions"]
    )
    assert failures_of(tmp_path, scenarios, profile([entry]), exit_code=1) == []
    drifted = {
        "method": "server/discover",
        "capabilities": {"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
    }
    failures = failures_of(tmp_path / "drift", scenarios, profile([entry]), exit_code=1, capabilities=drifted)
    one_failure_matching(failures, "capability drift", "/capabilities/tools/listChanged was true, now absent")
    one_failure_matching(failures, "relies on /capabilities/extensions", "review it")


def test_an_optional_capability_classification_must_name_an_absent_capability(tmp_path: Path) -> None:
    scenarios = passing()
    scenarios["ping"] = [check("ping", "FAILURE", "no tasks")]
    none_named = classify("ping", scenarios["ping"][0], "optional_capability_not_implemented")
    one_failure_matching(failures_of(tmp_path, scenarios, profile([none_named]), exit_code=1), "names no absent")
    present = {**none_named, "relies_on": ["/capabilities/tools"]}
    one_failure_matching(failures_of(tmp_path / "b", scenarios, profile([present]), exit_code=1), "snapshot has it")


def test_no_capability_snapshot_fails(tmp_path: Path) -> None:
    one_failure_matching(failures_of(tmp_path, passing(), profile(), capabilities=None), "no capability snapshot")


def test_a_baseline_requirement_list_that_differs_from_the_referee_set_fails(tmp_path: Path) -> None:
    baseline = profile(scored=["tools-list"])
    one_failure_matching(failures_of(tmp_path, passing(), baseline), "scored differs", "missing ['ping']")


def test_a_run_that_did_not_complete_fails(tmp_path: Path) -> None:
    failures = failures_of(tmp_path, passing(), profile(), run_error="the fixture server did not start")
    one_failure_matching(failures, "did not complete", "fixture server")


def test_no_metadata_means_no_run(tmp_path: Path) -> None:
    (tmp_path / "raw").mkdir()
    one_failure_matching(gate("p", profile(), tmp_path, REQUIREMENT_SET).failures, "no metadata.json")


# --- the client leg: its record of client runs -------------------------------------------------


def client_run(tmp_path: Path, launches: list[dict[str, Any]], baseline: dict[str, Any]) -> list[str]:
    scenarios = {"tools-list": [check("tools-list")], "ping": [check("ping")], "tasks-lifecycle": [check("t")]}
    evidence = write_run(tmp_path, scenarios, leg="client")
    (evidence / "launches.jsonl").write_text("".join(json.dumps(launch) + "\n" for launch in launches))
    return gate("p", {**baseline, "leg": "client"}, evidence, REQUIREMENT_SET).failures


def launch(scenario: str, outcome: str = "exited", exit_code: int | None = 0) -> dict[str, Any]:
    return {"scenario": scenario, "outcome": outcome, "exit": exit_code, "duration": 0.5}


def test_every_client_run_exits_as_the_baseline_expects(tmp_path: Path) -> None:
    runs = [launch("tools-list"), launch("ping"), launch("tasks-lifecycle", exit_code=1)]
    one_failure_matching(client_run(tmp_path, runs, profile()), "tasks-lifecycle", "driver exited 1", "expects 0")
    exits = {"tasks-lifecycle": {"exit": 1, "reason": "an extension the driver does not play"}}
    assert client_run(tmp_path / "b", runs, profile(client_exits=exits)) == []
    stale = {**exits, "ping": {"exit": 1, "reason": "was refused"}}
    one_failure_matching(client_run(tmp_path / "c", runs, profile(client_exits=stale)), "ping", "driver exited 0")


@pytest.mark.parametrize("outcome", ["timeout", "launcher-gone", "abandoned", "signalled"])
def test_a_client_run_that_did_not_exit_blocks(tmp_path: Path, outcome: str) -> None:
    runs = [launch("tools-list"), launch("ping", outcome, None), launch("tasks-lifecycle")]
    one_failure_matching(client_run(tmp_path, runs, profile()), "ping", outcome)


def test_a_scenario_whose_client_never_ran_blocks(tmp_path: Path) -> None:
    runs = [launch("tools-list"), launch("tasks-lifecycle")]
    one_failure_matching(client_run(tmp_path, runs, profile()), "ping", "never run")


# --- evidence: folders and fingerprints --------------------------------------------------------


def test_the_scenario_comes_from_the_folder_name() -> None:
    assert scenario_of(f"server-server-stateless-{STAMP}", "server") == "server-stateless"
    assert scenario_of(f"auth/iss-supported-{STAMP}", "client") == "auth/iss-supported"
    assert scenario_of(f"tools_call-{STAMP}", "client") == "tools_call"
    assert scenario_of("tools_call", "client") is None
    assert scenario_of(f"ping-{STAMP}", "server") is None  # a server folder always starts with server-


def test_fingerprints_ignore_timestamps_ports_session_ids_and_durations() -> None:
    first = check(
        "client-sse-retry-timing",
        "WARNING",
        "Client reconnected slightly late (740ms instead of 500ms) to http://localhost:35785/mcp",
        details={"actualDelayMs": 740, "mcp-session-id": "a1b2", "session": "session-1764460000123", "code": -32602},
    )
    second = copy.deepcopy(first)
    second.update(timestamp="2027-05-06T07:08:09.000Z", errorMessage=first["errorMessage"].replace("740ms", "812ms"))
    second["errorMessage"] = second["errorMessage"].replace("35785", "41234")
    second["details"].update({"actualDelayMs": 812, "mcp-session-id": "ffee", "session": "session-1764460999999"})
    assert fingerprint(first) == fingerprint(second)
    assert normalise(first)["details"]["code"] == -32602  # an error code is evidence, not noise
    different = copy.deepcopy(first)
    different["details"]["code"] = -32603
    assert fingerprint(different) != fingerprint(first)


def test_the_committed_baseline_is_well_formed() -> None:
    """Every profile of referee/baseline.yaml validates (against its own lists: the referee itself is not needed)."""
    import yaml

    from conformance.referee import BASELINE, PROFILES
    from conformance.referee.gate import validate_profile

    data = yaml.safe_load(BASELINE.read_text(encoding="utf-8"))
    assert sorted(data["profiles"]) == sorted(PROFILES)
    for name, entry in data["profiles"].items():
        own_lists = {"scored": entry["scored"], "not_scored": entry["not_scored"]}
        assert validate_profile(name, entry, own_lists) == [], name
