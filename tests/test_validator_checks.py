"""Checks read a session as their clauses do, on the sessions that once made them cry wolf: each case here
was a conforming exchange a check failed, found by validating the suite's kept traces of a whole run."""

from __future__ import annotations

from typing import Any

from conformance.validator.outcomes import Trace, judge
from tests.validator import conforming_sessions, corpus

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
ANSWER = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}


def outcome_of(events: list[dict[str, Any]], requirement: str) -> dict[str, Any]:
    report = judge([Trace("case", corpus.renumber(events))], strict=True)["traces"][0]
    return next(r for r in report["requirements"] if r["id"] == requirement)


def handshake() -> list[dict[str, Any]]:
    return [
        corpus.client_message({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}),
        corpus.server_message({"jsonrpc": "2.0", "id": 0, "result": ANSWER}),
        corpus.client_message({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]


def progressed_call(request_id: int, token: str) -> list[dict[str, Any]]:
    params = {"name": "count", "_meta": {"progressToken": token}}
    events = [corpus.client_message({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})]
    for value in (0, 50, 100):
        progress = {"progressToken": token, "progress": value, "total": 100}
        events.append(corpus.server_message({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}))
    done = {"content": [{"type": "text", "text": "done"}], "isError": False}
    return [*events, corpus.server_message({"jsonrpc": "2.0", "id": request_id, "result": done})]


def test_progress_starts_anew_for_the_next_request_that_reuses_a_token() -> None:
    """A token may serve a second request once the first is answered; its progress counts from 0 again."""
    reused = handshake() + progressed_call(1, "p") + progressed_call(2, "p")
    assert outcome_of(reused, "progress-value-increases")["outcome"] == "pass"
    went_back = handshake() + progressed_call(1, "p")
    went_back.insert(-1, went_back[-2] | {})  # the last notification again: 100 after 100, for one request
    assert outcome_of(went_back, "progress-value-increases")["outcome"] == "fail"


def counter_offered(capabilities: dict[str, Any]) -> list[dict[str, Any]]:
    """A client proposing 2025-11-25 with ``capabilities``, answered with 2024-11-05."""
    proposal = INIT | {"protocolVersion": "2025-11-25", "capabilities": capabilities}
    return [
        corpus.client_message({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": proposal}),
        corpus.server_message({"jsonrpc": "2.0", "id": 0, "result": ANSWER | {"protocolVersion": "2024-11-05"}}),
        corpus.client_message({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]


def test_the_initialize_request_keeps_to_the_revision_it_proposes() -> None:
    """Sent before a revision is agreed, the initialize request is held to the one it proposes: elicitation,
    which 2025-11-25 defines, is no breach of a session that settles on 2024-11-05; a member the proposed
    revision does not define still is."""
    proposed = counter_offered({"elicitation": {}})
    assert outcome_of(proposed, "lifecycle-use-negotiated-version-should")["outcome"] == "pass"
    undefined = counter_offered({"elicitation": {}, "mcpMatrixUndefined": {}})
    assert outcome_of(undefined, "lifecycle-use-negotiated-version-should")["outcome"] == "warn"


def tool_tasks(declared: bool) -> list[dict[str, Any]]:
    """A server (declaring tasks for tools/call or not) lists a tool whose taskSupport is required, and the
    client calls it plainly."""
    capabilities = {"tools": {}} | ({"tasks": {"requests": {"tools": {"call": {}}}}} if declared else {})
    answer = ANSWER | {"protocolVersion": "2025-11-25", "capabilities": capabilities}
    tool = {"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
    return [
        corpus.client_message(
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT | {"protocolVersion": "2025-11-25"}}
        ),
        corpus.server_message({"jsonrpc": "2.0", "id": 0, "result": answer}),
        corpus.client_message({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        corpus.client_message({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        corpus.server_message({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool]}}),
        corpus.client_message(call),
    ]


def test_a_required_task_tool_binds_only_where_the_server_declared_tool_tasks() -> None:
    """taskSupport "required" asks a task only of a server declaring tasks.requests.tools.call; without it the
    client may make no task at all, so its plain call is right."""
    assert outcome_of(tool_tasks(declared=False), "tasks-tools-required-augmented")["outcome"] == "not-applicable"
    assert outcome_of(tool_tasks(declared=True), "tasks-tools-required-augmented")["outcome"] == "fail"


def integer_header_call(header_value: str, answer: dict[str, Any], status: int) -> list[dict[str, Any]]:
    """A 2026-07-28 call of a tool whose integer argument count (42) is mirrored as Mcp-Param-Count:
    ``header_value``, answered with ``answer``."""
    events = conforming_sessions.base(conforming_sessions.MODERN_HTTP)
    conforming_sessions._list_mirror_tool(events)
    call = conforming_sessions._call("counted", "mirror", {"count": 42})
    conforming_sessions._post(events, call, answer, status, headers={"Mcp-Param-Count": header_value})
    return conforming_sessions.closed(events)


def test_an_integer_header_matches_its_argument_as_a_number() -> None:
    """Mcp-Param-Count: 42.0 carries the argument 42 (server validation compares integers as numbers), so a
    server serving it served no mismatch; 43 is one, and serving it breaks the clause."""
    requirement = "streamable-http-reject-header-body-mismatch"
    served = integer_header_call("42.0", conforming_sessions.DONE, 200)
    assert outcome_of(served, requirement)["outcome"] == "not-observed"
    assert outcome_of(integer_header_call("43", conforming_sessions.DONE, 200), requirement)["outcome"] == "fail"


def tool_task_session(server_capabilities: dict[str, Any]) -> list[dict[str, Any]]:
    """A 2025-11-25 session: a tool listed without execution.taskSupport, then a task-augmented call of it."""
    init = INIT | {"protocolVersion": "2025-11-25"}
    answer = ANSWER | {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}} | server_capabilities}
    tool = {"name": "plain", "inputSchema": {"type": "object"}}
    call = {"name": "plain", "arguments": {}, "task": {"ttl": 60000}}
    return [
        corpus.client_message({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}),
        corpus.server_message({"jsonrpc": "2.0", "id": 0, "result": answer}),
        corpus.client_message({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        corpus.client_message({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        corpus.server_message({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool]}}),
        corpus.client_message({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}),
    ]


def test_a_tool_without_task_support_is_not_called_as_a_task() -> None:
    """Absent taskSupport means forbidden where the server declared tool tasks; where it declared none, the
    augmented call is tasks-tools-no-augment-without-capability's alone, not counted twice."""
    declared = {"tasks": {"requests": {"tools": {"call": {}}}}}
    assert outcome_of(tool_task_session(declared), "tasks-tools-forbidden-not-augmented")["outcome"] == "fail"
    undeclared = tool_task_session({})
    assert outcome_of(undeclared, "tasks-tools-forbidden-not-augmented")["outcome"] == "not-applicable"
    assert outcome_of(undeclared, "tasks-tools-no-augment-without-capability")["outcome"] == "fail"
