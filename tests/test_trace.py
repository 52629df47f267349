"""The trace writer (conformance/harness/trace.py): the format of docs/trace-format.md, what it keeps out
of a trace, and every trace a run of the suite keeps read against the format's JSON Schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from conformance.catalogue.spec_pin import PROJECT_ROOT
from conformance.harness.trace import LONGEST_LINE, PSEUDONYM_PREFIX, Trace
from conformance.validator import TRACE_EVENT_SCHEMA

EVENT_SCHEMA = Draft202012Validator(json.loads(TRACE_EVENT_SCHEMA.read_text(encoding="utf-8")))
SESSION_ID = "d0c5e3a1-secret-session"


def events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def schema_errors(path: Path) -> list[str]:
    return [
        f"{path.name}:{number}: {error.message}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for error in EVENT_SCHEMA.iter_errors(json.loads(line))
    ]


def test_the_writer_refuses_a_transport_the_format_does_not_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown transport 'http\\+sse'"):
        Trace(tmp_path / "t.jsonl", "http+sse")


def test_credential_headers_are_never_written_and_unlisted_headers_are_dropped(tmp_path: Path) -> None:
    trace = Trace(tmp_path / "t.jsonl", "streamable-http")
    sent = {
        "Authorization": "Bearer tok-1",
        "Cookie": "a=b",
        "Proxy-Authorization": "Basic cHJveHk=",
        "X-Api-Key": "key-1",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25",
        "Mcp-Method": "tools/call",
    }
    trace.record("client-to-server", "http", method="POST", headers=sent)
    trace.record("server-to-client", "http", method="POST", status=200, headers={"Set-Cookie": "s=1", "Allow": "GET"})
    trace.close()
    written = trace.path.read_text(encoding="utf-8")
    for secret in ("tok-1", "a=b", "cHJveHk=", "key-1", "s=1"):
        assert secret not in written
    request, response = events(trace.path)
    assert request["headers"] == {
        "content-type": "application/json",
        "mcp-protocol-version": "2025-11-25",
        "mcp-method": "tools/call",
    }
    assert response["headers"] == {"allow": "GET"}
    assert schema_errors(trace.path) == []


def test_a_session_id_is_written_as_a_pseudonym_stable_within_its_trace_only(tmp_path: Path) -> None:
    first, second = Trace(tmp_path / "a.jsonl", "streamable-http"), Trace(tmp_path / "b.jsonl", "sse")
    for trace in (first, second):
        trace.record("server-to-client", "http", method="POST", status=200, headers={"Mcp-Session-Id": SESSION_ID})
        trace.record("client-to-server", "http", method="GET", headers={"mcp-session-id": SESSION_ID})
        trace.lifecycle("server-to-client", "endpoint", data=f"/messages/?session_id={SESSION_ID}&x=1")
        trace.close()
    pseudonyms = []
    for trace in (first, second):
        assert SESSION_ID not in trace.path.read_text(encoding="utf-8")
        answer, request, endpoint = events(trace.path)
        assert answer["headers"]["mcp-session-id"] == request["headers"]["mcp-session-id"]
        assert answer["headers"]["mcp-session-id"].startswith(PSEUDONYM_PREFIX)
        assert endpoint["data"] == f"/messages/?session_id={answer['headers']['mcp-session-id']}&x=1"
        pseudonyms.append(answer["headers"]["mcp-session-id"])
    assert pseudonyms[0] != pseudonyms[1]  # a different key per trace: recordings cannot be linked by it


def test_an_event_longer_than_a_reader_takes_is_written_as_oversized(tmp_path: Path) -> None:
    trace = Trace(tmp_path / "t.jsonl", "stdio")
    trace.message("server-to-client", {"jsonrpc": "2.0", "id": 1, "result": {"blob": "x" * LONGEST_LINE}})
    trace.message("server-to-client", {"jsonrpc": "2.0", "id": 2, "result": {}})
    trace.close()
    big, small = events(trace.path)
    assert (big["kind"], big["event"], big["of"], big["seq"]) == ("lifecycle", "oversized", "message", 1)
    assert big["size"] > LONGEST_LINE and len(big["sha256"]) == 64
    assert small["payload"]["id"] == 2
    assert schema_errors(trace.path) == []


# Both sides, the three transports, a session id over HTTP: a handful of quick tests.
SELECTION = (
    "conformance/test_http_sse.py",
    "conformance/test_ping.py",
    "conformance/test_streamable_http.py",
    "-k",
    "endpoint_event or client_posts_every or answers_a_ping_promptly or (server_handles_an_unanswered and stdio) "
    "or session_id_assigned",
)


def test_every_trace_a_run_of_the_suite_keeps_validates_against_the_format(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--keep-traces", *SELECTION]
    env = os.environ | {"MCP_MATRIX_REPORTS": str(reports)}
    run = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    traces = sorted(reports.glob("*/traces/*.jsonl"))
    assert len(traces) >= 8, f"the run kept {len(traces)} traces"
    kept = [event for path in traces for event in events(path)]
    assert [error for path in traces for error in schema_errors(path)] == []
    assert {e["transport"] for e in kept} == {"stdio", "streamable-http", "sse"}
    assert {(e["direction"], e["kind"]) for e in kept} >= {
        (direction, kind) for direction in ("client-to-server", "server-to-client") for kind in ("message", "http")
    }
    sessions = {e["headers"]["mcp-session-id"] for e in kept if "mcp-session-id" in e.get("headers", {})}
    assert sessions, "no trace shows a session id"
    assert all(session.startswith(PSEUDONYM_PREFIX) for session in sessions), sessions


def test_a_path_keeps_its_bytes_unless_its_query_names_a_session(tmp_path: Path) -> None:
    trace = Trace(tmp_path / "t.jsonl", "sse")
    trace.record("client-to-server", "http", method="POST", path="/messages/?sessionId=abc&q=a%20b", headers={})
    trace.record("client-to-server", "http", method="POST", path="/mcp?q=a%20b", headers={})
    trace.close()
    with_session, without = events(trace.path)
    assert with_session["path"] == f"/messages/?sessionId={trace.pseudonym('abc')}&q=a+b"
    assert without["path"] == "/mcp?q=a%20b"


def test_an_oauth_credentials_value_is_redacted_and_its_name_kept(tmp_path: Path) -> None:
    """A code, token, secret or verifier, in a query, a redirect's Location or a body, is written as
    ``redacted``; the parameter's name stays (a check asks whether a token rode in a query), and a JSON-RPC
    body or one with no credential keeps its bytes."""
    trace = Trace(tmp_path / "t.jsonl", "streamable-http")
    trace.record("client-to-server", "http", method="GET", path="/mcp?access_token=tok-1&x=1", headers={})
    trace.record(
        "server-to-client", "http", method="GET", status=302, headers={"Location": "http://c/cb?code=code-1&state=s"}
    )
    form = "grant_type=authorization_code&code=code-1&code_verifier=ver-1&client_secret=sec-1"
    trace.record("client-to-server", "http", method="POST", path="/token", headers={}, body=form)
    answer = json.dumps({"access_token": "tok-2", "refresh_token": "ref-1", "token_type": "Bearer"})
    trace.record("server-to-client", "http", method="POST", path="/token", status=200, headers={}, body=answer)
    rpc = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"access_token": "not a credential here"}})
    trace.record("server-to-client", "http", method="POST", path="/mcp", status=200, headers={}, body=rpc)
    trace.close()
    for secret in ("tok-1", "tok-2", "code-1", "ver-1", "sec-1", "ref-1"):
        assert secret not in trace.path.read_text(encoding="utf-8")
    query, redirect, token_form, token_answer, message = events(trace.path)
    assert query["path"] == "/mcp?access_token=redacted&x=1"
    assert redirect["headers"]["location"] == "http://c/cb?code=redacted&state=s"
    assert token_form["body"] == (
        "grant_type=authorization_code&code=redacted&code_verifier=redacted&client_secret=redacted"
    )
    assert json.loads(token_answer["body"]) == {
        "access_token": "redacted",
        "refresh_token": "redacted",
        "token_type": "Bearer",
    }
    assert message["body"] == rpc
    assert schema_errors(trace.path) == []


def test_a_session_id_outside_visible_ascii_keeps_that_property_in_its_pseudonym(tmp_path: Path) -> None:
    trace = Trace(tmp_path / "t.jsonl", "streamable-http")
    visible, spaced = trace.pseudonym("abc-123"), trace.pseudonym("abc 123")
    trace.close()
    assert all("\x21" <= c <= "\x7e" for c in visible)
    assert spaced.startswith(PSEUDONYM_PREFIX) and not all("\x21" <= c <= "\x7e" for c in spaced)
    assert "abc" not in spaced
