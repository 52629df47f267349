"""The peer: one JSON-RPC session with the implementation under test, whatever the transport.

A transport (``stdio``, ``http``) moves bytes; the peer does the rest, the same way for every
transport: request ids, awaiting a response while keeping other frames for later, the schema
check of every frame (the implementation's against the revision's schema as published; a frame
of our own that fails is a harness error, not a finding), faults (``harness/faults.py``) and the
session trace. Every wait is bounded.
"""

from __future__ import annotations

import itertools
import json
import queue
import time
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from conformance.catalogue.vocabulary import REVISIONS
from conformance.harness import schema
from conformance.harness.faults import Fault
from conformance.harness.frames import initialize_params, modern_meta
from conformance.harness.trace import Trace

DEFAULT_TIMEOUT_SECONDS = 5.0
MODERN_REVISION = "2026-07-28"
CLOSED = object()  # put on the inbound queue when the transport can deliver nothing more
# The server's requests that only a client declaring the capability may be sent.
CAPABILITY_OF_REQUEST = {
    "sampling/createMessage": "sampling",
    "elicitation/create": "elicitation",
    "roots/list": "roots",
}


class HarnessError(Exception):
    """The harness itself went wrong (a frame of ours broke the schema, a pipe failed to open)."""


class Inconclusive(HarnessError):
    """A step a test needs before its own check did not go as it must (a follow-up probe refused, a
    capability read that came back empty): the cell says nothing either way, and reads inconclusive."""


def precondition(holds: object, why: str) -> None:
    """Go on only if ``holds``: otherwise the cell is inconclusive, never the requirement failing."""
    if not holds:
        raise Inconclusive(f"precondition not met: {why}")


class ImplementationTimeout(AssertionError):
    """The implementation did not send what was awaited within the bound: the cell fails."""


class ProtocolViolation(AssertionError):
    """The implementation sent something the revision does not allow: the cell fails."""


@cache
def result_definitions(revision: str) -> dict[str, str]:
    """method -> the schema definition of its result (``tools/list`` -> ``ListToolsResult``)."""
    document = schema.revision_schema(revision)
    definitions = document[schema.definitions_key(document)]
    found = {}
    for name, definition in definitions.items():
        method = definition.get("properties", {}).get("method", {}).get("const")
        result = name.removesuffix("Request") + "Result"
        if name.endswith("Request") and method and result in definitions:
            found[method] = result
    return found


INPUT_REQUIRED = "input_required"  # 2026-07-28's resultType of a result that asks for more input


def result_definition(revision: str, method: str, result: Any) -> str | None:
    """The definition a ``method`` result is judged by: ``InputRequiredResult`` where it says so and the
    revision lets that method answer so (its ``<Result>Response`` admits one: 2026-07-28's multi
    round-trip requests), else the method's own result."""
    definition = result_definitions(revision).get(method)
    if definition and isinstance(result, dict) and result.get("resultType") == INPUT_REQUIRED:
        document = schema.revision_schema(revision)
        response = document[schema.definitions_key(document)].get(f"{definition}Response", {})
        admitted = response.get("properties", {}).get("result", {}).get("anyOf", [])
        if any(option.get("$ref", "").endswith("/InputRequiredResult") for option in admitted):
            return "InputRequiredResult"
    return definition


@cache
def method_definitions(revision: str) -> dict[str, str]:
    """method -> the schema definition of the request or notification that carries it."""
    document = schema.revision_schema(revision)
    found = {}
    for name, definition in document[schema.definitions_key(document)].items():
        method = definition.get("properties", {}).get("method", {}).get("const")
        if method and name.endswith(("Request", "Notification")):
            found.setdefault(method, name)
    return found


class Peer:
    """The client end of one session. Transports implement ``_transmit`` and feed ``inbound``."""

    transport = ""
    # The roles the target's profile binds (harness/roles.py: role -> Binding). The plugin sets them from
    # the profile; a peer no profile describes binds none, so a test asking for a role is fixture-missing.
    roles: Mapping[str, Any] = MappingProxyType({})

    def __init__(
        self, trace: Trace, revision: str, timeout: float = DEFAULT_TIMEOUT_SECONDS, fault: Fault | None = None
    ) -> None:
        if revision not in REVISIONS:
            raise HarnessError(f"unknown revision {revision!r}")
        self.trace = trace
        self.revision = revision
        self.timeout = timeout
        self.fault = fault
        self.violations: list[str] = []
        self.inbound: queue.Queue[Any] = queue.Queue()  # raw lines (bytes) from the implementation
        self._mutated: list[bytes] = []
        self._held: list[bytes] = []  # frames a reorder fault keeps back (faults.Fault.mutate)
        self._fault_counts: dict[str, int] = {}  # frames the fault targeted so far (Fault.occurrence)
        # A line that is not JSON fails the session at once, unless a test about the lines themselves
        # (stdio framing, UTF-8) sets this: it is then kept in received_lines and passed over.
        self.lenient_lines = False
        self.start_allowance = 0.0  # seconds added to the first wait of a session on a fresh process
        self.received_lines: list[bytes] = []  # every line the peer read, as the implementation sent it
        self._pending: list[Any] = []
        self._pending_methods: dict[Any, str] = {}
        self._ids: Iterator[int] = itertools.count(1)
        self.initialized: dict | None = None  # the server's initialize result, once the handshake is done
        self.client_capabilities: dict | None = None  # what this session's initialize declared

    # -- what a transport provides ----------------------------------------------------------------

    def _transmit(self, data: bytes, frame: Any) -> None:
        raise NotImplementedError

    def diagnostics(self) -> str:
        """What the implementation said besides frames (stderr, HTTP statuses), for failure messages."""
        return ""

    def _shutdown(self) -> None:
        """Release the transport's resources; called once by ``close``."""

    # -- frames -----------------------------------------------------------------------------------

    def send(self, frame: Any) -> None:
        """Send one frame (a dict, or a list for a batch)."""
        self._check_own(frame)
        self.trace.message("client-to-server", frame)
        self._transmit(json.dumps(frame, separators=(",", ":")).encode(), frame)

    def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (for malformed-input cells); recorded as a lifecycle event."""
        self.trace.lifecycle("client-to-server", "raw-bytes", data=data.decode("utf-8", "replace"))
        self._transmit(data, None)

    def receive(self, timeout: float | None = None) -> Any:
        """The next frame from the implementation, or ImplementationTimeout after ``timeout`` seconds."""
        if self._pending:
            return self._pending.pop(0)
        return self._receive_wire(timeout)

    def _receive_wire(self, timeout: float | None) -> Any:
        bound = self.default_bound() if timeout is None else timeout
        deadline = time.monotonic() + bound
        while True:
            while not self._mutated:
                try:
                    line = self.inbound.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    raise ImplementationTimeout(f"no frame within {bound:g}s{self._said()}") from None
                if line is CLOSED:
                    self.inbound.put(CLOSED)
                    raise ProtocolViolation(f"the implementation closed the {self.transport} channel{self._said()}")
                self._mutated = self._damaged(line)
            line = self._mutated.pop(0)
            self.received_lines.append(line)
            try:
                frame = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                self.trace.lifecycle("server-to-client", "unparsable-frame", data=line.decode("utf-8", "replace"))
                if self.lenient_lines:  # the test judges the lines itself (received_lines)
                    continue
                why = exc.msg if isinstance(exc, json.JSONDecodeError) else f"not UTF-8: {exc.reason}"
                raise ProtocolViolation(
                    f"the implementation sent a frame that is not JSON ({why}): {line[:200]!r}"
                ) from exc
            self.trace.message("server-to-client", frame)
            self._check_theirs(frame)
            return frame

    def _damaged(self, line: bytes) -> list[bytes]:
        """The lines the peer reads for ``line``: as sent, or as the session's fault rewrites them."""
        if self.fault is None:
            return [line]
        return self.fault.mutate(line, self._method_answered, self._held, self._fault_counts)

    def default_bound(self) -> float:
        """How long a wait without a bound of its own lasts: the peer's timeout, and before the first
        frame of a freshly started process also its start-up allowance (an interpreter importing its
        framework is not a server failing to answer)."""
        return self.timeout + (self.start_allowance if not self.received_lines else 0.0)

    def _said(self) -> str:
        said = self.diagnostics()
        return f"; the implementation said:\n{said[-2000:]}" if said else ""

    def _method_answered(self, frame: Any) -> str | None:
        """The method of our request that ``frame`` answers, if it is a response."""
        if isinstance(frame, dict) and "method" not in frame:
            return self._pending_methods.get(frame.get("id"))
        return None

    # -- JSON-RPC ---------------------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def send_request(self, frame: dict | list) -> None:
        """Send a hand-built request (or batch of them), remembering each id's method for the checks."""
        for item in frame if isinstance(frame, list) else [frame]:
            if isinstance(item, dict) and "id" in item and "method" in item:
                self._pending_methods[item["id"]] = item["method"]
        self.send(frame)

    def envelope(self, method: str, request_id: Any, params: dict | None = None) -> dict:
        """A request frame in the form the revision requires (the per-request ``_meta`` at 2026-07-28)."""
        frame: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if self.stateless:
            params = dict(params or {})
            params["_meta"] = modern_meta(self.revision) | params.get("_meta", {})
        if params is not None:
            frame["params"] = params
        return frame

    def stray_responses(self) -> list[dict]:
        """Responses received but not claimed by any ``expect_response``."""
        return [f for f in self._pending if isinstance(f, dict) and "method" not in f]

    def request(self, method: str, params: dict | None = None, *, check: bool = True) -> dict:
        """Send a request and return its response; ``check`` turns a schema violation into a failure."""
        request_id = self.next_id()
        frame: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            frame["params"] = params
        self._pending_methods[request_id] = method
        before = len(self.violations)
        self.send(frame)
        response = self.expect_response(request_id)
        if check and len(self.violations) > before:
            raise ProtocolViolation("\n".join(self.violations[before:]))
        return response

    def notify(self, method: str, params: dict | None = None) -> None:
        frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            frame["params"] = params
        self.send(frame)

    def expect_response(self, request_id: Any, timeout: float | None = None) -> dict:
        """Wait for the response to ``request_id``; other frames stay queued for ``receive``."""

        def answers(frame: Any) -> bool:
            return isinstance(frame, dict) and frame.get("id") == request_id and "method" not in frame

        refusal = self.refusal_of(request_id)
        if refusal is not None and not any(answers(frame) for frame in self._pending):
            raise ImplementationTimeout(f"no response to request id {request_id!r}: {refusal}{self._said()}")
        return self._await(answers, f"response to request id {request_id!r}", timeout)

    def refusal_of(self, request_id: Any) -> str | None:
        """Why the response to ``request_id`` can no longer come, if the transport knows (see HttpPeer)."""
        return None

    def next_response(self, timeout: float | None = None) -> Any:
        """The next response, whatever its id (or a batch); notifications and requests of the
        implementation that come first stay queued for ``receive``."""
        return self._await(lambda frame: not (isinstance(frame, dict) and "method" in frame), "response", timeout)

    def _await(self, wanted: Callable[[Any], bool], description: str, timeout: float | None) -> Any:
        bound = self.default_bound() if timeout is None else timeout
        deadline = time.monotonic() + bound
        for index, frame in enumerate(self._pending):
            if wanted(frame):
                return self._pending.pop(index)
        while True:
            try:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ImplementationTimeout("deadline passed")
                frame = self._receive_wire(remaining)
            except ImplementationTimeout:
                raise ImplementationTimeout(f"no {description} within {bound:g}s{self._said()}") from None
            if wanted(frame):
                return frame
            self._refuse_undeclared(frame, description)
            self._pending.append(frame)

    def _refuse_undeclared(self, frame: Any, awaited: str) -> None:
        """A request of the server that needs a client capability this session did not declare is named as
        soon as it arrives: waiting on would only end in a timeout that names the wrong thing."""
        needed = CAPABILITY_OF_REQUEST.get(frame.get("method")) if isinstance(frame, dict) and "id" in frame else None
        if needed and self.client_capabilities is not None and needed not in self.client_capabilities:
            raise ProtocolViolation(
                f"while awaiting the {awaited}, the server sent {frame['method']} (id {frame['id']!r}), a request "
                f"for the {needed} capability, which this session did not declare (it declared "
                f"{sorted(self.client_capabilities)})"
            )

    @property
    def stateless(self) -> bool:
        """2026-07-28's model: no handshake; every request carries its own ``_meta`` envelope."""
        return self.revision == MODERN_REVISION

    @property
    def probe_method(self) -> str:
        """A request every revision defines and every server answers: ping, or server/discover at 2026-07-28."""
        return "server/discover" if self.stateless else "ping"

    def open(self, capabilities: dict | None = None) -> None:
        """Make the session usable at its revision: the handshake before 2026-07-28 (once: a session
        already open stays as it is), nothing after."""
        if not self.stateless and self.initialized is None:
            # The result's shape is the cell of lifecycle-server-initialize-result; here it only opens
            # the session, so a violation in it is recorded, not raised.
            self.initialize(capabilities, check=False)

    def rpc(self, method: str, params: dict | None = None, *, check: bool = True) -> dict:
        """A request in the form its revision requires, and its response."""
        frame = self.envelope(method, self.next_id(), params)
        before = len(self.violations)
        self.send_request(frame)
        response = self.expect_response(frame["id"])
        if check and len(self.violations) > before:
            raise ProtocolViolation("\n".join(self.violations[before:]))
        return response

    def initialize(self, capabilities: dict | None = None, *, check: bool = True) -> dict:
        """The handshake of revisions before 2026-07-28: initialize, then notifications/initialized."""
        self.client_capabilities = capabilities or {}
        response = self.request("initialize", initialize_params(self.revision, capabilities), check=check)
        if "result" not in response:
            raise ProtocolViolation(f"initialize failed: {response}")
        self.initialized = response["result"]
        self.notify("notifications/initialized")
        return response["result"]

    def negotiated(self, result: dict) -> None:
        """Take what the transport needs from an initialize result, as soon as it comes (Streamable HTTP: the
        version its later requests' header names, notifications/initialized's first)."""

    def declares(self, capability: str, flag: str | None = None) -> bool:
        """Whether the initialize result declared ``capability`` (and its ``flag``, such as listChanged)."""
        declared = ((self.initialized or {}).get("capabilities") or {}).get(capability)
        return isinstance(declared, dict) and (flag is None or declared.get(flag) is True)

    # -- schema checks ----------------------------------------------------------------------------

    def _check_own(self, frame: Any) -> None:
        for item in frame if isinstance(frame, list) else [frame]:
            if isinstance(item, dict) and "method" in item:
                problems = schema.violations(self.revision, "JSONRPCMessage", item)
                if problems:
                    raise HarnessError(f"the harness built a frame that breaks the {self.revision} schema: {problems}")

    def _check_theirs(self, frame: Any) -> None:
        for item in frame if isinstance(frame, list) else [frame]:
            self.violations.extend(schema.violations(self.revision, "JSONRPCMessage", item))
            if isinstance(item, dict) and "result" in item:
                method = self._pending_methods.get(item.get("id"))
                if method == "initialize" and isinstance(item["result"], dict):  # a test's own handshake too
                    self.negotiated(item["result"])
                definition = result_definition(self.revision, method, item["result"]) if method else None
                if definition:
                    self.violations.extend(schema.violations(self.revision, definition, item["result"]))

    # -- teardown ---------------------------------------------------------------------------------

    def __enter__(self) -> Peer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.trace.lifecycle("client-to-server", "close")
        self._shutdown()
        self.trace.close()
