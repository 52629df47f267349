"""A report per run: ``reports/<target>/report.{md,html,json}`` (and pytest's JUnit beside them).

Per cell (requirement, revision, side): its outcome at its level, the outcome over each transport,
the evidence of a ``fail`` / ``warn`` (quoted, capped), the kept trace and a link to the clause;
above them the headline (``MUST: N passed, N failed; SHOULD: ...``). ``report.json`` follows
``conformance/run/report.schema.json`` and is byte-identical for the same outcomes: no times, no
run ids, loopback ports and process ids scrubbed from the evidence.

The run's directory holds everything of that run (traces, server logs, the probe's sessions) and a
marker naming the run that wrote it. A new run of the same target replaces only a directory that
carries the marker; one without it is refused, named, and left as it is.
"""

from __future__ import annotations

import fcntl
import html
import json
import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputError
from conformance.catalogue.vocabulary import REVISIONS, revision_index
from conformance.run.outcomes import cell_outcome, headline
from conformance.run.targets import Target

REPORTS_VARIABLE = "MCP_MATRIX_REPORTS"  # where run directories go (default: reports/ in the project)
MARKER = ".mcp-matrix-run"
SCHEMA_PATH = Path(__file__).with_name("report.schema.json")
EVIDENCE_CHARS = 2000
SPEC_SITE = "https://modelcontextprotocol.io/specification"


def reports_root() -> Path:
    return Path(os.environ.get(REPORTS_VARIABLE) or PROJECT_ROOT / "reports")


def run_directory(target: Target, kind: str = "") -> Path:
    """``reports/<target>/`` (``<target>.<kind>`` for another kind of run of it, such as ``falsify``)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", target.name)
    return reports_root() / (f"{name}.{kind}" if kind else name)


def prepare(directory: Path, run: str) -> Path:
    """``directory`` emptied and marked as written by ``run``; one there that the suite did not mark is
    refused (InputError), never cleared."""
    _lock_target(directory)
    if directory.exists():
        if not (directory / MARKER).is_file():
            raise InputError(
                directory,
                None,
                f"exists but was not written by mcp-matrix (no {MARKER} in it); refusing to clear it: "
                f"move it away or set {REPORTS_VARIABLE} to another folder",
            )
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    (directory / MARKER).write_text(f"{run}\n", encoding="utf-8")
    return directory


_LOCKS: list[IO[str]] = []  # held open for the life of the run


def _lock_target(directory: Path) -> None:
    """One run of a target at a time per reports folder: a second would clear the first's evidence."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    lock = (directory.parent / f".{directory.name}.lock").open("a+", encoding="utf-8")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip()
        lock.close()
        raise InputError(
            directory,
            None,
            f"another run of this target is writing here ({holder}); wait for it, or set "
            f"{REPORTS_VARIABLE} to another folder",
        ) from None
    lock.truncate(0)
    lock.write(f"pid {os.getpid()}\n")
    lock.flush()
    _LOCKS.append(lock)


def release_locks() -> None:
    """The run is over: let go of its report directories (closed here, not left to the interpreter's
    shutdown, which warns of files still open)."""
    while _LOCKS:
        _LOCKS.pop().close()


@dataclass
class TestResult:
    """One test's part in a cell, as the plugin recorded it."""

    requirement: str
    revision: str
    side: str
    outcome: str
    transport: str = ""
    evidence: str = ""
    traces: tuple[str, ...] = ()  # its sessions' traces, where kept
    known_finding: str = ""
    gapped: bool = False


@dataclass
class Cell:
    requirement: str
    revision: str
    side: str
    level: str
    outcome: str
    transports: dict[str, str] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)
    traces: list[str] = field(default_factory=list)
    clause: str = ""
    known_finding: str = ""


def scrub(text: str) -> str:
    """Evidence without what differs between two runs of the same outcome: ports, pids, capped."""
    text = re.sub(r"(127\.0\.0\.1|localhost|\[::1\]):\d+", r"\1:PORT", text)
    text = re.sub(r"\b(pid[ =:]+)\d+", r"\1N", text)
    return text if len(text) <= EVIDENCE_CHARS else text[:EVIDENCE_CHARS] + " [...]"


def clause_url(sources: list[str], revision: str) -> str:
    """A link to the clause of a row at ``revision``: its locator of that revision, or the latest earlier."""
    usable = [s for s in sources if s.split("/", 1)[0] in REVISIONS]
    usable = [s for s in usable if revision_index(s.split("/", 1)[0]) <= revision_index(revision)] or usable
    if not usable:
        return ""
    locator = max(usable, key=lambda s: revision_index(s.split("/", 1)[0]))
    where = locator.rsplit("@", 1)[0]
    page, _, anchor = where.partition("#")
    page = page.removesuffix("/index").removesuffix(".json")
    if page.endswith("/schema"):
        anchor = anchor.lower()
    return f"{SPEC_SITE}/{page}" + (f"#{anchor}" if anchor else "")


def cells_of(results: Iterable[TestResult], requirements: dict[str, dict]) -> list[Cell]:
    grouped: dict[tuple[str, str, str], list[TestResult]] = {}
    for result in results:
        grouped.setdefault((result.requirement, result.revision, result.side), []).append(result)
    cells = []
    for (requirement, revision, side), parts in sorted(grouped.items()):
        row = requirements[requirement]
        transports: dict[str, list[str]] = {}
        for part in parts:
            transports.setdefault(part.transport or "-", []).append(part.outcome)
        cells.append(
            Cell(
                requirement,
                revision,
                side,
                row["level"],
                cell_outcome(p.outcome for p in parts),
                {transport: cell_outcome(outcomes) for transport, outcomes in sorted(transports.items())},
                sorted({scrub(p.evidence) for p in parts if p.evidence}),
                sorted({trace for p in parts for trace in p.traces}),
                clause_url(row["sources"], revision),
                next((p.known_finding for p in parts if p.known_finding), ""),
            )
        )
    return cells


def report_data(
    target: Target, cells: list[Cell], not_implemented: dict[str, str], not_offered: tuple[str, ...] = ()
) -> dict:
    return {
        "target": {"name": target.name, "describes": target.describes, "built-on": target.built_on},
        "headline": headline(((c.level, c.outcome) for c in cells), not_implemented, not_offered),
        "sides-not-offered": list(not_offered),
        "revisions-not-implemented": [
            {"revision": key.split(" ", 1)[0], "side": key.split(" ", 1)[1], "why": why}
            for key, why in sorted(not_implemented.items())
        ],
        "cells": [
            {
                "requirement": c.requirement,
                "revision": c.revision,
                "side": c.side,
                "level": c.level,
                "outcome": c.outcome,
                "transports": c.transports,
                "evidence": c.evidence,
                "traces": c.traces,
                "clause": c.clause,
                "known-finding": c.known_finding,
            }
            for c in cells
        ],
    }


def write(
    directory: Path,
    target: Target,
    results: Iterable[TestResult],
    requirements: dict[str, dict],
    not_implemented: dict[str, str],
    not_offered: tuple[str, ...] = (),
) -> tuple[Path, str]:
    """Write the run's report.json, report.md and report.html into ``directory``; return the headline.

    ``not_implemented`` maps ``"<revision> <side>"`` to what the probe saw."""
    directory.mkdir(parents=True, exist_ok=True)
    data = report_data(target, cells_of(results, requirements), not_implemented, not_offered)
    (directory / "report.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (directory / "report.md").write_text(_markdown(data), encoding="utf-8")
    (directory / "report.html").write_text(_html(data), encoding="utf-8")
    return data["headline"]


ORDER = ("fail", "warn", "inconclusive", "gap", "not-exercised", "fixture-missing", "pass")  # in the listings


def _markdown(data: dict) -> str:
    target = data["target"]
    lines = [
        f"# mcp-matrix report: {target['name']}",
        "",
        f"{target['describes']}" + (f" (built on {target['built-on']})" if target["built-on"] else ""),
        "",
        f"**{data['headline']}**",
        "",
    ]
    for entry in data["revisions-not-implemented"]:
        lines.append(f"- {entry['revision']} ({entry['side']}) not implemented: {entry['why']}")
    for side in data["sides-not-offered"]:
        lines.append(f"- no {side} offered: its cells are not run")
    lines += ["", "| cell | level | outcome | transports | evidence |", "|---|---|---|---|---|"]
    for cell in sorted(data["cells"], key=lambda c: ORDER.index(c["outcome"])):
        name = f"[{cell['requirement']}]({cell['clause']})" if cell["clause"] else cell["requirement"]
        transports = ", ".join(f"{t}: {o}" for t, o in cell["transports"].items())
        evidence = " / ".join(cell["evidence"])[:400].replace("|", "\\|").replace("\n", " ")
        if cell["known-finding"]:
            evidence = f"known upstream: {cell['known-finding']}. {evidence}"
        lines.append(
            f"| {name} {cell['revision']} {cell['side']} | {cell['level']} | {cell['outcome']} | {transports} "
            f"| {evidence} |"
        )
    return "\n".join(lines) + "\n"


def _html(data: dict) -> str:
    """A static page: no script, escaped throughout."""
    e = html.escape
    target = data["target"]
    rows = []
    for cell in sorted(data["cells"], key=lambda c: ORDER.index(c["outcome"])):
        link = (
            f'<a href="{e(cell["clause"])}">{e(cell["requirement"])}</a>' if cell["clause"] else e(cell["requirement"])
        )
        evidence = "".join(f"<pre>{e(text)}</pre>" for text in cell["evidence"])
        if cell["known-finding"]:
            evidence = f"<p>known upstream: {e(cell['known-finding'])}</p>{evidence}"
        transports = ", ".join(f"{e(t)}: {e(o)}" for t, o in cell["transports"].items())
        rows.append(
            f'<tr class="{e(cell["outcome"])}"><td>{link}</td><td>{e(cell["revision"])}</td><td>{e(cell["side"])}</td>'
            f"<td>{e(cell['level'])}</td><td>{e(cell['outcome'])}</td><td>{transports}</td><td>{evidence}</td></tr>"
        )
    not_implemented = "".join(
        f"<li>{e(n['revision'])} ({e(n['side'])}): {e(n['why'])}</li>" for n in data["revisions-not-implemented"]
    ) + "".join(f"<li>no {e(side)} offered: its cells are not run</li>" for side in data["sides-not-offered"])
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>mcp-matrix report: {e(target['name'])}</title>"
        "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}"
        "table{border-collapse:collapse}.fail{background:#fdd}.warn{background:#ffd}"
        ".inconclusive{background:#eee}pre{white-space:pre-wrap;margin:0;max-width:60em}</style></head><body>"
        f"<h1>mcp-matrix report: {e(target['name'])}</h1><p>{e(target['describes'])}</p>"
        f"<p><strong>{e(data['headline'])}</strong></p><ul>{not_implemented}</ul>"
        "<table><tr><th>requirement</th><th>revision</th><th>side</th><th>level</th><th>outcome</th>"
        f"<th>transports</th><th>evidence</th></tr>{''.join(rows)}</table></body></html>\n"
    )
