"""Every legal shape accepted: the suite's own tests, run against small servers that take a path the
clause allows but the fixture never takes, pass (and fail on the shape the clause forbids)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conformance import test_lifecycle as lifecycle  # the module, so that its tests are not collected here again
from conformance.harness.launcher import CommandLauncher
from conformance.harness.stdio import StdioPeer
from conformance.harness.trace import Trace

REVISION = "2025-06-18"
# Reads initialize, sends BEFORE (one JSON frame a line), then answers initialize.
SPEAKS_FIRST = """
import json, sys
request = json.loads(sys.stdin.readline())
for line in sys.argv[1:]:
    print(line, flush=True)
version = request["params"]["protocolVersion"]
result = {"protocolVersion": version, "capabilities": {"logging": {}}, "serverInfo": {"name": "s", "version": "1"}}
print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
sys.stdin.readline()
"""
LOG = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "starting"}}
PING = {"jsonrpc": "2.0", "id": "server-ping", "method": "ping"}
ANNOUNCEMENT = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


@contextmanager
def server_saying_first(frames: list[dict], tmp_path: Path) -> Iterator[StdioPeer]:
    launcher = CommandLauncher([sys.executable, "-c", SPEAKS_FIRST, *map(json.dumps, frames)])
    try:
        with StdioPeer(launcher.start(), Trace(tmp_path / "t.jsonl", "stdio"), REVISION) as peer:
            yield peer
    finally:
        launcher.close()


def test_a_server_that_logs_and_pings_before_its_initialize_result_passes(tmp_path: Path) -> None:
    with server_saying_first([LOG, PING], tmp_path) as peer:
        lifecycle.test_nothing_comes_from_the_server_before_its_initialize_result(REVISION, "stdio", peer)


def test_a_server_that_announces_a_change_before_its_initialize_result_fails(tmp_path: Path) -> None:
    with (
        server_saying_first([LOG, ANNOUNCEMENT], tmp_path) as peer,
        pytest.raises(AssertionError, match="list_changed"),
    ):
        lifecycle.test_nothing_comes_from_the_server_before_its_initialize_result(REVISION, "stdio", peer)
