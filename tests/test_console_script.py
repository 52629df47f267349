"""``mcp-matrix``, the console script (conformance/cli/run.py): its exit codes, and the wheel that carries
it, built from this checkout, installed into a fresh virtual environment and run from elsewhere."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conformance import PROJECT_ROOT
from conformance.catalogue.spec_pin import DEFAULT_CACHE, DEFAULT_MIRROR, read_lock
from conformance.cli import run
from conformance.run import plugin
from conformance.run.revisions import spoken_by
from conformance.run.targets import Target

HEADLINE_START = "MUST: "
# What a run reads besides the package's code, where PROJECT_ROOT finds it (a sample: one of each kind).
CARRIED = (
    "pyproject.toml",
    "conformance/requirements.json",
    "conformance/spec.lock.json",
    "conformance/run/report.schema.json",
    "conformance/test_lifecycle.py",
    "conformance/fixtures/server.py",
    "conformance/fixtures/client.py",
    "coverage/lifecycle.py",
    "docs/spec/requirements.md",
    "targets/sdk-python.yaml",
)
SLICE = "lifecycle-initialize-first"  # 14 cells over both transports: a few seconds


def clean_environment(**env: str) -> dict[str, str]:
    """This environment without what would steer the run under test: the outer pytest's and the suite's
    own variables (a run writes to ./reports of its directory unless told otherwise)."""
    drop = ("PYTEST_", "MCP_MATRIX_", "RUN_GAPS", "MATRIX_", "PYTHONPATH", "VIRTUAL_ENV")
    return {k: v for k, v in os.environ.items() if not k.startswith(drop)} | env


def test_meta_tests_left_out_are_the_plugins() -> None:
    assert run.META_TESTS == plugin.META_TESTS


@pytest.mark.parametrize(
    ("status", "internal_error", "interrupted", "code"),
    [
        pytest.param(pytest.ExitCode.OK, False, False, 0, id="no-must-failure"),
        pytest.param(pytest.ExitCode.TESTS_FAILED, False, False, 1, id="must-failures"),
        pytest.param(pytest.ExitCode.USAGE_ERROR, False, False, 2, id="bad-profile"),
        pytest.param(pytest.ExitCode.NO_TESTS_COLLECTED, False, False, 2, id="nothing-selected"),
        pytest.param(plugin.EXIT_UNREACHABLE, False, False, 3, id="unreachable"),
        pytest.param(pytest.ExitCode.INTERNAL_ERROR, True, False, 4, id="internal-error"),
        pytest.param(pytest.ExitCode.INTERRUPTED, False, False, 4, id="collection-errors"),
        pytest.param(pytest.ExitCode.INTERRUPTED, False, True, 130, id="interrupted"),
    ],
)
def test_pytests_exit_status_becomes_the_documented_code(
    status: int, internal_error: bool, interrupted: bool, code: int
) -> None:
    outcome = run.Outcome()
    outcome.internal_error, outcome.interrupted = internal_error, interrupted
    assert run.exit_code(status, outcome) == code
    assert f"\n  {code} " in run.EXIT_CODES


def test_a_server_that_never_answers_is_unreachable(tmp_path: Path) -> None:
    """A command that exits at once answers the probe at no revision: the target could not be started
    (exit 3), which is not a target that implements no revision (exit 0)."""
    target = Target(name="gone", stdio=f"{sys.executable} -c pass")
    spoken = spoken_by(target, "server", tmp_path)
    assert spoken.unreachable
    assert not spoken.revisions


def closed_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


def command_in_checkout(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The console script's code run from this checkout (``python -m conformance.cli.run``), in ``cwd``."""
    env = clean_environment(PYTHONPATH=str(PROJECT_ROOT), MCP_SPEC_CACHE=str(DEFAULT_CACHE))
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli.run", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_bad_profile_exits_2(tmp_path: Path) -> None:
    result = command_in_checkout(tmp_path, "--target", "no-such-profile", "--workers", "0")
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr[-2000:]
    assert "no such target profile" in result.stdout + result.stderr
    assert "mcp-matrix: exit 2 (bad invocation or profile)" in result.stdout


def test_a_server_that_cannot_be_reached_exits_3(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/mcp"
    result = command_in_checkout(tmp_path, "--server-url", url, "-k", SLICE, "--workers", "0")
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-2000:]
    assert "mcp-matrix: exit 3 (the target could not be started or reached)" in result.stdout
    assert (tmp_path / "reports" / "command-line" / "report.json").is_file()
    assert "Exception ignored" not in result.stderr  # nothing left for the interpreter's shutdown


@pytest.mark.wheel
def test_the_wheel_installs_a_command_that_runs_the_suite_from_any_directory(tmp_path: Path) -> None:
    """Build the wheel, install it into a fresh virtual environment (its dependencies from the pip cache or
    PyPI), and run ``mcp-matrix`` from a directory outside the project against a server by command (the
    installed fixture server, started as any other implementation's would be)."""
    dist, venv, elsewhere = tmp_path / "dist", tmp_path / "venv", tmp_path / "elsewhere"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", dist, PROJECT_ROOT], check=True, timeout=300)
    (wheel,) = dist.glob("mcp_matrix-*.whl")
    carried = set(zipfile.ZipFile(wheel).namelist())
    assert {f"mcp_matrix/{path}" for path in CARRIED} <= carried
    assert "mcp_matrix.pth" in carried
    assert not {f"mcp_matrix/conformance/{name}" for name in run.META_TESTS} & carried
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True, timeout=120)
    subprocess.run([*pip, "--python", venv / "bin" / "python", "install", wheel], check=True, timeout=600)
    elsewhere.mkdir()
    mirror = os.environ.get("MCP_SPEC_MIRROR") or (str(DEFAULT_MIRROR) if DEFAULT_MIRROR.is_dir() else "")
    env = clean_environment(XDG_CACHE_HOME=str(tmp_path / "cache"), **({"MCP_SPEC_MIRROR": mirror} if mirror else {}))
    env.pop("MCP_SPEC_CACHE", None)

    def mcp_matrix(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [venv / "bin" / "mcp-matrix", *args], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300
        )

    shown = mcp_matrix("--help")
    assert shown.returncode == 0
    assert "exit codes:" in shown.stdout
    assert "3    the target could not be started or reached" in shown.stdout

    server = f"{venv / 'bin' / 'python'} -m conformance.fixtures.server"
    result = mcp_matrix("--server-command", server, "-k", SLICE, "--workers", "2")
    output = result.stdout[-4000:] + result.stderr[-2000:]
    assert result.returncode == 0, output
    headlines = [line for line in result.stdout.splitlines() if line.startswith(HEADLINE_START)]
    assert headlines, output
    assert re.match(r"MUST: [1-9][0-9]* passed, 0 failed;", headlines[-1]), output
    report = elsewhere / "reports" / "command-line" / "report.json"
    assert json.loads(report.read_text(encoding="utf-8"))["headline"] == headlines[-1]
    assert f"mcp-matrix: {headlines[-1]}" in result.stdout
    assert result.stdout.rstrip().endswith("mcp-matrix: exit 0 (no MUST failure)")
    # its own data, not this checkout's: the suite ran from site-packages, the spec in the user cache
    assert str(PROJECT_ROOT / "conformance") not in result.stdout
    assert (tmp_path / "cache" / "mcp-matrix" / "mcp-spec" / read_lock()["commit"] / ".verified").is_file()
