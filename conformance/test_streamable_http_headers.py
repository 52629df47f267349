"""Streamable HTTP at 2026-07-28: the per-request headers (``Mcp-Method``, ``Mcp-Name``), parameters
mirrored into ``Mcp-Param-{Name}`` headers by ``x-mcp-header``, their Base64 sentinel encoding, and
the server's validation of them against the body.

Server cells meet the server under test over HTTP: its ``tools/list`` is judged for the annotation
rules, and hand-built requests (headers set one by one) for the validation rules; the fixture's
``test_header_params`` mirrors ``region`` (``Region``, a string), ``priority`` (``Priority``, an
integer), ``dry_run`` (``Dry-Run``, a boolean) and ``options.tenant`` (``Tenant``). Client cells run
the client under test against the scripted server, whose ``tools/list`` declares mirrored parameters
and gives, as the ``examples`` of each ``inputSchema``, the argument objects the client's scenario
calls the tool with (``call_listed_tools`` in conformance/fixtures/client.py); the test reads the
headers of the client's requests.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from conformance.harness.http import Exchange, HttpPeer
from conformance.harness.roles import Binding, require_role
from conformance.harness.scripted_server import Received, ScriptedServer, listing_tools
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.surface import listed_tools
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun

RunClient = Callable[[str], ClientRun]

ANNOTATION = "x-mcp-header"
PARAM_PREFIX = "mcp-param-"
PRIMITIVE_TYPES = ("string", "integer", "boolean")
SAFE_INTEGER = 2**53 - 1  # the JavaScript safe-integer bound
TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")  # RFC 9110 section 5.6.2: 1*tchar
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
SENTINEL_PREFIX, SENTINEL_SUFFIX = "=?base64?", "?="
# JSON Schema keywords whose values are instances, not schemas: an annotation-shaped key in them is data.
INSTANCE_KEYWORDS = frozenset({"default", "const", "enum", "examples"})


def sentinel(value: str) -> str:
    """``value`` in the Base64 sentinel form of the Value Encoding rules."""
    return SENTINEL_PREFIX + base64.b64encode(value.encode("utf-8")).decode("ascii") + SENTINEL_SUFFIX


# -- the server's tool definitions ----------------------------------------------------------------------


@dataclass(frozen=True)
class Annotation:
    """One ``x-mcp-header`` found in a tool's ``inputSchema``."""

    tool: str
    path: tuple[str, ...] | None  # the chain of ``properties`` keys to it; None off that chain
    value: Any
    schema: dict

    def __str__(self) -> str:
        where = ".".join(self.path) if self.path else "(not reached through properties alone)"
        return f"{self.tool}: {where} {ANNOTATION}={self.value!r}"


def annotations_in(tool: str, schema: Any) -> Iterator[Annotation]:
    """Every ``x-mcp-header`` in ``schema``, at any depth, with its ``properties`` path if it has one."""
    stack: list[tuple[tuple[str, ...] | None, Any]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, list):
            stack.extend((None, item) for item in node)
            continue
        if not isinstance(node, dict):
            continue
        if ANNOTATION in node:
            yield Annotation(tool, path or None, node[ANNOTATION], node)
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                stack.extend(((*path, name) if path is not None else None, sub) for name, sub in value.items())
            elif key not in INSTANCE_KEYWORDS and key != ANNOTATION:
                stack.append((None, value))


def declared_annotations(peer: HttpPeer) -> list[Annotation]:
    """Every ``x-mcp-header`` of every tool the server lists over Streamable HTTP; none leaves the cell
    fixture-missing (the annotation is the server's option)."""
    found = [a for tool in listed_tools(peer) for a in annotations_in(tool.get("name"), tool.get("inputSchema"))]
    if not found:
        pytest.skip(f"fixture-missing: no tool the server lists declares {ANNOTATION}")
    return found


@for_req("streamable-http-x-mcp-header-designation", "server")
def test_a_server_may_mirror_tool_parameters_into_headers(revision: str, http_server: HttpPeer) -> None:
    """The option used: a tool's inputSchema marks a property with ``x-mcp-header``; and honoured: a call
    carrying the value and its mirrored header is served."""
    placed = [a for a in declared_annotations(http_server) if a.path]
    assert placed, "no x-mcp-header sits on a property of an inputSchema"
    exchange = call_header_tool(http_server, {"region": "us-west1"}, {"Mcp-Param-Region": "us-west1"})
    assert exchange.status == 200 and results_of(http_server, exchange), (exchange.status, exchange.body[:300])


@for_req("streamable-http-x-mcp-header-not-empty", "server")
def test_no_x_mcp_header_is_empty(revision: str, http_server: HttpPeer) -> None:
    empty = [str(a) for a in declared_annotations(http_server) if a.value == ""]
    assert not empty, f"empty annotations: {empty}"


@for_req("streamable-http-x-mcp-header-token", "server")
def test_every_x_mcp_header_is_an_http_token(revision: str, http_server: HttpPeer) -> None:
    bad = [
        str(a) for a in declared_annotations(http_server) if not isinstance(a.value, str) or not TOKEN.match(a.value)
    ]
    assert not bad, f"annotations that are not RFC 9110 tokens: {bad}"


@for_req("streamable-http-x-mcp-header-no-control-chars", "server")
def test_no_x_mcp_header_holds_control_characters(revision: str, http_server: HttpPeer) -> None:
    bad = [str(a) for a in declared_annotations(http_server) if isinstance(a.value, str) and CONTROL.search(a.value)]
    assert not bad, f"annotations with control characters: {bad}"


@for_req("streamable-http-x-mcp-header-unique", "server")
def test_x_mcp_headers_are_unique_within_a_tool_ignoring_case(revision: str, http_server: HttpPeer) -> None:
    seen: dict[tuple[str, str], Annotation] = {}
    clashes = []
    for annotation in declared_annotations(http_server):
        key = (annotation.tool, str(annotation.value).lower())
        if key in seen:
            clashes.append(f"{seen[key]} and {annotation}")
        seen[key] = annotation
    assert not clashes, f"annotations equal but for case: {clashes}"


@for_req("streamable-http-x-mcp-header-primitive-types", "server")
def test_x_mcp_header_annotates_only_strings_integers_and_booleans(revision: str, http_server: HttpPeer) -> None:
    bad = [
        f"{a} (type {a.schema.get('type')!r})"
        for a in declared_annotations(http_server)
        if a.schema.get("type") not in PRIMITIVE_TYPES
    ]
    assert not bad, f"annotations on parameters not of type string, integer or boolean: {bad}"


@for_req("streamable-http-x-mcp-header-static-path", "server")
def test_x_mcp_header_sits_only_where_properties_alone_reach(revision: str, http_server: HttpPeer) -> None:
    bad = [str(a) for a in declared_annotations(http_server) if a.path is None]
    assert not bad, f"annotations off the properties chain: {bad}"


@for_req("streamable-http-x-mcp-header-integer-range", "server")
def test_the_integer_values_a_definition_gives_a_mirrored_parameter_are_safe(
    revision: str, http_server: HttpPeer
) -> None:
    """The values a server itself writes for a mirrored integer parameter (``default``, ``const``,
    ``enum``, ``examples``) lie within the safe-integer range."""
    given = {
        str(a): values
        for a in declared_annotations(http_server)
        if a.schema.get("type") == "integer" and (values := definition_values(a.schema))
    }
    if not given:
        pytest.skip("fixture-missing: no mirrored integer parameter carries a value in its definition")
    unsafe = {where: values for where, values in given.items() if any(abs(v) > SAFE_INTEGER for v in values)}
    assert not unsafe, f"integer values beyond +-(2^53-1): {unsafe}"


def definition_values(schema: dict) -> list[int]:
    values = [schema.get("default"), schema.get("const"), *(schema.get("enum") or []), *(schema.get("examples") or [])]
    return [v for v in values if isinstance(v, int) and not isinstance(v, bool)]


# -- the server's validation of the headers -------------------------------------------------------------


def call_header_tool(
    peer: HttpPeer, arguments: dict, headers: dict[str, str | None], tool: Binding | None = None
) -> Exchange:
    """A ``tools/call`` of the tool of role ``header-params-tool`` (``tool``, or looked up) with the standard
    headers, then ``headers`` applied (a value of None removes that header, whatever the case of its name)."""
    tool = tool or require_role(peer, "header-params-tool")
    frame = peer.envelope("tools/call", "mirrored", {"name": tool.name, "arguments": arguments})
    sent = peer.headers_for(frame)
    for name, value in headers.items():
        for existing in [n for n in sent if n.lower() == name.lower()]:
            del sent[existing]
        if value is not None:
            sent[name] = value
    return peer.exchange("POST", frame, sent)


def results_of(peer: HttpPeer, exchange: Exchange) -> list[dict]:
    return [f for f in peer.frames_of(exchange) if isinstance(f, dict) and "result" in f]


def assert_rejected(peer: HttpPeer, exchange: Exchange, what: str) -> None:
    results = results_of(peer, exchange)
    assert 400 <= exchange.status < 500 and not results, f"{what} was answered {exchange.status}: {results}"


def assert_served(peer: HttpPeer, exchange: Exchange, what: str) -> None:
    results = results_of(peer, exchange)
    assert exchange.status == 200 and results, f"{what} was answered {exchange.status}: {exchange.body[:300]!r}"


# streamable-http-reject-header-body-mismatch names four header families; the Mcp-Method one is probed in
# test_streamable_http.py, the other three here, each with a header that disagrees with its body value.


@for_req("streamable-http-reject-header-body-mismatch", "server")
def test_a_protocol_version_header_that_disagrees_with_the_body_is_rejected(
    revision: str, http_server: HttpPeer
) -> None:
    exchange = call_header_tool(http_server, {"region": "us-west1"}, {"MCP-Protocol-Version": "2025-11-25"})
    assert_rejected(http_server, exchange, f"MCP-Protocol-Version 2025-11-25 on a {revision} body")


@for_req("streamable-http-reject-header-body-mismatch", "server")
def test_an_mcp_name_header_that_disagrees_with_the_body_is_rejected(revision: str, http_server: HttpPeer) -> None:
    exchange = call_header_tool(http_server, {"region": "us-west1"}, {"Mcp-Name": "mcp-matrix-another-tool"})
    assert_rejected(http_server, exchange, "Mcp-Name mcp-matrix-another-tool on a call of another tool")


@for_req("streamable-http-reject-header-body-mismatch", "server")
def test_an_mcp_param_header_that_disagrees_with_the_body_is_rejected(revision: str, http_server: HttpPeer) -> None:
    exchange = call_header_tool(http_server, {"region": "us-west1"}, {"Mcp-Param-Region": "eu-north1"})
    assert_rejected(http_server, exchange, "Mcp-Param-Region eu-north1 on a call with region us-west1")


@for_req("streamable-http-reject-missing-param-header", "server")
def test_a_call_without_the_header_of_a_mirrored_argument_is_rejected(revision: str, http_server: HttpPeer) -> None:
    exchange = call_header_tool(http_server, {"region": "us-west1"}, {})
    assert_rejected(http_server, exchange, "a call with region us-west1 and no Mcp-Param-Region")


@for_req("streamable-http-no-param-header-expected-when-absent", "server")
def test_no_header_is_expected_for_an_absent_or_null_argument(revision: str, http_server: HttpPeer) -> None:
    for arguments in ({}, {"region": None}, {"options": {}}):
        exchange = call_header_tool(http_server, arguments, {})
        assert_served(http_server, exchange, f"a call with arguments {arguments} and no Mcp-Param-* header")


@for_req("streamable-http-reject-invalid-header-chars", "server")
def test_a_mirrored_header_with_invalid_characters_is_rejected(revision: str, http_server: HttpPeer) -> None:
    """The header carries the body's value unencoded, so it matches the body once read: only the
    characters are wrong (a control character; a byte outside ASCII)."""
    for value in ("us\x01west1", "caf\u00e9"):
        exchange = call_header_tool(http_server, {"region": value}, {"Mcp-Param-Region": value})
        assert_rejected(http_server, exchange, f"Mcp-Param-Region: {value!r} (unencoded)")


@for_req("streamable-http-header-names-case-insensitive", "server")
def test_the_server_reads_header_names_in_any_case(revision: str, http_server: HttpPeer) -> None:
    tool = require_role(http_server, "header-params-tool")
    frame_headers = {
        "MCP-Protocol-Version": None,
        "Mcp-Method": None,
        "Mcp-Name": None,
        "mcp-PROTOCOL-version": revision,
        "MCP-METHOD": "tools/call",
        "mcp-name": tool.name,
        "MCP-PARAM-REGION": "us-west1",  # the annotation says Region
    }
    exchange = call_header_tool(http_server, {"region": "us-west1"}, frame_headers, tool)
    assert_served(http_server, exchange, "a call whose header names are in other cases")


@for_req("streamable-http-integer-header-numeric-compare", "server")
def test_an_integer_header_is_compared_as_a_number(revision: str, http_server: HttpPeer) -> None:
    exchange = call_header_tool(http_server, {"priority": 42}, {"Mcp-Param-Priority": "42.0"})
    assert_served(http_server, exchange, "priority 42 with Mcp-Param-Priority: 42.0")


# -- the client's headers -------------------------------------------------------------------------------


def tool(name: str, properties: dict, *examples: dict) -> dict:
    """A tool definition whose ``examples`` are the argument objects the client's scenario calls it with."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if examples:
        schema["examples"] = list(examples)
    return {"name": name, "inputSchema": schema}


def string(header: str) -> dict:
    return {"type": "string", ANNOTATION: header}


SQL_PROPERTIES = {
    "region": string("Region"),
    "options": {"type": "object", "properties": {"tenant": string("Tenant")}},
    "query": {"type": "string"},
}


def calls_of(run_client: RunClient, server: ScriptedServer, tools: list[dict]) -> list[tuple[dict, dict[str, str]]]:
    """(tools/call frame, the headers of its POST) for each call the client makes with ``tools`` listed."""
    server.answers["tools/list"] = listing_tools(server.answers["tools/list"], tools)
    run_client("call_listed_tools").require_completed()
    return [(frame, r.headers) for r in server.received for frame in r.frames if method_of(frame) == "tools/call"]


def method_of(frame: Any) -> str | None:
    return frame.get("method") if isinstance(frame, dict) and "id" in frame else None


def params_headers(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name.startswith(PARAM_PREFIX)}


def mirrored(run_client: RunClient, server: ScriptedServer, tools: list[dict]) -> list[tuple[dict, dict[str, str]]]:
    """As ``calls_of``, each call's arguments and its ``Mcp-Param-*`` headers; at least one call."""
    calls = [
        (frame["params"].get("arguments") or {}, params_headers(h)) for frame, h in calls_of(run_client, server, tools)
    ]
    assert calls, "the client called no tool"
    return calls


@for_req("streamable-http-client-mirror-param-headers", "client")
def test_the_client_mirrors_annotated_arguments_into_headers(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    example = {"region": "us-west1", "options": {"tenant": "acme"}, "query": "SELECT 1"}
    for arguments, headers in mirrored(run_client, scripted_server, [tool("execute_sql", SQL_PROPERTIES, example)]):
        expected = {"mcp-param-region": "us-west1", "mcp-param-tenant": "acme"}
        assert headers == expected, f"arguments {arguments} went with headers {headers}"


@for_req("streamable-http-client-omit-absent-param-header", "client")
def test_the_client_sends_no_header_for_an_absent_or_null_argument(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    examples = ({"query": "SELECT 1"}, {"region": None, "query": "SELECT 1"}, {"options": {"tenant": None}})
    for arguments, headers in mirrored(run_client, scripted_server, [tool("execute_sql", SQL_PROPERTIES, *examples)]):
        assert not headers, f"arguments {arguments} went with headers {headers}"


@for_req("streamable-http-client-encode-param-values", "client")
def test_the_client_writes_strings_integers_and_booleans_as_the_spec_says(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    properties = {"region": string("Region"), "count": {"type": "integer", ANNOTATION: "Count"}}
    properties["flag"] = {"type": "boolean", ANNOTATION: "Flag"}
    cases = {
        ("us-west1", 42, True): {"mcp-param-region": "us-west1", "mcp-param-count": "42", "mcp-param-flag": "true"},
        ("eu", -7, False): {"mcp-param-region": "eu", "mcp-param-count": "-7", "mcp-param-flag": "false"},
    }
    examples = [{"region": r, "count": c, "flag": f} for r, c, f in cases]
    calls = mirrored(run_client, scripted_server, [tool("typed", properties, *examples)])
    for arguments, headers in calls:
        expected = cases[arguments.get("region"), arguments.get("count"), arguments.get("flag")]
        assert headers == expected, f"arguments {arguments} went with headers {headers}"


UNSAFE_TEXTS = ("Hello, \u4e16\u754c", " padded ", "line1\nline2")


def text_headers(run_client: RunClient, server: ScriptedServer, *texts: str) -> list[tuple[str, str | None]]:
    """(text, its Mcp-Param-Text header) for each call of a tool mirroring ``text``, one call per text."""
    definition = tool("echo_text", {"text": string("Text")}, *({"text": t} for t in texts))
    return [
        (arguments.get("text"), headers.get("mcp-param-text"))
        for arguments, headers in mirrored(run_client, server, [definition])
    ]


@for_req("streamable-http-client-base64-unsafe-values", "client")
def test_the_client_base64_encodes_values_unsafe_in_a_header(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    for text, header in text_headers(run_client, scripted_server, *UNSAFE_TEXTS):
        assert header == sentinel(text), f"{text!r} went as Mcp-Param-Text: {header!r}, not {sentinel(text)!r}"


@for_req("streamable-http-base64-markers-lowercase", "client")
def test_the_base64_markers_are_written_in_lowercase(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    encoded = [
        h
        for _, h in text_headers(run_client, scripted_server, *UNSAFE_TEXTS)
        if h and h.lower().startswith(SENTINEL_PREFIX)
    ]
    assert encoded, "no value went Base64-encoded"
    bad = [h for h in encoded if not (h.startswith(SENTINEL_PREFIX) and h.endswith(SENTINEL_SUFFIX))]
    assert not bad, f"markers not written exactly =?base64? ... ?=: {bad}"


@for_req("streamable-http-client-base64-sentinel-lookalike", "client")
def test_a_value_shaped_like_the_sentinel_is_encoded_too(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    lookalike = "=?base64?literal?="
    for text, header in text_headers(run_client, scripted_server, lookalike):
        assert header == sentinel(text), f"{text!r} went as Mcp-Param-Text: {header!r}, not {sentinel(text)!r}"


@for_req("streamable-http-x-mcp-header-integer-range", "client")
def test_the_client_sends_no_mirrored_integer_beyond_the_safe_range(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Asked to call with an annotated integer beyond +-(2^53-1), the client does not put it on the wire
    (it refuses the call); the bound itself goes through."""
    examples = ({"count": SAFE_INTEGER}, {"count": SAFE_INTEGER + 2}, {"count": -(SAFE_INTEGER + 2)})
    definition = tool("counted", {"count": {"type": "integer", ANNOTATION: "Count"}}, *examples)
    calls = mirrored(run_client, scripted_server, [definition])
    unsafe = [(a, h) for a, h in calls if isinstance(a.get("count"), int) and abs(a["count"]) > SAFE_INTEGER]
    assert not unsafe, f"calls carrying integers beyond +-(2^53-1) in a mirrored parameter: {unsafe}"


VALID_TOOL = tool("valid_tool", SQL_PROPERTIES)
INVALID_TOOLS = {
    "empty_annotation": tool("empty_annotation", {"a": string("")}),
    "annotation_not_a_token": tool("annotation_not_a_token", {"a": string("Two Words")}),
    "annotation_with_crlf": tool("annotation_with_crlf", {"a": string("Region\r\nX-Injected")}),
    "annotations_equal_but_for_case": tool(
        "annotations_equal_but_for_case", {"a": string("Region"), "b": string("REGION")}
    ),
    "annotation_on_a_number": tool("annotation_on_a_number", {"a": {"type": "number", ANNOTATION: "Amount"}}),
    "annotation_on_an_object": tool("annotation_on_an_object", {"a": {"type": "object", ANNOTATION: "Whole"}}),
    "annotation_under_items": tool(
        "annotation_under_items", {"a": {"type": "array", "items": {"type": "string", ANNOTATION: "Item"}}}
    ),
    "annotation_under_anyof": tool(
        "annotation_under_anyof", {"a": {"anyOf": [{"type": "string", ANNOTATION: "Choice"}, {"type": "integer"}]}}
    ),
    "annotation_behind_ref": {
        "name": "annotation_behind_ref",
        "inputSchema": {
            "type": "object",
            "$defs": {"region": {"type": "string", ANNOTATION: "Region"}},
            "properties": {"a": {"$ref": "#/$defs/region"}},
        },
    },
}


def rejection_run(run_client: RunClient, server: ScriptedServer) -> tuple[ClientRun, set[str]]:
    """The client lists one valid tool and one invalid for each annotation rule, then calls each tool it
    kept: its output, and the names it called."""
    server.answers["tools/list"] = listing_tools(server.answers["tools/list"], [VALID_TOOL, *INVALID_TOOLS.values()])
    run = run_client("call_listed_tools")
    run.require_completed()
    called = {f["params"]["name"] for r in server.received for f in r.frames if method_of(f) == "tools/call"}
    return run, called


@for_req("streamable-http-client-reject-invalid-x-mcp-header", "client")
def test_the_client_drops_tools_whose_annotations_break_the_rules(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    _, called = rejection_run(run_client, scripted_server)
    assert "valid_tool" in called, f"the valid tool was not kept beside the invalid ones: called {sorted(called)}"
    kept = sorted(called & set(INVALID_TOOLS))
    assert not kept, f"tools with invalid {ANNOTATION} were kept (and called): {kept}"


@for_req("streamable-http-client-warn-rejected-tool", "client")
def test_the_client_warns_of_each_tool_it_drops(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    run, called = rejection_run(run_client, scripted_server)
    lines = run.output.splitlines()
    dropped = sorted(set(INVALID_TOOLS) - called)
    unexplained = [name for name in dropped if not any(name in line and "header" in line.lower() for line in lines)]
    assert not unexplained, f"no warning names these dropped tools with a reason: {unexplained}\n{run.output[-2000:]}"


@for_req("streamable-http-client-refresh-tools-on-header-mismatch", "client")
def test_after_a_header_mismatch_the_client_relists_and_retries(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The first listing leaves ``region`` unannotated, so the client's call carries no header and is
    refused with HeaderMismatch (400, -32020); every later listing annotates it."""
    example = {"region": "us-west1"}
    before = tool("execute_sql", {"region": {"type": "string"}}, example)
    after = tool("execute_sql", SQL_PROPERTIES, example)
    listed, listings = scripted_server.answers["tools/list"], iter([[before]])
    scripted_server.answers["tools/list"] = lambda frame: listed(frame) | {"tools": next(listings, [after])}
    answered = scripted_server.answers["tools/call"]
    refused = iter([{"error": {"code": -32020, "message": "Header mismatch: Mcp-Param-Region is missing"}}])
    scripted_server.answers["tools/call"] = lambda frame: next(refused, None) or answered(frame)
    run_client("call_listed_tools").require_completed()
    sequence = [
        (method_of(f), r.headers.get("mcp-param-region"))
        for r in scripted_server.received
        for f in r.frames
        if method_of(f) in ("tools/list", "tools/call")
    ]
    calls = [index for index, (method, _) in enumerate(sequence) if method == "tools/call"]
    assert calls, f"the client called no tool: {sequence}"
    refusal = calls[0]
    assert ("tools/list", None) in sequence[refusal + 1 :], f"no tools/list after the refusal: {sequence}"
    relisted = sequence.index(("tools/list", None), refusal + 1)
    assert ("tools/call", "us-west1") in sequence[relisted + 1 :], f"no retry with Mcp-Param-Region: {sequence}"


@for_req("streamable-http-mcp-method-header", "client")
def test_every_request_post_names_its_method_in_mcp_method(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    run_client("tools_call").require_completed()
    carrying = [
        (method_of(f), r.headers.get("mcp-method")) for r in posts(scripted_server) for f in r.frames if method_of(f)
    ]
    assert carrying, "the client sent no request"
    wrong = [(method, header) for method, header in carrying if header != method]
    assert not wrong, f"(body method, Mcp-Method) that differ: {wrong}"


def posts(server: ScriptedServer) -> list[Received]:
    return [r for r in server.received if r.method == "POST"]


NAME_SOURCES = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def named_requests(
    run_client: RunClient, server: ScriptedServer, names: dict[str, str]
) -> list[tuple[str, str, str | None]]:
    """The client calls a tool, reads a resource and gets a prompt, each named as in ``names``
    (method -> name or URI): (method, the name in the body, the Mcp-Name header) of each."""
    listings = {
        "tools/list": ("tools", {"name": names["tools/call"], "inputSchema": {"type": "object"}}),
        "resources/list": ("resources", {"uri": names["resources/read"], "name": "named"}),
        "prompts/list": ("prompts", {"name": names["prompts/get"]}),
    }
    cacheable = {k: v for k, v in server.answers["resources/list"]({}).items() if k != "resources"}
    for method, (key, item) in listings.items():
        listed = server.answers[method]
        server.answers[method] = lambda frame, listed=listed, key=key, item=item: listed(frame) | {key: [item]}
    complete = {"resultType": "complete"}
    server.answers["resources/read"] = lambda frame: (
        {"contents": [{"uri": frame["params"]["uri"], "text": "named"}]} | cacheable
    )
    server.answers["prompts/get"] = lambda frame: (
        {"messages": [{"role": "user", "content": {"type": "text", "text": "named"}}]} | complete
    )
    run_client("name_bearing_requests").require_completed()
    found = [
        (method, f["params"].get(NAME_SOURCES[method]), r.headers.get("mcp-name"))
        for r in posts(server)
        for f in r.frames
        if (method := method_of(f)) in NAME_SOURCES
    ]
    assert {m for m, _, _ in found} == set(NAME_SOURCES), f"the client did not make each named request: {found}"
    return found


@for_req("streamable-http-mcp-name-header", "client")
def test_named_requests_carry_their_name_in_mcp_name(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    names = {"tools/call": "get_weather", "resources/read": "test://static-text", "prompts/get": "greeting"}
    wrong = [
        (m, body, header) for m, body, header in named_requests(run_client, scripted_server, names) if header != body
    ]
    assert not wrong, f"(method, body name, Mcp-Name) that differ: {wrong}"


@for_req("streamable-http-mcp-name-base64", "client")
def test_a_name_unsafe_in_a_header_goes_base64_encoded(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    names = {"tools/call": "m\u00e9t\u00e9o", "resources/read": "test://static-text", "prompts/get": "r\u00e9sum\u00e9"}
    found = named_requests(run_client, scripted_server, names)
    wrong = [(m, body, header) for m, body, header in found if m != "resources/read" and header != sentinel(body)]
    assert not wrong, f"(method, body name, Mcp-Name) not in the Base64 sentinel form: {wrong}"


@for_req("streamable-http-header-names-case-insensitive", "client")
def test_the_client_reads_response_header_names_in_any_case(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Every header of the scripted server's answers goes with its name in capitals (CONTENT-TYPE)."""
    scripted_server.header_name = str.upper
    run = run_client("tools_call")
    assert run.completed, f"the client failed on answers whose header names are capitalised:\n{run.output[-2000:]}"
    called = [f["params"]["name"] for r in posts(scripted_server) for f in r.frames if method_of(f) == "tools/call"]
    assert called == ["echo"], f"the client did not call the tool it listed: {called}"


@for_req("streamable-http-other-transports-ignore-x-mcp-header", "client")
def test_over_stdio_an_annotated_tool_is_called_as_any(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """Over stdio there are no headers: a client may ignore the annotations, and does not let them get in
    the way of the call."""
    example = {"region": "us-west1", "options": {"tenant": "acme"}, "query": "SELECT 1"}
    scripted_stdio.tools = [tool("execute_sql", SQL_PROPERTIES, example)]
    run_stdio_client("call_listed_tools").require_completed()
    calls = [f["params"] for f in scripted_stdio.record.frames() if method_of(f) == "tools/call"]
    called = [(params.get("name"), params.get("arguments")) for params in calls]
    assert called == [("execute_sql", example)], f"the annotated tool was not called with its arguments: {calls}"
