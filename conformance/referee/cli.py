"""``python -m conformance referee <command>``: the pinned official suite, run, gated and cross-checked.

install            install (or verify) the pinned referee and Node 22 in .cache/referee/
run [PROFILE...]   run profiles (default: all four), gate each; evidence in reports/referee/<profile>/
gate [PROFILE...]  gate the evidence already in reports/referee/ (no run)
crosscheck         the referee's verdicts against docs/spec/conformance-matrix.json (referee/mapping.yaml)
all                install, run and gate every profile, then the cross-check (`make referee`)
draft PROFILE      print the baseline entries the evidence of PROFILE needs, for review
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from conformance.referee import BASELINE, MAPPING, MATRIX_JSON, PROFILES, REPORTS
from conformance.referee.install import RefereeInstallError, ensure_installed, installation, load_pins


def load_baseline(path: Path = BASELINE) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def _requirements_dir() -> Path:
    return installation()[0] / Path(load_pins()["referee"]["entry"]).parent.parent / "requirements"


def _profiles(names: list[str], baseline: dict[str, Any]) -> list[str]:
    chosen = names or list(PROFILES)
    unknown = [n for n in chosen if n not in (baseline.get("profiles") or {})]
    if unknown:
        raise SystemExit(f"error: no profile {', '.join(unknown)} in {BASELINE} (known: {', '.join(PROFILES)})")
    return chosen


def gate_profiles(names: list[str], baseline: dict[str, Any], reports: Path = REPORTS) -> bool:
    from conformance.referee.gate import gate, load_requirement_set, render, write_report

    passed = True
    for name in names:
        profile = baseline["profiles"][name]
        requirement_set = load_requirement_set(_requirements_dir(), profile["requirements"], profile["leg"])
        evidence = reports / name
        result = gate(name, profile, evidence, requirement_set)
        if evidence.is_dir():
            write_report(result, evidence)
        print(render(result), flush=True)
        passed &= result.passed
    return passed


def _cmd_install(_args: argparse.Namespace) -> int:
    referee = ensure_installed()
    print(f"referee {referee.version} on node {referee.node_version}: {referee.cli}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from conformance.referee.runner import run_profile

    baseline = load_baseline()
    names = _profiles(args.profiles, baseline)
    referee = ensure_installed()
    for name in names:
        started = time.monotonic()
        print(f"referee {name}: running", flush=True)
        run_profile(name, baseline["profiles"][name], referee)
        print(f"referee {name}: ran in {time.monotonic() - started:.1f} s", flush=True)
    return 0 if gate_profiles(names, baseline) else 1


def _cmd_gate(args: argparse.Namespace) -> int:
    baseline = load_baseline()
    return 0 if gate_profiles(_profiles(args.profiles, baseline), baseline) else 1


def _cmd_crosscheck(_args: argparse.Namespace) -> int:
    from conformance.referee.crosscheck import crosscheck, render

    baseline = load_baseline()
    result = crosscheck(
        yaml.safe_load(MAPPING.read_text(encoding="utf-8")),
        json.loads(MATRIX_JSON.read_text(encoding="utf-8")),
        baseline,
        REPORTS,
        _requirements_dir(),
    )
    print(render(result))
    (REPORTS / "crosscheck.json").write_text(json.dumps(result.as_dict(), indent=1, sort_keys=True) + "\n")
    return 0 if result.passed else 1


def _cmd_all(args: argparse.Namespace) -> int:
    ran = _cmd_run(argparse.Namespace(profiles=[]))
    checked = _cmd_crosscheck(args)
    return ran or checked


def _cmd_draft(args: argparse.Namespace) -> int:
    from conformance.referee.gate import gate, load_requirement_set

    baseline = load_baseline()
    profile = dict((baseline.get("profiles") or {}).get(args.profile) or {})
    if not profile:
        leg, _, revision = args.profile.partition("-")
        profile = {"leg": leg, "requirements": revision}
    requirement_set = load_requirement_set(_requirements_dir(), profile["requirements"], profile["leg"])
    evidence = REPORTS / args.profile
    metadata = json.loads((evidence / "metadata.json").read_text(encoding="utf-8"))
    known = {
        (e["scenario"], e["check"], e["status"], e["fingerprint"]): e for e in profile.get("classifications") or []
    }
    result = gate(args.profile, {**profile, "classifications": []}, evidence, requirement_set)
    groups: dict[tuple[str, str, str, str], int] = {}
    for item in result.fingerprints:
        if item["scored"]:
            key = (item["scenario"], item["check"], item["status"], item["fingerprint"])
            groups[key] = groups.get(key, 0) + 1
    entries = []
    for key, count in groups.items():
        entry = dict(known.get(key) or {"classification": "TODO", "reason": "TODO"})
        entry.update(dict(zip(("scenario", "check", "status", "fingerprint"), key, strict=True)))
        if count > 1:
            entry["count"] = count
        else:
            entry.pop("count", None)
        entries.append(entry)
    draft = {
        "leg": profile["leg"],
        "requirements": profile["requirements"],
        "scored": requirement_set["scored"],
        "not_scored": requirement_set["not_scored"],
        "capabilities": metadata.get("capabilities"),
        "classifications": entries,
    }
    if profile.get("client_exits") is not None or profile["leg"] == "client":
        launches = [json.loads(line) for line in (evidence / "launches.jsonl").read_text().splitlines() if line]
        exits = dict(profile.get("client_exits") or {})
        draft["client_exits"] = {
            launch["scenario"]: exits.get(launch["scenario"], {"exit": launch["exit"], "reason": "TODO"})
            for launch in launches
            if launch.get("exit")
        }
    yaml.safe_dump({args.profile: draft}, sys.stdout, sort_keys=False, width=120, allow_unicode=True)
    return 0


def _guarded(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except RefereeInstallError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("referee: interrupted; every process it started has been stopped", file=sys.stderr)
            return 130

    return run


def add_parser(commands: Any) -> None:
    """Register ``referee`` and its commands on the main parser's subparsers."""
    referee = commands.add_parser(
        "referee",
        help="the pinned official suite: install, run, gate, cross-check",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = referee.add_subparsers(dest="referee_command", required=True)
    sub.add_parser("install", help="install or verify the pinned referee").set_defaults(run=_guarded(_cmd_install))
    run = sub.add_parser("run", help="run and gate profiles")
    run.add_argument("profiles", nargs="*", metavar="PROFILE")
    run.set_defaults(run=_guarded(_cmd_run))
    gate_parser = sub.add_parser("gate", help="gate the evidence of profiles already run")
    gate_parser.add_argument("profiles", nargs="*", metavar="PROFILE")
    gate_parser.set_defaults(run=_guarded(_cmd_gate))
    crosscheck = sub.add_parser("crosscheck", help="the referee's verdicts against the matrix")
    crosscheck.set_defaults(run=_guarded(_cmd_crosscheck))
    sub.add_parser("all", help="install, run, gate, cross-check (make referee)").set_defaults(run=_guarded(_cmd_all))
    draft = sub.add_parser("draft", help="print the baseline entries a profile's evidence needs")
    draft.add_argument("profile")
    draft.set_defaults(run=_guarded(_cmd_draft))
