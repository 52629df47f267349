"""The meta-test on a copy of this project: the promises of issue #2, shown on the real tree."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.spec_pin import DEFAULT_CACHE, PROJECT_ROOT, read_lock

IGNORED = shutil.ignore_patterns(".venv", ".cache", ".git", "reports", "__pycache__", ".pytest_cache", ".hypothesis")
GENERATED = ("conformance/requirements.json", "docs/spec/conformance-matrix.md", "docs/spec/conformance-matrix.json")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project that shares this checkout's verified spec cache."""
    copy = tmp_path / "project"
    shutil.copytree(PROJECT_ROOT, copy, ignore=IGNORED)
    return copy


def pytest_in(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = os.environ | {"MCP_SPEC_CACHE": str(DEFAULT_CACHE), **env}
    for name in ("RUN_GAPS", "MATRIX_UPDATE", "MATRIX_AREAS"):
        if name not in env:
            environment.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *args],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


def digests(project: Path) -> dict[str, str]:
    return {name: hashlib.sha256((project / name).read_bytes()).hexdigest() for name in GENERATED}


def test_matrix_update_on_an_unchanged_tree_changes_no_file(project: Path) -> None:
    read_lock()  # the copy shares the spec cache; make sure the lock is readable first
    before = digests(project)
    result = pytest_in(project, "conformance/test_matrix.py", MATRIX_UPDATE="1")
    assert result.returncode == 0, result.stdout[-3000:]
    assert digests(project) == before


def test_deleting_a_cover_fails_the_meta_test_naming_the_cell(project: Path) -> None:
    coverage = project / "coverage" / "lifecycle.py"
    text = coverage.read_text()
    cover = re.search(r"\n    Cover\(\n        \"lifecycle-server-version-echo\",.*?\n    \),", text, re.DOTALL)
    assert cover is not None, "the cover to delete is not where this test expects it"
    coverage.write_text(text.replace(cover.group(0), ""))
    result = pytest_in(project, "conformance/test_matrix.py")
    assert result.returncode == 1
    assert "MISSING 2025-11-25 server MUST lifecycle-server-version-echo" in result.stdout


def test_a_cover_for_a_misspelt_test_fails_the_meta_test_naming_the_cover(project: Path) -> None:
    coverage = project / "coverage" / "lifecycle.py"
    coverage.write_text(
        coverage.read_text().replace("test_initialize_echoes_a_supported", "test_initialise_echoes_a_supported")
    )
    result = pytest_in(project, "conformance/test_matrix.py")
    assert result.returncode == 1
    assert "coverage/lifecycle.py:" in result.stdout
    assert "cover lifecycle-server-version-echo / server: pytest collects no" in result.stdout
    assert (
        "test_initialise_echoes_a_supported_requested_version[<rev>/lifecycle/lifecycle-server-version-echo]"
        in result.stdout
    )


def test_run_gaps_runs_the_gapped_cells_and_they_still_fail() -> None:
    """RUN_GAPS=1 runs every gapped cell that has a test; a gapped cell that passes is a stale gap."""
    result = pytest_in(PROJECT_ROOT, "-rA", "-m", "gapped", "conformance", RUN_GAPS="1")
    passed = [line for line in result.stdout.splitlines() if line.startswith("PASSED ")]
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED ")]
    assert not passed, "stale gaps (they pass under RUN_GAPS=1; remove them):\n" + "\n".join(passed)
    assert len(failed) >= 4, f"expected the gapped cells of F-001 and F-002 to run and fail:\n{result.stdout[-3000:]}"


def test_a_test_that_survives_its_fault_fails_make_falsify(project: Path) -> None:
    coverage = project / "coverage" / "lifecycle.py"
    harmless = 'fault=set_field("initialize", "result.instructions", "harmless"),'
    text = coverage.read_text()
    damaged = 'fault=set_field("initialize", "result.protocolVersion", UNKNOWN_VERSION),'
    assert damaged in text
    coverage.write_text(text.replace(damaged, harmless, 1))
    result = pytest_in(project, "--falsify", "conformance/test_lifecycle.py", "-k", "echoes")
    assert result.returncode == 1
    assert "survived its fault (set result.instructions = 'harmless' in the answer to initialize)" in result.stdout


def test_run_selects_exactly_the_tests_covering_the_given_ids_and_areas() -> None:
    from conformance.cli import covering_node_ids
    from conformance.covers import load_coverage

    assert covering_node_ids(["lifecycle-server-version-echo"]) == [
        "conformance/test_lifecycle.py::test_initialize_echoes_a_supported_requested_version"
    ]
    lifecycle_tests = {c.test for c in load_coverage().covers if c.requirement.startswith("lifecycle-")}
    assert set(covering_node_ids(["lifecycle"])) == lifecycle_tests
    with pytest.raises(SystemExit, match="neither a requirement id nor an area: nonsense"):
        covering_node_ids(["nonsense"])
