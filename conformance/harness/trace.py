"""Session traces: one JSON event a line, the evidence of every session the harness holds.

``seq`` is the only ordering authority; ``direction`` is ``client-to-server`` or
``server-to-client``; ``transport`` is ``stdio``, ``streamable-http`` or ``http+sse``; ``kind`` is
``message`` (with ``payload`` verbatim), ``http`` (``method``, ``status``, ``headers``) or
``lifecycle`` (``event``); ``ts`` is optional. The offline validator reads the same format.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from pathlib import Path
from typing import Any, TextIO

DIRECTIONS = ("client-to-server", "server-to-client")
TRANSPORTS = ("stdio", "streamable-http", "http+sse")
KINDS = ("message", "http", "lifecycle")


class Trace:
    """Appends events to a JSONL file as they happen, so a crashed run still leaves its trace."""

    def __init__(self, path: Path, transport: str) -> None:
        if transport not in TRANSPORTS:
            raise ValueError(f"unknown transport {transport!r}")
        self.path = path
        self.transport = transport
        self._seq = itertools.count(1)
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO = path.open("w", encoding="utf-8")

    def record(self, direction: str, kind: str, **fields: Any) -> None:
        if direction not in DIRECTIONS or kind not in KINDS:
            raise ValueError(f"bad trace event: direction={direction!r} kind={kind!r}")
        with self._lock:
            if self._file.closed:
                return
            event = {"seq": next(self._seq), "direction": direction, "transport": self.transport, "kind": kind}
            event |= fields
            event["ts"] = round(time.time(), 6)
            self._file.write(json.dumps(event, ensure_ascii=False) + "\n")
            self._file.flush()

    def message(self, direction: str, payload: Any) -> None:
        self.record(direction, "message", payload=payload)

    def lifecycle(self, direction: str, event: str, **fields: Any) -> None:
        self.record(direction, "lifecycle", event=event, **fields)

    def close(self) -> None:
        with self._lock:
            self._file.close()
