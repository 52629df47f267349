"""Builders for the frames the harness sends, one place for each shape."""

from __future__ import annotations

from typing import Any

CLIENT_INFO = {"name": "mcp-matrix", "version": "0.1.0"}
UNKNOWN_VERSION = "1999-01-01"  # a date no revision has or will have
UNKNOWN_METHOD = "mcp-matrix/no-such-method"
# The request every revision defines and every server answers: ping, or server/discover at 2026-07-28.
PROBE_METHODS = ("ping", "server/discover")
# Requirements about the session or the messages hold over every transport the server offers.
BOTH_TRANSPORTS = ("stdio", "streamable-http")
# The same with 2024-11-05's HTTP+SSE, for tests that hold it too: for_req gives each revision only the
# transports it defines (vocabulary.TRANSPORT_REVISIONS), so HTTP+SSE cells appear at 2024-11-05 alone.
ALL_TRANSPORTS = (*BOTH_TRANSPORTS, "http+sse")
# Text outside ASCII, for the cells about encoding: Latin-1, CJK, an emoji and a clef (both astral-plane).
NON_ASCII_TEXT = "caf\u00e9 \u65e5\u672c\u8a9e \U0001f642 \U0001d11e"


def initialize_params(protocol_version: str, capabilities: dict | None = None) -> dict[str, Any]:
    return {"protocolVersion": protocol_version, "capabilities": capabilities or {}, "clientInfo": CLIENT_INFO}


def modern_meta(protocol_version: str, capabilities: dict | None = None) -> dict[str, Any]:
    """The per-request ``_meta`` envelope of 2026-07-28's stateless model."""
    return {
        "io.modelcontextprotocol/protocolVersion": protocol_version,
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": capabilities or {},
    }


# The client driver's contract (conformance/fixtures/client.py), as the official suite runs clients.
SCENARIO_VARIABLE = "MCP_CONFORMANCE_SCENARIO"
REVISION_VARIABLE = "MCP_MATRIX_REVISION"
# A scenario whose client talks to two servers (``aggregate_two_servers``): the second one's URL, the first
# being the last argument as ever; each server a listener and a trace of its own.
SECOND_SERVER_VARIABLE = "MCP_MATRIX_SECOND_SERVER"
REPORT_PREFIX = "mcp-matrix: "  # a line the client driver prints for its application (``ClientRun.report``)
COMPLETED = f"{REPORT_PREFIX}scenario completed"  # the last line on stdout of a scenario that ran to its end
# A client driver whose client library lacks what a scenario needs prints this, then why, and exits 0:
# the run is fixture-missing (conformance/run/plugin.py run_client_process), never pass, fail or inconclusive.
UNSUPPORTED = f"{REPORT_PREFIX}scenario unsupported "

# 2026-07-28: the _meta key in which a request declares the client's capabilities for that request.
CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
