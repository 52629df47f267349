"""What the two captures share: where a recording goes, and how what passed becomes trace events.

A unit that parses as JSON (a stdio line, an HTTP body, an SSE event's data) is a ``message`` event
with the parsed value as its ``payload``, whatever it holds: judging whether it is JSON-RPC is the
validator's business. A unit that does not parse is recorded too, as a ``lifecycle`` event
``unparsable`` with ``data`` (its text, undecodable bytes as U+FFFD), ``size`` (its length in
bytes), ``reason`` and, when it is not UTF-8, ``base64`` (its exact bytes). A stdio line the stream
ended before its newline carries ``"unterminated": true`` on its event.
"""

from __future__ import annotations

import base64
import json
import math
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.harness.trace import Trace

SESSION_PLACEHOLDER = "{session}"
DEFAULT_OUTPUT = "recordings/{session}.jsonl"


def recording_path(pattern: str) -> Path:
    """The file a new recording goes to: ``pattern`` with ``{session}`` replaced by a name of its own (the
    UTC time and a random suffix, so recordings sort by time and two never collide)."""
    name = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(4)
    return Path(pattern.replace(SESSION_PLACEHOLDER, name))


class Unparsable(ValueError):
    """A unit that is not one JSON value, with the reason in plain words."""


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise Unparsable(f"the number {text} is out of range")
    return number


def _no_constant(name: str) -> Any:
    raise Unparsable(f"{name} is not JSON")


def parse_json(data: bytes) -> Any:
    """The one JSON value ``data`` holds (strict JSON: UTF-8, no NaN or Infinity), or ``Unparsable``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unparsable(f"not UTF-8: {exc.reason} at byte {exc.start}") from None
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise Unparsable(f"not JSON: {exc.msg} at character {exc.pos}") from None


def record_unit(trace: Trace, direction: str, data: bytes, **fields: Any) -> None:
    """Record one unit of the wire (a line, a body, an event's data) as a message, or as ``unparsable``."""
    try:
        payload = parse_json(data)
    except Unparsable as exc:
        trace.lifecycle(direction, "unparsable", **_unparsable(data, str(exc)), **fields)
        return
    trace.record(direction, "message", payload=payload, **fields)


def _unparsable(data: bytes, reason: str) -> dict[str, Any]:
    described: dict[str, Any] = {"data": data.decode("utf-8", "replace"), "size": len(data), "reason": reason}
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        described["base64"] = base64.b64encode(data).decode("ascii")
    return described


class LineSplitter:
    """Cuts a byte stream into newline-terminated lines, whatever the chunks it comes in."""

    def __init__(self) -> None:
        self._pending = bytearray()

    def feed(self, chunk: bytes) -> list[bytes]:
        self._pending += chunk
        end = self._pending.rfind(b"\n")
        if end < 0:
            return []
        complete = bytes(self._pending[:end])
        del self._pending[: end + 1]
        return complete.split(b"\n")

    def rest(self) -> bytes:
        """What came after the last newline (a line the stream ended inside)."""
        rest, self._pending = bytes(self._pending), bytearray()
        return rest


@dataclass
class SseEvent:
    """One dispatched server-sent event: the fields its own lines set (an ``id`` is the one it carried, not
    the last event id a client would keep)."""

    name: str = ""
    data: list[bytes] = field(default_factory=list)
    id: str | None = None
    retry: int | None = None


LINE_END = re.compile(rb"\r\n|\r|\n")


class SseParser:
    """Parses a ``text/event-stream`` body as it comes, into the events a client would dispatch (the
    HTML standard's rules: ``\\r\\n``, ``\\r`` or ``\\n`` end a line; a blank line dispatches; ``:`` is a
    comment; an event the stream ended inside is never dispatched)."""

    def __init__(self) -> None:
        self._pending = b""
        self._event = SseEvent()
        self._fields = 0

    def feed(self, chunk: bytes) -> list[SseEvent]:
        self._pending += chunk
        dispatched: list[SseEvent] = []
        while True:
            match = LINE_END.search(self._pending)
            # a lone \r at the end may be the first half of \r\n: wait for the next byte
            if match is None or (match.group() == b"\r" and match.end() == len(self._pending)):
                return dispatched
            line, self._pending = self._pending[: match.start()], self._pending[match.end() :]
            event = self._line(line)
            if event is not None:
                dispatched.append(event)

    def _line(self, line: bytes) -> SseEvent | None:
        if not line:
            event, self._event, fields = self._event, SseEvent(), self._fields
            self._fields = 0
            return event if fields else None
        if line.startswith(b":"):
            return None
        name, _, value = line.partition(b":")
        value = value.removeprefix(b" ")
        self._fields += 1
        if name == b"data":
            self._event.data.append(value)
        elif name == b"event":
            self._event.name = value.decode("utf-8", "replace")
        elif name == b"id" and b"\0" not in value:
            self._event.id = value.decode("utf-8", "replace")
        elif name == b"retry" and value.isdigit():
            self._event.retry = int(value)
        return None


def record_sse_event(trace: Trace, event: SseEvent) -> None:
    """An event carrying data is a message (or unparsable) with its ``sse_id`` and ``sse_event`` name;
    2024-11-05's ``endpoint`` event and an event without data (a priming event, a ``retry``) are
    ``lifecycle`` events."""
    fields: dict[str, Any] = {}
    if event.id is not None:
        fields["sse_id"] = event.id
    if event.name:
        fields["sse_event"] = event.name
    if event.name == "endpoint":
        trace.lifecycle("server-to-client", "endpoint", data=b"\n".join(event.data).decode("utf-8", "replace"))
    elif not event.data or event.data == [b""]:
        if event.retry is not None:
            fields["retry"] = event.retry
        trace.lifecycle("server-to-client", "sse-event", **fields)
    else:
        record_unit(trace, "server-to-client", b"\n".join(event.data), **fields)
