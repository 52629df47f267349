"""Overrides: ``overrides/<area>.yaml``, each entry with its mandatory reason.

Two kinds of entry, under two top-level keys:

``applicability``
    re-judges whether a catalogue row binds a side: ``{id, side, applies: true|false, reason}``.
    An entry for an unknown id, or two for the same id and side, are refused.
``not-requirements``
    accounts for a swept normative sentence that is not a requirement of its own:
    ``{fingerprint, revisions (optional, default: every revision), reason}``; the reason says what
    it is instead (an example, a restatement of row X, a definition, a changelog entry). A sentence of an
    extension's specification names the extension too: ``{fingerprint, extension, revisions (the
    extension's own, comma-separated; default: all of them), reason}``.

A reason that names an id since folded into another row (a tombstone) is refused, naming the row to
cite instead; a value YAML reads as a number (a fingerprint of digits only, unquoted) is refused too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputError, InputErrors, parse_yaml
from conformance.catalogue.rows import Catalogue, parse_revisions
from conformance.catalogue.vocabulary import EXTENSIONS, REVISIONS, SIDES

OVERRIDES_DIR = PROJECT_ROOT / "overrides"
_FINGERPRINT = re.compile(r"^[0-9a-f]{12}$")


@dataclass(frozen=True)
class ApplicabilityOverride:
    id: str
    side: str
    applies: bool
    reason: str
    path: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class NotRequirement:
    fingerprint: str
    revisions: tuple[str, ...]
    reason: str
    path: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)
    extension: str = ""  # the extension whose revisions ``revisions`` names; "" for MCP's


def _extension_revisions(item: dict) -> tuple[str, tuple[str, ...]]:
    """The extension a not-requirement names and the revisions of it; ValueError saying what is wrong."""
    name = str(item["extension"])
    if name not in EXTENSIONS:
        raise ValueError(f"unknown extension {name!r} (known: {', '.join(EXTENSIONS)})")
    known = EXTENSIONS[name].revisions
    if "revisions" not in item:
        return name, known
    listed = tuple(part.strip() for part in str(item["revisions"]).split(","))
    unknown = [revision for revision in listed if revision not in known]
    if unknown:
        raise ValueError(f"{name} has no revision {', '.join(unknown)} (known: {', '.join(known)})")
    return name, listed


@dataclass(frozen=True)
class Overrides:
    applicability: tuple[ApplicabilityOverride, ...] = ()
    not_requirements: tuple[NotRequirement, ...] = ()


def _entries(path: Path, text: str, key: str, errors: list[InputError]) -> list[tuple[dict, int]]:
    """(entry, line) for each mapping under ``key``; YAML's own node marks give the lines."""
    try:
        root, data = parse_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        errors.append(InputError(path, mark.line + 1 if mark else None, f"not valid YAML: {exc}"))
        return []
    if data is None:
        return []
    if not isinstance(data, dict) or root is None:
        errors.append(InputError(path, 1, "expected a mapping with 'applicability' and/or 'not-requirements'"))
        return []
    unknown = set(data) - {"applicability", "not-requirements"}
    if unknown:
        errors.append(InputError(path, 1, f"unknown top-level key(s): {', '.join(sorted(map(str, unknown)))}"))
    items = data.get(key) or []
    nodes = next((v.value for k, v in root.value if k.value == key), [])
    if not isinstance(items, list):
        errors.append(InputError(path, 1, f"{key!r} must be a list"))
        return []
    found = []
    for item, node in zip(items, nodes, strict=True):
        line = node.start_mark.line + 1
        if not isinstance(item, dict):
            errors.append(InputError(path, line, f"{key} entry must be a mapping"))
            continue
        if _unquoted_number(item, node, "fingerprint", path, errors):
            continue
        found.append((item, line))
    return found


def _unquoted_number(item: dict, node: yaml.Node, name: str, path: Path, errors: list[InputError]) -> bool:
    """A value YAML read as a number (a fingerprint made only of digits, written without quotes):
    refused, naming the line, since its text is not what the loader gets (``012345670123`` is an
    octal integer, and a leading zero is lost)."""
    if not isinstance(item.get(name), int | float) or isinstance(item.get(name), bool):
        return False
    value = next((v for k, v in node.value if k.value == name), None)
    written = value.value if isinstance(value, yaml.ScalarNode) else repr(item[name])
    line = value.start_mark.line + 1 if value is not None else node.start_mark.line + 1
    errors.append(
        InputError(
            path,
            line,
            f'{name} {written} is not quoted, so YAML reads it as a number, not as text: write {name}: "{written}"',
        )
    )
    return True


def _reason(
    item: dict, path: Path, line: int, errors: list[InputError], folded: dict[str, str] | None = None
) -> str | None:
    reason = item.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        errors.append(InputError(path, line, "entry has no reason (every override must say why)"))
        return None
    for old, new in (folded or {}).items():
        if re.search(rf"(?<![\w-]){re.escape(old)}(?![\w-])", reason):
            errors.append(InputError(path, line, f"reason names {old}, since folded into {new}: name {new}"))
    return reason.strip()


def parse_overrides(files: dict[Path, str], catalogue: Catalogue) -> Overrides:
    """Parse override files (path -> text) against the catalogue; InputErrors lists every problem."""
    errors: list[InputError] = []
    applicability: list[ApplicabilityOverride] = []
    not_requirements: list[NotRequirement] = []
    known = catalogue.by_id()
    seen_sides: dict[tuple[str, str], str] = {}
    seen_fingerprints: dict[tuple[str, str], str] = {}
    folded = {t.id: t.folded_into for t in catalogue.tombstones}
    for path, text in sorted(files.items()):
        for item, line in _entries(path, text, "applicability", errors):
            reason = _reason(item, path, line, errors, folded)
            requirement_id, side, applies = item.get("id"), item.get("side"), item.get("applies")
            if requirement_id not in known:
                errors.append(InputError(path, line, f"override for unknown requirement id {requirement_id!r}"))
                continue
            if side not in SIDES:
                errors.append(InputError(path, line, f"unknown side {side!r} (expected one of: {', '.join(SIDES)})"))
                continue
            if not isinstance(applies, bool):
                errors.append(InputError(path, line, "'applies' must be true or false"))
                continue
            where = f"{path}:{line}"
            if (requirement_id, side) in seen_sides:
                errors.append(
                    InputError(
                        path,
                        line,
                        f"second override for {requirement_id} / {side} (first at {seen_sides[requirement_id, side]})",
                    )
                )
                continue
            seen_sides[requirement_id, side] = where
            if reason is not None:
                applicability.append(ApplicabilityOverride(requirement_id, side, applies, reason, str(path), line))
        for item, line in _entries(path, text, "not-requirements", errors):
            reason = _reason(item, path, line, errors, folded)
            fingerprint = str(item.get("fingerprint", ""))
            if not _FINGERPRINT.match(fingerprint):
                errors.append(InputError(path, line, f"fingerprint {fingerprint!r} is not 12 hex digits"))
                continue
            extension = ""
            try:
                if "extension" in item:
                    extension, revisions = _extension_revisions(item)
                else:
                    revisions = parse_revisions(str(item["revisions"])) if "revisions" in item else REVISIONS
            except ValueError as exc:
                errors.append(InputError(path, line, str(exc)))
                continue
            if (extension, fingerprint) in seen_fingerprints:
                first = seen_fingerprints[extension, fingerprint]
                errors.append(
                    InputError(path, line, f"fingerprint {fingerprint} accounted for twice (first at {first})")
                )
                continue
            seen_fingerprints[extension, fingerprint] = f"{path}:{line}"
            if reason is not None:
                not_requirements.append(NotRequirement(fingerprint, revisions, reason, str(path), line, extension))
    if errors:
        raise InputErrors(errors)
    return Overrides(tuple(applicability), tuple(not_requirements))


def load_overrides(catalogue: Catalogue, directory: Path = OVERRIDES_DIR) -> Overrides:
    files = {path: path.read_text(encoding="utf-8") for path in sorted(directory.glob("*.yaml"))}
    return parse_overrides(files, catalogue)
