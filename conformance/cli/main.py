"""``python -m conformance <command>``: the suite's command line.

spec       materialise the pinned spec and extensions (``--lock MIRROR`` and ``--lock-extension NAME=MIRROR``
           rewrite the lock from a mirror)
sweep      list the spec's normative sentences, with locators (``--unaccounted`` for the gaps)
generate   regenerate requirements.json and the matrix docs
show ID    a requirement, its clauses resolved from the pinned spec, and its matrix state
run        run exactly the tests that cover the given requirement ids or areas
implementations  docs/implementations.md: every target side by side, from the last report of each
mutate     the mutation sweep: the tests no generic wire mutation makes fail, per area
bench      time each stage of the machinery (median of several runs)
stability  the timing-dependent client tests N times in a row: the items whose outcome changed
validate   judge recorded session traces offline against the catalogue (docs/trace-format.md)
referee    the pinned official suite: install, run, gate, cross-check (``referee --help``)
capture    record any client and server's session as a trace: a stdio wrapper or a loopback HTTP proxy
apps       the MCP Apps checks against one server (``--target T``), summed up per check
"""

from __future__ import annotations

import argparse
import fnmatch
import signal
import sys
from collections import defaultdict
from pathlib import Path

from conformance.catalogue.errors import InputError, InputErrors
from conformance.catalogue.spec_pin import SpecPinError


def _cmd_spec(args: argparse.Namespace) -> int:
    from conformance.catalogue import spec_pin

    if args.lock:
        lock = spec_pin.write_lock(Path(args.lock))
        print(f"locked {len(lock['files'])} files at commit {lock['commit']}")
    for pair in args.lock_extension:
        name, _, mirror = pair.partition("=")
        pinned = spec_pin.write_extension_lock(name, Path(mirror))["extensions"][name]["files"]
        print(f"locked {len(pinned)} files of the extension {name}")
    print(spec_pin.materialise())
    for root in spec_pin.materialise_extensions().values():
        print(root)
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from conformance.catalogue.accounting import account, load_sweep
    from conformance.catalogue.overrides import load_overrides
    from conformance.catalogue.rows import load_catalogue
    from conformance.catalogue.sweep import DEFINITION
    from conformance.catalogue.vocabulary import EXTENSIONS, REVISIONS, qualified_revision

    order = [*REVISIONS, *(qualified_revision(name, r) for name, e in EXTENSIONS.items() for r in e.revisions)]
    sentences = load_sweep()
    catalogue = load_catalogue(Path(args.catalogue)) if args.catalogue else load_catalogue()
    overrides = load_overrides(catalogue, Path(args.overrides)) if args.overrides else load_overrides(catalogue)
    accounting = account(catalogue, overrides, sentences)
    shown = accounting.unaccounted if args.unaccounted else accounting.normative
    if args.page:
        shown = [s for s in shown if any(fnmatch.fnmatch(s.page, pattern) for pattern in args.page)]
    if args.anchor:
        shown = [s for s in shown if any(fnmatch.fnmatch(s.anchor, pattern) for pattern in args.anchor)]
    if args.revision:
        shown = [s for s in shown if s.qualified_revision in args.revision]
    groups: dict[str, list] = defaultdict(list)
    for sentence in shown:
        groups[sentence.fingerprint].append(sentence)
    for fingerprint, same in groups.items():
        revisions = sorted({s.qualified_revision for s in same}, key=order.index)
        keywords = same[0].keywords or same[0].inherited_keywords  # a list item's, from its lead-in
        kind = " ".join(sorted(set(keywords))) or same[0].kind
        print(f"{fingerprint}  [{', '.join(revisions)}]  {kind}")
        for locator in sorted({str(s.locator) for s in same}):
            print(f"    {locator}")
        if same[0].kind == DEFINITION:
            print(f"    > the definition {same[0].anchor} (`show` a row to print it)")
        else:
            print(f"    > {same[0].text}")
    for requirement_id, locator in accounting.unresolved:
        print(f"UNRESOLVED {requirement_id}: {locator}")
    for stale in accounting.stale_not_requirements:
        print(f"STALE not-requirement {stale}")
    from conformance.catalogue.accounting import independent_keyword_counts, swept_keyword_counts
    from conformance.catalogue.spec_pin import materialise, materialise_extensions

    swept = swept_keyword_counts(sentences)
    counted = independent_keyword_counts(materialise(), materialise_extensions())
    print(f"{'revision':19} normative units  unaccounted  keywords swept  keywords counted independently")
    for revision, (total, missing) in accounting.by_revision().items():
        in_swept = sum(n for (r, _), n in swept.items() if r == revision)
        in_files = sum(n for (r, _), n in counted.items() if r == revision)
        print(f"{revision:19} {total:15d}  {missing:11d}  {in_swept:14d}  {in_files:30d}")
    return 1 if accounting.unaccounted or accounting.unresolved or accounting.stale_not_requirements else 0


def _cmd_generate(args: argparse.Namespace) -> int:
    from conformance.matrix.build import build, write_files

    written = write_files(build().expected_files())
    for path in written:
        print(f"wrote {path}")
    if not written:
        print("generated files are up to date")
    return 0


def _cmd_summary(args: argparse.Namespace) -> int:
    from conformance.matrix.build import build
    from conformance.matrix.cells import SUMMARY_COLUMNS, summary

    table = summary(build().cells)
    print(f"{'revision':12} {'side':7} {'level':11}" + "".join(f"{c:>10}" for c in SUMMARY_COLUMNS))
    for revision, sides in table.items():
        for side, levels in sides.items():
            for level, row in levels.items():
                if any(row.values()):
                    print(f"{revision:12} {side:7} {level:11}" + "".join(f"{row[c]:>10}" for c in SUMMARY_COLUMNS))
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from conformance.catalogue.accounting import load_sweep
    from conformance.catalogue.locator import Locator
    from conformance.matrix.build import build

    built = build()
    requirement = next((r for r in built.requirements["requirements"] if r["id"] == args.id), None)
    if requirement is None:
        print(f"error: no requirement {args.id!r} in docs/spec/requirements.md", file=sys.stderr)
        return 2
    print(f"{requirement['id']}  ({requirement['area']}, {requirement['level']}, binds {requirement['side']})")
    print(f"  {requirement['requirement']}")
    print(f"  revisions: {', '.join(requirement['revisions'])}")
    if requirement["notes"]:
        print(f"  notes: {requirement['notes']}")
    sentences = load_sweep()
    for source in requirement["sources"]:
        locator = Locator.parse(source)
        matches = [
            s
            for s in sentences
            if s.fingerprint == locator.fingerprint
            and s.extension == locator.extension
            and (s.extension or s.revision in requirement["revisions"])
        ]
        resolved = "" if any(str(s.locator) == source for s in matches) else "  (DOES NOT RESOLVE: review the row)"
        print(f"  source {source}{resolved}")
        if matches:
            print(f"    > {_shown(matches[0])}")
            print(f"    (stands in {', '.join(sorted({s.qualified_revision for s in matches}))})")
    print("  cells:")
    for cell in built.cells:
        if cell.requirement == args.id:
            detail = ", ".join(cell.tests) or " ".join(x for x in (cell.ref, cell.reason) if x)
            print(f"    {cell.revision} {cell.side:6} {cell.state:8} {detail}")
    return 0


def _shown(unit: object) -> str:
    """A swept unit as `show` prints it: a sentence as it is, a schema definition as indented JSON."""
    import json

    from conformance.catalogue.sweep import DEFINITION, Sentence

    assert isinstance(unit, Sentence)
    if unit.kind != DEFINITION:
        return unit.text
    return "\n      ".join(json.dumps(json.loads(unit.text), indent=2, ensure_ascii=False).split("\n"))


def covering_node_ids(selectors: list[str]) -> list[str]:
    """Node ids of the tests covering the given requirement ids and/or areas (every claimed revision)."""
    from conformance.catalogue.vocabulary import AREAS
    from conformance.matrix.build import build

    built = build()
    requirements = {r["id"]: r for r in built.requirements["requirements"]}
    unknown = [s for s in selectors if s not in requirements and s not in AREAS]
    if unknown:
        raise SystemExit(f"error: neither a requirement id nor an area: {', '.join(unknown)}")
    wanted = {r for r in requirements if r in selectors or requirements[r]["area"] in selectors}
    # Whole test functions: each covers one requirement, so this runs exactly its cells (on every
    # transport it runs over).
    return sorted({cover.test for cover in built.coverage.covers if cover.requirement in wanted})


def _cmd_run(args: argparse.Namespace) -> int:
    import subprocess

    node_ids = covering_node_ids(args.selectors)
    if not node_ids:
        print("no test covers the selected requirements (see `python -m conformance show ID`)", file=sys.stderr)
        return 1
    return subprocess.call([sys.executable, "-m", "pytest", *args.pytest_args, *node_ids])


def _cmd_bench(args: argparse.Namespace) -> int:
    from conformance.cli import bench

    bench.run(args.repeat)
    return 0


def _cmd_stability(args: argparse.Namespace) -> int:
    from conformance.cli import stability

    return stability.run(args.repeat, args.workers, args.target)


def _cmd_implementations(args: argparse.Namespace) -> int:
    from conformance.cli import implementations

    print(implementations.write().relative_to(implementations.PROJECT_ROOT))
    return 0


def _cmd_mutate(args: argparse.Namespace) -> int:
    from conformance.cli import mutate

    return mutate.run(args.workers, args.target, args.selection)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    spec = commands.add_parser("spec", help="materialise the pinned spec")
    spec.add_argument("--lock", metavar="MIRROR", help="rewrite the lock from this spec mirror first")
    spec.add_argument(
        "--lock-extension",
        metavar="NAME=MIRROR",
        action="append",
        default=[],
        help="rewrite the lock's pins of the extension NAME from its mirror first (ext-apps=../shared/mcp-ext-apps)",
    )
    spec.set_defaults(run=_cmd_spec)
    sweep = commands.add_parser("sweep", help="list normative sentences of the pinned spec")
    sweep.add_argument("--unaccounted", action="store_true", help="only those no row or override accounts for")
    sweep.add_argument("--page", action="append", help="page glob, e.g. 'basic/lifecycle' or 'server/*'")
    sweep.add_argument("--anchor", action="append", help="section anchor glob (repeatable)")
    sweep.add_argument(
        "--revision", action="append", help="only this revision (repeatable; an extension's as ext-apps:draft)"
    )
    sweep.add_argument("--catalogue", help="read this catalogue instead of docs/spec/requirements.md")
    sweep.add_argument("--overrides", help="read override YAML files from this folder instead of overrides/")
    sweep.set_defaults(run=_cmd_sweep)
    commands.add_parser("generate", help="regenerate requirements.json and the matrix").set_defaults(run=_cmd_generate)
    commands.add_parser("summary", help="print the matrix summary").set_defaults(run=_cmd_summary)
    show = commands.add_parser("show", help="a requirement, its clauses and its cells")
    show.add_argument("id")
    show.set_defaults(run=_cmd_show)
    run = commands.add_parser("run", help="run the tests covering requirement ids or areas")
    run.add_argument("selectors", nargs="+", help="requirement ids and/or area names")
    run.add_argument("--pytest-args", nargs="*", default=[], help="extra pytest arguments")
    run.set_defaults(run=_cmd_run)
    commands.add_parser(
        "implementations", help="docs/implementations.md from the last report of each target"
    ).set_defaults(run=_cmd_implementations)
    mutate = commands.add_parser("mutate", help="the mutation sweep: every tested cell under generic wire mutations")
    mutate.add_argument("selection", nargs="*", default=["conformance"], help="test files or node ids")
    mutate.add_argument("--workers", default="8")
    mutate.add_argument("--target", default=None)
    mutate.set_defaults(run=_cmd_mutate)
    bench = commands.add_parser("bench", help="time each stage of the machinery")
    bench.add_argument("--repeat", type=int, default=5)
    bench.set_defaults(run=_cmd_bench)
    stability = commands.add_parser("stability", help="the timing-dependent client tests N times: what changed")
    stability.add_argument("--repeat", type=int, default=20)
    stability.add_argument("--workers", default="8")
    stability.add_argument("--target", default=None)
    stability.set_defaults(run=_cmd_stability)
    from conformance.validator.cli import add_parser as add_validate_parser

    add_validate_parser(commands)  # validate TRACE... (conformance/validator/)
    from conformance.referee.cli import add_parser as add_referee_parser

    add_referee_parser(commands)  # referee install|run|gate|crosscheck|all|draft (conformance/referee/)
    from conformance.capture.cli import add_parser as add_capture_parser

    add_capture_parser(commands)  # capture -o FILE -- SERVER_CMD... | --listen PORT --upstream URL
    from conformance.cli.apps import add_parser as add_apps_parser

    add_apps_parser(commands)  # apps [--target T | --server-command CMD | --server-url URL] (conformance/test_apps.py)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `... | head` ends the output quietly
    try:
        return args.run(args)
    except (InputError, InputErrors, SpecPinError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
