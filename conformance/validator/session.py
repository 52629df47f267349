"""A trace digested once for every check: its messages (batches unpacked), who sent them, which request each
response answers, the handshake and the capabilities each side declared.

Everything here is derived from the event list alone; the checks read it and never the clock, the network
or the SDK.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from conformance.validator.reader import Event

CLIENT, SERVER = "client", "server"
SENDERS = {"client-to-server": CLIENT, "server-to-client": SERVER}
# 2026-07-28's per-request envelope (basic/index: the request's _meta)
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
PROTOCOL_VERSION_HEADER = "mcp-protocol-version"
SESSION_ID_HEADER = "mcp-session-id"

REQUEST, NOTIFICATION, RESULT, ERROR, MALFORMED = "request", "notification", "result", "error", "malformed"


IdKey = tuple[str, Any]


def id_key(value: Any) -> IdKey:
    """A request id as a dictionary key that keeps 1 and "1" (and 1 and true) apart."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return type(value).__name__, value
    return "json", json.dumps(value, sort_keys=True)


def other(side: str) -> str:
    return SERVER if side == CLIENT else CLIENT


def _kind_of(frame: Any) -> str:
    if not isinstance(frame, dict):
        return MALFORMED
    if "method" in frame:
        return REQUEST if "id" in frame else NOTIFICATION
    if "result" in frame:
        return RESULT
    if "error" in frame:
        return ERROR
    return MALFORMED


@dataclass(frozen=True, slots=True)
class Message:
    """One JSON-RPC message of the trace: a frame, or one member of a batch frame."""

    seq: int
    sender: str  # CLIENT or SERVER
    transport: str
    frame: Any
    in_batch: bool = False
    kind: str = field(init=False)
    key: IdKey = field(init=False)  # id_key of its id
    method: str | None = field(init=False)

    def __post_init__(self) -> None:
        frame = self.frame if isinstance(self.frame, dict) else {}
        method = frame.get("method")
        object.__setattr__(self, "kind", _kind_of(self.frame))
        object.__setattr__(self, "key", id_key(frame.get("id")))
        object.__setattr__(self, "method", method if isinstance(method, str) else None)

    @property
    def params(self) -> dict:
        params = self.frame.get("params") if isinstance(self.frame, dict) else None
        return params if isinstance(params, dict) else {}

    @property
    def meta(self) -> dict:
        meta = self.params.get("_meta")
        return meta if isinstance(meta, dict) else {}

    @property
    def id(self) -> Any:
        return self.frame.get("id") if isinstance(self.frame, dict) else None

    @property
    def result(self) -> Any:
        return self.frame.get("result") if isinstance(self.frame, dict) else None


def header(event: Event, name: str) -> str | None:
    """The value of header ``name`` (case-insensitive) of an http event."""
    for key, value in event.get("headers", {}).items():
        if key.lower() == name:
            return value
    return None


@dataclass
class Session:
    """The trace as the checks read it, judged at ``revision``."""

    events: list[Event]
    revision: str
    # the trace's events after this session (the sessions after it), for what the session's end led to
    following: list[Event] = field(default_factory=list)
    messages: list[Message] = field(init=False)  # the session's, from its initialize request on (up to 2025-11-25)
    before_session: list[Message] = field(init=False)  # what came before that initialize: a probe, or a violation
    all_messages: list[Message] = field(init=False)
    http: list[Event] = field(init=False)
    # indexes a check module derives once and its checks share (schema definitions, progress tokens ...)
    memo: dict[str, Any] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.messages = []
        self.http = []
        for event in self.events:
            kind = event["kind"]
            if kind == "message":
                sender, payload = SENDERS[event["direction"]], event["payload"]
                if isinstance(payload, list):
                    self.messages.extend(
                        Message(event["seq"], sender, event["transport"], item, True) for item in payload
                    )
                else:
                    self.messages.append(Message(event["seq"], sender, event["transport"], payload))
            elif kind == "http":
                self.http.append(event)
        self.all_messages = self.messages
        self.before_session = []
        if not self.modern:
            opening = next(
                (
                    i
                    for i, m in enumerate(self.messages)
                    if m.sender == CLIENT and m.kind == REQUEST and m.method == "initialize"
                ),
                0,
            )
            self.before_session, self.messages = self.messages[:opening], self.messages[opening:]

    @property
    def modern(self) -> bool:
        """2026-07-28 and later: no handshake, every request carries its own ``_meta`` envelope."""
        return self.revision >= "2026-07-28"

    def sent_by(self, side: str, *kinds: str) -> Iterator[Message]:
        return (m for m in self.messages if m.sender == side and (not kinds or m.kind in kinds))

    def server_asks(self, method: str) -> Iterator[tuple[Message, dict]]:
        """Each ``method`` request the server made (elicitation/create, sampling/createMessage), with its params:
        its own requests and (2026-07-28) those in an InputRequiredResult's inputRequests, each with the
        message that carried it."""
        for message in self.sent_by(SERVER, REQUEST, RESULT):
            if message.kind == REQUEST and message.method == method:
                yield message, message.params
            elif message.kind == RESULT and isinstance(message.result, dict):
                inputs = message.result.get("inputRequests")
                for request in inputs.values() if isinstance(inputs, dict) else ():
                    if isinstance(request, dict) and request.get("method") == method:
                        params = request.get("params")
                        yield message, params if isinstance(params, dict) else {}

    @cached_property
    def requests(self) -> dict[tuple[str, IdKey], Message]:
        """(requester, id key) -> the first request it sent with that id."""
        found: dict[tuple[str, IdKey], Message] = {}
        for message in self.messages:
            if message.kind == REQUEST:
                found.setdefault((message.sender, message.key), message)
        return found

    def request_answered(self, response: Message) -> Message | None:
        """The request a response answers: the other side's latest request with its id sent before it."""
        candidate = self.requests.get((other(response.sender), response.key))
        return candidate if candidate is not None and candidate.seq <= response.seq else None

    @cached_property
    def responses(self) -> dict[tuple[str, IdKey], list[Message]]:
        """(requester, id key) -> every response to that id, in order."""
        found: dict[tuple[str, IdKey], list[Message]] = {}
        for message in self.messages:
            if message.kind in (RESULT, ERROR):
                found.setdefault((other(message.sender), message.key), []).append(message)
        return found

    @cached_property
    def results_by_method(self) -> dict[tuple[str, str], list[Message]]:
        """(answering side, method of the request answered) -> its result responses, in order."""
        found: dict[tuple[str, str], list[Message]] = {}
        for message in self.messages:
            if message.kind == RESULT:
                request = self.request_answered(message)
                if request is not None and request.method is not None:
                    found.setdefault((message.sender, request.method), []).append(message)
        return found

    @cached_property
    def notifications_by_method(self) -> dict[tuple[str, str], list[Message]]:
        """(sender, method) -> its notifications, in order."""
        found: dict[tuple[str, str], list[Message]] = {}
        for message in self.messages:
            if message.kind == NOTIFICATION and message.method is not None:
                found.setdefault((message.sender, message.method), []).append(message)
        return found

    def answers_to(self, request: Message) -> list[Message]:
        return [r for r in self.responses.get((request.sender, request.key), []) if r.seq >= request.seq]

    @cached_property
    def initialize(self) -> Message | None:
        return next((m for m in self.sent_by(CLIENT, REQUEST) if m.method == "initialize"), None)

    @cached_property
    def initialize_result(self) -> Message | None:
        """The server's successful answer to the first ``initialize``."""
        if self.initialize is None:
            return None
        return next((r for r in self.answers_to(self.initialize) if r.kind == RESULT), None)

    @cached_property
    def initialized_seq(self) -> int | None:
        notice = next((m for m in self.sent_by(CLIENT, NOTIFICATION) if m.method == "notifications/initialized"), None)
        return notice.seq if notice else None

    @cached_property
    def server_capabilities(self) -> dict | None:
        """What the server declared: its initialize result's, or (2026-07-28) its server/discover result's."""
        for response in self.sent_by(SERVER, RESULT):
            request = self.request_answered(response)
            if request is not None and request.method in ("initialize", "server/discover"):
                result = response.result if isinstance(response.result, dict) else {}
                capabilities = result.get("capabilities")
                return capabilities if isinstance(capabilities, dict) else {}
        return None

    @cached_property
    def client_capabilities(self) -> dict | None:
        """What the client declared in ``initialize`` (the session's, up to 2025-11-25)."""
        if self.initialize is None:
            return None
        capabilities = self.initialize.params.get("capabilities")
        return capabilities if isinstance(capabilities, dict) else {}

    def client_capabilities_for(self, request: Message | None) -> dict | None:
        """The client's capabilities in force for ``request``: its own ``_meta`` envelope at 2026-07-28
        (for a server's request or notification, the client request it is part of is not known: None)."""
        if not self.modern:
            return self.client_capabilities
        if request is None or request.sender != CLIENT:
            return None
        capabilities = request.meta.get(META_CLIENT_CAPABILITIES)
        return capabilities if isinstance(capabilities, dict) else {}

    def http_requests(self) -> Iterator[Event]:
        return (e for e in self.http if e["direction"] == "client-to-server")

    def http_responses(self) -> Iterator[Event]:
        return (e for e in self.http if e["direction"] == "server-to-client")

    @cached_property
    def body_of(self) -> dict[int, Message]:
        """seq of a client-to-server http POST event -> the (first) message its body carried, where that is
        certain (``post_pairing``)."""
        return self.post_pairing[0]

    @cached_property
    def post_pairing(self) -> tuple[dict[int, Message], tuple[int, int] | None]:
        """(body_of, the client bodies no POST accounts for: ``post_pairs``)."""
        first_of_event: dict[int, Message] = {}
        for message in self.all_messages:
            if message.sender == CLIENT:
                first_of_event.setdefault(message.seq, message)
        pairs, unposted = post_pairs(self.events)
        return {post: first_of_event[body] for post, body in pairs.items() if body in first_of_event}, unposted


# the lifecycle events that stand for a body (docs/trace-format.md): one that is no JSON value, one kept out
POST_BODIES = ("unparsable", "http-body")


def post_pairs(events: list[Event]) -> tuple[dict[int, int], tuple[int, int] | None]:
    """(seq of a Streamable HTTP POST -> seq of its body's event, where that is certain; the client bodies no
    POST accounts for: the seq of the first event of the stretch they are in and how many, or None).

    What the recorders guarantee (docs/trace-format.md): each POST's event and its body's event are both
    written, in either order, before or after other events; with POSTs in flight at once, one POST's pair
    may straddle another's. So the client's POSTs and bodies (a message, or a ``POST_BODIES`` event) are taken
    in order, in stretches where their counts balance: a stretch of one POST and one body pairs them; a
    longer one (two POSTs sent at once) pairs nothing, since its order is not the order the bodies went in.
    A stretch still open at the end of the trace has more of one than the other: more bodies, some travelled
    in no POST that was recorded."""
    found: dict[int, int] = {}
    stretch: list[Event] = []
    balance = 0
    for event in events:
        if event["transport"] != "streamable-http" or event["direction"] != "client-to-server":
            continue
        if event["kind"] == "http" and event.get("method") == "POST":
            balance += 1
        elif event["kind"] == "message" or (event["kind"] == "lifecycle" and event.get("event") in POST_BODIES):
            balance -= 1
        else:
            continue
        stretch.append(event)
        if balance == 0:
            if len(stretch) == 2:
                post, body = sorted(stretch, key=lambda e: e["kind"] != "http")
                found[post["seq"]] = body["seq"]
            stretch = []
    return found, ((stretch[0]["seq"], -balance) if balance < 0 else None)
