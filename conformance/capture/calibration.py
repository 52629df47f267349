"""The two judges agree (issue #14's calibration): the live suite's verdict on a cell against the offline
validator's verdict on the trace that cell's test recorded.

``python -m conformance.capture.calibration [REPORT_DIR] [--target NAME]`` reads a run's report
(``reports/<target>/report.json`` of a run with ``--keep-traces``, which names every cell's traces) and
validates each trace (``conformance.validator``), then compares, per cell and trace (per cell, over one
transport, for a cell that fails):

- a cell the suite passes: the validator must report no failure (nor warning) of that requirement;
- a cell gapped to a finding (``F-NNN``, in the coverage modules or the target's profile): its traces
  must fail (or warn on) that requirement offline too, one of them at least (a test may record several
  sessions and meet the fault in one), which the pair names;
- a cell the suite failed or warned on: likewise;
- a cell the suite passes, against every other trace of the run judged for its side too: a test may look
  at one tool of many, and another test's session show the same requirement broken at that revision (the
  live test's blind spot, or the validator's misreading): a disagreement as well, naming that trace.

A pair agrees or disagrees only when both judged it: an offline ``not-observed``, ``not-applicable`` or
``excluded`` (or a trace of another revision, which the validator judges at that one) is counted as
not judged offline. A trace is judged for the cell's side only (the validator's ``--side``): a client
test's trace holds the scripted server's deliberate misbehaviour, a server test's the harness client's
deliberate omissions (a request without its MCP-Protocol-Version header, to see what the server does),
and neither is the cell's business; of a row that binds both sides, a finding counts only when the event
it names was sent by the cell's side. The traces are judged in parallel (``--jobs``, default: every
processor). Exit status 1 if any pair disagrees, each named with both verdicts, or if the validator could
not judge a trace (named with its error).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from conformance.catalogue.spec_pin import PROJECT_ROOT
from conformance.run.reports import reports_root

BROKEN = ("fail", "warn")
VALIDATOR_ERROR = "validator-error"
JUDGED_OFFLINE = ("pass", *BROKEN)
SENT_BY = {"client": "client-to-server", "server": "server-to-client"}
MATRIX = PROJECT_ROOT / "docs" / "spec" / "conformance-matrix.json"
REPORT_TRANSPORTS = {"sse": "http+sse"}  # a trace's transport as the run's report names it, where they differ


@dataclass(frozen=True)
class Pair:
    """One cell's live verdict beside the offline verdict on one of its traces."""

    requirement: str
    revision: str
    side: str
    live: str  # pass, fail, warn, or the finding that gaps the cell
    offline: str  # pass, fail, warn, not-observed, not-applicable, excluded, absent
    reason: str
    trace: str
    other_traces: tuple[str, ...] = ()  # a failing cell's traces besides the one named, judged with it
    elsewhere: bool = False  # the trace is another test's: a cell the suite passed, broken offline there

    @property
    def expects_failure(self) -> bool:
        return self.live != "pass"

    @property
    def judged_both_ways(self) -> bool:
        return self.offline in JUDGED_OFFLINE

    @property
    def agrees(self) -> bool:
        return (self.offline in BROKEN) == self.expects_failure

    def describe(self) -> str:
        said = f"live: {self.live}; offline: {self.offline}" + (f" ({self.reason})" if self.reason else "")
        whose = "another test's trace" if self.elsewhere else "trace"
        return f"{self.requirement} {self.revision} {self.side}: {said}; {whose} {self.trace}"


class Findings:
    """The finding (``F-NNN``) that gaps a cell of a target, if one does: the target profile's own gap, or
    for a target judged by the coverage modules' findings (the default one), the matrix's."""

    def __init__(self, target: str) -> None:
        from conformance.matrix.covers import registry
        from conformance.run import targets

        self.profile = targets.load(targets.resolve(target), registry()[0])
        self.matrix: dict[tuple[str, str, str], str] = {}
        if self.profile.coverage_findings:
            for cell in json.loads(MATRIX.read_text(encoding="utf-8"))["cells"]:
                if cell["state"] == "gap" and str(cell.get("ref", "")).startswith("F-"):
                    self.matrix[(cell["requirement"], cell["revision"], cell["side"])] = cell["ref"]

    def of(self, requirement: str, revision: str, side: str) -> str | None:
        own = self.profile.gap_of(requirement, revision, side)
        if own is not None:
            return own.ref if own.ref.startswith("F-") else None
        return self.matrix.get((requirement, revision, side))


def validated(job: tuple[str, str]) -> dict[str, Any]:
    """The validator's report of each session of a trace, judged for one side (``job``: the trace, the side),
    with the direction of each event by ``seq``; or, as ``error``, why the validator could not judge it."""
    from conformance.validator.outcomes import Trace, judge_trace
    from conformance.validator.reader import read_trace

    trace, side = job
    try:
        events = read_trace(trace)
        sessions = judge_trace(Trace(trace, events), None, False, side)
    except Exception as exc:  # the validator's own failure: reported, and it fails the run
        return {"error": f"{type(exc).__name__}: {exc}"}
    transports = {event["transport"] for event in events}
    only = transports.pop() if len(transports) == 1 else None  # a trace of two transports: its cell's verdict
    return {
        "sessions": sessions,
        "directions": {event["seq"]: event["direction"] for event in events},
        "transport": REPORT_TRANSPORTS.get(only, only) if only else None,
    }


def offline_verdict(validation: dict[str, Any], requirement: str, revision: str, side: str) -> tuple[str, str]:
    """The outcome of ``requirement`` for ``side`` over a trace's sessions, and why: a session that breaks it
    decides, else one that passes it, else the first session's word."""
    if "error" in validation:
        return VALIDATOR_ERROR, validation["error"]
    verdicts = [
        session_verdict(report, validation["directions"], requirement, revision, side)
        for report in validation["sessions"]
    ]
    return next((v for v in verdicts if v[0] in BROKEN), next((v for v in verdicts if v[0] == "pass"), verdicts[0]))


def session_verdict(
    report: dict[str, Any], directions: dict[int, str], requirement: str, revision: str, side: str
) -> tuple[str, str]:
    """The outcome of ``requirement`` for ``side`` in one session's ``report``, and why."""
    if report["revision"] != revision:
        return "absent", f"the validator judged the trace at {report['revision']}"
    entry = next((e for e in report["requirements"] if e["id"] == requirement), None)
    if entry is None:
        return "absent", "the requirement is not judged at this revision"
    findings = entry["findings"]
    if entry["side"] == "both":
        findings = [f for f in findings if directions.get(f["seq"]) == SENT_BY[side]]
    if findings:
        first = findings[0]
        return entry["outcome"], f"seq {first['seq']}: {first['reason']}"
    if entry["outcome"] in BROKEN:  # every finding was the other side's: so may its subjects be
        return "not-observed", "the check found only the other side's events at fault"
    return entry["outcome"], entry["reason"] or ""


def compare(report_dir: Path, target: str, jobs: int | None = None) -> list[Pair]:
    """Every (cell, trace) pair of the run in ``report_dir``, each trace validated once per side it serves,
    ``jobs`` at a time (None: one per processor)."""
    report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    findings = Findings(target)
    wanted = [(cell, trace) for cell in report["cells"] for trace in cell["traces"] if Path(trace).is_file()]
    work = sorted({(trace, cell["side"]) for cell, trace in wanted})  # a trace can serve several cells
    workers = min(jobs or os.cpu_count() or 1, len(work))
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            reports = dict(zip(work, pool.map(validated, work, chunksize=16), strict=True))
    else:
        reports = {job: validated(job) for job in work}
    pairs = []
    expecting_failure: dict[tuple[Any, ...], list[Pair]] = {}
    for cell, trace in wanted:
        key = (cell["requirement"], cell["revision"], cell["side"])
        validation = reports[(trace, cell["side"])]
        live = live_verdict(cell, validation.get("transport"), findings)
        if live is None:
            continue
        pair = Pair(*key, live, *offline_verdict(validation, *key), trace=trace)
        if pair.expects_failure:
            # per transport only where the run judged the cell per transport: a test of one cell may open a
            # session over another transport (F-010's test tries stdio, then Streamable HTTP)
            per_transport = len(cell.get("transports") or {}) > 1
            group = (*key, live, validation.get("transport") if per_transport else None)
            expecting_failure.setdefault(group, []).append(pair)
        else:
            pairs.append(pair)
    passed_cells = [c for c in report["cells"] if c["outcome"] == "pass"]
    passed = {(c["requirement"], c["revision"], c["side"]): set(c["traces"]) for c in passed_cells}
    return pairs + [failing_cell(group) for group in expecting_failure.values()] + broken_elsewhere(reports, passed)


def broken_elsewhere(
    reports: dict[tuple[str, str], dict[str, Any]], passed: dict[tuple[str, str, str], set[str]]
) -> list[Pair]:
    """A cell the suite passed (``passed``: each with its own traces, compared pair by pair already), held to
    every other trace of the run judged for its side: a test may look at one tool of many, and another test's
    session may show the same requirement broken (or the validator misread it). One pair per such cell, naming
    the first trace (in order) that breaks it."""
    found: dict[tuple[str, str, str], Pair] = {}
    for (trace, side), validation in sorted(reports.items()):
        for session in validation.get("sessions", ()):
            for entry in session["requirements"]:
                key = (entry["id"], session["revision"], side)
                if entry["outcome"] not in BROKEN or key not in passed or key in found or trace in passed[key]:
                    continue
                verdict, reason = session_verdict(session, validation["directions"], *key)
                if verdict in BROKEN:
                    found[key] = Pair(*key, "pass", verdict, reason, trace, elsewhere=True)
    return list(found.values())


def failing_cell(group: list[Pair]) -> Pair:
    """A cell the suite fails (or gaps to a finding) over one transport, held to its traces together: a test
    may record several sessions and find the fault in one (F-190's URL-only client, beside a form-mode one),
    so one trace that breaks the requirement offline suffices; the pair names that trace."""
    chosen = next((p for p in group if p.offline in BROKEN), next((p for p in group if p.offline == "pass"), group[0]))
    if len(group) == 1:
        return chosen
    others = tuple(p.trace for p in group if p is not chosen)
    reason = f"{chosen.reason} (the cell's {len(group)} traces together)".lstrip()
    return replace(chosen, reason=reason, other_traces=others)


def live_verdict(cell: dict[str, Any], transport: str | None, findings: Findings) -> str | None:
    """The suite's verdict on ``cell`` over the trace's ``transport`` (a finding may break a cell over one
    transport only, as F-120 does over stdio): pass, fail, warn, the finding that gaps it, or None (not
    judged live: fixture missing, not exercised, a gap to no finding)."""
    by_transport = cell.get("transports") or {}
    outcome = (by_transport.get(transport) if len(by_transport) > 1 else None) or cell["outcome"]
    if outcome == "gap":
        return findings.of(cell["requirement"], cell["revision"], cell["side"])
    return outcome if outcome in JUDGED_OFFLINE else None


def summary(pairs: list[Pair]) -> str:
    elsewhere = [p for p in pairs if p.elsewhere]
    pairs = [p for p in pairs if not p.elsewhere]
    judged = [p for p in pairs if p.judged_both_ways]
    disagreements = [p for p in judged if not p.agrees]
    by_live = Counter("gapped to a finding" if p.expects_failure else "passed live" for p in judged)
    lines = [
        f"traces validated: {len({t for p in pairs for t in (p.trace, *p.other_traces)})}; "
        f"cell and trace pairs: {len(pairs)}; "
        f"judged both ways: {len(judged)} ({', '.join(f'{n} {k}' for k, n in sorted(by_live.items())) or 'none'}); "
        f"agreements: {len(judged) - len(disagreements)}; disagreements: {len(disagreements)}",
        f"cells passed live that another test's trace breaks offline: {len(elsewhere)}",
    ]
    lines += [f"DISAGREE {p.describe()}" for p in [*disagreements, *elsewhere]]
    failed = {p.trace: p.reason for p in pairs if p.offline == VALIDATOR_ERROR}
    lines += [f"VALIDATOR ERROR on {trace}: {reason}" for trace, reason in sorted(failed.items())]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.capture.calibration", description=__doc__)
    parser.add_argument(
        "report_dir", nargs="?", help="a run's report directory (default: <$MCP_MATRIX_REPORTS or reports>/<target>)"
    )
    parser.add_argument("--target", default="sdk-python", help="the target the run was of (default: sdk-python)")
    parser.add_argument("--jobs", type=int, help="traces judged at a time (default: one per processor)")
    args = parser.parse_args(argv)
    report_dir = Path(args.report_dir) if args.report_dir else reports_root() / args.target
    pairs = compare(report_dir, args.target, args.jobs)
    print(summary(pairs))
    return 1 if any((p.judged_both_ways and not p.agrees) or p.offline == VALIDATOR_ERROR for p in pairs) else 0


if __name__ == "__main__":
    sys.exit(main())
