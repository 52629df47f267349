"""Tasks (2025-11-25), server side: the server as the receiver of task-augmented ``tools/call``
requests (creation, ``tasks/get``, ``tasks/result``, ``tasks/cancel``, ``tasks/list``, TTL, errors,
the tool-level negotiation ``execution.taskSupport``), and the server as the requestor of the
requests it sends the client.

Each test holds the server under test to one requirement of docs/spec/requirements.md (tasks). The
task tool is the one the server itself declares: a tool listed with ``execution.taskSupport``
``"optional"`` or ``"required"`` on a server whose capabilities declare ``tasks.requests.tools.call``,
called with the least arguments its ``inputSchema`` asks for (the requirements are about that
declaration; no name is assumed). A server that declares no task support leaves those cells
``fixture-missing``; the one test of a server without it (``tasks-ignore-undeclared-augmentation``)
runs on every server. The pinned Python SDK serves no tasks (its surface map leaves ``tasks/*`` out
and its ``tools/call`` sieve refuses a ``CreateTaskResult``): the default profile gaps these cells to
N-001 (docs/not-offered), and they run on the targets that serve tasks (server-everything). A task that
needs the requestor's input is the one of the tool bound to ``input-task-tool``; tasks bound to an
authorization context are judged on the server configured with two bearer tokens (``two-bearer-tokens``).

As requestor, the server is judged on the tool its profile binds to ``task-sampling-tool`` (one that asks
a client declaring task-augmented sampling for a sampling request augmented as a task): the harness plays
the receiver of the requests it sends (``run_as_receiver``: a ``CreateTaskResult``,
then ``tasks/get`` and ``tasks/result`` answers for a task that works for a few seconds), and records
what the server asks and when.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from conformance.harness import schema
from conformance.harness.exchanges import CLIENT_RESULTS
from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.http import HttpPeer
from conformance.harness.peer import HarnessError, ImplementationTimeout, Peer, precondition
from conformance.harness.roles import Binding, bound, optional_roles, require_role
from conformance.harness.scripted_server import GetStreamScript, StreamScript
from conformance.harness.scripted_stdio import FOLLOWUP_ID, MISLED, PROGRESS_ENDED
from conformance.harness.surface import listed, server_capabilities
from conformance.harness.trace import Trace
from conformance.harness.wire import Wire, answers, is_response
from conformance.matrix.covers import for_req
from conformance.run.plugin import ConfiguredServer, active_fault
from conformance.test_streamable_http import settled_streams

RELATED_TASK = "io.modelcontextprotocol/related-task"
TERMINAL = ("completed", "failed", "cancelled")
STATUSES = ("working", "input_required", *TERMINAL)
ALLOWED_NEXT = {"working": {"input_required", *TERMINAL}, "input_required": {"working", *TERMINAL}}
TASK_BOUND = 30.0  # seconds a task of a declared task tool may take to end (a bound, never a sleep)
PACE_CAP = 1.0  # seconds between two polls at most, whatever pollInterval says
UNKNOWN_TASK = "mcp-matrix-no-such-task"
BOGUS_CURSOR = "mcp-matrix-no-such-cursor"
PROPOSED_ID = "mcp-matrix-requestor-chosen-id"
MIN_TASK_ID_BITS = 64  # the floor the suite applies to session ids too (OWASP)
ID_SAMPLE = 6
SHORT_TTL_MS = 1
GENERIC_MESSAGES = {"", "error", "invalid params", "invalid request", "internal error", "bad request"}
ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$")
PLACEHOLDERS = {"string": "mcp-matrix", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}


# -- the server's declarations -----------------------------------------------------------------------------


def tool_tasks_declared(capabilities: dict) -> bool:
    """Whether ``capabilities`` declare task-augmented ``tools/call`` (``tasks.requests.tools.call``)."""
    tasks = capabilities.get("tasks")
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    return isinstance(tools, dict) and isinstance(tools.get("call"), dict)


def capabilities_of(peer: Peer) -> dict:
    """The capabilities the server declared: those of the session's handshake, once it is open (a session
    is initialized once), else read by opening it."""
    if peer.initialized is not None and isinstance(peer.initialized.get("capabilities"), dict):
        return peer.initialized["capabilities"]
    return server_capabilities(peer)


def serves_tool_tasks(peer: Peer) -> dict:
    """The capabilities of a server that declares task-augmented tools/call; fixture-missing otherwise."""
    capabilities = capabilities_of(peer)
    if not tool_tasks_declared(capabilities):
        pytest.skip(f"fixture-missing: the server declares no tasks.requests.tools.call: {capabilities}")
    return capabilities


def task_support(tool: dict) -> str:
    """The tool's ``execution.taskSupport`` (absent means ``"forbidden"``)."""
    execution = tool.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if isinstance(support, str) else "forbidden"


def task_tool(peer: Peer, supports: tuple[str, ...] = ("optional", "required")) -> dict:
    """The first tool the server lists with a ``taskSupport`` of ``supports``, on a server that declares
    task-augmented tools/call; fixture-missing when there is none."""
    serves_tool_tasks(peer)
    for tool in listed(peer, "tools/list"):
        if task_support(tool) in supports:
            return tool
    pytest.skip(f"fixture-missing: the server lists no tool whose execution.taskSupport is one of {supports}")


def placeholder(prop: dict) -> Any:
    for key in ("default", "const"):
        if key in prop:
            return prop[key]
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return prop["enum"][0]
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return PLACEHOLDERS.get(kind, "mcp-matrix")


def arguments_for(tool: dict) -> dict:
    """The least arguments the tool's inputSchema asks for: each required property, its default, const or
    first enum value, else a placeholder of its type."""
    schema_ = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
    properties = schema_.get("properties") if isinstance(schema_.get("properties"), dict) else {}
    return {name: placeholder(properties.get(name) or {}) for name in schema_.get("required") or []}


# -- creating, reading and ending tasks --------------------------------------------------------------------


def augmented_call(peer: Peer, tool: dict, task: dict | None = None, arguments: dict | None = None) -> dict:
    """tools/call of ``tool`` with the ``task`` param (``{}`` unless given); its response."""
    params = {"name": tool["name"], "arguments": arguments_for(tool) if arguments is None else arguments}
    params["task"] = {} if task is None else task
    return peer.rpc("tools/call", params, check=False)


def created_task(response: dict) -> dict | None:
    result = response.get("result")
    task = result.get("task") if isinstance(result, dict) else None
    return task if isinstance(task, dict) else None


def new_task(peer: Peer, tool: dict | None = None, task: dict | None = None) -> dict:
    """A task the server created for a task-augmented call of its task tool (its CreateTaskResult's task).
    A call that creates none is a precondition of the test, not its finding."""
    tool = tool or task_tool(peer)
    response = augmented_call(peer, tool, task)
    created = created_task(response)
    precondition(
        created is not None and isinstance(created.get("taskId"), str),
        f"the task-augmented call of {tool['name']} created no task: {response}",
    )
    assert created is not None
    return created


def task_request(peer: Peer, method: str, task_id: Any, meta: dict | None = None, timeout: float | None = None) -> dict:
    """``method`` (tasks/get, tasks/result, tasks/cancel) for ``task_id``; its response."""
    params: dict[str, Any] = {"taskId": task_id}
    if meta:
        params["_meta"] = meta
    frame = peer.envelope(method, peer.next_id(), params)
    usual = peer.timeout
    if timeout is not None and timeout > usual:
        peer.timeout = timeout  # over HTTP the request's own connection waits as long (tasks/result blocks)
    try:
        peer.send_request(frame)
        return peer.expect_response(frame["id"], timeout=timeout)
    finally:
        peer.timeout = usual


def got(peer: Peer, task_id: str, meta: dict | None = None) -> dict:
    """The tasks/get result for ``task_id``; a refusal is a precondition of the test."""
    response = task_request(peer, "tasks/get", task_id, meta)
    precondition(isinstance(response.get("result"), dict), f"tasks/get of {task_id} failed: {response}")
    return response["result"]


def pace(task: dict) -> float:
    """How long to wait before the next poll: the task's pollInterval, within (0.05 s, PACE_CAP)."""
    interval = task.get("pollInterval")
    seconds = interval / 1000 if isinstance(interval, int | float) and interval > 0 else 0.2
    return min(max(seconds, 0.05), PACE_CAP)


def polled(peer: Peer, task_id: str, until: tuple[str, ...] = TERMINAL, bound: float = TASK_BOUND) -> list[dict]:
    """Every tasks/get result for ``task_id`` until one has a status of ``until``, polled at the task's
        own pollInterval (at most PACE_CAP apart). A task still running after ``bound`` seconds leaves the test
    inconclusive: how long a task runs is the tool's affair."""
    deadline = time.monotonic() + bound
    seen = [got(peer, task_id)]
    while seen[-1].get("status") not in until:
        statuses = [t.get("status") for t in seen]
        precondition(time.monotonic() <= deadline, f"task {task_id} reached none of {until} in {bound:g}s: {statuses}")
        time.sleep(pace(seen[-1]))
        seen.append(got(peer, task_id))
    return seen


def awaited_result(peer: Peer, task_id: str) -> dict:
    """The response to tasks/result for ``task_id`` (it may hold its answer until the task ends); none
    within TASK_BOUND leaves the test inconclusive, for a test whose subject is not that answer."""
    try:
        return task_request(peer, "tasks/result", task_id, timeout=TASK_BOUND)
    except ImplementationTimeout as exc:
        precondition(False, f"tasks/result of {task_id} was not answered: {exc}")
        raise


def finished(peer: Peer, task_id: str) -> dict:
    """The task once it has ended: tasks/result awaited (it blocks until the task is terminal), then
    tasks/get. The result's own shape is not judged here."""
    awaited_result(peer, task_id)
    return got(peer, task_id)


def listed_tasks(peer: Peer) -> list[dict]:
    """Every task of every page of tasks/list (cursors followed); a refusal is a precondition."""
    tasks: list[dict] = []
    params: dict[str, Any] | None = None
    for _ in range(50):
        response = peer.rpc("tasks/list", params, check=False)
        precondition(isinstance(response.get("result"), dict), f"tasks/list failed: {response}")
        page = response["result"].get("tasks")
        precondition(isinstance(page, list), f"tasks/list answered without a tasks array: {response}")
        tasks.extend(t for t in page if isinstance(t, dict))
        cursor = response["result"].get("nextCursor")
        if cursor is None:
            return tasks
        params = {"cursor": cursor}
    raise AssertionError("tasks/list still had a nextCursor after 50 pages")


def lists_tasks(capabilities: dict) -> bool:
    return isinstance((capabilities.get("tasks") or {}).get("list"), dict)


def cancels_tasks(capabilities: dict) -> bool:
    return isinstance((capabilities.get("tasks") or {}).get("cancel"), dict)


def error_code(response: dict) -> Any:
    error = response.get("error")
    return error.get("code") if isinstance(error, dict) else None


def related_task(frame_part: Any) -> Any:
    """The ``io.modelcontextprotocol/related-task`` entry of the ``_meta`` of a result or params object."""
    meta = frame_part.get("_meta") if isinstance(frame_part, dict) else None
    return meta.get(RELATED_TASK) if isinstance(meta, dict) else None


def drained(peer: Peer) -> list[Any]:
    """Every frame the server sent that the test has not read yet (notifications, its requests)."""
    frames = []
    while True:
        try:
            frames.append(peer.receive(timeout=0.0))
        except ImplementationTimeout:
            return frames


def status_notifications(frames: list[Any]) -> list[dict]:
    return [f for f in frames if isinstance(f, dict) and f.get("method") == "notifications/tasks/status"]


def is_timestamp(value: Any) -> bool:
    if not isinstance(value, str) or not ISO_8601.match(value):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def apparent_entropy_bits(ids: list[str]) -> float:
    """A guesser's work, estimated from a sample of ids (as test_streamable_http judges session ids): the
    positions at which they differ, each worth log2 of the characters seen at such positions."""
    width = min(map(len, ids))
    varying = [i for i in range(width) if len({s[i] for s in ids}) > 1]
    alphabet = {s[i] for s in ids for i in varying}
    return len(varying) * math.log2(max(len(alphabet), 2))


# -- capability and tool-level negotiation -------------------------------------------------------------------


@for_req("tasks-ignore-undeclared-augmentation", "server")
def test_a_server_without_task_support_for_tools_treats_an_augmented_call_as_a_plain_one(
    revision: str, server: Peer
) -> None:
    capabilities = capabilities_of(server)
    if tool_tasks_declared(capabilities):
        pytest.skip("fixture-missing: the server declares task-augmented tools/call, so it owes no plain answer")
    tool = require_role(server, "simple-tool")
    response = server.rpc(
        "tools/call", {"name": tool.name, "arguments": tool.args(), "task": {"ttl": 60000}}, check=False
    )
    precondition("result" in response or "error" in response, f"tools/call was not answered: {response}")
    assert "result" in response, f"without task support declared, the augmented call was refused: {response}"
    result = response["result"]
    assert "task" not in result, f"a server that declared no task support answered with a task: {result}"
    assert isinstance(result.get("content"), list), f"the augmented call got no ordinary tool result: {result}"


@for_req("tasks-declare-capability", "server")
def test_a_server_that_creates_tasks_for_tools_declares_it(revision: str, server: Peer) -> None:
    capabilities = capabilities_of(server)
    tools = listed(server, "tools/list")
    tool = next((t for t in tools if task_support(t) in ("optional", "required")), None)
    if tool is None:
        pytest.skip("fixture-missing: the server lists no tool offering task execution")
    task = created_task(augmented_call(server, tool))
    if task is None:
        pytest.skip(f"fixture-missing: the task-augmented call of {tool['name']} created no task")
    assert tool_tasks_declared(capabilities), (
        f"the server created task {task.get('taskId')!r} for tools/call but declares capabilities {capabilities}"
    )


@for_req("tasks-tools-forbidden-augmented-error", "server")
def test_an_augmented_call_of_a_tool_without_task_support_is_refused_with_32601(revision: str, server: Peer) -> None:
    serves_tool_tasks(server)
    tool = require_role(server, "simple-tool")
    support = task_support(dict(tool.listing or {}))
    if support != "forbidden":
        pytest.skip(f"fixture-missing: {tool.name} (simple-tool) declares taskSupport {support!r}")
    response = server.rpc("tools/call", {"name": tool.name, "arguments": tool.args(), "task": {}}, check=False)
    assert error_code(response) == -32601, (
        f"a task-augmented call of {tool.name} (taskSupport absent or forbidden) got {response}"
    )


@for_req("tasks-tools-required-plain-call-error", "server")
def test_a_plain_call_of_a_tool_that_requires_tasks_is_refused_with_32601(revision: str, server: Peer) -> None:
    tool = task_tool(server, ("required",))
    response = server.rpc("tools/call", {"name": tool["name"], "arguments": arguments_for(tool)}, check=False)
    assert error_code(response) == -32601, (
        f"tools/call of {tool['name']} (taskSupport required) without task: {response}"
    )


@for_req("tasks-may-require-augmentation", "server")
def test_a_plain_request_may_be_refused_with_32600_where_tasks_are_declared(revision: str, server: Peer) -> None:
    tool = task_tool(server)
    response = server.rpc("tools/call", {"name": tool["name"], "arguments": arguments_for(tool)}, check=False)
    if error_code(response) != -32600:
        pytest.skip(f"not-exercised: the plain call of {tool['name']} was not refused with -32600: {response}")


# -- creation --------------------------------------------------------------------------------------------------


@for_req("tasks-create-task-result", "server", transports=BOTH_TRANSPORTS)
def test_an_accepted_augmented_call_is_answered_with_a_create_task_result(
    revision: str, transport: str, peer: Peer
) -> None:
    tool = task_tool(peer)
    response = augmented_call(peer, tool)
    precondition("result" in response, f"the task-augmented call of {tool['name']} was refused: {response}")
    task = created_task(response)
    assert task is not None, f"the accepted task-augmented call was answered with no task: {response['result']}"
    problems = schema.violations(revision, "CreateTaskResult", response["result"])
    assert not problems, f"the answer is no CreateTaskResult: {problems}"


@for_req("tasks-create-task-result-promptly", "server")
def test_the_create_task_result_comes_before_the_work_is_done(revision: str, server: Peer) -> None:
    """A CreateTaskResult that already reports the task ended was sent after the work, not on accepting it.
    A task that ends just after the answer is no evidence: only the answer's own status is judged."""
    task = new_task(server)
    assert task.get("status") not in TERMINAL, (
        f"the server answered the call only once the task was {task.get('status')}"
    )


@for_req("tasks-id-string", "server")
def test_task_ids_are_strings(revision: str, server: Peer) -> None:
    tool = task_tool(server)
    response = augmented_call(server, tool)
    task = created_task(response)
    precondition(task is not None, f"the task-augmented call created no task: {response}")
    assert task is not None
    assert isinstance(task.get("taskId"), str), f"taskId is {task.get('taskId')!r}"


@for_req("tasks-id-receiver-generated", "server")
def test_the_server_mints_the_task_id(revision: str, server: Peer) -> None:
    task = new_task(server, task={"taskId": PROPOSED_ID})
    assert task["taskId"] != PROPOSED_ID, f"the server took the task id the requestor proposed: {task}"
    assert task["taskId"], "the server minted an empty task id"


@for_req("tasks-id-unique", "server")
def test_no_two_tasks_share_an_id(revision: str, server: Peer) -> None:
    tool = task_tool(server)
    ids = [new_task(server, tool)["taskId"] for _ in range(3)]
    assert len(set(ids)) == len(ids), f"three tasks got the ids {ids}"


@for_req("tasks-unguessable-ids", "server")
def test_task_ids_cannot_be_guessed(revision: str, server: Peer) -> None:
    tool = task_tool(server)
    ids = [new_task(server, tool)["taskId"] for _ in range(ID_SAMPLE)]
    bits = apparent_entropy_bits(ids)
    assert bits >= MIN_TASK_ID_BITS, f"about {bits:.0f} bits vary across {len(ids)} task ids: {ids}"


@for_req("tasks-initial-status-working", "server")
def test_a_new_task_is_working(revision: str, server: Peer) -> None:
    task = new_task(server)
    assert task.get("status") == "working", f"the new task's status is {task.get('status')!r}"


# -- the task object ------------------------------------------------------------------------------------------


def task_objects(peer: Peer) -> list[tuple[str, dict]]:
    """Every task object the server returns for one task: in its CreateTaskResult, tasks/get, tasks/list."""
    capabilities = serves_tool_tasks(peer)
    task = new_task(peer)
    objects = [("CreateTaskResult.task", task), ("tasks/get", got(peer, task["taskId"]))]
    if lists_tasks(capabilities):
        objects += [("tasks/list", t) for t in listed_tasks(peer) if t.get("taskId") == task["taskId"]]
    return objects


@for_req("tasks-created-at", "server")
def test_every_task_object_carries_created_at(revision: str, server: Peer) -> None:
    bad = [(where, t.get("createdAt")) for where, t in task_objects(server) if not is_timestamp(t.get("createdAt"))]
    assert not bad, f"createdAt missing or not an ISO 8601 timestamp: {bad}"


@for_req("tasks-last-updated-at", "server")
def test_every_task_object_carries_last_updated_at(revision: str, server: Peer) -> None:
    objects = task_objects(server)
    bad = [(where, t.get("lastUpdatedAt")) for where, t in objects if not is_timestamp(t.get("lastUpdatedAt"))]
    assert not bad, f"lastUpdatedAt missing or not an ISO 8601 timestamp: {bad}"


@for_req("tasks-ttl-reported", "server")
def test_tasks_get_reports_the_ttl(revision: str, server: Peer) -> None:
    task = new_task(server, task={"ttl": 60000})
    result = got(server, task["taskId"])
    assert "ttl" in result, f"tasks/get reports no ttl: {result}"
    ttl = result["ttl"]
    assert ttl is None or (isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0), f"ttl is {ttl!r}"


@for_req("tasks-ttl-override", "server")
def test_the_server_may_grant_another_ttl(revision: str, server: Peer) -> None:
    task = new_task(server, task={"ttl": 60000})
    if task.get("ttl") == 60000:
        pytest.skip("not-exercised: the server granted the ttl asked for")


@for_req("tasks-max-ttl", "server")
def test_no_task_is_granted_an_unlimited_ttl(revision: str, server: Peer) -> None:
    tool = task_tool(server)
    unasked, huge = new_task(server, tool), new_task(server, tool, task={"ttl": 2**53 - 1})
    assert unasked.get("ttl") is not None and huge.get("ttl") is not None, (
        f"a task was granted an unlimited lifetime (ttl null): asked none {unasked}; asked {2**53 - 1} {huge}"
    )


@for_req("tasks-poll-interval-hint", "server")
def test_tasks_get_may_suggest_a_poll_interval(revision: str, server: Peer) -> None:
    task = new_task(server)
    interval = got(server, task["taskId"]).get("pollInterval")
    if interval is None:
        pytest.skip("not-exercised: tasks/get suggests no pollInterval")
    assert isinstance(interval, int) and interval >= 0, f"pollInterval is {interval!r}"


@for_req("tasks-delete-after-ttl", "server")
def test_a_task_may_be_discarded_once_its_ttl_has_run_out(revision: str, server: Peer) -> None:
    task = new_task(server, task={"ttl": SHORT_TTL_MS})
    ttl = task.get("ttl")
    if not isinstance(ttl, int) or ttl > 2000:
        pytest.skip(f"not-exercised: the server granted a ttl of {ttl!r} ms, not a short one")
    time.sleep(ttl / 1000 + 0.2)  # the lifetime itself is the cue: nothing on the wire ends it
    response = task_request(server, "tasks/get", task["taskId"])
    if "result" in response:
        pytest.skip(f"not-exercised: the task outlived its {ttl} ms ttl: {response['result']}")
    assert error_code(response) == -32602, f"tasks/get of an expired task: {response}"


# -- status ------------------------------------------------------------------------------------------------------


@for_req("tasks-valid-transitions", "server")
def test_a_task_changes_status_only_along_the_lifecycle(revision: str, server: Peer) -> None:
    """The statuses the server reports, in order: the created task's, then each tasks/get's (polled until
    the task ends); and, separately, those its status notifications announce. A status skipped between two
    polls is no evidence; a step out of a terminal status, or into one the lifecycle lacks, is."""
    task = new_task(server)
    polls = [task.get("status"), *(t.get("status") for t in polled(server, task["taskId"]))]
    notes = status_notifications(drained(server))
    notified = [
        (n.get("params") or {}).get("status") for n in notes if (n.get("params") or {}).get("taskId") == task["taskId"]
    ]
    for what, statuses in (("polled", polls), ("notified", notified)):
        unknown = [s for s in statuses if s not in STATUSES]
        assert not unknown, f"{what} statuses outside the lifecycle: {unknown} (in order: {statuses})"
        wrong = [(a, b) for a, b in itertools.pairwise(statuses) if a != b and b not in ALLOWED_NEXT.get(a, set())]
        assert not wrong, f"{what} transitions outside the lifecycle: {wrong} (in order: {statuses})"


@for_req("tasks-terminal-is-final", "server")
def test_a_terminal_task_keeps_its_status(revision: str, server: Peer) -> None:
    capabilities = serves_tool_tasks(server)
    task = new_task(server)
    end = finished(server, task["taskId"]).get("status")
    precondition(end in TERMINAL, f"after tasks/result answered, the task is {end!r}")
    again = [got(server, task["taskId"]).get("status") for _ in range(2)]
    if lists_tasks(capabilities):
        again += [t.get("status") for t in listed_tasks(server) if t.get("taskId") == task["taskId"]]
    assert all(s == end for s in again), f"the task was {end}, then {again}"


@for_req("tasks-status-notification-optional", "server")
def test_status_changes_may_be_notified_with_the_full_task(revision: str, server: Peer) -> None:
    task = new_task(server)
    finished(server, task["taskId"])
    notes = [
        n for n in status_notifications(drained(server)) if (n.get("params") or {}).get("taskId") == task["taskId"]
    ]
    if not notes:
        pytest.skip("not-exercised: the server sent no notifications/tasks/status")
    problems = [p for n in notes for p in schema.violations(revision, "TaskStatusNotification", n)]
    assert not problems, f"a status notification does not carry the task: {problems}"


@for_req("tasks-status-notification-no-related-task", "server")
def test_status_notifications_carry_no_related_task(revision: str, server: Peer) -> None:
    task = new_task(server)
    finished(server, task["taskId"])
    notes = status_notifications(drained(server))
    if not notes:
        pytest.skip("fixture-missing: the server sent no notifications/tasks/status")
    marked = [n for n in notes if related_task(n.get("params")) is not None]
    assert not marked, f"status notifications with {RELATED_TASK} in _meta: {marked}"


# -- results ------------------------------------------------------------------------------------------------------


@for_req("tasks-result-terminal-verbatim", "server")
def test_the_result_of_a_completed_tool_task_is_the_tool_result(revision: str, server: Peer) -> None:
    task = new_task(server)
    end = polled(server, task["taskId"])[-1]
    if end.get("status") != "completed":
        pytest.skip(f"fixture-missing: the task ended {end.get('status')}, not completed")
    response = task_request(server, "tasks/result", task["taskId"], timeout=TASK_BOUND)
    assert "result" in response, f"tasks/result of a completed task: {response}"
    result = response["result"]
    assert "task" not in result and isinstance(result.get("content"), list), f"tasks/result gave {result}"
    problems = schema.violations(revision, "CallToolResult", result)
    assert not problems, f"tasks/result of a tools/call task is no CallToolResult: {problems}"


@for_req("tasks-result-blocks-until-terminal", "server", transports=BOTH_TRANSPORTS)
def test_tasks_result_answers_only_once_the_task_has_ended(revision: str, transport: str, peer: Peer) -> None:
    task = new_task(peer)
    precondition(task.get("status") not in TERMINAL, f"the task had ended already: {task}")
    response = awaited_result(peer, task["taskId"])
    precondition("result" in response or "error" in response, f"tasks/result: {response}")
    after = got(peer, task["taskId"])
    assert after.get("status") in TERMINAL, (
        f"tasks/result answered while the task was still {after.get('status')}: {response}"
    )


@for_req("tasks-result-related-task", "server", transports=BOTH_TRANSPORTS)
def test_tasks_result_names_its_task_in_meta(revision: str, transport: str, peer: Peer) -> None:
    task = new_task(peer)
    response = awaited_result(peer, task["taskId"])
    precondition(isinstance(response.get("result"), dict), f"tasks/result failed: {response}")
    related = related_task(response["result"])
    assert isinstance(related, dict) and related.get("taskId") == task["taskId"], (
        f"tasks/result's _meta.{RELATED_TASK} is {related!r}, not task {task['taskId']}"
    )


@for_req("tasks-related-task-meta", "server", transports=BOTH_TRANSPORTS)
def test_messages_tied_to_a_task_name_it(revision: str, transport: str, peer: Peer) -> None:
    """The tasks/result response and the requests the server sends while its task runs, each naming the
    task in _meta (the status notifications, tasks/get, tasks/list and tasks/cancel are exempt)."""
    task = new_task(peer)
    response = awaited_result(peer, task["taskId"])
    precondition(isinstance(response.get("result"), dict), f"tasks/result failed: {response}")
    tied = [("tasks/result response", response["result"])]
    tied += [
        (f["method"], f.get("params")) for f in drained(peer) if isinstance(f, dict) and "method" in f and "id" in f
    ]
    wrong = [
        (what, related_task(part)) for what, part in tied if (related_task(part) or {}).get("taskId") != task["taskId"]
    ]
    assert not wrong, f"messages of task {task['taskId']} without its {RELATED_TASK}: {wrong}"


@for_req("tasks-failed-status-message", "server")
def test_a_failed_task_says_why(revision: str, server: Peer) -> None:
    """A task of the task tool called with arguments its inputSchema refuses (each required property of
    the wrong type): a server that creates a task for it and lets it fail explains the failure."""
    tool = task_tool(server)
    wrong = {name: [] if isinstance(value, str) else "mcp-matrix" for name, value in arguments_for(tool).items()}
    if not wrong:
        pytest.skip(f"fixture-missing: {tool['name']} requires no argument, so no call of it fails")
    task = created_task(augmented_call(server, tool, arguments=wrong))
    if task is None:
        pytest.skip(f"fixture-missing: {tool['name']} refused the bad arguments before creating a task")
    end = polled(server, task["taskId"])[-1]
    if end.get("status") != "failed":
        pytest.skip(f"fixture-missing: the task ended {end.get('status')}, not failed")
    message = end.get("statusMessage")
    assert isinstance(message, str) and message.strip(), f"the failed task carries no statusMessage: {end}"


# -- addressing tasks -------------------------------------------------------------------------------------------


@for_req("tasks-task-id-param-authoritative", "server")
def test_tasks_get_answers_for_the_task_its_param_names(revision: str, server: Peer) -> None:
    tool = task_tool(server)
    first, second = new_task(server, tool), new_task(server, tool)
    for task in (first, second):
        answered = got(server, task["taskId"]).get("taskId")
        assert answered == task["taskId"], f"tasks/get of {task['taskId']} answered for {answered!r}"


@for_req("tasks-receiver-ignore-related-task", "server")
def test_a_related_task_in_meta_does_not_redirect_tasks_get(revision: str, server: Peer) -> None:
    tool = task_tool(server)
    first, second = new_task(server, tool), new_task(server, tool)
    misleading = {RELATED_TASK: {"taskId": second["taskId"]}}
    try:
        response = task_request(server, "tasks/get", first["taskId"], misleading)
    except ImplementationTimeout as exc:
        raise AssertionError(
            f"tasks/get of {first['taskId']} with _meta naming {second['taskId']} was never answered: {exc}"
        ) from None
    answered = (response.get("result") or {}).get("taskId")
    assert answered == first["taskId"], (
        f"tasks/get of {first['taskId']} with _meta naming {second['taskId']} was answered {response}"
    )


@for_req("tasks-receiver-omit-related-task", "server")
def test_tasks_get_list_and_cancel_results_carry_no_related_task(revision: str, server: Peer) -> None:
    capabilities = serves_tool_tasks(server)
    task = new_task(server)
    results = [("tasks/get", got(server, task["taskId"]))]
    if lists_tasks(capabilities):
        listing = server.rpc("tasks/list", check=False)
        results.append(("tasks/list", listing.get("result") or {}))
    if cancels_tasks(capabilities):
        results.append(("tasks/cancel", task_request(server, "tasks/cancel", task["taskId"]).get("result") or {}))
    marked = [(method, related_task(result)) for method, result in results if related_task(result) is not None]
    assert not marked, f"results carrying {RELATED_TASK}: {marked}"


# -- listing ---------------------------------------------------------------------------------------------------


def lister(peer: Peer) -> None:
    if not lists_tasks(serves_tool_tasks(peer)):
        pytest.skip("fixture-missing: the server declares no tasks.list")


@for_req("tasks-list-covers-gettable", "server")
def test_every_task_that_can_be_fetched_is_listed(revision: str, server: Peer) -> None:
    lister(server)
    tool = task_tool(server)
    ids = [new_task(server, tool)["taskId"] for _ in range(2)]
    for task_id in ids:
        got(server, task_id)
    found = {t.get("taskId") for t in listed_tasks(server)}
    missing = [i for i in ids if i not in found]
    assert not missing, f"tasks/get serves {missing}, which tasks/list leaves out (it lists {sorted(map(str, found))})"


@for_req("tasks-list-next-cursor", "server")
def test_a_tasks_list_page_that_leaves_tasks_out_gives_a_cursor(revision: str, server: Peer) -> None:
    lister(server)
    tool = task_tool(server)
    ids = [new_task(server, tool)["taskId"] for _ in range(2)]
    pages, params = [], None
    for _ in range(50):
        response = server.rpc("tasks/list", params, check=False)
        precondition(isinstance(response.get("result"), dict), f"tasks/list failed: {response}")
        pages.append(response["result"])
        if response["result"].get("nextCursor") is None:
            break
        params = {"cursor": response["result"]["nextCursor"]}
    found = {t.get("taskId") for page in pages for t in page.get("tasks") or [] if isinstance(t, dict)}
    remaining = [i for i in ids if i not in found]
    assert not remaining, f"the last page of tasks/list has no nextCursor, yet tasks {remaining} were never listed"


@for_req("tasks-no-list-without-identity", "server")
def test_a_server_that_shows_every_client_every_task_does_not_offer_listing(
    revision: str, http_server: HttpPeer, tmp_path: Path
) -> None:
    capabilities = serves_tool_tasks(http_server)
    task = new_task(http_server)
    with HttpPeer(http_server.url, Trace(tmp_path / "other.jsonl", "streamable-http"), revision) as other:
        other.open()
        if not lists_tasks(capabilities):
            pytest.skip("fixture-missing: the server declares no tasks.list")
        seen = {t.get("taskId") for t in listed_tasks(other)}
    assert task["taskId"] not in seen, (
        f"another client, with no identity of its own, is listed task {task['taskId']}: the server cannot tell "
        "requestors apart, yet declares tasks.list"
    )


# -- cancelling ---------------------------------------------------------------------------------------------------


def canceller(peer: Peer) -> None:
    if not cancels_tasks(serves_tool_tasks(peer)):
        pytest.skip("fixture-missing: the server declares no tasks.cancel")


@for_req("tasks-cancel-status-before-response", "server")
def test_a_cancelled_task_is_cancelled_when_the_answer_comes(revision: str, server: Peer) -> None:
    canceller(server)
    task = new_task(server)
    response = task_request(server, "tasks/cancel", task["taskId"])
    precondition("result" in response, f"tasks/cancel of a working task failed: {response}")
    assert response["result"].get("status") == "cancelled", f"tasks/cancel answered {response['result']}"
    after = task_request(server, "tasks/get", task["taskId"])
    if "result" in after:  # a cancelled task may be deleted at once (tasks-cancelled-may-delete)
        assert after["result"].get("status") == "cancelled", f"after tasks/cancel, tasks/get says {after['result']}"


@for_req("tasks-cancelled-sticky", "server")
def test_a_cancelled_task_stays_cancelled(revision: str, server: Peer) -> None:
    canceller(server)
    task = new_task(server)
    response = task_request(server, "tasks/cancel", task["taskId"])
    precondition("result" in response, f"tasks/cancel of a working task failed: {response}")
    statuses, deadline = [], time.monotonic() + TASK_BOUND / 6
    while time.monotonic() < deadline:  # long enough for the tool's work to have ended, had it gone on
        after = task_request(server, "tasks/get", task["taskId"])
        if "result" not in after:
            break  # deleted, as it may be
        statuses.append(after["result"].get("status"))
        time.sleep(pace(after["result"]))
    if not statuses:
        pytest.skip("fixture-missing: the server deleted the cancelled task at once")
    assert set(statuses) == {"cancelled"}, f"after tasks/cancel the task was {statuses}"


@for_req("tasks-cancelled-may-delete", "server")
def test_a_cancelled_task_may_be_deleted(revision: str, server: Peer) -> None:
    canceller(server)
    task = new_task(server)
    response = task_request(server, "tasks/cancel", task["taskId"])
    precondition("result" in response, f"tasks/cancel of a working task failed: {response}")
    after = task_request(server, "tasks/get", task["taskId"])
    if "result" in after:
        pytest.skip("not-exercised: the cancelled task is kept")


@for_req("tasks-cancel-terminal-rejected", "server")
def test_cancelling_a_finished_task_is_refused_with_32602(revision: str, server: Peer) -> None:
    canceller(server)
    task = new_task(server)
    first = task_request(server, "tasks/cancel", task["taskId"])
    precondition("result" in first, f"tasks/cancel of a working task failed: {first}")
    if "result" not in task_request(server, "tasks/get", task["taskId"]):
        pytest.skip("fixture-missing: the server deleted the cancelled task, so none is left in a terminal status")
    again = task_request(server, "tasks/cancel", task["taskId"])
    assert error_code(again) == -32602, f"tasks/cancel of a cancelled task: {again}"


# -- errors -------------------------------------------------------------------------------------------------------


def unknown_task_answers(peer: Peer) -> list[tuple[str, dict]]:
    capabilities = serves_tool_tasks(peer)
    methods = ["tasks/get", "tasks/result"] + (["tasks/cancel"] if cancels_tasks(capabilities) else [])
    return [(m, task_request(peer, m, UNKNOWN_TASK, timeout=TASK_BOUND)) for m in methods]


@for_req("tasks-error-invalid-task-id", "server")
def test_an_unknown_task_id_is_refused_with_32602(revision: str, server: Peer) -> None:
    wrong = [(m, r) for m, r in unknown_task_answers(server) if error_code(r) != -32602]
    assert not wrong, f"requests for an unknown task id not refused with -32602: {wrong}"


@for_req("tasks-error-invalid-cursor", "server")
def test_an_unknown_tasks_list_cursor_is_refused_with_32602(revision: str, server: Peer) -> None:
    lister(server)
    response = server.rpc("tasks/list", {"cursor": BOGUS_CURSOR}, check=False)
    assert error_code(response) == -32602, f"tasks/list with a cursor the server never gave: {response}"


@for_req("tasks-error-messages-informative", "server")
def test_task_errors_say_what_went_wrong(revision: str, server: Peer) -> None:
    errors = [(m, r["error"]) for m, r in unknown_task_answers(server) if isinstance(r.get("error"), dict)]
    if not errors:
        pytest.skip("fixture-missing: no request for an unknown task was refused")
    bare = [(m, e.get("message")) for m, e in errors if str(e.get("message", "")).strip().lower() in GENERIC_MESSAGES]
    assert not bare, f"task errors whose message says nothing of the cause: {bare}"


# -- over Streamable HTTP ------------------------------------------------------------------------------------------


@for_req("tasks-no-sse-for-tasks-get", "server")
def test_tasks_get_is_answered_with_plain_json(revision: str, http_server: HttpPeer) -> None:
    task = new_task(http_server)
    frame = http_server.envelope("tasks/get", "get-task", {"taskId": task["taskId"]})
    exchange = http_server.exchange("POST", frame)
    precondition(exchange.status == 200, f"the POST of tasks/get was answered {exchange.status}")
    content_type = exchange.headers.get("content-type", "")
    assert not content_type.startswith("text/event-stream"), "tasks/get was answered on an SSE stream"
    answered = [f for f in http_server.frames_of(exchange) if is_response(f) and f.get("id") == "get-task"]
    precondition(answered, f"the {content_type!r} answer to tasks/get carried no response to it")


@for_req("tasks-streamable-http-rules-still-apply", "server")
def test_task_messages_over_http_are_answered_as_the_transport_requires(revision: str, http_server: HttpPeer) -> None:
    """Each task request POSTed is answered 200 with a JSON body or an SSE stream that carries its response
    (the transport page's rules for a request), whichever the server picks. tasks/result may hold its answer
    until the task ends, so its exchange is bounded by the task's bound."""
    task = new_task(http_server)
    frames = [
        http_server.envelope("tasks/get", "t-get", {"taskId": task["taskId"]}),
        http_server.envelope("tasks/result", "t-result", {"taskId": task["taskId"]}),
    ]
    problems = []
    for frame in frames:
        if frame["method"] == "tasks/result":
            http_server.timeout = TASK_BOUND
        exchange = http_server.exchange("POST", frame)
        content_type = exchange.headers.get("content-type", "")
        if exchange.status != 200 or not content_type.startswith(("application/json", "text/event-stream")):
            problems.append(f"{frame['method']}: {exchange.status} {content_type!r}")
            continue
        if not [f for f in http_server.frames_of(exchange) if answers(f, frame["id"])]:
            problems.append(f"{frame['method']}: the {content_type} answer carried no response to it")
    assert not problems, "; ".join(problems)


# -- tasks bound to an authorization context (the server configured with two bearer tokens, two principals) -------


class AuthorizedPeer(HttpPeer):
    """A client of the server configured with bearer tokens, sending its own on every request."""

    token = ""

    def headers_for(self, frame: Any) -> dict[str, str]:
        return super().headers_for(frame) | {"Authorization": f"Bearer {self.token}"}


def two_principals(
    revision: str, configured_server: ConfiguredServer, tmp_path: Path, request: pytest.FixtureRequest
) -> tuple[AuthorizedPeer, AuthorizedPeer]:
    """Two sessions of the server configured with two bearer tokens (its profile's ``two-bearer-tokens``): the
    owner's (no fault) and another principal's (under the test's fault: what the other is told). Opened."""
    configured = configured_server("two-bearer-tokens")
    peers = []
    for name, token, fault in (("owner", "token", None), ("other", "other-token", active_fault(request))):
        peer = AuthorizedPeer(
            configured.url, Trace(tmp_path / f"{name}.jsonl", "streamable-http"), revision, fault=fault
        )
        peer.token = configured.values[token]
        peer.roles = request.getfixturevalue("target").roles
        peer.open()
        peers.append(peer)
    return peers[0], peers[1]


@for_req("tasks-bind-auth-context", "server")
def test_a_task_belongs_to_the_principal_that_created_it(
    revision: str, configured_server: ConfiguredServer, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A task created by one principal is served to it by tasks/get, and not to another principal of the same
    server: the task is bound to the context that created it."""
    owner, other = two_principals(revision, configured_server, tmp_path, request)
    with owner, other:
        task = new_task(owner)
        got(owner, task["taskId"])  # its own principal reads it
        foreign = task_request(other, "tasks/get", task["taskId"])
    assert "result" not in foreign, f"another principal was served task {task['taskId']}: {foreign}"


@for_req("tasks-reject-foreign-context", "server")
def test_another_principals_task_requests_are_refused(
    revision: str, configured_server: ConfiguredServer, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """tasks/get, tasks/result and (where declared) tasks/cancel of one principal's task, sent by another, are
    each refused with an error; the task is still the owner's to read, and not cancelled."""
    owner, other = two_principals(revision, configured_server, tmp_path, request)
    with owner, other:
        capabilities = serves_tool_tasks(owner)
        task = new_task(owner)
        methods = ["tasks/get", "tasks/result"] + (["tasks/cancel"] if cancels_tasks(capabilities) else [])
        answered = [(m, task_request(other, m, task["taskId"], timeout=TASK_BOUND)) for m in methods]
        after = got(owner, task["taskId"])
    served = [(m, r) for m, r in answered if "error" not in r]
    assert not served, f"another principal's requests for task {task['taskId']} were not refused: {served}"
    assert after.get("status") != "cancelled", f"another principal's tasks/cancel cancelled the task: {after}"


@for_req("tasks-list-own-context-only", "server")
def test_tasks_list_shows_a_principal_only_its_own_tasks(
    revision: str, configured_server: ConfiguredServer, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """One principal's task is in its own tasks/list and not in another principal's; and every task the other
    principal is listed is one it can read (tasks/get), as a task of its own context is."""
    owner, other = two_principals(revision, configured_server, tmp_path, request)
    with owner, other:
        lister(owner)
        task = new_task(owner)
        new_task(other)
        precondition(
            task["taskId"] in {t.get("taskId") for t in listed_tasks(owner)},
            f"the owner's own tasks/list leaves out its task {task['taskId']}",
        )
        seen = [t.get("taskId") for t in listed_tasks(other)]
        unreadable = [i for i in seen if "result" not in task_request(other, "tasks/get", i)]
    assert task["taskId"] not in seen, f"another principal's tasks/list lists the owner's task {task['taskId']}: {seen}"
    assert not unreadable, f"another principal's tasks/list lists tasks it may not read: {unreadable}"


# -- the server as requestor ---------------------------------------------------------------------------------------


@for_req("tasks-augment-only-declared-types", "server")
def test_the_server_asks_a_client_without_task_support_no_task(revision: str, server: Peer) -> None:
    """The client declares sampling and elicitation but no tasks: the requests the server sends it carry
    no ``task`` param."""
    server.open({"sampling": {}, "elicitation": {}})
    tools = optional_roles(server, "sampling-tool", "elicitation-tool")
    if not tools:
        pytest.skip("fixture-missing: the profile binds no tool that asks the client for something")
    wire = Wire(server)
    for n, tool in enumerate(tools):
        call = wire.send(server.envelope("tools/call", f"ask-{n}", {"name": tool.name, "arguments": tool.args()}))
        while True:
            seen = wire.until(lambda f, call=call: answers(f, call.id) or ("method" in f and "id" in f), "answer")
            if answers(seen, call.id):
                break
            server.send({"jsonrpc": "2.0", "id": seen["id"], "result": CLIENT_RESULTS.get(seen["method"], {})})
    asked = [s.frame for s in wire.seen if s.frame.get("method") in ("sampling/createMessage", "elicitation/create")]
    if not asked:
        pytest.skip("fixture-missing: the server asked the client nothing")
    augmented = [f for f in asked if "task" in (f.get("params") or {})]
    assert not augmented, f"task-augmented requests to a client that declared no tasks: {augmented}"


# -- the server as requestor of task-augmented requests: the harness plays the receiver ------------------------

ASKING = ("sampling/createMessage", "elicitation/create")
CLIENT_TASKS = {
    "requests": {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}},
    "cancel": {},
    "list": {},
}
ASKED_CAPABILITIES = {"sampling": {}, "elicitation": {}}
HARNESS_POLL_MS = 1500  # the pollInterval the harness, as receiver, suggests
HARNESS_TASK_SECONDS = 3.2  # how long the harness's task stays working (about two polls at that pace)
ASKED_BOUND = 30.0
INPUT_POLLS = 2  # tasks/get answered input_required before the harness's task goes on without the input


def timestamp() -> str:
    return datetime.now().astimezone().isoformat(timespec="milliseconds")


class HarnessTask:
    """A task the harness, as receiver, created for one task-augmented request of the server: working for
    HARNESS_TASK_SECONDS (or input_required, when ``needs_input``, until the server calls tasks/result),
    then completed with the answer a client gives that request."""

    def __init__(self, request: dict, needs_input: bool = False) -> None:
        self.request = request
        self.task_id = f"mcp-matrix-task-{request['id']}"
        self.created = time.monotonic()
        self.created_at = timestamp()
        self.needs_input = needs_input
        self.result_asked = False
        self.input_polls = 0  # tasks/get answered input_required so far

    def status(self) -> str:
        if self.needs_input and not self.result_asked and self.input_polls < INPUT_POLLS:
            return "input_required"
        return "completed" if time.monotonic() - self.created >= HARNESS_TASK_SECONDS else "working"

    def polled(self) -> dict:
        """The task as a tasks/get answers it (counting the input_required answers)."""
        task = self.task()
        self.input_polls += task["status"] == "input_required"
        return task

    def task(self) -> dict:
        ttl = (self.request.get("params") or {}).get("task", {}).get("ttl")
        return {
            "taskId": self.task_id,
            "status": self.status(),
            "createdAt": self.created_at,
            "lastUpdatedAt": timestamp(),
            "ttl": ttl if isinstance(ttl, int) else None,
            "pollInterval": HARNESS_POLL_MS,
        }

    def payload(self) -> dict:
        result = dict(CLIENT_RESULTS.get(self.request["method"], {}))
        return result | {"_meta": {RELATED_TASK: {"taskId": self.task_id}}}


def run_as_receiver(
    server: Peer, tool: Binding, needs_input: bool = False, hang_fails: bool = False, fail_early_result: bool = False
) -> dict:
    """Call ``tool`` and play the receiver of every task-augmented request it makes, until the call is
    answered; what the server sent, each of its requests with the time it came (seconds from the call).
    A call never answered leaves the test inconclusive, unless ``hang_fails`` (the test's own subject). With
    ``fail_early_result``, a tasks/result of a task that has not ended is failed at once (an error)."""
    start = time.monotonic()
    call_id = "asking-call"
    frame = server.envelope("tools/call", call_id, {"name": tool.name, "arguments": tool.args()})
    server.send_request(frame)
    tasks: dict[str, HarnessTask] = {}
    held: list[tuple[dict, HarnessTask]] = []  # tasks/result requests held until their task ends
    record: dict[str, Any] = {"requests": [], "response": None, "tasks": tasks, "statuses": [], "failed_results": []}
    deadline = start + ASKED_BOUND
    while record["response"] is None:
        for request, task in list(held):
            if task.status() in TERMINAL:
                held.remove((request, task))
                server.send({"jsonrpc": "2.0", "id": request["id"], "result": task.payload()})
        try:
            seen = server.receive(timeout=0.1)
        except ImplementationTimeout:
            if time.monotonic() > deadline:
                hung = f"{tool.name} was not answered within {ASKED_BOUND:g}s; the server asked {record['requests']}"
                if hang_fails:
                    raise AssertionError(hung) from None
                precondition(False, hung)
            continue
        if not isinstance(seen, dict):
            continue
        if answers(seen, call_id):
            record["response"] = seen
            break
        if "method" not in seen or "id" not in seen:
            continue
        record["requests"].append((time.monotonic() - start, seen))
        method, params = seen["method"], seen.get("params") or {}
        if method in ASKING and "task" in params:
            task = HarnessTask(seen, needs_input)
            tasks[task.task_id] = task
            # a new task starts working (tasks-initial-status-working); it asks for input from its first poll
            server.send({"jsonrpc": "2.0", "id": seen["id"], "result": {"task": task.task() | {"status": "working"}}})
        elif method in ("tasks/get", "tasks/result", "tasks/cancel") and params.get("taskId") in tasks:
            task = tasks[params["taskId"]]
            if method == "tasks/get":
                answer = task.polled()
                record["statuses"].append(answer["status"])
                server.send({"jsonrpc": "2.0", "id": seen["id"], "result": answer})
            elif method == "tasks/result" and fail_early_result and task.status() not in TERMINAL:
                task.result_asked = True
                record["failed_results"].append(time.monotonic() - start)
                failure = {"code": -32603, "message": "mcp-matrix: tasks/result failed; the task goes on"}
                server.send({"jsonrpc": "2.0", "id": seen["id"], "error": failure})
            elif method == "tasks/result":
                task.result_asked = True
                held.append((seen, task))
            else:
                server.send(
                    {"jsonrpc": "2.0", "id": seen["id"], "error": {"code": -32602, "message": "not cancellable"}}
                )
        elif method in ("tasks/get", "tasks/result", "tasks/cancel"):
            server.send({"jsonrpc": "2.0", "id": seen["id"], "error": {"code": -32602, "message": "no such task"}})
        elif method == "tasks/list":
            listing = {"tasks": [t.task() for t in tasks.values()]}
            server.send({"jsonrpc": "2.0", "id": seen["id"], "result": listing})
        else:
            server.send({"jsonrpc": "2.0", "id": seen["id"], "result": CLIENT_RESULTS.get(method, {})})
    return record


def asked_as_task(
    server: Peer, needs_input: bool = False, hang_fails: bool = False, fail_early_result: bool = False
) -> dict:
    """The record of a run of the task-sampling-tool (the role of a tool that asks a client declaring
    task-augmented sampling for a sampling request augmented as a task), the harness as receiver."""
    bound(server, "task-sampling-tool")
    server.open(ASKED_CAPABILITIES | {"tasks": CLIENT_TASKS})
    tool = require_role(server, "task-sampling-tool")
    record = run_as_receiver(server, tool, needs_input, hang_fails, fail_early_result)
    if not record["tasks"]:
        pytest.skip(f"fixture-missing: {tool.name} made no task-augmented request: {record['requests']}")
    return record


def requests_of(record: dict, method: str) -> list[tuple[float, dict]]:
    return [(at, frame) for at, frame in record["requests"] if frame.get("method") == method]


@for_req("tasks-request-ttl", "server")
def test_the_server_may_ask_for_a_task_lifetime(revision: str, server: Peer) -> None:
    record = asked_as_task(server)
    ttls = [(t.request.get("params") or {}).get("task", {}).get("ttl") for t in record["tasks"].values()]
    if not any(isinstance(ttl, int) for ttl in ttls):
        pytest.skip("not-exercised: the server's task-augmented requests ask for no ttl")


@for_req("tasks-honour-poll-interval", "server")
def test_the_server_polls_no_faster_than_the_poll_interval(revision: str, server: Peer) -> None:
    record = asked_as_task(server)
    polls = [at for at, frame in requests_of(record, "tasks/get")]
    created = [at for at, frame in record["requests"] if frame.get("method") in ASKING][:1]
    if not polls:
        pytest.skip("fixture-missing: the server never polled its task with tasks/get")
    times = created + polls
    gaps_ms = [round((b - a) * 1000) for a, b in itertools.pairwise(times)]
    hasty = [g for g in gaps_ms if g < HARNESS_POLL_MS * 0.9]
    assert not hasty, f"the receiver suggested pollInterval {HARNESS_POLL_MS} ms; the server polled after {gaps_ms} ms"


@for_req("tasks-poll-until-terminal", "server")
def test_the_server_polls_until_its_task_has_ended(revision: str, server: Peer) -> None:
    record = asked_as_task(server)
    waited = bool(requests_of(record, "tasks/result"))
    ended_seen = any(status in TERMINAL for status in record["statuses"])
    assert waited or ended_seen, (
        f"the server stopped asking after its task while the task was {record['statuses'][-1:]}: "
        f"{[(round(at, 2), f.get('method')) for at, f in record['requests']]}"
    )


@for_req("tasks-requestor-omit-related-task", "server")
def test_the_servers_task_requests_carry_no_related_task(revision: str, server: Peer) -> None:
    record = asked_as_task(server)
    task_requests = [f for _, f in record["requests"] if f.get("method", "").startswith("tasks/")]
    if not task_requests:
        pytest.skip("fixture-missing: the server sent no tasks/* request")
    marked = [f for f in task_requests if related_task(f.get("params")) is not None]
    assert not marked, f"the server's tasks/* requests carry {RELATED_TASK}: {marked}"


@for_req("tasks-no-reliance-on-status-notification", "server")
def test_the_server_finishes_without_status_notifications(revision: str, server: Peer) -> None:
    """The harness, as receiver, sends no notifications/tasks/status at all: the server's tool still ends
    with the outcome of the task, not with an error (nor waits on for a notification that never comes)."""
    record = asked_as_task(server, hang_fails=True)
    response = record["response"]
    assert "result" in response and response["result"].get("isError") is not True, (
        f"without status notifications, the call that awaited the task failed: {response}"
    )


@for_req("tasks-requestor-result-on-input-required", "server")
def test_the_server_fetches_the_result_of_a_task_that_needs_input(revision: str, server: Peer) -> None:
    """The harness's task reports input_required until the server calls tasks/result: a server that sees
    input_required calls it straight away, without polling on for a terminal status."""
    record = asked_as_task(server, needs_input=True)
    if "input_required" not in record["statuses"] and not requests_of(record, "tasks/result"):
        pytest.skip("fixture-missing: the server never polled its task, so never saw it input_required")
    asked = [f.get("method") for _, f in record["requests"] if f.get("method") in ("tasks/get", "tasks/result")]
    # right after the first input_required answer, the next request about the task is tasks/result
    first = record["statuses"].index("input_required") if "input_required" in record["statuses"] else None
    following = asked[first + 1 : first + 2] if first is not None else asked[:1]
    prompt = "tasks/result" in asked and (first is None or following == ["tasks/result"])
    assert prompt, (
        f"after tasks/get reported input_required, the server polled on instead of calling tasks/result: "
        f"{[(round(at, 2), f.get('method')) for at, f in record['requests']]}"
    )


# -- the server as receiver of a task that needs the requestor's input (input_required) -------------------------
#
# The role input-task-tool names a task tool whose task asks the requestor a question (an elicitation) before
# it can finish. The harness, as requestor, polls the task, calls tasks/result (through which a receiver may
# deliver its questions), answers the question the server asks about the task, and reads the task's status
# while the question is open and once it is answered.

INPUT_POLL_BOUND = 12.0  # seconds of polling before tasks/result is called anyway (the question may come through it)
ASKED_STATUS_BOUND = 1.0  # seconds the status may take to show the open question (it may be set just after sending)
LEAVE_BOUND = 6.0  # seconds the status may take to leave input_required once the question is answered
QUESTIONS = ("elicitation/create", "sampling/createMessage", "roots/list")


def collected(peer: Peer, frame: dict, others: list[Any], bound: float = TASK_BOUND) -> dict:
    """Send ``frame`` and return its answer; every other frame the server sends meanwhile goes to ``others``."""
    peer.send_request(frame)
    deadline = time.monotonic() + bound
    while True:
        try:
            seen = peer.receive(timeout=max(0.0, deadline - time.monotonic()))
        except ImplementationTimeout:
            precondition(False, f"{frame['method']} was not answered within {bound:g}s")
            raise
        if isinstance(seen, dict) and answers(seen, frame["id"]):
            return seen
        others.append(seen)


def task_status(peer: Peer, task_id: str, others: list[Any]) -> dict:
    response = collected(peer, peer.envelope("tasks/get", peer.next_id(), {"taskId": task_id}), others)
    precondition(isinstance(response.get("result"), dict), f"tasks/get of {task_id} failed: {response}")
    return response["result"]


def question_of(frames: list[Any], task_id: str) -> dict | None:
    """The first request in ``frames`` that asks the requestor something for ``task_id`` (or names no task)."""
    for frame in frames:
        if isinstance(frame, dict) and frame.get("method") in QUESTIONS and "id" in frame:
            related = related_task(frame.get("params"))
            if related is None or (isinstance(related, dict) and related.get("taskId") == task_id):
                return frame
    return None


def reply_to(question: dict) -> dict:
    """The requestor's answer: a form filled in with each property's first choice, a sample, no roots."""
    if question["method"] != "elicitation/create":
        return CLIENT_RESULTS.get(question["method"], {})
    schema_ = (question.get("params") or {}).get("requestedSchema") or {}
    content = {}
    for name, prop in (schema_.get("properties") or {}).items():
        options = [o.get("const") for o in prop.get("oneOf") or [] if isinstance(o, dict) and "const" in o]
        content[name] = (options or prop.get("enum") or [PLACEHOLDERS.get(prop.get("type"), "mcp-matrix")])[0]
    return {"action": "accept", "content": content}


def statuses_until(peer: Peer, task_id: str, others: list[Any], done: Any, bound: float) -> list[str]:
    """The task's statuses, polled at its own pace (at most PACE_CAP apart) until ``done(status)`` or ``bound``."""
    deadline, seen = time.monotonic() + bound, []
    while True:
        task = task_status(peer, task_id, others)
        seen.append(task.get("status"))
        if done(seen[-1]) or time.monotonic() > deadline:
            return seen
        time.sleep(min(pace(task), 0.25))


def input_round(peer: Peer) -> dict:
    """A task of the input-task-tool, followed as a requestor: its statuses before its question reached the
    harness, while the question was open, and once it was answered; fixture-missing when it asked nothing."""
    bound(peer, "input-task-tool")
    peer.open({"elicitation": {}, "sampling": {}})
    tool = require_role(peer, "input-task-tool")
    response = peer.rpc("tools/call", {"name": tool.name, "arguments": tool.args(), "task": {}}, check=False)
    task = created_task(response)
    precondition(task is not None and isinstance(task.get("taskId"), str), f"{tool.name} created no task: {response}")
    assert task is not None
    task_id, others = task["taskId"], []
    ended = (*TERMINAL, "input_required")
    before = statuses_until(
        peer, task_id, others, lambda s: s in ended or question_of(others, task_id), INPUT_POLL_BOUND
    )
    question = question_of(others, task_id)
    if question is None and before[-1] not in TERMINAL:  # the receiver may deliver its question through tasks/result
        fetch = peer.envelope("tasks/result", peer.next_id(), {"taskId": task_id})
        peer.send_request(fetch)
        deadline = time.monotonic() + TASK_BOUND
        while question is None and time.monotonic() < deadline:
            try:
                seen = peer.receive(timeout=max(0.0, deadline - time.monotonic()))
            except ImplementationTimeout:
                break
            if isinstance(seen, dict) and answers(seen, fetch["id"]):
                break
            others.append(seen)
            question = question_of([seen], task_id)
    if question is None:
        pytest.skip(f"fixture-missing: the task of {tool.name} asked the requestor nothing (statuses {before})")
    asked = statuses_until(peer, task_id, others, lambda s: s == "input_required", ASKED_STATUS_BOUND)
    peer.send({"jsonrpc": "2.0", "id": question["id"], "result": reply_to(question)})
    after = statuses_until(peer, task_id, others, lambda s: s != "input_required", LEAVE_BOUND)
    return {"tool": tool.name, "before": before, "question": question, "asked": asked, "after": after}


@for_req("tasks-input-required-when-needed", "server")
def test_a_task_that_waits_for_the_requestors_answer_is_input_required(revision: str, server: Peer) -> None:
    """While the task's question to the requestor is open (sent, not yet answered), tasks/get reports the task
    input_required (given a moment, should the status follow the question)."""
    record = input_round(server)
    assert record["asked"][-1] == "input_required", (
        f"while its {record['question']['method']} to the requestor was open, the task of {record['tool']} was "
        f"{record['asked']} (before: {record['before']})"
    )


@for_req("tasks-leave-input-required", "server")
def test_a_task_leaves_input_required_once_answered(revision: str, server: Peer) -> None:
    """Once the requestor has answered the task's question, tasks/get soon reports it out of input_required
    (working again, or ended)."""
    record = input_round(server)
    assert record["after"][-1] != "input_required", (
        f"{LEAVE_BOUND:g}s after its {record['question']['method']} was answered, the task of {record['tool']} "
        f"was still {record['after']}"
    )


def started_input_task(peer: Peer) -> tuple[str, str]:
    """A new task of the input-task-tool (its name, the task id), on a session that declared elicitation."""
    bound(peer, "input-task-tool")
    peer.open({"elicitation": {}, "sampling": {}})
    tool = require_role(peer, "input-task-tool")
    response = peer.rpc("tools/call", {"name": tool.name, "arguments": tool.args(), "task": {}}, check=False)
    task = created_task(response)
    precondition(task is not None and isinstance(task.get("taskId"), str), f"{tool.name} created no task: {response}")
    assert task is not None
    return tool.name, task["taskId"]


def question_within(peer: Peer, task_id: str, seconds: float, others: list[Any]) -> dict | None:
    """The task's question to the requestor (see question_of) within ``seconds``: sent directly, or delivered
    through tasks/result, which is called (as a requestor calls it on input_required) once ``seconds`` have
    passed or the task is input_required or ended, whichever comes first; its answer ends the wait."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        task = task_status(peer, task_id, others)
        if question := question_of(others, task_id):
            return question
        if task.get("status") in (*TERMINAL, "input_required"):
            break
        time.sleep(min(pace(task), 0.25, max(0.0, deadline - time.monotonic())))
    fetch = peer.envelope("tasks/result", peer.next_id(), {"taskId": task_id})
    peer.send_request(fetch)
    until = time.monotonic() + TASK_BOUND
    while time.monotonic() < until:
        try:
            seen = peer.receive(timeout=max(0.0, until - time.monotonic()))
        except ImplementationTimeout:
            break
        if isinstance(seen, dict) and answers(seen, fetch["id"]):
            break
        others.append(seen)
        if question := question_of([seen], task_id):
            return question
    return question_of(others, task_id)


@for_req("tasks-cancel-stop-execution", "server")
def test_a_cancelled_task_stops_working(revision: str, server: Peer) -> None:
    """The input-task-tool's task asks the requestor a question a while into its work: left to run, it shows
    when; a second task, cancelled at once, must ask nothing in twice that time (its work halted), neither
    directly nor through its tasks/result, called then. The server runs nothing else meanwhile, so a question
    naming no task counts too."""
    name, reference = started_input_task(server)  # first: it opens the session declaring elicitation
    canceller(server)
    start = time.monotonic()
    first = question_within(server, reference, TASK_BOUND, [])
    took = time.monotonic() - start
    if first is None:
        pytest.skip(f"fixture-missing: the task of {name} asked the requestor nothing within {TASK_BOUND:g}s")
    server.send({"jsonrpc": "2.0", "id": first["id"], "result": reply_to(first)})
    _, task_id = started_input_task(server)
    cancelled = task_request(server, "tasks/cancel", task_id)
    precondition("result" in cancelled, f"tasks/cancel of a working task failed: {cancelled}")
    late = question_within(server, task_id, 2 * took + 0.5, [])
    assert late is None, (
        f"the task of {name} asked its question {took:.1f}s into its work when left to run; cancelled at once, "
        f"it still asked: {late}"
    )


@for_req("tasks-poll-alongside-result", "server")
def test_the_server_polls_on_after_a_failed_tasks_result(revision: str, server: Peer) -> None:
    """The harness's task reports input_required; when the server calls tasks/result before the task has
    ended, the harness fails that call at once (an error, the task still running): a server no longer waiting
    on tasks/result goes on polling the task with tasks/get."""
    record = asked_as_task(server, needs_input=True, fail_early_result=True)
    failed = record["failed_results"]
    if not failed:
        pytest.skip("fixture-missing: the server never called tasks/result before its task had ended")
    polls_after = [at for at, _ in requests_of(record, "tasks/get") if at > failed[0]]
    assert polls_after, (
        f"after its tasks/result failed at {failed[0]:.2f}s, the server never polled its task again: "
        f"{[(round(at, 2), f.get('method')) for at, f in record['requests']]}"
    )


# -- the client as requestor (2025-11-25): task-augmented tool calls, polling, tasks/result, tasks/list -----
#
# The scripted server (Streamable HTTP) plays a receiver of task-augmented tools/call (ScriptedTasks): it lists
# a tool of each execution.taskSupport, answers an augmented call with a CreateTaskResult, keeps the task
# working for WORKING_POLLS tasks/get (each suggesting CLIENT_POLL_MS), then completes it (or moves it to
# input_required), and answers tasks/result, tasks/list and tasks/cancel. It sends no status notifications.
# The client driver's scenarios ``task_tool_calls`` and ``task_list`` (conformance/fixtures/client.py says what
# they do) use the client's task support as an application would; a client without one reads fixture-missing.

CLIENT_POLL_MS = 150  # the pollInterval the scripted receiver suggests
WORKING_POLLS = 2  # tasks/get answered "working" before the task moves on
GRANTED_TTL_MS = 60_000
REQUESTOR_TOOLS = {
    "required-task": "required",
    "optional-task": "optional",
    "forbidden-task": "forbidden",
    "plain": None,
}
TASKS_CAPABILITY = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
# Cursors of the task list as a server may mint them: opaque text a client must hand back as it came.
TASK_CURSORS = ("mcp-matrix/tasks?after=1 +/=", 'mcp-matrix/tasks?after=2 "☕"')


def requestor_tools() -> list[dict]:
    tools = []
    for name, support in REQUESTOR_TOOLS.items():
        tool = {
            "name": name,
            "description": f"A tool ({support or 'no'} task support).",
            "inputSchema": {"type": "object"},
        }
        tools.append(tool | ({"execution": {"taskSupport": support}} if support else {}))
    return tools


def iso_now() -> str:
    return datetime.now().astimezone().isoformat(timespec="milliseconds")


class ScriptedTasks:
    """The scripted server as a receiver of task-augmented tools/call (see above); ``tasks`` holds each task
    it created, by id, with the tool it runs and the statuses it answered."""

    def __init__(self, server: Any, capability: bool = True, input_required: bool = False, seeded: int = 0) -> None:
        self.server, self.input_required = server, input_required
        self.tasks: dict[str, dict] = {}
        self._numbers = itertools.count(1)
        initialize = server.answers["initialize"]
        capabilities = {"tools": {}} | ({"tasks": TASKS_CAPABILITY} if capability else {})
        server.answers["initialize"] = lambda frame: initialize(frame) | {"capabilities": capabilities}
        server.answers["tools/list"] = lambda frame: {"tools": requestor_tools()}
        server.answers["tools/call"] = self.call
        server.answers["tasks/get"] = self.get
        server.answers["tasks/result"] = self.result
        server.answers["tasks/cancel"] = self.cancel
        server.answers["tasks/list"] = self.listing
        for _ in range(seeded):
            self.create("plain", None, "completed")

    def create(self, tool: str, ttl: Any, status: str = "working") -> str:
        task_id = f"mcp-matrix-task-{next(self._numbers)}"
        now = iso_now()
        self.tasks[task_id] = {"tool": tool, "polls": 0, "status": status, "created": now, "updated": now}
        self.tasks[task_id]["answered"] = [status]
        self.tasks[task_id]["ttl"] = ttl if isinstance(ttl, int) and ttl > 0 else GRANTED_TTL_MS
        return task_id

    def view(self, task_id: str) -> dict:
        task = self.tasks[task_id]
        return {
            "taskId": task_id,
            "status": task["status"],
            "createdAt": task["created"],
            "lastUpdatedAt": task["updated"],
            "ttl": task["ttl"],
            "pollInterval": CLIENT_POLL_MS,
        }

    def outcome(self, task_id: str) -> dict:
        tool = self.tasks[task_id]["tool"]
        return {"content": [{"type": "text", "text": f"result of {tool}"}], "isError": False}

    def call(self, frame: dict) -> dict:
        params = frame.get("params") or {}
        name = params.get("name")
        if "task" not in params:
            return {"content": [{"type": "text", "text": f"result of {name}"}], "isError": False}
        task = params["task"] if isinstance(params["task"], dict) else {}
        return {"task": self.view(self.create(name, task.get("ttl")))}

    def _task(self, frame: dict) -> str | None:
        task_id = (frame.get("params") or {}).get("taskId")
        return task_id if task_id in self.tasks else None

    def _unknown(self, frame: dict) -> dict:
        return {"error": {"code": -32602, "message": f"Unknown task: {(frame.get('params') or {}).get('taskId')!r}"}}

    def _move(self, task_id: str, status: str) -> None:
        task = self.tasks[task_id]
        task["status"], task["updated"] = status, iso_now()

    def get(self, frame: dict) -> dict:
        task_id = self._task(frame)
        if task_id is None:
            return self._unknown(frame)
        task = self.tasks[task_id]
        task["polls"] += 1
        if task["status"] == "working" and task["polls"] > WORKING_POLLS:
            self._move(task_id, "input_required" if self.input_required else "completed")
        task["answered"].append(task["status"])
        return self.view(task_id)

    def result(self, frame: dict) -> dict:
        task_id = self._task(frame)
        if task_id is None:
            return self._unknown(frame)
        if self.tasks[task_id]["status"] not in TERMINAL:  # the input arrived (none was asked): it finishes now
            self._move(task_id, "completed")
        return self.outcome(task_id) | {"_meta": {RELATED_TASK: {"taskId": task_id}}}

    def cancel(self, frame: dict) -> dict:
        task_id = self._task(frame)
        if task_id is None:
            return self._unknown(frame)
        if self.tasks[task_id]["status"] in TERMINAL:
            return {"error": {"code": -32602, "message": f"Task {task_id} has already ended"}}
        self._move(task_id, "cancelled")
        return self.view(task_id)

    def listing(self, frame: dict) -> dict:
        """One task a page, the pages after the first behind TASK_CURSORS."""
        ids = list(self.tasks)
        cursor = (frame.get("params") or {}).get("cursor")
        if cursor is None:
            index = 0
        elif cursor in TASK_CURSORS:
            index = TASK_CURSORS.index(cursor) + 1
        else:
            return {"error": {"code": -32602, "message": f"Invalid cursor: {cursor!r}"}}
        page: dict[str, Any] = {"tasks": [self.view(i) for i in ids[index : index + 1]]}
        if index + 1 < len(ids) and index < len(TASK_CURSORS):
            page["nextCursor"] = TASK_CURSORS[index]
        return page


def client_requests(server: Any, method: str | None = None) -> list[dict]:
    return [f for f in server.requests() if method is None or f.get("method") == method]


def calls_of(server: Any, tool: str) -> list[dict]:
    return [f for f in client_requests(server, "tools/call") if (f.get("params") or {}).get("name") == tool]


def augmented(frame: dict) -> bool:
    return "task" in (frame.get("params") or {})


def called(server: Any, tool: str) -> list[dict]:
    calls = calls_of(server, tool)
    if not calls:
        raise HarnessError(f"the client never called {tool}: it sent {[f.get('method') for f in server.requests()]}")
    return calls


def check_required_augmented(server: Any) -> None:
    bare = [f for f in called(server, "required-task") if not isinstance((f.get("params") or {}).get("task"), dict)]
    assert not bare, f"a tool whose taskSupport is required was called without a task param: {bare}"


@for_req("tasks-tools-required-augmented", "client")
def test_a_task_required_tool_is_called_as_a_task(revision: str, run_client: Any, scripted_server: Any) -> None:
    """The server declares tasks for tools/call and lists a tool whose taskSupport is required: every call of
    it carries the task param."""
    ScriptedTasks(scripted_server)
    run_client("task_tool_calls").judge(lambda: check_required_augmented(scripted_server))


def check_forbidden_plain(server: Any, tools: tuple[str, ...]) -> None:
    calls = [f for tool in tools for f in calls_of(server, tool)]
    if not calls:
        raise HarnessError(f"the client called none of {tools}")
    wrong = [f for f in calls if augmented(f)]
    assert not wrong, f"a tool that takes no task (taskSupport forbidden or absent) was called as one: {wrong}"


@for_req("tasks-tools-forbidden-not-augmented", "client")
def test_a_task_forbidden_tool_is_not_called_as_a_task(revision: str, run_client: Any, scripted_server: Any) -> None:
    """The server declares tasks for tools/call; its tools with taskSupport forbidden, or none, are called
    without the task param."""
    ScriptedTasks(scripted_server)
    run_client("task_tool_calls").judge(lambda: check_forbidden_plain(scripted_server, ("forbidden-task", "plain")))


def check_nothing_augmented(server: Any) -> None:
    if not client_requests(server, "tools/call"):
        raise HarnessError(f"the client called no tool: {[f.get('method') for f in server.requests()]}")
    wrong = [f for f in client_requests(server) if augmented(f)]
    assert not wrong, f"a server that declared no tasks got task-augmented requests: {wrong}"


@for_req("tasks-tools-no-augment-without-capability", "client")
def test_no_task_goes_to_a_server_without_task_support(revision: str, run_client: Any, scripted_server: Any) -> None:
    """The server declares no tasks capability, yet lists tools whose taskSupport is required and optional:
    no call carries the task param."""
    ScriptedTasks(scripted_server, capability=False)
    run_client("task_tool_calls").judge(lambda: check_nothing_augmented(scripted_server))


@for_req("tasks-tools-optional-either", "client")
def test_a_task_optional_tool_may_be_called_as_a_task(revision: str, run_client: Any, scripted_server: Any) -> None:
    """A tool whose taskSupport is optional may be called with or without a task: the option judged is the
    task (a client that calls it plainly does not take it: not-exercised)."""
    ScriptedTasks(scripted_server)
    run_client("task_tool_calls")
    calls = called(scripted_server, "optional-task")
    assert any(augmented(f) for f in calls), "the optional task tool was called without a task param"


def check_only_declared_types(server: Any) -> None:
    if not client_requests(server, "tools/call"):
        raise HarnessError(f"the client called no tool: {[f.get('method') for f in server.requests()]}")
    wrong = [f for f in client_requests(server) if augmented(f) and f.get("method") != "tools/call"]
    assert not wrong, f"request types the server did not declare for tasks carry a task param: {wrong}"


@for_req("tasks-augment-only-declared-types", "client")
def test_only_declared_request_types_are_augmented(revision: str, run_client: Any, scripted_server: Any) -> None:
    """The server declares tasks for tools/call only: no request of another type carries the task param."""
    ScriptedTasks(scripted_server)
    run_client("task_tool_calls").judge(lambda: check_only_declared_types(scripted_server))


@for_req("tasks-request-ttl", "client")
def test_a_requestor_may_ask_for_a_task_lifetime(revision: str, run_client: Any, scripted_server: Any) -> None:
    """A task-augmented call may carry a ttl (milliseconds) in its task param (not-exercised without one)."""
    ScriptedTasks(scripted_server)
    run_client("task_tool_calls")
    tasks = [f["params"]["task"] for f in client_requests(scripted_server, "tools/call") if augmented(f)]
    if not tasks:
        pytest.skip("fixture-missing: the client sent no task-augmented call")
    assert any(isinstance(t, dict) and isinstance(t.get("ttl"), int) for t in tasks), (
        f"no task param asks a ttl: {tasks}"
    )


def polls_by_task(server: Any) -> dict[str, list[float]]:
    """When each tasks/get reached the server, by the task it names."""
    polls: dict[str, list[float]] = {}
    for received in server.received:
        for frame in received.frames:
            if isinstance(frame, dict) and frame.get("method") == "tasks/get":
                polls.setdefault(str((frame.get("params") or {}).get("taskId")), []).append(received.at)
    return polls


def check_paced(server: Any) -> None:
    polls = {task: times for task, times in polls_by_task(server).items() if len(times) >= 2}
    if not polls:
        raise HarnessError(f"the client never polled a task twice: {polls_by_task(server)}")
    floor = CLIENT_POLL_MS / 1000 * 0.75  # arrival times carry the machine's scheduling noise: a margin
    for task, times in polls.items():
        gaps_ = [round(later - earlier, 3) for earlier, later in itertools.pairwise(times)]
        assert min(gaps_) >= floor, f"task {task} was polled {gaps_} s apart; its pollInterval is {CLIENT_POLL_MS} ms"


@for_req("tasks-honour-poll-interval", "client")
def test_polling_keeps_to_the_poll_interval(revision: str, run_client: Any, scripted_server: Any) -> None:
    """Each tasks/get answer suggests a pollInterval of 150 ms: successive polls of a task come no closer than
    that, less a margin for scheduling noise (112 ms); the first poll, right after creation, is not judged."""
    ScriptedTasks(scripted_server)
    run_client("task_tool_calls").judge(lambda: check_paced(scripted_server))


def check_polled_to_the_end(tasks: ScriptedTasks, server: Any) -> None:
    if not tasks.tasks:
        raise HarnessError(f"the client made no task: {[f.get('method') for f in server.requests()]}")
    fetched = {(f.get("params") or {}).get("taskId") for f in client_requests(server, "tasks/result")}
    for task_id, task in tasks.tasks.items():
        ended = [s for s in task["answered"][1:] if s in (*TERMINAL, "input_required")]
        assert ended or task_id in fetched, (
            f"the client stopped polling task {task_id} while it was {task['status']} (answers {task['answered']}), "
            "and never asked for its result"
        )


@for_req("tasks-poll-until-terminal", "client")
def test_a_task_is_polled_until_it_ends(revision: str, run_client: Any, scripted_server: Any) -> None:
    """Each task stays working for two polls, then completes; no status notification comes: the client polls
    each until a tasks/get shows it completed (or waits on its tasks/result, which blocks until it ends)."""
    tasks = ScriptedTasks(scripted_server)
    run_client("task_tool_calls").judge(lambda: check_polled_to_the_end(tasks, scripted_server))


def check_no_related_task(server: Any) -> None:
    task_requests = [f for f in client_requests(server) if str(f.get("method", "")).startswith("tasks/")]
    if not task_requests:
        raise HarnessError(f"the client sent no tasks/* request: {[f.get('method') for f in server.requests()]}")
    tagged = [f for f in task_requests if RELATED_TASK in ((f.get("params") or {}).get("_meta") or {})]
    assert not tagged, f"tasks/* requests carry {RELATED_TASK} in _meta: {tagged}"


@for_req("tasks-requestor-omit-related-task", "client")
def test_task_requests_carry_no_related_task(revision: str, run_client: Any, scripted_server: Any) -> None:
    """The client's tasks/get and tasks/result (and any tasks/list, tasks/cancel) name their task by taskId
    only: no io.modelcontextprotocol/related-task in their _meta."""
    ScriptedTasks(scripted_server)
    run_client("task_tool_calls").judge(lambda: check_no_related_task(scripted_server))


def check_results_reached(tasks: ScriptedTasks, run: Any) -> None:
    results = run.report("results")
    made = sorted({task["tool"] for task in tasks.tasks.values()})
    if not made:
        raise HarnessError(f"the client made no task:\n{run.output[-1500:]}")
    wrong = {tool: (results or {}).get(tool) for tool in made if (results or {}).get(tool) != [f"result of {tool}"]}
    assert not wrong, f"without status notifications, the application never got these tasks' results: {wrong}"


@for_req("tasks-no-reliance-on-status-notification", "client")
def test_a_task_result_arrives_without_status_notifications(
    revision: str, run_client: Any, scripted_server: Any
) -> None:
    """The receiver sends no notifications/tasks/status at all: the application still gets each task's result."""
    tasks = ScriptedTasks(scripted_server)
    run = run_client("task_tool_calls")
    run.judge(lambda: check_results_reached(tasks, run))


def check_result_on_input_required(tasks: ScriptedTasks, server: Any) -> None:
    asked = [task_id for task_id, task in tasks.tasks.items() if "input_required" in task["answered"]]
    if not asked:
        raise HarnessError(f"no task was seen in input_required: {tasks.tasks}")
    for task_id in asked:
        about = [
            f.get("method")
            for f in client_requests(server)
            if str(f.get("method", "")).startswith("tasks/") and (f.get("params") or {}).get("taskId") == task_id
        ]
        statuses = iter(tasks.tasks[task_id]["answered"][1:])  # what each tasks/get of it was answered, in order
        for number, method in enumerate(about):
            if method == "tasks/get" and next(statuses, None) == "input_required":
                following = about[number + 1 : number + 2]
                assert following == ["tasks/result"], (
                    f"after task {task_id} showed input_required the client sent {following or 'nothing'} about it, "
                    "not tasks/result"
                )
                break


@for_req("tasks-requestor-result-on-input-required", "client")
def test_input_required_is_met_with_tasks_result(revision: str, run_client: Any, scripted_server: Any) -> None:
    """Each task moves to input_required at its third poll: the client's next request about it is tasks/result
    (where the receiver's questions come), not another poll."""
    tasks = ScriptedTasks(scripted_server, input_required=True)
    run_client("task_tool_calls").judge(lambda: check_result_on_input_required(tasks, scripted_server))


def check_cursors_verbatim(server: Any) -> None:
    lists = client_requests(server, "tasks/list")
    if not lists:
        raise HarnessError(f"the client never listed the tasks: {[f.get('method') for f in server.requests()]}")
    sent = [(f.get("params") or {}).get("cursor") for f in lists]
    changed = [cursor for cursor in sent if cursor is not None and cursor not in TASK_CURSORS]
    assert not changed, f"the client sent cursors it was never given: {changed} (it was given {TASK_CURSORS})"
    if len(lists) < 2:
        raise HarnessError(f"the client did not page through the task list: {lists}")
    assert sent[1:] == list(TASK_CURSORS[: len(sent) - 1]), f"the client sent the cursors {sent[1:]} in that order"


@for_req("tasks-list-cursor-opaque", "client")
def test_task_list_cursors_go_back_as_they_came(revision: str, run_client: Any, scripted_server: Any) -> None:
    """Three tasks, one a page, the later pages behind cursors with spaces, quotes, slashes and non-ASCII
    text: the client asks for each page with the cursor it was given, unchanged."""
    ScriptedTasks(scripted_server, seeded=3)
    run_client("task_list").judge(lambda: check_cursors_verbatim(scripted_server))


# -- the client as receiver (2025-11-25): a task param it never declared -------------------------------------

TASK_SAMPLING_ID = "mcp-matrix-task-sampling"
TASK_SAMPLING = {
    "jsonrpc": "2.0",
    "id": TASK_SAMPLING_ID,
    "method": "sampling/createMessage",
    "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the weather in Paris?"}}],
        "maxTokens": 100,
        "task": {"ttl": GRANTED_TTL_MS},
    },
}

PLAIN_SAMPLING = TASK_SAMPLING | {
    "id": "mcp-matrix-plain-sampling",
    "params": {k: v for k, v in TASK_SAMPLING["params"].items() if k != "task"},
}


def check_handled_as_ordinary(scripted: Any) -> None:
    frames = [f for f in scripted.record.frames() if isinstance(f, dict)]
    initialize = next((f for f in frames if f.get("method") == "initialize"), {})
    declared = ((initialize.get("params") or {}).get("capabilities") or {}).get("tasks") or {}
    if ((declared.get("requests") or {}).get("sampling") or {}).get("createMessage") is not None:
        pytest.skip("fixture-missing: the client declared task support for sampling: the row is about one that did not")
    sent = [e["payload"] for e in scripted.record.messages("server-to-client")]
    if not any(isinstance(f, dict) and f.get("id") == TASK_SAMPLING_ID and "method" in f for f in sent):
        raise HarnessError("the scripted server never sent its task-augmented sampling request")
    answers = [f for f in frames if "method" not in f and f.get("id") == TASK_SAMPLING_ID]
    assert answers, "the client never answered the sampling request that carried a task param it had not declared"
    result = answers[0].get("result")
    assert isinstance(result, dict), f"the client refused an ordinary sampling request for its task param: {answers[0]}"
    assert "task" not in result, f"the client answered with a task it never declared support for: {result}"
    wrong = schema.violations(scripted.revision, "CreateMessageResult", result)
    assert not wrong, f"the client's answer is no CreateMessageResult: {wrong}"


@for_req("tasks-ignore-undeclared-augmentation", "client")
def test_an_undeclared_task_param_is_ignored_by_the_client(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """During the client's tool call, the server sends it a sampling request carrying a task param (a ttl) though
    the client declared no task support for sampling: the client answers it as an ordinary sampling request,
    with a CreateMessageResult, not a CreateTaskResult."""
    scripted_stdio.ask["tools/call"] = [TASK_SAMPLING]
    run = run_stdio_client("sampling")
    run.judge(lambda: check_handled_as_ordinary(scripted_stdio))


def check_polls_after_failed_result(tasks: ScriptedTasks, server: Any) -> None:
    refused = [
        (n, (f.get("params") or {}).get("taskId"))
        for n, f in enumerate(client_requests(server))
        if f.get("method") == "tasks/result"
    ][:1]
    if not refused:
        raise HarnessError(f"the client never asked for a result: {[f.get('method') for f in server.requests()]}")
    number, task_id = refused[0]
    later = [
        f
        for f in client_requests(server)[number + 1 :]
        if f.get("method") in ("tasks/get", "tasks/result") and (f.get("params") or {}).get("taskId") == task_id
    ]
    assert later, (
        f"once its tasks/result for task {task_id} failed (HTTP 503), the client neither polled the task again nor "
        "asked for its result anew"
    )


@for_req("tasks-poll-alongside-result", "client")
def test_polling_goes_on_when_tasks_result_fails(revision: str, run_client: Any, scripted_server: Any) -> None:
    """Each task moves to input_required at its third poll; the client's first tasks/result is refused at the
    HTTP level (503: no outcome of the task, only a failed call). No longer blocked on it, the client goes on
    with the task: another tasks/get (or a new tasks/result, which blocks until the task ends)."""
    tasks = ScriptedTasks(scripted_server, input_required=True)
    scripted_server.refusals["tasks/result"] = [(503, None)]
    run_client("task_tool_calls").judge(lambda: check_polls_after_failed_result(tasks, scripted_server))


def check_declared_task_receiver(scripted: Any) -> None:
    frames = [f for f in scripted.record.frames() if isinstance(f, dict)]
    answers = [f for f in frames if "method" not in f and f.get("id") == TASK_SAMPLING_ID]
    result = answers[0].get("result") if answers else None
    if not (isinstance(result, dict) and "task" in result):
        pytest.skip(f"fixture-missing: the client did not take the sampling request as a task: {answers}")
    initialize = next((f for f in frames if f.get("method") == "initialize"), {})
    capabilities = (initialize.get("params") or {}).get("capabilities") or {}
    declared = (((capabilities.get("tasks") or {}).get("requests") or {}).get("sampling") or {}).get("createMessage")
    assert isinstance(declared, dict), (
        f"the client took a sampling request as a task without declaring tasks.requests.sampling.createMessage "
        f"at initialization: {capabilities}"
    )


@for_req("tasks-declare-capability", "client")
def test_a_client_that_takes_sampling_as_a_task_declared_it(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """During the client's tool call the server sends it a task-augmented sampling request; a client that
    accepts it as a task (answers with a CreateTaskResult) declared, at initialization, tasks.requests with
    sampling.createMessage. A client that samples it as an ordinary request does not reach the situation
    (fixture-missing)."""
    scripted_stdio.ask["tools/call"] = [TASK_SAMPLING]
    run = run_stdio_client("sampling_task_receiver")
    run.judge(lambda: check_declared_task_receiver(scripted_stdio))


# -- the client as receiver of task-augmented sampling (2025-11-25, stdio): what it answers -------------------
#
# During the client's tool call the scripted server sends it, at once, a task-augmented sampling request and
# tasks/get, tasks/result and tasks/cancel naming a task that does not exist, and a tasks/list with a cursor
# it never issued. Judged only on a client that declared it takes sampling as a task (scenario
# ``sampling_task_receiver``); the rest read fixture-missing.

RECEIVER_ASKS = [
    TASK_SAMPLING,
    *(
        {"jsonrpc": "2.0", "id": f"mcp-matrix-unknown-{method}", "method": method, "params": {"taskId": UNKNOWN_TASK}}
        for method in ("tasks/get", "tasks/result", "tasks/cancel")
    ),
    {"jsonrpc": "2.0", "id": "mcp-matrix-bogus-cursor", "method": "tasks/list", "params": {"cursor": BOGUS_CURSOR}},
    PLAIN_SAMPLING,
]


def receiver_run(run_stdio_client: Any, scripted_stdio: Any) -> Any:
    scripted_stdio.ask["tools/call"] = RECEIVER_ASKS
    return run_stdio_client("sampling_task_receiver")


def declared_tasks(scripted: Any) -> dict:
    """The client's tasks capability (from its initialize), or fixture-missing when it declared no task
    support for sampling: such a client is no receiver of the task-augmented sampling request."""
    frames = [f for f in scripted.record.frames() if isinstance(f, dict)]
    initialize = next((f for f in frames if f.get("method") == "initialize"), {})
    tasks = ((initialize.get("params") or {}).get("capabilities") or {}).get("tasks")
    sampling = (((tasks or {}).get("requests") or {}).get("sampling") or {}).get("createMessage")
    if not isinstance(sampling, dict):
        pytest.skip(f"fixture-missing: the client declared no task support for sampling: {tasks}")
    return tasks


def answer_to(scripted: Any, request_id: str) -> dict:
    answers = [
        f for f in scripted.record.frames() if isinstance(f, dict) and "method" not in f and f.get("id") == request_id
    ]
    assert answers, f"the client never answered our request {request_id!r}"
    return answers[0]


def created(scripted: Any) -> dict:
    """The task of the client's CreateTaskResult to the task-augmented sampling request (asserted to be one)."""
    declared_tasks(scripted)
    answer = answer_to(scripted, TASK_SAMPLING_ID)
    result = answer.get("result")
    assert isinstance(result, dict) and isinstance(result.get("task"), dict), (
        f"a client that takes sampling as a task answered the task-augmented request without a task: {answer}"
    )
    return result["task"]


def check_create_task_result(scripted: Any) -> None:
    created(scripted)
    result = answer_to(scripted, TASK_SAMPLING_ID)["result"]
    wrong = schema.violations(scripted.revision, "CreateTaskResult", result)
    assert not wrong, f"the client's answer to the task-augmented request is no CreateTaskResult: {wrong}"
    operation = sorted({"role", "content", "model"} & set(result))
    assert not operation, f"the CreateTaskResult carries the operation's result ({operation}): {result}"


@for_req("tasks-create-task-result", "client")
def test_the_client_answers_a_task_request_with_its_task(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """A client that declared it takes sampling as a task answers a task-augmented sampling request with a
    CreateTaskResult (the task's data), not with the sample."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_create_task_result(scripted_stdio))


def check_task_field(scripted: Any, name: str, holds: Any, what: str) -> None:
    task = created(scripted)
    assert holds(task.get(name)), f"the client's new task has {name} {task.get(name)!r}: not {what} ({task})"


@for_req("tasks-id-string", "client")
def test_the_clients_task_id_is_a_string(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The task the client creates for a task-augmented sampling request has a string taskId."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_task_field(scripted_stdio, "taskId", lambda v: isinstance(v, str), "a string"))


@for_req("tasks-initial-status-working", "client")
def test_the_clients_new_task_is_working(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The task the client creates for a task-augmented sampling request starts as working."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_task_field(scripted_stdio, "status", lambda v: v == "working", "working"))


def iso_8601(value: Any) -> bool:
    return isinstance(value, str) and ISO_8601.match(value) is not None


@for_req("tasks-created-at", "client")
def test_the_clients_task_carries_its_creation_time(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The task the client creates carries createdAt, an ISO 8601 timestamp."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_task_field(scripted_stdio, "createdAt", iso_8601, "an ISO 8601 timestamp"))


@for_req("tasks-last-updated-at", "client")
def test_the_clients_task_carries_its_update_time(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The task the client creates carries lastUpdatedAt, an ISO 8601 timestamp."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_task_field(scripted_stdio, "lastUpdatedAt", iso_8601, "an ISO 8601 timestamp"))


def check_unknown_task_refused(scripted: Any) -> None:
    declared_tasks(scripted)
    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        answer = answer_to(scripted, f"mcp-matrix-unknown-{method}")
        code = (answer.get("error") or {}).get("code")
        assert code == -32602, f"{method} naming no task of the client's was answered {answer}, not error -32602"


@for_req("tasks-error-invalid-task-id", "client")
def test_the_client_refuses_an_unknown_task_id(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """A client that takes sampling as a task answers tasks/get, tasks/result and tasks/cancel naming a task
    it never created with JSON-RPC error -32602."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_unknown_task_refused(scripted_stdio))


def check_bogus_cursor_refused(scripted: Any) -> None:
    if not isinstance(declared_tasks(scripted).get("list"), dict):
        pytest.skip("fixture-missing: the client declared no tasks.list")
    answer = answer_to(scripted, "mcp-matrix-bogus-cursor")
    code = (answer.get("error") or {}).get("code")
    assert code == -32602, f"tasks/list with a cursor the client never issued was answered {answer}, not -32602"


@for_req("tasks-error-invalid-cursor", "client")
def test_the_client_refuses_a_task_list_cursor_it_never_issued(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """A client that declared tasks.list answers a tasks/list whose cursor it never issued with error -32602."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_bogus_cursor_refused(scripted_stdio))


# -- the client as receiver: what it answers about the task it created (2025-11-25, stdio) -------------------
#
# As above, the task-augmented sampling request alone; once the client answers it with a CreateTaskResult, the
# scripted server asks it tasks/get, tasks/result (which blocks until the task ends) and tasks/list about that
# task (``task_followups``).

FOLLOWUPS = ["tasks/get", "tasks/result", "tasks/list"]


def followup_run(run_stdio_client: Any, scripted_stdio: Any, followups: list[str] = FOLLOWUPS) -> Any:
    """The task-augmented sampling request alone; once the client answers it with a CreateTaskResult, the
    scripted server asks it ``followups`` about that task, in order."""
    scripted_stdio.ask["tools/call"] = [TASK_SAMPLING]
    scripted_stdio.task_followups = followups
    return run_stdio_client("sampling_task_receiver")


def followup_result(scripted: Any, method: str) -> tuple[str, dict]:
    """The id of the client's task and its answer's result to our ``method`` about it (asserted to be one)."""
    task_id = created(scripted).get("taskId")
    answer = answer_to(scripted, f"mcp-matrix-followup-{method}")
    result = answer.get("result")
    assert isinstance(result, dict), f"the client answered {method} about its own task {task_id!r} with {answer}"
    return task_id, result


def check_ttl_reported(scripted: Any) -> None:
    _, result = followup_result(scripted, "tasks/get")
    assert "ttl" in result and (result["ttl"] is None or isinstance(result["ttl"], int)), (
        f"the client's tasks/get result states no ttl (milliseconds, or null): {result}"
    )


@for_req("tasks-ttl-reported", "client")
def test_the_clients_task_states_its_ttl(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """tasks/get about the task the client created: its result states the task's ttl (or null)."""
    run = followup_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_ttl_reported(scripted_stdio))


@for_req("tasks-poll-interval-hint", "client")
def test_the_client_may_suggest_a_poll_interval(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """tasks/get about the task the client created: its result may carry a pollInterval (not-exercised without)."""
    run = followup_run(run_stdio_client, scripted_stdio)
    run.require_completed()
    _, result = followup_result(scripted_stdio, "tasks/get")
    assert isinstance(result.get("pollInterval"), int), (
        f"the client's tasks/get result suggests no pollInterval: {result}"
    )


def check_result_verbatim(scripted: Any) -> None:
    _, result = followup_result(scripted, "tasks/result")
    outcome = {k: v for k, v in result.items() if k != "_meta"}
    wrong = schema.violations(scripted.revision, "CreateMessageResult", outcome)
    assert not wrong, f"tasks/result about the client's sampling task is not the sample it made: {wrong} ({result})"


@for_req("tasks-result-terminal-verbatim", "client")
def test_the_clients_task_result_is_the_sample(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """tasks/result about the task the client created (it blocks until the task ends): the sampling request's
    own result, a CreateMessageResult."""
    run = followup_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_result_verbatim(scripted_stdio))


def check_result_related(scripted: Any) -> None:
    task_id, result = followup_result(scripted, "tasks/result")
    related = ((result.get("_meta") or {}).get(RELATED_TASK) or {}).get("taskId")
    assert related == task_id, f"the client's tasks/result names related task {related!r}, not {task_id!r}: {result}"


@for_req("tasks-result-related-task", "client")
def test_the_clients_task_result_names_its_task(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """tasks/result about the task the client created carries _meta related-task with that task's id."""
    run = followup_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_result_related(scripted_stdio))


def check_no_related_in_results(scripted: Any) -> None:
    for method in ("tasks/get", "tasks/list"):
        _, result = followup_result(scripted, method)
        assert RELATED_TASK not in (result.get("_meta") or {}), f"the client's {method} result carries {RELATED_TASK}"


@for_req("tasks-receiver-omit-related-task", "client")
def test_the_clients_task_results_carry_no_related_task(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """The client's tasks/get and tasks/list results leave io.modelcontextprotocol/related-task out of _meta."""
    run = followup_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_no_related_in_results(scripted_stdio))


def check_listed(scripted: Any) -> None:
    if not isinstance(declared_tasks(scripted).get("list"), dict):
        pytest.skip("fixture-missing: the client declared no tasks.list")
    task_id, result = followup_result(scripted, "tasks/list")
    listed = [t.get("taskId") for t in result.get("tasks") or [] if isinstance(t, dict)]
    if task_id not in listed and result.get("nextCursor") is not None:
        pytest.skip(f"fixture-missing: the task may be on a later page of the client's list: {result}")
    assert task_id in listed, (
        f"the client's task {task_id!r}, which tasks/get reaches, is not in its tasks/list: {listed}"
    )


@for_req("tasks-list-covers-gettable", "client")
def test_the_clients_task_is_in_its_task_list(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The task the client created (tasks/get reaches it) is listed by the client's tasks/list."""
    run = followup_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_listed(scripted_stdio))


# Once its task has ended (tasks/result answered), the client is asked tasks/get and tasks/cancel about it.
AFTER_THE_END = ["tasks/result", "tasks/get", "tasks/cancel"]


def status_after_the_end(scripted: Any) -> str:
    """The status tasks/get shows once tasks/result has given the task's result (the task has ended); a
    tasks/result that gave none leaves the premise unmet (inconclusive: other cells judge that answer)."""
    task_id = created(scripted).get("taskId")
    ended = answer_to(scripted, "mcp-matrix-followup-tasks/result")
    precondition(isinstance(ended.get("result"), dict), f"tasks/result gave no result of task {task_id!r}: {ended}")
    _, result = followup_result(scripted, "tasks/get")
    return str(result.get("status"))


def check_still_terminal(scripted: Any) -> None:
    status = status_after_the_end(scripted)
    assert status in TERMINAL, f"once its result was given, the client's task went back to {status!r}"


@for_req("tasks-terminal-is-final", "client")
def test_the_clients_ended_task_stays_ended(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """Once tasks/result has given the task's result (so the task ended), tasks/get shows it still ended."""
    run = followup_run(run_stdio_client, scripted_stdio, AFTER_THE_END)
    run.judge(lambda: check_still_terminal(scripted_stdio))


def check_transitions(scripted: Any) -> None:
    first = created(scripted).get("status")
    last = status_after_the_end(scripted)
    assert first == last or last in ALLOWED_NEXT.get(str(first), set()), (
        f"the client's task went from {first!r} to {last!r}, not a transition the protocol allows"
    )


@for_req("tasks-valid-transitions", "client")
def test_the_clients_task_moves_only_as_allowed(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The status the client's task was created with, then the one tasks/get shows once it ended: an allowed
    move (working to completed, failed or cancelled, ...)."""
    run = followup_run(run_stdio_client, scripted_stdio, AFTER_THE_END)
    run.judge(lambda: check_transitions(scripted_stdio))


def check_cancel_of_ended_refused(scripted: Any) -> None:
    status = status_after_the_end(scripted)
    if status not in TERMINAL:
        pytest.skip(f"fixture-missing: the client's task had not ended ({status}) when it was cancelled")
    answer = answer_to(scripted, "mcp-matrix-followup-tasks/cancel")
    code = (answer.get("error") or {}).get("code")
    assert code == -32602, f"tasks/cancel of the client's {status} task was answered {answer}, not error -32602"


@for_req("tasks-cancel-terminal-rejected", "client")
def test_the_client_refuses_to_cancel_an_ended_task(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """tasks/cancel of the client's task once it has ended (its result given, tasks/get showing it ended):
    JSON-RPC error -32602."""
    run = followup_run(run_stdio_client, scripted_stdio, AFTER_THE_END)
    run.judge(lambda: check_cancel_of_ended_refused(scripted_stdio))


# -- the client as receiver: several tasks at once (2025-11-25, stdio) ---------------------------------------
#
# During the client's tool call the scripted server sends it MANY_TASKS task-augmented sampling requests at once:
# the first asks no ttl, the second the largest one JSON can carry exactly, the third proposes a task id of its
# own, the rest ask GRANTED_TTL_MS. Once each is answered with a CreateTaskResult, it asks tasks/get about each
# task (once with a related-task _meta naming another task), and tasks/list about the first.

MANY_TASKS = 12  # more than a page of the TypeScript SDK's task store (10), so that a listing must go on
HUGE_TTL_MS = 2**53 - 1


def many_task_samplings() -> list[dict]:
    asks = [{"ttl": GRANTED_TTL_MS} for _ in range(MANY_TASKS)]
    asks[0], asks[1], asks[2] = {}, {"ttl": HUGE_TTL_MS}, {"ttl": GRANTED_TTL_MS, "taskId": PROPOSED_ID}
    return [
        TASK_SAMPLING | {"id": f"{TASK_SAMPLING_ID}-{n}", "params": TASK_SAMPLING["params"] | {"task": task}}
        for n, task in enumerate(asks)
    ]


def many_tasks_run(run_stdio_client: Any, scripted_stdio: Any) -> Any:
    scripted_stdio.ask["tools/call"] = many_task_samplings()
    scripted_stdio.task_followups = ["tasks/get", "tasks/get#misled", "tasks/list@1"]
    return run_stdio_client("sampling_task_receiver")


def created_tasks(scripted: Any) -> list[dict]:
    """The task of each of the client's answers to the MANY_TASKS requests, in order (each asserted a task)."""
    declared_tasks(scripted)
    tasks = []
    for n in range(MANY_TASKS):
        answer = answer_to(scripted, f"{TASK_SAMPLING_ID}-{n}")
        task = (answer.get("result") or {}).get("task")
        assert isinstance(task, dict), f"a client that takes sampling as a task answered without a task: {answer}"
        tasks.append(task)
    return tasks


def followup_answer(scripted: Any, spec: str, number: int) -> dict:
    """The client's answer to our followup ``spec`` about the ``number``-th task it created (from 1)."""
    return answer_to(scripted, f"{FOLLOWUP_ID}{spec}" + ("" if number == 1 else f"@{number}"))


def check_ids_unique(scripted: Any) -> None:
    ids = [t.get("taskId") for t in created_tasks(scripted)]
    repeated = sorted({str(i) for i in ids if ids.count(i) > 1})
    assert not repeated, f"the client gave {len(ids)} tasks the ids {ids}: {repeated} more than once"


@for_req("tasks-id-unique", "client")
def test_no_two_of_the_clients_tasks_share_an_id(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """MANY_TASKS task-augmented sampling requests at once: the client's tasks have as many distinct ids."""
    run = many_tasks_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_ids_unique(scripted_stdio))


def check_id_minted(scripted: Any) -> None:
    task = created_tasks(scripted)[2]
    assert task.get("taskId") != PROPOSED_ID, f"the client took the task id the requestor proposed: {task}"


@for_req("tasks-id-receiver-generated", "client")
def test_the_client_mints_its_task_ids(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """A task-augmented sampling request whose task param proposes a taskId: the client's task has its own."""
    run = many_tasks_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_id_minted(scripted_stdio))


def check_ids_unguessable(scripted: Any) -> None:
    ids = [str(t.get("taskId")) for t in created_tasks(scripted)]
    bits = apparent_entropy_bits(ids)
    assert bits >= MIN_TASK_ID_BITS, f"about {bits:.0f} bits vary across the client's {len(ids)} task ids: {ids}"


@for_req("tasks-unguessable-ids", "client")
def test_the_clients_task_ids_cannot_be_guessed(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """A client binds its tasks to no authorization context (none comes with a server's requests): its task ids
    vary in at least MIN_TASK_ID_BITS bits' worth of positions across MANY_TASKS tasks."""
    run = many_tasks_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_ids_unguessable(scripted_stdio))


def check_ttl_capped(scripted: Any) -> None:
    unasked, huge = created_tasks(scripted)[:2]
    assert unasked.get("ttl") is not None and huge.get("ttl") is not None, (
        f"the client granted a task an unlimited lifetime (ttl null): asked none {unasked}; asked {HUGE_TTL_MS} {huge}"
    )


@for_req("tasks-max-ttl", "client")
def test_no_task_of_the_client_lives_forever(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """A task-augmented request asking no ttl, and one asking the largest: the client grants each a ttl."""
    run = many_tasks_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_ttl_capped(scripted_stdio))


def check_answered_for_param(scripted: Any, spec: str) -> None:
    """Each task the plain tasks/get still finds (a task the client already let go is no evidence either way):
    our ``spec`` tasks/get about it is answered with that task."""
    judged = []
    for number, task in enumerate(created_tasks(scripted), start=1):
        if "result" not in followup_answer(scripted, "tasks/get", number):
            continue
        answer = followup_answer(scripted, spec, number)
        answered = (answer.get("result") or {}).get("taskId")
        assert answered == task.get("taskId"), f"tasks/get of the client's task {task.get('taskId')!r}: {answer}"
        judged.append(answered)
    if not judged:
        pytest.skip("fixture-missing: tasks/get found none of the client's tasks")


@for_req("tasks-task-id-param-authoritative", "client")
def test_the_clients_tasks_get_answers_for_the_task_named(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """tasks/get about each of the client's MANY_TASKS tasks is answered with that task."""
    run = many_tasks_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_answered_for_param(scripted_stdio, "tasks/get"))


@for_req("tasks-receiver-ignore-related-task", "client")
def test_a_related_task_in_meta_does_not_redirect_the_clients_tasks_get(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """tasks/get about each of the client's tasks, its _meta naming a related task the client never created:
    answered with the task the taskId param names (not an error about the other, not the other)."""
    run = many_tasks_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_answered_for_param(scripted_stdio, f"tasks/get{MISLED}"))


def check_cursor_when_more(scripted: Any) -> None:
    if not isinstance(declared_tasks(scripted).get("list"), dict):
        pytest.skip("fixture-missing: the client declared no tasks.list")
    ids = {t.get("taskId") for t in created_tasks(scripted)}
    answer = followup_answer(scripted, "tasks/list", 1)
    page = answer.get("result")
    assert isinstance(page, dict), f"the client's tasks/list failed: {answer}"
    listed = {t.get("taskId") for t in page.get("tasks") or [] if isinstance(t, dict)}
    left_out = sorted(map(str, ids - listed))
    if not left_out:
        pytest.skip(f"fixture-missing: the client's first page lists all {len(ids)} of its tasks")
    assert page.get("nextCursor") is not None, (
        f"the client's tasks/list page leaves out {len(left_out)} of its tasks ({left_out}) yet gives no nextCursor"
    )


@for_req("tasks-list-next-cursor", "client")
def test_the_clients_task_list_page_gives_a_cursor_when_tasks_remain(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """tasks/list once the client holds MANY_TASKS tasks: a first page that leaves some out carries a nextCursor
    (a page that lists them all leaves nothing to judge)."""
    run = many_tasks_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_cursor_when_more(scripted_stdio))


# -- the client as receiver: one task, asked about (reusing RECEIVER_ASKS and followup_run above) ------------------


@for_req("tasks-ttl-override", "client")
def test_the_client_may_grant_another_ttl(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The task-augmented sampling request asks GRANTED_TTL_MS: the client may grant another lifetime
    (not-exercised when it grants the one asked for)."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.require_completed()
    task = created(scripted_stdio)
    if task.get("ttl") == GRANTED_TTL_MS:
        pytest.skip("not-exercised: the client granted the ttl asked for")


def check_prompt_creation(scripted: Any) -> None:
    task = created(scripted)
    assert task.get("status") not in TERMINAL, f"the client answered the request only once its task was {task}"


@for_req("tasks-create-task-result-promptly", "client")
def test_the_clients_create_task_result_comes_before_the_sample(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """A CreateTaskResult whose task has already ended was sent after the work, not on accepting it."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_prompt_creation(scripted_stdio))


def check_informative_errors(scripted: Any) -> None:
    declared_tasks(scripted)
    errors = [(m, answer_to(scripted, f"mcp-matrix-unknown-{m}").get("error")) for m in ("tasks/get", "tasks/result")]
    errors = [(m, e) for m, e in errors if isinstance(e, dict)]
    if not errors:
        pytest.skip("fixture-missing: the client refused no request for an unknown task")
    bare = [(m, e.get("message")) for m, e in errors if str(e.get("message", "")).strip().lower() in GENERIC_MESSAGES]
    assert not bare, f"the client's task errors say nothing of the cause: {bare}"


@for_req("tasks-error-messages-informative", "client")
def test_the_clients_task_errors_say_what_went_wrong(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The client's errors for tasks/get and tasks/result naming a task it never created say more than a bare
    'Invalid params'."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_informative_errors(scripted_stdio))


@for_req("tasks-may-require-augmentation", "client")
def test_the_client_may_refuse_a_plain_request_it_takes_as_a_task(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """Beside the task-augmented one, a plain sampling request: a client that declared it takes sampling as a task
    may refuse the plain one with -32600 (not-exercised when it samples it)."""
    run = receiver_run(run_stdio_client, scripted_stdio)
    run.require_completed()
    declared_tasks(scripted_stdio)
    answer = answer_to(scripted_stdio, PLAIN_SAMPLING["id"])
    if error_code(answer) != -32600:
        pytest.skip(f"not-exercised: the plain sampling request was not refused with -32600: {answer}")


def the_clients_frames(scripted: Any) -> list[dict]:
    return [f for f in scripted.record.frames() if isinstance(f, dict)]


def task_status_notes(scripted: Any, task_id: Any) -> list[dict]:
    notes = status_notifications(the_clients_frames(scripted))
    return [n for n in notes if (n.get("params") or {}).get("taskId") == task_id]


@for_req("tasks-status-notification-optional", "client")
def test_the_client_may_notify_its_tasks_status(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The client's task runs to its end (tasks/result awaited): it may send notifications/tasks/status, each
    carrying the whole task (not-exercised when it sends none)."""
    run = followup_run(run_stdio_client, scripted_stdio)
    run.require_completed()
    notes = task_status_notes(scripted_stdio, created(scripted_stdio).get("taskId"))
    if not notes:
        pytest.skip("not-exercised: the client sent no notifications/tasks/status")
    problems = [p for n in notes for p in schema.violations(revision, "TaskStatusNotification", n)]
    assert not problems, f"the client's status notification does not carry its task: {problems}"


def check_status_notes_unmarked(scripted: Any) -> None:
    notes = task_status_notes(scripted, created(scripted).get("taskId"))
    if not notes:
        pytest.skip("fixture-missing: the client sent no notifications/tasks/status")
    marked = [n for n in notes if related_task(n.get("params")) is not None]
    assert not marked, f"the client's status notifications carry {RELATED_TASK} in _meta: {marked}"


@for_req("tasks-status-notification-no-related-task", "client")
def test_the_clients_status_notifications_carry_no_related_task(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """The client's notifications/tasks/status about its task leave io.modelcontextprotocol/related-task out."""
    run = followup_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_status_notes_unmarked(scripted_stdio))


def check_result_after_the_end(scripted: Any) -> None:
    task_id = created(scripted).get("taskId")
    before = followup_answer(scripted, "tasks/get", 1).get("result") or {}
    precondition(before.get("status") not in TERMINAL, f"the task had ended before tasks/result was asked: {before}")
    ended = answer_to(scripted, f"{FOLLOWUP_ID}tasks/result")
    precondition("result" in ended or "error" in ended, f"tasks/result about task {task_id!r}: {ended}")
    after = answer_to(scripted, f"{FOLLOWUP_ID}tasks/get#after").get("result") or {}
    assert after.get("status") in TERMINAL, (
        f"the client answered tasks/result about task {task_id!r} while it was still {after.get('status')!r}: {ended}"
    )


@for_req("tasks-result-blocks-until-terminal", "client")
def test_the_clients_tasks_result_waits_for_the_end(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """tasks/get shows the client's task not yet ended; then tasks/result, which the client holds until the task
    ends; then tasks/get again, which shows the task ended."""
    run = followup_run(run_stdio_client, scripted_stdio, ["tasks/get", "tasks/result", "tasks/get#after"])
    run.judge(lambda: check_result_after_the_end(scripted_stdio))


def check_related_messages(scripted: Any) -> None:
    task_id, result = followup_result(scripted, "tasks/result")
    frames = the_clients_frames(scripted)
    start = next(n for n, f in enumerate(frames) if "method" not in f and f.get("id") == TASK_SAMPLING_ID)
    end = next(n for n, f in enumerate(frames) if "method" not in f and f.get("id") == f"{FOLLOWUP_ID}tasks/result")
    tied = [("tasks/result response", result)]
    tied += [(f["method"], f.get("params")) for f in frames[start:end] if "method" in f and "id" in f]
    wrong = [(what, related_task(part)) for what, part in tied if (related_task(part) or {}).get("taskId") != task_id]
    assert not wrong, f"messages of the client's task {task_id!r} without its {RELATED_TASK}: {wrong}"


@for_req("tasks-related-task-meta", "client")
def test_the_clients_task_messages_name_the_task(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The client's tasks/result response about its task, and any request it sends while the task runs (the
    scripted server's own are left out), name the task in _meta io.modelcontextprotocol/related-task."""
    run = followup_run(run_stdio_client, scripted_stdio)
    run.judge(lambda: check_related_messages(scripted_stdio))


# -- the client as receiver: a task that reports progress, cancelled or run to its end (2025-11-25, stdio) ------

TASK_PROGRESS_TOKEN = "mcp-matrix-task-progress"
PROGRESSING_SAMPLING = TASK_SAMPLING | {
    "params": TASK_SAMPLING["params"] | {"_meta": {"progressToken": TASK_PROGRESS_TOKEN}},
}
# Cancelled at once; tasks/get right after; then, once the task's work has reported its end (or the wait is
# over), tasks/get again.
CANCEL_FOLLOWUPS = ["tasks/cancel", "tasks/get", PROGRESS_ENDED, "tasks/get#later"]


def progressing_run(run_stdio_client: Any, scripted_stdio: Any, followups: list[str]) -> Any:
    scripted_stdio.ask["tools/call"] = [PROGRESSING_SAMPLING]
    scripted_stdio.task_followups = followups
    return run_stdio_client("sampling_task_receiver")


def cancelled_answer(scripted: Any) -> tuple[Any, dict]:
    """The client's task and its answer to our tasks/cancel about it (a result: else the premise is unmet)."""
    if not isinstance(declared_tasks(scripted).get("cancel"), dict):
        pytest.skip("fixture-missing: the client declared no tasks.cancel")
    task = created(scripted)
    answer = answer_to(scripted, f"{FOLLOWUP_ID}tasks/cancel")
    precondition(isinstance(answer.get("result"), dict), f"tasks/cancel of the client's working task: {answer}")
    return task.get("taskId"), answer["result"]


def check_cancelled_on_answer(scripted: Any) -> None:
    task_id, result = cancelled_answer(scripted)
    assert result.get("status") == "cancelled", f"tasks/cancel of the client's task {task_id!r} answered {result}"
    after = answer_to(scripted, f"{FOLLOWUP_ID}tasks/get")
    if "result" in after:  # a cancelled task may be deleted at once
        assert after["result"].get("status") == "cancelled", f"after tasks/cancel, tasks/get says {after['result']}"


@for_req("tasks-cancel-status-before-response", "client")
def test_the_clients_cancelled_task_is_cancelled_when_it_answers(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """tasks/cancel of the client's working task: the answer shows it cancelled, and so does tasks/get after it."""
    run = progressing_run(run_stdio_client, scripted_stdio, CANCEL_FOLLOWUPS)
    run.judge(lambda: check_cancelled_on_answer(scripted_stdio))


def check_cancelled_sticky(scripted: Any) -> None:
    task_id, _ = cancelled_answer(scripted)
    later = answer_to(scripted, f"{FOLLOWUP_ID}tasks/get#later")
    if "result" not in later:
        pytest.skip(f"fixture-missing: the client kept no cancelled task to ask about: {later}")
    since = place_of_answer(scripted, f"{FOLLOWUP_ID}tasks/cancel")
    notified = [
        (f.get("params") or {}).get("status")
        for n, f in enumerate(the_clients_frames(scripted))
        if n > since
        and f.get("method") == "notifications/tasks/status"
        and (f.get("params") or {}).get("taskId") == task_id
    ]
    statuses = [later["result"].get("status"), *notified]
    assert set(statuses) == {"cancelled"}, (
        f"once its work had had time to end, the client's cancelled task {task_id!r} was {statuses} (tasks/get, "
        "then the status notifications since the cancel)"
    )


@for_req("tasks-cancelled-sticky", "client")
def test_the_clients_cancelled_task_stays_cancelled(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """tasks/cancel of the client's working task, then, once its work has reported its end (its progress at the
    total: work that goes on regardless), tasks/get: still cancelled; so is every status notification since."""
    run = progressing_run(run_stdio_client, scripted_stdio, CANCEL_FOLLOWUPS)
    run.judge(lambda: check_cancelled_sticky(scripted_stdio))


@for_req("tasks-cancelled-may-delete", "client")
def test_the_client_may_delete_a_cancelled_task(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """tasks/get right after tasks/cancel of the client's task: the client may have deleted it (not-exercised when
    it is kept)."""
    run = progressing_run(run_stdio_client, scripted_stdio, CANCEL_FOLLOWUPS)
    run.require_completed()
    cancelled_answer(scripted_stdio)
    if "result" in answer_to(scripted_stdio, f"{FOLLOWUP_ID}tasks/get"):
        pytest.skip("not-exercised: the client keeps its cancelled task")


def progress_of_task(scripted: Any) -> list[tuple[int, dict]]:
    """The client's notifications/progress with the task-augmented request's token, with their place among the
    client's frames."""
    return [
        (n, f)
        for n, f in enumerate(the_clients_frames(scripted))
        if f.get("method") == "notifications/progress"
        and (f.get("params") or {}).get("progressToken") == TASK_PROGRESS_TOKEN
    ]


def place_of_answer(scripted: Any, request_id: str) -> int:
    """Where, among the client's frames, its answer to our ``request_id`` is (asserted to be there)."""
    answer_to(scripted, request_id)
    return next(
        n for n, f in enumerate(the_clients_frames(scripted)) if "method" not in f and f.get("id") == request_id
    )


def progress_after_cancellation(scripted: Any) -> tuple[Any, dict, list[dict]]:
    """The client's task, its answer to our tasks/cancel, and the progress of the task after that answer."""
    task_id, result = cancelled_answer(scripted)
    since = place_of_answer(scripted, f"{FOLLOWUP_ID}tasks/cancel")
    return task_id, result, [f["params"] for n, f in progress_of_task(scripted) if n > since]


def check_work_stopped(scripted: Any) -> None:
    _, _, after = progress_after_cancellation(scripted)
    if not progress_of_task(scripted):
        pytest.skip("fixture-missing: the client's task reported no progress, so its work is not seen")
    assert not after, f"the client's task went on working after tasks/cancel was answered: progress {after}"


@for_req("tasks-cancel-stop-execution", "client")
def test_the_clients_cancelled_task_stops_working(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The task-augmented sampling request asks for progress, so the task's work is seen; tasks/cancel at once:
    no progress of the task follows the client's answer to it."""
    run = progressing_run(run_stdio_client, scripted_stdio, CANCEL_FOLLOWUPS)
    run.judge(lambda: check_work_stopped(scripted_stdio))


def check_failure_explained(scripted: Any) -> None:
    _, result = followup_result(scripted, "tasks/get")
    if result.get("status") != "failed":
        pytest.skip(f"fixture-missing: the client's task whose model failed ended {result.get('status')!r}")
    message = result.get("statusMessage")
    assert isinstance(message, str) and message.strip(), f"the client's failed task carries no statusMessage: {result}"


@for_req("tasks-failed-status-message", "client")
def test_the_clients_failed_task_says_why(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """The host's model fails the sample (scenario ``sampling_task_receiver_model_fails``); once tasks/result has
    answered, tasks/get about the failed task carries a statusMessage."""
    scripted_stdio.ask["tools/call"] = [TASK_SAMPLING]
    scripted_stdio.task_followups = ["tasks/result", "tasks/get"]
    run = run_stdio_client("sampling_task_receiver_model_fails")
    run.judge(lambda: check_failure_explained(scripted_stdio))


@for_req("tasks-delete-after-ttl", "client")
def test_the_client_may_delete_a_task_once_its_ttl_has_run_out(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """A task-augmented sampling request asking a ttl of SHORT_TTL_MS; tasks/get once the CreateTaskResult came
    (a round trip later: the lifetime is over): the client may have deleted the task, and then refuses with -32602
    (not-exercised when it granted a longer ttl or kept the task)."""
    short = {"task": {"ttl": SHORT_TTL_MS}}
    scripted_stdio.ask["tools/call"] = [TASK_SAMPLING | {"params": TASK_SAMPLING["params"] | short}]
    scripted_stdio.task_followups = ["tasks/get"]
    run = run_stdio_client("sampling_task_receiver")
    run.require_completed()
    ttl = created(scripted_stdio).get("ttl")
    if ttl != SHORT_TTL_MS:
        pytest.skip(f"not-exercised: the client granted a ttl of {ttl!r} ms, not the {SHORT_TTL_MS} ms asked")
    answer = answer_to(scripted_stdio, f"{FOLLOWUP_ID}tasks/get")
    if "result" in answer:
        pytest.skip(f"not-exercised: the task outlived its {ttl} ms ttl: {answer['result']}")
    assert error_code(answer) == -32602, f"tasks/get of the client's expired task: {answer}"


# Run to its end: tasks/result (the end), then tasks/get.
END_FOLLOWUPS = ["tasks/result", "tasks/get"]


def check_token_kept(scripted: Any) -> None:
    created(scripted)
    since = place_of_answer(scripted, TASK_SAMPLING_ID)
    later = [
        f.get("params") or {}
        for n, f in enumerate(the_clients_frames(scripted))
        if n > since and f.get("method") == "notifications/progress"
    ]
    if not later:
        pytest.skip("fixture-missing: the client reported no progress once it had created its task")
    wrong = [p for p in later if p.get("progressToken") != TASK_PROGRESS_TOKEN]
    assert not wrong, (
        f"after its CreateTaskResult the client's progress carries other tokens than {TASK_PROGRESS_TOKEN!r}: {wrong}"
    )


@for_req("progress-task-token-persists", "client")
def test_the_clients_task_progress_keeps_the_requests_token(
    revision: str, run_stdio_client: Any, scripted_stdio: Any
) -> None:
    """A task-augmented sampling request asking for progress: the progress the client reports once it has
    answered with its task carries the request's progressToken."""
    run = progressing_run(run_stdio_client, scripted_stdio, END_FOLLOWUPS)
    run.judge(lambda: check_token_kept(scripted_stdio))


def check_no_progress_after_the_end(scripted: Any) -> None:
    task_id = created(scripted).get("taskId")
    ends = [place_of_answer(scripted, f"{FOLLOWUP_ID}tasks/result")]
    frames = the_clients_frames(scripted)
    ends += [
        n
        for n, f in enumerate(frames)
        if f.get("method") == "notifications/tasks/status"
        and (f.get("params") or {}).get("taskId") == task_id
        and (f.get("params") or {}).get("status") in TERMINAL
    ]
    late = [f["params"] for n, f in progress_of_task(scripted) if n > min(ends)]
    assert not late, f"the client reported progress of its task {task_id!r} after the task had ended: {late}"


def check_no_progress_once_cancelled(scripted: Any) -> None:
    task_id, result, late = progress_after_cancellation(scripted)
    if result.get("status") != "cancelled":
        pytest.skip(f"fixture-missing: tasks/cancel left the client's task {result.get('status')!r}")
    assert not late, f"the client reported progress of its task {task_id!r} after answering it cancelled: {late}"


@for_req("progress-task-stop-at-terminal", "client")
def test_the_clients_task_progress_stops_at_its_end(revision: str, run_stdio_client: Any, scripted_stdio: Any) -> None:
    """A task-augmented sampling request asking for progress, the task awaited to its end (tasks/result): no
    progress of the task follows the first sign of its end (the tasks/result answer, a terminal status
    notification). Then, from a client that declares tasks.cancel, another such task cancelled at once: no
    progress of it follows its answer to tasks/cancel (cancelled is terminal too)."""
    run = progressing_run(run_stdio_client, scripted_stdio, END_FOLLOWUPS)
    run.judge(lambda: check_no_progress_after_the_end(scripted_stdio))
    if isinstance(declared_tasks(scripted_stdio).get("cancel"), dict):
        run = progressing_run(run_stdio_client, scripted_stdio, CANCEL_FOLLOWUPS)
        run.judge(lambda: check_no_progress_once_cancelled(scripted_stdio))


# -- the client as requestor over Streamable HTTP: its task messages on the transport (2025-11-25) ----------------


def task_posts(server: Any) -> list[Any]:
    """The client's POSTs that carry a request of the tasks utility (tasks/get, tasks/result, tasks/list, ...)."""
    return [
        r
        for r in server.received
        if r.method == "POST" and any(str(f.get("method", "")).startswith("tasks/") for f in r.frames)
    ]


def check_task_posts_by_the_rules(server: Any, revision: str) -> None:
    posts = task_posts(server)
    if not posts:
        pytest.skip("fixture-missing: the client sent no request of the tasks utility")
    issued = server.session_id is not None or bool(server.ended_sessions)
    for post in posts:
        methods = [f.get("method") for f in post.frames]
        accept = post.headers.get("accept", "")
        assert "application/json" in accept and "text/event-stream" in accept, (
            f"the client's POST of {methods} accepts {accept!r}, not both JSON and an event stream"
        )
        assert post.headers.get("mcp-protocol-version") == revision, (
            f"the client's POST of {methods} names protocol version {post.headers.get('mcp-protocol-version')!r}"
        )
        assert not issued or post.headers.get("mcp-session-id"), f"the client's POST of {methods} names no session"


@for_req("tasks-streamable-http-rules-still-apply", "client")
def test_the_clients_task_requests_keep_the_transports_rules(
    revision: str, run_client: Any, scripted_server: Any
) -> None:
    """The client polls and fetches its tasks (``task_tool_calls``): every POST carrying a tasks/* request keeps
    the Streamable HTTP rules for a client's POST (Accept naming JSON and event streams, MCP-Protocol-Version
    naming the negotiated revision, the session's Mcp-Session-Id)."""
    ScriptedTasks(scripted_server)
    run_client("task_tool_calls").judge(lambda: check_task_posts_by_the_rules(scripted_server, revision))


def input_required_task(tasks: ScriptedTasks) -> Any:
    """A predicate: a task has been reported input_required to the client."""
    return lambda: any("input_required" in task["answered"] for task in tasks.tasks.values())


@for_req("tasks-client-any-sse-stream", "client")
def test_the_client_takes_task_messages_on_its_get_stream(revision: str, run_client: Any, scripted_server: Any) -> None:
    """The client's task moves to input_required; the request the task waits on (a ping naming the task in
    related-task _meta) comes on the client's standalone GET stream, and tasks/result is answered only once
    the client has answered it (bounded): the client takes the task's message there."""
    tasks = ScriptedTasks(scripted_server, input_required=True)
    ping = scripted_server.client_answers.request("ping", {"_meta": {RELATED_TASK: {"taskId": "mcp-matrix-task-1"}}})
    scripted_server.get_stream = GetStreamScript(events=[ping], send_when=input_required_task(tasks))
    scripted_server.gates["tasks/result"] = scripted_server.answered(ping["id"])
    run = run_client("task_tool_calls")

    def check() -> None:
        if not input_required_task(tasks)():
            pytest.skip("fixture-missing: no task of the client's reached input_required")
        if not settled_streams(scripted_server, "GET"):
            pytest.skip("fixture-missing: the client opened no GET stream")
        assert scripted_server.answered(ping["id"])(), (
            "the client never answered the request its input_required task waited on, sent on its GET stream"
        )

    run.judge(check)


@for_req("tasks-client-may-drop-sse", "client")
def test_the_client_may_leave_a_task_result_stream(revision: str, run_client: Any, scripted_server: Any) -> None:
    """The first tasks/result is answered on an SSE stream that carries the result only after GATE_SECONDS: the
    client may disconnect from it first (not-exercised when it waits for the result)."""
    ScriptedTasks(scripted_server)
    scripted_server.streams["tasks/result"] = StreamScript(respond_when=lambda: False)
    run_client("task_tool_calls").require_completed()
    streams = settled_streams(scripted_server, "tasks/result")
    if not streams:
        pytest.skip("fixture-missing: the client never asked for a task's result")
    if not any(s.ended_by == "client" for s in streams):
        pytest.skip("not-exercised: the client stayed on every tasks/result stream to its end")
