"""The validator's robustness: it never touches the network, judges each session of a trace on its own,
judges only the side under test when asked, and pairs a POST with its body only where that is certain."""

from __future__ import annotations

import copy
import json
import socket
from typing import Any

import pytest

from conformance.cli.main import main
from conformance.validator.outcomes import Trace, judge
from conformance.validator.reader import Event, read_trace
from conformance.validator.session import Session
from conformance.validator.sessions import split
from tests.validator import corpus

STDIO_SESSION = corpus.CONFORMING / "schema-tour-server-2025-06-18-stdio.jsonl"
HTTP_SESSION = corpus.CONFORMING / "session-delete-2025-03-26-streamable-http.jsonl"
OUTPUT_SCHEMA_CHECK = "tools-output-schema-conformance"


def events_of(path: Any) -> list[Event]:
    return read_trace(str(path))


def outcome(report: dict[str, Any], requirement: str) -> dict[str, Any]:
    return next(r for r in report["requirements"] if r["id"] == requirement)


def twice(events: list[Event]) -> list[Event]:
    return corpus.renumber(copy.deepcopy(events) + copy.deepcopy(events))


# --- no network -------------------------------------------------------------------------------------------


def tool_session(output_schema: dict) -> list[Event]:
    """A 2025-06-18 stdio session listing one tool with ``output_schema`` and calling it."""
    tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": output_schema}
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    answer = {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "s", "version": "1"},
    }
    called = {"content": [{"type": "text", "text": "{}"}], "structuredContent": {"a": 1}}
    return corpus.renumber(
        [
            corpus.client_message({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}),
            corpus.server_message({"jsonrpc": "2.0", "id": 1, "result": answer}),
            corpus.client_message({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            corpus.client_message({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            corpus.server_message({"jsonrpc": "2.0", "id": 2, "result": {"tools": [tool]}}),
            corpus.client_message({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t"}}),
            corpus.server_message({"jsonrpc": "2.0", "id": 3, "result": called}),
        ]
    )


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every attempt to open a connection or resolve a name is recorded and refused."""
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> None:
        attempts.append(args)
        raise OSError("the judge must not touch the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def test_a_remote_ref_in_an_output_schema_is_not_fetched_and_leaves_the_call_unjudged(no_network: list) -> None:
    events = tool_session({"$ref": "https://schemas.example.invalid/output.json"})
    report = judge([Trace("remote-ref", events)])["traces"][0]
    assert no_network == []
    entry = outcome(report, OUTPUT_SCHEMA_CHECK)
    assert entry["outcome"] == "not-observed" and entry["subjects"] == 0
    assert any("not judged" in note and "outputSchema cannot be used offline" in note for note in report["notes"])


def test_a_local_ref_in_an_output_schema_is_judged(no_network: list) -> None:
    schema = {"$defs": {"a": {"type": "string"}}, "type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}}
    report = judge([Trace("local-ref", tool_session(schema))])["traces"][0]
    entry = outcome(report, OUTPUT_SCHEMA_CHECK)
    assert no_network == [] and entry["outcome"] == "fail" and entry["subjects"] == 1


# --- several sessions in one trace --------------------------------------------------------------------------


@pytest.mark.parametrize("path", [STDIO_SESSION, HTTP_SESSION], ids=["stdio", "streamable-http"])
def test_two_sessions_in_one_trace_are_judged_each_on_its_own(path: Any) -> None:
    alone = judge([Trace("one", events_of(path))], strict=True)
    both = judge([Trace("two", twice(events_of(path)))], strict=True)
    assert [t["source"] for t in both["traces"]] == ["two#1", "two#2"]
    assert both["verdict"] == alone["verdict"] == "pass"
    assert both["traces"][1]["totals"] == alone["traces"][0]["totals"]
    # what follows a session is no part of it, except for the one check about what a 404 led to: a session
    # whose last request was answered 404, followed by a fresh initialize, shows the client opening anew
    led_to = "streamable-http-client-reinitialize-on-404"
    first, only = (
        {r["id"]: r for r in t["requirements"] if r["id"] != led_to} for t in (both["traces"][0], alone["traces"][0])
    )
    assert first == only


def test_an_initialize_posted_within_its_session_stays_in_it() -> None:
    """A re-initialize whose POST carries the session's id is a second initialize of one session."""
    events = copy.deepcopy(events_of(HTTP_SESSION))
    again = copy.deepcopy(events[:3])
    corpus.set_header(again[1], "Mcp-Session-Id", "f0127653f7fb4c34893d0e61d14bfd2c")
    assert len(split(corpus.renumber(events[:9] + again))) == 1


def test_an_http_session_after_a_refused_probe_is_its_own() -> None:
    """A POST refused with 400 before the session (a client probing another revision) is a session of its own,
    judged at the trace's revision; the trace still judges something (exit 0)."""
    session = events_of(HTTP_SESSION)
    probe = [*copy.deepcopy(session[:2]), corpus._http("server-to-client", "streamable-http", "POST", {}, status=400)]
    events = corpus.renumber(probe + copy.deepcopy(session))
    document = judge([Trace("fallback", events)])
    assert len(document["traces"]) == 2 and document["exit_code"] == 0
    assert document["traces"][0]["revision"] == document["traces"][1]["revision"] == "2025-03-26"


# --- the side under test -------------------------------------------------------------------------------------


def server_sends_bad_jsonrpc() -> list[Event]:
    events = copy.deepcopy(events_of(STDIO_SESSION))
    _, frame = corpus.first(events, lambda f: "result" in f, corpus.S2C)
    frame["jsonrpc"] = "1.0"
    return events


@pytest.mark.parametrize(
    ("side", "expected"),
    [(None, "fail"), ("server", "fail"), ("client", "pass")],
)
def test_side_judges_only_the_side_under_test(side: str | None, expected: str) -> None:
    report = judge([Trace("t", server_sends_bad_jsonrpc())], side=side)["traces"][0]
    assert outcome(report, "messages-jsonrpc-2-0")["outcome"] == expected


def test_side_leaves_the_other_sides_rows_not_applicable() -> None:
    report = judge([Trace("t", events_of(STDIO_SESSION))], side="client")["traces"][0]
    entry = outcome(report, "lifecycle-server-initialize-result")
    assert entry["outcome"] == "not-applicable" and "--side client" in entry["reason"]


def client_creates_a_task(status: str) -> list[Event]:
    """The hand-written tasks session, the client (receiver of the server's task-augmented sampling request)
    creating its task with ``status``; the server's own tasks are as they should be."""
    events = corpus.tasks_session()
    _, frame = corpus.first(events, lambda f: isinstance(f.get("result", {}).get("task"), dict), corpus.C2S)
    frame["result"]["task"]["status"] = status
    return events


@pytest.mark.parametrize(
    ("side", "expected"),
    [(None, "fail"), ("client", "fail"), ("server", "pass")],
)
def test_a_both_sided_row_judges_only_the_acts_of_the_side_under_test(side: str | None, expected: str) -> None:
    """tasks-initial-status-working binds whichever side receives a task: under --side server the client's
    task created input_required is not the server's breach, and the server's own new tasks are still judged."""
    report = judge([Trace("t", client_creates_a_task("input_required"))], side=side)["traces"][0]
    assert outcome(report, "tasks-initial-status-working")["outcome"] == expected


def test_side_on_the_command_line(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text(corpus.render(server_sends_bad_jsonrpc()), encoding="utf-8")
    assert main(["validate", "--side", "client", str(trace)]) == 0
    assert main(["validate", "--side", "server", str(trace)]) == 1
    capsys.readouterr()


# --- a POST and its body -------------------------------------------------------------------------------------


def posts_and_bodies(order: str) -> list[Event]:
    """P = a POST, digits = the body of the request with that id, in the recorded order."""
    events = []
    for token in order.split():
        if token.startswith("P"):
            events.append(corpus._http("client-to-server", "streamable-http", "POST", {"X-Post": token}))
        else:
            frame = {"jsonrpc": "2.0", "id": int(token), "method": "ping"}
            events.append(corpus.client_message(frame, "streamable-http"))
    return corpus.renumber(events)


def pairs(order: str) -> dict[str, Any]:
    events = posts_and_bodies(order)
    session = Session(events, "2025-06-18")
    return {
        event["headers"]["X-Post"]: session.body_of[event["seq"]].id
        for event in events
        if event["seq"] in session.body_of
    }


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        ("P1 1 P2 2", {"P1": 1, "P2": 2}),  # a POST, then its body
        ("1 P1 2 P2", {"P1": 1, "P2": 2}),  # the body, then its POST
        ("P1 P2 2 1", {}),  # two in flight: the bodies' order is not the POSTs'
        ("P1 P2 1 2 P3 3", {"P3": 3}),  # certainty comes back once nothing is in flight
    ],
)
def test_a_post_is_paired_with_its_body_only_where_certain(order: str, expected: dict[str, int]) -> None:
    assert pairs(order) == expected


def test_a_discover_probe_after_a_legacy_session_opens_another() -> None:
    """Round after round of probe and fallback (server/discover, then initialize): the probe after a legacy
    session is a session of its own, and so is the initialize after it."""
    session = events_of(HTTP_SESSION)[:7]
    probe = corpus.client_message({"jsonrpc": "2.0", "id": 1, "method": "server/discover"}, "streamable-http")
    post = corpus._http("client-to-server", "streamable-http", "POST", {"Content-Type": "application/json"})
    rounds = corpus.renumber([*copy.deepcopy(session), probe, post, *copy.deepcopy(session)])
    assert [len(s) for s in split(rounds)] == [7, 2, 7]


def test_messages_queued_before_an_sse_connection_stay_with_it() -> None:
    """The harness's client records an initialize it queued before its GET and the endpoint event."""
    events = copy.deepcopy(events_of(corpus.CONFORMING / "sse-2024-11-05.jsonl"))
    initialize = next(i for i, e in enumerate(events) if e["kind"] == "message")
    events.insert(0, events.pop(initialize))
    assert len(split(corpus.renumber(events))) == 1


def test_posts_in_flight_at_once_are_no_message_without_a_post() -> None:
    events = posts_and_bodies("P1 P2 2 1")
    assert Session(events, "2025-06-18").post_pairing == ({}, None)
    assert Session(posts_and_bodies("P1 1 2"), "2025-06-18").post_pairing[1] == (3, 1)


def test_a_recorders_posted_initialize_opens_a_session_as_a_message_does() -> None:
    """The harness's authorization traces keep a POST's JSON-RPC body in its http event: an initialize posted
    without a session id there starts a session (the one refused with 401, then the one after the OAuth flow),
    and one posted with the session's id stays in it."""

    def posted(seq: int, body: dict, session_id: str | None = None) -> Event:
        headers = {"mcp-session-id": session_id} if session_id else {}
        return {
            "seq": seq,
            "direction": "client-to-server",
            "transport": "streamable-http",
            "kind": "http",
            "method": "POST",
            "path": "/mcp",
            "headers": headers,
            "body": json.dumps(body),
        }

    def answered(seq: int, status: int) -> Event:
        return {
            "seq": seq,
            "direction": "server-to-client",
            "transport": "streamable-http",
            "kind": "http",
            "method": "POST",
            "path": "/mcp",
            "status": status,
            "headers": {},
        }

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    events = [
        posted(1, init),
        answered(2, 401),
        posted(3, init),
        answered(4, 200),
        posted(5, listing, "s"),
        answered(6, 200),
        posted(7, init, "s"),
        answered(8, 200),
    ]
    assert [[e["seq"] for e in session] for session in split(events)] == [[1, 2], [3, 4, 5, 6, 7, 8]]
