"""Roots, server side: when a server asks for the client's roots, and how it copes with what it gets
(docs/spec/requirements.md, roots; client/roots).

The server is driven through the role ``roots-tool`` (a tool that asks the client for its roots when
the client declared roots). Before 2026-07-28 the server asks with a ``roots/list`` request of its own
during the call, which the harness answers; at 2026-07-28 it asks in the call's ``input_required``
result, and the harness retries with the answer (basic/patterns/mrtr).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.harness.exchanges import CLIENT_RESULTS, is_request
from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import ImplementationTimeout, Peer, precondition
from conformance.harness.roles import Binding, bound, optional_roles, require_role
from conformance.harness.surface import open_standalone_stream
from conformance.harness.wire import Wire, answers, tool_call
from conformance.matrix.covers import for_req

CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
GONE_ROOT = {"uri": "file:///mcp-matrix/no-such-directory/gone", "name": "a root that is no longer there"}
FIRST_ROOTS = {"roots": [{"uri": "file:///mcp-matrix/first", "name": "first"}]}
SECOND_ROOTS = {"roots": [{"uri": "file:///mcp-matrix/second", "name": "second"}]}
Answer = Callable[[dict], dict]


def roots_tool(peer: Peer, capabilities: dict) -> Binding:
    """The tool bound to roots-tool, once the session is open declaring ``capabilities`` (before 2026-07-28;
    at 2026-07-28 each request declares its own)."""
    bound(peer, "roots-tool")
    peer.open(capabilities)
    open_standalone_stream(peer)  # a server may ask for roots there, unrelated to any call
    return require_role(peer, "roots-tool")


def call_answering(peer: Peer, wire: Wire, tool: Binding, answer: Answer, label: str) -> tuple[dict, list[dict]]:
    """Before 2026-07-28: call ``tool``, answering each request the server sends meanwhile with ``answer``
    (roots/list) or the harness's usual answer; the call's answer and the requests the server sent."""
    call = wire.send(tool_call(peer, label, tool.name, tool.args()))
    asked = []
    while True:
        frame = wire.until(lambda f: is_request(f) or answers(f, call.id), f"answer to {tool.name}")
        if not is_request(frame):
            return frame, asked
        asked.append(frame)
        result = answer(frame) if frame["method"] == "roots/list" else CLIENT_RESULTS.get(frame["method"], {})
        peer.send({"jsonrpc": "2.0", "id": frame["id"], "result": result})


def modern_call(peer: Peer, tool: Binding, capabilities: dict, label: str, **retry: Any) -> dict:
    """At 2026-07-28: the tools/call of ``tool`` declaring ``capabilities``, with ``retry`` added."""
    frame = tool_call(peer, label, tool.name, tool.args())
    frame["params"] |= retry
    frame["params"]["_meta"][CAPABILITIES_META] = capabilities
    peer.send_request(frame)
    return peer.expect_response(frame["id"])


def roots_questions(response: dict) -> dict:
    result = response.get("result") if isinstance(response.get("result"), dict) else {}
    requests = result.get("inputRequests") if result.get("resultType") == "input_required" else None
    return {k: r for k, r in (requests or {}).items() if isinstance(r, dict) and r.get("method") == "roots/list"}


@for_req("roots-server-check-capability", "server", transports=BOTH_TRANSPORTS)
def test_a_server_asks_for_roots_only_from_a_client_that_declared_them(
    revision: str, transport: str, peer: Peer
) -> None:
    """The tool that asks for roots, called by a client that declared sampling but not roots: no roots/list
    (a request of the server's before 2026-07-28, an inputRequests entry at 2026-07-28)."""
    bound(peer, "roots-tool")
    peer.open({"sampling": {}})
    open_standalone_stream(peer)
    listed = optional_roles(peer, "roots-tool")  # a server may offer the tool only to a client with roots
    if not listed:
        pytest.skip("fixture-missing: the server does not offer roots-tool to a client that did not declare roots")
    tool = listed[0]
    if peer.stateless:
        response = modern_call(peer, tool, {"sampling": {}}, "roots-undeclared")
        asked = roots_questions(response)
        assert not asked, f"the request declared no roots, yet {tool.name} asked for them: {asked}"
        return
    _, requests = call_answering(peer, Wire(peer), tool, lambda _: {"roots": []}, "roots-undeclared")
    asked = [r for r in requests if r.get("method") == "roots/list"]
    assert not asked, f"the client declared no roots, yet the server sent {asked}"


@for_req("roots-server-handle-unavailable", "server", transports=BOTH_TRANSPORTS)
def test_a_root_that_is_gone_does_not_fail_the_server(revision: str, transport: str, peer: Peer) -> None:
    """The roots the server gets name a directory that does not exist: the call still ends with a result
    (successful or not, but no protocol error), and the server goes on serving."""
    tool = roots_tool(peer, {"roots": {}})
    gone = {"roots": [GONE_ROOT]}
    if peer.stateless:
        capabilities = {"roots": {}}
        first = modern_call(peer, tool, capabilities, "roots-gone-1")
        keys = roots_questions(first)
        if not keys:
            pytest.skip(f"fixture-missing: {tool.name} asked for no roots: {first}")
        state = first["result"].get("requestState")
        retry = {"inputResponses": dict.fromkeys(keys, gone)} | ({"requestState": state} if state else {})
        answer = modern_call(peer, tool, capabilities, "roots-gone-2", **retry)
    else:
        answer, requests = call_answering(peer, Wire(peer), tool, lambda _: gone, "roots-gone")
        if not any(r.get("method") == "roots/list" for r in requests):
            pytest.skip(f"fixture-missing: {tool.name} asked for no roots")
    assert "error" not in answer and "result" in answer, f"given a root that is gone, the call ended {answer}"
    probe = peer.rpc(peer.probe_method, check=False)
    assert "result" in probe, f"after a root that is gone, {peer.probe_method} was answered {probe}"


@for_req("roots-server-handle-list-changes", "server", transports=BOTH_TRANSPORTS)
def test_a_changed_root_list_is_asked_for_again(revision: str, transport: str, peer: Peer) -> None:
    """The tool that asks for roots runs once (roots: first), the client announces that its roots changed,
    and the tool runs again: the server asks for the roots again (whether at once, on the announcement, or
    when it next needs them) rather than going on with the list it had."""
    tool = roots_tool(peer, {"roots": {"listChanged": True}})
    wire = Wire(peer)
    _, requests = call_answering(peer, wire, tool, lambda _: FIRST_ROOTS, "roots-before")
    if not any(r.get("method") == "roots/list" for r in requests):
        pytest.skip(f"fixture-missing: {tool.name} asked for no roots")
    peer.notify("notifications/roots/list_changed")
    try:
        _, again = call_answering(peer, wire, tool, lambda _: SECOND_ROOTS, "roots-after")
    except ImplementationTimeout as exc:
        raise AssertionError(f"after notifications/roots/list_changed, {tool.name} did not end: {exc}") from None
    asked = [r for r in again if r.get("method") == "roots/list"]
    assert asked, f"after notifications/roots/list_changed, {tool.name} ran on without asking for the roots again"


# -- a tool acting on paths: only under the roots --------------------------------------------------------------

SECRET = "mcp-matrix: a file outside the client's roots"


def bounded_reader(peer: Peer, tmp_path: Path) -> tuple[Callable[[str], dict], Path, Path]:
    """A function reading a path with the role's tool, and two files on this machine (the target's too: the
    harness reaches only loopback targets): one inside the root the harness reports, one outside it."""
    root, elsewhere = tmp_path / "root", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    (root / "inside.txt").write_text("mcp-matrix: a file under the client's root\n", encoding="utf-8")
    (elsewhere / "outside.txt").write_text(SECRET + "\n", encoding="utf-8")
    roots = {"roots": [{"uri": root.as_uri(), "name": "mcp-matrix root"}]}
    bound(peer, "roots-bounded-file-tool")
    capabilities = {"roots": {}}
    peer.open(capabilities)
    open_standalone_stream(peer)
    tool = require_role(peer, "roots-bounded-file-tool")
    wire = Wire(peer) if not peer.stateless else None
    count = iter(range(1, 100))

    def read(path: str) -> dict:
        reading = Binding(tool.role, tool.kind, tool.name, {**tool.arguments, "path": path})
        label = f"read-{next(count)}"
        if wire is not None:
            return call_answering(peer, wire, reading, lambda _: roots, label)[0]
        answer = modern_call(peer, reading, capabilities, label)
        if keys := roots_questions(answer):
            state = answer["result"].get("requestState")
            retry = {"inputResponses": dict.fromkeys(keys, roots)} | ({"requestState": state} if state else {})
            answer = modern_call(peer, reading, capabilities, f"{label}-retry", **retry)
        return answer

    # A server may take the roots on its own schedule (asked after initialization, applied once its answer is
    # checked): the read under the root is tried again, for a bounded while, until the roots have arrived.
    inside, deadline = str(root / "inside.txt"), time.monotonic() + peer.timeout
    first = read(inside)
    while not read_back(first) and time.monotonic() < deadline:
        first = read(inside)
    precondition(read_back(first), f"{tool.name} could not read a file under the client's root: {first}")
    return read, root, elsewhere / "outside.txt"


def read_back(answer: dict) -> bool:
    result = answer.get("result") if isinstance(answer.get("result"), dict) else None
    return result is not None and result.get("isError") is not True and result.get("resultType") != "input_required"


@for_req("roots-server-respect-boundaries", "server", transports=BOTH_TRANSPORTS)
def test_a_server_acts_only_under_the_roots(revision: str, transport: str, peer: Peer, tmp_path: Path) -> None:
    """The tool reads a file under the client's root, and refuses one outside it."""
    read, _, outside = bounded_reader(peer, tmp_path)
    answer = read(str(outside))
    assert not read_back(answer), f"a file outside the client's roots was read: {answer}"


@for_req("roots-server-validate-paths", "server", transports=BOTH_TRANSPORTS)
def test_a_path_climbing_out_of_the_roots_is_refused(revision: str, transport: str, peer: Peer, tmp_path: Path) -> None:
    """A path that starts under the client's root and climbs out of it with '..' is refused."""
    read, root, outside = bounded_reader(peer, tmp_path)
    climbing = f"{root}/../{outside.parent.name}/{outside.name}"
    answer = read(climbing)
    assert not read_back(answer), f"{climbing}, outside the client's roots, was read: {answer}"
