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
COMPLETED = "mcp-matrix: scenario completed"  # the last line on stdout of a scenario that ran to its end
