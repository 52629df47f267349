"""Builders for the machinery's tests: small catalogues, coverage and builds made in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.catalogue.generator import generate
from conformance.catalogue.overrides import Overrides, parse_overrides
from conformance.catalogue.rows import parse_catalogue
from conformance.matrix.build import Build
from conformance.matrix.cells import build_cells
from conformance.matrix.covers import Cover, Coverage, Gap
from tests.project_copy import copy_project

HEADER = "| id | revisions | side | level | requirement | sources | notes |\n|---|---|---|---|---|---|---|\n"
LOCATOR = "`2025-06-18/basic/lifecycle#initialization@2ab245507c45`"


def row(
    requirement_id: str = "lifecycle-initialize-first",
    revisions: str = "2024-11-05..2025-11-25",
    side: str = "both",
    level: str = "MUST",
    text: str = "The initialize exchange comes first.",
    sources: str = LOCATOR,
    notes: str = "",
) -> str:
    return f"| {requirement_id} | {revisions} | {side} | {level} | {text} | {sources} | {notes} |\n"


def catalogue_text(*rows: str, area: str = "lifecycle") -> str:
    return f"# Requirements\n\n## {area}\n\n{HEADER}{''.join(rows)}"


def make_build(
    *rows: str,
    covers: tuple[Cover, ...] = (),
    gaps: tuple[Gap, ...] = (),
    overrides: str | None = None,
) -> Build:
    catalogue = parse_catalogue(catalogue_text(*rows), Path("requirements.md"))
    parsed = parse_overrides({Path("o.yaml"): overrides}, catalogue) if overrides else Overrides()
    requirements = generate(catalogue, parsed)
    coverage = Coverage(tuple(covers), tuple(gaps))
    return Build(catalogue, parsed, requirements, coverage, build_cells(requirements["requirements"], coverage))


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RUN_GAPS", "MATRIX_UPDATE", "MATRIX_AREAS"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project that shares this checkout's verified spec cache."""
    return copy_project(tmp_path)
