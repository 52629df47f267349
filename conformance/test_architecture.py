"""Architecture: the components every server (and client: the last section) implements, and 2026-07-28's
statelessness (docs/spec/requirements.md, architecture; basic/index#protocol-layers and #statelessness).

Up to 2025-11-25 a server implements the base protocol with the lifecycle: the handshake, requests
answered, unknown methods refused. At 2026-07-28 it implements the base protocol, versioning
(``server/discover``) and the message patterns (request and response, multi round-trip requests,
subscribe and notify), and serves each request from what the request itself carries: not from what an
earlier request on the same connection declared, and not only on the connection or process that began
the work. The work that spans requests is a multi round-trip request, reached by role: ``request-state-tool``
(an ``input_required`` result whose ``requestState`` the retry needs), ``sampling-required-tool`` (refused
without the sampling capability), ``slow-tool`` and ``simple-tool``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conformance.harness.exchanges import PING_ID, PUSHED, PUSHED_IDS, UNKNOWN_ID, items
from conformance.harness.frames import (
    BOTH_TRANSPORTS,
    CLIENT_CAPABILITIES_META,
    UNKNOWN_METHOD,
    UNKNOWN_VERSION,
    modern_meta,
)
from conformance.harness.http import HttpPeer
from conformance.harness.launcher import CommandLauncher, SharedLauncher, WarmLauncher
from conformance.harness.peer import Peer, precondition
from conformance.harness.roles import Binding, bound, optional_roles, require_role, require_roles
from conformance.harness.scripted_server import ScriptedPeer, ScriptedServer, StreamScript
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.stdio import StdioPeer
from conformance.harness.trace import Trace
from conformance.harness.wire import Wire, answers, tool_call
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun
from conformance.test_mrtr import (
    ASK_TOOL,
    ECHO_TOOL,
    ELICIT_NAME,
    FINAL,
    MULTI_ROUND,
    answer_for,
    script_rounds,
)
from conformance.test_mrtr import input_required as asking_round

# -- the components every server implements ------------------------------------------------------------


@for_req("architecture-base-protocol-required", "server", transports=BOTH_TRANSPORTS)
def test_the_server_implements_the_base_protocol_and_the_lifecycle(revision: str, transport: str, peer: Peer) -> None:
    """The handshake (a version, capabilities and the server's identity), a request answered with a
    result under its id, and a method the server does not know refused with an error."""
    result = peer.initialize(check=False)
    assert isinstance(result.get("protocolVersion"), str), f"initialize named no protocol version: {result}"
    assert isinstance(result.get("capabilities"), dict), f"initialize declared no capabilities: {result}"
    assert isinstance((result.get("serverInfo") or {}).get("name"), str), f"initialize named no server: {result}"
    pong = peer.rpc("ping", check=False)
    assert isinstance(pong.get("result"), dict), f"ping was answered {pong}"
    unknown = peer.rpc(UNKNOWN_METHOD, check=False)
    assert isinstance((unknown.get("error") or {}).get("code"), int), f"{UNKNOWN_METHOD} was answered {unknown}"


@for_req("architecture-core-components-required", "server", transports=BOTH_TRANSPORTS)
def test_the_server_implements_versioning_and_the_message_patterns(revision: str, transport: str, peer: Peer) -> None:
    """``server/discover`` names the revisions served; a request at a version no one serves is refused;
    ``subscriptions/listen`` is acknowledged (subscribe and notify); a multi round-trip request completes
    once its questions are answered, where the target has a tool that asks (request and response is
    every exchange here)."""
    discovered = peer.rpc("server/discover", check=False).get("result") or {}
    versions = discovered.get("supportedVersions")
    assert isinstance(versions, list) and revision in versions, f"server/discover answered {discovered}"
    refused = peer.rpc("tools/list", {"_meta": modern_meta(UNKNOWN_VERSION)}, check=False)
    assert "error" in refused, f"a request at version {UNKNOWN_VERSION} was served: {refused}"
    wire = Wire(peer)
    listen = wire.send(peer.envelope("subscriptions/listen", "listen", {"notifications": {"toolsListChanged": True}}))
    first = wire.until(
        lambda f: answers(f, listen.id) or f.get("method") == "notifications/subscriptions/acknowledged",
        "acknowledgement of subscriptions/listen",
    )
    assert not answers(first, listen.id), f"subscriptions/listen was answered without a stream: {first}"
    for tool in optional_roles(peer, "sampling-tool")[:1]:
        asked = use(peer, tool, {"sampling": {}})
        precondition(input_required(asked), f"{tool.name} asked the client nothing: {asked}")
        done = use(peer, tool, {"sampling": {}}, **answered(asked))
        assert completed(done), f"{tool.name}, its question answered, ended {done}"


# -- 2026-07-28: multi round-trip requests, as the statelessness rows use them ---------------------------


def use(peer: Peer, tool: Binding, capabilities: dict | None = None, **retry: Any) -> dict:
    """tools/call of ``tool`` declaring ``capabilities`` in its ``_meta``, with ``retry`` (inputResponses,
    requestState) added; its answer."""
    params: dict[str, Any] = {"name": tool.name, "arguments": tool.args(), **retry}
    params["_meta"] = {CLIENT_CAPABILITIES_META: capabilities or {}}
    frame = peer.envelope("tools/call", f"call-{peer.next_id()}", params)
    peer.send_request(frame)
    return peer.expect_response(frame["id"])


def result_of(response: dict) -> dict:
    result = response.get("result")
    return result if isinstance(result, dict) else {}


def input_required(response: dict) -> bool:
    return result_of(response).get("resultType") == "input_required"


def completed(response: dict) -> bool:
    return "result" in response and not input_required(response) and result_of(response).get("isError") is not True


def answered(asked: dict) -> dict:
    """The retry's parts after ``asked``: the harness's answer to each question (as the multi round-trip
    tests answer them: a sampled text, no roots, a form filled in from its schema) and the requestState."""
    questions = result_of(asked).get("inputRequests") or {}
    parts: dict[str, Any] = {"inputResponses": {key: answer_for(question) for key, question in questions.items()}}
    if isinstance(result_of(asked).get("requestState"), str):
        parts["requestState"] = result_of(asked)["requestState"]
    return parts


def stateful_round(peer: Peer) -> tuple[Binding, dict]:
    """The first round of the request-state tool: an input_required result with a requestState."""
    bound(peer, "request-state-tool")
    tool = require_role(peer, "request-state-tool")
    asked = use(peer, tool, EVERY_CAPABILITY)
    if not input_required(asked) or not isinstance(result_of(asked).get("requestState"), str):
        pytest.skip(f"fixture-missing: {tool.name} answered without asking and keeping state: {asked}")
    return tool, asked


EVERY_CAPABILITY = {"sampling": {}, "roots": {}, "elicitation": {"form": {}}}


@contextmanager
def another_connection(peer: Peer, request: pytest.FixtureRequest, *, independent: bool = False) -> Iterator[Peer]:
    """A second connection to the server under test: over Streamable HTTP, another client of the same
    endpoint; over stdio, another process of the same server. ``independent``: a process started on its
    own, not forked from the warm parent the first one came from (a fork shares the parent's memory, keys
    included, which separately started processes of a server do not)."""
    path = peer.trace.path.with_suffix(".other.jsonl")
    if isinstance(peer, HttpPeer):
        with HttpPeer(peer.url, Trace(path, "streamable-http"), peer.revision) as other:
            other.roles = peer.roles
            yield other
        return
    launcher = request.getfixturevalue("server_launcher")
    forked = isinstance(launcher, (WarmLauncher, SharedLauncher)) and independent
    fresh = CommandLauncher([sys.executable, "-m", launcher.module]) if forked else launcher
    try:
        with StdioPeer(fresh.start(), Trace(path, "stdio"), peer.revision) as other:
            other.roles = peer.roles
            yield other
    finally:
        if fresh is not launcher:
            fresh.close()


@for_req("architecture-cross-request-state-explicit-handle", "server", transports=BOTH_TRANSPORTS)
def test_state_that_spans_requests_is_named_by_the_handle_the_client_sends(
    revision: str, transport: str, peer: Peer, request: pytest.FixtureRequest
) -> None:
    """The state a multi round-trip request keeps between rounds travels in its ``requestState``: the
    retry without it does not complete on another connection (so the state is needed) nor on the
    connection that began the work (so that connection does not hold it), and the retry with it does."""
    tool, asked = stateful_round(peer)
    without = {k: v for k, v in answered(asked).items() if k != "requestState"}
    with another_connection(peer, request) as other:
        elsewhere = use(other, tool, EVERY_CAPABILITY, **without)
    if completed(elsewhere):
        pytest.skip(f"fixture-missing: {tool.name} completes without its requestState: it keeps no state")
    here = use(peer, tool, EVERY_CAPABILITY, **without)
    assert not completed(here), (
        f"without its requestState the retry completed on the connection that began it ({here}), "
        f"not on another ({elsewhere}): the state was kept by the connection"
    )
    done = use(peer, tool, EVERY_CAPABILITY, **answered(asked))
    assert completed(done), f"the retry carrying the requestState ended {done}"


@for_req("architecture-stateless-no-connection-affinity", "server", transports=BOTH_TRANSPORTS)
def test_related_requests_may_arrive_on_another_connection(
    revision: str, transport: str, peer: Peer, request: pytest.FixtureRequest
) -> None:
    """A multi round-trip request begun on one connection completes when its retry comes on another (over
    stdio: another process of the same server)."""
    tool, asked = stateful_round(peer)
    with another_connection(peer, request, independent=True) as other:
        done = use(other, tool, EVERY_CAPABILITY, **answered(asked))
    assert completed(done), f"the retry on another {transport} connection ended {done}"


@for_req("architecture-stateless-no-connection-context", "server")
def test_no_context_is_carried_over_from_earlier_requests_on_the_connection(revision: str, server: Peer) -> None:
    """stdio, one connection: a request declaring no sampling capability is refused the same way before and
    after another request on the connection declared it."""
    bound(server, "sampling-required-tool")
    (tool,) = require_roles(server, "sampling-required-tool")
    before = use(server, tool, {})
    if "error" not in before:
        pytest.skip(f"fixture-missing: {tool.name} is served without the sampling capability: {before}")
    declared = use(server, tool, {"sampling": {}})
    if (declared.get("error") or {}).get("code") == before["error"].get("code"):
        pytest.skip(f"fixture-missing: {tool.name} is refused even with the sampling capability: {declared}")
    after = use(server, tool, {})
    assert "result" not in after and (after.get("error") or {}).get("code") == before["error"].get("code"), (
        f"without the sampling capability {tool.name} was refused {before['error']} at first, but after a request "
        f"that declared it, answered {after}"
    )


def kinds(response: dict) -> list:
    """The types of a tool result's content items: what a call answers, whatever values change between calls
    (a clock, a counter)."""
    return [item.get("type") for item in result_of(response).get("content") or [] if isinstance(item, dict)]


@for_req("architecture-stateless-interleaved-work", "server")
def test_requests_of_several_conversations_interleave_on_one_connection(revision: str, server: Peer) -> None:
    """stdio, one connection: a quick call made while a slow one runs is answered as it is alone (a result
    with the same kinds of content), and the slow one completes too."""
    for role in ("slow-tool", "simple-tool"):
        bound(server, role)
    slow, quick = require_roles(server, "slow-tool", "simple-tool")
    wire = Wire(server)
    alone = wire.answer(wire.send(tool_call(server, "alone", quick.name, quick.args())).id)
    precondition(completed(alone), f"{quick.name} alone ended {alone}")
    accepted = ((slow.listing or {}).get("inputSchema") or {}).get("properties") or {}
    shorter = {k: v for k, v in {"run_id": "interleaved", "steps": 4}.items() if k in accepted}  # the fixture's
    running = wire.send(tool_call(server, "slow", slow.name, slow.args(**shorter)))
    meanwhile = wire.answer(wire.send(tool_call(server, "meanwhile", quick.name, quick.args())).id)
    assert completed(meanwhile) and kinds(meanwhile) == kinds(alone), (
        f"while another request ran, {quick.name} was answered {meanwhile}; alone, {alone}"
    )
    finished = wire.answer(running.id)
    assert completed(finished), f"{slow.name}, with another request interleaved, ended {finished}"


# -- the client side -------------------------------------------------------------------------------------
#
# The client under test runs a scenario of the driver against a scripted server (stdio or Streamable HTTP):
# up to 2025-11-25 the handshake and a listing, during which the server asks the client a ping and a method
# nobody defines; at 2026-07-28 the core message patterns, and a multi round-trip request of two rounds,
# each carrying a requestState the next request must hand back (test_mrtr's scripted rounds).

RunClient = Callable[[str], ClientRun]
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"


def client_frames(server: ScriptedPeer) -> list[dict]:
    """What the client sent, every message of every frame (batches opened), in order."""
    return [item for frame in server.frames() for item in items(frame) if isinstance(item, dict)]


def params(frame: dict) -> dict:
    return frame["params"] if isinstance(frame.get("params"), dict) else {}


def asking_the_client(server: ScriptedPeer) -> None:
    """Before it answers the client's tools/list, the scripted server sends it a ping, a request of a method
    nobody defines and a notification (exchanges.PUSHED), and waits (bounded) for the two answers."""
    if isinstance(server, ScriptedStdio):
        server.push["tools/list"] = list(PUSHED)
        return
    assert isinstance(server, ScriptedServer)
    answered = [server.answered(request_id) for request_id in PUSHED_IDS]
    server.streams["tools/list"] = StreamScript(events=list(PUSHED), respond_when=lambda: all(a() for a in answered))


@for_req("architecture-base-protocol-required", "client", transports=BOTH_TRANSPORTS)
def test_the_client_implements_the_base_protocol_and_the_lifecycle(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The lifecycle: ``initialize`` with a version, capabilities and the client's identity, then
    ``notifications/initialized``. The base protocol: the server's requests answered under their ids, a
    ping with a result and a method the client does not know with an error (its own request, tools/list,
    gets its answer: the scenario runs to its end)."""
    asking_the_client(scripted_peer)
    run = run_peer_client("initialize")

    def check() -> None:
        frames = client_frames(scripted_peer)
        initialize = next((f for f in frames if f.get("method") == "initialize"), None)
        assert initialize is not None, f"the client sent no initialize: {frames[:3]}"
        opening = params(initialize)
        assert isinstance(opening.get("protocolVersion"), str), f"initialize named no protocol version: {initialize}"
        assert isinstance(opening.get("capabilities"), dict), f"initialize declared no capabilities: {initialize}"
        named = (opening.get("clientInfo") or {}).get("name")
        assert isinstance(named, str), f"initialize named no client: {initialize}"
        assert any(f.get("method") == "notifications/initialized" for f in frames), "no notifications/initialized"
        responses = {json.dumps(f.get("id")): f for f in frames if "method" not in f}
        pong = responses.get(json.dumps(PING_ID))
        assert pong is not None and isinstance(pong.get("result"), dict), f"the server's ping was answered {pong}"
        unknown = responses.get(json.dumps(UNKNOWN_ID))
        assert unknown is not None and isinstance((unknown.get("error") or {}).get("code"), int), (
            f"the server's request of a method nobody defines was answered {unknown}"
        )

    run.judge(check)


def scripted_rounds(server: ScriptedPeer, rounds: tuple[dict, ...]) -> None:
    """The calls of ``ask`` answered with ``rounds`` in turn, then with a final result (test_mrtr's)."""
    if isinstance(server, ScriptedStdio):
        server.tools = [ASK_TOOL, ECHO_TOOL]
        server.rounds["tools/call"] = [*rounds, FINAL]
        return
    assert isinstance(server, ScriptedServer)
    script_rounds(server, *rounds)


def calls_of_ask(server: ScriptedPeer) -> list[dict]:
    return [f for f in client_frames(server) if f.get("method") == "tools/call" and params(f).get("name") == "ask"]


@for_req("architecture-cross-request-state-explicit-handle", "client", transports=BOTH_TRANSPORTS)
def test_the_client_passes_the_handle_of_the_work_on_each_request(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """A multi round-trip request of two rounds, each naming the state of the work by a requestState:
    every request that carries the work on names it with the handle the round before it gave (over stdio
    too, where the connection stays the same and a client could lean on it instead)."""
    scripted_rounds(scripted_peer, MULTI_ROUND)
    run = run_peer_client("mrtr_tool_call")

    def check() -> None:
        calls = calls_of_ask(scripted_peer)
        precondition(len(calls) > 1, f"the client never carried the work on past its first request: {calls}")
        for round_, call in zip(MULTI_ROUND, calls[1:], strict=False):
            handle = round_["requestState"]
            sent = params(call).get("requestState")
            assert sent == handle, f"a request carrying the work on names it {sent!r}, not by its handle {handle!r}"

    run.judge(check)


@for_req("architecture-core-components-required", "client", transports=("stdio",))
def test_the_client_implements_versioning_and_the_message_patterns(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """Versioning: each request names its protocol version in ``_meta``, one the server supports. The
    message patterns: a request answered (the tools listed), a multi round-trip request (the call of
    ``ask`` retried with the answer to its question, then completed) and subscribe and notify (a
    ``subscriptions/listen`` whose notification reaches the application)."""
    assert isinstance(scripted_peer, ScriptedStdio)
    rounds = (asking_round({"name": ELICIT_NAME}),)
    scripted_rounds(scripted_peer, rounds)
    scripted_peer.listen = 1  # acknowledge the subscription, then one tools/list_changed on it
    run = run_peer_client("core_patterns")

    def check() -> None:
        requests = [f for f in client_frames(scripted_peer) if "method" in f and "id" in f]
        unversioned = [f for f in requests if (params(f).get("_meta") or {}).get(PROTOCOL_VERSION) != revision]
        assert not unversioned, f"requests that do not name protocol version {revision} in _meta: {unversioned}"
        calls = calls_of_ask(scripted_peer)
        assert calls, "the client never made its multi round-trip request (tools/call of ask)"
        retry = calls[1] if len(calls) > 1 else {}
        assert "name" in (params(retry).get("inputResponses") or {}), (
            f"the client did not retry its multi round-trip request with the answer to its question: {calls}"
        )
        assert any(f.get("method") == "subscriptions/listen" for f in requests), "the client never subscribed"

    run.judge(check)
    report = run.report("patterns")
    precondition(isinstance(report, dict), f"the client reported nothing: {run.output[-1000:]}")
    assert report.get("result") == [FINAL["content"][0]["text"]], f"the round trip ended with {report.get('result')}"
    assert report.get("delivered") is not None, "the subscription's notification never reached the application"
