"""The catalogue is complete, points at the pinned spec, and says it in its own words.

Completeness is checked, not hoped for: every sentence of every revision that carries an
uppercase RFC 2119 keyword (pages, schema reference pages and schema.json descriptions, and the pages of
every revision of each catalogued extension, such as MCP Apps), and every
message definition of every revision's schema (the members of its request, result and notification
unions, located by the sha256 of their canonical JSON), is accounted for by a row or by a
not-requirement override (docs/spec/requirements.md, overrides/).
"""

from __future__ import annotations

import pytest

from conformance.catalogue.accounting import (
    COPY_RUN_WORDS,
    Accounting,
    account,
    copied_runs,
    independent_keyword_counts,
    load_sweep,
    swept_keyword_counts,
)
from conformance.catalogue.overrides import load_overrides
from conformance.catalogue.rows import Catalogue, load_catalogue
from conformance.catalogue.spec_pin import materialise, materialise_extensions
from conformance.catalogue.sweep import Sentence


@pytest.fixture(scope="module")
def sentences() -> list[Sentence]:
    return load_sweep()


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


@pytest.fixture(scope="module")
def accounting(catalogue: Catalogue, sentences: list[Sentence]) -> Accounting:
    return account(catalogue, load_overrides(catalogue), sentences)


def test_every_normative_sentence_is_accounted_for(accounting: Accounting) -> None:
    unaccounted = [f"{s.locator}  {s.text}" for s in accounting.unaccounted]
    assert not unaccounted, (
        f"{len(unaccounted)} normative sentence(s) with no catalogue row and no not-requirement "
        "(see `python -m conformance sweep --unaccounted`):\n" + "\n".join(unaccounted[:50])
    )


def test_every_locator_resolves_in_the_pinned_spec(accounting: Accounting) -> None:
    unresolved = [f"{requirement}: {locator}" for requirement, locator in accounting.unresolved]
    assert not unresolved, "locators that match no sentence of the pinned spec (review the row):\n" + "\n".join(
        unresolved
    )


def test_every_not_requirement_matches_a_swept_sentence(accounting: Accounting) -> None:
    assert not accounting.stale_not_requirements, "stale not-requirements:\n" + "\n".join(
        accounting.stale_not_requirements
    )


def test_the_sweep_counts_what_an_independent_count_of_the_files_finds(sentences: list[Sentence]) -> None:
    """Keyword occurrences per page: the parsed sentences against a plain count of the raw files."""
    swept = swept_keyword_counts(sentences)
    independent = independent_keyword_counts(materialise(), materialise_extensions())
    differing = [
        f"{revision} {page}: swept {swept.get((revision, page), 0)}, counted {count}"
        for (revision, page), count in sorted(independent.items())
        if swept.get((revision, page), 0) != count
    ]
    assert not differing, "the sweep misses or invents keywords:\n" + "\n".join(differing)


def test_no_row_copies_the_spec(catalogue: Catalogue, sentences: list[Sentence]) -> None:
    """A row states its requirement in our words: no run of six words of its source sentence."""
    text_of = {s.fingerprint: s.text for s in sentences}
    copied = [
        f"{requirement.id}: '{run}'"
        for requirement in catalogue.requirements
        for locator in requirement.sources
        for run in copied_runs(requirement.text, text_of.get(locator.fingerprint, ""))[:1]
    ]
    assert not copied, f"rows sharing {COPY_RUN_WORDS} consecutive words with their source:\n" + "\n".join(copied)
