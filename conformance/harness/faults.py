"""Faults: deliberate damage to the implementation's frames, to show that a test can fail.

A fault sits between the implementation and the peer: it rewrites the lines the implementation
sends before the peer reads, records or judges them. ``make falsify`` runs each tested MUST cell
under the fault its cover declares and expects the test to fail; a test that passes under its
fault guards nothing.

A fault targets the frames that answer one method (``target``, or any of a tuple of methods),
or that carry it as a notification; everything else passes through untouched.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

KINDS = (
    "set",
    "drop",
    "rename",
    "corrupt",
    "duplicate",
    "change-id",
    "delay",
    "silence",
    "inject",
    "inject-raw",
    "inject-frames",
    "strip-newline",
    "pretty",
    "batch",
    "http-status",
    "http-header",
    "http-method",
    "sse-event-id",
    "sse-event-name",
    "encoding",
    "http-early",
    "reorder",
    "reverse",
    "misreport",
    "bundle",
    "http-body",
    "fetch",
)
EVERY_METHOD = "*"  # a fault's target that names every method but the handshake (`make mutate`)
SESSION_OPENING = ("initialize", "notifications/initialized")  # every test reads them: no test's own subject
HTTP_KINDS = ("http-status", "http-header", "http-method", "sse-event-id", "sse-event-name", "http-early", "http-body")


@dataclass(frozen=True)
class Fault:
    kind: str
    target: str | tuple[str, ...]
    path: str = ""
    value: Any = None
    description: str = field(default="", compare=False)
    occurrence: int = 0  # only the Nth frame it targets in a session (1-based); 0: every one

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r} (known: {', '.join(KINDS)})")

    def __str__(self) -> str:
        if self.description:
            return self.description
        detail = f" {self.path}" if self.path else ""
        value = f" = {self.value!r}" if self.value is not None else ""
        target = " or ".join(self.target) if isinstance(self.target, tuple) else self.target
        return f"{self.kind}{detail}{value} in the answer to {target}"

    def targets(self, method: str | None) -> bool:
        return method is not None and (
            method == self.target
            or (self.target == EVERY_METHOD and method not in SESSION_OPENING)
            or (isinstance(self.target, tuple) and method in self.target)
        )

    def rewrite_http(self, target: str, status: int, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
        """The status and headers the peer sees for an HTTP answer to ``target`` (a JSON-RPC method,
        or GET / DELETE); faults of other kinds leave them alone."""
        if self.kind not in ("http-status", "http-header") or not self.targets(target):
            return status, headers
        if self.kind == "http-status":
            return int(self.value), headers
        headers = dict(headers)
        if self.value is None:
            headers.pop(self.path.lower(), None)
        else:
            headers[self.path.lower()] = str(self.value)
        return status, headers

    def rewrite_request(self, endpoint: str, request: dict[str, Any]) -> dict[str, Any]:
        """A request the client sent to ``endpoint`` (a path of a harness HTTP server: the authorization
        server's ``/authorize``, the protected resource's ``/mcp``), as that server records it: ``set`` and
        ``drop`` edit ``path`` of ``request`` (its keys ``path``, ``query``, ``headers``, ``form``; query and
        form values are lists). The server still acts on what came; other kinds and targets leave it alone."""
        if self.kind not in ("set", "drop") or self.target == EVERY_METHOD or not self.targets(endpoint):
            return request
        edited = json.loads(json.dumps(request))
        _edit(edited, self.path.split("."), self.kind, self.value)
        return edited

    def rewrite_events(self, target: str, events: list[dict[str, str]]) -> list[dict[str, str]]:
        """The SSE events of the answer to ``target``, every id replaced by this fault's value (or, for
        ``sse-event-name``, every event named ``path`` renamed to this fault's value)."""
        if self.kind == "sse-event-name" and self.targets(target):
            renamed = {"event": str(self.value)}
            return [event | renamed if event.get("event") == self.path else event for event in events]
        if self.kind != "sse-event-id" or not self.targets(target):
            return events
        return [event | {"id": str(self.value)} if "id" in event else event for event in events]

    def rewrite_report(self, name: str, report: Any) -> Any:
        """What the client tells its application under ``name`` (``ClientRun.report``): for ``misreport``
        of that report, this fault's value if it has one, else each entry's value handed to the next entry,
        as a client that gives each subscription what another received would tell it."""
        if self.kind != "misreport" or name != self.target:
            return report
        if self.value is not None:
            return self.value
        if not isinstance(report, dict) or len(report) < 2:
            return report
        values = list(report.values())
        return dict(zip(report, values[-1:] + values[:-1], strict=True))

    def applies_to(self, frame: Any, method_of: Callable[[Any], str | None]) -> bool:
        return isinstance(frame, dict) and (self.targets(frame.get("method")) or self.targets(method_of(frame)))

    def mutate(
        self,
        line: bytes,
        method_of: Callable[[Any], str | None],
        held: list[bytes] | None = None,
        counts: dict[str, int] | None = None,
        pages: str = "",
    ) -> list[bytes]:
        """The lines the peer sees instead of ``line`` (none, one, or several). ``held`` is the
        caller's own store for ``reorder``, which keeps a targeted frame back until the next frame
        has gone by, and ``counts`` its count of targeted frames for ``occurrence`` (a fault object
        is shared; the state of one session is not). ``pages`` is the base URL of the session's page
        server, where a ``fetch`` fault's request goes."""
        try:
            frame = json.loads(line)
        except json.JSONDecodeError:
            return [line]
        if self.occurrence and self.applies_to(frame, method_of):
            if counts is None:
                raise ValueError(f"{self}: a fault on one occurrence needs the session's count")
            counts["seen"] = counts.get("seen", 0) + 1
            if counts["seen"] != self.occurrence:
                return [line]
        if self.kind == "reorder" and held is not None:
            if self.applies_to(frame, method_of):
                held.append(line)
                return []
            released, held[:] = [line, *held], []
            return released
        if self.kind in HTTP_KINDS or not self.applies_to(frame, method_of):
            return [line]
        if self.kind == "fetch":  # the client's request outside the MCP endpoint, made before its frame goes on
            if not pages:
                raise ValueError(f"{self}: no page server in this session (the page_server fixture)")
            from conformance.harness.pages import fetch_page  # here: every scripted stdio server imports faults

            fetch_page(pages + self.path, self.value)
            return [line]
        if self.kind == "corrupt":
            return [line[: len(line) // 2] + b"\n"]
        if self.kind == "duplicate":
            return [line, line]
        if self.kind == "silence":
            return []
        if self.kind == "inject":
            return [json.dumps(self.value).encode() + b"\n", line]
        if self.kind == "inject-frames":
            return [*(json.dumps(extra).encode() + b"\n" for extra in self.value), line]
        if self.kind == "inject-raw":
            return [self.value.encode() + b"\n", line]
        if self.kind == "encoding":  # the frame's text (escapes spelt out) in another character encoding
            return [json.dumps(frame, ensure_ascii=False).encode(str(self.value), "replace") + b"\n"]
        if self.kind == "strip-newline":
            return [line.rstrip(b"\n")]
        if self.kind == "bundle":  # the frame sent in one batch with another message, before it
            return [json.dumps([self.value, frame]).encode() + b"\n"]
        if self.kind == "batch":  # the frame sent as a one-element JSON-RPC batch
            return [json.dumps([frame]).encode() + b"\n"]
        if self.kind == "pretty":  # the frame spread over several lines, as an indenting serializer would
            return [part + b"\n" for part in json.dumps(frame, indent=2).encode().split(b"\n")]
        if self.kind == "delay":
            time.sleep(float(self.value))
            return [line]
        if self.kind == "change-id":
            frame["id"] = self.value if self.value is not None else f"not-{frame.get('id')}"
        else:
            _edit(frame, self.path.split("."), self.kind, self.value)
        return [json.dumps(frame).encode() + b"\n"]


EVERY_ITEM = "*"  # a path segment naming every item of a list (``result.tools.*._meta``)


def _edit(node: Any, keys: list[str], kind: str, value: Any) -> None:
    for position, key in enumerate(keys[:-1]):
        if key == EVERY_ITEM:
            for item in node if isinstance(node, list) else []:
                _edit(item, keys[position + 1 :], kind, value)
            return
        node = node.setdefault(key, {}) if kind == "set" else node.get(key, {})
    last = keys[-1]
    if kind == "set":
        node[last] = value
    elif kind == "drop":
        node.pop(last, None)
    elif kind == "rename" and last in node:
        node[value] = node.pop(last)
    elif kind == "reverse" and isinstance(node.get(last), list):
        node[last] = node[last][::-1]


def set_field(target: str, path: str, value: Any, occurrence: int = 0) -> Fault:
    """``path`` of the answer to ``target`` set to ``value`` (with ``occurrence``: of its Nth answer only)."""
    nth = f" of its answer number {occurrence}" if occurrence else ""
    description = f"set {path} = {value!r} in the answer to {target}{nth}" if occurrence else ""
    return Fault("set", target, path, value, description, occurrence)


def reorder(target: str) -> Fault:
    """Each frame for ``target`` comes after the frame that followed it (or never, if none does)."""
    return Fault("reorder", target, description=f"each {target} frame swapped with the next frame")


def reverse_list(target: str, path: str, occurrence: int = 0) -> Fault:
    """The list at ``path`` of the answer to ``target`` in reverse order (with ``occurrence``: of its Nth
    answer only): the same items, another order."""
    nth = f" of its answer number {occurrence}" if occurrence else ""
    return Fault(
        "reverse", target, path, description=f"{path} reversed in the answer to {target}{nth}", occurrence=occurrence
    )


def drop_field(target: str | tuple[str, ...], path: str) -> Fault:
    return Fault("drop", target, path)


def rename_field(target: str, path: str, new_name: str) -> Fault:
    return Fault("rename", target, path, new_name)


def corrupt_frame(target: str) -> Fault:
    return Fault("corrupt", target)


def answer_twice(target: str) -> Fault:
    return Fault("duplicate", target)


def change_id(target: str | tuple[str, ...], new_id: Any = None) -> Fault:
    return Fault("change-id", target, value=new_id)


def delay(target: str, seconds: float) -> Fault:
    return Fault("delay", target, value=seconds)


def silence(target: str) -> Fault:
    return Fault("silence", target)


def inject_before(target: str, frame: Any) -> Fault:
    """An extra frame, as if the implementation had sent it just before the answer to ``target``."""
    return Fault("inject", target, value=frame)


def inject_frames_before(target: str | tuple[str, ...], frames: list[Any]) -> Fault:
    """Several extra frames, each on its own line, as if the implementation had sent them one after the
    other just before its frame of ``target`` (a burst of pings, say)."""
    description = f"{len(frames)} frames sent just before each frame of {target}"
    return Fault("inject-frames", target, value=list(frames), description=description)


def inject_raw_before(target: str, text: str) -> Fault:
    """A line of plain text (a banner, a log line) just before the answer to ``target``."""
    return Fault("inject-raw", target, value=text)


def strip_newline(target: str) -> Fault:
    """The answer to ``target`` without its terminating newline."""
    return Fault("strip-newline", target)


def bundled_with(target: str, message: Any) -> Fault:
    """The frame for ``target`` sent in one batch (a JSON array) with ``message`` before it."""
    return Fault("bundle", target, value=message, description=f"the {target} frame sent in one batch after {message}")


def misreport(report: str, instead: Any = None) -> Fault:
    """The client's ``report`` to its application with each entry's value given to the next entry, or, given
    ``instead``, reading ``instead``."""
    if instead is not None:
        description = f"the client's {report!r} report reads {instead!r}"
        return Fault("misreport", report, value=instead, description=description)
    return Fault("misreport", report, description=f"each entry of the client's {report!r} report given another's value")


def fetch(
    target: str | tuple[str, ...], path: str, headers: dict[str, str] | None = None, occurrence: int = 0
) -> Fault:
    """Just before its frame of ``target`` goes on (with ``occurrence``: its Nth only), the client GETs ``path``
    of the session's page server (harness/pages.py), sending ``headers`` and following redirects: the request
    outside the MCP endpoint that a client breaking the clause makes (an icon fetched, a ``$ref`` or an
    elicitation URL dereferenced). The frame itself goes on unchanged."""
    nth = f" number {occurrence}" if occurrence else ""
    sent = f" with {headers}" if headers else ""
    description = f"the client fetches {path} of the page server{sent} before its {target} frame{nth}"
    return Fault("fetch", target, path, dict(headers or {}), description, occurrence)


def pretty_print(target: str) -> Fault:
    """The answer to ``target`` serialized over several lines."""
    return Fault("pretty", target)


def as_batch(target: str) -> Fault:
    """The frame of ``target`` (a request or notification, or the answer to one) inside a JSON array."""
    return Fault("batch", target)


def http_body(target: str | tuple[str, ...], body: str) -> Fault:
    """The HTTP answer to ``target`` arrives with ``body`` as its JSON body (its status left as it was)."""
    return Fault("http-body", target, value=body, description=f"the HTTP answer to {target} with the body {body!r}")


def http_status(target: str | tuple[str, ...], status: int) -> Fault:
    """The HTTP answer to ``target`` (a method, or GET / DELETE) arrives with another status."""
    return Fault("http-status", target, value=status)


def http_header(target: str | tuple[str, ...], name: str, value: str | None) -> Fault:
    """The HTTP answer to ``target`` arrives with header ``name`` set to ``value`` (None: removed)."""
    return Fault("http-header", target, path=name, value=value)


def http_method(target: str | tuple[str, ...], method: str) -> Fault:
    """The HTTP request that carried ``target`` (a client's message) reads as sent with ``method``."""
    return Fault("http-method", target, value=method)


def rename_sse_event(target: str | tuple[str, ...], event: str, new_name: str) -> Fault:
    """The SSE events named ``event`` in the answer to ``target`` (a method, or GET) arrive named ``new_name``."""
    return Fault("sse-event-name", target, path=event, value=new_name)


def encode_as(target: str, encoding: str) -> Fault:
    """The answer to ``target`` arrives encoded in ``encoding`` (``latin-1``, ...) instead of UTF-8."""
    return Fault("encoding", target, value=encoding)


def same_event_id(target: str | tuple[str, ...], event_id: str = "1") -> Fault:
    """Every SSE event of the answer to ``target`` carries the same id."""
    return Fault("sse-event-id", target, value=event_id)


def arrives_early(target: str | tuple[str, ...], seconds: float) -> Fault:
    """The HTTP request that carried ``target`` (a client's message, or GET / DELETE) reads as having
    arrived ``seconds`` earlier than it did: a client that did not wait as long as it had to."""
    return Fault("http-early", target, value=seconds)


# Generic wire mutations (`make mutate`): each damages every frame of a test's exchange alike, to find the
# tests that no damage to what they read makes fail.
MUTATIONS: dict[str, Fault] = {
    "drop-result": Fault("drop", EVERY_METHOD, "result", description="every result member dropped"),
    "result-type": Fault("set", EVERY_METHOD, "result", "not an object", "every result made a string"),
    "change-id": Fault("change-id", EVERY_METHOD, description="every response's id changed"),
    "duplicate": Fault("duplicate", EVERY_METHOD, description="every frame sent twice"),
    "drop-frame": Fault("silence", EVERY_METHOD, description="every frame dropped"),
    "reorder": Fault("reorder", EVERY_METHOD, description="every frame held back past the next"),
    "content-type": Fault("http-header", EVERY_METHOD, "content-type", "text/plain", "every Content-Type text/plain"),
}
