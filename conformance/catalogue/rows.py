"""The catalogue: ``docs/spec/requirements.md`` parsed into requirement rows.

One ``## <area>`` section per area, each with one table whose columns are ``COLUMNS``:

- ``id``: stable kebab-case, prefixed with the area (``lifecycle-initialize-first``), never reused;
- ``revisions``: ``2024-11-05..2026-07-28``, an open range ``2025-06-18..``, one revision, or a
  comma-separated list;
- ``side``: ``server``, ``client`` or ``both``: whom the requirement binds;
- ``level``: an RFC 2119 keyword, normalised (``REQUIRED`` -> ``MUST``, ...);
- ``requirement``: the requirement in our own words (never a sentence of the spec);
- ``sources``: one or more locators (see ``conformance.catalogue.locator``), separated by spaces;
- ``notes``: free text; ``gap: F-001`` or ``gap: #4`` in a note claims a gap.

A ``## tombstones`` section lists ids folded into others (``id | folded into | reason``) so that
an old id is never reused. Every malformed input is reported with file:line and what is wrong,
all of them in one pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputError, InputErrors
from conformance.catalogue.locator import Locator
from conformance.catalogue.vocabulary import (
    AREAS,
    EXTENSIONS,
    LEVEL_SYNONYMS,
    REQUIREMENT_ID,
    REVISIONS,
    SIDE_CHOICES,
    revision_index,
)

CATALOGUE_PATH = PROJECT_ROOT / "docs" / "spec" / "requirements.md"
COLUMNS = ("id", "revisions", "side", "level", "requirement", "sources", "notes")
TOMBSTONE_SECTION = "tombstones"
TOMBSTONE_COLUMNS = ("id", "folded into", "reason")
CLAIM_PATTERN = re.compile(r"\bgap:\s*(F-\d{3}|#\d+)")

# Cells are read as raw markdown (``inline.content``), so inline parsing is switched off: it was
# most of the parse time on the full catalogue.
_markdown = MarkdownIt("commonmark").enable("table").disable("inline")


@dataclass(frozen=True)
class Requirement:
    id: str
    area: str
    revisions: tuple[str, ...]
    side: str
    level: str
    text: str
    sources: tuple[Locator, ...]
    notes: str = ""
    line: int = field(default=0, compare=False)

    @property
    def sides(self) -> tuple[str, ...]:
        return SIDE_CHOICES[self.side]

    @property
    def claims(self) -> tuple[str, ...]:
        """Gap references the notes claim (``gap: F-001``); a tested cell cannot also claim one."""
        return tuple(CLAIM_PATTERN.findall(self.notes))


@dataclass(frozen=True)
class Tombstone:
    id: str
    folded_into: str
    reason: str
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Catalogue:
    requirements: tuple[Requirement, ...]
    tombstones: tuple[Tombstone, ...] = ()

    def by_id(self) -> dict[str, Requirement]:
        return {r.id: r for r in self.requirements}


def parse_revisions(text: str) -> tuple[str, ...]:
    """Expand a revisions cell into the revisions it names, oldest first; ValueError if bad."""
    text = text.strip()
    if not text:
        raise ValueError("no revisions given")
    if ".." in text:
        first, _, last = (part.strip() for part in text.partition(".."))
        last = last or REVISIONS[-1]
        for revision in (first, last):
            if revision not in REVISIONS:
                raise ValueError(f"unknown revision {revision!r} (known: {', '.join(REVISIONS)})")
        if revision_index(first) > revision_index(last):
            raise ValueError(f"inverted revision range {text!r}: {first} comes after {last}")
        return REVISIONS[revision_index(first) : revision_index(last) + 1]
    listed = [part.strip() for part in text.split(",")]
    for revision in listed:
        if revision not in REVISIONS:
            raise ValueError(f"unknown revision {revision!r} (known: {', '.join(REVISIONS)})")
    if len(set(listed)) != len(listed):
        raise ValueError(f"revision listed twice in {text!r}")
    return tuple(sorted(listed, key=revision_index))


def render_revisions(revisions: tuple[str, ...]) -> str:
    """The shortest cell that parse_revisions expands back to ``revisions``."""
    indexes = [revision_index(r) for r in revisions]
    if len(revisions) == 1:
        return revisions[0]
    if indexes == list(range(indexes[0], indexes[-1] + 1)):
        return f"{revisions[0]}..{revisions[-1]}"
    return ", ".join(revisions)


def _cells(tokens: list[Token], start: int) -> tuple[list[str], int]:
    """The raw markdown of each cell of the row opening at tokens[start], and the index after it."""
    cells: list[str] = []
    index = start + 1
    while tokens[index].type != "tr_close":
        if tokens[index].type == "inline":
            cells.append(tokens[index].content.strip())
        index += 1
    return cells, index + 1


def _raw_cell_count(line: str) -> int:
    """Cells as written (markdown-it pads a short row with empty cells, which would hide it)."""
    return len(re.split(r"(?<!\\)\|", line.strip().strip("|")))


def _strip_code(text: str) -> str:
    return text.replace("`", "").strip()


def _extension_locator_problems(word: str, locator: Locator, area: str, revisions: tuple[str, ...]) -> list[str]:
    """A locator into an extension's specification belongs to that extension's area, and the row has
    only MCP revisions at which the located revision of the extension applies (none, for a draft)."""
    extension = EXTENSIONS[locator.extension]
    if area != extension.area:
        return [f"locator {word} is in the extension {extension.name}, whose rows are in the area {extension.area!r}"]
    applies_at = extension.applies_at[locator.revision]
    beyond = [revision for revision in revisions if revision not in applies_at]
    if not beyond:
        return []
    where = render_revisions(applies_at) if applies_at else "no MCP revision (it is kept out of the matrix)"
    return [f"locator {word}: {extension.name} {locator.revision} applies at {where}, not at {', '.join(beyond)}"]


def _parse_row(cells: list[str], area: str, line: int, path: Path) -> Requirement:
    values = dict(zip(COLUMNS, cells, strict=True))
    problems: list[str] = []
    requirement_id = _strip_code(values["id"])
    if not REQUIREMENT_ID.match(requirement_id):
        problems.append(f"id {requirement_id!r} is not kebab-case")
    elif not requirement_id.startswith(area + "-"):
        problems.append(f"id {requirement_id!r} does not start with its area {area + '-'!r}")
    revisions: tuple[str, ...] = ()
    try:
        revisions = parse_revisions(values["revisions"])
    except ValueError as exc:
        problems.append(str(exc))
    side = values["side"].strip().lower()
    if side not in SIDE_CHOICES:
        problems.append(f"unknown side {values['side']!r} (expected one of: {', '.join(SIDE_CHOICES)})")
    level = LEVEL_SYNONYMS.get(values["level"].strip().replace("*", ""))
    if level is None:
        problems.append(f"unknown level {values['level']!r} (expected an RFC 2119 keyword)")
    text = values["requirement"].strip()
    if not text:
        problems.append("empty requirement")
    sources: list[Locator] = []
    source_words = _strip_code(values["sources"]).split()
    if not source_words:
        problems.append("no source locator")
    for word in source_words:
        try:
            locator = Locator.parse(word)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if locator.extension:
            problems.extend(_extension_locator_problems(word, locator, area, revisions))
        elif revisions and locator.revision not in revisions:
            problems.append(f"locator {word} is in revision {locator.revision}, which the row does not have")
        sources.append(locator)
    if problems:
        raise InputError(path, line, f"requirement {requirement_id or '(no id)'}: " + "; ".join(problems))
    assert level is not None
    return Requirement(
        id=requirement_id,
        area=area,
        revisions=revisions,
        side=side,
        level=level,
        text=text,
        sources=tuple(sources),
        notes=values["notes"].strip(),
        line=line,
    )


def parse_catalogue(source: str, path: Path = CATALOGUE_PATH) -> Catalogue:
    """Parse the catalogue's markdown; raises InputErrors listing every malformed row."""
    tokens = _markdown.parse(source)
    source_lines = source.split("\n")
    errors: list[InputError] = []
    requirements: list[Requirement] = []
    tombstones: list[Tombstone] = []
    seen: dict[str, int] = {}
    area: str | None = None
    header: tuple[str, ...] = ()
    index = 0

    def claim(requirement_id: str, line: int) -> None:
        if requirement_id in seen:
            errors.append(
                InputError(path, line, f"duplicate id {requirement_id!r} (first at line {seen[requirement_id]})")
            )
        else:
            seen[requirement_id] = line

    while index < len(tokens):
        token = tokens[index]
        line = token.map[0] + 1 if token.map else 0
        if token.type == "heading_open" and token.tag == "h2":
            name = tokens[index + 1].content.strip().lower()
            area = name
            if name != TOMBSTONE_SECTION and name not in AREAS:
                errors.append(InputError(path, line, f"unknown area {name!r} (known: {', '.join(AREAS)})"))
                area = None
        elif token.type == "table_open" and area is None:
            errors.append(InputError(path, line, "table outside a known area section"))
        elif token.type == "thead_open":
            cells, index = _cells(tokens, index + 1)
            header = tuple(c.lower() for c in cells)
            expected = TOMBSTONE_COLUMNS if area == TOMBSTONE_SECTION else COLUMNS
            if area is not None and header != expected:
                errors.append(
                    InputError(path, line, f"table columns are {' | '.join(cells)}; expected {' | '.join(expected)}")
                )
                area = None
            continue
        elif token.type == "tr_open" and area is not None:
            cells, index = _cells(tokens, index)
            expected = TOMBSTONE_COLUMNS if area == TOMBSTONE_SECTION else COLUMNS
            written = _raw_cell_count(source_lines[line - 1])
            if written != len(expected):
                errors.append(InputError(path, line, f"row has {written} cells; expected {len(expected)}"))
                continue
            if area == TOMBSTONE_SECTION:
                tombstone = Tombstone(_strip_code(cells[0]), _strip_code(cells[1]), cells[2], line)
                claim(tombstone.id, line)
                tombstones.append(tombstone)
                continue
            try:
                requirement = _parse_row(cells, area, line, path)
            except InputError as exc:
                errors.append(exc)
                continue
            claim(requirement.id, line)
            requirements.append(requirement)
            continue
        index += 1

    known = {r.id for r in requirements}
    for tombstone in tombstones:
        if tombstone.folded_into not in known:
            errors.append(
                InputError(
                    path,
                    tombstone.line,
                    f"tombstone {tombstone.id!r} is folded into unknown id {tombstone.folded_into!r}",
                )
            )
    if errors:
        raise InputErrors(errors)
    return Catalogue(tuple(requirements), tuple(tombstones))


def load_catalogue(path: Path = CATALOGUE_PATH) -> Catalogue:
    return parse_catalogue(path.read_text(encoding="utf-8"), path)


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|").replace("\n", " ")


def render_table(requirements: list[Requirement]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in requirements:
        cells = (
            r.id,
            render_revisions(r.revisions),
            r.side,
            r.level,
            _escape(r.text),
            " ".join(f"`{s}`" for s in r.sources),
            _escape(r.notes),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render_catalogue(catalogue: Catalogue, preamble: str = "# Requirements\n") -> str:
    """Markdown that parse_catalogue reads back to ``catalogue`` (areas in vocabulary order)."""
    sections = [preamble]
    for area in AREAS:
        rows = [r for r in catalogue.requirements if r.area == area]
        if rows:
            sections.append(f"## {area}\n\n{render_table(rows)}")
    if catalogue.tombstones:
        rows = "\n".join(f"| {t.id} | {t.folded_into} | {_escape(t.reason)} |" for t in catalogue.tombstones)
        sections.append(f"## {TOMBSTONE_SECTION}\n\n| id | folded into | reason |\n|---|---|---|\n{rows}\n")
    return "\n".join(sections)
