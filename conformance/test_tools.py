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

import base64
import binascii
import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator, SchemaError, validators

from conformance.covers import for_req
from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import ImplementationTimeout, Peer
from conformance.plugin import SessionFactory

SIMPLE_TOOL = "test_simple_text"
ERROR_TOOL = "test_error_handling"
EMBEDDED_RESOURCE_TOOL = "test_embedded_resource"
STRUCTURED_TOOL = "test_structured_output"
STRUCTURED_ARGUMENTS = {"a": 2, "b": 3}
TRIGGER_TOOL_CHANGE = "test_trigger_tool_change"
MAX_PAGES = 50  # a list longer than this many pages is a runaway cursor, not a long list
TOOL_NAME_CHARACTERS = re.compile(r"^[A-Za-z0-9_.-]+$")
SPECIAL_CHARACTER = re.compile(r"[^A-Za-z0-9_.-]")
LIST_KEYS = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}


# -- the feature surface (shared with test_resources.py and test_prompts.py) -------------------------


def server_capabilities(peer: Peer) -> dict:
    """The capabilities the server declares: the initialize result's, or server/discover's at 2026-07-28.

    Opens the session: at revisions with a handshake, this is its initialize.
    """
    response = peer.rpc("server/discover", check=False) if peer.stateless else {"result": peer.initialize(check=False)}
    capabilities = response.get("result", {}).get("capabilities")
    assert isinstance(capabilities, dict), f"no capabilities declared: {response}"
    return capabilities


def list_pages(peer: Peer, method: str, params: dict | None = None) -> list[dict]:
    """Every response of a list request, following ``nextCursor`` until a page has none."""
    responses = [peer.rpc(method, params, check=False)]
    while len(responses) < MAX_PAGES:
        cursor = responses[-1].get("result", {}).get("nextCursor")
        if cursor is None:
            return responses
        responses.append(peer.rpc(method, {"cursor": cursor}, check=False))
    raise AssertionError(f"{method} still had a nextCursor after {MAX_PAGES} pages")


def list_items(peer: Peer, method: str) -> list[dict] | None:
    """The items of every page of a list request, or None when the server refuses the request."""
    items: list[dict] = []
    for response in list_pages(peer, method):
        if "result" not in response:
            return None
        page = response["result"].get(LIST_KEYS[method])
        assert isinstance(page, list), f"{method} answered without a {LIST_KEYS[method]} array: {response}"
        items.extend(page)
    return items


def listed(peer: Peer, method: str) -> list[dict]:
    """The items of a list request the server must answer."""
    items = list_items(peer, method)
    assert items is not None, f"{method} was refused"
    return items


def names(items: list[dict], key: str = "name") -> list[Any]:
    return [item.get(key) for item in items]


def canonical(items: list[dict]) -> list[str]:
    """A list's items as comparable text, whatever their order."""
    return sorted(json.dumps(item, sort_keys=True) for item in items)


def is_base64(data: object) -> bool:
    """``data`` is a string of standard base64 (RFC 4648, padded), as the schema's ``byte`` format."""
    if not isinstance(data, str):
        return False
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def assert_capability_declared(peer: Peer, capability: str, method: str) -> None:
    """A server whose ``method`` lists something declares ``capability``."""
    capabilities = server_capabilities(peer)
    items = list_items(peer, method)
    if not items:
        pytest.skip(f"fixture-missing: {method} lists nothing, so the server offers no {capability}")
    assert capability in capabilities, f"{method} lists {len(items)} item(s) but capabilities are {capabilities}"


def assert_available_is_listed(peer: Peer, method: str, key: str, name: str, use: str, params: dict[str, Any]) -> None:
    """``name``, which ``use`` serves, is in the answer to ``method`` (the set presently available)."""
    peer.open()
    used = peer.rpc(use, params, check=False)
    if "result" not in used:
        pytest.skip(f"fixture-missing: {use} of {name} fails: {used.get('error')}")
    items = list_items(peer, method)
    assert items is not None, f"{method} was refused"
    assert name in names(items, key), f"{use} serves {name}, but {method} lists only {names(items, key)}"


def assert_list_connection_independent(
    server: Peer, open_session: SessionFactory, revision: str, method: str, exercise: Callable[[Peer], object]
) -> None:
    """``method`` lists the same set before and after other requests, and on another connection."""
    server.open()
    before = canonical(listed(server, method))
    exercise(server)
    after = canonical(listed(server, method))
    with open_session(revision) as other:
        other.open()
        elsewhere = canonical(listed(other, method))
    assert before == after, f"{method} changed after other requests on the connection:\n{before}\n{after}"
    assert before == elsewhere, f"{method} differs between two connections:\n{before}\n{elsewhere}"


def await_notification(peer: Peer, method: str, seconds: float | None = None) -> dict:
    """The next frame carrying notification ``method``; other frames are passed over. Bounded."""
    bound = peer.timeout if seconds is None else seconds
    deadline = time.monotonic() + bound
    passed: list[Any] = []
    while True:
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise ImplementationTimeout("deadline passed")
            frame = peer.receive(timeout=remaining)
        except ImplementationTimeout:
            raise AssertionError(f"no {method} within {bound:g}s; the server sent {passed}") from None
        if isinstance(frame, dict) and frame.get("method") == method:
            return frame
        passed.append(frame.get("method", frame.get("id")) if isinstance(frame, dict) else frame)


def assert_list_changed_announced(peer: Peer, capability: str, trigger: str, notification: str, flag: str) -> None:
    """A server declaring ``<capability>.listChanged`` announces a change of that list.

    The change is the one the fixture's ``trigger`` tool makes. At 2026-07-28 the announcement
    travels on a ``subscriptions/listen`` stream that asked for it (``flag``).
    """
    capabilities = server_capabilities(peer)
    if not (capabilities.get(capability) or {}).get("listChanged"):
        pytest.skip(f"fixture-missing: the server does not declare {capability}.listChanged")
    require_tool(peer, trigger)
    if peer.stateless:
        peer.send_request(peer.envelope("subscriptions/listen", "listen", {"notifications": {flag: True}}))
        await_notification(peer, "notifications/subscriptions/acknowledged")
    called = call_tool(peer, trigger)
    assert "result" in called, f"{trigger} failed: {called}"
    await_notification(peer, notification)


# -- tools ---------------------------------------------------------------------------------------------


def call_tool(peer: Peer, name: str, arguments: dict[str, Any] | None = None) -> dict:
    return peer.rpc("tools/call", {"name": name, "arguments": arguments or {}}, check=False)


def listed_tools(peer: Peer) -> list[dict]:
    peer.open()
    return listed(peer, "tools/list")


def require_tool(peer: Peer, name: str) -> dict:
    """The listed tool ``name``; a target without it leaves the cell fixture-missing."""
    for tool in list_items(peer, "tools/list") or []:
        if tool.get("name") == name:
            return tool
    pytest.skip(f"fixture-missing: the server lists no tool {name}")


def text_of(result: dict) -> list[str]:
    return [item.get("text", "") for item in result.get("content", []) if item.get("type") == "text"]


@for_req("tools-capability-declared", "server", transports=BOTH_TRANSPORTS)
def test_a_server_listing_tools_declares_the_tools_capability(revision: str, transport: str, peer: Peer) -> None:
    assert_capability_declared(peer, "tools", "tools/list")


@for_req("tools-list-current-set", "server", transports=BOTH_TRANSPORTS)
def test_tools_list_holds_the_tools_that_can_be_called(revision: str, transport: str, peer: Peer) -> None:
    assert_available_is_listed(peer, "tools/list", "name", SIMPLE_TOOL, "tools/call", {"name": SIMPLE_TOOL})


@for_req("tools-list-set-connection-independent", "server")
def test_tools_list_depends_neither_on_the_connection_nor_on_earlier_requests(
    revision: str, server: Peer, open_session: SessionFactory
) -> None:
    assert_list_connection_independent(
        server, open_session, revision, "tools/list", lambda peer: call_tool(peer, SIMPLE_TOOL)
    )


@for_req("tools-list-deterministic-order", "server", transports=BOTH_TRANSPORTS)
def test_tools_are_listed_in_the_same_order_every_time(revision: str, transport: str, peer: Peer) -> None:
    first = names(listed_tools(peer))
    for _ in range(2):
        again = names(listed(peer, "tools/list"))
        assert again == first, f"tools/list ordered {first}, then {again}"


@for_req("tools-list-changed-notify", "server")
def test_a_tool_list_change_is_announced(revision: str, server: Peer) -> None:
    assert_list_changed_announced(
        server, "tools", TRIGGER_TOOL_CHANGE, "notifications/tools/list_changed", "toolsListChanged"
    )


@for_req("tools-list-changed-notify-subscribers", "server")
def test_a_tool_list_change_is_announced_to_subscribers(revision: str, server: Peer) -> None:
    assert_list_changed_announced(
        server, "tools", TRIGGER_TOOL_CHANGE, "notifications/tools/list_changed", "toolsListChanged"
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
    peer.open()
    require_tool(peer, SIMPLE_TOOL)
    other_case = SIMPLE_TOOL.upper()
    if other_case in names(listed(peer, "tools/list")):
        pytest.skip(f"fixture-missing: the server lists both {SIMPLE_TOOL} and {other_case}")
    response = call_tool(peer, other_case)
    ran = "result" in response and response["result"].get("isError") is not True
    assert not ran, f"tools/call of {other_case} ran {SIMPLE_TOOL}: {response}"


@for_req("tools-embedded-resources-capability", "server", transports=BOTH_TRANSPORTS)
def test_a_server_embedding_resources_in_tool_results_declares_resources(
    revision: str, transport: str, peer: Peer
) -> None:
    capabilities = server_capabilities(peer)
    require_tool(peer, EMBEDDED_RESOURCE_TOOL)
    result = call_tool(peer, EMBEDDED_RESOURCE_TOOL).get("result", {})
    if not [item for item in result.get("content", []) if item.get("type") == "resource"]:
        pytest.skip(f"fixture-missing: {EMBEDDED_RESOURCE_TOOL} embedded no resource: {result}")
    assert "resources" in capabilities, f"a tool result embeds a resource, but capabilities are {capabilities}"


def structured_result(peer: Peer) -> tuple[dict, dict]:
    """The listed structured-output tool and the result of calling it with valid arguments."""
    peer.open()
    tool = require_tool(peer, STRUCTURED_TOOL)
    response = call_tool(peer, STRUCTURED_TOOL, STRUCTURED_ARGUMENTS)
    assert "result" in response, f"{STRUCTURED_TOOL} failed: {response}"
    return tool, response["result"]


@for_req("tools-output-schema-conformance", "server", transports=BOTH_TRANSPORTS)
def test_structured_content_matches_the_output_schema(revision: str, transport: str, peer: Peer) -> None:
    tool, result = structured_result(peer)
    schema = tool.get("outputSchema")
    if not isinstance(schema, dict):
        pytest.skip(f"fixture-missing: {STRUCTURED_TOOL} declares no outputSchema")
    assert "structuredContent" in result, f"a tool with an outputSchema answered without structuredContent: {result}"
    validator = validators.validator_for(schema, default=Draft202012Validator)(schema)
    errors = [f"at {list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(result["structuredContent"])]
    assert not errors, "structuredContent breaks the outputSchema:\n" + "\n".join(errors)


@for_req("tools-structured-content-text-mirror", "server", transports=BOTH_TRANSPORTS)
def test_structured_content_is_mirrored_as_json_text(revision: str, transport: str, peer: Peer) -> None:
    _, result = structured_result(peer)
    if "structuredContent" not in result:
        pytest.skip(f"fixture-missing: {STRUCTURED_TOOL} returned no structuredContent")
    mirrors = []
    for text in text_of(result):
        try:
            mirrors.append(json.loads(text))
        except json.JSONDecodeError:
            continue
    assert result["structuredContent"] in mirrors, f"no text block holds {result['structuredContent']} as JSON"


@for_req("tools-tool-errors-in-result-iserror", "server", transports=BOTH_TRANSPORTS)
def test_an_error_inside_a_tool_is_a_result_with_is_error(revision: str, transport: str, peer: Peer) -> None:
    peer.open()
    require_tool(peer, ERROR_TOOL)
    response = call_tool(peer, ERROR_TOOL)
    assert "result" in response, f"the tool's error came as a JSON-RPC error: {response}"
    assert response["result"].get("isError") is True, f"the failing tool's result: {response['result']}"


@for_req("tools-server-validate-inputs", "server", transports=BOTH_TRANSPORTS)
def test_a_call_with_invalid_arguments_is_refused(revision: str, transport: str, peer: Peer) -> None:
    peer.open()
    require_tool(peer, STRUCTURED_TOOL)
    response = call_tool(peer, STRUCTURED_TOOL, {"a": "not a number"})  # a: integer; b: missing
    refused = "error" in response or response.get("result", {}).get("isError") is True
    assert refused, f"arguments breaking the inputSchema were accepted: {response}"
