"""The client drivers' convention for a scenario their client library cannot run.

A driver (``targets/clients/*``) whose library lacks what a scenario needs prints
``mcp-matrix: scenario unsupported <why>`` and exits 0; ``run_client_process`` then skips the test as
``fixture-missing: ...`` (never pass, fail or inconclusive). A driver that says so but then fails, or
one that runs its scenario, is judged as before.
"""

from __future__ import annotations

import sys

import pytest

from conformance.harness.frames import COMPLETED, UNSUPPORTED
from conformance.harness.launcher import CommandLauncher
from conformance.run.outcomes import skip_outcome
from conformance.run.plugin import run_client_process


def driver(body: str) -> CommandLauncher:
    """A stand-in client driver: a Python program that runs ``body`` (it gets the URL as its last argument)."""
    return CommandLauncher([sys.executable, "-c", body])


def run(body: str, scenario: str = "some_scenario"):
    launcher = driver(body)
    try:
        return run_client_process(launcher, scenario, "2025-11-25", ["http://127.0.0.1:9/mcp"])
    finally:
        launcher.close()


def test_a_scenario_the_driver_cannot_run_is_fixture_missing() -> None:
    said = f"print({UNSUPPORTED + 'its library has no ping interval'!r}, flush=True)"
    with pytest.raises(pytest.skip.Exception) as skipped:
        run(said, "keepalive")
    reason = str(skipped.value)
    assert skip_outcome(reason) == "fixture-missing"
    assert "'keepalive'" in reason and "its library has no ping interval" in reason


def test_the_driver_gets_the_scenario_and_revision_the_convention_names() -> None:
    body = (
        "import os, sys\n"
        "if os.environ['MCP_CONFORMANCE_SCENARIO'] == 'wanted' and os.environ['MCP_MATRIX_REVISION'] == '2025-11-25'"
        f" and sys.argv[-1].startswith('http://'):\n    print({UNSUPPORTED + 'as agreed'!r})\n"
    )
    with pytest.raises(pytest.skip.Exception):
        run(body, "wanted")


def test_a_driver_that_says_unsupported_but_fails_is_not_excused() -> None:
    """Only a clean exit makes the line an excuse: a crash after it is the run's to judge (not completed)."""
    body = f"import sys\nprint({UNSUPPORTED + 'no such feature'!r}, flush=True)\nsys.exit(1)"
    result = run(body)
    assert not result.completed


def test_a_scenario_run_to_its_end_is_judged() -> None:
    result = run(f"print({COMPLETED!r})")
    assert result.completed and result.scenario == "some_scenario"


def test_the_line_counts_only_at_the_start_of_a_line() -> None:
    """A client's log that quotes the words mid-line is no excuse."""
    body = f"print('log: ' + {UNSUPPORTED + 'x'!r})\nprint({COMPLETED!r})"
    assert run(body).completed
