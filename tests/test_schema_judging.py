"""The schema rows' check, on frames recorded from the fixture server (mcp 2.3.0, a 2025-06-18 tour).

Planted breaches fail the row of their message type, naming the frame: a tools/call result without
``content`` (schema-call-tool-result), a resource content item without ``uri``
(schema-read-resource-result), a log message whose ``level`` is not one of the eight
(schema-logging-message-notification). A member the revision does not define fails no schema row:
it is named only by the check of the revision-keeping rows. The covers' faults, applied to the same
frames, make their rows fail too (what ``make falsify`` relies on).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from conformance.harness.faults import drop_field, set_field
from conformance.harness.tour import Tour, breaches, undefined_in

REVISION = "2025-06-18"
RECORDED: list[dict[str, Any]] = [  # as the server sent them, in order (requests it answered: ANSWERED)
    {"jsonrpc": "2.0", "id": "tour-1", "result": {}},
    {
        "jsonrpc": "2.0",
        "id": "tour-9",
        "result": {
            "contents": [
                {
                    "mimeType": "text/plain",
                    "text": "This is the content of the static text resource.",
                    "uri": "test://static-text",
                }
            ]
        },
    },
    {
        "jsonrpc": "2.0",
        "id": "tour-16",
        "result": {
            "content": [{"text": "This is a simple text response for testing.", "type": "text"}],
            "isError": False,
        },
    },
    {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "logger": "mcp-matrix-fixture", "data": "Tool execution started"},
    },
]
ANSWERED = {"tour-1": "ping", "tour-9": "resources/read", "tour-16": "tools/call"}


def tour(frames: list[dict[str, Any]] | None = None) -> Tour:
    return Tour(
        REVISION,
        "server",
        frames=copy.deepcopy(RECORDED if frames is None else frames),
        answered={json.dumps(request_id): method for request_id, method in ANSWERED.items()},
    )


def planted(index: int, change: Any) -> Tour:
    frames = copy.deepcopy(RECORDED)
    change(frames[index])
    return tour(frames)


def test_the_recorded_frames_are_each_of_their_definition_and_valid() -> None:
    recorded = tour()
    assert [m.definition for m in recorded.messages()] == [
        "Result",
        "ReadResourceResult",
        "CallToolResult",
        "LoggingMessageNotification",
    ]
    for definition in ("Result", "ReadResourceResult", "CallToolResult", "LoggingMessageNotification"):
        assert breaches(recorded, definition) == []


@pytest.mark.parametrize(
    ("index", "change", "definition", "named"),
    [
        pytest.param(
            2,
            lambda f: f["result"].pop("content"),
            "CallToolResult",
            "'content' is a required property",
            id="tool-result-without-content",
        ),
        pytest.param(
            1,
            lambda f: f["result"]["contents"][0].pop("uri"),
            "ReadResourceResult",
            "'uri' is a required property",
            id="resource-content-without-uri",
        ),
        pytest.param(
            3,
            lambda f: f["params"].update(level="loud"),
            "LoggingMessageNotification",
            "'loud' is not one of",
            id="log-level-not-one-of-eight",
        ),
    ],
)
def test_a_planted_breach_fails_the_row_of_its_message_type(
    index: int, change: Any, definition: str, named: str
) -> None:
    found = breaches(planted(index, change), definition)
    assert len(found) == 1 and named in found[0], found
    assert f"frame #{index} ({definition})" in found[0]  # the frame is named
    others = {"Result", "ReadResourceResult", "CallToolResult", "LoggingMessageNotification"} - {definition}
    assert all(breaches(planted(index, change), other) == [] for other in others)  # and no other row fails


def test_an_undefined_member_fails_only_the_revision_rows() -> None:
    damaged = planted(2, lambda f: f["result"]["content"][0].update(mcpMatrixUndefined=True))
    assert breaches(damaged, "CallToolResult") == []
    (message,) = damaged.of("CallToolResult")
    assert undefined_in(REVISION, message) == ["CallToolResult: content.0.mcpMatrixUndefined"]


@pytest.mark.parametrize(
    ("proposed", "expected"),
    [
        pytest.param("2025-11-25", [], id="proposed-revision-defines-it"),
        pytest.param("2024-11-05", ["InitializeRequest: params.capabilities.elicitation"], id="proposed-lacks-it"),
        pytest.param("2099-01-01", [], id="unknown-proposal-not-judged"),
    ],
)
def test_the_initialize_request_is_held_to_the_revision_it_proposes(proposed: str, expected: list[str]) -> None:
    """Sent before a revision is agreed, the client's initialize is judged by the revision it proposes, even in
    a session that settles on 2024-11-05 (a version the suite does not know: nothing to judge it by)."""
    frame = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": proposed,
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "c", "version": "1"},
        },
    }
    (message,) = Tour("2024-11-05", "client", frames=[frame]).of("InitializeRequest")
    assert undefined_in("2024-11-05", message) == expected


@pytest.mark.parametrize(
    ("fault", "definition"),
    [
        pytest.param(drop_field("tools/call", "result.content"), "CallToolResult", id="tools-call"),
        pytest.param(drop_field("resources/read", "result.contents"), "ReadResourceResult", id="resources-read"),
        pytest.param(
            set_field("notifications/message", "params.level", "loud"), "LoggingMessageNotification", id="log"
        ),
        pytest.param(set_field("ping", "result._meta", "not an object"), "Result", id="empty-result"),
    ],
)
def test_a_covers_fault_applied_to_the_recorded_frames_fails_its_row(fault: Any, definition: str) -> None:
    recorded = tour()
    assert breaches(recorded, definition) == []
    assert breaches(recorded, definition, fault)
