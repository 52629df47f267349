"""The peer's rules about what it awaits: a forbidden request is named at once, not after a timeout."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from conformance.harness.faults import MUTATIONS
from conformance.harness.launcher import CommandLauncher
from conformance.harness.peer import ProtocolViolation
from conformance.harness.stdio import StdioPeer
from conformance.harness.trace import Trace

# Answers initialize, then answers the next request only after asking the client to sample.
ASKS_TO_SAMPLE = """
import json, sys
def send(frame):
    print(json.dumps(frame), flush=True)
first = json.loads(sys.stdin.readline())
send({"jsonrpc": "2.0", "id": first["id"], "result": {"protocolVersion": "2025-06-18", "capabilities": {},
      "serverInfo": {"name": "s", "version": "1"}}})
sys.stdin.readline()  # notifications/initialized
call = json.loads(sys.stdin.readline())
send({"jsonrpc": "2.0", "id": "s-1", "method": "sampling/createMessage",
      "params": {"messages": [], "maxTokens": 1}})
sys.stdin.readline()
"""


def test_a_request_for_an_undeclared_capability_is_named_as_soon_as_it_arrives(tmp_path: Path) -> None:
    launcher = CommandLauncher([sys.executable, "-c", ASKS_TO_SAMPLE])
    try:
        with StdioPeer(launcher.start(), Trace(tmp_path / "t.jsonl", "stdio"), "2025-06-18", timeout=5) as peer:
            peer.initialize({"roots": {}})
            start = time.monotonic()
            with pytest.raises(ProtocolViolation, match=r"sent sampling/createMessage \(id 's-1'\).*did not declare"):
                peer.request("ping")
            assert time.monotonic() - start < 2, "named at once, not after the 5 s bound"
    finally:
        launcher.close()
    events = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert any(e.get("payload", {}).get("method") == "sampling/createMessage" for e in events)


def test_a_generic_mutation_damages_every_exchange_but_the_handshake() -> None:
    drop = MUTATIONS["drop-result"]
    answers = {1: "initialize", 2: "tools/list"}.get

    def damaged(frame: dict) -> dict:
        (line,) = drop.mutate(json.dumps(frame).encode(), lambda f: answers(f.get("id")), [], {})
        return json.loads(line)

    assert "result" in damaged({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18"}})
    assert "result" not in damaged({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}})
