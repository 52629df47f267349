"""Coverage declarations (``coverage/<area>.py``) and ``for_req``, which turns them into tests.

A coverage module defines ``COVERS`` and ``GAPS``:

    COVERS = [Cover("lifecycle-initialize-first", "server", "conformance/test_lifecycle.py::test_x")]
    GAPS = [Gap("lifecycle-version-fallback", "server", "F-001", "the SDK answers with ...")]

``for_req(id, side)`` parametrises a test over exactly the revisions its covers claim (by default
every revision the catalogue gives the requirement), with ids ``<rev>/<area>/<id>``, and marks
each gapped cell ``gapped``: it runs as an expected failure (``gap: <ref> <why>``). The run is built from the
covers, so the two cannot drift. Coverage modules are loaded by path: the folder is not a
package, so it never shadows coverage.py's ``coverage``.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TypeVar

import pytest

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputError, InputErrors
from conformance.catalogue.generator import NA_PREFIX, load_requirements
from conformance.catalogue.rows import parse_revisions
from conformance.catalogue.vocabulary import SIDES, TRANSPORT_REVISIONS
from conformance.harness.faults import Fault

COVERAGE_DIR = PROJECT_ROOT / "coverage"
GAP_REF = re.compile(r"^(#\d+|[FLN]-\d{3})$")

TestFunction = TypeVar("TestFunction", bound=Callable[..., object])


def _settle(declaration: Cover | Gap) -> None:
    """Record where a declaration was written, and expand a revisions string ("A..B", "A, B")."""
    if not declaration.path:
        frame = sys._getframe(3)
        object.__setattr__(declaration, "path", frame.f_code.co_filename)
        object.__setattr__(declaration, "line", frame.f_lineno)
    if isinstance(declaration.revisions, str):
        object.__setattr__(declaration, "revisions", parse_revisions(declaration.revisions))


@dataclass(frozen=True)
class Cover:
    """``test`` (a pytest node id without parameters) holds ``requirement`` for ``side``.

    ``fault`` is damage to the implementation's frames under which the test must fail
    (``make falsify``); every tested MUST / MUST NOT cell declares one.
    """

    requirement: str
    side: str
    test: str
    revisions: tuple[str, ...] | str | None = None
    fault: Fault | None = None
    path: str = field(default="", compare=False, repr=False)
    line: int = field(default=0, compare=False, repr=False)

    def __post_init__(self) -> None:
        _settle(self)


@dataclass(frozen=True)
class Gap:
    """``requirement`` is not met (finding ``F-NNN``), not yet tested (issue ``#N``), not testable from outside
    (limit ``L-NNN``) or, in a target's profile, about something that target does not offer (``N-NNN``) for ``side``."""

    requirement: str
    side: str
    ref: str
    why: str
    revisions: tuple[str, ...] | str | None = None
    path: str = field(default="", compare=False, repr=False)
    line: int = field(default=0, compare=False, repr=False)

    def __post_init__(self) -> None:
        _settle(self)


@dataclass(frozen=True)
class Coverage:
    covers: tuple[Cover, ...]
    gaps: tuple[Gap, ...]
    _covers_by_cell: dict[tuple[str, str], list[Cover]] = field(init=False, repr=False, compare=False)
    _gaps_by_cell: dict[tuple[str, str], list[Gap]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        covers: dict[tuple[str, str], list[Cover]] = {}
        gaps: dict[tuple[str, str], list[Gap]] = {}
        for cover in self.covers:
            covers.setdefault((cover.requirement, cover.side), []).append(cover)
        for gap in self.gaps:
            gaps.setdefault((gap.requirement, gap.side), []).append(gap)
        object.__setattr__(self, "_covers_by_cell", covers)
        object.__setattr__(self, "_gaps_by_cell", gaps)

    def covers_of(self, requirement: str, side: str) -> list[Cover]:
        return self._covers_by_cell.get((requirement, side), [])

    def gap_of(self, requirement: str, revision: str, side: str, requirements: dict[str, dict]) -> Gap | None:
        for gap in self._gaps_by_cell.get((requirement, side), ()):
            if revision in (gap.revisions or requirements[requirement]["revisions"]):
                return gap
        return None


def load_module(path: Path) -> object:
    spec = importlib.util.spec_from_file_location(f"mcp_matrix_coverage_{path.stem.replace('-', '_')}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line_in(exc: BaseException, path: Path) -> int | None:
    """The line of ``path`` where ``exc`` was raised (or its syntax error's line)."""
    if isinstance(exc, SyntaxError):
        return exc.lineno
    lines = [t.lineno for t in traceback.extract_tb(exc.__traceback__) if Path(t.filename) == path]
    return lines[-1] if lines else None


def load_coverage(directory: Path = COVERAGE_DIR) -> Coverage:
    """Every coverage module's COVERS and GAPS; a module that defines neither is refused."""
    covers: list[Cover] = []
    gaps: list[Gap] = []
    errors: list[InputError] = []
    for path in sorted(directory.glob("*.py")):
        try:
            module = load_module(path)
        except Exception as exc:  # a broken module is reported with its location, not a traceback
            errors.append(InputError(path, _line_in(exc, path), f"cannot load coverage module: {exc}"))
            continue
        module_covers = getattr(module, "COVERS", None)
        module_gaps = getattr(module, "GAPS", None)
        if module_covers is None and module_gaps is None:
            errors.append(InputError(path, None, "coverage module defines neither COVERS nor GAPS"))
            continue
        for item in module_covers or ():
            if not isinstance(item, Cover):
                errors.append(InputError(path, None, f"COVERS holds {item!r}, which is not a Cover"))
            else:
                covers.append(item)
        for item in module_gaps or ():
            if not isinstance(item, Gap):
                errors.append(InputError(path, None, f"GAPS holds {item!r}, which is not a Gap"))
            else:
                gaps.append(item)
    if errors:
        raise InputErrors(errors)
    return Coverage(tuple(covers), tuple(gaps))


@cache
def registry() -> tuple[dict[str, dict], Coverage]:
    """The committed requirements.json (by id) and the coverage modules, loaded once a process."""
    requirements = {r["id"]: r for r in load_requirements()["requirements"]}
    return requirements, load_coverage()


def node_id(function: Callable[..., object]) -> str:
    """The pytest node id (without parameters) of a test function defined at module or class level."""
    return f"{_project_path(inspect.getfile(function))}::{function.__qualname__.replace('.', '::')}"


@cache
def _project_path(filename: str) -> str:
    return Path(filename).resolve().relative_to(PROJECT_ROOT).as_posix()


def run_gaps() -> bool:
    return os.environ.get("RUN_GAPS", "") not in ("", "0")


def param_id(revision: str, requirement: dict) -> str:
    return f"{revision}/{requirement['area']}/{requirement['id']}"


TRANSPORT_SEPARATOR = "@"
FAULT_SEPARATOR = "+fault"  # a test id's further declared fault: ``<rev>/<area>/<id>@stdio+fault2``


def for_req(
    requirement_id: str,
    side: str,
    transports: tuple[str, ...] = (),
    not_over: dict[str, tuple[str, ...]] | None = None,
) -> Callable[[TestFunction], TestFunction]:
    """Parametrise a test over the cells of ``requirement_id`` / ``side`` that its covers claim.

    The test takes a ``revision`` argument. Without a cover naming it, the test runs every revision
    of the requirement (its cells then read MISSING or gap in the matrix, never tested). A gapped
    cell is marked ``gapped`` with its gap's reference and reason; the plugin runs it as a strict
    expected failure (a gapped cell that passes is a stale gap) unless ``RUN_GAPS=1``, which runs it as
    an ordinary test (``RUN_GAPS=1 pytest -m gapped`` runs exactly those); a requirement that does not bind
    ``side`` is a usage error.

    With ``transports``, the test also takes a ``transport`` argument and runs each revision over
    each of those transports that the revision defines, with ids ``<rev>/<area>/<id>@<transport>``:
    for requirements about the session or the messages, which hold over every transport. ``not_over``
    (revision -> transports) leaves out the pairs where the revision gives the situation no way to arise
    over that transport (a 2026-07-28 client sends no notification over Streamable HTTP), so that no
    test item is collected only to skip.
    """
    requirements, coverage = registry()
    if requirement_id not in requirements:
        raise LookupError(f"for_req: unknown requirement id {requirement_id!r}")
    if side not in SIDES:
        raise ValueError(f"for_req: unknown side {side!r}")
    requirement = requirements[requirement_id]
    applicability = requirement["applicability"][side]
    if applicability.startswith(NA_PREFIX):
        raise ValueError(f"for_req: {requirement_id} does not bind the {side} ({applicability})")

    def decorate(function: TestFunction) -> TestFunction:
        test = node_id(function)
        faults: dict[str, list[Fault]] = {}  # revision -> the faults of the covers claiming it
        for cover in coverage.covers_of(requirement_id, side):
            if cover.test == test:
                for revision in cover.revisions or requirement["revisions"]:
                    faults.setdefault(revision, []).extend([cover.fault] if cover.fault is not None else [])
        revisions = [r for r in requirement["revisions"] if r in faults] or requirement["revisions"]
        params = []
        for revision in revisions:
            gap = coverage.gap_of(requirement_id, revision, side, requirements)
            # One item per declared fault: the first is the cell's own; each further one (a clause
            # another fault proves) is an item of its own that only --falsify runs.
            for number, fault in enumerate(faults.get(revision) or [None], start=1):
                marker = pytest.mark.requirement(requirement_id, side, fault=fault, further_fault=number > 1)
                marks: list[pytest.MarkDecorator] = [marker]
                if gap is not None:  # the plugin, which knows the target, makes it an expected failure
                    marks.append(pytest.mark.gapped(gap.ref, why=gap.why))
                suffix = f"{FAULT_SEPARATOR}{number}" if number > 1 else ""
                if transports:
                    left_out = (not_over or {}).get(revision, ())
                    available = [t for t in transports if revision in TRANSPORT_REVISIONS[t] and t not in left_out]
                    params.extend(
                        pytest.param(
                            revision,
                            transport,
                            id=f"{param_id(revision, requirement)}{TRANSPORT_SEPARATOR}{transport}{suffix}",
                            marks=marks,
                        )
                        for transport in available
                    )
                else:
                    params.append(pytest.param(revision, id=f"{param_id(revision, requirement)}{suffix}", marks=marks))
        return pytest.mark.parametrize(("revision", "transport") if transports else "revision", params)(function)

    return decorate


def gaps(ref: str, why: str, cells: dict[str, str]) -> list[Gap]:
    """One Gap per cell of ``cells`` (requirement id -> ``server``, ``client`` or ``both``), all revisions.

    For the long explicit lists of catalogued-but-untested requirements; the ids stay written out,
    so deleting a cover of an id not listed here still leaves its cells MISSING.
    """
    frame = sys._getframe(1)
    return [
        Gap(requirement, side, ref, why, path=frame.f_code.co_filename, line=frame.f_lineno)
        for requirement, sides in cells.items()
        for side in (SIDES if sides == "both" else (sides,))
    ]
