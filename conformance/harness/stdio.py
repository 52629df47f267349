"""The stdio peer: newline-delimited JSON-RPC over a server process's pipes, every wait bounded.

A reader thread turns the server's stdout into frames on a queue and keeps its stderr; the peer
sends frames, receives them with a deadline, records both in the session trace and checks each
against the schema of the session's revision (the implementation's strictly; a frame of our own
that fails is a harness error, not a finding).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from conformance.harness import schema
from conformance.harness.faults import Fault
from conformance.harness.frames import initialize_params
from conformance.harness.launcher import ServerProcess
from conformance.harness.trace import Trace
from conformance.vocabulary import REVISIONS

DEFAULT_TIMEOUT_SECONDS = 5.0
_CLOSED = object()


class HarnessError(Exception):
    """The harness itself went wrong (a frame of ours broke the schema, a pipe failed to open)."""


class ImplementationTimeout(AssertionError):
    """The implementation did not send what was awaited within the bound: the cell fails."""


class ProtocolViolation(AssertionError):
    """The implementation sent something the revision does not allow: the cell fails."""


@dataclass(frozen=True)
class Received:
    frame: Any
    raw: bytes


def result_definition(revision: str, method: str) -> str | None:
    """The schema definition of the result of ``method`` (``tools/list`` -> ``ListToolsResult``)."""
    return _result_definitions(revision).get(method)


@cache
def _result_definitions(revision: str) -> dict[str, str]:
    document = schema.revision_schema(revision, strict=False)
    definitions = document[schema.definitions_key(document)]
    found = {}
    for name, definition in definitions.items():
        method = definition.get("properties", {}).get("method", {}).get("const")
        result = name.removesuffix("Request") + "Result"
        if name.endswith("Request") and method and result in definitions:
            found[method] = result
    return found


class StdioPeer:
    """The client end of one stdio session with a server under test."""

    def __init__(
        self,
        process: ServerProcess,
        trace: Trace,
        revision: str,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        fault: Fault | None = None,
    ) -> None:
        if revision not in REVISIONS:
            raise HarnessError(f"unknown revision {revision!r}")
        self.process = process
        self.trace = trace
        self.revision = revision
        self.timeout = timeout
        self.fault = fault
        self.violations: list[str] = []
        self._mutated: list[bytes] = []
        self._ids: Iterator[int] = itertools.count(1)
        self._frames: queue.Queue[Any] = queue.Queue()
        self._stderr = bytearray()
        self._pending: list[Any] = []
        self._pending_methods: dict[Any, str] = {}
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        trace.lifecycle("client-to-server", "spawn", pid=process.pid)

    # -- the wire -------------------------------------------------------------------------------

    def _read_stdout(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # the pipe closed under us at teardown
            for line in iter(self.process.stdout.readline, b""):
                self._frames.put(line)
        self._frames.put(_CLOSED)

    def _read_stderr(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            for chunk in iter(lambda: self.process.stderr.read(4096), b""):
                self._stderr.extend(chunk)

    @property
    def stderr(self) -> str:
        return self._stderr.decode("utf-8", "replace")

    def send(self, frame: Any) -> None:
        """Send one frame (a dict, or a list for a batch) as one line."""
        self._check_own(frame)
        self.trace.message("client-to-server", frame)
        self.send_raw(json.dumps(frame, separators=(",", ":")).encode() + b"\n", record=False)

    def send_raw(self, data: bytes, *, record: bool = True) -> None:
        """Send bytes as they are (for malformed-input cells); recorded as a lifecycle event."""
        if record:
            self.trace.lifecycle("client-to-server", "raw-bytes", data=data.decode("utf-8", "replace"))
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise ProtocolViolation(
                f"the server closed its stdin early ({exc}); stderr:\n{self.stderr[-2000:]}"
            ) from exc

    def receive(self, timeout: float | None = None) -> Any:
        """The next frame from the server, or ImplementationTimeout after ``timeout`` seconds."""
        if self._pending:
            return self._pending.pop(0)
        return self._receive_wire(timeout)

    def _receive_wire(self, timeout: float | None) -> Any:
        bound = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + bound
        while not self._mutated:
            try:
                line = self._frames.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise ImplementationTimeout(
                    f"no frame from the server within {bound:g}s; stderr:\n{self.stderr[-2000:]}"
                ) from None
            if line is _CLOSED:
                self._frames.put(_CLOSED)
                raise ProtocolViolation(f"the server closed stdout; stderr:\n{self.stderr[-2000:]}")
            self._mutated = self.fault.mutate(line, self._method_answered) if self.fault else [line]
        line = self._mutated.pop(0)
        try:
            frame = json.loads(line)
        except json.JSONDecodeError as exc:
            self.trace.lifecycle("server-to-client", "unparsable-line", data=line.decode("utf-8", "replace"))
            raise ProtocolViolation(f"the server wrote a line that is not JSON ({exc.msg}): {line[:200]!r}") from exc
        self.trace.message("server-to-client", frame)
        self._check_theirs(frame)
        return frame

    def _method_answered(self, frame: Any) -> str | None:
        """The method of our request that ``frame`` answers, if it is a response."""
        if isinstance(frame, dict) and "method" not in frame:
            return self._pending_methods.get(frame.get("id"))
        return None

    # -- JSON-RPC -------------------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

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
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        for index, frame in enumerate(self._pending):
            if isinstance(frame, dict) and frame.get("id") == request_id and "method" not in frame:
                return self._pending.pop(index)
        while True:
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise ImplementationTimeout("deadline passed")
                frame = self._receive_wire(remaining)
            except ImplementationTimeout:
                bound = self.timeout if timeout is None else timeout
                raise ImplementationTimeout(
                    f"no response to request id {request_id!r} within {bound:g}s; stderr:\n{self.stderr[-2000:]}"
                ) from None
            if isinstance(frame, dict) and frame.get("id") == request_id and "method" not in frame:
                return frame
            self._pending.append(frame)

    def initialize(self, capabilities: dict | None = None) -> dict:
        """The handshake of revisions before 2026-07-28: initialize, then notifications/initialized."""
        response = self.request("initialize", initialize_params(self.revision, capabilities))
        if "result" not in response:
            raise ProtocolViolation(f"initialize failed: {response}")
        self.notify("notifications/initialized")
        return response["result"]

    # -- schema checks --------------------------------------------------------------------------

    def _check_own(self, frame: Any) -> None:
        for item in frame if isinstance(frame, list) else [frame]:
            if not isinstance(item, dict) or "method" not in item:
                continue
            problems = [p for p in schema.violations(self.revision, "JSONRPCMessage", item, strict=False)]
            if problems:
                raise HarnessError(f"the harness built a frame that breaks the {self.revision} schema: {problems}")

    def _check_theirs(self, frame: Any) -> None:
        items = frame if isinstance(frame, list) else [frame]
        for item in items:
            self.violations.extend(schema.violations(self.revision, "JSONRPCMessage", item, strict=False))
            if isinstance(item, dict) and "result" in item:
                method = self._pending_methods.get(item.get("id"))
                definition = result_definition(self.revision, method) if method else None
                if definition:
                    self.violations.extend(schema.violations(self.revision, definition, item["result"]))

    def __enter__(self) -> StdioPeer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.trace.lifecycle("client-to-server", "close")
        self.process.kill()
        for thread in self._threads:
            thread.join(timeout=2)
        self.process.close_pipes()
        self.trace.close()
