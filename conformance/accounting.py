"""Accounting: every swept normative sentence is claimed by a catalogue row or a not-requirement.

A sentence of revision R with fingerprint F is accounted for by a row that has R and a locator
with fingerprint F (the same clause often stands unchanged in several revisions, so one locator
serves all of them), or by a not-requirement override for F whose revisions include R.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from conformance import sweep as sweep_module
from conformance.catalogue import Catalogue
from conformance.locator import Locator
from conformance.overrides import Overrides
from conformance.spec_pin import PROJECT_ROOT, materialise
from conformance.sweep import Sentence

_SWEEP_SOURCES = ("sweep.py", "locator.py", "vocabulary.py")


def load_sweep() -> list[Sentence]:
    """The sweep of the pinned spec, cached on disk under a key of the spec and the sweep's code."""
    spec_root = materialise()
    key = hashlib.sha256((spec_root / ".verified").read_bytes())
    for name in _SWEEP_SOURCES:
        key.update((PROJECT_ROOT / "conformance" / name).read_bytes())
    cache = spec_root.parent / f"sweep-{key.hexdigest()[:16]}.json"
    if cache.is_file():
        rows = json.loads(cache.read_text(encoding="utf-8"))
        return [
            Sentence(**{k: v for k, v in row.items() if k != "locator"} | {"keywords": tuple(row["keywords"])})
            for row in rows
        ]
    sentences = sweep_module.sweep(spec_root)
    cache.write_text(json.dumps(sweep_module.to_json(sentences)), encoding="utf-8")
    return sentences


@dataclass(frozen=True)
class Accounting:
    normative: list[Sentence]
    unaccounted: list[Sentence]
    unresolved: list[tuple[str, Locator]]  # (requirement id, locator)
    stale_not_requirements: list[str]  # "path:line fingerprint"

    def by_revision(self) -> dict[str, tuple[int, int]]:
        """revision -> (normative sentences, unaccounted)."""
        unaccounted = set(self.unaccounted)
        counts: dict[str, tuple[int, int]] = {}
        for s in self.normative:
            total, missing = counts.get(s.revision, (0, 0))
            counts[s.revision] = (total + 1, missing + (s in unaccounted))
        return counts


def account(catalogue: Catalogue, overrides: Overrides, sentences: list[Sentence]) -> Accounting:
    claimed: set[tuple[str, str]] = set()
    for requirement in catalogue.requirements:
        for locator in requirement.sources:
            claimed.update((revision, locator.fingerprint) for revision in requirement.revisions)
    for entry in overrides.not_requirements:
        claimed.update((revision, entry.fingerprint) for revision in entry.revisions)
    normative = [s for s in sentences if s.normative]
    unaccounted = [s for s in normative if (s.revision, s.fingerprint) not in claimed]
    locatable = {s.locator for s in sentences}
    unresolved = [
        (requirement.id, locator)
        for requirement in catalogue.requirements
        for locator in requirement.sources
        if locator not in locatable
    ]
    swept = {(s.revision, s.fingerprint) for s in normative}
    stale = [
        f"{entry.path}:{entry.line} {entry.fingerprint}"
        for entry in overrides.not_requirements
        if not any((revision, entry.fingerprint) in swept for revision in entry.revisions)
    ]
    return Accounting(normative, unaccounted, unresolved, stale)


def relative(path: Path) -> str:
    try:
        return str(path.relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)
