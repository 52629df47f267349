"""stdio: the framing and the discipline of a server's stdout (docs/spec/requirements.md, stdio)."""

from __future__ import annotations

import json
import os
import time

from conformance.covers import for_req
from conformance.harness.peer import Peer
from conformance.harness.schema import violations

EXIT_SECONDS = 2.0


def short_session(server: Peer) -> None:
    """A few exchanges that make any server write several frames."""
    server.open()
    server.rpc("server/discover" if server.stateless else "ping", check=False)
    server.rpc("tools/list", check=False)


@for_req("stdio-newline-delimited", "server")
def test_every_message_on_stdout_ends_with_a_newline(revision: str, server: Peer) -> None:
    short_session(server)
    unterminated = [line for line in server.received_lines if not line.endswith(b"\n")]
    assert not unterminated, f"messages without their newline: {unterminated[:3]}"


@for_req("stdio-no-embedded-newlines", "server")
def test_no_message_spans_several_lines(revision: str, server: Peer) -> None:
    short_session(server)
    for line in server.received_lines:
        assert b"\n" not in line.rstrip(b"\n"), f"a message spans lines: {line[:200]!r}"
        json.loads(line)  # a message split over lines leaves a line that is not JSON


@for_req("stdio-server-stdout-only-mcp", "server")
def test_stdout_carries_only_mcp_messages(revision: str, server: Peer) -> None:
    short_session(server)
    for line in server.received_lines:
        try:
            frame = json.loads(line)
        except json.JSONDecodeError:
            raise AssertionError(f"stdout carried a line that is not an MCP message: {line[:200]!r}") from None
        problems = violations(revision, "JSONRPCMessage", frame, strict=False)
        assert not problems, f"stdout carried {line[:200]!r}: " + "; ".join(problems)


@for_req("stdio-server-exit-on-stdin-eof", "server")
def test_the_server_exits_when_its_stdin_closes(revision: str, server: Peer) -> None:
    short_session(server)
    server.process.stdin.close()
    deadline = time.monotonic() + EXIT_SECONDS
    while time.monotonic() < deadline and running(server.process.pid):
        time.sleep(0.02)
    assert not running(server.process.pid), f"still running {EXIT_SECONDS:g}s after its stdin closed"


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
