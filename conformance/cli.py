"""``python -m conformance <command>``: the suite's command line.

spec       materialise the pinned spec (``--lock MIRROR`` rewrites the lock from a mirror)
sweep      list the spec's normative sentences, with locators (``--unaccounted`` for the gaps)
generate   regenerate requirements.json and the matrix docs
show ID    a requirement, its clauses resolved from the pinned spec, and its matrix state
run        run exactly the tests that cover the given requirement ids or areas
bench      time each stage of the machinery (median of several runs)
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from collections import defaultdict
from pathlib import Path

from conformance.errors import InputError, InputErrors
from conformance.spec_pin import SpecPinError


def _cmd_spec(args: argparse.Namespace) -> int:
    from conformance import spec_pin

    if args.lock:
        lock = spec_pin.write_lock(Path(args.lock))
        print(f"locked {len(lock['files'])} files at commit {lock['commit']}")
    print(spec_pin.materialise())
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from conformance.accounting import account, load_sweep
    from conformance.catalogue import load_catalogue
    from conformance.overrides import load_overrides
    from conformance.vocabulary import REVISIONS

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
        shown = [s for s in shown if s.revision in args.revision]
    groups: dict[str, list] = defaultdict(list)
    for sentence in shown:
        groups[sentence.fingerprint].append(sentence)
    for fingerprint, same in groups.items():
        revisions = sorted({s.revision for s in same}, key=REVISIONS.index)
        print(f"{fingerprint}  [{', '.join(revisions)}]  {' '.join(sorted(set(same[0].keywords)))}")
        for locator in sorted({str(s.locator) for s in same}):
            print(f"    {locator}")
        print(f"    > {same[0].text}")
    for requirement_id, locator in accounting.unresolved:
        print(f"UNRESOLVED {requirement_id}: {locator}")
    for stale in accounting.stale_not_requirements:
        print(f"STALE not-requirement {stale}")
    print("revision     normative  unaccounted")
    for revision, (total, missing) in accounting.by_revision().items():
        print(f"{revision}   {total:9d}  {missing:11d}")
    return 1 if accounting.unaccounted or accounting.unresolved or accounting.stale_not_requirements else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    spec = commands.add_parser("spec", help="materialise the pinned spec")
    spec.add_argument("--lock", metavar="MIRROR", help="rewrite the lock from this spec mirror first")
    spec.set_defaults(run=_cmd_spec)
    sweep = commands.add_parser("sweep", help="list normative sentences of the pinned spec")
    sweep.add_argument("--unaccounted", action="store_true", help="only those no row or override accounts for")
    sweep.add_argument("--page", action="append", help="page glob, e.g. 'basic/lifecycle' or 'server/*'")
    sweep.add_argument("--anchor", action="append", help="section anchor glob (repeatable)")
    sweep.add_argument("--revision", action="append", help="only this revision (repeatable)")
    sweep.add_argument("--catalogue", help="read this catalogue instead of docs/spec/requirements.md")
    sweep.add_argument("--overrides", help="read override YAML files from this folder instead of overrides/")
    sweep.set_defaults(run=_cmd_sweep)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (InputError, InputErrors, SpecPinError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
