"""The pinned referee and its Node 22, installed into ``.cache/referee/`` and verified.

The committed ``referee/package.json`` and ``referee/package-lock.json`` name every package with its
integrity hash; ``npm ci`` installs exactly them. Before and after the install every pin of
``referee/baseline.yaml`` is checked: the version and integrity of the referee and of ``node`` in
the lock and in what was installed, the sha256 of the Node binary (``node``'s install script fetches
the platform package by version only, so the binary's hash closes that gap), and the version each
program reports. Anything else is refused with a message that says what differs.

A stamp records the inputs of a verified install; a later call with the same inputs re-verifies
the files (well under a second) instead of reinstalling.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.harness.launcher import die_with_parent
from conformance.referee import BASELINE, DATA, INSTALL_DIR

NPM_TIMEOUT_SECONDS = 600
VERSION_TIMEOUT_SECONDS = 30
STAMP = ".mcp-matrix-installed"


class RefereeInstallError(Exception):
    """The referee cannot be installed or does not match its pins."""


@dataclass(frozen=True)
class Referee:
    """A verified install: how to run the pinned referee."""

    node: Path
    cli: Path
    version: str
    node_version: str
    requirements_dir: Path

    def command(self, *args: str) -> list[str]:
        return [str(self.node), str(self.cli), *args]


def load_pins(baseline: Path = BASELINE) -> dict[str, Any]:
    data = yaml.safe_load(baseline.read_text(encoding="utf-8"))
    try:
        return {"referee": data["referee"], "node": data["node"]}
    except (KeyError, TypeError) as exc:
        raise RefereeInstallError(f"{baseline}: no 'referee' and 'node' pins") from exc


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _lock_entry(lock: dict[str, Any], package: str, where: str) -> dict[str, Any]:
    entry = lock.get("packages", {}).get(f"node_modules/{package}")
    if not isinstance(entry, dict):
        raise RefereeInstallError(f"{where} has no entry for {package}")
    return entry


def check_lock(lock: dict[str, Any], pins: dict[str, Any], where: str) -> None:
    """The lock (committed, or npm's record of what it installed) must hold the pinned version and integrity."""
    problems = []
    for pin in pins.values():
        entry = _lock_entry(lock, pin["package"], where)
        for key in ("version", "integrity"):
            if entry.get(key) != pin[key]:
                problems.append(
                    f"{pin['package']} {key} is {entry.get(key)!r} in {where}, the baseline pins {pin[key]!r}"
                )
    if problems:
        raise RefereeInstallError(
            "refusing the referee: " + "; ".join(problems) + ". Change the pin in referee/baseline.yaml and the "
            "lock together, deliberately, and review the baseline's classifications against a run of the new version."
        )


def _inputs_digest(pins: dict[str, Any]) -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((DATA / name).read_bytes())
    digest.update(json.dumps(pins, sort_keys=True).encode())
    return digest.hexdigest()


def _version_of(command: list[str]) -> str:
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT_SECONDS,
            check=False,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired as exc:
        raise RefereeInstallError(f"`{' '.join(command)}` did not answer within {VERSION_TIMEOUT_SECONDS} s") from exc
    if done.returncode != 0:
        raise RefereeInstallError(f"`{' '.join(command)}` exited {done.returncode}: {done.stderr.strip()[:500]}")
    return done.stdout.strip()


def verify(install_dir: Path = INSTALL_DIR, pins: dict[str, Any] | None = None) -> Referee:
    """Check an install against every pin; return how to run it."""
    pins = pins or load_pins()
    installed_lock = install_dir / "node_modules" / ".package-lock.json"
    if not installed_lock.is_file():
        raise RefereeInstallError(f"the referee is not installed in {install_dir} (run `make referee`)")
    check_lock(json.loads(installed_lock.read_text(encoding="utf-8")), pins, str(installed_lock))
    node = install_dir / pins["node"]["binary"]
    cli = install_dir / pins["referee"]["entry"]
    for path in (node, cli):
        if not path.is_file():
            raise RefereeInstallError(f"{path} is missing: the install is incomplete (run `make referee`)")
    actual = sha256_file(node)
    if actual != pins["node"]["binary_sha256"]:
        raise RefereeInstallError(
            f"refusing the referee: the Node binary {node} has sha256 {actual}, the baseline pins "
            f"{pins['node']['binary_sha256']} (node's install script fetched a different build)"
        )
    node_version = _version_of([str(node), "--version"])
    if node_version != f"v{pins['node']['version']}":
        raise RefereeInstallError(
            f"refusing the referee: {node} reports {node_version}, pinned v{pins['node']['version']}"
        )
    version = _version_of([str(node), str(cli), "--version"])
    if version != pins["referee"]["version"]:
        raise RefereeInstallError(
            f"refusing the referee: it reports version {version}, pinned {pins['referee']['version']}"
        )
    requirements_dir = cli.parent.parent / "requirements"
    return Referee(node=node, cli=cli, version=version, node_version=node_version, requirements_dir=requirements_dir)


def _npm_ci(install_dir: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise RefereeInstallError("npm is not on PATH: it is needed once, to install the pinned referee")
    command = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
    process = subprocess.Popen(
        command,
        cwd=install_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=die_with_parent,
    )
    try:
        output, _ = process.communicate(timeout=NPM_TIMEOUT_SECONDS)
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    if process.returncode != 0:
        tail = "\n".join(output.splitlines()[-20:])
        raise RefereeInstallError(f"`npm ci` in {install_dir} exited {process.returncode}:\n{tail}")


REFEREE_VARIABLE = "MCP_MATRIX_REFEREE"  # a referee installed elsewhere (its npm prefix), verified and only read


def installation() -> tuple[Path, bool]:
    """Where the referee is: ``$MCP_MATRIX_REFEREE`` (someone else's, so only read), else the project's cache."""
    named = os.environ.get(REFEREE_VARIABLE)
    return (Path(named), True) if named else (INSTALL_DIR, False)


def ensure_installed(install_dir: Path | None = None, log: Any = print) -> Referee:
    """Install the pinned referee unless a verified install of the same inputs is there; verify it either way.

    An installation named by ``$MCP_MATRIX_REFEREE`` is verified against every pin and used as it is: a
    mismatch is refused, and nothing in it is installed, changed or deleted."""
    if install_dir is None:
        install_dir, external = installation()
        if external:
            try:
                return verify(install_dir, load_pins())
            except RefereeInstallError as exc:
                raise RefereeInstallError(
                    f"{exc} [the referee named by ${REFEREE_VARIABLE}={install_dir} is only read: nothing in it "
                    "was changed; point the variable at an install of the pinned version, or unset it]"
                ) from None
    pins = load_pins()
    check_lock(json.loads((DATA / "package-lock.json").read_text(encoding="utf-8")), pins, "referee/package-lock.json")
    stamp = install_dir / STAMP
    digest = _inputs_digest(pins)
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == digest:
        try:
            return verify(install_dir, pins)
        except RefereeInstallError as exc:
            log(f"referee: reinstalling ({exc})")
    install_dir.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(DATA / name, install_dir / name)
    log(f"referee: npm ci {pins['referee']['package']}@{pins['referee']['version']} and node@{pins['node']['version']}")
    _npm_ci(install_dir)
    referee = verify(install_dir, pins)
    stamp.write_text(digest + "\n", encoding="utf-8")
    return referee
