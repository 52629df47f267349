"""Outcomes: what one run of a cell's test says, at the level of its requirement.

- ``pass``: the test reached its check and the implementation met it.
- ``fail``: a MUST / MUST NOT broken, with the evidence.
- ``warn``: a SHOULD / SHOULD NOT not followed: counted and listed, failing the run only under
  ``--strict``.
- ``not-exercised``: a MAY row's option the implementation did not take (a permission is never
  failed for being unused). A MAY cell cannot fail.
- ``gap``: a gapped cell that failed, as it must.
- ``fixture-missing``: the situation the requirement is about could not be provoked on this target.
- ``inconclusive``: the harness itself failed (its own error or timeout, a precondition that is
  not the requirement); failing the run only under ``--strict``.
- ``revision-not-implemented``: the target does not speak the cell's revision; reported once per
  revision, never counted as a cell's pass or failure.
- ``side-not-offered``: the target plays no part on the cell's side (a server with no client); reported
  once, never counted.

A test says which of the last four it is with ``pytest.skip("<outcome>: why")``, or by raising
``HarnessError`` (inconclusive); an assertion failure is ``fail``, ``warn`` or ``not-exercised``
by the row's level.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

FAILURE_BY_LEVEL = {
    "MUST": "fail",
    "MUST NOT": "fail",
    "SHOULD": "warn",
    "SHOULD NOT": "warn",
    "MAY": "not-exercised",
}
SKIP_OUTCOMES = ("fixture-missing", "not-exercised", "inconclusive", "revision-not-implemented", "side-not-offered")
UNCOUNTED = ("revision-not-implemented", "side-not-offered")  # reported once for the run, not per cell
OUTCOMES = ("pass", "fail", "warn", "not-exercised", "gap", "fixture-missing", "inconclusive")
FALSIFY_OUTCOMES = ("falsified", "survived", "gap", "fixture-missing", "inconclusive")
# A cell run by several tests (one per transport, say) takes the first of its outcomes in this order.
CELL_PRECEDENCE = ("fail", "warn", "gap", "inconclusive", "pass", "not-exercised", "fixture-missing")


def failure_outcome(level: str) -> str:
    """What an assertion failure of a test means for a row of ``level``."""
    return FAILURE_BY_LEVEL[level]


def skip_outcome(reason: str) -> str:
    """The outcome a skip reason names (``fixture-missing: ...``); a bare skip is inconclusive: the
    suite never skips a cell without saying why in its own words."""
    text = reason.removeprefix("Skipped: ").strip()
    return next((outcome for outcome in SKIP_OUTCOMES if text.startswith(outcome)), "inconclusive")


def cell_outcome(outcomes: Iterable[str]) -> str:
    found = set(outcomes)
    return next(outcome for outcome in CELL_PRECEDENCE if outcome in found)


def headline(cells: Iterable[tuple[str, str]], not_implemented: Iterable[str], not_offered: Iterable[str] = ()) -> str:
    """``MUST: N passed, N failed; SHOULD: ...`` from (level, outcome) per cell."""
    counts: Counter[tuple[str, str]] = Counter()
    for level, outcome in cells:
        family = "MAY" if level == "MAY" else level.split()[0]
        counts[family, outcome] += 1
    other: Counter[str] = Counter()
    for (_, outcome), count in counts.items():
        other[outcome] += count
    parts = [
        f"MUST: {counts['MUST', 'pass']} passed, {counts['MUST', 'fail']} failed",
        f"SHOULD: {counts['SHOULD', 'pass']} passed, {counts['SHOULD', 'warn']} warned",
        f"MAY: {counts['MAY', 'pass']} passed",
        f"not exercised {other['not-exercised']}",
        f"gap {other['gap']}",
        f"fixture missing {other['fixture-missing']}",
        f"inconclusive {other['inconclusive']}",
    ]
    missing = sorted(set(not_implemented))
    parts.append(f"revisions not implemented: {', '.join(missing) if missing else 'none'}")
    sides = sorted(set(not_offered))
    if sides:
        parts.append(f"sides not offered: {', '.join(sides)}")
    return "; ".join(parts)
