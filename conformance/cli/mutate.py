"""``make mutate``: the mutation sweep. Beyond each test's declared fault, every tested cell is run under
each generic wire mutation (``harness/faults.py`` MUTATIONS: a member dropped, a type changed, ids
changed, frames duplicated, dropped or reordered, a header corrupted); a test is killed by a mutation
when it fails at its own check under it. The sweep reports, per area, the tests that no mutation kills:
the places where a check may be weaker than its clause. It is a measurement, not a gate.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter, defaultdict

from conformance import PROJECT_ROOT
from conformance.harness.faults import MUTATIONS
from conformance.run import reports, targets

RESULT = PROJECT_ROOT / "reports" / "mutation-sweep.md"


def area_of(node_id: str) -> str:
    """``conformance/test_<area>.py::test_x[<rev>/<area>/<id>...]`` -> the area in its parameter id."""
    return node_id.split("[", 1)[1].split("/")[1] if "[" in node_id else "?"


def run(workers: str, target: str | None, selection: list[str]) -> int:
    profile = targets.load(targets.resolve(target))
    outcomes: dict[str, dict[str, str]] = defaultdict(dict)  # node id -> mutation -> outcome
    for mutation in MUTATIONS:
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-n",
            workers,
            "--dist",
            "worksteal",
            "--mutate",
            mutation,
            *selection,
        ]
        if target:
            command += ["--target", target]
        done = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, check=False)
        path = reports.run_directory(profile, f"mutate-{mutation}") / "mutation.json"
        if done.returncode not in (0, 1) or not path.is_file():
            print(f"mutation {mutation}: the run failed (exit {done.returncode}):\n{done.stdout[-2000:]}")
            return 2
        for node_id, outcome in json.loads(path.read_text(encoding="utf-8")).items():
            outcomes[node_id][mutation] = outcome
        print(f"mutation {mutation}: {dict(Counter(json.loads(path.read_text(encoding='utf-8')).values()))}")
    by_area: dict[str, list[str]] = defaultdict(list)
    survivors: dict[str, list[str]] = defaultdict(list)
    for node_id, seen in sorted(outcomes.items()):
        by_area[area_of(node_id)].append(node_id)
        if "killed" not in seen.values():
            survivors[area_of(node_id)].append(node_id)
    lines = [
        "# Mutation sweep (`make mutate`)",
        "",
        f"Target {profile.name}; {len(MUTATIONS)} mutations ({', '.join(MUTATIONS)}) over {len(outcomes)} tests: "
        f"{len(outcomes) * len(MUTATIONS)} mutants.",
        "",
        "| area | tests | killed by at least one mutation | killed by none |",
        "|---|---|---|---|",
    ]
    for area in sorted(by_area):
        total, alive = len(by_area[area]), len(survivors[area])
        lines.append(f"| {area} | {total} | {total - alive} | {alive} |")
    killed_mutants = sum(v == "killed" for seen in outcomes.values() for v in seen.values())
    lines += ["", f"Mutants killed: {killed_mutants} of {len(outcomes) * len(MUTATIONS)}.", ""]
    lines += ["## Tests no mutation kills", ""]
    lines += [f"- {node_id}" for area in sorted(survivors) for node_id in survivors[area]]
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[: 8 + len(by_area)]))
    print(f"mutants killed: {killed_mutants} of {len(outcomes) * len(MUTATIONS)}; the survivors: {RESULT}")
    return 0
