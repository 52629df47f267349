"""Progress, server side: the progress notifications the server sends, and the progress tokens of the
requests it issues (docs/spec/requirements.md, progress).

The server's notifications come from the official suite's ``test_tool_with_progress`` (progress 0, 50
and 100 of 100, 50 ms apart, when the request carries a ``progressToken``); the requests the server
issues (before 2026-07-28) from the tool of role ``timed-request-tool`` (a ping with a progress token) or,
on a target without one, ``sampling-tool``. ``Wire`` (test_cancellation.py) keeps every
frame in order, with the requests still in flight when it came.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from conformance.harness import schema
from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import Peer
from conformance.harness.roles import bound, require_role
from conformance.harness.scripted_server import Pace, ScriptedPeer
from conformance.harness.timing import Event, Timeline, script
from conformance.harness.wire import (
    Seen,
    Wire,
    answers,
    is_response,
    params_of,
    tool_call,
)
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun

TOKEN = "progress-token-1"
CALL_ID = "progress-call"
PRINTABLE = re.compile(r"^[^\x00-\x08\x0b-\x1f\x7f]+$")


def progress_run(peer: Peer, tokens: tuple[Any, ...] = (TOKEN,)) -> Wire:
    """Call the progress tool once per token, concurrently, then ``tools/list``; every frame kept."""
    bound(peer, "progress-tool")
    peer.open()
    tool = require_role(peer, "progress-tool")
    wire = Wire(peer)
    calls = [wire.send(tool_call(peer, f"{CALL_ID}-{i}", tool.name, tool.args(), t)) for i, t in enumerate(tokens)]
    for call in calls:
        wire.answer(call.id)
    wire.answer(wire.send(peer.envelope("tools/list", "after")).id)  # the probe that follows the call
    wire.settle()
    return wire


def progress_of(wire: Wire) -> list[Seen]:
    return wire.notifications("notifications/progress")


def series(wire: Wire, token: Any) -> list[Any]:
    return [
        params_of(s.frame).get("progress")
        for s in progress_of(wire)
        if params_of(s.frame).get("progressToken") == token
    ]


def check_notification_content(revision: str, wire: Wire) -> None:
    """Each notification carries the request's token, the progress so far and optionally total (and
    message from 2025-03-26): the revision's ProgressNotification, as published."""
    for seen in progress_of(wire):
        assert params_of(seen.frame).get("progressToken") == TOKEN, f"a notification for another token: {seen.frame}"
        # Before 2025-11-25 the schema's ProgressNotification leaves the JSON-RPC envelope to JSONRPCNotification.
        envelope = schema.revision_schema(revision)
        listed = envelope[schema.definitions_key(envelope)]["ProgressNotification"].get("properties", {})
        notification = {k: v for k, v in seen.frame.items() if k in listed or k != "jsonrpc"}
        problems = schema.violations(revision, "ProgressNotification", notification)
        assert not problems, f"{seen.frame}:\n" + "\n".join(problems)


def check_increasing(wire: Wire) -> None:
    values = series(wire, TOKEN)
    assert all(isinstance(v, int | float) and not isinstance(v, bool) for v in values), f"progress values {values}"
    assert all(a < b for a, b in itertools.pairwise(values)), f"progress did not increase: {values}"


def check_human_messages(wire: Wire) -> None:
    """A message, where there is one, is text for a person: words, no control characters, not data."""
    for seen in progress_of(wire):
        message = params_of(seen.frame).get("message")
        if message is None:
            continue
        assert isinstance(message, str) and message.strip(), f"an empty or non-text message: {seen.frame}"
        assert PRINTABLE.match(message) and re.search(r"[^\W\d_]{2,}", message), f"not words: {message!r}"
        try:
            json.loads(message)
        except ValueError:
            continue
        raise AssertionError(f"the message is data, not text for a person: {message!r}")


def check_active_tokens(wire: Wire) -> None:
    """Each notification names the token of a request of the client still in flight when it came."""
    for seen in progress_of(wire):
        active = {params_of(r).get("_meta", {}).get("progressToken") for r in seen.client_requests.values()} - {None}
        token = params_of(seen.frame).get("progressToken")
        assert token in active, f"{seen.frame} names no active token (active then: {sorted(map(repr, active))})"


def check_none_after_completion(wire: Wire) -> None:
    done = next(i for i, s in enumerate(wire.seen) if answers(s.frame, f"{CALL_ID}-0"))
    late = [s.frame for s in wire.seen[done + 1 :] if s.frame.get("method") == "notifications/progress"]
    assert not late, f"progress after the request's response: {late}"


@for_req("progress-notifications-optional", "server", transports=BOTH_TRANSPORTS)
def test_progress_notifications_carry_token_progress_and_total(revision: str, transport: str, peer: Peer) -> None:
    check_notification_content(revision, progress_run(peer))


@for_req("progress-server-notifications-optional", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_servers_progress_carries_token_progress_and_total(revision: str, transport: str, peer: Peer) -> None:
    check_notification_content(revision, progress_run(peer))


@for_req("progress-value-increases", "server", transports=BOTH_TRANSPORTS)
def test_progress_increases_with_each_notification(revision: str, transport: str, peer: Peer) -> None:
    check_increasing(progress_run(peer))


@for_req("progress-server-value-increases", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_servers_progress_increases(revision: str, transport: str, peer: Peer) -> None:
    check_increasing(progress_run(peer))


@for_req("progress-message-human-readable", "server", transports=BOTH_TRANSPORTS)
def test_a_progress_message_is_for_a_human_reader(revision: str, transport: str, peer: Peer) -> None:
    check_human_messages(progress_run(peer))


@for_req("progress-server-message-human-readable", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_servers_progress_message_is_for_a_human_reader(revision: str, transport: str, peer: Peer) -> None:
    check_human_messages(progress_run(peer))


@for_req("progress-reference-active-token", "server", transports=BOTH_TRANSPORTS)
def test_progress_names_only_active_tokens(revision: str, transport: str, peer: Peer) -> None:
    check_active_tokens(progress_run(peer))


@for_req("progress-server-reference-active-token", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_servers_progress_names_only_active_tokens(revision: str, transport: str, peer: Peer) -> None:
    check_active_tokens(progress_run(peer))


@for_req("progress-stop-after-completion", "server", transports=BOTH_TRANSPORTS)
def test_no_progress_after_completion(revision: str, transport: str, peer: Peer) -> None:
    check_none_after_completion(progress_run(peer))


@for_req("progress-server-stop-after-completion", "server", transports=BOTH_TRANSPORTS)
def test_a_modern_server_sends_no_progress_after_completion(revision: str, transport: str, peer: Peer) -> None:
    check_none_after_completion(progress_run(peer))


@for_req("progress-track-tokens", "server", transports=BOTH_TRANSPORTS)
def test_concurrent_progress_tokens_are_kept_apart(revision: str, transport: str, peer: Peer) -> None:
    """Two requests in flight at once, each with its own token: each token gets its own rising series."""
    tokens = ("track-a", "track-b")
    wire = progress_run(peer, tokens)
    named = {params_of(s.frame).get("progressToken") for s in progress_of(wire)}
    assert named <= set(tokens), f"notifications named {sorted(map(repr, named - set(tokens)))}"
    check_active_tokens(wire)
    for token in tokens:
        values = series(wire, token)
        assert all(a < b for a, b in itertools.pairwise(values)), f"{token}: {values}"


# -- the progress tokens of the requests the server issues (before 2026-07-28) --------------------

# The roles whose tools make the server send the client a request during the call: the timed request
# (a ping the SDK sends with a progress token: its session's send_request with a progress callback), else
# sampling, and the arguments that make each ask and wait for the answer.
ASKING_ROLES = {"timed-request-tool": {"method": "ping", "timeout": 5}, "sampling-tool": {}}
CLIENT_ANSWERS = {"ping": {}}


def server_requests(peer: Peer, count: int) -> list[dict]:
    """``count`` tool calls in flight at once, each making the server send the client a request; the
    server's requests, all in flight together (answered only once the last has come)."""
    role = next((r for r in ASKING_ROLES if r in peer.roles), "sampling-tool")
    bound(peer, role)
    peer.open({"sampling": {}})
    tool = require_role(peer, role)
    wire = Wire(peer)
    arguments = tool.args(**ASKING_ROLES[role])
    calls = [wire.send(tool_call(peer, f"asking-{i}", tool.name, arguments)) for i in range(count)]
    asked: list[dict] = []
    while len(asked) < count:
        frame = wire.until(lambda f: "id" in f, "request from the server")
        if is_response(frame) and frame["id"] in {c.id for c in calls}:
            pytest.skip(f"fixture-missing: {tool.name} sent the client no request ({frame})")
        if not is_response(frame):
            asked.append(frame)
    for request in asked:  # let the calls end, where the harness knows the answer
        if request.get("method") in CLIENT_ANSWERS:
            peer.send({"jsonrpc": "2.0", "id": request["id"], "result": CLIENT_ANSWERS[request["method"]]})
    return asked


def token_of(request: dict) -> Any:
    meta = params_of(request).get("_meta")
    return meta.get("progressToken") if isinstance(meta, dict) else None


@for_req("progress-token-type", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_progress_tokens_are_strings_or_integers(revision: str, transport: str, peer: Peer) -> None:
    for request in requests_with_tokens(server_requests(peer, 1)):
        token = token_of(request)
        valid = isinstance(token, str | int) and not isinstance(token, bool)
        assert valid, f"progressToken {token!r} in {request}"


@for_req("progress-token-unique", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_concurrent_requests_have_distinct_progress_tokens(
    revision: str, transport: str, peer: Peer
) -> None:
    tokens = [json.dumps(token_of(r)) for r in requests_with_tokens(server_requests(peer, 2))]
    assert len(tokens) == len(set(tokens)), f"two requests in flight share a progressToken: {tokens}"


def requests_with_tokens(requests: list[dict]) -> list[dict]:
    """The server's requests that ask for progress; none leaves the requirement unexercised, not met."""
    carrying = [r for r in requests if token_of(r) is not None]
    if not carrying:
        pytest.skip("fixture-missing: the server put a progressToken on none of its requests")
    return carrying


# -- the progress of a task (2025-11-25) ------------------------------------------------------------------
#
# The task tool is the one the server declares (``execution.taskSupport`` optional or required, on a server
# whose capabilities declare ``tasks.requests.tools.call``), called task-augmented with a progress token and
# the least arguments its inputSchema asks for; ``tasks/result`` waits for the task to end.

TASK_TOKEN = "task-progress-token"
TASK_BOUND = 30.0  # seconds a task may take to end (a bound on the wait for tasks/result, never a sleep)
TERMINAL = ("completed", "failed", "cancelled")
PLACEHOLDERS = {"string": "mcp-matrix", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}


def declared_task_tool(peer: Peer) -> dict:
    """The first tool the server lists for task-augmented calls, or fixture-missing."""
    peer.open()
    tasks = ((peer.initialized or {}).get("capabilities") or {}).get("tasks")
    if not isinstance((((tasks or {}).get("requests") or {}).get("tools") or {}).get("call"), dict):
        pytest.skip(f"fixture-missing: the server declares no tasks.requests.tools.call: {tasks}")
    for tool in peer.rpc("tools/list", check=False).get("result", {}).get("tools", []):
        if ((tool.get("execution") or {}).get("taskSupport")) in ("optional", "required"):
            return tool
    pytest.skip("fixture-missing: the server lists no tool whose execution.taskSupport is optional or required")


def least_arguments(tool: dict) -> dict:
    schema_ = tool.get("inputSchema") or {}
    properties = schema_.get("properties") or {}

    def value(prop: dict) -> Any:
        if "default" in prop:
            return prop["default"]
        if prop.get("enum"):
            return prop["enum"][0]
        return PLACEHOLDERS.get(prop.get("type") if isinstance(prop.get("type"), str) else "string", "mcp-matrix")

    return {name: value(properties.get(name) or {}) for name in schema_.get("required") or []}


def task_run(peer: Peer) -> tuple[Wire, int, int]:
    """A task-augmented call with a progress token, run to its end; the wire, the index of the frame that
    created the task (its CreateTaskResult) and of the first sign the task had ended (a terminal status
    notification, or the answer to tasks/result), then a tools/list after it."""
    tool = declared_task_tool(peer)
    wire = Wire(peer)
    params = {
        "name": tool["name"],
        "arguments": least_arguments(tool),
        "task": {},
        "_meta": {"progressToken": TASK_TOKEN},
    }
    created = wire.answer(wire.send(peer.envelope("tools/call", "task-call", params)).id)
    task_id = ((created.get("result") or {}).get("task") or {}).get("taskId")
    if not isinstance(task_id, str):
        pytest.skip(f"fixture-missing: the task-augmented call of {tool['name']} created no task: {created}")
    made = next(i for i, s in enumerate(wire.seen) if answers(s.frame, "task-call"))
    ended = wire.send(peer.envelope("tasks/result", "task-result", {"taskId": task_id}))
    wire.until(lambda f: answers(f, ended.id), "answer to tasks/result", timeout=TASK_BOUND)
    wire.answer(wire.send(peer.envelope("tools/list", "after-task")).id)
    wire.settle()
    terminal = next(
        i
        for i, s in enumerate(wire.seen)
        if answers(s.frame, ended.id)
        or (s.frame.get("method") == "notifications/tasks/status" and params_of(s.frame).get("status") in TERMINAL)
    )
    return wire, made, terminal


def task_progress(wire: Wire, start: int = 0) -> list[dict]:
    return [s.frame for s in wire.seen[start:] if s.frame.get("method") == "notifications/progress"]


@for_req("progress-task-token-persists", "server", transports=BOTH_TRANSPORTS)
def test_a_tasks_progress_keeps_the_token_of_its_request(revision: str, transport: str, peer: Peer) -> None:
    wire, made, _ = task_run(peer)
    after = task_progress(wire, made + 1)
    if not after:
        pytest.skip("fixture-missing: the server reported no progress of the task after creating it")
    other = [f for f in task_progress(wire) if params_of(f).get("progressToken") != TASK_TOKEN]
    assert not other, f"the task's progress under another token than its request's {TASK_TOKEN!r}: {other}"


@for_req("progress-task-stop-at-terminal", "server", transports=BOTH_TRANSPORTS)
def test_no_progress_once_a_task_has_ended(revision: str, transport: str, peer: Peer) -> None:
    wire, made, terminal = task_run(peer)
    if not task_progress(wire, made + 1):
        pytest.skip("fixture-missing: the server reported no progress of the task after creating it")
    late = task_progress(wire, terminal + 1)
    assert not late, f"progress after the task had ended: {late}"


# -- the client side: the progress tokens of its requests, the progress it reports --------------------------
#
# The client under test (the SDK's through the driver's scenarios, conformance/fixtures/client.py) asks for
# progress on calls that the scripted server holds, with progress for each (``concurrent_progress``: several
# at once, abandoned once each has had progress); and, before 2026-07-28, answers a sampling request of the
# scripted server that carries a progressToken, reporting progress as it does (``report_progress``).

PROGRESS_EVERY = 0.05  # the held calls' progress: the first comes at once
HELD_WITH_PROGRESS = Pace(delay=None, progress_every=PROGRESS_EVERY)
SAMPLING_TOKEN = "mcp-matrix-sampling-progress"  # the progressToken of the scripted server's sampling request
SAMPLING_PARAMS = {
    "messages": [{"role": "user", "content": {"type": "text", "text": "Hello"}}],
    "maxTokens": 16,
    "_meta": {"progressToken": SAMPLING_TOKEN},
}
# The tool call during which the scripted server asks the client for sampling, with progress, then answers.
ASKS_FOR_SAMPLING = Pace(
    delay=0.0, ask=("sampling/createMessage",), ask_params={"sampling/createMessage": SAMPLING_PARAMS}
)
RunClient = Callable[[str], ClientRun]


def client_requests_with_tokens(timeline: Timeline) -> list[Event]:
    """The client's requests that ask for progress; none leaves the requirement unexercised, not met."""
    carrying = [e for e in timeline.requests() if token_of(e.payload) is not None]
    if not carrying:
        pytest.skip("fixture-missing: the client put a progressToken on none of the calls the application made")
    return carrying


def concurrent_calls(run_client: RunClient, server: ScriptedPeer, check: Callable[[Timeline], None]) -> None:
    script(server, paces={"tools/call": HELD_WITH_PROGRESS})
    run_client("concurrent_progress").judge(lambda: check(Timeline(server)))


def check_client_token_types(timeline: Timeline) -> None:
    for event in client_requests_with_tokens(timeline):
        token = token_of(event.payload)
        valid = isinstance(token, str | int) and not isinstance(token, bool)
        assert valid, f"progressToken {token!r} in {event.payload}"


def check_client_tokens_unique(timeline: Timeline) -> None:
    """No request of the client carries the progressToken of another still active when it was sent: not
    answered, not cancelled (notifications/cancelled, or its response stream closed)."""
    client_requests_with_tokens(timeline)
    active: dict[str, Any] = {}  # request id (JSON) -> its token, for the requests still active
    overlapped = 0
    for event in timeline.events:
        frame = event.payload
        if event.kind == "lifecycle" and event.event == "stream-closed":
            active.pop(json.dumps(event.detail.get("id")), None)
        if event.kind != "message" or not isinstance(frame, dict):
            continue
        if event.direction == "server-to-client" and "method" not in frame:
            active.pop(json.dumps(frame.get("id")), None)
        elif event.direction == "client-to-server" and frame.get("method") == "notifications/cancelled":
            active.pop(json.dumps(params_of(frame).get("requestId")), None)
        elif event.direction == "client-to-server" and "method" in frame and "id" in frame:
            token = token_of(frame)
            if token is None:
                continue
            shared = [rid for rid, other in active.items() if json.dumps(other) == json.dumps(token)]
            assert not shared, f"{frame} reuses the progressToken {token!r} of request {shared[0]}, still active"
            overlapped += bool(active)
            active[json.dumps(frame["id"])] = token
    if not overlapped:
        pytest.skip("fixture-missing: no two requests with progress tokens were active at once")


@for_req("progress-token-type", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_progress_tokens_are_strings_or_integers(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    concurrent_calls(run_peer_client, scripted_peer, check_client_token_types)


@for_req("progress-client-token-type", "client", transports=BOTH_TRANSPORTS)
def test_the_modern_clients_progress_tokens_are_strings_or_integers(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    concurrent_calls(run_peer_client, scripted_peer, check_client_token_types)


@for_req("progress-token-unique", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_active_requests_have_distinct_progress_tokens(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    concurrent_calls(run_peer_client, scripted_peer, check_client_tokens_unique)


@for_req("progress-client-token-unique", "client", transports=BOTH_TRANSPORTS)
def test_the_modern_clients_active_requests_have_distinct_progress_tokens(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    concurrent_calls(run_peer_client, scripted_peer, check_client_tokens_unique)


# -- the progress the client reports, for a request of the server (before 2026-07-28) ----------------------


def reported_progress(run_client: RunClient, server: ScriptedPeer, check: Callable[[Timeline], None]) -> None:
    script(server, paces={"tools/call": ASKS_FOR_SAMPLING})
    run_client("report_progress").judge(lambda: check(Timeline(server)))


def client_progress(timeline: Timeline, absent: str = "fixture-missing") -> list[Event]:
    """The client's progress notifications; none leaves the row ``absent`` (fixture-missing, or for the
    permission itself not-exercised)."""
    sent = [e for e in timeline.from_client() if e.payload.get("method") == "notifications/progress"]
    if not sent:
        pytest.skip(f"{absent}: the client reported no progress for the server's sampling request")
    return sent


def check_client_progress_content(revision: str, timeline: Timeline) -> None:
    """Each notification names the request's token, with the progress so far and optionally total (and
    message from 2025-03-26): the revision's ProgressNotification, as published."""
    envelope = schema.revision_schema(revision)
    listed = envelope[schema.definitions_key(envelope)]["ProgressNotification"].get("properties", {})
    for event in client_progress(timeline, "not-exercised"):
        frame = event.payload
        assert params_of(frame).get("progressToken") == SAMPLING_TOKEN, f"progress for another token: {frame}"
        notification = {k: v for k, v in frame.items() if k in listed or k != "jsonrpc"}
        problems = schema.violations(revision, "ProgressNotification", notification)
        assert not problems, f"{frame}:\n" + "\n".join(problems)


def check_client_progress_increases(timeline: Timeline) -> None:
    values = [
        params_of(e.payload).get("progress")
        for e in client_progress(timeline)
        if params_of(e.payload).get("progressToken") == SAMPLING_TOKEN
    ]
    assert all(isinstance(v, int | float) and not isinstance(v, bool) for v in values), f"progress values {values}"
    assert all(a < b for a, b in itertools.pairwise(values)), f"the client's progress did not increase: {values}"


def check_client_progress_tokens_active(timeline: Timeline) -> None:
    """Each progress notification of the client names the token of a request of the server that the client
    had not answered yet (still in progress) when it sent it."""
    client_progress(timeline)
    active: dict[str, Any] = {}  # the server's request id (JSON) -> its token, until the client answers it
    for event in timeline.events:
        frame = event.payload
        if event.kind != "message" or not isinstance(frame, dict):
            continue
        if event.direction == "server-to-client" and "method" in frame and "id" in frame:
            active[json.dumps(frame["id"])] = token_of(frame)
        elif event.direction == "client-to-server" and "method" not in frame:
            active.pop(json.dumps(frame.get("id")), None)
        elif event.direction == "client-to-server" and frame.get("method") == "notifications/progress":
            token = params_of(frame).get("progressToken")
            live = [t for t in active.values() if t is not None]
            assert token in live, f"{frame} names no token of a request in progress (those: {live})"


def check_client_progress_stops(timeline: Timeline) -> None:
    """No progress of the client for a token once it has answered the request that carried it."""
    client_progress(timeline)
    tokens: dict[str, Any] = {}  # the server's request id (JSON) -> its token
    finished: set[str] = set()  # the tokens (JSON) of requests the client has answered
    for event in timeline.events:
        frame = event.payload
        if event.kind != "message" or not isinstance(frame, dict):
            continue
        if event.direction == "server-to-client" and "method" in frame and "id" in frame:
            tokens[json.dumps(frame["id"])] = token_of(frame)
        elif event.direction == "client-to-server" and "method" not in frame:
            token = tokens.get(json.dumps(frame.get("id")))
            if token is not None:
                finished.add(json.dumps(token))
        elif event.direction == "client-to-server" and frame.get("method") == "notifications/progress":
            token = json.dumps(params_of(frame).get("progressToken"))
            assert token not in finished, f"{frame} comes after the client answered the request of that token"


@for_req("progress-notifications-optional", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_progress_carries_token_progress_and_total(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """A permission, held to its bounds where the client uses it: not-exercised if it reports no progress."""
    reported_progress(run_peer_client, scripted_peer, lambda t: check_client_progress_content(revision, t))


@for_req("progress-value-increases", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_progress_increases(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    reported_progress(run_peer_client, scripted_peer, check_client_progress_increases)


@for_req("progress-reference-active-token", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_progress_names_only_active_tokens(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    reported_progress(run_peer_client, scripted_peer, check_client_progress_tokens_active)


@for_req("progress-stop-after-completion", "client", transports=BOTH_TRANSPORTS)
def test_the_client_sends_no_progress_after_completion(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    reported_progress(run_peer_client, scripted_peer, check_client_progress_stops)
