"""The validator's registry: every catalogue row at every revision judged by a named check or excluded with
a reason; no unknown id; checks that are pure functions of the event list, with no SDK import."""

from __future__ import annotations

import subprocess
import sys

from conformance import PROJECT_ROOT
from conformance.validator import registry


def test_every_row_at_every_revision_is_judged_or_excluded() -> None:
    accounting = registry.account()
    assert accounting.unaccounted == [], f"{len(accounting.unaccounted)} unaccounted: {accounting.unaccounted[:10]}"
    cells = sum(len(row["revisions"]) for row in registry.rows().values())
    assert accounting.judged + sum(accounting.excluded.values()) == cells


def test_no_check_names_an_unknown_requirement() -> None:
    assert registry.account().unknown == []


def test_each_row_is_judged_by_one_check_at_most() -> None:
    named = [r for check in registry.checks() for r in check.requirements]
    assert len(named) == len(set(named))


def test_a_check_judges_one_of_its_rows_at_a_revision() -> None:
    """A check naming several rows names one rule restated per revision era: never two rows at one revision."""
    rows = registry.rows()
    for check in registry.checks():
        for revision in registry.revisions():
            applicable = [r for r in check.requirements if revision in rows[r]["revisions"]]
            assert len(applicable) <= 1, (check.name, revision, applicable)


def test_no_check_judges_a_permission() -> None:
    """A MAY is never failed: nothing on the wire can break it."""
    rows = registry.rows()
    assert not [r for check in registry.checks() for r in check.requirements if rows[r]["level"] == "MAY"]


def test_every_schema_row_has_its_check() -> None:
    schema_rows = {r for r, row in registry.rows().items() if row["area"] == "schema"}
    assert schema_rows <= set(registry.judged_by())


def test_exclusions_give_one_of_the_stated_reasons() -> None:
    assert {e.reason for e in registry.exclusions().values()} <= set(registry.EXCLUSION_REASONS)


def test_the_placed_rows_exist() -> None:
    assert set(registry.EXCLUDED_BY_ID) <= set(registry.rows())


def test_checks_have_names_and_descriptions() -> None:
    names = [check.name for check in registry.checks()]
    assert len(names) == len(set(names))
    assert all(check.description for check in registry.checks())


def test_the_validator_imports_no_sdk_and_no_clock_or_network() -> None:
    """The judge must not share the SDK's reading of the spec (no SDK module is loaded, even indirectly);
    its own modules read the event list only: no clock, no randomness, no network."""
    probe = (
        "import sys\n"
        "from conformance.validator import registry, outcomes, reports, cli\n"
        "registry.checks()\n"
        "banned = [m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'httpx', 'anyio'))]\n"
        "print(','.join(banned))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
    sources = (PROJECT_ROOT / "conformance" / "validator").rglob("*.py")
    for source in sources:
        text = source.read_text(encoding="utf-8")
        if source.name in ("sarif_schema.py", "bench.py"):
            continue  # the set-up step that packs the SARIF schema, and the timing of make bench: not the judge
        for forbidden in (
            "import time",
            "datetime",
            "import random",
            "import socket",
            "urllib",
            "from mcp",
            "import mcp",
        ):
            assert forbidden not in text, (source.name, forbidden)


def test_the_registry_listing_names_every_row() -> None:
    listing = registry.describe().splitlines()
    assert len([line for line in listing if not line.startswith(("  ", f"{len(registry.checks())} checks"))]) == len(
        registry.rows()
    )
