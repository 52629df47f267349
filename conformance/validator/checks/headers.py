"""2026-07-28's header mirroring: the servers' `x-mcp-header` annotations in tool input schemas, and the
values clients put in `Mcp-Name` and `Mcp-Param-*` headers (plain safe ASCII, or the Base64 sentinel form)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from conformance.validator.checks.http import decoded
from conformance.validator.judgement import Judgement, check
from conformance.validator.reader import Event
from conformance.validator.session import META_PROTOCOL_VERSION, REQUEST, SERVER, Message, Session, header

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


ABSENT = object()  # an annotated argument the call left out
SAFE_INTEGER = 2**53 - 1


def _annotated_arguments(session: Session) -> Iterator[tuple[Message, str, Any]]:
    """(the tools/call request, the Mcp-Param-* header its annotated argument names, lowercased, the argument's
    value or ABSENT) for every top-level annotated parameter of the tool as last listed before the call."""
    listed: dict[int, dict[str, list[tuple[str, str]]]] = {}
    for response, tool, found in annotated_tools(session):
        params = [
            (path[1], f"mcp-param-{holder[ANNOTATION]}".lower())
            for path, holder in found
            if len(path) == 2 and path[0] == "properties" and isinstance(holder[ANNOTATION], str)
        ]
        listed.setdefault(response.seq, {})[tool.get("name")] = params
    for request in session.messages:
        if request.kind != REQUEST or request.method != "tools/call":
            continue
        tools: dict[str, list[tuple[str, str]]] = {}
        for seq in sorted(s for s in listed if s < request.seq):
            tools.update(listed[seq])
        arguments = request.params.get("arguments")
        given = arguments if isinstance(arguments, dict) else {}
        for argument, header_name in tools.get(request.params.get("name"), []):
            yield request, header_name, given.get(argument, ABSENT)


def _mirrored(session: Session) -> Iterator[tuple[Event, str, Any, str | None]]:
    """As _annotated_arguments, with the POST that carried the call (where that is certain) and the value of
    the header it sent (None: not sent)."""
    post_of = {body.seq: seq for seq, body in session.body_of.items()}
    posts = {e["seq"]: e for e in session.http_requests()}
    for request, header_name, value in _annotated_arguments(session):
        post = posts.get(post_of.get(request.seq, -1))
        if post is not None:
            yield post, header_name, value, header(post, header_name)


def _header_text(value: Any) -> str | None:
    """The value as the client writes it into a header, before any Base64: None for a type not encoded so."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return str(value)
    return None


@check("streamable-http-x-mcp-header-integer-range")
def annotated_integers_in_safe_range(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) An integer argument of an x-mcp-header-annotated parameter lies within +-(2^53-1)."""
    for request, header_name, value in _annotated_arguments(session):
        if request.sender not in sides or isinstance(value, bool) or not isinstance(value, int):
            continue
        judgement.examine()
        if abs(value) > SAFE_INTEGER:
            judgement.fail(request.seq, f"the argument mirrored to {header_name} is {value}, beyond 2^53-1")


@check("streamable-http-client-mirror-param-headers")
def annotated_arguments_mirrored(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A tools/call POST carries Mcp-Param-{name} for every annotated argument with a value."""
    for post, header_name, value, sent in _mirrored(session):
        if value is ABSENT or value is None:
            continue
        judgement.examine()
        if sent is None:
            judgement.fail(post["seq"], f"the tools/call POST lacks {header_name} for an argument it carries")


@check("streamable-http-client-omit-absent-param-header")
def absent_arguments_not_mirrored(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A tools/call POST carries no Mcp-Param-{name} for an annotated argument absent or null."""
    for post, header_name, value, sent in _mirrored(session):
        if value is not ABSENT and value is not None:
            continue
        judgement.examine()
        if sent is not None:
            judgement.fail(post["seq"], f"the tools/call POST sends {header_name} for an argument it does not carry")


@check("streamable-http-client-encode-param-values")
def mirrored_values_encoded(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) An Mcp-Param-* header holds its argument as text: a string unchanged, an integer in
    decimal, a boolean as true or false (plain, or in the Base64 sentinel form)."""
    for post, header_name, value, sent in _mirrored(session):
        expected = _header_text(value)
        if sent is None or expected is None:
            continue
        judgement.examine()
        if decoded(sent) != expected:
            judgement.fail(post["seq"], f"{header_name} {sent[:40]!r} does not encode the argument {expected[:40]!r}")


@check("streamable-http-client-base64-sentinel-lookalike")
def sentinel_lookalikes_wrapped(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A plain-ASCII argument already shaped like the sentinel (=?base64?...?=) is sent Base64-
    encoded too, never as it is."""
    for post, header_name, value, sent in _mirrored(session):
        if sent is None or not isinstance(value, str) or not SENTINEL.match(value) or _unsafe(value):
            continue
        judgement.examine()
        if sent == value or decoded(sent) != value:
            judgement.fail(post["seq"], f"{header_name} sends the sentinel-shaped value {value[:40]!r} unwrapped")


HEADER_MISMATCH = -32020


def _refused(session: Session, post: Event) -> bool | None:
    """Whether the server refused the request a POST carried (HTTP 400, or a HeaderMismatch error); None when
    the trace cannot say (its answer not recorded, or not paired with certainty)."""
    from conformance.validator.checks.http import exchanges

    response = next((r for q, r in exchanges(session) if q["seq"] == post["seq"]), None)
    body = session.body_of.get(post["seq"])
    answers = session.answers_to(body) if body is not None else []
    error = answers[0].frame.get("error") if answers and answers[0].kind == "error" else None
    if (response is not None and response["status"] == 400) or (
        isinstance(error, dict) and error.get("code") == HEADER_MISMATCH
    ):
        return True
    if answers or (response is not None and response["status"] < 300):
        return False
    return None


@check("streamable-http-reject-missing-param-header")
def missing_param_header_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A tools/call POST lacking the Mcp-Param-{name} header of an annotated argument that has a
    value is refused (HTTP 400 or HeaderMismatch)."""
    for post, header_name, value, sent in _mirrored(session):
        if value is ABSENT or value is None or sent is not None:
            continue
        refused = _refused(session, post)
        if refused is None:
            continue
        judgement.examine()
        if not refused:
            judgement.fail(post["seq"], f"a tools/call without {header_name} for an argument it carries was served")


@check("streamable-http-no-param-header-expected-when-absent")
def absent_param_header_not_demanded(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A tools/call POST that leaves an annotated argument out (or null) and sends no header for
    it is not refused with HeaderMismatch for that. A POST with a header missing for an argument it carries,
    or one differing from the body, earns its HeaderMismatch by that, and is not judged here."""
    mirrored = list(_mirrored(session))
    deserved = set(_header_body_mismatches(session)) | {
        post["seq"] for post, _, value, sent in mirrored if value is not ABSENT and value is not None and sent is None
    }
    for post, header_name, value, sent in mirrored:
        if (value is not ABSENT and value is not None) or sent is not None or post["seq"] in deserved:
            continue
        body = session.body_of.get(post["seq"])
        answers = session.answers_to(body) if body is not None else []
        if not answers:
            continue
        judgement.examine()
        error = answers[0].frame.get("error") if answers[0].kind == "error" else None
        if isinstance(error, dict) and error.get("code") == HEADER_MISMATCH:
            judgement.fail(answers[0].seq, f"HeaderMismatch for a call that carries no argument for {header_name}")


def _header_body_mismatches(session: Session) -> dict[int, tuple[Event, str]]:
    """POST seq -> (the POST, the first header that, decoded, differs from its body's value): Mcp-Method,
    Mcp-Name, MCP-Protocol-Version, Mcp-Param-*."""
    from conformance.validator.checks.http import NAMED_BY, posts_with_body

    found: dict[int, tuple[Event, str]] = {}
    for post, body in posts_with_body(session):
        if body.kind != REQUEST:
            continue
        named = body.params.get(NAMED_BY.get(body.method or "", ""))
        pairs = [
            ("Mcp-Method", header(post, "mcp-method"), body.method),
            ("Mcp-Name", header(post, "mcp-name"), named if isinstance(named, str) else None),
            ("MCP-Protocol-Version", header(post, "mcp-protocol-version"), body.meta.get(META_PROTOCOL_VERSION)),
        ]
        for name, sent, expected in pairs:
            if sent is not None and expected is not None and decoded(sent) != expected:
                found.setdefault(post["seq"], (post, name))
    for post, header_name, value, sent in _mirrored(session):
        if sent is not None and _header_text(value) is not None and not _same_value(decoded(sent), value):
            found.setdefault(post["seq"], (post, header_name))
    return found


def _same_value(text: str, value: Any) -> bool:
    """Whether a header's decoded text carries the body's value: an integer compared as a number (the spec's
    note on server validation: 42.0 and 42 are equal), anything else as the text the client writes."""
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return Decimal(text) == value
        except InvalidOperation:
            return False
    return text == _header_text(value)


@check("streamable-http-reject-header-body-mismatch")
def mismatched_header_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A POST whose mirrored header (Mcp-Method, Mcp-Name, MCP-Protocol-Version, Mcp-Param-*),
    decoded, differs from its body's value is refused (HTTP 400 or HeaderMismatch)."""
    for seq, (post, name) in sorted(_header_body_mismatches(session).items()):
        refused = _refused(session, post)
        if refused is None:
            continue
        judgement.examine()
        if not refused:
            judgement.fail(seq, f"its {name} header differs from the body, yet the request was served")
