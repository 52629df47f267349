"""The catalogue parser: every malformed row is refused with file:line and what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import HEADER, catalogue_text, row

from conformance.catalogue.errors import InputErrors
from conformance.catalogue.rows import parse_catalogue, parse_revisions, render_revisions

PATH = Path("docs/spec/requirements.md")


def errors_of(text: str) -> str:
    with pytest.raises(InputErrors) as caught:
        parse_catalogue(text, PATH)
    return str(caught.value)


def test_a_good_row_parses_with_expanded_revisions_and_normalised_level() -> None:
    catalogue = parse_catalogue(catalogue_text(row(level="REQUIRED", notes="gap: F-001 reason")), PATH)
    (requirement,) = catalogue.requirements
    assert requirement.revisions == ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
    assert requirement.level == "MUST"
    assert requirement.sides == ("server", "client")
    assert requirement.claims == ("F-001",)
    assert requirement.line == 7


@pytest.mark.parametrize(
    ("bad_row", "message"),
    [
        pytest.param(row(revisions="2024-11-05..2099-01-01"), "unknown revision '2099-01-01'", id="unknown-revision"),
        pytest.param(row(revisions="2025-11-25..2024-11-05"), "inverted revision range", id="inverted-range"),
        pytest.param(row(revisions=""), "no revisions given", id="no-revisions"),
        pytest.param(row(side="host"), "unknown side 'host'", id="unknown-side"),
        pytest.param(row(level="MIGHT"), "unknown level 'MIGHT'", id="unknown-level"),
        pytest.param(row(text=""), "empty requirement", id="empty-requirement"),
        pytest.param(row(sources="`2025-06-18/basic/lifecycle@abc`"), "bad locator", id="bad-locator"),
        pytest.param(row(sources=""), "no source locator", id="no-locator"),
        pytest.param(row(revisions="2025-11-25"), "which the row does not have", id="locator-outside-revisions"),
        pytest.param(
            row(requirement_id="tools-call"), "does not start with its area 'lifecycle-'", id="wrong-area-prefix"
        ),
        pytest.param(row(requirement_id="Lifecycle_First"), "is not kebab-case", id="not-kebab-case"),
    ],
)
def test_a_malformed_row_is_refused_with_its_line(bad_row: str, message: str) -> None:
    problems = errors_of(catalogue_text(bad_row))
    assert f"{PATH}:7:" in problems
    assert message in problems


def test_a_duplicate_id_names_both_lines() -> None:
    problems = errors_of(catalogue_text(row(), row()))
    assert f"{PATH}:8: duplicate id 'lifecycle-initialize-first' (first at line 7)" in problems


def test_an_unknown_area_is_refused() -> None:
    problems = errors_of(catalogue_text(row(requirement_id="gossip-first"), area="gossip"))
    assert f"{PATH}:3: unknown area 'gossip'" in problems


def test_wrong_columns_are_refused() -> None:
    text = "# R\n\n## lifecycle\n\n| id | side |\n|---|---|\n| lifecycle-x | both |\n"
    assert "table columns are id | side; expected id | revisions" in errors_of(text)


def test_a_short_row_is_refused() -> None:
    text = f"# R\n\n## lifecycle\n\n{HEADER}| lifecycle-x | 2025-06-18 | both |\n"
    assert f"{PATH}:7: row has 3 cells; expected 7" in errors_of(text)


def test_every_error_is_reported_in_one_pass() -> None:
    problems = errors_of(catalogue_text(row(side="host"), row(requirement_id="lifecycle-other", level="MIGHT")))
    assert ":7:" in problems and ":8:" in problems


def test_a_tombstone_reserves_its_id_and_must_point_at_a_row() -> None:
    tombstones = "\n## tombstones\n\n| id | folded into | reason |\n|---|---|---|\n"
    reused = catalogue_text(row()) + tombstones + "| lifecycle-initialize-first | lifecycle-x | merged |\n"
    problems = errors_of(reused)
    assert "duplicate id 'lifecycle-initialize-first'" in problems
    assert "folded into unknown id 'lifecycle-x'" in problems


def test_revision_cells() -> None:
    assert parse_revisions("2025-06-18..") == ("2025-06-18", "2025-11-25", "2026-07-28")
    assert parse_revisions("2025-11-25, 2024-11-05") == ("2024-11-05", "2025-11-25")
    with pytest.raises(ValueError, match="listed twice"):
        parse_revisions("2024-11-05, 2024-11-05")
    assert render_revisions(("2024-11-05", "2025-11-25")) == "2024-11-05, 2025-11-25"
    assert render_revisions(("2025-03-26", "2025-06-18")) == "2025-03-26..2025-06-18"
