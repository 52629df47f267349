"""Roots, server side: when a server asks for the client's roots, and how it copes with what it gets
(docs/spec/requirements.md, roots; client/roots).

The server is driven through the role ``roots-tool`` (a tool that asks the client for its roots when
the client declared roots). Before 2026-07-28 the server asks with a ``roots/list`` request of its own
during the call, which the harness answers; at 2026-07-28 it asks in the call's ``input_required``
result, and the harness retries with the answer (basic/patterns/mrtr).

Client side (the second half of the module): the client under test, through the client driver's roots
scenarios, answering the scripted server's questions for its roots.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.harness.exchanges import CLIENT_RESULTS, is_request
from conformance.harness.frames import BOTH_TRANSPORTS, CLIENT_CAPABILITIES_META
from conformance.harness.peer import ImplementationTimeout, Peer, precondition
from conformance.harness.roles import Binding, bound, optional_roles, require_role
from conformance.harness.scripted_server import Pace, ScriptedPeer, ScriptedServer
from conformance.harness.surface import input_questions, modern_call, open_standalone_stream
from conformance.harness.timing import Timeline, script
from conformance.harness.wire import Wire, answers, tool_call
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun

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


def roots_questions(response: dict) -> dict:
    return input_questions(response, "roots/list")


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


# == the client side: the client under test answering the scripted server's roots/list ======================
#
# The client under test runs a scenario of the client driver (conformance/fixtures/client.py: a host exposing
# roots, changing them, failing to list them, or taking no roots at all). Up to 2025-11-25 the scripted stdio
# server asks for the roots with a roots/list request during each tool call (Pace.ask), and the client's
# response answers it; at 2026-07-28 the scripted Streamable HTTP server answers the call with an
# input_required result asking for them, and the answer comes in the retried call's inputResponses.

RunClient = Callable[[str], ClientRun]
MODERN = "2026-07-28"
LEGACY = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
ASK_ROOTS = Pace(ask=("roots/list",))  # every tools/call: the server asks for the roots first
ROOTS_KEY = "mcp-matrix-roots"  # the inputRequests key of the question at 2026-07-28
# Legacy revisions over stdio (the one transport of 2024-11-05), 2026-07-28 over Streamable HTTP (an answer
# that depends on the retry).
ONE_TRANSPORT = {revision: ("streamable-http",) for revision in LEGACY} | {MODERN: ("stdio",)}
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603


def ask_for_roots(peer: ScriptedPeer) -> None:
    """Have the scripted server ask the client for its roots during each tools/call."""
    if peer.revision != MODERN:
        script(peer, paces={"tools/call": ASK_ROOTS})
        return
    assert isinstance(peer, ScriptedServer)
    complete = peer.answers["tools/call"]

    def serve(frame: dict) -> dict:
        params = frame.get("params") if isinstance(frame.get("params"), dict) else {}
        if params.get("inputResponses"):
            return complete(frame)
        return {"resultType": "input_required", "inputRequests": {ROOTS_KEY: {"method": "roots/list"}}}

    peer.answers["tools/call"] = serve


def roots_answers(peer: ScriptedPeer) -> list[dict]:
    """The client's answers to the server's questions for its roots, in order: each a response
    (``{"result": ...}`` or ``{"error": ...}``), or at 2026-07-28 the inputResponses entry as a result."""
    frames = [f for f in peer.frames() if isinstance(f, dict)]
    if peer.revision == MODERN:
        given = [(f.get("params") or {}).get("inputResponses") for f in frames if f.get("method") == "tools/call"]
        return [{"result": g[ROOTS_KEY]} for g in given if isinstance(g, dict) and ROOTS_KEY in g]
    asked = [e.payload.get("id") for e in Timeline(peer).to_client("roots/list")]
    return [f for f in frames if "method" not in f and f.get("id") in asked]


def listed_roots(answers: list[dict]) -> list[Any]:
    """The roots of every answer that is a result; fixture-missing when no answer listed any."""
    results = [a["result"] for a in answers if isinstance(a.get("result"), dict) and "error" not in a]
    roots = [root for result in results for root in result.get("roots") or []]
    if not results:
        pytest.skip(f"fixture-missing: the client listed no roots: {answers}")
    return roots


def client_requests(peer: ScriptedPeer) -> list[dict]:
    return [f for f in peer.frames() if isinstance(f, dict) and "method" in f and "id" in f]


def initialize_capabilities(peer: ScriptedPeer) -> dict:
    initialize = next((f for f in client_requests(peer) if f["method"] == "initialize"), None)
    precondition(initialize is not None, "the client sent no initialize request")
    capabilities = (initialize.get("params") or {}).get("capabilities")
    return capabilities if isinstance(capabilities, dict) else {}


def meta_capabilities(frame: dict) -> dict:
    params = frame.get("params") if isinstance(frame.get("params"), dict) else {}
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    capabilities = meta.get(CLIENT_CAPABILITIES_META)
    return capabilities if isinstance(capabilities, dict) else {}


def dot_segments(uri: str) -> list[str]:
    """The '.' and '..' segments of a URI's path, percent-encoded ones too."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(uri).path)
    return [segment for segment in path.replace("\\", "/").split("/") if segment in (".", "..")]


@for_req("roots-capability-declare-initialize", "client", transports=BOTH_TRANSPORTS, not_over=ONE_TRANSPORT)
def test_a_client_listing_roots_declares_them_when_it_initializes(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The host exposes roots (``roots_list``) and lists them when asked: its initialize request declared
    ``roots``."""
    ask_for_roots(scripted_peer)
    run = run_peer_client("roots_list")

    def check() -> None:
        listed_roots(roots_answers(scripted_peer))
        capabilities = initialize_capabilities(scripted_peer)
        assert isinstance(capabilities.get("roots"), dict), (
            f"the client listed its roots, yet its initialize declared the capabilities {capabilities}"
        )

    run.judge(check)


@for_req("roots-capability-declare-per-request", "client", transports=BOTH_TRANSPORTS, not_over=ONE_TRANSPORT)
def test_a_client_listing_roots_declares_them_on_every_request(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The host exposes roots and gives them when an input_required result asks: every request it sent
    declared ``roots`` in ``_meta``'s client capabilities."""
    ask_for_roots(scripted_peer)
    run = run_peer_client("roots_list")

    def check() -> None:
        listed_roots(roots_answers(scripted_peer))
        undeclared = [
            f"{f['method']} (id {f['id']}): {meta_capabilities(f)}"
            for f in client_requests(scripted_peer)
            if not isinstance(meta_capabilities(f).get("roots"), dict)
        ]
        assert not undeclared, "requests of a client that lists roots, without roots declared:\n" + "\n".join(
            undeclared
        )

    run.judge(check)


@for_req("roots-list-changed-notification", "client", transports=BOTH_TRANSPORTS, not_over=ONE_TRANSPORT)
def test_a_change_of_roots_is_announced(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The host lists its roots, the user changes them, and the host lists the new ones (``roots_change``):
    a client that declared ``roots.listChanged`` sent notifications/roots/list_changed between the two
    answers."""
    ask_for_roots(scripted_peer)
    run = run_peer_client("roots_change")

    def check() -> None:
        roots = initialize_capabilities(scripted_peer).get("roots")
        if not (isinstance(roots, dict) and roots.get("listChanged") is True):
            pytest.skip(f"fixture-missing: the client did not declare roots.listChanged ({roots})")
        answers = [a for a in roots_answers(scripted_peer) if isinstance(a.get("result"), dict)]
        if len(answers) < 2 or answers[0]["result"] == answers[-1]["result"]:
            pytest.skip(f"fixture-missing: the client's roots did not change between two answers: {answers}")
        frames = [f for f in scripted_peer.frames() if isinstance(f, dict)]
        first, last = frames.index(answers[0]), frames.index(answers[-1])
        announced = [f for f in frames[first:last] if f.get("method") == "notifications/roots/list_changed"]
        assert announced, (
            f"the client's roots went from {answers[0]['result']} to {answers[-1]['result']} without a "
            "notifications/roots/list_changed between the two answers"
        )

    run.judge(check)


@for_req("roots-uri-file-scheme", "client", transports=BOTH_TRANSPORTS, not_over=ONE_TRANSPORT)
def test_every_root_is_a_file_uri(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    ask_for_roots(scripted_peer)
    run = run_peer_client("roots_list")

    def check() -> None:
        roots = listed_roots(roots_answers(scripted_peer))
        other = [r for r in roots if not (isinstance(r, dict) and str(r.get("uri", "")).lower().startswith("file://"))]
        assert not other, f"roots that are not file:// URIs: {other}"

    run.judge(check)


@for_req("roots-validate-uris-traversal", "client", transports=BOTH_TRANSPORTS, not_over=ONE_TRANSPORT)
def test_no_root_climbs_out_of_its_location(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The host is configured with a root whose path climbs with '..' (``roots_traversal``): the client
    exposes no root URI with a '.' or '..' segment (it may refuse the root, or resolve it)."""
    ask_for_roots(scripted_peer)
    run = run_peer_client("roots_traversal")

    def check() -> None:
        answers = roots_answers(scripted_peer)
        if not answers:
            pytest.skip("fixture-missing: the client never answered for its roots")
        roots = [r for a in answers if isinstance(a.get("result"), dict) for r in a["result"].get("roots") or []]
        climbing = {str(r.get("uri")): dot_segments(str(r.get("uri"))) for r in roots if isinstance(r, dict)}
        climbing = {uri: segments for uri, segments in climbing.items() if segments}
        assert not climbing, f"root URIs exposed with path-traversal segments: {climbing}"

    run.judge(check)


@for_req("roots-error-not-supported", "client", transports=BOTH_TRANSPORTS, not_over=ONE_TRANSPORT)
def test_a_client_without_roots_answers_method_not_found(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """A host that exposes no roots (``tools_call``) is asked for them: -32601 (Method not found)."""
    ask_for_roots(scripted_peer)
    run = run_peer_client("tools_call")

    def check() -> None:
        if "roots" in initialize_capabilities(scripted_peer):
            pytest.skip("fixture-missing: the client declared roots in this scenario")
        answers = roots_answers(scripted_peer)
        if not answers:
            pytest.skip("fixture-missing: the client never answered roots/list")
        codes = [(a.get("error") or {}).get("code") for a in answers]
        assert all(code == METHOD_NOT_FOUND for code in codes), f"a client without roots answered roots/list {answers}"

    run.judge(check)


@for_req("roots-error-internal", "client", transports=BOTH_TRANSPORTS, not_over=ONE_TRANSPORT)
def test_a_failure_to_list_the_roots_is_an_internal_error(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The host's roots cannot be listed (``roots_failing``: its store fails): -32603 (Internal error)."""
    ask_for_roots(scripted_peer)
    run = run_peer_client("roots_failing")

    def check() -> None:
        answers = roots_answers(scripted_peer)
        if not answers:
            pytest.skip("fixture-missing: the client never answered roots/list")
        codes = [(a.get("error") or {}).get("code") for a in answers]
        assert all(code == INTERNAL_ERROR for code in codes), f"the client failing to list its roots answered {answers}"

    run.judge(check)


@for_req("roots-check-accessible-before-exposing", "client", transports=BOTH_TRANSPORTS, not_over=ONE_TRANSPORT)
def test_a_root_that_cannot_be_reached_is_not_exposed(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The host is configured with a directory that exists and one that does not (``roots_unreachable``): the
    client exposes no file:// root whose location does not exist (the client runs on this machine: the harness
    reaches only loopback)."""
    ask_for_roots(scripted_peer)
    run = run_peer_client("roots_unreachable")

    def check() -> None:
        roots = listed_roots(roots_answers(scripted_peer))
        uris = [str(r.get("uri")) for r in roots if isinstance(r, dict)]
        file_uris = [u for u in uris if urllib.parse.urlsplit(u).scheme.lower() == "file"]
        missing = [u for u in file_uris if not Path(urllib.parse.unquote(urllib.parse.urlsplit(u).path)).exists()]
        assert not missing, f"roots exposed whose location does not exist: {missing} (all roots: {uris})"

    run.judge(check)
