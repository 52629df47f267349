"""The trace reader: a JSON Lines stream in, events out, or the first malformed line named.

Streaming: lines are read one at a time, so a trace over the limits is refused at the line that
crosses them, before it is held in memory. The checks here are those of ``trace-event.schema.json``,
written out by hand because running a JSON Schema validator on every line would cost the reader
most of its speed; tests/test_validator_reader.py holds the two to the same verdicts.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_EVENTS = 5_000_000
MAX_SEQ = 2**53 - 1  # JSON's safe integers: a recorder in any language can write them exactly

DIRECTIONS = frozenset({"client-to-server", "server-to-client"})
TRANSPORTS = frozenset({"stdio", "streamable-http", "sse"})
KINDS = frozenset({"message", "http", "lifecycle"})
STDIN = "-"

Event = dict[str, Any]


class TraceError(ValueError):
    """A malformed trace, named by its source and line (1-based)."""

    def __init__(self, source: str, line: int, reason: str) -> None:
        super().__init__(f"{source}:{line}: {reason}")
        self.source = source
        self.line = line
        self.reason = reason


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def event_problem(event: Any) -> str | None:
    """Why ``event`` is no valid trace event (the first reason found), or None."""
    if not isinstance(event, dict):
        return f"an event is a JSON object, not {type(event).__name__}"
    for member in ("seq", "direction", "transport", "kind"):
        if member not in event:
            return f"missing member {member!r}"
    seq = event["seq"]
    if not _is_integer(seq) or not 0 <= seq <= MAX_SEQ:
        return f"seq must be an integer from 0 to {MAX_SEQ}, not {seq!r}"
    if event["direction"] not in DIRECTIONS:
        return f"bad direction {event['direction']!r} (client-to-server or server-to-client)"
    if event["transport"] not in TRANSPORTS:
        return f"bad transport {event['transport']!r} (stdio, streamable-http or sse)"
    if "ts" in event and not _is_number(event["ts"]):
        return f"ts must be a number, not {event['ts']!r}"
    kind = event["kind"]
    if kind == "message":
        return None if "payload" in event else "missing member 'payload' of a message event"
    if kind == "http":
        return _http_problem(event)
    if kind == "lifecycle":
        name = event.get("event")
        if not isinstance(name, str) or not name:
            return f"a lifecycle event needs a non-empty string 'event', not {name!r}"
        return None
    return f"bad kind {kind!r} (message, http or lifecycle)"


def _http_problem(event: Event) -> str | None:
    method = event.get("method")
    if not isinstance(method, str) or not method:
        return f"an http event needs a non-empty string 'method', not {method!r}"
    headers = event.get("headers")
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        return "an http event needs 'headers', an object of string values"
    if "path" in event and not isinstance(event["path"], str):
        return f"path must be a string, not {event['path']!r}"
    if event["direction"] == "server-to-client":
        status = event.get("status")
        if not _is_integer(status) or not 100 <= status <= 599:
            return f"a response's http event needs an integer 'status' from 100 to 599, not {status!r}"
    elif "status" in event:
        return "a request's http event (client-to-server) has no 'status'"
    return None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _lines(stream: IO[bytes], source: str) -> Iterator[tuple[int, bytes]]:
    """Each line of ``stream`` with its number, refused once it is longer than the limit."""
    number = 0
    while True:
        line = stream.readline(MAX_LINE_BYTES + 2)
        if not line:
            return
        number += 1
        body = line[:-1] if line.endswith(b"\n") else line
        if len(body) > MAX_LINE_BYTES:
            raise TraceError(source, number, f"line longer than {MAX_LINE_BYTES} bytes")
        yield number, body


def read_stream(stream: IO[bytes], source: str) -> Iterator[Event]:
    """The events of a trace, in order; a ``TraceError`` at the first malformed line."""
    previous_seq = -1
    count = 0
    for number, body in _lines(stream, source):
        if not body.strip():
            continue
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TraceError(source, number, f"not UTF-8 (byte {exc.start})") from None
        try:
            event = json.loads(text, parse_constant=_refuse_constant)
        except ValueError as exc:  # JSONDecodeError, and the recursion limit of a deeply nested value
            raise TraceError(source, number, f"not JSON: {exc}") from None
        except RecursionError:
            raise TraceError(source, number, "not JSON this reader can hold: nested too deeply") from None
        problem = event_problem(event)
        if problem:
            raise TraceError(source, number, problem)
        if event["seq"] <= previous_seq:
            raise TraceError(source, number, f"seq {event['seq']} does not increase (previous {previous_seq})")
        previous_seq = event["seq"]
        count += 1
        if count > MAX_EVENTS:
            raise TraceError(source, number, f"more than {MAX_EVENTS} events")
        yield event


def read_trace(source: str) -> list[Event]:
    """Every event of the trace at ``source`` (a path, or ``-`` for standard input)."""
    if source == STDIN:
        return list(read_stream(sys.stdin.buffer, "<stdin>"))
    with Path(source).open("rb") as stream:
        return list(read_stream(stream, source))
