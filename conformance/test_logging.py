"""Logging, server side: the capability, ``logging/setLevel`` (up to 2025-11-25), the per-request log level
of 2026-07-28 (``io.modelcontextprotocol/logLevel`` in a request's ``_meta``) and what a log message
carries (docs/spec/requirements.md, logging). Client side (the last section): the ``logging/setLevel``
it may send.

The messages come from the tool of role ``logging-tool`` (the official suite's ``test_tool_with_logging``:
three ``info`` messages, 50 ms apart) and, where a level filter is judged, from ``leveled-logging-tool``
(the fixture's ``test_tool_with_log_levels``: one message at each of the eight levels). At 2026-07-28 a
server sends log messages only for a request that asks for them, so every call that wants them carries
the level in its ``_meta``. What no frame can show (secrets, personal data, access to the logs) is a
documented limit (docs/limits/070-*.md and following).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.harness.frames import ALL_TRANSPORTS, BOTH_TRANSPORTS
from conformance.harness.http import HttpPeer
from conformance.harness.peer import Peer
from conformance.harness.roles import Binding, bound, require_role
from conformance.harness.scripted_server import ScriptedPeer, ScriptedServer, default_results
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.surface import offers, server_capabilities
from conformance.harness.trace import Trace
from conformance.harness.wire import Wire, answers, params_of, tool_call
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, ConfiguredServer, active_fault

LOG_LEVEL = "io.modelcontextprotocol/logLevel"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")  # RFC 5424, ascending
NOT_A_LEVEL = "verbose"
INVALID_PARAMS = -32602


def asking(frame: dict, level: str | None) -> dict:
    """``frame`` (a request) with ``level`` as its per-request log level (2026-07-28), or as it is."""
    if level is not None:
        params = frame.setdefault("params", {})
        params["_meta"] = {**params.get("_meta", {}), LOG_LEVEL: level}
    return frame


def logging_tool(peer: Peer, role: str = "logging-tool") -> Binding:
    bound(peer, role)
    peer.open()
    return require_role(peer, role)


def logged(peer: Peer, tool: Binding, request_id: str, level: str | None, wire: Wire | None = None) -> Wire:
    """Call ``tool`` (asking for messages at ``level`` and above, at 2026-07-28) and take every frame the
    server sends until the answer and a short while after it."""
    wire = wire or Wire(peer)
    call = wire.send(asking(tool_call(peer, request_id, tool.name, tool.args()), level))
    wire.answer(call.id)
    wire.settle()
    return wire


def messages(frames: list[Any]) -> list[dict]:
    return [f for f in frames if isinstance(f, dict) and f.get("method") == "notifications/message"]


def messages_of(wire: Wire) -> list[dict]:
    return messages([seen.frame for seen in wire.seen])


def required_messages(wire: Wire, what: str) -> list[dict]:
    found = messages_of(wire)
    if not found:
        pytest.skip(f"fixture-missing: {what} sent no notifications/message")
    return found


# -- the capability ------------------------------------------------------------------------------------


@for_req("logging-capability-declared", "server", transports=BOTH_TRANSPORTS)
def test_a_server_that_sends_log_messages_declares_logging(revision: str, transport: str, peer: Peer) -> None:
    bound(peer, "logging-tool")
    capabilities = server_capabilities(peer)
    tool = logging_tool(peer)
    found = required_messages(logged(peer, tool, "log-call", "debug" if peer.stateless else None), tool.name)
    assert "logging" in capabilities, (
        f"the server sent {len(found)} notifications/message (first: {found[0]}) but declares {sorted(capabilities)}"
    )


# -- logging/setLevel (up to 2025-11-25) ---------------------------------------------------------------


@for_req("logging-set-level-invalid-level-error", "server", transports=BOTH_TRANSPORTS)
def test_set_level_with_an_unknown_level_is_invalid_params(revision: str, transport: str, peer: Peer) -> None:
    offers(peer, "logging")  # opens the session; without logging a server answers -32601, as it may
    response = peer.rpc("logging/setLevel", {"level": NOT_A_LEVEL}, check=False)
    assert "error" in response, f"logging/setLevel to {NOT_A_LEVEL!r}, no level, was accepted: {response}"
    code = response["error"].get("code")
    assert code == INVALID_PARAMS, f"logging/setLevel to {NOT_A_LEVEL!r} was refused with {code}, not -32602"


# -- the per-request log level (2026-07-28) --------------------------------------------------------------


@for_req("logging-no-messages-without-level", "server", transports=BOTH_TRANSPORTS)
def test_no_log_message_for_a_request_that_asked_for_none(revision: str, transport: str, peer: Peer) -> None:
    """The same tool, asked for messages, sends some (else the silence below would prove nothing); asked
    for none, it sends none, before its answer or after."""
    tool = logging_tool(peer)
    required_messages(logged(peer, tool, "log-asked", "debug"), f"{tool.name}, asked for debug and above,")
    silent = logged(peer, tool, "log-not-asked", None)
    sent = messages_of(silent)
    assert not sent, f"a request without {LOG_LEVEL} in its _meta got log messages: {sent}"


def stream_of_request(peer: Peer, frame: dict) -> tuple[list[Any], Wire]:
    """Over Streamable HTTP, the frames of the POST that carries ``frame`` (its response stream) apart from
    everything else the session receives; over stdio, one channel for all (the Wire)."""
    wire = Wire(peer)
    if isinstance(peer, HttpPeer):
        exchange = peer.exchange("POST", frame)
        return peer.frames_of(exchange), wire
    call = wire.send(frame)
    wire.answer(call.id)
    return [seen.frame for seen in wire.seen], wire


@for_req("logging-per-request-messages-allowed", "server", transports=BOTH_TRANSPORTS)
def test_log_messages_for_a_request_keep_to_its_level_and_come_before_its_answer(
    revision: str, transport: str, peer: Peer
) -> None:
    """The permission used within its bounds: asked for ``warning`` and above, the messages are at that
    level or higher and come on the request's own stream ahead of its response."""
    tool = logging_tool(peer, "leveled-logging-tool")
    frame = asking(tool_call(peer, "log-warning", tool.name, tool.args()), "warning")
    frames, _ = stream_of_request(peer, frame)
    sent = messages(frames)
    if not sent:
        pytest.skip(f"not-exercised: asked for warning and above, {tool.name} sent no log message")
    below = [m for m in sent if params_of(m).get("level") not in LEVELS[LEVELS.index("warning") :]]
    assert not below, f"asked for warning and above, the server sent {below}"
    answer = next((i for i, f in enumerate(frames) if answers(f, "log-warning")), len(frames))
    late = [f for f in frames[answer + 1 :] if f in sent]
    assert not late, f"log messages after the request's response: {late}"


@for_req("logging-messages-request-scoped", "server", transports=BOTH_TRANSPORTS)
def test_log_messages_come_only_with_the_request_that_asked_for_them(revision: str, transport: str, peer: Peer) -> None:
    """A subscription stream is open, and over Streamable HTTP another request runs alongside, asking for no
    messages; only the request that asked gets them: on its own stream (over stdio, while it is in flight),
    none on the subscription, none on the other request's stream."""
    tool = logging_tool(peer)
    wire = Wire(peer)
    listen = wire.send(peer.envelope("subscriptions/listen", "listen", {"notifications": {"toolsListChanged": True}}))
    wire.until(
        lambda f: answers(f, listen.id) or f.get("method") == "notifications/subscriptions/acknowledged",
        "acknowledgement of subscriptions/listen",
    )
    frame = asking(tool_call(peer, "log-asked", tool.name, tool.args()), "debug")
    if isinstance(peer, HttpPeer):
        wire.send(tool_call(peer, "log-not-asked", tool.name, tool.args()))  # alongside, on a stream of its own
        own = messages(peer.frames_of(peer.exchange("POST", frame)))
        wire.answer("log-not-asked")
        wire.settle()
        elsewhere = messages_of(wire)
        assert not elsewhere, f"log messages on the subscription's or another request's stream: {elsewhere}"
    else:
        wire.answer(wire.send(frame).id)
        wire.settle()
        seen = [s for s in wire.seen if s.frame.get("method") == "notifications/message"]
        own = [s.frame for s in seen if "log-asked" in s.client_requests]
        outside = [s.frame for s in seen if "log-asked" not in s.client_requests]
        assert not outside, f"log messages while the request that asked for them was not in flight: {outside}"
    on_subscription = [m for m in messages_of(wire) + own if SUBSCRIPTION_ID in (params_of(m).get("_meta") or {})]
    assert not on_subscription, f"log messages delivered on the subscription stream: {on_subscription}"
    if not own:
        pytest.skip(f"fixture-missing: {tool.name}, asked for debug and above, sent no notifications/message")


@for_req("logging-invalid-meta-level-rejected", "server", transports=BOTH_TRANSPORTS)
def test_a_request_with_an_unknown_log_level_is_invalid_params(revision: str, transport: str, peer: Peer) -> None:
    offers(peer, "logging")  # a server without logging may not read the key at all
    response = peer.rpc("tools/list", {"_meta": {LOG_LEVEL: NOT_A_LEVEL}}, check=False)
    assert "error" in response, f"a request whose {LOG_LEVEL} is {NOT_A_LEVEL!r} was served: {response}"
    code = response["error"].get("code")
    assert code == INVALID_PARAMS, f"a request whose {LOG_LEVEL} is {NOT_A_LEVEL!r} was refused with {code}"


# -- what a log message carries ------------------------------------------------------------------------


def empty(data: Any) -> bool:
    if isinstance(data, str):
        return not data.strip()
    return data is None or (isinstance(data, list | dict) and not data)


@for_req("logging-include-context", "server", transports=BOTH_TRANSPORTS)
def test_log_messages_carry_data(revision: str, transport: str, peer: Peer) -> None:
    """Whether the context is the relevant one is the server's to judge; a message whose ``data`` is empty
    carries none at all."""
    tool = logging_tool(peer)
    found = required_messages(logged(peer, tool, "log-call", "debug" if peer.stateless else None), tool.name)
    bare = [m for m in found if empty(params_of(m).get("data"))]
    assert not bare, f"log messages without any data: {bare}"


@for_req("logging-consistent-logger-names", "server", transports=BOTH_TRANSPORTS)
def test_the_same_tool_logs_under_the_same_logger_names_each_time(revision: str, transport: str, peer: Peer) -> None:
    tool = logging_tool(peer)
    level = "debug" if peer.stateless else None
    first = required_messages(logged(peer, tool, "log-first", level), tool.name)
    again = messages_of(logged(peer, tool, "log-again", level))
    names = [params_of(m).get("logger") for m in first], [params_of(m).get("logger") for m in again]
    assert names[0] == names[1], f"{tool.name} logged under {names[0]}, then under {names[1]}"


# -- a credential the server was given (Streamable HTTP, its profile's bearer-token configuration) ------------


class AuthorizedPeer(HttpPeer):
    """A client of the server configured with a bearer token, sending it on every request."""

    token = ""

    def headers_for(self, frame: Any) -> dict[str, str]:
        return super().headers_for(frame) | {"Authorization": f"Bearer {self.token}"}


@for_req("logging-no-credentials", "server")
def test_log_messages_do_not_carry_the_clients_credential(
    revision: str, configured_server: ConfiguredServer, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The one secret the suite knows the server holds is the bearer token its configuration checks (the
    profile's ``bearer-token``): no log message the server sends to the authenticated client carries it.
    Which other values are secrets only the server knows (docs/limits/070-log-message-contents.md)."""
    configured = configured_server("bearer-token")
    trace = Trace(tmp_path / "credentials.jsonl", "streamable-http")
    with AuthorizedPeer(configured.url, trace, revision, fault=active_fault(request)) as peer:
        peer.token = configured.values["token"]
        peer.roles = request.getfixturevalue("target").roles
        tool = logging_tool(peer)
        found = required_messages(logged(peer, tool, "log-call", "debug" if peer.stateless else None), tool.name)
        leaking = [m for m in found if peer.token in json.dumps(m)]
    assert not leaking, f"log messages carry the client's bearer token: {leaking}"


# -- the client side: logging/setLevel (up to 2025-11-25) ---------------------------------------------------


def offering_logging(server: ScriptedPeer) -> None:
    """The scripted server declares ``logging`` in its initialize result and accepts ``logging/setLevel``."""
    if isinstance(server, ScriptedStdio):
        initialize = default_results(server.revision)["initialize"]({})
        initialize["capabilities"] = initialize["capabilities"] | {"logging": {}}
        server.results |= {"initialize": initialize, "logging/setLevel": {}}
        return
    assert isinstance(server, ScriptedServer)
    initialize = server.answers["initialize"]
    server.answers["initialize"] = lambda frame: (
        initialize(frame) | {"capabilities": initialize(frame)["capabilities"] | {"logging": {}}}
    )
    server.answers["logging/setLevel"] = lambda frame: {}


@for_req("logging-set-level-allowed", "client", transports=ALL_TRANSPORTS)
def test_the_client_may_set_the_log_level_of_a_server_that_logs(
    revision: str, transport: str, run_peer_client: Callable[[str], ClientRun], scripted_peer: ScriptedPeer
) -> None:
    """The server declares ``logging``; the application wants warnings and worse (``logging_set_level``).
    The client may send ``logging/setLevel``; where it does, the permission is used within its bounds: after
    the handshake, to this server that declared logging, with one of the eight levels as its minimum."""
    offering_logging(scripted_peer)
    run = run_peer_client("logging_set_level")

    def check() -> list[dict]:
        frames = [f for f in scripted_peer.frames() if isinstance(f, dict)]
        sent = [f for f in frames if f.get("method") == "logging/setLevel"]
        unknown = [f for f in sent if params_of(f).get("level") not in LEVELS]
        assert not unknown, f"logging/setLevel with a level that is none of {LEVELS}: {unknown}"
        opened = next((i for i, f in enumerate(frames) if f.get("method") == "notifications/initialized"), None)
        early = [f for f in sent if opened is None or frames.index(f) < opened]
        assert not early, f"logging/setLevel before the handshake was over: {early}"
        return sent

    if not run.judge(check):
        pytest.skip("not-exercised: the client sent no logging/setLevel")
