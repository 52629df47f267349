"""``make stability``: the timing-dependent client tests run N times in a row (20 by default), and every item
whose outcome changed between runs.

The selection is made once, here, from the coverage: the tests covering client cells of the areas whose
tests hang on the order and timing of events (TIMING_AREAS: cancellation, progress, tasks, ping) and of any
other row whose id names a timeout or a race (TIMING_WORDS: the lifecycle's request timeouts, say). Each
repetition is one pytest run of those tests on the target, with pytest-xdist workers; its outcomes are read
from that run's report (``report.json``, conformance/run/reports.py): one item per cell and transport.
The runs' reports go to ``<reports>/stability/`` so that the target's own report is left as it was; each
run's report and pytest output are kept there as ``<target>-run-<n>.json`` and ``.log`` (the evidence of an
outcome that changed).

Exit status: 0 when no item changed, 1 when one did, 2 when a run broke (no report, or pytest failed for
another reason than failing tests).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from conformance import PROJECT_ROOT
from conformance.catalogue.generator import load_requirements
from conformance.matrix.covers import load_coverage
from conformance.run import reports, targets

TIMING_AREAS = ("cancellation", "progress", "tasks", "ping")
TIMING_WORDS = ("timeout", "race")  # a row id word starting with one of these (``lifecycle-request-timeouts``)
TESTS_RAN = (0, 1)  # pytest's exit status when every test ran (1: some failed, which is an outcome like another)
Item = tuple[str, str, str, str]  # requirement, revision, side, transport
Outcomes = dict[Item, str]


def is_timing_dependent(requirement: dict) -> bool:
    words = requirement["id"].split("-")
    return requirement["area"] in TIMING_AREAS or any(w.startswith(TIMING_WORDS) for w in words)


def selected_tests() -> list[str]:
    """The test functions (node ids) covering a timing-dependent client cell."""
    requirements = {r["id"]: r for r in load_requirements()["requirements"]}
    return sorted(
        {
            cover.test
            for cover in load_coverage().covers
            if cover.side == "client"
            and cover.requirement in requirements
            and is_timing_dependent(requirements[cover.requirement])
        }
    )


def outcomes_of(report: dict) -> Outcomes:
    """Each item of a report: a cell's outcome over each transport it ran over (the cell's own without any)."""
    items: Outcomes = {}
    for cell in report["cells"]:
        cell_id = (cell["requirement"], cell["revision"], cell["side"])
        for transport, outcome in (cell["transports"] or {"": cell["outcome"]}).items():
            items[(*cell_id, transport)] = outcome
    return items


def repeat_once(tests: list[str], workers: str, target: str | None, report: Path, log: Path) -> Outcomes | str:
    """One pytest run of ``tests``, its reports under ``report``'s folder and its output in ``log``: its
    items' outcomes, or why there are none."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-n",
        workers,
        "--dist",
        "worksteal",
        *tests,
    ]
    if target:
        command += ["--target", target]
    environment = os.environ | {reports.REPORTS_VARIABLE: str(report.parent.parent)}
    report.unlink(missing_ok=True)
    done = subprocess.run(command, cwd=PROJECT_ROOT, env=environment, capture_output=True, text=True, check=False)
    log.write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode not in TESTS_RAN or not report.is_file():
        return f"the run broke (pytest exit {done.returncode}): see {log}"
    return outcomes_of(json.loads(report.read_text(encoding="utf-8")))


def changed_items(runs: list[Outcomes]) -> dict[Item, list[str]]:
    """Each item whose outcome was not the same in every run, with its outcome run by run (``absent``: the
    run did not report it, as when the worker running it crashed: its log says)."""
    every = sorted({item for run in runs for item in run})
    history = {item: [run.get(item, "absent") for run in runs] for item in every}
    return {item: seen for item, seen in history.items() if len(set(seen)) > 1}


def run(repeat: int, workers: str, target: str | None) -> int:
    # Stopped by a signal, it raises (subprocess.run then kills the pytest run it waits for) instead of
    # dying at once and leaving that run going.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    tests = selected_tests()
    root = reports.reports_root() / "stability"
    root.mkdir(parents=True, exist_ok=True)
    name = reports.run_directory(targets.load(targets.resolve(target))).name
    report = root / name / "report.json"
    print(f"{len(tests)} timing-dependent client tests, {repeat} runs on target {name}, {workers} workers")
    runs: list[Outcomes] = []
    for number in range(1, repeat + 1):
        start = time.perf_counter()
        outcomes = repeat_once(tests, workers, target, report, root / f"{name}-run-{number}.log")
        elapsed = time.perf_counter() - start
        if isinstance(outcomes, str):
            print(f"run {number}: {outcomes}")
            return 2
        shutil.copyfile(report, root / f"{name}-run-{number}.json")
        runs.append(outcomes)
        counts = ", ".join(f"{kind} {n}" for kind, n in sorted(Counter(outcomes.values()).items()))
        print(f"run {number}: {elapsed:.1f} s, {len(outcomes)} items ({counts})", flush=True)
    changed = changed_items(runs)
    if changed:
        print(f"\n{'item (requirement revision side @transport)':86} outcome run by run")
        for (requirement, revision, side, transport), seen in changed.items():
            item = f"{requirement} {revision} {side}" + (f" @{transport}" if transport else "")
            print(f"{item:86} {' '.join(seen)}")
    total = len({item for outcomes in runs for item in outcomes})
    print(f"\n{len(changed)} of {total} items changed outcome over {repeat} runs (reports: {root})")
    return 1 if changed else 0
