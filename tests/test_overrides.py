"""Overrides: each needs a reason, names a known requirement once per side, and says where it is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import catalogue_text, row

from conformance.catalogue.errors import InputErrors
from conformance.catalogue.generator import applicability
from conformance.catalogue.overrides import parse_overrides
from conformance.catalogue.rows import parse_catalogue

CATALOGUE = parse_catalogue(catalogue_text(row(side="server")), Path("requirements.md"))
PATH = Path("overrides/lifecycle.yaml")


def errors_of(text: str) -> str:
    with pytest.raises(InputErrors) as caught:
        parse_overrides({PATH: text}, CATALOGUE)
    return str(caught.value)


def test_an_override_re_judges_one_side_with_its_reason() -> None:
    text = (
        "applicability:\n  - id: lifecycle-initialize-first\n    side: client\n    applies: true\n"
        "    reason: hosts too\n"
    )
    overrides = parse_overrides({PATH: text}, CATALOGUE)
    assert applicability(CATALOGUE.requirements[0], overrides) == {"server": "applies", "client": "applies"}


def test_the_catalogue_side_alone_makes_the_other_side_na() -> None:
    judged = applicability(CATALOGUE.requirements[0], parse_overrides({}, CATALOGUE))
    assert judged["client"] == "n/a: the requirement binds servers only"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "applicability:\n  - id: lifecycle-nope\n    side: client\n    applies: false\n    reason: r\n",
            f"{PATH}:2: override for unknown requirement id 'lifecycle-nope'",
            id="unknown-id",
        ),
        pytest.param(
            "applicability:\n  - id: lifecycle-initialize-first\n    side: client\n    applies: false\n",
            f"{PATH}:2: entry has no reason",
            id="no-reason",
        ),
        pytest.param(
            "applicability:\n  - id: lifecycle-initialize-first\n    side: host\n    applies: false\n    reason: r\n",
            f"{PATH}:2: unknown side 'host'",
            id="unknown-side",
        ),
        pytest.param(
            "applicability:\n  - id: lifecycle-initialize-first\n    side: client\n    applies: maybe\n    reason: r\n",
            f"{PATH}:2: 'applies' must be true or false",
            id="applies-not-boolean",
        ),
        pytest.param(
            "not-requirements:\n  - fingerprint: xyz\n    reason: example\n",
            f"{PATH}:2: fingerprint 'xyz' is not 12 hex digits",
            id="bad-fingerprint",
        ),
        pytest.param(
            "not-requirements:\n  - fingerprint: 0123456789ab\n    revisions: 2025-11-25..2024-11-05\n    reason: r\n",
            f"{PATH}:2: inverted revision range",
            id="bad-revisions",
        ),
        pytest.param(
            "not-requirements:\n  - fingerprint: 0123456789ab\n    extension: ext-nope\n    reason: r\n",
            f"{PATH}:2: unknown extension 'ext-nope'",
            id="unknown-extension",
        ),
        pytest.param(
            "not-requirements:\n  - fingerprint: 0123456789ab\n    extension: ext-apps\n"
            "    revisions: draft, 2025-06-18\n    reason: r\n",
            f"{PATH}:2: ext-apps has no revision 2025-06-18",
            id="not-an-extension-revision",
        ),
        pytest.param("applicability: [\n", f"{PATH}:2: not valid YAML", id="bad-yaml"),
        pytest.param("surprise: []\n", f"{PATH}:1: unknown top-level key(s): surprise", id="unknown-key"),
    ],
)
def test_a_bad_override_is_refused_with_its_line(text: str, message: str) -> None:
    assert message in errors_of(text)


def test_two_overrides_for_one_id_and_side_are_refused() -> None:
    entry = "  - id: lifecycle-initialize-first\n    side: client\n    applies: true\n    reason: r\n"
    problems = errors_of("applicability:\n" + entry + entry)
    assert f"{PATH}:6: second override for lifecycle-initialize-first / client (first at {PATH}:2)" in problems


def test_a_fingerprint_accounted_twice_is_refused() -> None:
    entry = "  - fingerprint: 0123456789ab\n    reason: r\n"
    assert "accounted for twice" in errors_of("not-requirements:\n" + entry + entry)


@pytest.mark.parametrize("digits", ["397515679263", "012345670123"], ids=["decimal", "octal-looking"])
def test_an_unquoted_fingerprint_of_digits_only_is_refused_naming_file_and_line(digits: str) -> None:
    """YAML reads 12 bare digits as an integer (with a leading 0 and only 0-7, as an octal one whose
    text is another number): the loader refuses it, naming the line, instead of guessing the text."""
    text = f"not-requirements:\n  - reason: r\n    fingerprint: {digits}\n"
    assert f"{PATH}:3: fingerprint {digits} is not quoted" in errors_of(text)
    quoted = parse_overrides({PATH: text.replace(digits, f'"{digits}"')}, CATALOGUE)
    assert quoted.not_requirements[0].fingerprint == digits


def test_the_project_overrides_quote_every_fingerprint() -> None:
    from conformance.catalogue.overrides import OVERRIDES_DIR

    bare = [
        f"{path.name}:{number}"
        for path in sorted(OVERRIDES_DIR.glob("*.yaml"))
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
        if line.strip().startswith("- fingerprint:") and '"' not in line
    ]
    assert not bare, f"unquoted fingerprints: {bare}"


def test_a_reason_naming_a_folded_id_is_refused_with_the_row_to_name() -> None:
    tombstones = "\n## tombstones\n\n| id | folded into | reason |\n|---|---|---|\n"
    text = (
        catalogue_text(row(side="server"))
        + tombstones
        + "| lifecycle-first-old | lifecycle-initialize-first | merged |\n"
    )
    catalogue = parse_catalogue(text, Path("requirements.md"))
    entry = 'not-requirements:\n  - fingerprint: "0123456789ab"\n    reason: restates lifecycle-first-old\n'
    with pytest.raises(InputErrors) as caught:
        parse_overrides({PATH: entry}, catalogue)
    assert f"{PATH}:2: reason names lifecycle-first-old, since folded into lifecycle-initialize-first" in str(
        caught.value
    )
    longer = entry.replace("lifecycle-first-old", "lifecycle-first-old-page")  # another word, not the id
    assert parse_overrides({PATH: longer}, catalogue).not_requirements


def test_an_extension_not_requirement_names_the_extension_and_its_own_revisions() -> None:
    text = "not-requirements:\n  - fingerprint: 0123456789ab\n    extension: ext-apps\n    reason: new in the draft\n"
    (entry,) = parse_overrides({PATH: text}, CATALOGUE).not_requirements
    assert (entry.extension, entry.revisions) == ("ext-apps", ("2026-01-26", "draft"))
