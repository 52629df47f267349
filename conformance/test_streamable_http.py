"""Streamable HTTP, server side: the endpoint, its statuses and headers, sessions, origin checks.

Each test opens its own session on the server under test (the fixture server runs once per
worker; every test gets a fresh session on it) and inspects whole HTTP exchanges.
"""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import json
import math
import re
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from conformance.harness.frames import UNKNOWN_METHOD, initialize_params, modern_meta
from conformance.harness.http import EventStream, Exchange, HttpPeer
from conformance.harness.peer import HarnessError, ImplementationTimeout
from conformance.harness.roles import bound, optional_roles, require_role, require_roles
from conformance.harness.scripted_server import (
    MODERN,
    SCRIPTED_TOOL,
    GetStreamScript,
    Pace,
    Received,
    ScriptedServer,
    StreamRecord,
    StreamScript,
    listing_tools,
)
from conformance.harness.trace import Trace
from conformance.harness.wire import (
    Wire,
    is_response,
    params_of,
    reports_progress,
    tool_call,
)
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, ConfiguredServer
from conformance.test_cancellation import SLOW_STEPS, SLOW_TOOLS, slow_operation
from conformance.test_cancellation import outcome as operation_outcome

FOREIGN_ORIGIN = "http://attacker.example"
VISIBLE_ASCII = re.compile(r"^[\x21-\x7e]+$")


def probe_frame(peer: HttpPeer, request_id: object = "probe") -> dict:
    """A request every revision defines: ping, or server/discover at 2026-07-28."""
    return peer.envelope(peer.probe_method, request_id)


def opened(peer: HttpPeer) -> HttpPeer:
    peer.open()
    return peer


@for_req("streamable-http-endpoint-accepts-post", "server")
def test_the_endpoint_accepts_post(revision: str, http_server: HttpPeer) -> None:
    exchange = opened(http_server).exchange("POST", probe_frame(http_server))
    assert 200 <= exchange.status < 300, f"POST answered {exchange.status}"
    answers = http_server.frames_of(exchange)
    assert any(f.get("id") == "probe" for f in answers), f"no answer to the POSTed request: {answers}"


@for_req("streamable-http-request-response-content-type", "server")
def test_a_request_is_answered_with_json_or_an_event_stream(revision: str, http_server: HttpPeer) -> None:
    exchange = opened(http_server).exchange("POST", probe_frame(http_server))
    content_type = exchange.headers.get("content-type", "")
    assert content_type.startswith(("application/json", "text/event-stream")), f"Content-Type {content_type!r}"


@for_req("streamable-http-accepted-no-request-202", "server")
def test_an_accepted_notification_gets_202_and_no_body(revision: str, http_server: HttpPeer) -> None:
    exchange = http_server.exchange("POST", accepted_notification(http_server))
    if http_server.stateless and exchange.status >= 400:
        pytest.skip(f"fixture-missing: the server accepts no notification at {revision} (answered {exchange.status})")
    assert exchange.status == 202, f"a notification was answered {exchange.status}"
    assert not exchange.body.strip() and not exchange.events, f"with a body: {exchange.body[:200]!r}"


@for_req("streamable-http-get-response", "server")
def test_get_opens_an_event_stream_or_is_refused_with_405(revision: str, http_server: HttpPeer) -> None:
    headers = opened(http_server).headers_for(None) | {"Accept": "text/event-stream"}
    headers.pop("Content-Type")
    exchange = http_server.exchange("GET", headers=headers, read_events=False)
    content_type = exchange.headers.get("content-type", "")
    assert exchange.status == 405 or (exchange.status == 200 and content_type.startswith("text/event-stream")), (
        f"GET answered {exchange.status} with Content-Type {content_type!r}"
    )


@for_req("streamable-http-session-id-visible-ascii", "server")
def test_a_session_id_is_visible_ascii(revision: str, http_server: HttpPeer) -> None:
    exchange = http_server.exchange(
        "POST", {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": initialize_params(revision)}
    )
    session = exchange.headers.get("mcp-session-id")
    if session is None:
        pytest.skip("fixture-missing: the server assigns no session id")
    assert VISIBLE_ASCII.match(session), f"session id {session!r}"


@for_req("streamable-http-ended-session-404", "server")
def test_a_request_in_an_ended_session_gets_404(revision: str, http_server: HttpPeer) -> None:
    http_server.open()
    if not http_server.session_id:
        pytest.skip("fixture-missing: the server assigns no session id")
    ended = bodiless(http_server, "DELETE")
    if ended.status == 405:
        pytest.skip("fixture-missing: the server does not let clients end sessions")
    if not 200 <= ended.status < 300:  # the session did not end: the rule about an ended one does not arise
        pytest.skip(f"fixture-missing: the server did not end the session (its DELETE was answered {ended.status})")
    exchange = http_server.exchange("POST", probe_frame(http_server))
    assert exchange.status == 404, f"a request in an ended session was answered {exchange.status}"


@for_req("streamable-http-unsupported-protocol-version-400", "server")
def test_an_unsupported_protocol_version_header_gets_400(revision: str, http_server: HttpPeer) -> None:
    frame = opened(http_server).envelope(http_server.probe_method, "probe")
    if http_server.stateless:
        frame["params"]["_meta"] = modern_meta("2099-01-01")
    headers = http_server.headers_for(frame) | {"MCP-Protocol-Version": "2099-01-01"}
    exchange = http_server.exchange("POST", frame, headers)
    assert exchange.status == 400, f"MCP-Protocol-Version 2099-01-01 was answered {exchange.status}"


@for_req("streamable-http-origin-validation", "server")
def test_a_foreign_origin_is_refused(revision: str, http_server: HttpPeer) -> None:
    frame = (
        probe_frame(http_server)
        if http_server.stateless
        else {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": initialize_params(revision)}
    )
    exchange = http_server.exchange("POST", frame, http_server.headers_for(frame) | {"Origin": FOREIGN_ORIGIN})
    assert 400 <= exchange.status < 500, f"a request from {FOREIGN_ORIGIN} was answered {exchange.status}"


@for_req("streamable-http-origin-invalid-403", "server")
def test_a_foreign_origin_gets_403(revision: str, http_server: HttpPeer) -> None:
    frame = (
        probe_frame(http_server)
        if http_server.stateless
        else {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": initialize_params(revision)}
    )
    exchange = http_server.exchange("POST", frame, http_server.headers_for(frame) | {"Origin": FOREIGN_ORIGIN})
    assert exchange.status == 403, f"a request from {FOREIGN_ORIGIN} was answered {exchange.status}"


@for_req("streamable-http-method-not-found-404", "server")
def test_an_unknown_method_gets_404_with_minus_32601(revision: str, http_server: HttpPeer) -> None:
    exchange = http_server.exchange("POST", http_server.envelope(UNKNOWN_METHOD, "unknown"))
    assert exchange.status == 404, f"an unknown method was answered {exchange.status}"
    errors = [f.get("error", {}).get("code") for f in http_server.frames_of(exchange)]
    assert errors == [-32601], f"error codes {errors}"


# -- the client side: the HTTP requests of the SDK's client, as the scripted server saw them --------


def judge_client_requests(
    run_client: Callable[[str], ClientRun], server: ScriptedServer, check: Callable[[list[Received]], None]
) -> None:
    """The client through a tool call; ``check`` judges the HTTP requests the scripted server received,
    before the run must have completed (``ClientRun.judge``)."""
    run_client("tools_call").judge(lambda: check(server.received))


def posts(received: list[Received]) -> list[Received]:
    return [r for r in received if r.method == "POST"]


@for_req("streamable-http-client-sends-via-post", "client")
def test_the_client_sends_every_message_by_post(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        carrying = [r for r in received if r.frames]
        assert carrying and all(r.method == "POST" for r in carrying), [(r.method, r.frames) for r in carrying]

    judge_client_requests(run_client, scripted_server, check)


@for_req("streamable-http-client-new-post-per-message", "client")
def test_each_client_message_travels_in_its_own_post(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        crowded = [r.frames for r in posts(received) if len(r.frames) != 1]
        assert not crowded, f"POSTs carrying several messages: {crowded}"

    judge_client_requests(run_client, scripted_server, check)


@for_req("streamable-http-client-accept-header-post", "client")
def test_every_client_post_accepts_json_and_event_streams(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        for request in posts(received):
            accept = request.headers.get("accept", "")
            assert "application/json" in accept and "text/event-stream" in accept, f"Accept: {accept!r}"

    judge_client_requests(run_client, scripted_server, check)


@for_req("streamable-http-client-sends-session-id", "client")
def test_the_client_sends_its_session_id_after_initialization(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        assigned = next(i for i, r in enumerate(received) if any(f.get("method") == "initialize" for f in r.frames))
        for request in received[assigned + 1 :]:
            assert request.headers.get("mcp-session-id"), f"{request.method} without Mcp-Session-Id: {request.frames}"

    judge_client_requests(run_client, scripted_server, check)


@for_req("streamable-http-protocol-version-header-after-init", "client")
def test_the_client_sends_the_protocol_version_header_after_initialization(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        for request in after_initialize(received):
            assert request.headers.get("mcp-protocol-version"), f"{request.method} without MCP-Protocol-Version"

    judge_client_requests(run_client, scripted_server, check)


@for_req("streamable-http-protocol-version-header-negotiated", "client")
def test_the_protocol_version_header_names_the_negotiated_version(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        for request in after_initialize(received):
            assert request.headers.get("mcp-protocol-version") == revision, request.headers

    judge_client_requests(run_client, scripted_server, check)


@for_req("streamable-http-protocol-version-header-every-post", "client")
def test_every_modern_client_post_names_its_protocol_version(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        for request in posts(received):
            assert request.headers.get("mcp-protocol-version"), f"a POST without MCP-Protocol-Version: {request.frames}"

    judge_client_requests(run_client, scripted_server, check)


@for_req("streamable-http-protocol-version-header-matches-meta", "client")
def test_the_protocol_version_header_equals_the_meta_version(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        for request in posts(received):
            for frame in request.frames:
                meta = (frame.get("params") or {}).get("_meta") or {}
                declared = meta.get("io.modelcontextprotocol/protocolVersion")
                assert declared == request.headers.get("mcp-protocol-version"), (declared, request.headers)

    judge_client_requests(run_client, scripted_server, check)


@for_req("streamable-http-client-no-responses", "client")
def test_a_modern_client_posts_no_responses(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        frames = [f for r in posts(received) for f in r.frames]
        assert not [f for f in frames if "method" not in f], f"responses posted: {frames}"

    judge_client_requests(run_client, scripted_server, check)


def after_initialize(received: list[Received]) -> list[Received]:
    """The HTTP requests after the one that carried ``initialize``."""
    index = next(i for i, r in enumerate(received) if any(f.get("method") == "initialize" for f in r.frames))
    rest = received[index + 1 :]
    assert rest, "the client sent nothing after initialize"
    return rest


# -- sessions and streams (up to 2025-11-25) -----------------------------------------------------------

PROGRESS_TOKEN = "progress-1"


def progress_params(peer: HttpPeer, token: str = PROGRESS_TOKEN) -> dict:
    """tools/call params of the profile's progress tool, with a progress token."""
    tool = bound(peer, "progress-tool")
    return {"name": tool.name, "arguments": tool.args(), "_meta": {"progressToken": token}}


def progress_stream(peer: HttpPeer, request_id: str = "call") -> Exchange:
    """A tools/call whose answer streams: progress notifications, then the result."""
    return peer.exchange("POST", peer.envelope("tools/call", request_id, progress_params(peer)))


@for_req("streamable-http-session-id-unique", "server")
def test_two_sessions_get_different_ids(revision: str, http_server: HttpPeer, tmp_path: Path) -> None:
    opened(http_server)
    if not http_server.session_id:
        pytest.skip("fixture-missing: the server assigns no session ids (the row is about the ids it assigns)")
    trace = Trace(tmp_path / "second-session.jsonl", "streamable-http")
    with HttpPeer(http_server.url, trace, revision, fault=http_server.fault) as other:
        other.open()
        assert other.session_id, "the server assigned the first session an id and the second none"
        assert http_server.session_id != other.session_id, f"both sessions got {other.session_id!r}"


@for_req("streamable-http-missing-session-id-400", "server")
def test_a_request_without_the_session_id_gets_400(revision: str, http_server: HttpPeer) -> None:
    frame = probe_frame(opened(http_server))
    if not http_server.session_id:
        pytest.skip("fixture-missing: the server assigns no session id (the row binds a server that requires one)")
    headers = http_server.headers_for(frame)
    headers.pop("Mcp-Session-Id", None)
    exchange = http_server.exchange("POST", frame, headers)
    assert exchange.status == 400, f"a request without Mcp-Session-Id was answered {exchange.status}"


@for_req("streamable-http-sse-priming-event", "server")
def test_an_sse_answer_opens_with_a_priming_event(revision: str, http_server: HttpPeer) -> None:
    exchange = progress_stream(opened(http_server))
    if not exchange.events:
        pytest.skip("fixture-missing: the server answered with JSON, not an event stream")
    first = exchange.events[0]
    assert first.get("id") and not first["data"].strip(), f"the stream opened with {first}"


@for_req("streamable-http-event-id-unique", "server")
def test_event_ids_are_unique_across_the_sessions_streams(revision: str, http_server: HttpPeer) -> None:
    opened(http_server)
    ids = [e["id"] for n in range(2) for e in progress_stream(http_server, f"call-{n}").events if e.get("id")]
    if not ids:
        pytest.skip("fixture-missing: the server gives its events no ids")
    assert len(ids) == len(set(ids)), f"event ids repeat: {ids}"


@for_req("streamable-http-post-stream-close-after-response", "server")
def test_a_request_stream_ends_after_its_response(revision: str, http_server: HttpPeer) -> None:
    exchange = progress_stream(opened(http_server))
    if not exchange.events:
        pytest.skip("fixture-missing: the server answered with JSON, not an event stream")
    frames = http_server.frames_of(exchange)  # read to its end within the bound, or not at all
    assert frames and frames[-1].get("id") == "call", f"the stream did not end with the response: {frames[-1:]}"


# -- 2026-07-28: header validation, sessionless serving ---------------------------------------------------


def tools_list_with(peer: HttpPeer, change: Callable[[dict[str, str]], None]) -> Exchange:
    frame = peer.envelope("tools/list", "headers")
    headers = peer.headers_for(frame)
    change(headers)
    return peer.exchange("POST", frame, headers)


def mismatched_method(headers: dict[str, str]) -> None:
    headers["Mcp-Method"] = "prompts/list"


def missing_method(headers: dict[str, str]) -> None:
    headers.pop("Mcp-Method")


@for_req("streamable-http-header-validation-400", "server")
def test_a_header_body_mismatch_gets_400(revision: str, http_server: HttpPeer) -> None:
    exchange = tools_list_with(http_server, mismatched_method)
    assert exchange.status == 400, f"Mcp-Method prompts/list on a tools/list body was answered {exchange.status}"


@for_req("streamable-http-header-validation-error-code", "server")
def test_a_header_validation_failure_carries_minus_32020(revision: str, http_server: HttpPeer) -> None:
    codes = [
        f.get("error", {}).get("code") for f in http_server.frames_of(tools_list_with(http_server, mismatched_method))
    ]
    assert codes == [-32020], f"error codes {codes}"


@for_req("streamable-http-reject-header-body-mismatch", "server")
def test_a_mirrored_header_that_disagrees_with_the_body_is_rejected(revision: str, http_server: HttpPeer) -> None:
    exchange = tools_list_with(http_server, mismatched_method)
    frames = http_server.frames_of(exchange)
    assert exchange.status >= 400 and not [f for f in frames if "result" in f], (exchange.status, frames)


@for_req("streamable-http-reject-missing-standard-header", "server")
def test_a_request_without_mcp_method_is_rejected(revision: str, http_server: HttpPeer) -> None:
    exchange = tools_list_with(http_server, missing_method)
    frames = http_server.frames_of(exchange)
    assert exchange.status == 400 and [f.get("error", {}).get("code") for f in frames] == [-32020], (
        exchange.status,
        frames,
    )


@for_req("streamable-http-unsupported-protocol-version-error", "server")
def test_an_unsupported_version_400_lists_the_supported_versions(revision: str, http_server: HttpPeer) -> None:
    frame = http_server.envelope("server/discover", "version")
    frame["params"]["_meta"] = modern_meta("2099-01-01")
    exchange = http_server.exchange(
        "POST", frame, http_server.headers_for(frame) | {"MCP-Protocol-Version": "2099-01-01"}
    )
    errors = [f.get("error", {}) for f in http_server.frames_of(exchange)]
    assert exchange.status == 400 and errors and errors[0].get("code") == -32022, (exchange.status, errors)
    assert revision in (errors[0].get("data") or {}).get("supported", []), errors[0]


@for_req("streamable-http-modern-server-ignore-session-id", "server")
def test_a_stray_session_id_is_ignored(revision: str, http_server: HttpPeer) -> None:
    exchange = tools_list_with(http_server, lambda headers: headers.__setitem__("Mcp-Session-Id", "stray-session"))
    frames = http_server.frames_of(exchange)
    assert exchange.status == 200 and [f for f in frames if "result" in f], (exchange.status, frames)


@for_req("streamable-http-modern-server-no-session-id", "server")
def test_a_modern_server_issues_no_session_id(revision: str, http_server: HttpPeer) -> None:
    exchange = tools_list_with(http_server, lambda headers: headers.__setitem__("Mcp-Session-Id", "stray-session"))
    assert "mcp-session-id" not in exchange.headers, exchange.headers


@for_req("streamable-http-server-decode-base64", "server")
def test_a_base64_encoded_name_header_is_decoded(revision: str, http_server: HttpPeer) -> None:
    tool = bound(http_server, "simple-tool")
    frame = http_server.envelope("tools/call", "named", {"name": tool.name, "arguments": tool.args()})
    encoded = "=?base64?" + base64.b64encode(tool.name.encode()).decode() + "?="
    exchange = http_server.exchange("POST", frame, http_server.headers_for(frame) | {"Mcp-Name": encoded})
    frames = http_server.frames_of(exchange)
    assert exchange.status == 200 and [f for f in frames if "result" in f], (exchange.status, frames)


# -- the GET stream, event ids, resumption and replay (2025-03-26 .. 2025-11-25) -------------------------
#
# The tools of these roles make the server speak on its own: the list changers (the fixture's
# test_trigger_*_change) announce a list change (a notification tied to no request: it travels on the GET
# stream, or waits in the event store while none is connected); get-stream-closer closes the GET stream;
# reconnection-tool closes its own request's stream before answering (SEP-1699). Request ids are unique
# across sessions, because a server may key its streams' events by request id. Each test looks up the
# roles it needs before it opens a stream.

ANNOUNCERS = {"tools": "tool-list-changer", "prompts": "prompt-list-changer", "resources": "resource-list-changer"}


def needs(peer: HttpPeer, *roles: str) -> None:
    """Each of ``roles`` (or of the list changes ``ANNOUNCERS`` names) is bound by the target's profile;
    fixture-missing, before anything is sent, when one is not."""
    for role in roles:
        bound(peer, ANNOUNCERS.get(role, role))


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def answers(request_id: str) -> Callable[[Any], bool]:
    return lambda frame: isinstance(frame, dict) and "method" not in frame and frame.get("id") == request_id


def announced(kind: str) -> Callable[[Any], bool]:
    return lambda frame: isinstance(frame, dict) and frame.get("method") == f"notifications/{kind}/list_changed"


def get_stream(peer: HttpPeer, last_event_id: str | None = None) -> EventStream:
    """A GET on the endpoint for an event stream (resuming after ``last_event_id``), held open."""
    headers = peer.headers_for(None) | {"Accept": "text/event-stream"}
    headers.pop("Content-Type")
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    return peer.stream("GET", headers)


def require_event_stream(stream: EventStream) -> None:
    content_type = stream.exchange.headers.get("content-type", "")
    assert stream.exchange.status == 200 and content_type.startswith("text/event-stream"), (
        f"GET answered {stream.exchange.status} with Content-Type {content_type!r}: {stream.exchange.body[:200]!r}"
    )


def listening(peer: HttpPeer) -> EventStream:
    """The session's GET stream, open; fixture-missing when the server offers none (405)."""
    stream = get_stream(opened(peer))
    if stream.exchange.status == 405:
        pytest.skip("fixture-missing: the server offers no GET stream (405)")
    require_event_stream(stream)
    return stream


def resuming(peer: HttpPeer, last_event_id: str) -> EventStream:
    """A GET resuming after ``last_event_id``; fixture-missing when the server offers no GET stream (405)."""
    stream = get_stream(peer, last_event_id)
    if stream.exchange.status == 405:
        pytest.skip("fixture-missing: the server offers no GET stream to resume on (405)")
    require_event_stream(stream)
    return stream


def call_tool(peer: HttpPeer, name: str, request_id: str | None = None, **params: Any) -> list[Any]:
    """tools/call ``name`` on a POST of its own, its answer read to the end: the frames it carried.
    fixture-missing when the target has no such tool (an error, or a result with isError)."""
    request_id = request_id or unique("call")
    body = {"name": name, "arguments": params.pop("arguments", {})} | params
    frames = peer.frames_of(peer.exchange("POST", peer.envelope("tools/call", request_id, body)))
    answer = next((f for f in frames if answers(request_id)(f)), None)
    assert answer is not None, f"tools/call {name} was not answered: {frames}"
    if "error" in answer or answer["result"].get("isError"):
        pytest.skip(f"fixture-missing: the tool {name}: {answer}")
    return frames


def announce(peer: HttpPeer, kind: str) -> list[Any]:
    """Have the server announce a change of its ``kind`` list (a notification tied to no request);
    fixture-missing when it declared no ``<kind>.listChanged``: then it owes no announcement anywhere."""
    if not peer.declares(kind, "listChanged"):
        pytest.skip(f"fixture-missing: the server declares no {kind}.listChanged, so it announces nothing")
    changer = bound(peer, ANNOUNCERS[kind])
    return call_tool(peer, changer.name, arguments=changer.args())


def last_event_id(stream: EventStream) -> str:
    ids = [e["id"] for e in stream.events if e.get("id")]
    if not ids:
        pytest.skip("fixture-missing: the server gives the events of its GET stream no ids")
    return ids[-1]


def heard_once(peer: HttpPeer) -> tuple[EventStream, str]:
    """The GET stream after it delivered one announcement (of the tool list), and that event's id."""
    needs(peer, "tools")
    stream = listening(peer)
    announce(peer, "tools")
    stream.read_until(announced("tools"))
    return stream, last_event_id(stream)


@dataclass
class Listened:
    """What the server sent while its GET stream was open: on that stream, and on the POST streams."""

    stream: EventStream
    on_get: list[Any]
    on_posts: list[Any]
    request_ids: tuple[str, ...]


def listen_while_working(peer: HttpPeer) -> Listened:
    """Open the GET stream, run a progress-reporting tools/call to its end on its own POST stream, then
    have the server announce a tool list change; read the GET stream up to the announcement."""
    needs(peer, "tools", "progress-tool")
    stream = listening(peer)
    if not peer.declares("tools", "listChanged"):
        pytest.skip("fixture-missing: the server declares no tools.listChanged, so it announces nothing")
    working, announcing = unique("working"), unique("announcing")
    on_posts = peer.frames_of(progress_stream(peer, working))
    changer = bound(peer, ANNOUNCERS["tools"])
    on_posts += call_tool(peer, changer.name, announcing, arguments=changer.args())
    if any(announced("tools")(f) for f in on_posts):
        pytest.skip("fixture-missing: the server announced its change on the POST stream, not the GET stream")
    return Listened(stream, stream.read_until(announced("tools")), on_posts, (working, announcing))


def closed_by_server(peer: HttpPeer, stream: EventStream, staying_open: str = "fixture-missing") -> bool:
    """Ask the server to close its GET stream, then have it announce a prompt list change: True when the
    stream ended before that announcement reached it. A stream that stayed open skips with the outcome
    ``staying_open`` names: a server that may close it and did not leaves a permission unused."""
    closer = bound(peer, "get-stream-closer")
    call_tool(peer, closer.name, arguments=closer.args())
    announce(peer, "prompts")
    while True:
        seen = len(stream.frames)
        if stream.next_event() is None:
            return stream.ended
        if any(announced("prompts")(f) for f in stream.frames[seen:]):
            pytest.skip(f"{staying_open}: the server does not close its GET stream at this revision")


def cut_short(peer: HttpPeer, request_id: str) -> Exchange:
    """tools/call of the reconnection tool: the server closes the request's stream before answering (read
    to its end). fixture-missing when the answer came on it, or when it has no event with an id."""
    tool = bound(peer, "reconnection-tool")
    exchange = peer.exchange(
        "POST", peer.envelope("tools/call", request_id, {"name": tool.name, "arguments": tool.args()})
    )
    if any(answers(request_id)(f) for f in peer.frames_of(exchange)):
        pytest.skip(f"fixture-missing: the server answered {tool.name} without closing its stream early")
    return exchange


def drained(peer: HttpPeer) -> list[Any]:
    """The frames already received on the session's POST streams, without waiting for more."""
    frames = []
    while True:
        try:
            frames.append(peer.receive(timeout=0))
        except ImplementationTimeout:
            return frames


@for_req("streamable-http-endpoint-handles-get", "server")
def test_the_endpoint_serves_get_beside_post(revision: str, http_server: HttpPeer) -> None:
    stream = get_stream(opened(http_server))
    content_type = stream.exchange.headers.get("content-type", "")
    assert stream.exchange.status == 405 or (
        stream.exchange.status == 200 and content_type.startswith("text/event-stream")
    ), f"GET on the endpoint answered {stream.exchange.status} with Content-Type {content_type!r}"
    exchange = http_server.exchange("POST", probe_frame(http_server))  # the same path, the GET stream open
    assert 200 <= exchange.status < 300 and any(f.get("id") == "probe" for f in http_server.frames_of(exchange)), (
        f"with a GET stream open, a POST to the endpoint was answered {exchange.status}"
    )


@for_req("streamable-http-get-stream-requests-notifications", "server")
def test_the_server_sends_its_own_notifications_on_the_get_stream(revision: str, http_server: HttpPeer) -> None:
    needs(http_server, "tools")
    stream = listening(http_server)
    announce(http_server, "tools")
    before = len(http_server.violations)
    frames = stream.read_until(announced("tools"))
    assert all("method" in f for f in frames), f"the GET stream carried: {frames}"
    assert not [f for f in frames if announced("tools")(f) and "id" in f], f"the announcement has an id: {frames}"
    assert not http_server.violations[before:], f"the GET stream's frames break the schema: {http_server.violations}"


@for_req("streamable-http-get-stream-batched", "server")
def test_a_batch_on_the_get_stream_holds_only_requests_and_notifications(revision: str, http_server: HttpPeer) -> None:
    listened = listen_while_working(http_server)
    for event in listened.stream.events:
        if event.get("event", "message") != "message" or not event["data"].strip():
            continue
        payload = json.loads(event["data"])
        messages = payload if isinstance(payload, list) else [payload]
        assert messages and all(isinstance(m, dict) and "method" in m for m in messages), (
            f"a GET stream event carried {event['data'][:300]!r}"
        )


@for_req("streamable-http-get-stream-no-responses", "server")
def test_the_get_stream_carries_no_responses(revision: str, http_server: HttpPeer) -> None:
    listened = listen_while_working(http_server)
    responses = [f for f in listened.on_get if "method" not in f]
    assert not responses, f"responses on the GET stream: {responses}"


@for_req("streamable-http-get-stream-unrelated", "server")
def test_the_get_stream_carries_nothing_of_the_requests_in_flight(revision: str, http_server: HttpPeer) -> None:
    listened = listen_while_working(http_server)
    if not [f for f in listened.on_posts if f.get("method") == "notifications/progress"]:
        pytest.skip("fixture-missing: the server reported no progress on the request's own stream")
    tied = [
        f
        for f in listened.on_get
        if f.get("id") in listened.request_ids or (f.get("params") or {}).get("progressToken") == PROGRESS_TOKEN
    ]
    assert not tied, f"the GET stream carried messages of requests in flight: {tied}"


@for_req("streamable-http-no-broadcast", "server")
def test_each_message_travels_on_one_stream_only(revision: str, http_server: HttpPeer) -> None:
    listened = listen_while_working(http_server)
    seen: dict[str, int] = {}
    for frame in listened.on_get + listened.on_posts:
        key = json.dumps(frame, sort_keys=True)
        seen[key] = seen.get(key, 0) + 1
    repeated = [frame for frame, count in seen.items() if count > 1]
    assert not repeated, f"messages sent on several streams: {repeated}"


@for_req("streamable-http-get-stream-server-close", "server")
def test_the_server_can_close_its_get_stream_and_the_session_goes_on(revision: str, http_server: HttpPeer) -> None:
    needs(http_server, "get-stream-closer", "prompts", "resources")
    stream = listening(http_server)
    assert closed_by_server(http_server, stream, "not-exercised"), "the GET stream broke instead of ending"
    again = get_stream(http_server, next((e["id"] for e in reversed(stream.events) if e.get("id")), None))
    again.close()
    require_event_stream(again)
    announce(http_server, "resources")  # the session still answers


@for_req("streamable-http-get-stream-retry-before-close", "server")
def test_the_server_sends_retry_before_closing_its_get_stream(revision: str, http_server: HttpPeer) -> None:
    needs(http_server, "get-stream-closer", "prompts")
    stream, _ = heard_once(http_server)
    assert closed_by_server(http_server, stream), "the GET stream broke instead of ending"
    assert any("retry" in e for e in stream.events), f"the GET stream closed with no retry field: {stream.events}"
    again = get_stream(http_server, last_event_id(stream))
    again.close()
    require_event_stream(again)


@for_req("streamable-http-event-ids-allowed", "server")
def test_event_ids_follow_the_sse_standard(revision: str, http_server: HttpPeer) -> None:
    exchange = progress_stream(opened(http_server), unique("ids"))
    ids = [e["id"] for e in exchange.events if "id" in e]
    if not ids:
        pytest.skip("fixture-missing: the server gives its events no ids")
    assert all(ids) and not [i for i in ids if "\x00" in i], f"event ids {ids!r}"
    resumed = get_stream(http_server, ids[-1])
    resumed.close()
    if resumed.exchange.status != 405:  # resumption is the server's choice; the id must not be refused
        require_event_stream(resumed)


@for_req("streamable-http-resumable-streams-allowed", "server")
def test_a_dropped_request_stream_resumes_without_loss(revision: str, http_server: HttpPeer) -> None:
    slow, outcome_tool = (bound(http_server, role) for role in SLOW_TOOLS)
    request_id, run = unique("resumable"), unique("run")
    params = {"name": slow.name, "arguments": slow.args(run_id=run, steps=3), "_meta": {"progressToken": run}}
    request = opened(http_server).open_request(http_server.envelope("tools/call", request_id, params))
    first = http_server.receive()
    request.close()  # the connection drops mid-request
    last = http_server.last_event_id
    if last is None:
        pytest.skip("fixture-missing: the server gives its events no ids")
    call_tool(http_server, outcome_tool.name, arguments=outcome_tool.args(run_id=run))  # the run has ended
    delivered = [first, *drained(http_server)]
    resumed = resuming(http_server, last)
    replayed = resumed.read_until(answers(request_id))
    resumed.close()
    progress = [f["params"]["progress"] for f in delivered + replayed if f.get("method") == "notifications/progress"]
    assert sorted(progress) == [0, 1, 2, 3], f"progress delivered, then replayed: {progress}"


@for_req("streamable-http-replay-on-resume", "server")
def test_a_resumed_get_stream_replays_what_it_missed_then_goes_on(revision: str, http_server: HttpPeer) -> None:
    needs(http_server, "resources", "prompts")
    stream, last = heard_once(http_server)
    stream.close()
    announce(http_server, "resources")  # while the stream is disconnected
    resumed = resuming(http_server, last)
    replayed = resumed.read_until(announced("resources"))
    assert not [f for f in replayed if announced("tools")(f)], f"replayed what was delivered: {replayed}"
    announce(http_server, "prompts")  # after the resumption: on the same stream
    resumed.read_until(announced("prompts"))
    resumed.close()


@for_req("streamable-http-no-cross-stream-replay", "server")
def test_a_resumed_stream_replays_nothing_of_another_stream(
    revision: str, http_server: HttpPeer, tmp_path: Path
) -> None:
    needs(http_server, "prompts", "resources")
    stream, last = heard_once(http_server)
    stream.close()
    trace = Trace(tmp_path / "other-session.jsonl", "streamable-http")
    with HttpPeer(http_server.url, trace, revision, fault=http_server.fault) as other:
        other.roles = http_server.roles  # another client of the same target
        elsewhere = listening(other)
        announce(other, "prompts")  # delivered on the other session's GET stream
        elsewhere.read_until(announced("prompts"))
        resumed = resuming(http_server, last)
        announce(http_server, "resources")  # on the resumed stream, after anything replayed
        replayed = resumed.read_until(announced("resources"))
        resumed.close()
    foreign = [f for f in replayed if announced("prompts")(f)]
    assert not foreign, f"the resumed GET stream replayed another session's message: {foreign}"


# -- SEP-1699: the server closes a request's stream before answering (2025-11-25) ------------------------


@for_req("streamable-http-retry-before-close", "server")
def test_a_stream_closed_early_carried_a_retry_field(revision: str, http_server: HttpPeer) -> None:
    needs(http_server, "reconnection-tool")
    exchange = cut_short(opened(http_server), unique("retry"))
    assert any("retry" in e for e in exchange.events), f"closed with no retry field: {exchange.events}"


@for_req("streamable-http-server-close-connection-keep-stream", "server")
def test_a_connection_closed_early_leaves_the_stream_resumable(revision: str, http_server: HttpPeer) -> None:
    needs(http_server, "reconnection-tool")
    request_id = unique("kept")
    exchange = cut_short(opened(http_server), request_id)
    ids = [e["id"] for e in exchange.events if e.get("id")]
    assert ids, f"the server closed the connection before any event with an id: {exchange.events}"
    resumed = resuming(http_server, ids[-1])
    resumed.read_until(answers(request_id))
    resumed.close()


@for_req("streamable-http-event-id-identifies-stream", "server")
def test_a_last_event_id_resumes_its_own_stream(revision: str, http_server: HttpPeer) -> None:
    needs(http_server, "reconnection-tool")
    opened(http_server)
    cuts = {}
    for name in ("first", "second"):
        request_id = unique(name)
        ids = [e["id"] for e in cut_short(http_server, request_id).events if e.get("id")]
        if not ids:
            pytest.skip("fixture-missing: the server gives its events no ids")
        cuts[request_id] = ids[-1]
    for request_id, last in cuts.items():
        resumed = resuming(http_server, last)
        frames = resumed.read_until(lambda f: isinstance(f, dict) and "method" not in f and f.get("id") in cuts)
        resumed.close()
        assert [f.get("id") for f in frames if "method" not in f] == [request_id], (
            f"Last-Event-ID {last} of {request_id} resumed with {frames}"
        )


# -- 2026-07-28: no resumable streams ------------------------------------------------------------------


@for_req("streamable-http-modern-server-ignore-last-event-id", "server")
def test_a_stray_last_event_id_is_ignored(revision: str, http_server: HttpPeer) -> None:
    plain = tools_list_with(http_server, lambda headers: None)
    resumed = tools_list_with(http_server, lambda headers: headers.__setitem__("Last-Event-ID", "1"))
    results = [[f.get("result") for f in http_server.frames_of(e)] for e in (plain, resumed)]
    assert resumed.status == plain.status == 200 and results[1] and results[0] == results[1], (
        resumed.status,
        results[1],
    )


@for_req("streamable-http-x-accel-buffering", "server")
def test_an_event_stream_answer_turns_proxy_buffering_off(revision: str, http_server: HttpPeer) -> None:
    exchange = progress_stream(http_server, unique("accel"))
    if not exchange.headers.get("content-type", "").startswith("text/event-stream"):
        pytest.skip("fixture-missing: the server answered with JSON, not an event stream")
    assert exchange.headers.get("x-accel-buffering", "").lower() == "no", f"headers {exchange.headers}"


# -- a request's stream, sessions, the version header, the endpoint's security, cancellation --------------
#
# What may travel on a request's own stream (its POST's answer); the sessions the server assigns, secures
# and ends; requests without MCP-Protocol-Version; the endpoint itself (one path, loopback, authentication);
# and cancellation by the closing of a request's stream. The slow operation and its outcome tool are the
# cancellation tests' (conformance/test_cancellation.py): once a request's stream is closed, the outcome
# tool is the only witness of whether the server went on working. Some cells need the fixture server
# configured otherwise than the shared one (``reconfigured_http_server``): sessions it ends on its own after
# a short idle time, and connections that must authenticate.

QUICK_STEPS = 8  # 0.4 s of the slow operation: long enough to drop its stream mid-way, short to await its end
PROMPT_STEPS = 5  # 50 ms steps a cancelled operation may still take: "as soon as practical", on a busy machine
SESSION_SAMPLE = 8  # sessions opened to judge how guessable their ids are
MIN_SESSION_ID_BITS = 64  # OWASP's floor for the entropy of a session identifier
CHANGE_NOTIFICATIONS = frozenset(
    {
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
    }
)
# A notification no server can accept: JSON-RPC requires params to be structured, MCP an object.
UNACCEPTABLE_NOTIFICATION = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":"not an object"}'
STEPS_DONE = re.compile(r"after (\d+) steps")


def opening_frame(peer: HttpPeer) -> dict:
    """The first request of a conversation: initialize, or at 2026-07-28 (no handshake) server/discover."""
    if peer.stateless:
        return probe_frame(peer, "open")
    return {"jsonrpc": "2.0", "id": "open", "method": "initialize", "params": initialize_params(peer.revision)}


def side_peer(url: str, revision: str, trace: Path, peer: HttpPeer | None = None) -> HttpPeer:
    """Another client of a server, recorded in ``trace``, under the test's fault (``peer``'s) if any."""
    return HttpPeer(url, Trace(trace, "streamable-http"), revision, fault=peer.fault if peer else None)


def results_of(peer: HttpPeer, exchange: Exchange, request_id: object) -> list[dict]:
    """The successful responses to ``request_id`` an exchange carried."""
    return [f for f in peer.frames_of(exchange) if is_response(f) and f.get("id") == request_id and "result" in f]


def error_codes(frames: list[Any]) -> list[Any]:
    return [f["error"].get("code") for f in frames if isinstance(f, dict) and isinstance(f.get("error"), dict)]


def accepted_notification(peer: HttpPeer) -> dict:
    """A notification a server has reason to accept, in an opened conversation: notifications/initialized
    up to 2025-11-25; at 2026-07-28, which defines no client notification over HTTP, the one core
    notification, notifications/cancelled, naming a request already answered (a harmless race)."""
    peer.open()
    if not peer.stateless:
        return {"jsonrpc": "2.0", "method": "notifications/initialized"}
    finished = peer.rpc(peer.probe_method, check=False)
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": finished.get("id")}}


def refused_notification(peer: HttpPeer) -> Exchange:
    """POST, in an opened conversation, a notification no server can accept (UNACCEPTABLE_NOTIFICATION)."""
    peer.open()
    headers = peer.headers_for({"jsonrpc": "2.0", "method": "notifications/cancelled"})
    peer.trace.lifecycle("client-to-server", "raw-bytes", data=UNACCEPTABLE_NOTIFICATION.decode())
    return peer.exchange("POST", headers=headers, body=UNACCEPTABLE_NOTIFICATION)


def check_id_less_error(peer: HttpPeer, exchange: Exchange) -> None:
    """The body of an HTTP error answer, which MAY be a JSON-RPC error response without an id: if it is a
    JSON-RPC message at all, it is exactly that (a body of plain text leaves the permission unused)."""
    try:
        body = json.loads(exchange.body or b"null")
    except ValueError:
        body = None
    if not (isinstance(body, dict) and "jsonrpc" in body):
        pytest.skip(f"not-exercised: the {exchange.status} body is no JSON-RPC message: {exchange.body[:80]!r}")
    peer.trace.message("server-to-client", body)
    error = body.get("error")
    assert body.get("jsonrpc") == "2.0" and "result" not in body and isinstance(error, dict), body
    assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str), body
    assert body.get("id") is None, f"the error answer names a request: {body}"


def request_stream(peer: HttpPeer, frame: dict) -> list[Any]:
    """The frames of the event stream answering ``frame``, read to its end (bounded)."""
    exchange = peer.exchange("POST", frame)
    if not exchange.events:
        pytest.skip("fixture-missing: the server answered with JSON, not an event stream")
    return peer.frames_of(exchange)


def progress_call(peer: HttpPeer, request_id: str, token: str) -> dict:
    return peer.envelope("tools/call", request_id, progress_params(peer, token))


def concurrent_streams(peer: HttpPeer) -> tuple[dict[str, dict], dict[str, list[Any]]]:
    """Two progress calls with tokens of their own and, where the server has the tool, a call announcing a
    tool list change, all POSTed at once; the requests, and the frames of each one's answer, by request id."""
    bound(peer, "progress-tool")
    peer.open()
    require_role(peer, "progress-tool")
    calls = {rid: progress_call(peer, rid, f"{rid}-token") for rid in ("related-a", "related-b")}
    for changer in optional_roles(peer, ANNOUNCERS["tools"]):
        calls["announce"] = peer.envelope("tools/call", "announce", {"name": changer.name, "arguments": changer.args()})
    with ThreadPoolExecutor(len(calls)) as pool:
        pending = {rid: pool.submit(peer.exchange, "POST", frame) for rid, frame in calls.items()}
        exchanges = {rid: future.result() for rid, future in pending.items()}
    return calls, {rid: peer.frames_of(exchange) for rid, exchange in exchanges.items()}


def unrelated_messages(request: dict, frames: list[Any]) -> list[Any]:
    """What a request's stream carried that concerns something else: a response to another request,
    progress for another token, a change notification (which no single request owns)."""
    token = params_of(request).get("_meta", {}).get("progressToken")
    return [
        f
        for f in frames
        if (is_response(f) and f.get("id") != request["id"])
        or (f.get("method") == "notifications/progress" and params_of(f).get("progressToken") != token)
        or f.get("method") in CHANGE_NOTIFICATIONS
    ]


def check_streams_related(peer: HttpPeer, *, judge_announcer: bool) -> None:
    calls, streams = concurrent_streams(peer)
    judged = [rid for rid in calls if judge_announcer or rid != "announce"]
    strays = {rid: unrelated_messages(calls[rid], streams[rid]) for rid in judged}
    assert not any(strays.values()), f"request streams carried messages of something else: {strays}"


def closed_mid_operation(peer: HttpPeer, steps: int, *, settle: bool = False) -> tuple[Wire, int, str]:
    """Start the slow operation, drop its response stream once it is under way, and learn how the run ended
    (the outcome tool, a request of its own). The wire (with ``settle``, also what came within QUIET_SECONDS
    after), the number of frames seen by the time the stream was dropped, and the outcome (``cancelled after
    0 steps``, ``completed after 8 steps``, ...)."""
    wire = Wire(peer)
    call, run_id = slow_operation(peer, wire, steps)
    assert call.stream is not None, "the slow operation was not POSTed"
    call.stream.close()  # returns once its reader is done: what it read is queued, nothing more will be
    with contextlib.suppress(ImplementationTimeout):
        wire.until(lambda _: False, "frame", 0)  # take the frames the stream delivered before it was dropped
    heard = len(wire.seen)
    ended = operation_outcome(peer, run_id)
    if settle:
        wire.settle()
    return wire, heard, ended


def steps_done(ended: str) -> int:
    found = STEPS_DONE.search(ended)
    assert found, f"the cancellation outcome tool said {ended!r}"
    return int(found.group(1))


def without_version_header(peer: HttpPeer, frame: dict) -> Exchange:
    """``frame`` POSTed without MCP-Protocol-Version, which a client MUST send: the trace says the harness
    omits it on purpose (an offline judge of the harness, rather than of the server, reads it there)."""
    headers = peer.headers_for(frame)
    headers.pop("MCP-Protocol-Version", None)
    peer.trace.lifecycle("client-to-server", "deliberate", detail="the next POST goes without MCP-Protocol-Version")
    return peer.exchange("POST", frame, headers)


@dataclass
class OldClient:
    """A handshake-era client's first steps with the server: its initialize and, if that succeeded, a ping."""

    initialize: Exchange
    initialize_frames: list[Any]
    result: dict | None
    ping: Exchange | None = None
    ping_frames: list[Any] | None = None

    @property
    def served(self) -> bool:
        return self.ping is not None and self.ping.status == 200 and any("result" in f for f in self.ping_frames or [])


def old_client(peer: HttpPeer, version: str, trace: Path) -> OldClient:
    """Talk to the server as a client of ``version`` would, headers included: none of MCP-Protocol-Version
    at 2025-03-26, ``version`` itself from 2025-06-18 on."""
    with side_peer(peer.url, version, trace, peer) as old:
        frame = {"jsonrpc": "2.0", "id": "old-initialize", "method": "initialize", "params": initialize_params(version)}
        exchange = old.exchange("POST", frame)
        frames = old.frames_of(exchange)
        result = next((f["result"] for f in frames if is_response(f) and isinstance(f.get("result"), dict)), None)
        client = OldClient(exchange, frames, result)
        if exchange.status != 200 or result is None or result.get("protocolVersion") != version:
            return client
        old.session_id, old.negotiated_version = exchange.headers.get("mcp-session-id"), version
        old.exchange("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        client.ping = old.exchange("POST", old.envelope("ping", "old-ping"))
        client.ping_frames = old.frames_of(client.ping)
        return client


def bodiless(peer: HttpPeer, method: str, headers: dict[str, str] | None = None) -> Exchange:
    """A GET or DELETE with the conversation's headers (and ``headers``), its answer's status and headers."""
    sent = peer.headers_for(None) | (headers or {})
    sent.pop("Content-Type", None)
    if method == "GET":
        sent["Accept"] = "text/event-stream"
    return peer.exchange(method, headers=sent, read_events=False)


def listening_addresses(port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The local addresses of this machine's TCP sockets listening on ``port``, from Linux's /proc/net
    (empty where that is unreadable: not Linux, or another network namespace)."""
    found: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for table in ("tcp", "tcp6"):
        try:
            rows = Path("/proc/net", table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            address, _, hex_port = fields[1].partition(":")
            if fields[3] != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                continue
            # the address's 32-bit words, each printed as the host reads it from memory
            words = (int(address[i : i + 8], 16).to_bytes(4, sys.byteorder) for i in range(0, len(address), 8))
            found.append(ipaddress.ip_address(b"".join(words)))
    return found


def only_loopback(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def apparent_entropy_bits(ids: list[str]) -> float:
    """A guesser's work, estimated from a sample of ids: the positions at which they differ, each worth
    log2 of the characters seen at such positions. Fixed parts (a prefix, a JWT header, a UUID's version
    digit) count nothing; a counter or a clock moves a few positions only."""
    width = min(map(len, ids))
    varying = [i for i in range(width) if len({s[i] for s in ids}) > 1]
    alphabet = {s[i] for s in ids for i in varying}
    return len(varying) * math.log2(max(len(alphabet), 2))


# the request's own stream (2025-03-26 .. 2026-07-28)


@for_req("streamable-http-post-stream-includes-response", "server")
def test_a_request_stream_delivers_its_response(revision: str, http_server: HttpPeer) -> None:
    frames = request_stream(opened(http_server), progress_call(http_server, "call", "call-token"))
    responses = [f.get("id") for f in frames if is_response(f)]
    assert responses == ["call"], f"the stream answered {responses}: {frames}"


@for_req("streamable-http-post-stream-keep-open-until-response", "server")
def test_a_request_stream_stays_open_until_its_response(revision: str, http_server: HttpPeer) -> None:
    bound(http_server, "slow-tool")
    opened(http_server)
    slow = require_role(http_server, "slow-tool")
    run = slow.args(run_id=f"run-{uuid.uuid4().hex}", steps=QUICK_STEPS)
    frames = request_stream(http_server, tool_call(http_server, "slow-call", slow.name, run, token="slow-call"))
    progress = [f for f in frames if reports_progress(f, "slow-call")]
    assert [f for f in frames if is_response(f) and f.get("id") == "slow-call"], (
        f"the stream ended after {len(progress)} progress notifications, without the response: {frames[-2:]}"
    )


@for_req("streamable-http-post-stream-notifications", "server")
def test_notifications_may_precede_the_response_on_its_stream(revision: str, http_server: HttpPeer) -> None:
    frames = request_stream(opened(http_server), progress_call(http_server, "call", "call-token"))
    notifications = [i for i, f in enumerate(frames) if "method" in f and "id" not in f]
    if not notifications:
        pytest.skip("fixture-missing: the server sent no notification on the request's stream")
    answer = [i for i, f in enumerate(frames) if is_response(f) and f.get("id") == "call"]
    assert answer and max(notifications) < answer[0], f"notifications after the response, or none: {frames}"


@for_req("streamable-http-post-stream-requests", "server")
def test_a_request_of_the_server_on_a_request_stream_is_answered_and_the_call_completes(
    revision: str, http_server: HttpPeer
) -> None:
    """No GET stream is open: whatever the server sends comes on the tool call's own stream."""
    bound(http_server, "sampling-tool")
    http_server.open({"sampling": {}})
    sampling = require_role(http_server, "sampling-tool")
    wire = Wire(http_server)
    call = wire.send(tool_call(http_server, "sampling-call", sampling.name, sampling.args()))
    asked = wire.until(lambda f: "id" in f and ("method" in f or f["id"] == call.id), "request of the server")
    if is_response(asked):
        pytest.skip(f"fixture-missing: {sampling.name} sent the client no request ({asked})")
    reply = {"role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "mcp-matrix"}
    http_server.send({"jsonrpc": "2.0", "id": asked["id"], "result": reply})
    answer = wire.answer(call.id)
    assert "result" in answer and not answer["result"].get("isError"), f"once its request was answered: {answer}"


def batches_in(exchange: Exchange) -> list[list[Any]]:
    """The JSON-RPC batches (arrays) an answer carried, as events or as its body."""
    payloads = [e["data"] for e in exchange.events if e.get("data", "").lstrip().startswith("[")]
    if exchange.body.lstrip().startswith(b"["):
        payloads.append(exchange.body.decode("utf-8", "replace"))
    return [json.loads(payload) for payload in payloads]


@for_req("streamable-http-post-stream-batched-messages", "server")
def test_a_batch_on_a_request_stream_holds_only_requests_and_notifications(
    revision: str, http_server: HttpPeer
) -> None:
    exchange = http_server.exchange("POST", progress_call(opened(http_server), "call", "call-token"))
    http_server.frames_of(exchange)  # traced and schema-checked like every frame
    batches = batches_in(exchange)
    if not batches:
        pytest.skip("not-exercised: the server batched none of its messages on the request's stream")
    mixed = [b for b in batches if not b or not all(isinstance(m, dict) and "method" in m for m in b)]
    assert not mixed, f"batches holding more than requests and notifications: {mixed}"


@for_req("streamable-http-post-stream-batched-responses", "server")
def test_the_answers_to_a_batch_may_come_as_a_batch(revision: str, http_server: HttpPeer) -> None:
    batch = [opened(http_server).envelope("ping", "batch-1"), http_server.envelope("ping", "batch-2")]
    exchange = http_server.exchange("POST", batch)
    assert exchange.status == 200, f"a batch of two pings was answered {exchange.status}: {exchange.body[:300]!r}"
    answered = sorted(str(f.get("id")) for f in http_server.frames_of(exchange) if is_response(f))
    assert answered == ["batch-1", "batch-2"], f"the batch's requests were answered {answered}"
    batches = batches_in(exchange)
    if not batches:
        pytest.skip("fixture-missing: the server answered the batch's requests one by one")
    strays = [b for b in batches if not all(isinstance(m, dict) and is_response(m) for m in b)]
    assert not strays, f"a batch of answers holding more than responses: {strays}"


@for_req("streamable-http-post-stream-messages-related", "server")
def test_a_request_stream_carries_only_what_concerns_its_request(revision: str, http_server: HttpPeer) -> None:
    """Up to 2025-11-25 a list change announced during the calls is no concern of the progress calls; the
    call that announced it may carry it (it is what that request did)."""
    check_streams_related(http_server, judge_announcer=False)


@for_req("streamable-http-post-stream-notifications-related", "server")
def test_a_modern_request_stream_carries_only_notifications_of_its_request(
    revision: str, http_server: HttpPeer
) -> None:
    """At 2026-07-28 change notifications belong on subscriptions/listen streams, the announcer's included."""
    check_streams_related(http_server, judge_announcer=True)


@for_req("streamable-http-post-stream-no-requests", "server")
def test_a_modern_server_sends_no_requests_on_a_request_stream(revision: str, http_server: HttpPeer) -> None:
    """The sampling tool, asked by a client that declares sampling (before 2026-07-28 the server asks by a
    request on the call's stream), and a progress call, whose answer is an event stream."""
    tool, _ = require_roles(http_server, "sampling-tool", "progress-tool")
    capable = {"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}, "progressToken": "sampling-call"}
    sampling = http_server.envelope(
        "tools/call", "sampling-call", {"name": tool.name, "arguments": tool.args(), "_meta": capable}
    )
    frames = [
        frame
        for request in (sampling, progress_call(http_server, "call", "call-token"))
        for frame in http_server.frames_of(http_server.exchange("POST", request))
    ]
    requests = [f for f in frames if "method" in f and "id" in f]
    assert not requests, f"requests of the server on a request's stream: {requests}"


@for_req("streamable-http-post-stream-end-on-session-expiry", "server")
def test_a_request_stream_may_end_with_its_session(revision: str, http_server: HttpPeer) -> None:
    """The client ends the session (DELETE) while a request's stream is open: the one way to make a session
    end within a bounded wait (the SDK's idle timeout does not run while a request is in flight)."""
    call, _ = slow_operation(http_server, steps=SLOW_STEPS)
    assert call.stream is not None and http_server.session_id, "no session, or the operation was not POSTed"
    ended = bodiless(http_server, "DELETE")
    if ended.status == 405:
        pytest.skip("fixture-missing: the server does not let clients end sessions")
    if not call.stream.ended.wait(http_server.timeout):
        pytest.skip("fixture-missing: the server kept the request's stream open after the session ended")
    after = http_server.exchange("POST", probe_frame(http_server, "after"))
    assert after.status == 404, f"the stream ended, yet the session goes on: a request was answered {after.status}"


# sessions (2025-03-26 .. 2025-11-25)


@for_req("streamable-http-session-id-assign", "server")
def test_a_session_id_assigned_with_the_initialize_result_keys_the_session(
    revision: str, http_server: HttpPeer
) -> None:
    """The peer takes the id only from the answer that carried the initialize result."""
    http_server.initialize(check=False)
    session = http_server.session_id
    if not session:
        pytest.skip("fixture-missing: the server assigns no session id")
    probe = http_server.exchange("POST", probe_frame(http_server))
    assert probe.status == 200 and results_of(http_server, probe, "probe"), f"in session {session}: {probe.status}"
    renamed = {e.headers["mcp-session-id"] for e in http_server.exchanges if "mcp-session-id" in e.headers}
    assert renamed == {session}, f"the session was assigned {session!r}, then answered as {sorted(renamed)}"


@for_req("streamable-http-session-id-secure", "server")
def test_session_ids_are_not_guessable(revision: str, http_server: HttpPeer, tmp_path: Path) -> None:
    ids = [opened(http_server).session_id]
    for n in range(SESSION_SAMPLE - 1):
        with side_peer(http_server.url, revision, tmp_path / f"session-{n}.jsonl") as other:
            other.open()
            ids.append(other.session_id)
    if not all(ids):
        pytest.skip("fixture-missing: the server assigns no session ids")
    bits = apparent_entropy_bits([str(i) for i in ids])
    assert bits >= MIN_SESSION_ID_BITS, f"about {bits:.0f} bits vary across {len(ids)} session ids: {ids}"


@for_req("streamable-http-server-may-end-session", "server")
def test_a_session_the_server_ended_on_its_own_answers_404(
    revision: str, configured_server: ConfiguredServer, tmp_path: Path
) -> None:
    """The server configured to end idle sessions (its profile's ``session-idle-timeout``). The cue is the
    absence of traffic, and any request restarts it, so the test lets time pass rather than await a frame."""
    configured = configured_server("session-idle-timeout")
    idle = float(configured.values["seconds"])
    with side_peer(configured.url, revision, tmp_path / "expiring.jsonl") as peer:
        peer.open()
        if not peer.session_id:
            pytest.skip("fixture-missing: the server assigns no session id")
        statuses: list[int] = []
        while len(statuses) < 3 and 404 not in statuses:
            time.sleep(idle * 3)
            statuses.append(peer.exchange("POST", probe_frame(peer)).status)
        assert statuses[-1] == 404, f"idle for {idle * 3:g}s at a time, the session answered {statuses}"


@for_req("streamable-http-delete-405", "server")
def test_a_refused_delete_leaves_the_session_in_place(revision: str, http_server: HttpPeer) -> None:
    opened(http_server)
    if not http_server.session_id:
        pytest.skip("fixture-missing: the server assigns no session id")
    ended = bodiless(http_server, "DELETE")
    if 200 <= ended.status < 300:
        pytest.skip("not-exercised: the server lets clients end sessions (DELETE answered 2xx), as it may")
    assert ended.status == 405, f"DELETE was answered {ended.status}, neither 405 nor success"
    probe = http_server.exchange("POST", probe_frame(http_server))
    assert probe.status == 200 and results_of(http_server, probe, "probe"), f"after the 405: {probe.status}"


# the version header


@for_req("streamable-http-missing-protocol-version-assume-2025-03-26", "server")
def test_a_request_without_the_version_header_is_still_served(revision: str, http_server: HttpPeer) -> None:
    """Either the negotiated version or the assumed 2025-03-26 serves it: a request is never refused for it."""
    exchange = without_version_header(opened(http_server), probe_frame(http_server, "no-version"))
    assert exchange.status == 200 and results_of(http_server, exchange, "no-version"), (
        f"a request without MCP-Protocol-Version was answered {exchange.status}: {exchange.body[:200]!r}"
    )


def rejected_by_validation(status: int, frames: list[Any]) -> bool:
    return status == 400 and error_codes(frames) == [-32020]


@for_req("streamable-http-missing-protocol-version-legacy", "server")
def test_a_client_without_the_version_header_is_served_as_2025_03_26(
    revision: str, http_server: HttpPeer, tmp_path: Path
) -> None:
    """A 2025-03-26 client sends no MCP-Protocol-Version: a server of this revision that serves it at all
    serves it as 2025-03-26 (its initialize, then a request of its session)."""
    client = old_client(http_server, "2025-03-26", tmp_path / "2025-03-26-client.jsonl")
    if rejected_by_validation(client.initialize.status, client.initialize_frames):
        pytest.skip("fixture-missing: the server serves no client older than 2025-06-18 (it rejects them)")
    assert client.result is not None and client.result.get("protocolVersion") == "2025-03-26", (
        f"a 2025-03-26 initialize was answered {client.initialize.status}: {client.initialize_frames}"
    )
    assert client.served, f"then its ping was answered {client.ping and client.ping.status}: {client.ping_frames}"


@for_req("streamable-http-missing-protocol-version-reject", "server")
def test_a_request_without_the_version_header_is_rejected_unless_old_clients_are_served(
    revision: str, http_server: HttpPeer, tmp_path: Path
) -> None:
    exchange = without_version_header(http_server, http_server.envelope("tools/list", "no-version"))
    frames = http_server.frames_of(exchange)
    if rejected_by_validation(exchange.status, frames):
        return
    if old_client(http_server, "2025-03-26", tmp_path / "2025-03-26-client.jsonl").served:
        pytest.skip(
            "fixture-missing: the server serves 2025-03-26 clients, so it may treat a request without the "
            "header as 2025-03-26 (streamable-http-missing-protocol-version-legacy); the rule binds the others"
        )
    raise AssertionError(
        f"a server of {revision} only answered a request without the header {exchange.status}: {frames}"
    )


@for_req("streamable-http-modern-server-get-delete-405", "server")
def test_get_and_delete_are_refused_with_405(revision: str, http_server: HttpPeer, tmp_path: Path) -> None:
    """This revision's GET and DELETE, whatever else the server serves; and, from a server of this revision
    only, an older client's too (a server that serves 2025-11-25 clients answers those as that revision)."""
    statuses = {method: bodiless(http_server, method).status for method in ("GET", "DELETE")}
    assert statuses == {"GET": 405, "DELETE": 405}, f"at {revision}: {statuses}"
    if old_client(http_server, "2025-11-25", tmp_path / "2025-11-25-client.jsonl").served:
        return
    older = {"MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": "mcp-matrix-stray-session"}
    statuses = {method: bodiless(http_server, method, older).status for method in ("GET", "DELETE")}
    assert statuses == {"GET": 405, "DELETE": 405}, f"from a 2025-11-25 client: {statuses}"


# the endpoint: one path, its answers to what it refuses, loopback, authentication


@for_req("streamable-http-single-endpoint", "server")
def test_all_traffic_goes_to_the_one_endpoint(revision: str, http_server: HttpPeer) -> None:
    """The handshake (a request and a notification), a request, and before 2026-07-28 a GET, all to the
    URL's one path, each handled there: never sent elsewhere (a redirect), nor refused as not this path's."""
    probe = http_server.exchange("POST", probe_frame(opened(http_server)))
    assert results_of(http_server, probe, "probe"), f"the endpoint did not answer its request: {probe.status}"
    if not http_server.stateless:
        bodiless(http_server, "GET")
    unhandled = [
        (e.method, e.status)
        for e in http_server.exchanges
        if not (200 <= e.status < 300 or (e.method == "GET" and e.status == 405))
    ]
    assert not unhandled, f"the endpoint {http_server.path} did not take: {unhandled}"


@for_req("streamable-http-rejected-no-request-error-status", "server")
def test_a_notification_the_server_cannot_accept_gets_an_error_status(revision: str, http_server: HttpPeer) -> None:
    exchange = refused_notification(http_server)
    assert 400 <= exchange.status < 600, f"a notification with a string for params was answered {exchange.status}"


@for_req("streamable-http-rejected-no-request-error-body", "server")
def test_the_error_answer_to_a_refused_notification_names_no_request(revision: str, http_server: HttpPeer) -> None:
    exchange = refused_notification(http_server)
    if exchange.status < 400:
        pytest.skip(f"fixture-missing: the server accepted the notification ({exchange.status})")
    check_id_less_error(http_server, exchange)


@for_req("streamable-http-origin-403-error-body", "server")
def test_a_403_for_a_foreign_origin_carries_at_most_an_id_less_error(revision: str, http_server: HttpPeer) -> None:
    frame = opening_frame(http_server)
    exchange = http_server.exchange("POST", frame, http_server.headers_for(frame) | {"Origin": FOREIGN_ORIGIN})
    if exchange.status != 403:
        pytest.skip(f"fixture-missing: a request from {FOREIGN_ORIGIN} was answered {exchange.status}, not 403")
    check_id_less_error(http_server, exchange)


@for_req("streamable-http-bind-localhost", "server")
def test_the_server_listens_on_loopback_only(revision: str, http_server: HttpPeer) -> None:
    """The sockets listening on the endpoint's port, as this machine's kernel lists them: 0.0.0.0 or ::
    (every interface), or any other address than loopback, makes the server reachable from elsewhere."""
    addresses = listening_addresses(http_server.port)
    if not addresses:
        pytest.skip(f"fixture-missing: no socket listening on port {http_server.port} is visible in /proc/net")
    exposed = [str(a) for a in addresses if not only_loopback(a)]
    assert not exposed, f"port {http_server.port} also listens on {exposed}: other machines can reach it"


@for_req("streamable-http-authentication", "server")
def test_a_connection_must_authenticate(revision: str, configured_server: ConfiguredServer, tmp_path: Path) -> None:
    """The server configured to require a bearer token (its profile's ``bearer-token``): refused without
    credentials and with wrong ones, served with the token."""
    configured = configured_server("bearer-token")
    token = configured.values["token"]
    with side_peer(configured.url, revision, tmp_path / "authentication.jsonl") as peer:
        frame = opening_frame(peer)
        for credentials in ({}, {"Authorization": "Bearer mcp-matrix-wrong-token"}):
            refused = peer.exchange("POST", frame, peer.headers_for(frame) | credentials)
            assert refused.status in (401, 403), f"with credentials {credentials}: answered {refused.status}"
        accepted = peer.exchange("POST", frame, peer.headers_for(frame) | {"Authorization": f"Bearer {token}"})
        peer.session_id = accepted.headers.get("mcp-session-id")
        assert accepted.status == 200 and results_of(peer, accepted, "open"), f"with the token: {accepted.status}"


# cancellation: a client that drops a request's stream


@for_req("streamable-http-disconnect-not-cancel", "server")
def test_a_dropped_request_stream_does_not_cancel_the_request(revision: str, http_server: HttpPeer) -> None:
    _, _, ended = closed_mid_operation(http_server, QUICK_STEPS)
    assert ended.startswith("completed"), f"its stream dropped after the first step, the operation ended {ended!r}"


@for_req("streamable-http-stream-close-is-cancel", "server")
def test_closing_a_request_stream_cancels_the_request(revision: str, http_server: HttpPeer) -> None:
    _, _, ended = closed_mid_operation(http_server, SLOW_STEPS)
    assert ended.startswith("cancelled"), f"its stream closed after the first step, the operation ended {ended!r}"


@for_req("streamable-http-server-stop-cancelled-work", "server")
def test_the_work_of_a_cancelled_request_stops_promptly(revision: str, http_server: HttpPeer) -> None:
    _, _, ended = closed_mid_operation(http_server, SLOW_STEPS)
    assert ended.startswith("cancelled") and steps_done(ended) <= PROMPT_STEPS, (
        f"its stream closed after the first of {SLOW_STEPS} steps of 50 ms, the operation ended {ended!r}"
    )


@for_req("streamable-http-server-silent-after-cancel", "server")
def test_nothing_more_comes_for_a_request_whose_stream_was_closed(revision: str, http_server: HttpPeer) -> None:
    """After the close, a second request (the outcome tool) has a stream of its own: nothing of the
    cancelled request may travel on it, nor on anything else the server still has open."""
    wire, heard, _ = closed_mid_operation(http_server, SLOW_STEPS, settle=True)
    leaked = [
        s.frame
        for s in wire.seen[heard:]
        if (is_response(s.frame) and s.frame["id"] == "slow-op") or reports_progress(s.frame, "slow-op")
    ]
    assert not leaked, f"after its stream was closed the server still sent, for the cancelled request: {leaked}"


# -- the client side: message bodies, answers in JSON and SSE, sessions, GET streams, resumption -----------
# The scripted server answers as each test scripts it (conformance/harness/scripted_server.py:
# StreamScript, GetStreamScript, refusals, redirects, expiry); its record is the evidence.

LOG_EVENT = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}}


def declare_logging(server: ScriptedServer) -> None:
    """The server's handshake declares logging: its streams carry LOG_EVENT, which only a server that
    declared it may send."""
    answer = server.answers["initialize"]

    def initialize(frame: dict) -> dict:
        result = answer(frame)
        return result | {"capabilities": result["capabilities"] | {"logging": {}}}

    server.answers["initialize"] = initialize


QUICK_RETRY_MS = 100  # a retry: field that keeps the reconnections of these tests quick
RETRY_MS = 300  # the retry: field the client is held to (its falsifying fault moves the GET 1 s earlier)
STREAMED_TOOL = SCRIPTED_TOOL | {"name": "streamed-echo"}
LEGACY_INITIALIZE = {  # how a server of the handshake era answers initialize
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "mcp-matrix-legacy-server", "version": "0.1.0"},
}
# A 400 that only a server of the modern era sends: one of each modern error the transport page names.
MODERN_REFUSALS: dict[str, dict] = {
    "UnsupportedProtocolVersion (-32022)": {
        "code": -32022,
        "message": "Unsupported protocol version",
        "data": {"supported": ["2099-01-01"], "requested": MODERN},
    },
    "MissingRequiredClientCapability (-32021)": {
        "code": -32021,
        "message": "Missing required client capability",
        "data": {"requiredCapabilities": {"sampling": {}}},
    },
    "HeaderMismatch (-32020)": {"code": -32020, "message": "Header validation failed: Mcp-Method"},
}


def is_message(frame: Any) -> bool:
    """A JSON-RPC 2.0 message object: a request or notification, or a response."""
    if not isinstance(frame, dict) or frame.get("jsonrpc") != "2.0":
        return False
    return "method" in frame or ("id" in frame and ("result" in frame or "error" in frame))


def calls_of(server: ScriptedServer, method: str) -> list[dict]:
    return [f for f in server.requests() if f.get("method") == method]


def client_gets(server: ScriptedServer) -> list[Received]:
    return [r for r in server.received if r.method == "GET"]


def settled_streams(server: ScriptedServer, method: str) -> list[StreamRecord]:
    """The SSE streams opened by ``method`` (or ``GET``), once every stream has ended (bounded)."""
    server.streams_settled()
    return [s for s in server.stream_log if s.method == method]


def resumptions(server: ScriptedServer, stream: StreamRecord) -> list[Received]:
    """The client's GETs that resume ``stream``: their Last-Event-ID names one of its events."""
    return [r for r in client_gets(server) if r.headers.get("last-event-id") in stream.event_ids]


def first_stream(server: ScriptedServer, method: str) -> StreamRecord:
    streams = settled_streams(server, method)
    if not streams:
        raise HarnessError(f"the scripted server answered no {method} with an event stream")
    return streams[0]


def answer_to(server: ScriptedServer, request_id: Any) -> Received | None:
    """The POST that carried the client's answer to our request ``request_id``."""
    return next(
        (
            r
            for r in server.received
            if any(isinstance(f, dict) and "method" not in f and f.get("id") == request_id for f in r.frames)
        ),
        None,
    )


@for_req("streamable-http-post-body-batch", "client")
def test_every_client_post_body_is_a_message_or_a_batch_of_one_kind(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        for request in posts(received):
            frames = request.frames
            assert frames and all(is_message(f) for f in frames), f"a POST body that is not JSON-RPC messages: {frames}"
            if request.batch or len(frames) > 1:
                kinds = {"method" in f for f in frames}
                assert len(kinds) == 1, f"a batch mixing responses with requests or notifications: {frames}"

    judge_client_requests(run_client, scripted_server, check)


@for_req("streamable-http-post-body-single-message", "client")
def test_every_client_post_body_is_one_message(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    def check(received: list[Received]) -> None:
        for request in posts(received):
            frames = request.frames
            assert not request.batch and len(frames) == 1 and is_message(frames[0]), f"a POST body of {frames}"
            if revision == MODERN:
                assert "method" in frames[0], f"a POST body that is neither a request nor a notification: {frames}"

    judge_client_requests(run_client, scripted_server, check)


@for_req("streamable-http-client-handles-json-and-sse", "client")
def test_the_client_takes_answers_in_json_and_in_event_streams(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    scripted_server.answers["tools/list"] = listing_tools(scripted_server.answers["tools/list"], [STREAMED_TOOL])
    scripted_server.streams["tools/list"] = StreamScript()  # tools/list over SSE; every other answer in JSON
    run = run_client("tools_call")
    assert run.completed, f"the client did not get through answers in JSON and in SSE:\n{run.output[-1500:]}"
    names = [(f.get("params") or {}).get("name") for f in calls_of(scripted_server, "tools/call")]
    assert names[:1] == [STREAMED_TOOL["name"]], f"tools/list listed {STREAMED_TOOL['name']!r} over SSE; called {names}"


@for_req("streamable-http-client-cancel-notification", "client")
def test_the_client_cancels_with_a_cancelled_notification(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    scripted_server.paces["tools/call"] = Pace(delay=None)  # never answered: the client gives up on it
    run_client("cancel").require_completed()
    calls = calls_of(scripted_server, "tools/call")
    if not calls:
        raise HarnessError("the client never sent the tools/call it was to cancel")
    cancels = [
        f for f in scripted_server.frames() if isinstance(f, dict) and f.get("method") == "notifications/cancelled"
    ]
    named = [(f.get("params") or {}).get("requestId") for f in cancels]
    assert calls[0]["id"] in named, (
        f"the client abandoned tools/call {calls[0]['id']!r}; its cancellations name {named}"
    )


@for_req("streamable-http-client-delete-session", "client")
def test_the_client_ends_its_session_with_delete(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    run_client("tools_call").require_completed()  # how a session ends is seen only once it has
    received = scripted_server.received
    last_message = max(i for i, r in enumerate(received) if r.frames)
    deletes = [r for r in received[last_message + 1 :] if r.method == "DELETE"]
    assert deletes, "the client left without ending its session by DELETE"
    sent = deletes[-1].headers.get("mcp-session-id")
    assert sent == scripted_server.issued_sessions[-1], f"DELETE with Mcp-Session-Id {sent!r}"


@for_req("streamable-http-client-accept-header-get", "client")
def test_every_client_get_accepts_event_streams(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    scripted_server.get_stream = GetStreamScript()  # a GET opens a stream, held until the client leaves
    scripted_server.gates["tools/list"] = lambda: bool(client_gets(scripted_server))
    run_client("tools_call").require_completed()
    sent = client_gets(scripted_server)
    if not sent:
        pytest.skip("fixture-missing: the client issued no GET")
    for request in sent:
        accept = request.headers.get("accept", "")
        assert "text/event-stream" in accept, f"a GET with Accept: {accept!r}"


@for_req("streamable-http-client-get-stream", "client")
def test_the_client_listens_on_a_get_stream(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    ping = scripted_server.client_answers.request("ping")
    scripted_server.get_stream = GetStreamScript(events=[ping])  # our request comes only on the GET stream
    scripted_server.gates["tools/call"] = scripted_server.answered(ping["id"])
    run_client("tools_call").require_completed()
    if not settled_streams(scripted_server, "GET"):
        pytest.skip("fixture-missing: the client opened no GET stream")
    assert answer_to(scripted_server, ping["id"]), "the client did not answer the ping that came on its GET stream"


@for_req("streamable-http-get-stream-client-close", "client")
def test_the_client_closes_its_get_stream_itself(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    scripted_server.get_stream = GetStreamScript()  # held open: only the client ends it
    scripted_server.gates["tools/list"] = scripted_server.stream_open("GET")
    run_client("tools_call").require_completed()
    streams = settled_streams(scripted_server, "GET")
    if not streams:
        pytest.skip("fixture-missing: the client opened no GET stream")
    assert all(s.ended_by == "client" for s in streams), [(s.key, s.ended_by) for s in streams]


@for_req("streamable-http-multiple-streams", "client")
def test_the_client_listens_on_two_streams_at_once(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    """tools/list is answered on an SSE stream that stays open until the client has answered a ping
    sent on its GET stream meanwhile: the client must read both streams at once."""
    server = scripted_server
    ping = server.client_answers.request("ping")
    server.get_stream = GetStreamScript(events=[ping], send_when=server.stream_open("tools/list"))
    server.gates["tools/list"] = server.stream_open("GET")
    server.streams["tools/list"] = StreamScript(respond_when=server.answered(ping["id"]))
    run_client("tools_call").require_completed()
    if not settled_streams(server, "GET"):
        pytest.skip("fixture-missing: the client opened no GET stream")
    listing, answer = first_stream(server, "tools/list"), answer_to(server, ping["id"])
    assert answer is not None, "the client never answered the ping sent on its GET stream"
    assert listing.opened < answer.at < (listing.closed or math.inf), (
        "the client answered the ping of its GET stream only once the stream of tools/list had ended"
    )


@for_req("streamable-http-client-reinitialize-on-404", "client")
def test_a_404_for_its_session_makes_the_client_initialize_anew(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    scripted_server.expire_after.add("tools/list")  # the session ends once tools/list is answered
    run_client("tools_call")  # whether it completes is not the point
    received = scripted_server.received
    refused = next((i for i, r in enumerate(received) if r.status == 404 and r.frames), None)
    if refused is None:
        raise HarnessError("the client sent no request in its expired session")
    later = received[refused + 1 :]
    again = [r for r in later if any(isinstance(f, dict) and f.get("method") == "initialize" for f in r.frames)]
    assert again, f"after a 404 the client sent {[(r.method, r.frames) for r in later]}, no new initialize"
    assert "mcp-session-id" not in again[0].headers, (
        f"the new initialize carried {again[0].headers['mcp-session-id']!r}"
    )


def session_leaks(received: Received, sessions: list[str], origin: str, issuer: bool) -> list[str]:
    """How ``received`` exposes a session id beyond its Mcp-Session-Id header to the server that issued it."""
    carried = [name for name, value in received.headers.items() if any(s in value for s in sessions)]
    leaks = ["in the URL"] if any(s in received.path for s in sessions) else []
    if carried and not issuer:
        leaks.append(f"to another origin, in {carried}")
    elif carried and received.headers.get("host") != origin:
        leaks.append(f"addressed to {received.headers.get('host')!r}, in {carried}")
    return leaks


@for_req("streamable-http-client-session-id-secure-handling", "client")
def test_the_session_id_goes_only_to_the_server_that_issued_it(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    """tools/list is redirected to another origin (another port): the session id must not follow."""
    trace = Trace(tmp_path / "another-origin.jsonl", "streamable-http")
    elsewhere = ScriptedServer(revision, trace, fault=scripted_server.fault)
    try:
        scripted_server.redirects["tools/list"] = elsewhere.url
        run_client("tools_call")  # a client that refuses the redirect does not complete
    finally:
        elsewhere.close()
        trace.close()
    sessions = scripted_server.issued_sessions
    if not sessions or not any(r.status == 307 for r in scripted_server.received):
        raise HarnessError("the client never reached the redirect with a session")
    origin = urlsplit(scripted_server.url).netloc
    leaks = [
        f"{r.method} {r.path}: {leak}"
        for server in (scripted_server, elsewhere)
        for r in server.received
        for leak in session_leaks(r, sessions, origin, server is scripted_server)
    ]
    assert not leaks, f"the session id left its server: {leaks}"


# 2026-07-28: a dual-era client finds the server's era by a modern request, and resends a broken request


@for_req("streamable-http-backcompat-modern-first", "client")
def test_a_dual_era_client_tries_a_modern_request_first(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    run_client("initialize").require_completed()
    requests = scripted_server.requests()
    if not requests or requests[0].get("method") == "initialize":
        pytest.skip("fixture-missing: the client opens with initialize, not with a modern request")
    declared = ((requests[0].get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
    assert declared == MODERN, f"the client's first request declares protocol version {declared!r}: {requests[0]}"
    fallen_back = calls_of(scripted_server, "initialize")
    assert not fallen_back, "the server answered the modern request, yet the client fell back to initialize"


def initializes_after_refusal(
    run_client: Callable[[str], ClientRun], server: ScriptedServer, error: dict | None
) -> list[dict]:
    """Refuse the client's first request with 400 (carrying ``error``, or no body): its initializes."""
    start = len(server.received)
    first = "server/discover"
    server.refusals[first] = [(400, error)]
    run_client("initialize")
    if not any(r.status == 400 for r in server.received[start:]):
        raise HarnessError(f"the client sent no {first} to refuse")
    frames = [f for r in server.received[start:] for f in r.frames if isinstance(f, dict)]
    return [f for f in frames if f.get("method") == "initialize"]


@for_req("streamable-http-backcompat-inspect-400-body", "client")
def test_a_400_falls_back_to_initialize_only_without_a_modern_error(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    scripted_server.answers["initialize"] = lambda _: dict(LEGACY_INITIALIZE)
    assert initializes_after_refusal(run_client, scripted_server, None), (
        "refused with an empty 400, the client did not fall back to initialize"
    )
    fell_back = [
        name for name, error in MODERN_REFUSALS.items() if initializes_after_refusal(run_client, scripted_server, error)
    ]
    assert not fell_back, f"refused with a 400 carrying a modern error, the client fell back to initialize: {fell_back}"


@for_req("streamable-http-broken-stream-reissue", "client")
def test_a_request_whose_stream_broke_is_sent_again_with_a_new_id(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    scripted_server.streams["tools/call"] = StreamScript(end="break")  # the first only: a second is answered
    run_client("tools_call")
    calls = calls_of(scripted_server, "tools/call")
    if not calls:
        raise HarnessError("the client never sent tools/call")
    assert len(calls) > 1, f"the response stream of tools/call {calls[0]['id']!r} broke; the client never resent it"
    first, again = calls[0], calls[1]
    assert again["id"] != first["id"], f"the client resent tools/call under the same id {first['id']!r}"
    same = ("name", "arguments")
    assert [again["params"].get(k) for k in same] == [first["params"].get(k) for k in same], (first, again)


# up to 2025-11-25: streams that end early are resumed with GET and Last-Event-ID


def closed_before_the_answer(
    run_client: Callable[[str], ClientRun], server: ScriptedServer, retry_ms: int
) -> tuple[StreamRecord, list[Received]]:
    """tools/call answered on a stream that opens with a priming event (``retry_ms`` on it) and ends
    cleanly without the response: the stream, and the client's GETs resuming it."""
    server.streams["tools/call"] = StreamScript(prime=True, retry_ms=retry_ms, end="close")
    run_client("tools_call")
    stream = first_stream(server, "tools/call")
    return stream, resumptions(server, stream)


@for_req("streamable-http-client-poll-after-close", "client")
def test_the_client_reconnects_to_a_stream_the_server_closed(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    stream, resumed = closed_before_the_answer(run_client, scripted_server, QUICK_RETRY_MS)
    assert resumed, f"the server closed the stream of tools/call after {stream.event_ids}; the client never came back"


@for_req("streamable-http-client-honor-retry", "client")
def test_the_client_waits_the_retry_before_reconnecting(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    stream, resumed = closed_before_the_answer(run_client, scripted_server, RETRY_MS)
    if not resumed or stream.closed is None:
        pytest.skip("fixture-missing: the client did not reconnect to the stream the server closed")
    waited_ms = (resumed[0].at - stream.closed) * 1000
    assert waited_ms >= RETRY_MS, f"retry: {RETRY_MS}, yet the client reconnected after {waited_ms:.0f} ms"


@for_req("streamable-http-client-resume-get-last-event-id", "client")
def test_the_client_resumes_a_broken_stream_from_its_last_event(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    declare_logging(scripted_server)
    scripted_server.streams["tools/call"] = StreamScript([LOG_EVENT, LOG_EVENT], "break", retry_ms=QUICK_RETRY_MS)
    run_client("tools_call")
    assert_resumed_from_last_event(scripted_server, first_stream(scripted_server, "tools/call"))


@for_req("streamable-http-client-resume-after-any-disconnect", "client")
def test_the_client_resumes_every_dropped_stream_from_its_last_event(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    """The server ends its GET stream cleanly; the connection of tools/call's stream drops. Both are
    resumed from their last event (tools/call is answered once the GET stream has been resumed)."""
    server = scripted_server
    declare_logging(server)
    server.get_stream = GetStreamScript(events=[LOG_EVENT], retry_ms=QUICK_RETRY_MS, end="close")
    server.streams["tools/call"] = StreamScript([LOG_EVENT], "break", retry_ms=QUICK_RETRY_MS)

    def get_stream_resumed() -> bool:
        opened = [s.key for s in server.stream_log if s.method == "GET" and s.resumes is None]
        return bool(opened) and any(s.resumes == opened[0] for s in server.stream_log)

    server.gates["tools/call"] = get_stream_resumed
    run_client("tools_call")
    for method in ("GET", "tools/call"):
        assert_resumed_from_last_event(server, first_stream(server, method))


def assert_resumed_from_last_event(server: ScriptedServer, stream: StreamRecord) -> None:
    resumed = resumptions(server, stream)
    assert resumed, f"the stream of {stream.method} ({stream.ended_by}) after {stream.event_ids}: no GET resumed it"
    last = resumed[0].headers.get("last-event-id")
    assert last == stream.event_ids[-1], f"resumed from {last!r}; the last event was {stream.event_ids[-1]!r}"
