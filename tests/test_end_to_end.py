"""The meta-test on a copy of this project: the promises of issue #2, shown on the real tree."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from conformance.catalogue.spec_pin import PROJECT_ROOT, read_lock
from tests.project_copy import pytest_in

GENERATED = ("conformance/requirements.json", "docs/spec/conformance-matrix.md", "docs/spec/conformance-matrix.json")


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


ECHO_TEST = "conformance/test_lifecycle.py::test_initialize_echoes_a_supported_requested_version"
RESULT_TEST = "conformance/test_lifecycle.py::test_results_keep_to_the_negotiated_revision"  # F-001 at 2025-06-18


def test_a_gapped_cell_runs_and_must_fail_and_a_stale_gap_fails_the_run(project: Path) -> None:
    """Gapped cells run as strict expected failures: F-001's cells fail as they must; a gap put on a
    cell that passes fails the run, named as a stale gap."""
    with (project / "coverage" / "lifecycle.py").open("a") as coverage:
        coverage.write(
            'GAPS.append(Gap("lifecycle-server-version-echo", "server", "F-001", "said to break", "2025-06-18"))\n'
        )
    result = pytest_in(project, "-rA", "-p", "no:xdist", ECHO_TEST, RESULT_TEST)
    assert result.returncode == 1
    assert (
        "XFAIL conformance/test_lifecycle.py::test_results_keep_to_the_negotiated_revision[2025-06-18" in result.stdout
    )
    stale = [line for line in result.stdout.splitlines() if line.startswith("FAILED ")]
    assert stale and all("test_initialize_echoes_a_supported_requested_version[2025-06-18/" in line for line in stale)
    assert "stale gap: this cell passes, so its gap is wrong; remove it (gap: F-001 said to break)" in result.stdout


def test_run_gaps_runs_gapped_cells_as_ordinary_tests(tmp_path: Path) -> None:
    """RUN_GAPS=1 shows why a gapped cell fails: its assertion, not an expected failure. (Its report goes
    apart: the run that runs this test may hold this checkout's own report directory.)"""
    reports = str(tmp_path)
    result = pytest_in(PROJECT_ROOT, "-rA", "-p", "no:xdist", RESULT_TEST, RUN_GAPS="1", MCP_MATRIX_REPORTS=reports)
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED ")]
    assert result.returncode == 1 and failed and "XFAIL" not in result.stdout
    assert all("2024-11-05" in line or "2025-0" in line for line in failed), failed


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


def test_a_fault_caught_only_by_the_harness_is_a_survivor(project: Path) -> None:
    """Falsified means failing at the test's own check: a fault that breaks the frame so that the peer
    refuses it (not JSON) never reaches the check on the version, so the test survives it, named."""
    coverage = project / "coverage" / "lifecycle.py"
    text = coverage.read_text()
    damaged = 'fault=set_field("initialize", "result.protocolVersion", UNKNOWN_VERSION),'
    assert damaged in text
    text = text.replace(damaged, 'fault=Fault("corrupt", "initialize"),', 1)
    coverage.write_text("from conformance.harness.faults import Fault\n" + text)
    result = pytest_in(project, "--falsify", "conformance/test_lifecycle.py", "-k", "echoes")
    assert result.returncode == 1, result.stdout[-2000:]
    assert "survived its fault (corrupt in the answer to initialize): it failed elsewhere than at its check" in (
        result.stdout
    )
    assert "ProtocolViolation at peer.py" in result.stdout


def test_run_selects_exactly_the_tests_covering_the_given_ids_and_areas() -> None:
    from conformance.cli.main import covering_node_ids
    from conformance.matrix.covers import load_coverage

    assert covering_node_ids(["lifecycle-server-version-echo"]) == [
        "conformance/test_lifecycle.py::test_initialize_echoes_a_supported_requested_version"
    ]
    lifecycle_tests = {c.test for c in load_coverage().covers if c.requirement.startswith("lifecycle-")}
    assert set(covering_node_ids(["lifecycle"])) == lifecycle_tests
    with pytest.raises(SystemExit, match="neither a requirement id nor an area: nonsense"):
        covering_node_ids(["nonsense"])
