"""The MCP Apps checks (conformance/validator/checks/apps.py) where the corpus does not reach: who is a host
when the trace does not hold the client's capabilities, what reads as an HTML5 document and as an origin."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.validator.checks.apps import html5_document_problem, origin_problem
from conformance.validator.outcomes import Trace, judge
from conformance.validator.reader import Event
from tests.validator import corpus

REVISION = "2025-11-25"
UI_TOOL = {
    "name": "counter",
    "inputSchema": {"type": "object"},
    "_meta": {"ui": {"resourceUri": "ui://example/counter.html"}},
}
HOST = {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}


def session(capabilities: dict | None) -> list[Event]:
    """A 2025-11-25 stdio session listing a UI-linked tool and calling it; opened by an initialize declaring
    ``capabilities``, or (None) recorded from after the handshake, as a capture begun mid-session is."""
    events = []
    if capabilities is not None:
        events += [
            corpus.client_message(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": REVISION,
                        "capabilities": capabilities,
                        "clientInfo": {"name": "client", "version": "1"},
                    },
                }
            ),
            corpus.server_message(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "result": {
                        "protocolVersion": REVISION,
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "server", "version": "1"},
                    },
                }
            ),
            corpus.client_message({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ]
    call = {"name": "counter", "arguments": {}}
    events += [
        corpus.client_message({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        corpus.server_message({"jsonrpc": "2.0", "id": 1, "result": {"tools": [UI_TOOL]}}),
        corpus.client_message({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}),
        corpus.server_message({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "0"}]}}),
    ]
    return corpus.renumber(events)


def outcomes(events: list[Event]) -> dict[str, Any]:
    report = judge([Trace("apps", events)], REVISION, side="server")["traces"][0]
    return {r["id"]: (r["outcome"], r["subjects"]) for r in report["requirements"] if r["id"].startswith("apps-")}


def test_a_client_without_the_extension_is_held_to_the_fallback_rows() -> None:
    found = outcomes(session({}))
    assert found["apps-server-check-host-capability"] == ("warn", 1)  # the UI link listed to it
    assert found["apps-server-text-fallback"] == ("pass", 1)
    assert found["apps-tool-input-schema"][0] == "not-applicable"  # no host in the session


def test_a_host_is_held_to_the_apps_rows_and_not_to_the_fallback_rows() -> None:
    found = outcomes(session(HOST))
    assert found["apps-tool-input-schema"] == ("pass", 1)
    assert found["apps-tool-result-content"] == ("pass", 1)
    assert found["apps-server-check-host-capability"] == ("not-observed", 0)
    assert found["apps-server-text-fallback"] == ("not-observed", 0)


def test_a_session_recorded_without_its_handshake_judges_neither() -> None:
    found = outcomes(session(None))
    assert found["apps-server-check-host-capability"] == ("not-observed", 0)
    assert found["apps-server-text-fallback"] == ("not-observed", 0)
    assert found["apps-tool-input-schema"][0] == "not-applicable"


@pytest.mark.parametrize(
    ("document", "is_one"),
    [
        ("<!DOCTYPE html><html><body></body></html>", True),
        ("\ufeff  <!-- generated --> <!doctype HTML>\n<title>t</title><p>no html tag</p>", True),
        ("<!DOCTYPE html><script>const s = '<html>';</script>", True),  # script text holds no tags
        ("<p>a fragment</p>", False),
        ("<html><!DOCTYPE html></html>", False),
        ("<!DOCTYPE html><html></html><html></html>", False),
        ("<!DOCTYPE html PUBLIC '-//W3C//DTD HTML 4.01//EN'><!DOCTYPE html>", False),
        ("", False),
    ],
)
def test_an_html5_document_is_told_from_other_text(document: str, is_one: bool) -> None:
    assert (html5_document_problem(document) is None) == is_one


@pytest.mark.parametrize(
    ("entry", "is_one"),
    [
        ("https://api.example.com", True),
        ("https://*.example.com", True),
        ("wss://realtime.example.com:8443", True),
        ("http://[::1]:8080", True),
        ("https://example.com/", False),
        ("https://example.com/path", False),
        ("example.com", False),
        ("https://user@example.com", False),
        ("https://example.com:70000", False),
        (["https://example.com"], False),
    ],
)
def test_an_origin_is_told_from_other_entries(entry: Any, is_one: bool) -> None:
    assert (origin_problem(entry) is None) == is_one
