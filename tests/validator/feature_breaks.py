"""The violation traces of the transport, lifecycle, message and server-feature checks (checks/features.py
and the later checks of checks/http.py and checks/lifecycle.py): check name -> (the conforming trace it
breaks, the break). corpus.py merges them into its BREAKS."""

from __future__ import annotations

from typing import Any

from tests.validator.corpus import (
    C2S,
    S2C,
    Break,
    Event,
    after,
    client_message,
    first,
    frames,
    http_events,
    initialize_result,
    is_request,
    is_result_of,
    server_message,
    set_header,
)

TOUR_2025_06_18 = "schema-tour-server-2025-06-18-stdio.jsonl"
TOUR_2025_11_25 = "schema-tour-server-2025-11-25-stdio.jsonl"
MODERN_TOUR = "schema-tour-server-2026-07-28-stdio.jsonl"
SESSION_DELETE = "session-delete-2025-03-26-streamable-http.jsonl"


def _first_tools(events: list[Event]) -> list[dict]:
    return first(events, is_result_of(events, "tools/list"))[1]["result"]["tools"]


def _first_structured_call(events: list[Event]) -> dict:
    return first(events, lambda f: "structuredContent" in (f.get("result") or {}))[1]["result"]


def _embed_a_resource(events: list[Event]) -> None:
    _, frame = first(events, is_result_of(events, "tools/call"), S2C)
    frame["result"]["content"].append({"type": "resource", "resource": {"uri": "file:///a.txt", "text": "a"}})
    initialize_result(events)["capabilities"].pop("resources", None)


def _list_tools_again_reversed(events: list[Event]) -> None:
    index, frame = first(events, is_result_of(events, "tools/list"), S2C)
    request = first(events, is_request("tools/list"), C2S)[1]
    again = {**request, "id": "listed-again"}
    tools = list(reversed(frame["result"]["tools"]))
    assert len(tools) > 1, "the base trace lists one tool: no order to break"
    answer = {"jsonrpc": "2.0", "id": "listed-again", "result": {**frame["result"], "tools": tools}}
    after(events, index, client_message(again, events[index]["transport"]))
    after(events, index + 1, server_message(answer, events[index]["transport"]))


def _prompt_get(events: list[Event]) -> dict:
    return first(events, is_request("prompts/get"), C2S)[1]


def _require_an_argument(events: list[Event]) -> None:
    """The listed prompt that the first prompts/get names gains a required argument the get leaves out."""
    name = _prompt_get(events)["params"]["name"]
    for _, frame in frames(events, S2C):
        for prompt in (frame.get("result") or {}).get("prompts") or [] if isinstance(frame.get("result"), dict) else []:
            if prompt.get("name") == name:
                prompt["arguments"] = [*prompt.get("arguments", []), {"name": "needed", "required": True}]


def _refuse_discover(events: list[Event]) -> None:
    index, frame = first(events, is_result_of(events, "server/discover"), S2C)
    events[index]["payload"] = {"jsonrpc": "2.0", "id": frame["id"], "error": {"code": -32601, "message": "no"}}


def _unanswered_batch(events: list[Event]) -> None:
    index = first(events, lambda f: f.get("method") == "notifications/initialized", C2S)[0]
    batch = [
        {"jsonrpc": "2.0", "id": "batched-1", "method": "ping"},
        {"jsonrpc": "2.0", "id": "batched-2", "method": "ping"},
    ]
    after(events, index, client_message(batch, events[index]["transport"]))


def _post_status(events: list[Event], status: int) -> None:
    http_events(events, S2C, "POST")[-1]["status"] = status


def _post_without_session_id(events: list[Event]) -> None:
    """The notifications/initialized POST loses its session id; the server takes it (202) all the same."""
    post = http_events(events, C2S, "POST")[1]
    for key in [k for k in post["headers"] if k.lower() == "mcp-session-id"]:
        del post["headers"][key]


def _post_on_a_session_gone(events: list[Event]) -> None:
    gone = http_events(events, C2S, "DELETE")[-1]
    post = {**http_events(events, C2S, "POST")[-1], "headers": dict(gone["headers"])}
    set_header(post, "Content-Type", "application/json")
    events.append(post)


def _mixed_batch(events: list[Event]) -> None:
    index, frame = first(events, lambda f: f.get("method") == "notifications/initialized", C2S)
    events[index]["payload"] = [frame, {"jsonrpc": "2.0", "id": "stray", "result": {}}]


def _refuse_initialize(events: list[Event]) -> None:
    request: dict[str, Any] = {"jsonrpc": "2.0", "id": "legacy", "method": "initialize", "params": {}}
    refusal = {"jsonrpc": "2.0", "id": "legacy", "error": {"code": -32600, "message": "initialize is not spoken here"}}
    index = first(events, is_request(), C2S)[0] - 1
    after(events, index, client_message(request, events[index + 1]["transport"]))
    after(events, index + 1, server_message(refusal, events[index + 1]["transport"]))


MODERN_HTTP = "prompts-2026-07-28-streamable-http.jsonl"
HTTP = "streamable-http"
ANNOTATED_TOOL = {
    "name": "mirror",
    "inputSchema": {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
        },
    },
}


def _exchange(events: list[Event], request: dict, headers: dict[str, str], answer: dict) -> None:
    """A request POSTed with ``headers`` (the message, then its POST), answered 200 with ``answer``."""
    meta = events[0]["payload"]["params"]["_meta"]
    request = {**request, "params": {**request.get("params", {}), "_meta": meta}}
    post_headers = {"Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28", **headers}
    events.append(client_message(request, HTTP))
    events.append({**http_events(events, C2S, "POST")[0], "headers": post_headers})
    events.append({**http_events(events, S2C, "POST")[0], "headers": {"content-type": "application/json"}})
    events.append(server_message({"jsonrpc": "2.0", "id": request["id"], **answer}, HTTP))


def _call_annotated_tool(arguments: dict[str, Any], headers: dict[str, str], answer: dict | None = None) -> Break:
    """Lists a tool with three x-mcp-header parameters, then calls it with ``arguments`` under ``headers``,
    answered with ``answer`` (a result, unless given)."""

    def call(events: list[Event]) -> None:
        listing = {"result": {"tools": [ANNOTATED_TOOL]}}
        _exchange(
            events, {"jsonrpc": "2.0", "id": "list", "method": "tools/list"}, {"Mcp-Method": "tools/list"}, listing
        )
        request = {
            "jsonrpc": "2.0",
            "id": "call",
            "method": "tools/call",
            "params": {"name": "mirror", "arguments": arguments},
        }
        called = answer or {"result": {"content": [{"type": "text", "text": "ok"}]}}
        _exchange(events, request, {"Mcp-Method": "tools/call", "Mcp-Name": "mirror", **headers}, called)

    return call


def _refuse_version(supported: list[str] | None, retried: bool) -> Break:
    """A tools/list of version 1999-01-01 refused with -32022 (``supported`` in its data, if given); then, if
    ``retried``, the same request again naming 2026-07-28, which the list does not hold."""

    def refuse(events: list[Event]) -> None:
        data = {"requested": "1999-01-01"} | ({"supported": supported} if supported is not None else {})
        refusal = {"error": {"code": -32022, "message": "unsupported protocol version", "data": data}}
        request = {"jsonrpc": "2.0", "id": "old", "method": "tools/list"}
        _exchange(events, request, {"Mcp-Method": "tools/list"}, refusal)
        events[-4]["payload"]["params"]["_meta"] = {
            **events[-4]["payload"]["params"]["_meta"],
            "io.modelcontextprotocol/protocolVersion": "1999-01-01",
        }
        if retried:
            retry = {"jsonrpc": "2.0", "id": "retried", "method": "tools/list"}
            _exchange(events, retry, {"Mcp-Method": "tools/list"}, {"result": {"tools": []}})

    return refuse


REISSUE = "reissue-2026-07-28-streamable-http.jsonl"  # its server/discover lists 2026-07-28 alone
HEADER_MISMATCH = {"error": {"code": -32020, "message": "header mismatch: Mcp-Param-Region"}}


def _get_served(events: list[Event]) -> None:
    events.append({**http_events(events, C2S, "POST")[0], "method": "GET", "headers": {"Accept": "text/event-stream"}})
    events.append({**http_events(events, S2C, "POST")[0], "method": "GET", "headers": {}, "status": 200})


def _session_id_issued(events: list[Event]) -> None:
    set_header(http_events(events, S2C, "POST")[0], "Mcp-Session-Id", "pseudonym-0123456789abcdef")


def _request_before_discover(events: list[Event]) -> None:
    index = first(events, is_request("server/discover"), C2S)[0] - 1
    after(events, index, client_message({"jsonrpc": "2.0", "id": "early", "method": "tools/list"}))


def _request_before_discover_then_initialize(events: list[Event]) -> None:
    """No probe first, from a client that shows in a later session that it speaks an initialize-based revision."""
    _request_before_discover(events)
    events.append({"seq": 0, "direction": C2S, "transport": "stdio", "kind": "lifecycle", "event": "spawn", "pid": 1})
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcp-matrix", "version": "0"}}
    events.append(client_message({"jsonrpc": "2.0", "id": "legacy", "method": "initialize", "params": params}))


FEATURE_BREAKS = {
    "tool-name-characters": (TOUR_2025_11_25, lambda ev: _first_tools(ev)[0].update(name="bad name, really")),
    "tool-name-length": (TOUR_2025_11_25, lambda ev: _first_tools(ev)[0].update(name="t" * 129)),
    "tool-names-unique": (TOUR_2025_11_25, lambda ev: _first_tools(ev).append(dict(_first_tools(ev)[0]))),
    "structured-content-mirrored-in-text": (
        TOUR_2025_06_18,
        lambda ev: _first_structured_call(ev).update(content=[{"type": "text", "text": "not the JSON"}]),
    ),
    "embedded-resources-need-the-capability": (TOUR_2025_06_18, _embed_a_resource),
    "tool-listings-keep-their-order": (MODERN_TOUR, _list_tools_again_reversed),
    "unknown-prompt-refused": (TOUR_2025_06_18, lambda ev: _prompt_get(ev)["params"].update(name="never-listed")),
    "missing-prompt-arguments-refused": (TOUR_2025_06_18, _require_an_argument),
    "discover-answered": ("reissue-2026-07-28-streamable-http.jsonl", _refuse_discover),
    "batches-answered": ("schema-tour-server-2025-03-26-stdio.jsonl", _unanswered_batch),
    "endpoint-accepts-post": ("schema-tour-server-2025-06-18-streamable-http.jsonl", lambda ev: _post_status(ev, 405)),
    "sse-server-takes-posts": ("sse-2024-11-05.jsonl", lambda ev: _post_status(ev, 405)),
    "missing-session-id-answered-400": (SESSION_DELETE, _post_without_session_id),
    "no-request-on-a-session-gone": (SESSION_DELETE, _post_on_a_session_gone),
    "post-batch-shape": ("schema-tour-server-2025-03-26-streamable-http.jsonl", _mixed_batch),
    "initialize-refusal-names-versions": (MODERN_TOUR, _refuse_initialize),
    "annotated-integers-in-safe-range": (
        MODERN_HTTP,
        _call_annotated_tool({"count": 2**60}, {"Mcp-Param-Count": str(2**60)}),
    ),
    "annotated-arguments-mirrored": (MODERN_HTTP, _call_annotated_tool({"region": "eu"}, {})),
    "absent-arguments-not-mirrored": (MODERN_HTTP, _call_annotated_tool({"region": None}, {"Mcp-Param-Region": "eu"})),
    "mirrored-values-encoded": (MODERN_HTTP, _call_annotated_tool({"flag": True}, {"Mcp-Param-Flag": "True"})),
    "sentinel-lookalikes-wrapped": (
        MODERN_HTTP,
        _call_annotated_tool({"region": "=?base64?ZXU=?="}, {"Mcp-Param-Region": "=?base64?ZXU=?="}),
    ),
    "stdio-client-probes-first": (MODERN_TOUR, _request_before_discover_then_initialize),
    "stdio-modern-client-probes-first": (MODERN_TOUR, _request_before_discover),
    "missing-param-header-refused": (MODERN_HTTP, _call_annotated_tool({"region": "eu"}, {})),
    "absent-param-header-not-demanded": (MODERN_HTTP, _call_annotated_tool({}, {}, HEADER_MISMATCH)),
    "mismatched-header-refused": (MODERN_HTTP, _call_annotated_tool({"region": "eu"}, {"Mcp-Param-Region": "us"})),
    "modern-only-get-delete-405": (REISSUE, _get_served),
    "modern-only-no-session-id": (REISSUE, _session_id_issued),
    "unsupported-version-lists-supported": (MODERN_HTTP, _refuse_version(None, retried=False)),
    "retry-with-a-supported-version": (MODERN_HTTP, _refuse_version(["2099-01-01"], retried=True)),
}
