"""The schema tour: one rich exchange per revision and side, recorded once and judged message by message.

Server side: ``server_tour`` opens a session and provokes every message type the target offers
(discovery or the handshake, ping, every list, a read of every listed resource, logging level,
subscriptions, and the prompts, completion and tool calls of the roles its profile binds: tools that
log, report progress, change lists, update a resource, ask the client to sample, elicit (in form and URL
mode, a URL-mode elicitation accepted so that the server may announce its completion) and list its
roots, ask it for task-augmented sampling, and send the client a request with a timeout that the tour
leaves unanswered, so that the server cancels it), answering whatever else the server asks meanwhile,
as the receiver of its task-augmented requests too; on a server that serves tasks (2025-11-25), a task
of its own task tool is read, listed, fetched and another cancelled; it keeps every frame the
server sent. Client
side: the client driver's ``schema_tour`` scenario against a scripted stdio server that answers every
method and asks the client everything a server may ask (``client_tour``); it keeps every frame the
client sent. A ``Tour`` is recorded without any fault; under ``--falsify`` a test's fault damages the
recorded frames as they are read (``messages(fault)``), exactly as the peer applies it on the wire.

``messages`` names each frame's definition: a request or notification by its method, a result by
the request it answers (``input_required`` results at 2026-07-28 as ``InputRequiredResult``; the
answer to a request without a result type of its own, such as ``ping``, as ``Result``). Error
responses are no message type of the schema's unions and are left out.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import Any

from conformance.catalogue.sweep import message_definitions
from conformance.catalogue.vocabulary import REVISIONS
from conformance.harness import schema
from conformance.harness.exchanges import CLIENT_CAPABILITIES, CLIENT_RESULTS, declared
from conformance.harness.faults import Fault
from conformance.harness.frames import initialize_params
from conformance.harness.peer import (
    ImplementationTimeout,
    Peer,
    ProtocolViolation,
    method_definitions,
    result_definition,
)
from conformance.harness.scripted_server import SERVER_INFO
from conformance.harness.scripted_stdio import FOLLOWUP_ID
from conformance.harness.wire import Wire, answers, is_response, tool_call

TOUR_TIMEOUT = 5.0  # the bound on each answer awaited in the tour (the fixture answers in milliseconds)
SETTLE_SECONDS = 0.15  # how long the tour takes late frames once done (loopback: milliseconds)


@dataclass(frozen=True)
class Message:
    """One message of a tour: the frame, its position, and the definition it is of."""

    index: int
    frame: dict
    definition: str

    @property
    def instance(self) -> Any:
        """What the definition describes: a result's ``result``; a request or notification itself."""
        return self.frame["result"] if is_response(self.frame) else self.frame

    def describe(self) -> str:
        text = json.dumps(self.frame)
        return f"frame #{self.index} ({self.definition}): {text[:400]}{'...' if len(text) > 400 else ''}"


@dataclass
class Tour:
    """What one side sent in a tour, in order, and the method of each request a response answers."""

    revision: str
    sender: str  # "server" or "client"
    frames: list[Any] = field(default_factory=list)
    answered: dict[str, str] = field(default_factory=dict)  # json.dumps(request id) -> its method
    notes: list[str] = field(default_factory=list)  # what the tour could not do (for skip reasons)
    augmented: list[str] = field(default_factory=list)  # json.dumps(request id) of its task-augmented requests

    def method_answered(self, frame: Any) -> str | None:
        if isinstance(frame, dict) and "method" not in frame:
            return self.answered.get(json.dumps(frame.get("id")))
        return None

    def damaged(self, fault: Fault | None) -> list[Any]:
        """The frames as a fault between the sender and the harness would have left them."""
        if fault is None:
            return list(self.frames)
        held: list[bytes] = []
        lines = [out for f in self.frames for out in fault.mutate(json.dumps(f).encode(), self.method_answered, held)]
        frames = []
        for line in lines + held:
            with contextlib.suppress(json.JSONDecodeError):
                frames.append(json.loads(line))
        return frames

    def messages(self, fault: Fault | None = None) -> list[Message]:
        """Every message of the tour that is of a definition of the sender's side (batches unpacked)."""
        found = []
        sent_by = sender_definitions(self.revision, self.sender)
        for index, frame in enumerate(self.damaged(fault)):
            for item in frame if isinstance(frame, list) else [frame]:
                definition = self.definition_of(item)
                if definition is not None and definition in sent_by:
                    found.append(Message(index, item, definition))
        return found

    def definition_of(self, frame: Any) -> str | None:
        if not isinstance(frame, dict):
            return None
        if "method" in frame:
            return method_definitions(self.revision).get(frame["method"])
        result = frame.get("result")
        if not isinstance(result, dict):
            return None  # an error response, or no message at all
        method = self.method_answered(frame)
        if method is None:
            return None
        if json.dumps(frame.get("id")) in self.augmented and isinstance(result.get("task"), dict):
            return "CreateTaskResult"  # the answer to a task-augmented request: no member of the result union
        return result_definition(self.revision, method, result) or "Result"

    def of(self, definition: str, fault: Fault | None = None) -> list[Message]:
        return [m for m in self.messages(fault) if m.definition == definition]


@cache
def sender_definitions(revision: str, side: str) -> frozenset[str]:
    """The message definitions ``side`` sends at ``revision`` (the schema's unions)."""
    return frozenset(
        name for name, sides in message_definitions(schema.revision_schema(revision)).items() if side in sides
    )


def as_defined(revision: str, definition: str, frame: dict) -> Any:
    """The frame as its definition describes it: older schemas define a request or notification without
    the JSON-RPC envelope (``jsonrpc``, ``id``), which ``JSONRPCRequest`` adds around it; a result is
    the response's ``result``."""
    if is_response(frame):
        return frame.get("result")
    if "jsonrpc" in schema.definition_of(revision, definition).get("properties", {}):
        return frame
    return {key: value for key, value in frame.items() if key not in ("jsonrpc", "id")}


def problems_of(revision: str, message: Message) -> list[str]:
    """Every way a message breaks its definition as the revision publishes it."""
    return schema.violations(revision, message.definition, as_defined(revision, message.definition, message.frame))


def breaches(tour: Tour, definition: str, fault: Fault | None = None) -> list[str]:
    """The check of a schema row: every way a message of ``definition`` in the tour (as ``fault`` leaves it)
    breaks the definition as its revision publishes it, each with the frame it is in."""
    return [f"{m.describe()}\n  {p}" for m in tour.of(definition, fault) for p in problems_of(tour.revision, m)]


def members_judged_at(revision: str, definition: str, frame: Any) -> str | None:
    """The revision whose ``definition`` a message's members are held to in a session of ``revision``: that
    one, but for the initialize request, sent before any revision is agreed: the one it proposes
    (``params.protocolVersion``). None: it proposes a version whose schema defines no initialize request (one
    this suite does not know), so nothing says which members it may carry."""
    if definition != "InitializeRequest":
        return revision
    params = frame.get("params") if isinstance(frame, dict) else None
    proposed = params.get("protocolVersion") if isinstance(params, dict) else None
    if proposed in REVISIONS and definition in sender_definitions(proposed, "client"):
        return proposed
    return None


def undefined_in(revision: str, message: Message) -> list[str]:
    """Every member of a message that the revision it is held to does not define (``members_judged_at``,
    ``schema.undefined_members``)."""
    judged_at = members_judged_at(revision, message.definition, message.frame)
    if judged_at is None:
        return []
    return schema.undefined_members(
        judged_at, message.definition, as_defined(judged_at, message.definition, message.frame)
    )


# -- the server side -------------------------------------------------------------------------------------

# The roles the tour calls (conformance/harness/roles.py), in order, each through the binding the target's
# profile gives it: what a tool of that role sends while it runs is part of the tour. Roles whose tools end
# the session, run long or break a stream are left out.
TOOL_ROLES = (
    "simple-tool",
    "image-tool",
    "audio-tool",
    "mixed-content-tool",
    "error-tool",
    "embedded-resource-tool",
    "structured-tool",
    "logging-tool",
    "progress-tool",
    "sampling-tool",
    "elicitation-tool",
    "elicitation-enums-tool",
    "roots-tool",
    "url-elicitation-tool",
    "task-sampling-tool",
    "tool-list-changer",
    "prompt-list-changer",
    "resource-list-changer",
    "resource-updater",
)
SINCE_2025_11_25 = ("url-elicitation-tool", "task-sampling-tool")
PROMPT_ROLES = (
    "simple-prompt",
    "arguments-prompt",
    "embedded-resource-prompt",
    "image-prompt",
    "audio-prompt",
    "input-required-prompt",
)
TIMED = (("ping", 2.0), ("roots/list", 0.2))  # timed-request-tool: answered; left unanswered (the server cancels)


def _bound(peer: Peer, role: str, listed: set[Any], tour: Tour) -> Any:
    """The profile's binding of ``role`` if the server lists its name; else None, noted."""
    binding = peer.roles.get(role)
    if binding is None:
        return None
    if binding.name not in listed:
        tour.notes.append(f"the profile binds {role} to {binding.name}, which the server does not list")
        return None
    return binding


def _offered(peer: Peer, capabilities: dict, capability: str) -> bool:
    """Whether the server declared ``capability`` in the handshake; a stateless server (2026-07-28) is asked
    everything (its discovery is part of the tour)."""
    return peer.stateless or capability in capabilities


def _plan(peer: Peer, listed: dict[str, set[str]], capabilities: dict, tour: Tour) -> Iterator[tuple[dict, bool]]:
    """The tour's requests, each with whether its answer is awaited before the next goes out: of the features
    only those the server's ``capabilities`` declared (a client uses no other)."""
    n = iter(range(1, 1000))

    def request(method: str, params: dict | None = None) -> dict:
        return peer.envelope(method, f"tour-{next(n)}", params)

    def call(name: str, arguments: dict, token: Any = None, log: bool = False) -> dict:
        frame = tool_call(peer, f"tour-{next(n)}", name, arguments, token=token)
        frame["params"] = declared(peer, frame["params"])
        if peer.stateless:  # both elicitation modes, as the handshake declares them (url: url-elicitation-tool)
            frame["params"]["_meta"][CAPABILITIES_META] = frame["params"]["_meta"][CAPABILITIES_META] | {
                "elicitation": dict(BOTH_ELICITATION_MODES)
            }
        if peer.stateless and log:  # 2026-07-28 logs only to a request that opts in
            frame["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = "debug"
        return frame

    updating = _bound(peer, "updating-resource", listed["resources"], tour)
    watched = [updating.name] if updating else []
    if peer.stateless:
        yield request("server/discover"), True
        flags: dict[str, Any] = {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
        yield (
            request(
                "subscriptions/listen",
                {"notifications": flags | ({"resourceSubscriptions": watched} if watched else {})},
            ),
            False,
        )
    else:
        yield request("ping"), True
        if _offered(peer, capabilities, "logging"):
            yield request("logging/setLevel", {"level": "debug"}), True
        if watched and not (capabilities.get("resources") or {}).get("subscribe"):
            tour.notes.append(f"the server declared no resources.subscribe: {watched[0]} is not subscribed to")
            watched = []
        for uri in watched:
            yield request("resources/subscribe", {"uri": uri}), True
    for method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
        if _offered(peer, capabilities, method.split("/", 1)[0]):
            yield request(method), True
    for uri in sorted(listed["resources"]):
        yield request("resources/read", {"uri": uri}), True
    for role in PROMPT_ROLES:
        if binding := _bound(peer, role, listed["prompts"], tour):
            yield request("prompts/get", {"name": binding.name, "arguments": binding.args()}), True
    completions = peer.revision < "2025-03-26" or _offered(peer, capabilities, "completions")  # no capability before
    if completions and (binding := _bound(peer, "arguments-prompt", listed["prompts"], tour)):
        argument = next(iter(binding.args()), "arg1")
        reference = {"type": "ref/prompt", "name": binding.name}
        yield request("completion/complete", {"ref": reference, "argument": {"name": argument, "value": ""}}), True
    for role in TOOL_ROLES:
        if role in SINCE_2025_11_25 and peer.revision < "2025-11-25":
            continue  # URL-mode elicitation and tasks are 2025-11-25's
        if binding := _bound(peer, role, listed["tools"], tour):
            token = "tour-progress" if role == "progress-tool" else None
            yield call(binding.name, binding.args(), token=token, log=role == "logging-tool"), True
    if binding := _bound(peer, "timed-request-tool", listed["tools"], tour):
        for method, seconds in TIMED:
            yield call(binding.name, binding.args(method=method, timeout=seconds)), True
    if peer.stateless:
        if binding := _bound(peer, "subscription-ender", listed["tools"], tour):
            yield call(binding.name, binding.args()), True
    else:
        for uri in watched:
            yield request("resources/unsubscribe", {"uri": uri}), True


def _names(response: dict, key: str, field_name: str = "name") -> set[str]:
    return {item.get(field_name) for item in (response.get("result") or {}).get(key) or [] if isinstance(item, dict)}


def server_tour(peer: Peer) -> Tour:
    """Provoke every message type the server under test offers, on one session; every frame it sent."""
    tour = Tour(peer.revision, "server")
    peer.timeout = TOUR_TIMEOUT
    wire = Wire(peer)
    receiver = _Receiver()

    def await_answer(request_id: Any, what: str, unanswered: str = "", bound: float | None = None) -> dict | None:
        while True:
            try:
                seen = wire.until(lambda f: not isinstance(f, dict) or answers(f, request_id) or _asks(f), what, bound)
            except ImplementationTimeout:
                tour.notes.append(f"no answer to {what} within {bound or TOUR_TIMEOUT:g}s")
                return None
            if isinstance(seen, dict) and _asks(seen):
                if seen["method"] != unanswered:
                    peer.send(receiver.answer(seen))
                continue
            return seen if isinstance(seen, dict) else None

    def send_awaited(frame: dict, bound: float | None = None) -> dict:
        wire.send(frame)
        return await_answer(frame["id"], frame["method"], bound=bound) or {}

    try:  # a tour that breaks off (the server closed, a frame that is not JSON) is judged on what it has
        capabilities: dict[str, Any] = {}  # the server's
        if not peer.stateless:  # the handshake, through the wire so that its result is part of the tour
            frame = {"jsonrpc": "2.0", "id": "tour-initialize", "method": "initialize"}
            frame["params"] = initialize_params(peer.revision, tour_capabilities(peer.revision))
            wire.sent[frame["id"]] = wire.client_requests[frame["id"]] = frame
            peer.send_request(frame)  # not as an open request: over Streamable HTTP its answer carries the session id
            answer = await_answer(frame["id"], "initialize") or {}
            capabilities = (answer.get("result") or {}).get("capabilities") or {}
            peer.notify("notifications/initialized")
        listed: dict[str, set[str]] = {"tools": set(), "resources": set(), "prompts": set()}
        tools: list[Any] = []
        features = [f for f in ("tools", "resources", "prompts") if _offered(peer, capabilities, f)]
        probe = [peer.envelope(f"{f}/list", f"tour-list-{f}/list") for f in features]
        for frame in probe:
            response = send_awaited(frame)
            key = {"tools/list": "tools", "resources/list": "resources", "prompts/list": "prompts"}[frame["method"]]
            listed[key] = _names(response, key, "uri" if key == "resources" else "name")
            tools = (response.get("result") or {}).get("tools") or [] if key == "tools" else tools
        tasks = _TaskTour(peer, tour, capabilities, tools, send_awaited)
        tasks.start()  # a task of the server's own task tool, created before the plan so that it ends meanwhile
        for frame, awaited in _plan(peer, listed, capabilities, tour):
            wire.send(frame)
            if awaited:
                arguments = frame.get("params", {}).get("arguments") or {}
                unanswered = arguments.get("method", "") if arguments.get("timeout", 1) < 1 else ""
                await_answer(frame["id"], frame["method"], unanswered)
        tasks.finish()
        with contextlib.suppress(ImplementationTimeout):  # whatever else comes (late notifications, the listen result)
            while True:
                seen = wire.until(lambda _: True, "frame", SETTLE_SECONDS)
                if isinstance(seen, dict) and _asks(seen):
                    peer.send(receiver.answer(seen))
    except (ImplementationTimeout, ProtocolViolation) as exc:
        tour.notes.append(f"the tour broke off: {str(exc)[:300]}")
    tour.frames = [s.frame for s in wire.seen]
    tour.answered = {json.dumps(request_id): frame["method"] for request_id, frame in wire.sent.items()}
    return tour


def _asks(frame: dict) -> bool:
    return "method" in frame and "id" in frame


CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
BOTH_ELICITATION_MODES = {"form": {}, "url": {}}
RELATED_TASK = "io.modelcontextprotocol/related-task"
TASK_RESULT_BOUND = 20.0  # seconds the tour waits for tasks/result of its task (it blocks until the task ends)


def tour_capabilities(revision: str) -> dict:
    """What the tour's client declares in the handshake: sampling and roots; elicitation from 2025-06-18 (both
    modes from 2025-11-25, for url-elicitation-tool); from 2025-11-25, task-augmented sampling (for
    task-sampling-tool, whose requests the tour answers as their receiver)."""
    capabilities: dict[str, Any] = dict(CLIENT_CAPABILITIES)
    if revision >= "2025-06-18":
        capabilities["elicitation"] = {}
    if revision >= "2025-11-25":
        capabilities["elicitation"] = dict(BOTH_ELICITATION_MODES)
        capabilities["tasks"] = {"requests": {"sampling": {"createMessage": {}}}}
    return capabilities


def _timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Receiver:
    """The tour's answers to what the server asks: CLIENT_RESULTS, a URL-mode elicitation accepted (so that the
    server may announce its completion), and, for a task-augmented request, the receiver's side of a task that
    is done at its first poll (CreateTaskResult, then tasks/get, tasks/result, tasks/list, tasks/cancel)."""

    def __init__(self) -> None:
        self.tasks: dict[str, str] = {}  # task id -> the method of the request that created it
        self.created_at = _timestamp()

    def task(self, task_id: str, status: str) -> dict:
        return {
            "taskId": task_id,
            "status": status,
            "createdAt": self.created_at,
            "lastUpdatedAt": _timestamp(),
            "ttl": 60000,
            "pollInterval": 100,
        }

    def answer(self, request: dict) -> dict:
        method, params = request["method"], request.get("params") or {}
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
        task_id = params.get("taskId")
        if isinstance(params.get("task"), dict):
            task_id = f"mcp-matrix-tour-task-{len(self.tasks) + 1}"
            self.tasks[task_id] = method
            return reply | {"result": {"task": self.task(task_id, "working")}}
        if method in ("tasks/get", "tasks/result", "tasks/cancel"):
            if task_id not in self.tasks:
                return reply | {"error": {"code": -32602, "message": f"no task {task_id!r}"}}
            if method == "tasks/result":
                payload = dict(CLIENT_RESULTS.get(self.tasks[task_id], {}))
                return reply | {"result": payload | {"_meta": {RELATED_TASK: {"taskId": task_id}}}}
            return reply | {"result": self.task(task_id, "completed" if method == "tasks/get" else "cancelled")}
        if method == "tasks/list":
            return reply | {"result": {"tasks": [self.task(t, "completed") for t in self.tasks]}}
        if method == "elicitation/create" and params.get("mode") == "url":
            return reply | {"result": {"action": "accept"}}
        return reply | {"result": CLIENT_RESULTS.get(method, {})}


class _TaskTour:
    """The server as the receiver of tasks (2025-11-25), on a server that declares task-augmented tools/call:
    its first tool offering task execution called as a task (``start``), then that task read, listed, a second
    one cancelled, and the first one's result fetched (``finish``), as far as its capabilities declare them."""

    def __init__(self, peer: Peer, tour: Tour, capabilities: dict, tools: list[Any], send: Callable[..., dict]) -> None:
        self.peer, self.tour, self.send = peer, tour, send
        declared_tasks = capabilities.get("tasks") if isinstance(capabilities.get("tasks"), dict) else {}
        self.declared = declared_tasks or {}
        requests = self.declared.get("requests") if isinstance(self.declared.get("requests"), dict) else {}
        tools_tasks = (requests or {}).get("tools")
        offers = isinstance(tools_tasks, dict) and isinstance(tools_tasks.get("call"), dict)
        self.tool = next((t for t in tools if offers and _task_support(t) in ("optional", "required")), None)
        self.n = iter(range(1, 100))
        self.task_id: str | None = None

    def create(self) -> str | None:
        assert self.tool is not None
        params = {"name": self.tool["name"], "arguments": _least_arguments(self.tool), "task": {"ttl": 60000}}
        frame = self.peer.envelope("tools/call", f"tour-task-call-{next(self.n)}", params)
        self.tour.augmented.append(json.dumps(frame["id"]))
        task = (self.send(frame).get("result") or {}).get("task")
        task_id = task.get("taskId") if isinstance(task, dict) else None
        if not isinstance(task_id, str):
            self.tour.notes.append(f"the task-augmented call of {self.tool['name']} created no task")
            return None
        return task_id

    def request(self, method: str, params: dict | None = None, bound: float | None = None) -> dict:
        return self.send(self.peer.envelope(method, f"tour-{method}-{next(self.n)}", params), bound)

    def start(self) -> None:
        if self.tool is not None and "tasks/get" in method_definitions(self.peer.revision):
            self.task_id = self.create()

    def finish(self) -> None:
        if self.task_id is None:
            return
        self.request("tasks/get", {"taskId": self.task_id})
        if isinstance(self.declared.get("list"), dict):
            self.request("tasks/list")
        if isinstance(self.declared.get("cancel"), dict) and (other := self.create()):
            self.request("tasks/cancel", {"taskId": other})
        self.request("tasks/result", {"taskId": self.task_id}, TASK_RESULT_BOUND)


def _task_support(tool: Any) -> str:
    execution = tool.get("execution") if isinstance(tool, dict) else None
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if isinstance(support, str) else "forbidden"


def _least_arguments(tool: dict) -> dict:
    """The least arguments a tool's inputSchema asks for: each required property's default, const or first
    enum value, else a placeholder of its type."""
    placeholders = {"string": "mcp-matrix", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}
    schema_ = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
    properties = schema_.get("properties") if isinstance(schema_.get("properties"), dict) else {}
    arguments = {}
    for name in schema_.get("required") or []:
        prop = properties.get(name) if isinstance(properties.get(name), dict) else {}
        if "default" in prop or "const" in prop:
            arguments[name] = prop.get("default", prop.get("const"))
        elif isinstance(prop.get("enum"), list) and prop["enum"]:
            arguments[name] = prop["enum"][0]
        else:
            kind = prop.get("type")
            kind = next((k for k in kind if k != "null"), "string") if isinstance(kind, list) else kind
            arguments[name] = placeholders.get(kind, "mcp-matrix")
    return arguments


# -- the client side -------------------------------------------------------------------------------------

ASKED = {  # what the scripted server asks the client before answering its tools/list (id -> request)
    "tour-ping": {"method": "ping"},
    "tour-roots": {"method": "roots/list"},
    "tour-sampling": {
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello"}}],
            "maxTokens": 20,
            "_meta": {"progressToken": "tour-sampling-progress"},  # the client's progress, for its schema row
        },
    },
    "tour-elicitation": {
        "method": "elicitation/create",
        "params": {
            "message": "Who are you?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    },
}
CANCELLED_METHOD = "completion/complete"  # held by the scripted server, so that the client gives up on it
# Where tasks are defined (2025-11-25): two task-augmented sampling requests, asked before the answer to tools/list
# too; a client that takes them as tasks then has the first cancelled while it works, and is asked about the second
# tasks/get, tasks/list and tasks/result (it ends, and may be notified): see ScriptedStdio.task_followups.
TASK_ASKED = {
    f"tour-task-sampling-{n}": {
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello"}}],
            "maxTokens": 20,
            "task": {"ttl": 60000},
        },
    }
    for n in (1, 2)
}
TASK_FOLLOWUPS = {"tasks/cancel@1": "tasks/cancel", "tasks/get@2": "tasks/get", "tasks/list@2": "tasks/list"}
TASK_FOLLOWUPS["tasks/result@2"] = "tasks/result"


def pushed_requests(revision: str) -> list[dict]:
    """The requests the scripted server sends the client in the tour: those its revision defines."""
    asked = sender_definitions(revision, "server")
    defined = method_definitions(revision)
    return [
        {"jsonrpc": "2.0", "id": request_id} | request
        for request_id, request in ASKED.items()
        if defined.get(request["method"]) in asked
    ]


def scripted_results(revision: str) -> dict[str, dict]:
    """Fixed answers of the scripted server for what the tour's client asks beyond its defaults."""
    modern = revision == "2026-07-28"
    complete = {"resultType": "complete"} if modern else {}
    cacheable = complete | ({"ttlMs": 0, "cacheScope": "private"} if modern else {})
    text = {"uri": "test://static-text", "mimeType": "text/plain", "text": "hello"}
    results = {
        "resources/list": {"resources": [{"uri": "test://static-text", "name": "static-text"}]} | cacheable,
        "resources/templates/list": {"resourceTemplates": [{"uriTemplate": "test://t/{id}", "name": "t"}]} | cacheable,
        "resources/read": {"contents": [text]} | cacheable,
        "prompts/list": {"prompts": [{"name": "greeting"}]} | cacheable,
        "prompts/get": {"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}]} | complete,
        "logging/setLevel": dict(complete),
        "resources/subscribe": dict(complete),
        "resources/unsubscribe": dict(complete),
        # the handshake declares what the tour's client asks beyond the defaults: logging, resource subscriptions,
        # completions (a capability from 2025-03-26; the request the client cancels)
        "initialize": {
            "protocolVersion": revision,
            "capabilities": {"tools": {}, "resources": {"subscribe": True}, "prompts": {}, "logging": {}}
            | ({"completions": {}} if revision >= "2025-03-26" else {}),
            "serverInfo": SERVER_INFO,
        },
    }
    defined = set(method_definitions(revision))
    return {method: result for method, result in results.items() if method in defined}


def client_tour(revision: str, run: Callable[[Any], Any], make_server: Callable[[], Any]) -> Tour:
    """Run the client under test through ``schema_tour`` against a scripted stdio server that answers
    every method and asks the client everything its revision lets a server ask; every frame the client sent.
    ``make_server()`` builds the ScriptedStdio; ``run(server)`` runs the client against it."""
    server = make_server()
    server.results.update(scripted_results(revision))
    pushed = pushed_requests(revision)
    if pushed:
        server.push["tools/list"] = pushed
    server.hold.add(CANCELLED_METHOD)
    if revision == "2026-07-28":
        server.listen = 1  # acknowledge the client's subscriptions/listen
    tasks = (
        [{"jsonrpc": "2.0", "id": i} | r for i, r in TASK_ASKED.items()]
        if "tasks/get" in method_definitions(revision)
        else []
    )
    if tasks:
        server.ask["tools/list"] = tasks
        server.task_followups = list(TASK_FOLLOWUPS)
    outcome = run(server)
    tour = Tour(revision, "client")
    if not outcome.completed:
        tour.notes.append(f"the client did not complete schema_tour: {outcome.output[-500:]}")
    record = server.load()
    tour.frames = record.frames()
    tour.answered = {json.dumps(frame["id"]): frame["method"] for frame in pushed + tasks}
    tour.augmented = [json.dumps(frame["id"]) for frame in tasks]
    if tasks:  # the follow-ups' ids: the first task's plain, the second's with its ordinal (ScriptedStdio)
        tour.answered |= {json.dumps(FOLLOWUP_ID + spec.removesuffix("@1")): m for spec, m in TASK_FOLLOWUPS.items()}
    tour.notes += [f"harness: {problem}" for problem in server.harness_errors]
    return tour
