"""Each meta rule, fed a bad fixture, names the problem; fed a good one, finds none."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_build, row

from conformance.harness.faults import drop_field
from conformance.matrix import rules as meta
from conformance.matrix.covers import Cover, Gap
from conformance.matrix.rules import MetaContext

TEST = "conformance/test_lifecycle.py::test_x"
SERVER_ONLY = row(side="server", revisions="2025-06-18..2025-11-25")
IDS = [f"{TEST}[{rev}/lifecycle/lifecycle-initialize-first]" for rev in ("2025-06-18", "2025-11-25")]


def context(
    *declarations: Cover | Gap, rows: tuple[str, ...] = (SERVER_ONLY,), collected: list[str] = IDS
) -> MetaContext:
    build = make_build(
        *rows,
        covers=tuple(d for d in declarations if isinstance(d, Cover)),
        gaps=tuple(d for d in declarations if isinstance(d, Gap)),
    )
    return MetaContext(build, collector=lambda files: set(collected), expected={Path("/nonexistent"): ""})


COVER = Cover("lifecycle-initialize-first", "server", TEST, fault=drop_field("initialize", "result"))


def test_a_fully_covered_catalogue_passes_every_rule_but_the_file_diff() -> None:
    ctx = context(COVER)
    for rule in meta.RULES[1:]:
        assert rule(ctx) == [], rule.__name__


def test_a_deleted_cover_leaves_its_cells_missing_by_name() -> None:
    problems = meta.rule_no_missing_cells(context())
    assert problems == [
        "MISSING 2025-06-18 server MUST lifecycle-initialize-first",
        "MISSING 2025-11-25 server MUST lifecycle-initialize-first",
    ]


def test_a_cover_naming_a_misspelt_test_is_refused_by_name() -> None:
    misspelt = Cover("lifecycle-initialize-first", "server", TEST + "_typo")
    (problem,) = meta.rule_covers_name_collected_tests(context(misspelt))
    assert "cover lifecycle-initialize-first / server: pytest collects no " in problem
    assert "test_x_typo[<rev>/lifecycle/lifecycle-initialize-first] for 2025-06-18, 2025-11-25" in problem


def test_a_cover_or_gap_for_an_unknown_requirement_is_refused() -> None:
    problems = meta.rule_declarations_name_known_requirements(
        context(COVER, Cover("lifecycle-nope", "server", TEST), Gap("lifecycle-gone", "client", "#3", "w"))
    )
    assert [p.split(": ", 1)[1] for p in problems] == [
        "cover lifecycle-nope / server: unknown requirement id",
        "gap lifecycle-gone / client: unknown requirement id",
    ]


def test_a_cover_or_gap_for_a_revision_the_requirement_lacks_is_refused() -> None:
    stale = Gap("lifecycle-initialize-first", "server", "#3", "w", revisions="2024-11-05..2025-06-18")
    (problem,) = meta.rule_declarations_within_revisions(context(COVER, stale))
    assert "claims revision(s) 2024-11-05, 2025-03-26, but the requirement has only 2025-06-18, 2025-11-25" in problem


def test_a_cover_for_an_na_side_is_refused() -> None:
    (problem,) = meta.rule_declarations_bind_side(context(COVER, Cover("lifecycle-initialize-first", "client", TEST)))
    assert "cover lifecycle-initialize-first / client: the cell is n/a (the requirement binds servers only)" in problem


def test_a_cover_whose_every_cell_is_gapped_is_refused() -> None:
    gap = Gap("lifecycle-initialize-first", "server", "F-001", "broken")
    (problem,) = meta.rule_covers_claim_testable_cells(context(COVER, gap))
    assert f"every cell it claims is gapped, so {TEST} covers nothing" in problem


def test_a_cover_claiming_a_gapped_revision_explicitly_is_refused() -> None:
    cover = Cover("lifecycle-initialize-first", "server", TEST, revisions="2025-06-18")
    gap = Gap("lifecycle-initialize-first", "server", "F-001", "broken", revisions="2025-06-18")
    (problem,) = meta.rule_covers_claim_testable_cells(context(cover, gap))
    assert "claims revision(s) 2025-06-18 that are gapped" in problem


def test_a_gap_without_a_finding_file_or_a_reference_is_refused() -> None:
    problems = meta.rule_gaps_name_a_finding_or_issue(
        context(
            Gap("lifecycle-initialize-first", "server", "F-999", "w", revisions="2025-06-18"),
            Gap("lifecycle-initialize-first", "server", "JIRA-1", "", revisions="2025-11-25"),
            Gap("lifecycle-initialize-first", "server", "L-999", "w", revisions="2025-03-26"),
            Gap("lifecycle-initialize-first", "server", "N-999", "w", revisions="2024-11-05"),
        )
    )
    assert any("finding F-999 has no docs/findings/999-*.md" in p for p in problems)
    assert any("limit L-999 has no docs/limits/999-*.md" in p for p in problems)
    assert any("feature not offered N-999 has no docs/not-offered/999-*.md" in p for p in problems)
    neither = "reference 'JIRA-1' is neither an issue (#N), a finding (F-NNN), a limit (L-NNN) nor a feature not"
    assert any(neither in p for p in problems)
    assert any("says no why" in p for p in problems)


def test_a_cell_gapped_twice_is_refused() -> None:
    first = Gap("lifecycle-initialize-first", "server", "#3", "w")
    second = Gap("lifecycle-initialize-first", "server", "#4", "w", revisions="2025-11-25")
    (problem,) = meta.rule_one_gap_per_cell(context(first, second))
    assert "cell 2025-11-25 is already gapped at" in problem


def test_a_tested_cell_whose_note_claims_a_gap_is_refused() -> None:
    claimed = row(side="server", revisions="2025-06-18..2025-11-25", notes="gap: F-001 the SDK drops it")
    problems = meta.rule_tested_cells_claim_no_gap(context(COVER, rows=(claimed,)))
    assert len(problems) == 2 and "the catalogue note claims gap F-001" in problems[0]


def test_a_stale_generated_file_is_shown_with_its_diff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "requirements.json"
    stale.write_text("old\n")
    ctx = context(COVER)
    ctx.expected = {stale: "new\n"}
    monkeypatch.setattr(meta, "PROJECT_ROOT", tmp_path)
    (problem,) = meta.rule_generated_files_current(ctx)
    assert "requirements.json is stale (regenerate with MATRIX_UPDATE=1 pytest)" in problem
    assert "-old" in problem and "+new" in problem


def test_matrix_areas_narrows_the_rules() -> None:
    ctx = context()
    ctx.areas = frozenset({"tools"})
    assert meta.rule_no_missing_cells(ctx) == []


def test_a_must_cover_without_a_fault_is_refused() -> None:
    (problem,) = meta.rule_must_cells_declare_a_fault(context(Cover("lifecycle-initialize-first", "server", TEST)))
    assert "covers a MUST requirement but declares no fault" in problem


def test_a_cell_collected_over_transports_counts_as_collected() -> None:
    over_transports = [f"{node[:-1]}@{transport}]" for node in IDS for transport in ("stdio", "streamable-http")]
    assert meta.rule_covers_name_collected_tests(context(COVER, collected=over_transports)) == []
