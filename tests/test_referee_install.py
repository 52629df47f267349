"""The referee's pins: a lock or an install that differs from referee/baseline.yaml is refused, saying what differs."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest

from conformance.referee import DATA
from conformance.referee.install import (
    REFEREE_VARIABLE,
    RefereeInstallError,
    check_lock,
    ensure_installed,
    load_pins,
    verify,
)

PINS = load_pins()


def committed_lock() -> dict:
    return json.loads((DATA / "package-lock.json").read_text(encoding="utf-8"))


def test_the_committed_lock_holds_the_pins() -> None:
    check_lock(committed_lock(), PINS, "referee/package-lock.json")


@pytest.mark.parametrize(("key", "value"), [("version", "0.2.0-alpha.13"), ("integrity", "sha512-AAAA")])
def test_a_lock_naming_another_version_or_integrity_is_refused(key: str, value: str) -> None:
    lock = committed_lock()
    lock["packages"]["node_modules/@modelcontextprotocol/conformance"][key] = value
    with pytest.raises(RefereeInstallError, match=f"{key} is '{value}'.*baseline pins"):
        check_lock(lock, PINS, "the lock")


def test_a_lock_without_the_node_package_is_refused() -> None:
    lock = committed_lock()
    del lock["packages"]["node_modules/node"]
    with pytest.raises(RefereeInstallError, match="no entry for node"):
        check_lock(lock, PINS, "the lock")


def test_an_install_whose_node_binary_differs_is_refused(tmp_path: Path) -> None:
    modules = tmp_path / "node_modules"
    (modules / "node" / "bin").mkdir(parents=True)
    (modules / "node" / "bin" / "node").write_bytes(b"#!/bin/sh\necho v22.23.3\n")
    cli = tmp_path / PINS["referee"]["entry"]
    cli.parent.mkdir(parents=True)
    cli.write_text("")
    (modules / ".package-lock.json").write_text(json.dumps(committed_lock()))
    with pytest.raises(RefereeInstallError, match=r"Node binary .* has sha256 .*the baseline pins"):
        verify(tmp_path, PINS)
    pins = copy.deepcopy(PINS)
    pins["node"]["binary_sha256"] = hashlib.sha256((modules / "node" / "bin" / "node").read_bytes()).hexdigest()
    (modules / "node" / "bin" / "node").chmod(0o755)
    with pytest.raises(RefereeInstallError, match="reports version"):
        verify(tmp_path, pins)  # the fake node passes its own checks, then prints no referee version


def test_no_install_is_refused_with_the_command_to_run(tmp_path: Path) -> None:
    with pytest.raises(RefereeInstallError, match="make referee"):
        verify(tmp_path, PINS)


def test_a_referee_named_from_outside_is_verified_and_never_touched(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / ".package-lock.json").write_text(json.dumps({"packages": {}}))
    (tmp_path / "package.json").write_text("theirs")
    before = sorted((p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    monkeypatch.setenv(REFEREE_VARIABLE, str(tmp_path))
    with pytest.raises(RefereeInstallError, match=r"no entry for .*only read: nothing in it was changed"):
        ensure_installed()
    assert sorted((p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file()) == before
