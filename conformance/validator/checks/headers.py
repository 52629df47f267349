"""2026-07-28's header mirroring: the servers' `x-mcp-header` annotations in tool input schemas, and the
values clients put in `Mcp-Name` and `Mcp-Param-*` headers (plain safe ASCII, or the Base64 sentinel form)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from conformance.validator.judgement import Judgement, check
from conformance.validator.reader import Event
from conformance.validator.session import SERVER, Message, Session

ANNOTATION = "x-mcp-header"
TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110 tchar
HEADER_TYPES = frozenset({"string", "integer", "boolean"})
SENTINEL = re.compile(r"^=\?base64\?(.*)\?=$", re.IGNORECASE | re.DOTALL)


def _annotations(schema: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict]]:
    """(path, the schema holding it) of every x-mcp-header anywhere inside an input schema."""
    if isinstance(schema, dict):
        if ANNOTATION in schema:
            yield path, schema
        for key, value in schema.items():
            if key != ANNOTATION:
                yield from _annotations(value, (*path, key))
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _annotations(value, (*path, str(index)))


def annotated_tools(session: Session) -> Iterator[tuple[Message, dict, list[tuple[tuple[str, ...], dict]]]]:
    """(the tools/list result, the tool, its annotations) of every listed tool with x-mcp-header annotations."""
    for response in session.results_by_method.get((SERVER, "tools/list"), []):
        tools = response.result.get("tools") if isinstance(response.result, dict) else None
        for tool in tools if isinstance(tools, list) else []:
            if isinstance(tool, dict):
                found = list(_annotations(tool.get("inputSchema")))
                if found:
                    yield response, tool, found


def _each_annotation(session: Session, judgement: Judgement, problem_of: Any) -> None:
    for response, tool, found in annotated_tools(session):
        for path, holder in found:
            judgement.examine()
            problem = problem_of(path, holder)
            if problem:
                judgement.fail(response.seq, f"tool {tool.get('name')!r}, {'.'.join(path) or 'inputSchema'}: {problem}")


@check("streamable-http-x-mcp-header-not-empty")
def header_annotation_not_empty(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) No x-mcp-header value is the empty string."""
    _each_annotation(
        session, judgement, lambda path, holder: "x-mcp-header is empty" if holder[ANNOTATION] == "" else None
    )


@check("streamable-http-x-mcp-header-token")
def header_annotation_token(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) An x-mcp-header value is an HTTP field-name token (1*tchar)."""

    def problem(path: tuple[str, ...], holder: dict) -> str | None:
        value = holder[ANNOTATION]
        return None if isinstance(value, str) and TOKEN.match(value) else f"x-mcp-header {value!r} is not a token"

    _each_annotation(session, judgement, problem)


@check("streamable-http-x-mcp-header-no-control-chars")
def header_annotation_no_controls(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) An x-mcp-header value holds no control character."""

    def problem(path: tuple[str, ...], holder: dict) -> str | None:
        value = holder[ANNOTATION]
        controls = isinstance(value, str) and any(ord(c) < 0x20 or ord(c) == 0x7F for c in value)
        return f"x-mcp-header {value!r} holds a control character" if controls else None

    _each_annotation(session, judgement, problem)


@check("streamable-http-x-mcp-header-primitive-types")
def header_annotation_types(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) x-mcp-header annotates only parameters of type string, integer or boolean."""

    def problem(path: tuple[str, ...], holder: dict) -> str | None:
        kind = holder.get("type")
        kinds = set(kind) if isinstance(kind, list) else {kind}
        return None if kind is None or kinds <= HEADER_TYPES else f"annotates a parameter of type {kind!r}"

    _each_annotation(session, judgement, problem)


@check("streamable-http-x-mcp-header-static-path")
def header_annotation_static_path(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) x-mcp-header sits only on properties reached from the root through properties keys alone."""

    def problem(path: tuple[str, ...], holder: dict) -> str | None:
        static = len(path) >= 2 and len(path) % 2 == 0 and all(step == "properties" for step in path[::2])
        return None if static else "not reached through properties keys alone"

    _each_annotation(session, judgement, problem)


@check("streamable-http-x-mcp-header-unique")
def header_annotations_unique(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) No two x-mcp-header values of one input schema are equal, letter case aside."""
    for response, tool, found in annotated_tools(session):
        judgement.examine()
        names = [str(holder[ANNOTATION]).lower() for _, holder in found]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            judgement.fail(response.seq, f"tool {tool.get('name')!r} names x-mcp-header {repeated[0]!r} twice")


def mirrored_values(session: Session) -> Iterator[tuple[Event, str, str]]:
    """(the POST, the header name, its value) of every Mcp-Name and Mcp-Param-* header a client sent."""
    for event in session.http_requests():
        for name, value in event["headers"].items():
            if name.lower() == "mcp-name" or name.lower().startswith("mcp-param-"):
                yield event, name, value


def _unsafe(value: str) -> bool:
    return value != value.strip() or any(not 0x20 <= ord(c) < 0x7F for c in value)


@check("streamable-http-base64-markers-lowercase")
def sentinel_markers_lowercase(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) The Base64 sentinel is written =?base64?...?= in lowercase."""
    for event, name, value in mirrored_values(session):
        if not SENTINEL.match(value):
            continue
        judgement.examine()
        if not (value.startswith("=?base64?") and value.endswith("?=")):
            judgement.fail(event["seq"], f"{name} {value[:30]!r}: the sentinel markers are not lowercase")


@check("streamable-http-client-base64-unsafe-values")
def unsafe_values_in_base64(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A mirrored header value is plain safe ASCII (no control or non-ASCII character, no
    leading or trailing space) unless sent in the Base64 sentinel form."""
    for event, name, value in mirrored_values(session):
        judgement.examine()
        if not SENTINEL.match(value) and _unsafe(value):
            judgement.fail(event["seq"], f"{name} {value!r} is not safe as plain ASCII and not Base64-wrapped")
