"""Tools, server side: the capability, ``tools/list``, ``tools/call`` results and tool names.

Each test holds the server under test to one requirement of docs/spec/requirements.md (tools),
at every revision its cover claims (see coverage/tools.py). The tools called are the official
conformance suite's (``test_simple_text``, ``test_error_handling``, ``test_embedded_resource``)
and the fixture's own ``test_structured_output`` and ``test_trigger_*``; a target without one of
them leaves the cell ``fixture-missing``.

The helpers under "the feature surface" serve every server feature alike (capability declared,
list is the current set, list independent of the connection, list-changed announced) and are
shared with test_resources.py and test_prompts.py.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
from jsonschema import Draft202012Validator, SchemaError, validators

from conformance.harness.frames import BOTH_TRANSPORTS, SECOND_SERVER_VARIABLE
from conformance.harness.launcher import Launcher
from conformance.harness.peer import Peer, precondition
from conformance.harness.roles import bound, optional_roles, require_role
from conformance.harness.scripted_server import ScriptedServer, listing_tools
from conformance.harness.surface import (
    assert_available_is_listed,
    assert_capability_declared,
    assert_list_changed_announced,
    assert_list_connection_independent,
    call,
    call_tool,
    canonical,
    is_base64,
    list_items,
    listed,
    listed_tools,
    names,
    offers,
    server_capabilities,
    text_of,
)
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, SessionFactory, run_client_process

TOOL_NAME_CHARACTERS = re.compile(r"^[A-Za-z0-9_.-]+$")
SPECIAL_CHARACTER = re.compile(r"[^A-Za-z0-9_.-]")


@for_req("tools-capability-declared", "server", transports=BOTH_TRANSPORTS)
def test_a_server_listing_tools_declares_the_tools_capability(revision: str, transport: str, peer: Peer) -> None:
    assert_capability_declared(peer, "tools", "tools/list")


@for_req("tools-list-current-set", "server", transports=BOTH_TRANSPORTS)
def test_tools_list_holds_the_tools_that_can_be_called(revision: str, transport: str, peer: Peer) -> None:
    assert_available_is_listed(peer, "tools/list", "name", "simple-tool", "tools/call", "name")


@for_req("tools-list-set-connection-independent", "server")
def test_tools_list_depends_neither_on_the_connection_nor_on_earlier_requests(
    revision: str, server: Peer, open_session: SessionFactory
) -> None:
    tool = bound(server, "simple-tool")
    assert_list_connection_independent(server, open_session, revision, "tools/list", lambda peer: call(peer, tool))


@for_req("tools-list-deterministic-order", "server", transports=BOTH_TRANSPORTS)
def test_tools_are_listed_in_the_same_order_every_time(revision: str, transport: str, peer: Peer) -> None:
    first = names(listed_tools(peer))
    for _ in range(2):
        again = names(listed(peer, "tools/list"))
        assert again == first, f"tools/list ordered {first}, then {again}"


@for_req("tools-list-changed-notify", "server")
def test_a_tool_list_change_is_announced(revision: str, server: Peer) -> None:
    assert_list_changed_announced(
        server, "tools", "tool-list-changer", "notifications/tools/list_changed", "toolsListChanged"
    )


@for_req("tools-list-changed-notify-subscribers", "server")
def test_a_tool_list_change_is_announced_to_subscribers(revision: str, server: Peer) -> None:
    assert_list_changed_announced(
        server, "tools", "tool-list-changer", "notifications/tools/list_changed", "toolsListChanged"
    )


@for_req("tools-input-schema-valid-object", "server", transports=BOTH_TRANSPORTS)
def test_every_input_schema_is_a_json_schema_object(revision: str, transport: str, peer: Peer) -> None:
    problems = []
    for tool in listed_tools(peer):
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict):
            problems.append(f"{tool.get('name')}: inputSchema is {schema!r}")
            continue
        validator = validators.validator_for(schema, default=Draft202012Validator)
        try:
            validator.check_schema(schema)
        except SchemaError as exc:
            problems.append(f"{tool.get('name')}: not a valid JSON Schema: {exc.message}")
    assert not problems, "\n".join(problems)


@for_req("tools-name-length", "server", transports=BOTH_TRANSPORTS)
def test_tool_names_are_1_to_128_characters(revision: str, transport: str, peer: Peer) -> None:
    bad = [n for n in names(listed_tools(peer)) if not isinstance(n, str) or not 1 <= len(n) <= 128]
    assert not bad, f"tool names outside 1..128 characters: {bad}"


@for_req("tools-name-allowed-characters", "server", transports=BOTH_TRANSPORTS)
def test_tool_names_use_only_letters_digits_underscore_hyphen_dot(revision: str, transport: str, peer: Peer) -> None:
    bad = [n for n in names(listed_tools(peer)) if not isinstance(n, str) or not TOOL_NAME_CHARACTERS.match(n)]
    assert not bad, f"tool names with characters outside [A-Za-z0-9_.-]: {bad}"


@for_req("tools-name-no-special-characters", "server", transports=BOTH_TRANSPORTS)
def test_tool_names_hold_no_whitespace_commas_or_special_characters(revision: str, transport: str, peer: Peer) -> None:
    found = {n: sorted(set(SPECIAL_CHARACTER.findall(n))) for n in names(listed_tools(peer)) if isinstance(n, str)}
    bad = {n: chars for n, chars in found.items() if chars}
    assert not bad, f"tool names with whitespace, commas or special characters: {bad}"


@for_req("tools-name-unique", "server", transports=BOTH_TRANSPORTS)
def test_no_two_tools_share_a_name(revision: str, transport: str, peer: Peer) -> None:
    listed_names = names(listed_tools(peer))
    duplicates = sorted({n for n in listed_names if listed_names.count(n) > 1}, key=str)
    assert not duplicates, f"names listed more than once: {duplicates}"


@for_req("tools-name-case-sensitive", "server", transports=BOTH_TRANSPORTS)
def test_a_tool_name_in_another_case_is_another_tool(revision: str, transport: str, peer: Peer) -> None:
    bound(peer, "simple-tool")
    peer.open()
    tool = require_role(peer, "simple-tool")
    other_case = tool.name.upper()
    if other_case == tool.name or other_case in names(listed(peer, "tools/list")):
        pytest.skip(f"fixture-missing: the server lists both {tool.name} and {other_case}")
    response = call_tool(peer, other_case, tool.args())
    ran = "result" in response and response["result"].get("isError") is not True
    assert not ran, f"tools/call of {other_case} ran {tool.name}: {response}"


@for_req("tools-embedded-resources-capability", "server", transports=BOTH_TRANSPORTS)
def test_a_server_embedding_resources_in_tool_results_declares_resources(
    revision: str, transport: str, peer: Peer
) -> None:
    bound(peer, "embedded-resource-tool")
    capabilities = server_capabilities(peer)
    tool = require_role(peer, "embedded-resource-tool")
    result = call(peer, tool).get("result", {})
    if not [item for item in result.get("content", []) if item.get("type") == "resource"]:
        pytest.skip(f"fixture-missing: {tool.name} embedded no resource: {result}")
    assert "resources" in capabilities, f"a tool result embeds a resource, but capabilities are {capabilities}"


def structured_result(peer: Peer) -> tuple[dict, dict]:
    """The listed structured-output tool (its list entry) and the result of calling it with valid arguments."""
    bound(peer, "structured-tool")
    peer.open()
    tool = require_role(peer, "structured-tool")
    response = call(peer, tool)
    assert "result" in response, f"{tool.name} failed: {response}"
    return dict(tool.listing or {}), response["result"]


@for_req("tools-output-schema-conformance", "server", transports=BOTH_TRANSPORTS)
def test_structured_content_matches_the_output_schema(revision: str, transport: str, peer: Peer) -> None:
    tool, result = structured_result(peer)
    schema = tool.get("outputSchema")
    if not isinstance(schema, dict):
        pytest.skip(f"fixture-missing: {tool.get('name')} declares no outputSchema")
    assert "structuredContent" in result, f"a tool with an outputSchema answered without structuredContent: {result}"
    validator = validators.validator_for(schema, default=Draft202012Validator)(schema)
    errors = [f"at {list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(result["structuredContent"])]
    assert not errors, "structuredContent breaks the outputSchema:\n" + "\n".join(errors)


# The roles a test may call with their arguments alone (they ask nothing of the client): every result of theirs
# that carries structuredContent is a subject of the mirror, not only the structured tool's (a server may give a
# tool returning one value structuredContent of its own making, an object wrapping it).
CALLABLE_TOOL_ROLES = (
    "structured-tool",
    "simple-tool",
    "embedded-resource-tool",
    "image-tool",
    "audio-tool",
    "mixed-content-tool",
    "resource-link-tool",
    "app-tool",
)


def _mirrored_as_json(result: dict) -> bool:
    for text in text_of(result):
        try:
            if json.loads(text) == result["structuredContent"]:
                return True
        except json.JSONDecodeError:
            continue
    return False


@for_req("tools-structured-content-text-mirror", "server", transports=BOTH_TRANSPORTS)
def test_structured_content_is_mirrored_as_json_text(revision: str, transport: str, peer: Peer) -> None:
    peer.open()
    structured = {}
    for tool in optional_roles(peer, *CALLABLE_TOOL_ROLES):
        result = call(peer, tool).get("result")
        if isinstance(result, dict) and "structuredContent" in result:
            structured[tool.name] = result
    if not structured:
        pytest.skip(f"fixture-missing: no tool of the roles {CALLABLE_TOOL_ROLES} returned structuredContent")
    unmirrored = [
        f"{name}: structuredContent {result['structuredContent']}, text {text_of(result)}"
        for name, result in structured.items()
        if not _mirrored_as_json(result)
    ]
    assert not unmirrored, "no text block holds the structuredContent as JSON:\n" + "\n".join(unmirrored)


@for_req("tools-tool-errors-in-result-iserror", "server", transports=BOTH_TRANSPORTS)
def test_an_error_inside_a_tool_is_a_result_with_is_error(revision: str, transport: str, peer: Peer) -> None:
    bound(peer, "error-tool")
    peer.open()
    response = call(peer, require_role(peer, "error-tool"))
    assert "result" in response, f"the tool's error came as a JSON-RPC error: {response}"
    assert response["result"].get("isError") is True, f"the failing tool's result: {response['result']}"


@for_req("tools-server-validate-inputs", "server", transports=BOTH_TRANSPORTS)
def test_a_call_with_invalid_arguments_is_refused(revision: str, transport: str, peer: Peer) -> None:
    bound(peer, "invalid-arguments-tool")
    peer.open()
    response = call(peer, require_role(peer, "invalid-arguments-tool"))  # arguments that break its inputSchema
    refused = "error" in response or response.get("result", {}).get("isError") is True
    assert refused, f"arguments breaking the inputSchema were accepted: {response}"


# -- permissions: what a server may do, used within its bounds


@for_req("tools-list-set-may-be-empty", "server", transports=BOTH_TRANSPORTS)
def test_a_server_may_list_no_tools(revision: str, transport: str, peer: Peer) -> None:
    """The permission used (no tools listed) and kept to its bounds: the answer is still a ``tools/list``
    result, with an empty ``tools`` array, not an error or a result without the array."""
    tools = list_items(peer, "tools/list")  # asserts a tools array on every page
    if tools is None:
        offers(peer, "tools")
    assert tools is not None, "tools/list was refused although the server declares tools"
    if tools:
        pytest.skip(f"not-exercised: the server lists {len(tools)} tool(s)")


@for_req("tools-list-set-may-change", "server", transports=BOTH_TRANSPORTS)
def test_a_server_may_change_its_tools(revision: str, transport: str, peer: Peer) -> None:
    """The permission used (the set of tools changes when the tool-list-changer runs) and kept to its
    bounds: the new set is the set from then on, listed alike by every later request."""
    bound(peer, "tool-list-changer")
    peer.open()
    changer = require_role(peer, "tool-list-changer")
    before = canonical(listed(peer, "tools/list"))
    called = call(peer, changer)
    precondition("result" in called, f"{changer.name} (tool-list-changer) failed: {called}")
    after = canonical(list_items(peer, "tools/list") or [])
    if after == before:
        pytest.skip(f"not-exercised: {changer.name} left the set of tools as it was")
    again = canonical(list_items(peer, "tools/list") or [])
    assert again == after, f"the changed set of tools did not hold from one tools/list to the next:\n{after}\n{again}"


@for_req("tools-result-embedded-resource-allowed", "server", transports=BOTH_TRANSPORTS)
def test_a_tool_result_may_embed_a_resource(revision: str, transport: str, peer: Peer) -> None:
    """The permission used (a ``resource`` content item) and kept to its bounds: the item carries the
    resource itself, a URI with its text or its base64 blob."""
    bound(peer, "embedded-resource-tool")
    peer.open()
    tool = require_role(peer, "embedded-resource-tool")
    response = call(peer, tool)
    assert "result" in response, f"{tool.name} failed: {response}"
    embedded = [item for item in response["result"].get("content", []) if item.get("type") == "resource"]
    if not embedded:
        pytest.skip(f"not-exercised: {tool.name} embedded no resource")
    for item in embedded:
        resource = item.get("resource")
        assert isinstance(resource, dict) and isinstance(resource.get("uri"), str), f"no resource in {item}"
        has_text = isinstance(resource.get("text"), str)
        assert has_text or is_base64(resource.get("blob")), f"an embedded resource with no text or blob: {item}"


@for_req("tools-result-resource-link-allowed", "server", transports=BOTH_TRANSPORTS)
def test_a_tool_result_may_link_a_resource(revision: str, transport: str, peer: Peer) -> None:
    """The permission used (a ``resource_link`` content item) and kept to its bounds: the item points at a
    resource by an absolute URI and names it."""
    bound(peer, "resource-link-tool")
    peer.open()
    tool = require_role(peer, "resource-link-tool")
    response = call(peer, tool)
    assert "result" in response, f"{tool.name} failed: {response}"
    links = [item for item in response["result"].get("content", []) if item.get("type") == "resource_link"]
    if not links:
        pytest.skip(f"not-exercised: {tool.name} linked no resource")
    for link in links:
        uri = link.get("uri")
        assert isinstance(uri, str) and urlsplit(uri).scheme, f"a resource link without an absolute URI: {link}"
        assert isinstance(link.get("name"), str), f"a resource link without a name: {link}"


# -- the client side: tools as the client consumes them ------------------------------------------------
#
# The scripted server lists tools of a test's own and answers each call with the tool's scripted result;
# the client under test runs the driver's ``call_each_tool`` (list, call each listed tool once, tell the
# application what came of each call: ``accepted``, an ``error result``, or ``refused: <error>``). What it
# sent is in the scripted server's record; what it made of each result is its report (``tool-results``).

RunClient = Callable[[str], ClientRun]
MODERN = "2026-07-28"
ANY_OBJECT = {"type": "object"}
COUNT_SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
Scripted = tuple[dict, dict]  # a tool's tools/list entry, and the result a call of it gets


def text_result(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": False}


def structured(content: dict) -> dict:
    """A tool result carrying ``content`` as structured content, mirrored as JSON text."""
    return {"content": [{"type": "text", "text": json.dumps(content)}], "structuredContent": content, "isError": False}


def plain_tool(name: str) -> Scripted:
    """A tool without an output schema, answering with a text."""
    return {"name": name, "inputSchema": ANY_OBJECT}, text_result(f"{name} ran")


def output_tool(name: str, schema: dict, content: dict) -> Scripted:
    """A tool declaring ``schema`` as its outputSchema, answering with ``content`` as structured content."""
    return {"name": name, "inputSchema": ANY_OBJECT, "outputSchema": schema}, structured(content)


def script_tools(server: ScriptedServer, tools: list[Scripted]) -> None:
    """The scripted server lists ``tools``, in that order, and answers a call of each with its result (a
    call of a tool it did not list: an isError result)."""
    results = {entry["name"]: result for entry, result in tools}
    complete = {"resultType": "complete"} if server.revision == MODERN else {}
    server.answers["tools/list"] = listing_tools(server.answers["tools/list"], [entry for entry, _ in tools])

    def answer(frame: dict) -> dict:
        name = (frame.get("params") or {}).get("name")
        missing = {"content": [{"type": "text", "text": f"no tool {name!r}"}], "isError": True}
        return dict(results.get(name, missing)) | complete

    server.answers["tools/call"] = answer


def tool_results(run: ClientRun) -> dict[str, str]:
    """What the client told its application of each call (``call_each_tool``'s report)."""
    results = run.report("tool-results")
    precondition(isinstance(results, dict), f"the client reported no tool results:\n{run.output[-1500:]}")
    return results


def refused(results: dict[str, str], name: str) -> bool:
    """Whether the client refused the result of ``name`` (raised, or handed it on as an error: every
    scripted result is a success)."""
    precondition(name in results, f"the client did not call {name}: {results}")
    return results[name] != "accepted"


def run_tools(run_client: RunClient, server: ScriptedServer, tools: list[Scripted]) -> ClientRun:
    script_tools(server, tools)
    return run_client("call_each_tool")


def client_calls(server: ScriptedServer) -> list[str]:
    """The names of the tools the client called, in order."""
    return [(f.get("params") or {}).get("name") for f in server.requests() if f.get("method") == "tools/call"]


@for_req("tools-name-case-sensitive", "client")
def test_the_client_keeps_tools_named_alike_but_for_case_apart(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Listed ``getUser`` and ``getuser``, the client calls each by its own name (one call each)."""
    twins = ("getUser", "getuser")
    run = run_tools(run_client, scripted_server, [plain_tool(name) for name in twins])

    def check() -> None:
        called = client_calls(scripted_server)
        assert Counter(called) == Counter(twins), f"listed {list(twins)}, the client called {called}"

    run.judge(check)


@for_req("tools-output-schema-client-validates", "client")
def test_the_client_checks_structured_content_against_the_output_schema(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Two tools declare ``{"n": integer}`` as their output; one answers ``{"n": "one"}``, the other
    ``{"n": 1}``: the client refuses the first result and hands the second to its application."""
    tools = [output_tool("breaking", COUNT_SCHEMA, {"n": "one"}), output_tool("conforming", COUNT_SCHEMA, {"n": 1})]
    run = run_tools(run_client, scripted_server, tools)

    def check() -> None:
        results = tool_results(run)
        assert refused(results, "breaking"), f"structured content breaking the outputSchema was accepted: {results}"
        assert not refused(results, "conforming"), f"content matching its outputSchema was refused: {results}"

    run.judge(check)


def external_ref(server: ScriptedServer) -> str:
    """A ``$ref`` target on the scripted server's own listener that serves no schema (a GET of it is
    recorded, and refused): where a client that fetches ``$ref`` targets over the network would go."""
    return server.url.rsplit("/", 1)[0] + "/mcp-matrix/schemas/count.json"


def fetched(server: ScriptedServer, url: str) -> list[str]:
    """The client's HTTP requests for ``url`` (a schema document), by method."""
    path = "/" + url.split("/", 3)[3]
    return [received.method for received in server.received if received.path == path]


LOCAL_REF_SCHEMA = {
    "type": "object",
    "$defs": {"count": {"type": "integer"}},
    "properties": {"n": {"$ref": "#/$defs/count"}},
    "required": ["n"],
}


def external_ref_schema(url: str) -> dict:
    return {"type": "object", "properties": {"n": {"$ref": url}}, "required": ["n"]}


def checks_structured_content(results: dict[str, str], gate: str = "plain-breaking") -> None:
    """Skip unless the client refused the result of ``gate`` (``{"n": "one"}`` against COUNT_SCHEMA): a
    client that checks no structured content applies no schema, so its dialect and ``$ref`` handling never
    show (whether it should check is tools-output-schema-client-validates)."""
    if not refused(results, gate):
        pytest.skip(f"fixture-missing: the client checks no structured content against an outputSchema: {results}")


GATE = output_tool("plain-breaking", COUNT_SCHEMA, {"n": "one"})


@for_req("tools-client-ref-resolution", "client")
def test_the_client_resolves_refs_as_the_base_protocol_says(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Checking results against outputSchemas with ``$ref``s, the client follows a ``$ref`` into the
    schema's own ``$defs`` (``{"n": "one"}`` refused, ``{"n": 1}`` accepted), does not fetch a ``$ref``
    to a network URI, and refuses a result whose schema holds a ``$ref`` it cannot resolve. The report's
    order puts a result to refuse after one to accept (see ``misreport``)."""
    url = external_ref(scripted_server)
    tools = [
        output_tool("local-ref-breaking", LOCAL_REF_SCHEMA, {"n": "one"}),
        GATE,
        output_tool("external-ref", external_ref_schema(url), {"n": 1}),
        output_tool("local-ref-conforming", LOCAL_REF_SCHEMA, {"n": 1}),
    ]
    run = run_tools(run_client, scripted_server, tools)

    def check() -> None:
        results = tool_results(run)
        checks_structured_content(results)
        assert refused(results, "local-ref-breaking"), f"a result breaking a local $ref was accepted: {results}"
        assert not refused(results, "local-ref-conforming"), f"a result matching a local $ref was refused: {results}"
        assert not fetched(scripted_server, url), f"the client fetched the network $ref {url}"
        assert refused(results, "external-ref"), f"a result under an unresolvable $ref ({url}) was accepted: {results}"

    run.judge(check)


# -- the client side: a client aggregating the tools of several servers (2026-07-28) ------------------------
#
# The driver's ``aggregate_two_servers`` connects to two scripted servers (the second's URL in
# SECOND_SERVER_VARIABLE; each a listener and a trace of its own, each listing a tool ``search``), aggregates
# both as the client's aggregator does (the SDK's ``ClientSessionGroup``, its naming as it comes), and calls
# every tool it then offers.

SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
SHARED_TOOL = "search"
Servers = tuple[ScriptedServer, ScriptedServer]


def name_servers(servers: Servers, names: tuple[str, str]) -> None:
    """Each scripted server lists one tool, SHARED_TOOL, and names itself in its server/discover result: the
    first ``names[0]``, the second ``names[1]``."""
    for server, name in zip(servers, names, strict=True):
        script_tools(server, [plain_tool(SHARED_TOOL)])
        discover = server.answers["server/discover"]

        def answer(frame: dict, discover: Callable[[dict], dict] = discover, name: str = name) -> dict:
            result = discover(frame)
            info = dict(result.get("_meta", {}).get(SERVER_INFO_META, {})) | {"name": name}
            return result | {"_meta": {**result.get("_meta", {}), SERVER_INFO_META: info}}

        server.answers["server/discover"] = answer


def aggregate(client_launcher: Launcher, revision: str, servers: Servers) -> ClientRun:
    """The client under test through ``aggregate_two_servers``, told both servers' URLs."""
    first, second = servers
    environment = {SECOND_SERVER_VARIABLE: second.url}
    return run_client_process(
        client_launcher, "aggregate_two_servers", revision, [first.url], fault=first.fault, env=environment
    )


def aggregated(run: ClientRun) -> dict:
    report = run.report("aggregated")
    precondition(isinstance(report, dict), f"the client reported no aggregation:\n{run.output[-1500:]}")
    return report


def assert_kept_apart(
    run: ClientRun, servers: Servers, names: tuple[str, str], since: tuple[int, int] = (0, 0)
) -> None:
    """Two names offered to the application for the two servers' SHARED_TOOL, and each server's tool
    called by its own name (among each server's tool calls from the ``since``-th on)."""
    report = aggregated(run)
    offered = report.get("tools") or []
    assert len(set(offered)) == 2, (
        f"two servers (serverInfo names {list(names)}) each listed {SHARED_TOOL!r}; the application was offered "
        f"{offered}" + (f" (the client refused: {report['refused']})" if "refused" in report else "")
    )
    called = [client_calls(server)[start:] for server, start in zip(servers, since, strict=True)]
    assert called == [[SHARED_TOOL], [SHARED_TOOL]], f"the two servers' tools were called as {called}"


@for_req("tools-aggregator-disambiguate-names", "client")
def test_an_aggregating_client_keeps_equally_named_tools_apart(
    revision: str,
    client_launcher: Launcher,
    scripted_server: ScriptedServer,
    second_scripted_server: ScriptedServer,
) -> None:
    """Two servers, named apart, each list ``search``: the aggregating client offers its application two
    names (a prefix, or any scheme of its own) and calls each server's tool by the server's own name."""
    servers, names = (scripted_server, second_scripted_server), ("mcp-matrix-alpha", "mcp-matrix-beta")
    name_servers(servers, names)
    run = aggregate(client_launcher, revision, servers)
    run.judge(lambda: assert_kept_apart(run, servers, names))


@for_req("tools-aggregator-not-rely-on-server-name", "client")
def test_an_aggregating_client_does_not_tell_servers_apart_by_their_name(
    revision: str,
    client_launcher: Launcher,
    scripted_server: ScriptedServer,
    second_scripted_server: ScriptedServer,
) -> None:
    """First two servers named apart, then two with the same serverInfo name, each pair listing ``search``
    twice: a client that keeps the first pair apart (it disambiguates) keeps the second apart too, by
    something else than the name. A client that keeps not even the first pair apart disambiguates nothing:
    the other row's to judge, not this one's."""
    servers = (scripted_server, second_scripted_server)
    name_servers(servers, ("mcp-matrix-alpha", "mcp-matrix-beta"))
    named_apart = aggregated(aggregate(client_launcher, revision, servers))
    if len(set(named_apart.get("tools") or [])) != 2:
        pytest.skip(f"fixture-missing: the client does not keep even servers named apart apart: {named_apart}")
    earlier = (len(client_calls(scripted_server)), len(client_calls(second_scripted_server)))
    names = ("mcp-matrix-twin", "mcp-matrix-twin")
    name_servers(servers, names)
    run = aggregate(client_launcher, revision, servers)
    run.judge(lambda: assert_kept_apart(run, servers, names, since=earlier))
