"""Properties of the machinery, checked with hypothesis over generated catalogues and coverage."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.catalogue.generator import generate, render_json
from conformance.catalogue.locator import Locator
from conformance.catalogue.overrides import Overrides
from conformance.catalogue.rows import (
    Catalogue,
    Requirement,
    parse_catalogue,
    parse_revisions,
    render_catalogue,
    render_revisions,
)
from conformance.catalogue.vocabulary import LEVELS, REVISIONS, SIDE_CHOICES, SIDES
from conformance.matrix.cells import build_cells
from conformance.matrix.covers import Cover, Coverage, Gap

revision_sets = st.sets(st.sampled_from(REVISIONS), min_size=1).map(lambda s: tuple(sorted(s, key=REVISIONS.index)))
words = st.text(alphabet="abcdefghij `|-_", min_size=1, max_size=30).map(str.strip).filter(bool)


@st.composite
def requirements(draw: st.DrawFn, index: int) -> Requirement:
    revisions = draw(revision_sets)
    locators = draw(
        st.lists(
            st.builds(
                Locator,
                revision=st.sampled_from(revisions),
                page=st.sampled_from(["basic/lifecycle", "server/tools", "schema.json"]),
                anchor=st.sampled_from(["", "initialization", "Tool.name"]),
                fingerprint=st.text(alphabet="0123456789abcdef", min_size=12, max_size=12),
            ),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    return Requirement(
        id=f"lifecycle-req-{index}",
        area="lifecycle",
        revisions=revisions,
        side=draw(st.sampled_from(sorted(SIDE_CHOICES))),
        level=draw(st.sampled_from(LEVELS)),
        text=draw(words),
        sources=tuple(locators),
        notes=draw(st.one_of(st.just(""), words)),
    )


catalogues = st.integers(min_value=1, max_value=6).flatmap(
    lambda n: st.tuples(*(requirements(i) for i in range(n))).map(lambda rows: Catalogue(tuple(rows)))
)


@given(revision_sets)
def test_revisions_round_trip_through_their_cell(revisions: tuple[str, ...]) -> None:
    assert parse_revisions(render_revisions(revisions)) == revisions


@given(st.sampled_from(REVISIONS), st.sampled_from(REVISIONS))
def test_a_range_expands_to_every_revision_between_its_ends(first: str, last: str) -> None:
    low, high = sorted((REVISIONS.index(first), REVISIONS.index(last)))
    expanded = parse_revisions(f"{REVISIONS[low]}..{REVISIONS[high]}")
    assert expanded == REVISIONS[low : high + 1]
    assert parse_revisions(f"{REVISIONS[low]}..") == REVISIONS[low:]


@settings(max_examples=60, deadline=None)
@given(catalogues)
def test_parse_of_render_is_the_catalogue(catalogue: Catalogue) -> None:
    assert parse_catalogue(render_catalogue(catalogue), Path("generated.md")) == catalogue


@settings(max_examples=60, deadline=None)
@given(catalogues)
def test_generation_is_deterministic(catalogue: Catalogue) -> None:
    first = render_json(generate(catalogue, Overrides()))
    again = render_json(generate(parse_catalogue(render_catalogue(catalogue), Path("g.md")), Overrides()))
    assert first == again
    assert first.startswith('{"$comment": "GENERATED')


@st.composite
def coverage_for(draw: st.DrawFn, catalogue: Catalogue) -> Coverage:
    covers, gaps = [], []
    for requirement in catalogue.requirements:
        for side in requirement.sides:
            choice = draw(st.sampled_from(["cover", "gap", "partial-gap", "none"]))
            test = f"conformance/test_lifecycle.py::test_{requirement.id.replace('-', '_')}"
            if choice in ("cover", "partial-gap"):
                covers.append(Cover(requirement.id, side, test))
            if choice == "gap":
                gaps.append(Gap(requirement.id, side, "#3", "why"))
            if choice == "partial-gap":
                gaps.append(Gap(requirement.id, side, "F-001", "why", revisions=requirement.revisions[:1]))
    return Coverage(tuple(covers), tuple(gaps))


@settings(max_examples=60, deadline=None)
@given(catalogues.flatmap(lambda c: st.tuples(st.just(c), coverage_for(c))))
def test_every_cell_is_in_exactly_one_state(case: tuple[Catalogue, Coverage]) -> None:
    catalogue, coverage = case
    cells = build_cells(generate(catalogue, Overrides())["requirements"], coverage)
    expected = {(r.id, rev, side) for r in catalogue.requirements for rev in r.revisions for side in SIDES}
    assert sorted((c.requirement, c.revision, c.side) for c in cells) == sorted(expected)
    for cell in cells:
        assert cell.state in ("tested", "gap", "MISSING", "n/a")
        assert (cell.state == "tested") == bool(cell.tests)
        assert (cell.state == "gap") == bool(cell.ref)
