"""Accounting: every swept normative sentence is claimed by a catalogue row or a not-requirement.

A sentence of revision R with fingerprint F is accounted for by a row that has R and a locator
with fingerprint F (the same clause often stands unchanged in several revisions, so one locator
serves all of them), or by a not-requirement override for F whose revisions include R. A message
definition of the schema (a swept unit of kind ``definition``, fingerprinted over its canonical JSON)
is accounted for in the same way, by a row of the ``schema`` area that locates it.

A sentence of an extension's specification is keyed by its qualified revision (``ext-apps:2026-01-26``):
a row's locator into an extension accounts for its fingerprint in the locator's revision of the
extension and in every later one (the draft carries most of the stable revision's clauses unchanged),
whatever MCP revisions the row has; a not-requirement names the extension and its revisions.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from conformance.catalogue import sweep as sweep_module
from conformance.catalogue.locator import Locator
from conformance.catalogue.overrides import Overrides
from conformance.catalogue.rows import Catalogue
from conformance.catalogue.spec_pin import PROJECT_ROOT, materialise, materialise_extensions
from conformance.catalogue.sweep import SCHEMA_PAGE, Sentence
from conformance.catalogue.vocabulary import EXTENSIONS, REVISIONS, qualified_revision

_SWEEP_SOURCES = ("sweep.py", "locator.py", "vocabulary.py")


def load_sweep() -> list[Sentence]:
    """The sweep of the pinned spec and extensions, cached on disk under a key of them and the sweep's code."""
    spec_root = materialise()
    extension_roots = materialise_extensions()
    key = hashlib.sha256((spec_root / ".verified").read_bytes())
    for root in extension_roots.values():
        key.update((root / ".verified").read_bytes())
    for name in _SWEEP_SOURCES:
        key.update((Path(__file__).parent / name).read_bytes())
    cache = spec_root.parent / f"sweep-{key.hexdigest()[:16]}.json"
    if cache.is_file():
        rows = json.loads(cache.read_text(encoding="utf-8"))
        return [
            Sentence(**{k: v for k, v in row.items() if k != "locator"} | {"keywords": tuple(row["keywords"])})
            for row in rows
        ]
    sentences = sweep_module.sweep(spec_root, extension_roots=extension_roots)
    cache.write_text(json.dumps(sweep_module.to_json(sentences)), encoding="utf-8")
    return sentences


@dataclass(frozen=True)
class Accounting:
    normative: list[Sentence]
    unaccounted: list[Sentence]
    unresolved: list[tuple[str, Locator]]  # (requirement id, locator)
    stale_not_requirements: list[str]  # "path:line fingerprint"

    def by_revision(self) -> dict[str, tuple[int, int]]:
        """revision (an extension's qualified: ``ext-apps:draft``) -> (normative sentences, unaccounted)."""
        unaccounted = set(self.unaccounted)
        counts: dict[str, tuple[int, int]] = {}
        for s in self.normative:
            total, missing = counts.get(s.qualified_revision, (0, 0))
            counts[s.qualified_revision] = (total + 1, missing + (s in unaccounted))
        return counts


def claimed_revisions(locator: Locator, row_revisions: tuple[str, ...]) -> tuple[str, ...]:
    """The (qualified) revisions in which a row's locator accounts for its fingerprint: the row's own for
    an MCP clause, the locator's revision of the extension and every later one for an extension's."""
    if not locator.extension:
        return row_revisions
    revisions = EXTENSIONS[locator.extension].revisions
    return tuple(
        qualified_revision(locator.extension, revision) for revision in revisions[revisions.index(locator.revision) :]
    )


def account(catalogue: Catalogue, overrides: Overrides, sentences: list[Sentence]) -> Accounting:
    claimed: set[tuple[str, str]] = set()
    for requirement in catalogue.requirements:
        for locator in requirement.sources:
            claimed.update(
                (revision, locator.fingerprint) for revision in claimed_revisions(locator, requirement.revisions)
            )
    for entry in overrides.not_requirements:
        claimed.update(
            (qualified_revision(entry.extension, revision), entry.fingerprint) for revision in entry.revisions
        )
    normative = [s for s in sentences if s.normative]
    unaccounted = [s for s in normative if (s.qualified_revision, s.fingerprint) not in claimed]
    locatable = {s.locator for s in sentences}
    unresolved = [
        (requirement.id, locator)
        for requirement in catalogue.requirements
        for locator in requirement.sources
        if locator not in locatable
    ]
    swept = {(s.qualified_revision, s.fingerprint) for s in normative}
    stale = [
        f"{entry.path}:{entry.line} {entry.fingerprint}"
        for entry in overrides.not_requirements
        if not any((qualified_revision(entry.extension, r), entry.fingerprint) in swept for r in entry.revisions)
    ]
    return Accounting(normative, unaccounted, unresolved, stale)


def relative(path: Path) -> str:
    try:
        return str(path.relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)


# The independent count: keyword occurrences read off the raw files, without markdown-it, the
# HTML parser or the sentence splitter. Fenced code and front matter are skipped; lines are joined
# so that a keyword broken across lines ("MUST\nNOT") counts once; `_MUST_` (emphasis) counts, an
# identifier such as MISSING_REQUIRED_CLIENT_CAPABILITY (written with HTML entities on the schema
# page, hence the unescaping) does not.
_RAW_KEYWORD = re.compile(
    r"(?<![A-Za-z0-9])(?<![A-Z]_)"
    r"(MUST NOT|SHALL NOT|SHOULD NOT|NOT RECOMMENDED|MUST|REQUIRED|SHALL|SHOULD|RECOMMENDED|MAY|OPTIONAL)"
    r"(?![A-Za-z0-9])(?!_[A-Z])"
)
_FENCE = re.compile(r"^\s*(```|~~~)")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


def _raw_page_count(text: str) -> int:
    kept, fenced = [], False
    for line in _FRONT_MATTER.sub("", text).split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return len(_RAW_KEYWORD.findall(" ".join(html.unescape(" ".join(kept)).split())))


def _descriptions(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["description"]] if isinstance(node.get("description"), str) else []
        return found + [d for key, value in node.items() if key != "description" for d in _descriptions(value)]
    if isinstance(node, list):
        return [d for value in node for d in _descriptions(value)]
    return []


def independent_keyword_counts(
    spec_root: Path, extension_roots: Mapping[str, Path] | None = None
) -> dict[tuple[str, str], int]:
    """(revision, page) -> keyword occurrences, counted straight from the files (an extension's pages, from
    its materialised root, under their qualified revision)."""
    counts: dict[tuple[str, str], int] = {}
    for name, root in (extension_roots or {}).items():
        for revision in EXTENSIONS[name].revisions:
            pages = root / "specification" / revision
            for path in sorted(pages.rglob("*.mdx")):
                page = path.relative_to(pages).with_suffix("").as_posix()
                counts[qualified_revision(name, revision), page] = _raw_page_count(path.read_text(encoding="utf-8"))
    for revision in REVISIONS:
        pages = spec_root / "docs" / "specification" / revision
        for path in sorted(pages.rglob("*.mdx")):
            counts[revision, path.relative_to(pages).with_suffix("").as_posix()] = _raw_page_count(
                path.read_text(encoding="utf-8")
            )
        schema = json.loads((spec_root / "schema" / revision / "schema.json").read_text(encoding="utf-8"))
        counts[revision, SCHEMA_PAGE] = sum(
            len(_RAW_KEYWORD.findall(" ".join(d.split()))) for d in _descriptions(schema)
        )
    return counts


def swept_keyword_counts(sentences: list[Sentence]) -> dict[tuple[str, str], int]:
    counts: dict[tuple[str, str], int] = {}
    for s in sentences:
        key = (s.qualified_revision, s.page)
        counts[key] = counts.get(key, 0) + len(s.keywords)
    return counts


COPY_RUN_WORDS = 6
_WORD = re.compile(r"[a-z0-9]+")


def copied_runs(text: str, sentence: str, run: int = COPY_RUN_WORDS) -> list[str]:
    """Runs of ``run`` consecutive words that ``text`` shares with ``sentence`` (case-insensitive)."""
    ours = _WORD.findall(text.lower())
    theirs = _WORD.findall(sentence.lower())
    spec_runs = {tuple(theirs[i : i + run]) for i in range(len(theirs) - run + 1)}
    return [" ".join(ours[i : i + run]) for i in range(len(ours) - run + 1) if tuple(ours[i : i + run]) in spec_runs]
