"""JSON Schema usage, server side: the dialect of the schemas a server writes, and the dialect it validates by.

Each test holds the server under test to one requirement of docs/spec/requirements.md (json-schema), at
every revision its cover claims (see coverage/json-schema.py). A server writes the schemas of its tools
(``inputSchema``, ``outputSchema``) and validates the arguments of a call against the first: the tests read
the one in ``tools/list`` and provoke the other with arguments a role names (``dialect-2020-12-tool``,
``declared-dialect-tool``); the suite's own validator (``jsonschema``) says what each dialect makes of them.

Where the schema travels the other way (a schema the server did not write, a ``$ref`` to the network,
a hostile schema for its validator), the server has nothing to validate: see docs/limits/061-*.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from jsonschema import Draft7Validator, Draft202012Validator, SchemaError, validators

from conformance.harness.exchanges import converse, declared
from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.pages import Page, PageServer
from conformance.harness.peer import Peer
from conformance.harness.roles import Binding, bound, require_role
from conformance.harness.scripted_server import ScriptedServer
from conformance.harness.surface import call, listed_tools
from conformance.harness.wire import tool_call
from conformance.matrix.covers import for_req
from conformance.test_tools import (
    COUNT_SCHEMA,
    GATE,
    RunClient,
    checks_structured_content,
    external_ref,
    external_ref_schema,
    output_tool,
    run_tools,
    text_result,
    tool_results,
)
from conformance.test_tools import refused as rejected

DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_MEMBERS = ("inputSchema", "outputSchema", "requestedSchema")


def schema_requests(peer: Peer) -> Iterator[dict]:
    """Calls of the tools whose requests to the client carry a schema (an elicitation's requestedSchema,
    the tools of a sampling request), each declaring the capability it needs (the roles the profile binds)."""
    for number, role in enumerate(("elicitation-tool", "sampling-tool"), 1):
        if tool := peer.roles.get(role):
            call = tool_call(peer, f"schemas-{number}", tool.name, tool.args())
            call["params"] = declared(peer, call["params"])
            yield call


def schemas_in(node: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Every schema member (``inputSchema``, ``outputSchema``, ``requestedSchema``) anywhere in ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in SCHEMA_MEMBERS:
                yield f"{where}.{key}", value
            else:
                yield from schemas_in(value, f"{where}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from schemas_in(value, f"{where}[{index}]")


def schemas_of(peer: Peer) -> list[tuple[str, Any]]:
    """Every schema the server sends: those of its tools in ``tools/list`` (every page), and those of the
    requests and results of the tools that ask the client for something (elicitation, sampling)."""
    frames = [seen.frame for seen in converse(peer, schema_requests).seen]  # opens the session, declaring them
    found = [
        (f"{tool.get('name')}.{member}", tool[member])
        for tool in listed_tools(peer)
        for member in SCHEMA_MEMBERS
        if member in tool
    ]
    for frame in frames:
        label = frame.get("method", f"response {frame.get('id')}") if isinstance(frame, dict) else "batch"
        found.extend(schemas_in(frame, label))
    return found


def declared_dialect(schema: Any) -> Any:
    return schema.get("$schema") if isinstance(schema, dict) else None


def is_2020_12(dialect: Any) -> bool:
    return isinstance(dialect, str) and dialect.rstrip("#") == DIALECT_2020_12


def refused(response: dict) -> bool:
    """A call the server did not run: a JSON-RPC error, or a result marked ``isError`` (the two ways the
    revisions allow a server to turn down arguments)."""
    return "error" in response or response.get("result", {}).get("isError") is True


def invalid_arguments(tool: Binding) -> tuple[dict, dict]:
    """The listed tool's inputSchema and the role's arguments."""
    schema = (tool.listing or {}).get("inputSchema")
    if not isinstance(schema, dict):
        pytest.skip(f"fixture-missing: {tool.name} lists no inputSchema object")
    return schema, tool.args()


@for_req("json-schema-support-2020-12", "server", transports=BOTH_TRANSPORTS)
def test_a_schema_without_dialect_is_read_as_2020_12(revision: str, transport: str, peer: Peer) -> None:
    """Arguments that only 2020-12's own keywords (``prefixItems``) rule out are refused: the server read its
    schema, which names no dialect, as 2020-12, not as an earlier draft that passes those keywords over."""
    bound(peer, "dialect-2020-12-tool")
    peer.open()
    tool = require_role(peer, "dialect-2020-12-tool")
    schema, arguments = invalid_arguments(tool)
    if "$schema" in schema:
        pytest.skip(f"fixture-missing: {tool.name}'s inputSchema names its dialect ({schema['$schema']})")
    if Draft202012Validator(schema).is_valid(arguments) or not Draft7Validator(schema).is_valid(arguments):
        pytest.skip(f"fixture-missing: {arguments} do not break {tool.name}'s inputSchema by a 2020-12 keyword alone")
    response = call(peer, tool)
    assert refused(response), f"{tool.name} ran with {arguments}, which its 2020-12 inputSchema rules out: {response}"


@for_req("json-schema-validate-per-dialect", "server", transports=BOTH_TRANSPORTS)
def test_arguments_are_validated_under_the_declared_dialect(revision: str, transport: str, peer: Peer) -> None:
    """A tool whose inputSchema names its dialect (``$schema``) refuses arguments that dialect rules out."""
    bound(peer, "declared-dialect-tool")
    peer.open()
    tool = require_role(peer, "declared-dialect-tool")
    schema, arguments = invalid_arguments(tool)
    dialect = declared_dialect(schema)
    validator = validators.validator_for(schema, default=None) if dialect is not None else None
    if validator is None:
        pytest.skip(f"fixture-missing: {tool.name}'s inputSchema names no dialect the suite knows ({dialect!r})")
    if validator(schema).is_valid(arguments):
        pytest.skip(f"fixture-missing: {arguments} do not break {tool.name}'s inputSchema under {dialect}")
    response = call(peer, tool)
    assert refused(response), f"{tool.name} ran with {arguments}, which its {dialect} inputSchema rules out: {response}"


@for_req("json-schema-schemas-valid", "server", transports=BOTH_TRANSPORTS)
def test_every_schema_the_server_sends_is_valid_under_its_dialect(revision: str, transport: str, peer: Peer) -> None:
    """Every inputSchema and outputSchema in ``tools/list`` is a valid schema of its declared dialect, or of
    2020-12 when it names none. A dialect the suite does not know leaves that schema unjudged."""
    found = schemas_of(peer)
    problems, judged = [], 0
    for where, schema in found:
        dialect = declared_dialect(schema)
        validator = validators.validator_for(schema, default=None) if dialect is not None else Draft202012Validator
        if validator is None:
            continue
        judged += 1
        try:
            validator.check_schema(schema)
        except SchemaError as exc:
            problems.append(f"{where}: not a valid schema of {dialect or DIALECT_2020_12}: {exc.message}")
    if not judged:
        pytest.skip(f"fixture-missing: no schema in a dialect the suite knows among {[w for w, _ in found]}")
    assert not problems, "\n".join(problems)


@for_req("json-schema-prefer-2020-12", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_schemas_are_written_in_2020_12(revision: str, transport: str, peer: Peer) -> None:
    """Every schema in ``tools/list`` names no dialect (so 2020-12) or names 2020-12."""
    other = {where: declared_dialect(s) for where, s in schemas_of(peer) if "$schema" in (s or {})}
    other = {where: dialect for where, dialect in other.items() if not is_2020_12(dialect)}
    assert not other, f"schemas written in a dialect other than JSON Schema 2020-12: {other}"


@for_req("json-schema-explicit-dialect-allowed", "server", transports=BOTH_TRANSPORTS)
def test_a_schema_may_name_its_dialect_by_its_uri(revision: str, transport: str, peer: Peer) -> None:
    """The permission used (a schema naming its dialect in ``$schema``) and kept to its bounds: the member
    names the dialect by an absolute URI."""
    declared = {where: declared_dialect(s) for where, s in schemas_of(peer) if isinstance(s, dict) and "$schema" in s}
    if not declared:
        pytest.skip("not-exercised: no schema of the server names its dialect ($schema)")
    bad = {where: d for where, d in declared.items() if not (isinstance(d, str) and urlsplit(d).scheme)}
    assert not bad, f"$schema members that name no dialect by an absolute URI: {bad}"


# -- the client side: the schemas a client checks tool results against ---------------------------------
#
# The client consumes schemas it did not write: the outputSchema of each tool the scripted server lists.
# Each test lists tools whose results break (or match) a schema only under one dialect's rules, or only
# once a ``$ref`` is resolved; the client under test calls each (the driver's ``call_each_tool``) and tells
# its application which results it accepted. A client that checks no structured content at all applies no
# schema: the tests skip it (``checks_structured_content``). Each report lists a result the client must
# refuse right after one it accepts, so that a client handing each result the verdict of another (the
# ``misreport`` fault) fails the check.

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
UNKNOWN_DIALECT = "https://example.com/mcp-matrix/no-such-dialect/schema"
PAIR_2020_12 = {  # a string then an integer, by 2020-12's prefixItems (which draft-07 does not know)
    "type": "object",
    "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}},
    "required": ["pair"],
}
PAIR_DRAFT_07 = {  # the same, by draft-07's array form of items (which 2020-12 does not allow)
    "$schema": DRAFT_07,
    "type": "object",
    "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}},
    "required": ["pair"],
}
PAIR = {"pair": ["x", 1]}
BROKEN_PAIR = {"pair": [1, "x"]}


@for_req("json-schema-support-2020-12", "client")
def test_the_client_reads_a_schema_without_dialect_as_2020_12(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """An outputSchema naming no dialect holds a 2020-12 ``prefixItems``: the client refuses a result
    breaking it, and accepts one matching it (a draft-07 reading ignores the keyword and accepts both)."""
    tools = [
        output_tool("pair-breaking", PAIR_2020_12, BROKEN_PAIR),
        GATE,
        output_tool("pair-conforming", PAIR_2020_12, PAIR),
    ]
    run = run_tools(run_client, scripted_server, tools)

    def check() -> None:
        results = tool_results(run)
        checks_structured_content(results)
        assert rejected(results, "pair-breaking"), f"a result breaking 2020-12 prefixItems was accepted: {results}"
        assert not rejected(results, "pair-conforming"), f"a result matching 2020-12 prefixItems was refused: {results}"

    run.judge(check)


@for_req("json-schema-validate-per-dialect", "client")
def test_the_client_checks_each_schema_by_its_declared_dialect(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """An outputSchema naming 2020-12 in ``$schema`` is read by 2020-12's rules (``prefixItems``); one naming
    draft-07 by draft-07's (``items`` as an array), unless the client does not support draft-07 and refuses
    it whatever the result (that refusal is judged by json-schema-unsupported-dialect-error)."""
    declared_2020_12 = {"$schema": DIALECT_2020_12} | PAIR_2020_12
    tools = [
        output_tool("declared-2020-12-breaking", declared_2020_12, BROKEN_PAIR),
        GATE,
        output_tool("declared-2020-12-conforming", declared_2020_12, PAIR),
        output_tool("draft-07-breaking", PAIR_DRAFT_07, BROKEN_PAIR),
        output_tool("draft-07-conforming", PAIR_DRAFT_07, PAIR),
    ]
    run = run_tools(run_client, scripted_server, tools)

    def check() -> None:
        results = tool_results(run)
        checks_structured_content(results)
        assert rejected(results, "declared-2020-12-breaking"), f"a result breaking 2020-12 was accepted: {results}"
        assert not rejected(results, "declared-2020-12-conforming"), (
            f"a result matching a 2020-12 schema was refused: {results}"
        )
        if not rejected(results, "draft-07-conforming"):  # the client supports draft-07: it reads it as such
            assert rejected(results, "draft-07-breaking"), f"a result breaking draft-07 was accepted: {results}"

    run.judge(check)


@for_req("json-schema-unsupported-dialect-error", "client")
def test_the_client_refuses_a_schema_in_a_dialect_it_does_not_support(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """An outputSchema names a dialect no validator knows (UNKNOWN_DIALECT): the client refuses the listing
    or the result with an error, rather than reading the schema by some other dialect's rules. The error's
    wording is not judged."""
    unknown = {"$schema": UNKNOWN_DIALECT} | COUNT_SCHEMA
    tools = [
        output_tool("unknown-dialect", unknown, {"n": 1}),
        GATE,
        output_tool("plain-conforming", COUNT_SCHEMA, {"n": 1}),
    ]
    run = run_tools(run_client, scripted_server, tools)

    def check() -> None:
        results = tool_results(run)
        if "tools/list" in results:  # the listing itself refused: an error, before any result
            return
        checks_structured_content(results)
        assert rejected(results, "unknown-dialect"), (
            f"a result under a schema of the unknown dialect {UNKNOWN_DIALECT} was accepted: {results}"
        )

    run.judge(check)


@for_req("json-schema-unresolved-ref-reject", "client")
def test_the_client_refuses_a_schema_whose_external_ref_does_not_resolve(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """An outputSchema's ``$ref`` points at a schema document that cannot be had (on the scripted server,
    which serves none): the client refuses the result instead of taking the schema as allowing anything."""
    url = external_ref(scripted_server)
    tools = [
        output_tool("external-ref", external_ref_schema(url), {"n": 1}),
        GATE,
        output_tool("plain-conforming", COUNT_SCHEMA, {"n": 1}),
    ]
    run = run_tools(run_client, scripted_server, tools)

    def check() -> None:
        results = tool_results(run)
        checks_structured_content(results)
        assert rejected(results, "external-ref"), f"a result under the unresolvable $ref {url} was accepted: {results}"

    run.judge(check)


# -- the client side, 2026-07-28: a $ref to the network is not dereferenced ----------------------------------
#
# The $ref targets are documents the page server serves (harness/pages.py: a loopback listener apart from the
# MCP endpoint, recording every request); a client that dereferences one shows as a request there. No driver
# scenario configures anything about $ref resolution, so the client runs in its default configuration.

INTEGER_DOCUMENT = "/schemas/integer.json"


@for_req("json-schema-no-network-ref", "client")
def test_the_client_dereferences_no_network_ref(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer, page_server: PageServer
) -> None:
    """A tool's inputSchema and another's outputSchema each hold a ``$ref`` to a schema document on the page server
    (served, and valid: ``{"type": "integer"}``); the client lists and calls both. Within its whole run (the page
    server's record is read once the client's process has ended) nothing reaches the page server. A client that
    checks no schema fetches nothing and passes too: it dereferenced nothing."""
    page_server.pages[INTEGER_DOCUMENT] = Page(json.dumps({"type": "integer"}).encode(), "application/schema+json")
    remote = page_server.url + INTEGER_DOCUMENT
    input_tool = {"name": "remote-input", "inputSchema": external_ref_schema(remote) | {"required": []}}
    tools = [
        (input_tool, text_result("remote-input ran")),
        output_tool("remote-output", external_ref_schema(remote), {"n": 1}),
    ]
    run = run_tools(run_client, scripted_server, tools)

    def check() -> None:
        dereferenced = [f"{r.method} {r.path}" for r in page_server.requests()]
        assert not dereferenced, f"the client dereferenced a network $ref ({remote}): {dereferenced}"

    run.judge(check)
