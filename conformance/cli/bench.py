"""``make bench``: the time of each stage of the machinery, as the median of several runs,
then the suite itself: base-protocol cells per second, and the wall time of every test.

Budgets on the full catalogue (issue #2): generation under 1 s, the meta-test under 3 s; the
whole matrix in about a minute on a 2-core machine. The offline validator (issue #14): a 100,000-event
trace read and judged in a few seconds, in events per second.
"""

from __future__ import annotations

import os
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from conformance.catalogue import generator
from conformance.catalogue.overrides import load_overrides
from conformance.catalogue.rows import load_catalogue
from conformance.catalogue.spec_pin import PROJECT_ROOT
from conformance.cli import mutate
from conformance.matrix import cells as matrix
from conformance.matrix.build import build
from conformance.matrix.covers import load_coverage


def _median_seconds(stage: Callable[[], object], repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        stage()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def _generate() -> str:
    catalogue = load_catalogue()
    return generator.render_json(generator.generate(catalogue, load_overrides(catalogue)))


def _matrix() -> tuple[str, str]:
    built = build()
    cells = matrix.build_cells(built.requirements["requirements"], load_coverage())
    rows = built.requirements["requirements"]
    return matrix.render_markdown(rows, cells, {}), matrix.render_json(cells, {})


def _meta_test() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "conformance/test_matrix.py"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"the meta-test fails; bench measures a passing tree:\n{result.stdout[-3000:]}")


STAGES: dict[str, Callable[[], object]] = {
    "parse the catalogue": load_catalogue,
    "generate requirements.json": _generate,
    "build and render the matrix": _matrix,
    "meta-test (pytest conformance/test_matrix.py)": _meta_test,
}


BASE_PROTOCOL_MODULES = (
    "conformance/test_errors.py",
    "conformance/test_http_sse.py",
    "conformance/test_lifecycle.py",
    "conformance/test_messages.py",
    "conformance/test_meta.py",
    "conformance/test_ping.py",
    "conformance/test_stdio.py",
    "conformance/test_streamable_http.py",
    "conformance/test_streamable_http_headers.py",
    "conformance/test_transports.py",
    "conformance/test_versioning.py",
)
_COUNTS = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|error|errors|deselected)")
# pytest-xdist workers, as `make` runs them (WORKERS in the Makefile): the tests mostly wait on their
# peers, so more workers than cores keeps both cores busy.
WORKERS = os.environ.get("WORKERS", "8")


def _timed_pytest(*args: str) -> tuple[float, float, dict[str, int]]:
    """Wall time and CPU time (user and system, of pytest and every process it waited for: its workers, the
    servers and clients they ran) of one pytest run on WORKERS workers, and its closing counts."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", WORKERS, "--dist", "worksteal", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    closing = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    return elapsed, cpu, {kind: int(n) for n, kind in _COUNTS.findall(closing)}


def run(repeat: int) -> None:
    built = build()
    requirements, cells = len(built.catalogue.requirements), len(built.cells)
    print(f"catalogue: {requirements} requirements, {cells} cells; median of {repeat} runs")
    for name, stage in STAGES.items():
        print(f"{name:48} {_median_seconds(stage, repeat):8.3f} s", flush=True)
    from conformance.validator import bench as validator_bench

    validator_bench.main()  # the offline validator on a generated 100,000-event trace (issue #14)
    elapsed, _, counts = _timed_pytest(*BASE_PROTOCOL_MODULES)
    cells = sum(counts.get(kind, 0) for kind in ("passed", "failed", "xfailed", "xpassed"))
    print(f"{'base-protocol cells run (both sides, all transports)':48} {cells:8d}    ({counts})")
    rate = f"{cells / elapsed:8.1f}    ({elapsed:.1f} s wall)"
    print(f"{f'base-protocol cells per second ({WORKERS} workers)':48} {rate}")
    for title, args in (
        ("the suite (pytest conformance)", ("conformance",)),
        ("every test (pytest tests conformance)", ("tests", "conformance")),
        ("make falsify (pytest --strict --falsify conformance)", ("--strict", "--falsify", "conformance")),
    ):
        elapsed, cpu, counts = _timed_pytest(*args)
        items = max(1, sum(counts.values()))
        print(f"{f'{title}, {WORKERS} workers':48} {elapsed:8.1f} s  ({counts})")
        print(f"{'    items per second; CPU per item':48} {items / elapsed:8.1f}    {1000 * cpu / items:.0f} ms")
    sweep = mutate.RESULT
    if sweep.is_file():  # the sweep takes minutes: its last figures are shown, it is not rerun (make mutate)
        killed = next(
            (line for line in sweep.read_text(encoding="utf-8").splitlines() if line.startswith("Mutants")), ""
        )
        print(f"{'mutation sweep (last make mutate)':48} {killed}")
    else:
        print(f"{'mutation sweep':48} not run yet (make mutate)")
