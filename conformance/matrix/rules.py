"""The meta-test's rules: small, named, each returning the problems it finds (empty = holds).

Each rule takes a ``MetaContext``; ``conformance/test_matrix.py`` runs one test per rule and
``tests/test_meta_rules.py`` feeds each rule a bad fixture. ``MATRIX_AREAS=tools,resources``
narrows every rule but the regeneration diff to those areas.
"""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from conformance import PROJECT_ROOT
from conformance.catalogue.generator import NA_PREFIX
from conformance.catalogue.vocabulary import area_of
from conformance.matrix.build import DEFAULT_PROFILE, Build
from conformance.matrix.cells import REFERENCE_DIRS, reference_document
from conformance.matrix.covers import GAP_REF, TRANSPORT_SEPARATOR, Cover, Coverage, Gap, param_id

COLLECT_TIMEOUT_SECONDS = 120


def collect_node_ids(files: list[str]) -> set[str]:
    """Node ids pytest collects from ``files`` (in a subprocess: the run's own collection may be narrower)."""
    if not files:
        return set()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", *files],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=COLLECT_TIMEOUT_SECONDS,
        env=os.environ | {"RUN_GAPS": "1"},
    )
    if result.returncode not in (0, 5):
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-15:])
        raise RuntimeError(f"pytest could not collect {' '.join(files)}:\n{tail}")
    return {line.strip() for line in result.stdout.splitlines() if "::" in line}


def collect_in_background(files: list[str]) -> Callable[[list[str]], set[str]]:
    """Start collecting ``files`` now (pytest's start-up is most of the meta-test's time) and
    return a collector that waits for that result; it overlaps with building the matrix."""
    executor = ThreadPoolExecutor(max_workers=1)
    future = executor.submit(collect_node_ids, files)
    executor.shutdown(wait=False)

    def collector(wanted: list[str]) -> set[str]:
        if set(wanted) - set(files):
            return future.result() | collect_node_ids(sorted(set(wanted) - set(files)))
        return future.result()

    return collector


def cover_files(coverage: Coverage) -> list[str]:
    return sorted({c.test.split("::", 1)[0] for c in coverage.covers})


@dataclass
class MetaContext:
    build: Build
    areas: frozenset[str] | None = None  # None: every area
    collector: Callable[[list[str]], set[str]] = collect_node_ids
    expected: dict[Path, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.expected:
            self.expected = self.build.expected_files()

    @cached_property
    def requirements(self) -> dict[str, dict]:
        return {r["id"]: r for r in self.build.requirements["requirements"]}

    def area_in_scope(self, area: str) -> bool:
        return self.areas is None or area in self.areas

    def in_scope(self, requirement_id: str) -> bool:
        requirement = self.requirements.get(requirement_id)
        return self.area_in_scope(requirement["area"] if requirement else area_of(requirement_id) or "")

    @property
    def covers(self) -> list[Cover]:
        return [c for c in self.build.coverage.covers if self.in_scope(c.requirement)]

    @property
    def gaps(self) -> list[Gap]:
        return [g for g in self.build.coverage.gaps if self.in_scope(g.requirement)]

    def collects(self, prefix: str) -> bool:
        """Whether pytest collects ``prefix]`` (one cell) or ``prefix@<transport>]`` (that cell over a transport)."""
        return f"{prefix}]" in self.collected or any(
            n.startswith(f"{prefix}{TRANSPORT_SEPARATOR}")
            for n in self._collected_by_test.get(prefix.split("[", 1)[0], ())
        )

    @cached_property
    def _collected_by_test(self) -> dict[str, list[str]]:
        grouped: dict[str, list[str]] = {}
        for node in self.collected:
            grouped.setdefault(node.split("[", 1)[0], []).append(node)
        return grouped

    @cached_property
    def collected(self) -> set[str]:
        files = sorted({c.test.split("::", 1)[0] for c in self.covers if c.requirement in self.requirements})
        return self.collector(files)


def _where(declaration: Cover | Gap) -> str:
    path = Path(declaration.path)
    shown = path.relative_to(PROJECT_ROOT) if path.is_relative_to(PROJECT_ROOT) else path
    return f"{shown}:{declaration.line}"


def _describe(declaration: Cover | Gap) -> str:
    kind = "cover" if isinstance(declaration, Cover) else "gap"
    return f"{_where(declaration)}: {kind} {declaration.requirement} / {declaration.side}"


def rule_generated_files_current(ctx: MetaContext) -> list[str]:
    """requirements.json and the matrix docs are exactly what the inputs generate."""
    problems = []
    for path, text in ctx.expected.items():
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != text:
            diff = list(
                difflib.unified_diff(
                    current.splitlines(), text.splitlines(), "committed", "generated", n=0, lineterm=""
                )
            )
            shown = "\n    ".join(diff[2:12]) + ("\n    ..." if len(diff) > 12 else "")
            problems.append(
                f"{path.relative_to(PROJECT_ROOT)} is stale (regenerate with MATRIX_UPDATE=1 pytest):\n    {shown}"
            )
    return problems


def rule_declarations_name_known_requirements(ctx: MetaContext) -> list[str]:
    """Every cover and gap names a requirement of the catalogue."""
    return [
        f"{_describe(d)}: unknown requirement id"
        for d in [*ctx.covers, *ctx.gaps]
        if d.requirement not in ctx.requirements
    ]


def rule_declarations_within_revisions(ctx: MetaContext) -> list[str]:
    """A cover or gap claims only revisions the requirement has."""
    problems = []
    for d in [*ctx.covers, *ctx.gaps]:
        requirement = ctx.requirements.get(d.requirement)
        if requirement and d.revisions:
            extra = [r for r in d.revisions if r not in requirement["revisions"]]
            if extra:
                problems.append(
                    f"{_describe(d)}: claims revision(s) {', '.join(extra)}, but the requirement has only "
                    f"{', '.join(requirement['revisions'])}"
                )
    return problems


def rule_declarations_bind_side(ctx: MetaContext) -> list[str]:
    """No cover or gap for a side the requirement does not bind (that cell is n/a)."""
    problems = []
    for d in [*ctx.covers, *ctx.gaps]:
        requirement = ctx.requirements.get(d.requirement)
        if requirement is None:
            continue
        applicability = requirement["applicability"].get(d.side)
        if applicability is None:
            problems.append(f"{_describe(d)}: unknown side {d.side!r}")
        elif applicability.startswith(NA_PREFIX):
            problems.append(f"{_describe(d)}: the cell is n/a ({applicability.removeprefix(NA_PREFIX)})")
    return problems


def rule_gaps_name_a_finding_or_issue(ctx: MetaContext) -> list[str]:
    """A gap names an issue (#N), or a finding (F-NNN), a limit (L-NNN) or a feature not offered (N-NNN) whose
    file exists, and says why."""
    problems = []
    for gap in ctx.gaps:
        if not GAP_REF.fullmatch(gap.ref):
            problems.append(
                f"{_describe(gap)}: reference {gap.ref!r} is neither "
                "an issue (#N), a finding (F-NNN), a limit (L-NNN) nor a feature not offered (N-NNN)"
            )
        elif gap.ref[:2] in REFERENCE_DIRS and reference_document(gap.ref) is None:
            directory = REFERENCE_DIRS[gap.ref[:2]].relative_to(PROJECT_ROOT).as_posix()
            kind = {"F-": "finding", "L-": "limit", "N-": "feature not offered"}[gap.ref[:2]]
            problems.append(f"{_describe(gap)}: {kind} {gap.ref} has no {directory}/{gap.ref[2:]}-*.md")
        if not gap.why.strip():
            problems.append(f"{_describe(gap)}: says no why")
    return problems


def rule_one_gap_per_cell(ctx: MetaContext) -> list[str]:
    """No cell is gapped twice."""
    seen: dict[tuple[str, str, str], Gap] = {}
    problems = []
    for gap in ctx.gaps:
        requirement = ctx.requirements.get(gap.requirement)
        if requirement is None:
            continue
        for revision in gap.revisions or requirement["revisions"]:
            key = (gap.requirement, revision, gap.side)
            if key in seen:
                problems.append(f"{_describe(gap)}: cell {revision} is already gapped at {_where(seen[key])}")
            seen.setdefault(key, gap)
    return problems


def is_default_target_gap(gap: Gap) -> bool:
    """A gap of the default target's own profile (a situation it offers no test), not of the suite."""
    return Path(gap.path) == DEFAULT_PROFILE


def rule_covers_claim_testable_cells(ctx: MetaContext) -> list[str]:
    """A cover does not name a gapped revision explicitly, and not every cell it claims is gapped."""
    problems = []
    for cover in ctx.covers:
        requirement = ctx.requirements.get(cover.requirement)
        if requirement is None:
            continue
        claimed = [r for r in (cover.revisions or requirement["revisions"]) if r in requirement["revisions"]]
        gapped = [
            r
            for r in claimed
            if (gap := ctx.build.coverage.gap_of(cover.requirement, r, cover.side, ctx.requirements))
            and not is_default_target_gap(gap)  # the test still covers the cell on the targets that offer it
        ]
        if cover.revisions and gapped:
            problems.append(
                f"{_describe(cover)}: claims revision(s) {', '.join(gapped)} that are gapped; "
                "a cell is tested or gapped, not both"
            )
        elif claimed and len(gapped) == len(claimed):
            problems.append(f"{_describe(cover)}: every cell it claims is gapped, so {cover.test} covers nothing")
    return problems


def rule_covers_name_collected_tests(ctx: MetaContext) -> list[str]:
    """Every cell a cover claims is a test pytest collects (``<test>[<rev>/<area>/<id>]``)."""
    problems = []
    for cover in ctx.covers:
        requirement = ctx.requirements.get(cover.requirement)
        if requirement is None:
            continue
        claimed = [r for r in (cover.revisions or requirement["revisions"]) if r in requirement["revisions"]]
        absent = [r for r in claimed if not ctx.collects(f"{cover.test}[{param_id(r, requirement)}")]
        if absent:
            problems.append(
                f"{_describe(cover)}: pytest collects no {cover.test}[<rev>/{requirement['area']}/{cover.requirement}] "
                f"for {', '.join(absent)} (misspelt test, or not decorated with "
                f"for_req({cover.requirement!r}, {cover.side!r}))"
            )
    return problems


def rule_tested_cells_claim_no_gap(ctx: MetaContext) -> list[str]:
    """A tested cell's catalogue note does not claim a gap: the note and the test cannot both be right."""
    return [
        f"{c.requirement} {c.revision} {c.side}: tested by {c.tests[0]}, but the catalogue note claims gap "
        f"{', '.join(ctx.requirements[c.requirement]['claims'])}"
        for c in ctx.build.cells
        if c.state == "tested" and ctx.area_in_scope(c.area) and ctx.requirements[c.requirement]["claims"]
    ]


def rule_no_missing_cells(ctx: MetaContext) -> list[str]:
    """Every cell is tested, n/a or gap."""
    return [
        f"MISSING {c.revision} {c.side} {c.level} {c.requirement}"
        for c in ctx.build.cells
        if c.state == "MISSING" and ctx.area_in_scope(c.area)
    ]


def rule_must_cells_declare_a_fault(ctx: MetaContext) -> list[str]:
    """A cover of a MUST / MUST NOT requirement names the fault under which its test must fail."""
    return [
        f"{_describe(cover)}: covers a {ctx.requirements[cover.requirement]['level']} requirement but declares no "
        "fault (make falsify must show that the test can fail)"
        for cover in ctx.covers
        if cover.requirement in ctx.requirements
        and ctx.requirements[cover.requirement]["level"] in ("MUST", "MUST NOT")
        and cover.fault is None
    ]


RULES: tuple[Callable[[MetaContext], list[str]], ...] = (
    rule_generated_files_current,
    rule_declarations_name_known_requirements,
    rule_declarations_within_revisions,
    rule_declarations_bind_side,
    rule_gaps_name_a_finding_or_issue,
    rule_one_gap_per_cell,
    rule_covers_claim_testable_cells,
    rule_covers_name_collected_tests,
    rule_tested_cells_claim_no_gap,
    rule_must_cells_declare_a_fault,
    rule_no_missing_cells,
)


def areas_from_environment() -> frozenset[str] | None:
    value = os.environ.get("MATRIX_AREAS", "").strip()
    return frozenset(a.strip() for a in value.split(",") if a.strip()) or None
