"""Conforming sessions in which a refusal, a retry or a rarely taken path happens and is done right, so that
every check passes at least one subject on some conforming trace (a check that flagged every subject would
otherwise go unnoticed). Each builder starts from a conforming trace of the corpus (or from nothing) and adds
the exchanges it shows.

A refusal needs a request that deserves one: the other side sends it on purpose, and the trace says so with a
``lifecycle`` ``deliberate`` event (direction: the side acting on purpose) before it, as the harness does. Such
a trace is judged for the side under test only (``side_under_test``): the deliberate side's own rows are not
its subject (docs/validator.md, "--side"). A trace without a ``deliberate`` event is judged for both sides.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable
from typing import Any

from conformance.validator.reader import read_trace
from tests.validator.corpus import (
    C2S,
    CONFORMING,
    S2C,
    Event,
    _event,
    _http,
    _related,
    _task,
    renumber,
)
from tests.validator.feature_breaks import ANNOTATED_TOOL

HTTP = "streamable-http"
MODERN = "2026-07-28"
MODERN_HTTP = "prompts-2026-07-28-streamable-http.jsonl"  # a 2026-07-28 client and server over HTTP, no handshake
MODERN_ONLY_HTTP = "reissue-2026-07-28-streamable-http.jsonl"  # its server/discover lists 2026-07-28 alone
ACTED_BY = {C2S: "client", S2C: "server"}
OTHER_SIDE = {"client": "server", "server": "client"}


def base(name: str) -> list[Event]:
    """A conforming trace of the corpus, without its closing lifecycle event (added back by ``closed``)."""
    events = copy.deepcopy(read_trace(str(CONFORMING / name)))
    return [e for e in events if not (e["kind"] == "lifecycle" and e.get("event") == "close")]


def closed(events: list[Event]) -> list[Event]:
    events.append(_event(C2S, events[0]["transport"], kind="lifecycle", event="close"))
    return renumber(events)


def deliberate(events: list[Event], direction: str, what: str) -> None:
    """Marks the next message as the ``direction`` side's deliberate act, as the harness does."""
    events.append(_event(direction, events[0]["transport"], kind="lifecycle", event="deliberate", detail=what))


def side_under_test(events: list[Event]) -> str | None:
    """The side a conforming trace is judged for: the other side of the one acting deliberately in it (None:
    both sides; a trace whose two sides both act deliberately shows nothing)."""
    acting = {ACTED_BY[e["direction"]] for e in events if e["kind"] == "lifecycle" and e.get("event") == "deliberate"}
    assert len(acting) <= 1, "both sides act deliberately: neither is under test"
    return OTHER_SIDE[acting.pop()] if acting else None


# -- 2026-07-28 over HTTP: every request names its version, capabilities and client in _meta ---------------


def _modern_meta(events: list[Event]) -> dict:
    return copy.deepcopy(events[0]["payload"]["params"]["_meta"])


def _post(
    events: list[Event],
    request: dict,
    answer: dict,
    status: int = 200,
    headers: dict[str, str] | None = None,
    meta: dict | None = None,
) -> None:
    """A client request (with the session's _meta unless ``meta``) POSTed with its Mcp-Method (and Mcp-Name)
    header, answered under HTTP ``status`` with ``answer`` (a result or an error)."""
    request = copy.deepcopy(request)
    request.setdefault("params", {})["_meta"] = _modern_meta(events) if meta is None else meta
    version = request["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion", MODERN)
    named = request["params"].get("name")
    post_headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": version,
        "Mcp-Method": request["method"],
        **({"Mcp-Name": named} if isinstance(named, str) else {}),
        **(headers or {}),
    }
    events += [
        _event(C2S, HTTP, kind="message", payload=request),
        _http(C2S, HTTP, "POST", post_headers),
        _http(S2C, HTTP, "POST", {"content-type": "application/json"}, status=status),
        _event(S2C, HTTP, kind="message", payload={"jsonrpc": "2.0", "id": request["id"], **_modern(events, answer)}),
    ]


def _modern(events: list[Event], answer: dict) -> dict:
    """A 2026-07-28 result carries its resultType and the server's serverInfo (as the base trace's first result
    does), a listing its cacheScope and ttlMs; an error stays as it is."""
    if "result" not in answer:
        return answer
    first_result = next(e["payload"]["result"] for e in events if e["direction"] == S2C and e["kind"] == "message")
    result = {"resultType": "complete", **answer["result"], "_meta": copy.deepcopy(first_result["_meta"])}
    if any(key in result for key in ("tools", "prompts", "resources")):
        result = {"cacheScope": first_result["cacheScope"], "ttlMs": first_result["ttlMs"], **result}
    return {"result": result}


def _call(call_id: str, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


DONE = {"result": {"content": [{"type": "text", "text": "done"}]}}
LOOKALIKE = "=?base64?ZXU=?="  # a plain value shaped like the Base64 sentinel


def _sentinel(value: str) -> str:
    return "=?base64?" + base64.b64encode(value.encode()).decode() + "?="


def _list_mirror_tool(events: list[Event]) -> None:
    _post(events, {"jsonrpc": "2.0", "id": "list", "method": "tools/list"}, {"result": {"tools": [ANNOTATED_TOOL]}})


def header_mirroring_session() -> list[Event]:
    """A 2026-07-28 client mirroring x-mcp-header arguments into Mcp-Param-* headers: a string, an integer
    and a boolean as text; an argument left out or null not mirrored; a value shaped like the Base64 sentinel
    sent wrapped in it. The server serves each call."""
    events = base(MODERN_HTTP)
    _list_mirror_tool(events)
    mirrored = {"Mcp-Param-Region": "eu", "Mcp-Param-Count": "3", "Mcp-Param-Flag": "true"}
    _post(events, _call("all", "mirror", {"region": "eu", "count": 3, "flag": True}), DONE, headers=mirrored)
    _post(events, _call("absent", "mirror", {"region": None}), DONE)
    wrapped = {"Mcp-Param-Region": _sentinel(LOOKALIKE)}
    _post(events, _call("lookalike", "mirror", {"region": LOOKALIKE}), DONE, headers=wrapped)
    return closed(events)


HEADER_MISMATCH = -32020
UNSUPPORTED_VERSION = -32022
MISSING_CAPABILITY = -32021
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601


def _error(code: int, message: str, data: dict | None = None) -> dict:
    return {"error": {"code": code, "message": message, **({"data": data} if data is not None else {})}}


def version_retry_session() -> list[Event]:
    """A 2026-07-28 client that speaks a later version too tries it first: the server answers with
    UnsupportedProtocolVersionError (-32022, HTTP 400) listing the versions it supports, and the client retries
    the request naming one of them."""
    events = base(MODERN_HTTP)
    later = {**_modern_meta(events), "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    refusal = {"supported": [MODERN], "requested": "2099-01-01"}
    listing = {"jsonrpc": "2.0", "id": "later", "method": "tools/list"}
    _post(events, listing, _error(UNSUPPORTED_VERSION, "unsupported protocol version", refusal), 400, meta=later)
    _post(events, {**listing, "id": "retried"}, {"result": {"tools": [ANNOTATED_TOOL]}})
    return closed(events)


def header_refusals_session() -> list[Event]:
    """A 2026-07-28 server refusing, with HTTP 400, what a client sends it on purpose: a call lacking the
    Mcp-Param header of an argument it carries, a call whose header differs from its argument, a request of
    a request lacking its required _meta (-32602) and one lacking a capability the tool needs (-32021
    naming it); and a method it does not have, answered -32601 under 404."""
    events = base(MODERN_HTTP)
    _list_mirror_tool(events)
    deliberate(events, C2S, "a tools/call without the Mcp-Param-Region header of its region argument")
    _post(events, _call("unmirrored", "mirror", {"region": "eu"}), _error(HEADER_MISMATCH, "Mcp-Param-Region"), 400)
    deliberate(events, C2S, "a tools/call whose Mcp-Param-Region differs from its region argument")
    _post(
        events,
        _call("mismatched", "mirror", {"region": "eu"}),
        _error(HEADER_MISMATCH, "Mcp-Param-Region differs from the body"),
        400,
        headers={"Mcp-Param-Region": "us"},
    )
    deliberate(events, C2S, "a tools/list without the required _meta")
    _post(
        events,
        {"jsonrpc": "2.0", "id": "bare", "method": "tools/list"},
        _error(INVALID_PARAMS, "_meta lacks io.modelcontextprotocol/protocolVersion"),
        400,
        meta={},
    )
    undeclared = {**_modern_meta(events), "io.modelcontextprotocol/clientCapabilities": {}}
    deliberate(events, C2S, "a tools/call declaring no elicitation, to a tool that elicits")
    _post(
        events,
        _call("needs-elicitation", "mirror", {}),
        _error(MISSING_CAPABILITY, "the tool needs elicitation", {"requiredCapabilities": {"elicitation": {}}}),
        400,
        meta=undeclared,
    )
    deliberate(events, C2S, "a request of a method the server does not have")
    _post(events, {"jsonrpc": "2.0", "id": "unknown", "method": "tools/unknown"}, _error(METHOD_NOT_FOUND, "no"), 404)
    return closed(events)


# -- 2026-07-28: the client's retries of multi-round-trip requests, and a modern-only server --------------

MODERN_TOUR = "schema-tour-server-2026-07-28-stdio.jsonl"  # its input rounds were never retried
INPUT_ANSWERS = {
    "elicitation/create": {"action": "decline"},
    "sampling/createMessage": {"role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "m"},
    "roots/list": {"roots": []},
}
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def _id_of(event: Event) -> str:
    return repr(event["payload"].get("id")) if isinstance(event["payload"], dict) else ""


def input_rounds_session() -> list[Event]:
    """A 2026-07-28 stdio client retrying each multi-round-trip request it was answered with input_required: a
    new id, every input request answered under its key, the requestState sent back unchanged where one was
    given and none where none was; the server then completes the call. One request carries a W3C traceparent."""
    events = base(MODERN_TOUR)
    requests = {_id_of(e): e["payload"] for e in events if e["direction"] == C2S and e["kind"] == "message"}
    first_request = next(p for p in requests.values() if "method" in p and p["method"] != "server/discover")
    first_request["params"]["_meta"]["traceparent"] = TRACEPARENT
    for index in reversed(range(len(events))):
        answer = events[index]["payload"] if events[index]["kind"] == "message" else None
        result = answer.get("result") if isinstance(answer, dict) else None
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            continue
        retry = copy.deepcopy(requests[_id_of(events[index])])
        retry["id"] = f"{retry['id']}-retry"
        retry["params"]["inputResponses"] = {
            key: INPUT_ANSWERS[request["method"]] for key, request in result["inputRequests"].items()
        }
        if "requestState" in result:
            retry["params"]["requestState"] = result["requestState"]
        done = {**DONE["result"], "resultType": "complete", "_meta": copy.deepcopy(result["_meta"])}
        events[index + 1 : index + 1] = [
            _event(C2S, "stdio", kind="message", payload=retry),
            _event(S2C, "stdio", kind="message", payload={"jsonrpc": "2.0", "id": retry["id"], "result": done}),
        ]
    return closed(events)


def modern_only_session() -> list[Event]:
    """A server that speaks 2026-07-28 alone (its server/discover lists no other version) answers the GET and
    the DELETE a client tries on its endpoint with 405 Method Not Allowed."""
    events = base(MODERN_ONLY_HTTP)
    for method, headers in (("GET", {"Accept": "text/event-stream"}), ("DELETE", {})):
        events += [
            _http(C2S, HTTP, method, {"MCP-Protocol-Version": MODERN, **headers}),
            _http(S2C, HTTP, method, {"Allow": "POST"}, status=405),
        ]
    return closed(events)


def initialize_refused_session() -> list[Event]:
    """A 2026-07-28 stdio server refusing, with an error naming the version it speaks, the initialize a client
    sends it on purpose before probing with server/discover."""
    events = base(MODERN_TOUR)
    opening = next(i for i, e in enumerate(events) if e["kind"] == "message")
    initialize = {
        "jsonrpc": "2.0",
        "id": "legacy",
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "corpus-client", "version": "1.0.0"},
        },
    }
    refusal = _error(-32600, "initialize is not spoken here", {"supported": [MODERN]})
    events[opening:opening] = [
        _event(C2S, "stdio", kind="lifecycle", event="deliberate", detail="an initialize to a 2026-07-28 server"),
        _event(C2S, "stdio", kind="message", payload=initialize),
        _event(S2C, "stdio", kind="message", payload={"jsonrpc": "2.0", "id": "legacy", **refusal}),
    ]
    return closed(events)


# -- 2025-11-25 and earlier over stdio: refusals each side owes the other, and tool sampling ---------------


def handshake(version: str, client_capabilities: dict, server_capabilities: dict) -> list[Event]:
    """The opening of a stdio session: initialize, its result, notifications/initialized."""
    client = {"name": "corpus-client", "version": "1.0.0"}
    server = {"name": "corpus-server", "version": "1.0.0"}
    initialize = {"protocolVersion": version, "capabilities": client_capabilities, "clientInfo": client}
    result = {"protocolVersion": version, "capabilities": server_capabilities, "serverInfo": server}
    return [
        _event(
            C2S,
            "stdio",
            kind="message",
            payload={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize},
        ),
        _event(S2C, "stdio", kind="message", payload={"jsonrpc": "2.0", "id": 0, "result": result}),
        _event(C2S, "stdio", kind="message", payload={"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]


def exchange(
    events: list[Event], direction: str, request_id: Any, method: str, params: dict | None, answer: dict
) -> None:
    """A request sent in ``direction`` and the other side's ``answer`` (a result or an error)."""
    request = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        **({"params": params} if params is not None else {}),
    }
    back = S2C if direction == C2S else C2S
    events += [
        _event(direction, "stdio", kind="message", payload=request),
        _event(back, "stdio", kind="message", payload={"jsonrpc": "2.0", "id": request_id, **answer}),
    ]


GREET = {"name": "greet", "arguments": [{"name": "who", "required": True}]}


def server_refusals_session() -> list[Event]:
    """A 2025-11-25 stdio server refusing with -32602 what a client sends it on purpose: a prompt it never
    listed, a prompt without its required argument, a completion without its argument, an unknown log level,
    a list cursor it never issued."""
    capabilities = {"prompts": {}, "tools": {}, "logging": {}, "completions": {}}
    events = handshake("2025-11-25", {}, capabilities)
    exchange(events, C2S, 1, "prompts/list", None, {"result": {"prompts": [GREET]}})
    refusals = [
        ("a prompts/get of a prompt never listed", "prompts/get", {"name": "never-listed"}),
        ("a prompts/get without its required argument", "prompts/get", {"name": "greet", "arguments": {}}),
        (
            "a completion/complete without its argument",
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "greet"}},
        ),
        ("a logging/setLevel of no known level", "logging/setLevel", {"level": "loud"}),
        ("a tools/list with a cursor the server never issued", "tools/list", {"cursor": "made-up"}),
    ]
    for number, (what, method, params) in enumerate(refusals, 2):
        deliberate(events, C2S, what)
        exchange(events, C2S, number, method, params, _error(INVALID_PARAMS, what))
    return closed(events)


def undeclared_completions_session() -> list[Event]:
    """A 2025-06-18 stdio server that declared no completions answers the completion/complete a client sends
    it on purpose with -32601."""
    events = handshake("2025-06-18", {}, {"prompts": {}})
    exchange(events, C2S, 1, "prompts/list", None, {"result": {"prompts": [GREET]}})
    deliberate(events, C2S, "a completion/complete to a server without completions")
    complete = {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "who", "value": "wor"}}
    exchange(events, C2S, 2, "completion/complete", complete, _error(METHOD_NOT_FOUND, "no completions"))
    return closed(events)


ASK = {"role": "user", "content": {"type": "text", "text": "What is the temperature?"}}
USE = {"type": "tool_use", "id": "use-1", "name": "lookup", "input": {}, "_meta": {"com.example/turn": 1}}
RESULT = {
    "type": "tool_result",
    "toolUseId": "use-1",
    "content": [{"type": "text", "text": "21"}],
    "structuredContent": {"temperature": 21},
    "_meta": {"com.example/turn": 2},
}
LOOKUP = {
    "name": "lookup",
    "inputSchema": {"type": "object"},
    "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]},
}


def _reply(content: Any, stop: str) -> dict:
    return {"result": {"role": "assistant", "content": content, "model": "corpus-model", "stopReason": stop}}


def tool_sampling_session() -> list[Event]:
    """A 2025-11-25 stdio server sampling with tools from a client that declared sampling.tools: the model
    uses a tool, the server passes the use and its result (matching the tool's outputSchema, alone in its
    message) back with their _meta unchanged, twice."""
    events = handshake("2025-11-25", {"sampling": {"tools": {}}}, {})
    offer = {"tools": [LOOKUP], "toolChoice": {"mode": "auto"}, "maxTokens": 100}
    exchange(events, S2C, "s1", "sampling/createMessage", {"messages": [ASK], **offer}, _reply([USE], "toolUse"))
    answered = [ASK, {"role": "assistant", "content": [USE]}, {"role": "user", "content": [RESULT]}]
    exchange(
        events,
        S2C,
        "s2",
        "sampling/createMessage",
        {"messages": answered, **offer},
        _reply({"type": "text", "text": "21 degrees"}, "endTurn"),
    )
    again = [
        *answered,
        {"role": "assistant", "content": {"type": "text", "text": "21 degrees"}},
        {"role": "user", "content": {"type": "text", "text": "Thanks"}},
    ]
    exchange(
        events,
        S2C,
        "s3",
        "sampling/createMessage",
        {"messages": again, **offer},
        _reply({"type": "text", "text": "You are welcome"}, "endTurn"),
    )
    return closed(events)


def client_refusals_session() -> list[Event]:
    """A 2025-11-25 stdio client (form elicitation and plain sampling declared, no roots) refusing what a
    server sends it on purpose: roots/list (-32601), a URL-mode elicitation (-32602), sampling with tools
    (an error), a tool conversation with a tool_use left unanswered and one mixing a tool_result with text
    (-32602)."""
    events = handshake("2025-11-25", {"elicitation": {"form": {}}, "sampling": {}}, {})
    url = {
        "mode": "url",
        "message": "Connect your account",
        "url": "https://example.com/connect",
        "elicitationId": "e1",
    }
    unanswered = [
        ASK,
        {"role": "assistant", "content": [USE]},
        {"role": "user", "content": {"type": "text", "text": "go on"}},
    ]
    mixed = [
        ASK,
        {"role": "assistant", "content": [USE]},
        {"role": "user", "content": [RESULT, {"type": "text", "text": "and more"}]},
    ]
    refusals = [
        ("roots/list to a client without roots", "roots/list", None, METHOD_NOT_FOUND),
        ("a URL-mode elicitation to a client declaring form only", "elicitation/create", url, INVALID_PARAMS),
        (
            "sampling with tools from a client without sampling.tools",
            "sampling/createMessage",
            {"messages": [ASK], "tools": [LOOKUP], "maxTokens": 100},
            INVALID_PARAMS,
        ),
        (
            "a tool conversation with its tool_use unanswered",
            "sampling/createMessage",
            {"messages": unanswered, "maxTokens": 100},
            INVALID_PARAMS,
        ),
        (
            "a tool_result mixed with text",
            "sampling/createMessage",
            {"messages": mixed, "maxTokens": 100},
            INVALID_PARAMS,
        ),
    ]
    for number, (what, method, params, code) in enumerate(refusals, 1):
        deliberate(events, S2C, what)
        exchange(events, S2C, f"s{number}", method, params, _error(code, what))
    return closed(events)


# -- 2025-11-25 tasks: required and forbidden tools, progress, failure, cancellation, paging, refusals ------

TASKS_SERVER = {"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}
TASK_TOOLS = [
    {"name": "render", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
    {"name": "quick", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "forbidden"}},
]
AUGMENTED = {"name": "render", "arguments": {}, "task": {"ttl": 60000}}


def _tasks_opening() -> list[Event]:
    events = handshake("2025-11-25", {}, TASKS_SERVER)
    exchange(events, C2S, 1, "tools/list", None, {"result": {"tools": TASK_TOOLS}})
    return events


def task_lifecycle_session() -> list[Event]:
    """A 2025-11-25 stdio client calling a task-required tool as a task each time, under a progress token the
    server's task progress keeps; the first task fails (its tasks/get explains the failure), the second is
    cancelled and stays so; the task list comes in two pages, the client sending the server's cursor back
    unchanged."""
    events = _tasks_opening()
    exchange(
        events,
        C2S,
        2,
        "tools/call",
        {**AUGMENTED, "_meta": {"progressToken": "p1"}},
        {"result": {"task": _task("t1", "working")}},
    )
    progress = {"progressToken": "p1", "progress": 1, "total": 2, "_meta": _related("t1")}
    events.append(
        _event(
            S2C,
            "stdio",
            kind="message",
            payload={"jsonrpc": "2.0", "method": "notifications/progress", "params": progress},
        )
    )
    exchange(events, C2S, 3, "tools/call", AUGMENTED, {"result": {"task": _task("t2", "working")}})
    failed = {**_task("t1", "failed"), "statusMessage": "the renderer ran out of memory"}
    exchange(events, C2S, 4, "tasks/get", {"taskId": "t1"}, {"result": failed})
    exchange(events, C2S, 5, "tasks/cancel", {"taskId": "t2"}, {"result": _task("t2", "cancelled")})
    exchange(events, C2S, 6, "tasks/get", {"taskId": "t2"}, {"result": _task("t2", "cancelled")})
    exchange(events, C2S, 7, "tasks/list", None, {"result": {"tasks": [failed], "nextCursor": "page-2"}})
    exchange(events, C2S, 8, "tasks/list", {"cursor": "page-2"}, {"result": {"tasks": [_task("t2", "cancelled")]}})
    return closed(events)


def task_refusals_session() -> list[Event]:
    """A 2025-11-25 stdio server answering what a client sends it on purpose: a tasks/get naming another task
    as related-task (answered about the task named), tasks/cancel of a completed task
    (-32602), a plain call of a task-required tool and a task-augmented call of a task-forbidden one (-32601),
    a tasks/list cursor it never issued (-32602)."""
    events = _tasks_opening()
    exchange(events, C2S, 2, "tools/call", AUGMENTED, {"result": {"task": _task("t1", "working")}})
    exchange(events, C2S, 3, "tools/call", AUGMENTED, {"result": {"task": _task("t2", "working")}})
    deliberate(events, C2S, "a tasks/get naming another task as its related-task")
    related = {"taskId": "t1", "_meta": _related("t2")}
    exchange(events, C2S, 4, "tasks/get", related, {"result": _task("t1", "completed")})
    refusals = [
        ("tasks/cancel of a completed task", "tasks/cancel", {"taskId": "t1"}, INVALID_PARAMS),
        ("a plain call of a task-required tool", "tools/call", {"name": "render", "arguments": {}}, METHOD_NOT_FOUND),
        (
            "a task-augmented call of a task-forbidden tool",
            "tools/call",
            {**AUGMENTED, "name": "quick"},
            METHOD_NOT_FOUND,
        ),
        ("a tasks/list cursor the server never issued", "tasks/list", {"cursor": "made-up"}, INVALID_PARAMS),
    ]
    for number, (what, method, params, code) in enumerate(refusals, 5):
        deliberate(events, C2S, what)
        exchange(events, C2S, number, method, params, _error(code, what))
    return closed(events)


# -- 2025-03-26: batches, and Streamable HTTP session ids -----------------------------------------------

LEGACY_HTTP = "2025-03-26"
TOOLS = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}


def batches_session() -> list[Event]:
    """A 2025-03-26 stdio client sending two requests in one batch; the server answers both in one batch."""
    events = handshake(LEGACY_HTTP, {}, {"tools": {}})
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    answers = [{"jsonrpc": "2.0", "id": 1, "result": {}}, {"jsonrpc": "2.0", "id": 2, "result": TOOLS}]
    events += [
        _event(C2S, "stdio", kind="message", payload=batch),
        _event(S2C, "stdio", kind="message", payload=answers),
    ]
    return closed(events)


def _posted(
    events: list[Event],
    payload: Any,
    status: int,
    answer: Any = None,
    session_id: str | None = None,
    issued: str | None = None,
) -> None:
    """A message (or batch) POSTed over 2025-03-26 Streamable HTTP under ``session_id``, answered under HTTP
    ``status`` with ``answer`` (a JSON body) or nothing (202); ``issued``: the session id the response assigns."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    answered = {"content-type": "application/json"} if answer is not None else {}
    events += [
        _event(C2S, HTTP, kind="message", payload=payload),
        _http(C2S, HTTP, "POST", {**headers, **({"Mcp-Session-Id": session_id} if session_id else {})}),
        _http(S2C, HTTP, "POST", {**answered, **({"mcp-session-id": issued} if issued else {})}, status=status),
    ]
    if answer is not None:
        events.append(_event(S2C, HTTP, kind="message", payload=answer))


def _http_handshake(events: list[Event], session_id: str, request_id: Any = 0) -> None:
    initialize = handshake(LEGACY_HTTP, {}, {"tools": {}})
    _posted(
        events,
        initialize[0]["payload"] | {"id": request_id},
        200,
        initialize[1]["payload"] | {"id": request_id},
        issued=session_id,
    )
    _posted(events, initialize[2]["payload"], 202, session_id=session_id)


def session_ids_session() -> list[Event]:
    """A 2025-03-26 Streamable HTTP server answering 400 Bad Request to a POST a client sends on purpose
    without the session id the server assigned."""
    events: list[Event] = []
    _http_handshake(events, "corpus-session")
    deliberate(events, C2S, "a tools/list POSTed without the Mcp-Session-Id the server assigned")
    _posted(events, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, 400)
    return closed(events)


def session_expiry_session() -> list[Event]:
    """A 2025-03-26 Streamable HTTP client whose session the server ended (a request under its id answered 404
    Not Found) opens a new one: an initialize POSTed without a session id, then a batch of two requests under
    the new id, answered in one batch. The trace holds the two sessions."""
    events: list[Event] = []
    _http_handshake(events, "first-session")
    _posted(events, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, 404, session_id="first-session")
    _http_handshake(events, "second-session", request_id=2)
    batch = [{"jsonrpc": "2.0", "id": 3, "method": "ping"}, {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}]
    answers = [{"jsonrpc": "2.0", "id": 3, "result": {}}, {"jsonrpc": "2.0", "id": 4, "result": TOOLS}]
    _posted(events, batch, 200, answers, session_id="second-session")
    return closed(events)


BUILDERS: dict[str, Callable[[], list[Event]]] = {
    "header-mirroring-2026-07-28-streamable-http.jsonl": header_mirroring_session,
    "header-refusals-2026-07-28-streamable-http.jsonl": header_refusals_session,
    "version-retry-2026-07-28-streamable-http.jsonl": version_retry_session,
    "input-rounds-2026-07-28-stdio.jsonl": input_rounds_session,
    "modern-only-2026-07-28-streamable-http.jsonl": modern_only_session,
    "initialize-refused-2026-07-28-stdio.jsonl": initialize_refused_session,
    "server-refusals-2025-11-25-stdio.jsonl": server_refusals_session,
    "undeclared-completions-2025-06-18-stdio.jsonl": undeclared_completions_session,
    "tool-sampling-2025-11-25-stdio.jsonl": tool_sampling_session,
    "client-refusals-2025-11-25-stdio.jsonl": client_refusals_session,
    "task-lifecycle-2025-11-25-stdio.jsonl": task_lifecycle_session,
    "task-refusals-2025-11-25-stdio.jsonl": task_refusals_session,
    "batches-2025-03-26-stdio.jsonl": batches_session,
    "session-ids-2025-03-26-streamable-http.jsonl": session_ids_session,
    "session-expiry-2025-03-26-streamable-http.jsonl": session_expiry_session,
}
