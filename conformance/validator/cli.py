"""``python -m conformance validate TRACE... [--revision R] [--side S] [--strict] [--format F] [-o FILE]``.

Exit codes: 0 no failure (warnings allowed unless --strict); 1 a MUST / MUST NOT failed (or, under
--strict, a SHOULD / SHOULD NOT); 2 bad invocation, including a trace that judges nothing (no event, no
revision to judge at, no requirement with a subject); 3 a malformed trace, named by file and line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.validator.outcomes import EXIT_BAD_INVOCATION, EXIT_MALFORMED, SIDES, Trace, judge
from conformance.validator.reader import STDIN, TraceError, read_trace
from conformance.validator.reports import RENDERERS


def add_parser(commands: argparse._SubParsersAction) -> None:
    from conformance.catalogue.vocabulary import REVISIONS

    validate = commands.add_parser(
        "validate",
        help="judge recorded session traces offline against the catalogue",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    validate.add_argument("traces", nargs="+", metavar="TRACE", help="JSONL trace files (- for standard input)")
    validate.add_argument("--revision", choices=REVISIONS, help="the revision to judge at if the trace names none")
    validate.add_argument("--strict", action="store_true", help="a SHOULD / SHOULD NOT not followed fails too")
    validate.add_argument(
        "--side",
        choices=SIDES,
        help="judge only the requirements binding this side (the implementation under test; default: both)",
    )
    validate.add_argument("--format", choices=sorted(RENDERERS), default="text")
    validate.add_argument("-o", "--output", metavar="FILE", help="write the report here instead of standard output")
    validate.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.traces.count(STDIN) > 1:
        print("error: standard input (-) can be read once", file=sys.stderr)
        return EXIT_BAD_INVOCATION
    traces = []
    for source in args.traces:
        try:
            traces.append(Trace(source, read_trace(source)))
        except TraceError as exc:
            print(f"error: malformed trace: {exc}", file=sys.stderr)
            return EXIT_MALFORMED
        except OSError as exc:
            print(f"error: cannot read {source}: {exc.strerror}", file=sys.stderr)
            return EXIT_BAD_INVOCATION
    document = judge(traces, args.revision, args.strict, args.side)
    rendered = RENDERERS[args.format](document)
    if args.output:
        Path(args.output).write_text(rendered, encoding="utf-8")
    else:
        sys.stdout.write(rendered)
    for trace in document["traces"]:
        if trace["verdict"] == "nothing-judged" and document["exit_code"] == EXIT_BAD_INVOCATION:
            print(f"error: {trace['source']} judges nothing: {trace['revision_evidence']}", file=sys.stderr)
    return document["exit_code"]
