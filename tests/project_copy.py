"""A copy of this project to run pytest in, for the end-to-end tests of the machinery."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conformance.catalogue.spec_pin import DEFAULT_CACHE, PROJECT_ROOT

IGNORED = shutil.ignore_patterns(".venv", ".cache", ".git", "reports", "__pycache__", ".pytest_cache", ".hypothesis")


def copy_project(tmp_path: Path) -> Path:
    """A copy of the project that shares this checkout's verified spec cache."""
    copy = tmp_path / "project"
    shutil.copytree(PROJECT_ROOT, copy, ignore=IGNORED)
    return copy


def pytest_in(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = os.environ | {"MCP_SPEC_CACHE": str(DEFAULT_CACHE), **env}
    for name in ("RUN_GAPS", "MATRIX_UPDATE", "MATRIX_AREAS", "MCP_MATRIX_REPORTS"):
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
