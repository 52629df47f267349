"""Any trace the reader accepts is judged without a crash, however odd its payloads: a check reads what
the session holds, never what it assumes a message holds."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.validator.outcomes import Trace, judge

METHODS = st.sampled_from(
    [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
        "prompts/get",
        "resources/read",
        "ping",
        "notifications/progress",
        "notifications/cancelled",
        "elicitation/create",
        "sampling/createMessage",
        "roots/list",
        "tasks/get",
        "server/discover",
        "completion/complete",
        "x/unknown",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
IDS = st.integers(0, 3) | st.sampled_from(["a", "b", None, 1.5, True, [1]])
PARAMS = st.fixed_dictionaries(
    {},
    optional={
        "protocolVersion": st.sampled_from(["2024-11-05", "2025-06-18", "2025-11-25", "1999-01-01"]) | SCALARS,
        "capabilities": VALUES,
        "_meta": st.dictionaries(
            st.sampled_from(["progressToken", "a..b/c", "io.modelcontextprotocol/protocolVersion"]), VALUES
        ),
        "cursor": SCALARS,
        "requestId": IDS,
        "progressToken": IDS,
        "progress": SCALARS,
        "task": VALUES,
        "mode": st.sampled_from(["form", "url"]) | SCALARS,
        "name": SCALARS,
        "tools": VALUES,
    },
)
FRAMES = (
    st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "method": METHODS}, optional={"id": IDS, "params": PARAMS | VALUES}
    )
    | st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "id": IDS},
        optional={
            "result": VALUES
            | st.fixed_dictionaries(
                {},
                optional={
                    "protocolVersion": SCALARS,
                    "capabilities": VALUES,
                    "tools": VALUES,
                    "messages": VALUES,
                    "contents": VALUES,
                    "nextCursor": SCALARS,
                    "roots": VALUES,
                    "task": VALUES,
                },
            ),
            "error": VALUES,
        },
    )
    | VALUES
)
HEADERS = st.dictionaries(
    st.sampled_from(["Mcp-Session-Id", "MCP-Protocol-Version", "content-type", "accept", "mcp-method", "mcp-name"]),
    st.text(max_size=12) | st.sampled_from(["text/event-stream", "application/json", "2025-06-18"]),
    max_size=4,
)
EVENTS = st.lists(
    st.one_of(
        st.builds(
            lambda d, p, t: {"direction": d, "kind": "message", "payload": p, "transport": t},
            st.sampled_from(["client-to-server", "server-to-client"]),
            FRAMES | st.lists(FRAMES, max_size=3),
            st.sampled_from(["stdio", "streamable-http", "sse"]),
        ),
        st.builds(
            lambda m, h: {
                "direction": "client-to-server",
                "kind": "http",
                "method": m,
                "headers": h,
                "transport": "streamable-http",
            },
            st.sampled_from(["POST", "GET", "DELETE"]),
            HEADERS,
        ),
        st.builds(
            lambda m, s, h: {
                "direction": "server-to-client",
                "kind": "http",
                "method": m,
                "status": s,
                "headers": h,
                "transport": "streamable-http",
            },
            st.sampled_from(["POST", "GET", "DELETE"]),
            st.sampled_from([200, 202, 400, 404, 405]),
            HEADERS,
        ),
    ),
    max_size=14,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(EVENTS, st.sampled_from([None, "2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28"]))
def test_any_accepted_trace_is_judged_without_a_crash(events: list[dict], revision: str | None) -> None:
    for seq, event in enumerate(events, 1):
        event["seq"] = seq
    document = judge([Trace("fuzz.jsonl", events)], revision)
    assert document["exit_code"] in (0, 1, 2)
