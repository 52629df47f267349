"""Streamable HTTP, server side: the endpoint, its statuses and headers, sessions, origin checks.

Each test opens its own session on the server under test (the fixture server runs once per
worker; every test gets a fresh session on it) and inspects whole HTTP exchanges.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.covers import for_req
from conformance.harness.frames import UNKNOWN_METHOD, initialize_params, modern_meta
from conformance.harness.http import Exchange, HttpPeer
from conformance.harness.scripted_server import Received, ScriptedServer
from conformance.harness.trace import Trace
from conformance.plugin import ClientRun

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
    http_server.initialize(check=False)
    exchange = http_server.exchange("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"})
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
    ended = http_server.exchange("DELETE", headers={"Mcp-Session-Id": http_server.session_id})
    if ended.status == 405:
        pytest.skip("fixture-missing: the server does not let clients end sessions")
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


def client_requests(run_client: Callable[[str], ClientRun], server: ScriptedServer) -> list[Received]:
    run_client("tools_call").require_completed()
    return server.received


def posts(received: list[Received]) -> list[Received]:
    return [r for r in received if r.method == "POST"]


@for_req("streamable-http-client-sends-via-post", "client")
def test_the_client_sends_every_message_by_post(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    received = client_requests(run_client, scripted_server)
    carrying = [r for r in received if r.frames]
    assert carrying and all(r.method == "POST" for r in carrying), [(r.method, r.frames) for r in carrying]


@for_req("streamable-http-client-new-post-per-message", "client")
def test_each_client_message_travels_in_its_own_post(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    crowded = [r.frames for r in posts(client_requests(run_client, scripted_server)) if len(r.frames) != 1]
    assert not crowded, f"POSTs carrying several messages: {crowded}"


@for_req("streamable-http-client-accept-header-post", "client")
def test_every_client_post_accepts_json_and_event_streams(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    for request in posts(client_requests(run_client, scripted_server)):
        accept = request.headers.get("accept", "")
        assert "application/json" in accept and "text/event-stream" in accept, f"Accept: {accept!r}"


@for_req("streamable-http-client-sends-session-id", "client")
def test_the_client_sends_its_session_id_after_initialization(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    received = client_requests(run_client, scripted_server)
    assigned = next(i for i, r in enumerate(received) if any(f.get("method") == "initialize" for f in r.frames))
    for request in received[assigned + 1 :]:
        assert request.headers.get("mcp-session-id"), f"{request.method} without Mcp-Session-Id: {request.frames}"


@for_req("streamable-http-protocol-version-header-after-init", "client")
def test_the_client_sends_the_protocol_version_header_after_initialization(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    for request in after_initialize(client_requests(run_client, scripted_server)):
        assert request.headers.get("mcp-protocol-version"), f"{request.method} without MCP-Protocol-Version"


@for_req("streamable-http-protocol-version-header-negotiated", "client")
def test_the_protocol_version_header_names_the_negotiated_version(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    for request in after_initialize(client_requests(run_client, scripted_server)):
        assert request.headers.get("mcp-protocol-version") == revision, request.headers


@for_req("streamable-http-protocol-version-header-every-post", "client")
def test_every_modern_client_post_names_its_protocol_version(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    for request in posts(client_requests(run_client, scripted_server)):
        assert request.headers.get("mcp-protocol-version"), f"a POST without MCP-Protocol-Version: {request.frames}"


@for_req("streamable-http-protocol-version-header-matches-meta", "client")
def test_the_protocol_version_header_equals_the_meta_version(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    for request in posts(client_requests(run_client, scripted_server)):
        for frame in request.frames:
            declared = ((frame.get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
            assert declared == request.headers.get("mcp-protocol-version"), (declared, request.headers)


@for_req("streamable-http-client-no-responses", "client")
def test_a_modern_client_posts_no_responses(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    frames = [f for r in posts(client_requests(run_client, scripted_server)) for f in r.frames]
    assert not [f for f in frames if "method" not in f], f"responses posted: {frames}"


def after_initialize(received: list[Received]) -> list[Received]:
    """The HTTP requests after the one that carried ``initialize``."""
    index = next(i for i, r in enumerate(received) if any(f.get("method") == "initialize" for f in r.frames))
    rest = received[index + 1 :]
    assert rest, "the client sent nothing after initialize"
    return rest


# -- sessions and streams (up to 2025-11-25) -----------------------------------------------------------

PROGRESS_CALL = {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "progress-1"}}


def progress_stream(peer: HttpPeer, request_id: str = "call") -> Exchange:
    """A tools/call whose answer streams: progress notifications, then the result."""
    return peer.exchange("POST", peer.envelope("tools/call", request_id, PROGRESS_CALL))


@for_req("streamable-http-session-id-unique", "server")
def test_two_sessions_get_different_ids(revision: str, http_server: HttpPeer, tmp_path: Path) -> None:
    opened(http_server)
    trace = Trace(tmp_path / "second-session.jsonl", "streamable-http")
    with HttpPeer(http_server.url, trace, revision, fault=http_server.fault) as other:
        other.open()
        assert http_server.session_id and other.session_id, "the server assigns no session ids"
        assert http_server.session_id != other.session_id, f"both sessions got {other.session_id!r}"


@for_req("streamable-http-missing-session-id-400", "server")
def test_a_request_without_the_session_id_gets_400(revision: str, http_server: HttpPeer) -> None:
    frame = probe_frame(opened(http_server))
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
    frame = http_server.envelope("tools/call", "named", {"name": "test_simple_text", "arguments": {}})
    encoded = "=?base64?" + base64.b64encode(b"test_simple_text").decode() + "?="
    exchange = http_server.exchange("POST", frame, http_server.headers_for(frame) | {"Mcp-Name": encoded})
    frames = http_server.frames_of(exchange)
    assert exchange.status == 200 and [f for f in frames if "result" in f], (exchange.status, frames)
