"""Which revision a trace is judged at: the initialize result, then the requests' _meta, then the
MCP-Protocol-Version header; --revision only for a trace that names none, with a note when it differs."""

from __future__ import annotations

from typing import Any

from conformance.validator import registry
from conformance.validator.revision import infer

KNOWN = registry.revisions()


def message(direction: str, payload: dict) -> dict[str, Any]:
    return {"seq": 0, "direction": direction, "transport": "streamable-http", "kind": "message", "payload": payload}


def initialize(asked: str, answered: str | None) -> list[dict]:
    events = [
        message(
            "client-to-server",
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": asked}},
        )
    ]
    if answered:
        events.append(message("server-to-client", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": answered}}))
    return events


def modern_request(version: str) -> dict:
    meta = {"io.modelcontextprotocol/protocolVersion": version}
    return message("client-to-server", {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}})


def post(version: str) -> dict:
    return {
        "seq": 0,
        "direction": "client-to-server",
        "transport": "streamable-http",
        "kind": "http",
        "method": "POST",
        "headers": {"MCP-Protocol-Version": version},
    }


def test_the_initialize_result_decides() -> None:
    inference = infer(initialize("2025-11-25", "2025-06-18"), KNOWN, None)
    assert inference.revision == "2025-06-18" and "initialize result" in inference.evidence


def test_a_modern_session_is_read_from_its_meta() -> None:
    assert infer([modern_request("2026-07-28")], KNOWN, None).revision == "2026-07-28"


def test_the_header_decides_when_nothing_else_does() -> None:
    assert infer([post("2025-03-26")], KNOWN, None).revision == "2025-03-26"


def test_a_metadata_documents_header_does_not_decide() -> None:
    """An OAuth client may name another version in its metadata requests (the SDK names its latest: F-311);
    the session's revision is its endpoint's, the path its POSTs go to."""
    endpoint = [post("2025-11-25") | {"path": "/mcp"}] * 2
    metadata = [post("2026-07-28") | {"method": "GET", "path": path} for path in ("/prm", "/.well-known/as", "/x")]
    assert infer(endpoint + metadata, KNOWN, None).revision == "2025-11-25"


def test_an_unanswered_initialize_names_what_was_asked() -> None:
    assert infer(initialize("2025-03-26", None), KNOWN, None).revision == "2025-03-26"


def test_disagreeing_sources_are_noted() -> None:
    inference = infer([*initialize("2025-06-18", "2025-06-18"), post("2025-11-25")], KNOWN, None)
    assert inference.revision == "2025-06-18" and any("several revisions" in note for note in inference.notes)


def test_an_asked_revision_decides_only_for_a_trace_naming_none() -> None:
    assert infer([], KNOWN, "2024-11-05").revision == "2024-11-05"
    inference = infer(initialize("2025-06-18", "2025-06-18"), KNOWN, "2024-11-05")
    assert inference.revision == "2025-06-18"
    assert any("--revision 2024-11-05 was asked for" in note for note in inference.notes)


def test_an_unknown_version_is_noted_and_judges_nothing() -> None:
    inference = infer(initialize("1999-01-01", "1999-01-01"), KNOWN, None)
    assert inference.revision is None and any("1999-01-01" in note for note in inference.notes)
