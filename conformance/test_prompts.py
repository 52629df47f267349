"""Prompts, server side: the capability, ``prompts/list``, the content of ``prompts/get`` and its errors.

Each test holds the server under test to one requirement of docs/spec/requirements.md (prompts),
at every revision its cover claims (see coverage/prompts.py). The prompts got are every prompt
the server lists whose required arguments the suite can fill: those without any, and the official
conformance suite's (``test_prompt_with_arguments``, ``test_prompt_with_embedded_resource``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import ImplementationTimeout, Peer, precondition
from conformance.harness.roles import bound, require_role
from conformance.harness.scripted_server import SERVER_INFO, ScriptedPeer, default_results
from conformance.harness.surface import (
    assert_available_is_listed,
    assert_capability_declared,
    assert_list_changed_announced,
    assert_list_connection_independent,
    await_notification,
    call,
    check_list_may_be_empty,
    check_list_may_change,
    is_base64,
    listed,
    offers,
    server_capabilities,
)
from conformance.harness.timing import script
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, SessionFactory
from conformance.test_pagination import cursors_sent, paged

UNKNOWN_PROMPT = "mcp-matrix-no-such-prompt"
INVALID_PARAMS = -32602
# The prompts that first ask the client for input (multi round-trip, elicitation) are judged by the
# mrtr rows and the referee, not by the content checks, which get each prompt once.
ASKS_FOR_INPUT = "input-required-prompt"
# The prompts that fail on purpose are judged by the internal-error row, not by the content checks.
NOT_GOT_FOR_CONTENT = (ASKS_FOR_INPUT, "failing-prompt", "completion-failing-prompt")
INTERNAL_ERROR = -32603
# RFC 6838 section 4.2: type "/" subtype, each a restricted-name; parameters may follow.
RESTRICTED_NAME = r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}"
MIME_TYPE = re.compile(rf"^{RESTRICTED_NAME}/{RESTRICTED_NAME}(\s*;.*)?$")
# RFC 3986: scheme ":" and then no character a URI cannot hold.
ABSOLUTE_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]*$")


def get_prompt(peer: Peer, name: str, arguments: dict[str, str] | None = None) -> dict:
    params: dict = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return peer.rpc("prompts/get", params, check=False)


def content_items(peer: Peer, kind: str) -> list[dict]:
    """The content items of type ``kind`` in the messages of every prompt the suite can get: those that
    require no arguments, and those bound to a role, with the role's arguments."""
    peer.open()
    bindings = [b for b in peer.roles.values() if b.kind == "prompt"]
    asking = {b.name for b in bindings if b.role in NOT_GOT_FOR_CONTENT}
    known = {b.name: dict(b.arguments) for b in bindings if b.role not in NOT_GOT_FOR_CONTENT}
    items: list[dict] = []
    for prompt in listed(peer, "prompts/list"):
        name = prompt.get("name", "")
        required = [a.get("name") for a in prompt.get("arguments") or [] if a.get("required")]
        arguments = known.get(name, {})
        if name in asking or any(argument not in arguments for argument in required):
            continue
        response = get_prompt(peer, name, arguments or None)
        assert "result" in response, f"prompts/get {name} failed: {response}"
        for message in response["result"].get("messages", []):
            content = message.get("content")
            if isinstance(content, dict) and content.get("type") == kind:
                items.append(content)
    if not items:
        pytest.skip(f"fixture-missing: no prompt the suite can get holds {kind} content")
    return items


def embedded_resources(peer: Peer) -> list[dict]:
    return [item.get("resource") or {} for item in content_items(peer, "resource")]


def refusal_code(response: dict) -> object:
    error = response.get("error")
    assert isinstance(error, dict), f"answered without an error: {response}"
    return error.get("code")


@for_req("prompts-capability-declared", "server", transports=BOTH_TRANSPORTS)
def test_a_server_listing_prompts_declares_the_prompts_capability(revision: str, transport: str, peer: Peer) -> None:
    assert_capability_declared(peer, "prompts", "prompts/list")


@for_req("prompts-list-current-set", "server", transports=BOTH_TRANSPORTS)
def test_prompts_list_holds_the_prompts_that_can_be_got(revision: str, transport: str, peer: Peer) -> None:
    assert_available_is_listed(peer, "prompts/list", "name", "simple-prompt", "prompts/get", "name")


@for_req("prompts-list-set-connection-independent", "server")
def test_prompts_list_depends_neither_on_the_connection_nor_on_earlier_requests(
    revision: str, server: Peer, open_session: SessionFactory
) -> None:
    prompt = bound(server, "simple-prompt")
    arguments = prompt.args() or None
    assert_list_connection_independent(
        server, open_session, revision, "prompts/list", lambda peer: get_prompt(peer, prompt.name, arguments)
    )


@for_req("prompts-list-changed-notify", "server")
def test_a_prompt_list_change_is_announced(revision: str, server: Peer) -> None:
    assert_list_changed_announced(
        server, "prompts", "prompt-list-changer", "notifications/prompts/list_changed", "promptsListChanged"
    )


@for_req("prompts-list-changed-notify-subscribers", "server")
def test_a_prompt_list_change_is_announced_to_subscribers(revision: str, server: Peer) -> None:
    assert_list_changed_announced(
        server, "prompts", "prompt-list-changer", "notifications/prompts/list_changed", "promptsListChanged"
    )


@for_req("prompts-image-content-base64", "server", transports=BOTH_TRANSPORTS)
def test_prompt_image_data_is_base64(revision: str, transport: str, peer: Peer) -> None:
    bad = [str(item.get("data"))[:60] for item in content_items(peer, "image") if not is_base64(item.get("data"))]
    assert not bad, f"image content whose data is not base64: {bad}"


@for_req("prompts-image-content-mime-type", "server", transports=BOTH_TRANSPORTS)
def test_prompt_images_carry_a_valid_mime_type(revision: str, transport: str, peer: Peer) -> None:
    types = [item.get("mimeType") for item in content_items(peer, "image")]
    bad = [t for t in types if not isinstance(t, str) or not MIME_TYPE.match(t)]
    assert not bad, f"image content with an invalid mimeType: {bad}"


@for_req("prompts-embedded-resource-uri", "server", transports=BOTH_TRANSPORTS)
def test_embedded_resources_in_prompts_carry_a_valid_uri(revision: str, transport: str, peer: Peer) -> None:
    uris = [resource.get("uri") for resource in embedded_resources(peer)]
    bad = [uri for uri in uris if not isinstance(uri, str) or not ABSOLUTE_URI.match(uri)]
    assert not bad, f"embedded resources without a valid uri: {bad}"


@for_req("prompts-embedded-resource-mime-type", "server", transports=BOTH_TRANSPORTS)
def test_embedded_resources_in_prompts_carry_a_mime_type(revision: str, transport: str, peer: Peer) -> None:
    types = [resource.get("mimeType") for resource in embedded_resources(peer)]
    bad = [t for t in types if not isinstance(t, str) or not MIME_TYPE.match(t)]
    assert not bad, f"embedded resources without a valid mimeType: {bad}"


@for_req("prompts-embedded-resource-content", "server", transports=BOTH_TRANSPORTS)
def test_embedded_resources_in_prompts_carry_text_or_base64_blob(revision: str, transport: str, peer: Peer) -> None:
    bad = []
    for resource in embedded_resources(peer):
        text, blob = resource.get("text"), resource.get("blob")
        holds_text = isinstance(text, str) and blob is None
        holds_blob = text is None and is_base64(blob)
        if not (holds_text or holds_blob):
            bad.append(resource)
    assert not bad, f"embedded resources with neither text nor base64 blob: {bad}"


@for_req("prompts-get-unknown-name-error", "server", transports=BOTH_TRANSPORTS)
def test_an_unknown_prompt_gets_minus_32602(revision: str, transport: str, peer: Peer) -> None:
    offers(peer, "prompts")
    code = refusal_code(get_prompt(peer, UNKNOWN_PROMPT))
    assert code == INVALID_PARAMS, f"prompts/get {UNKNOWN_PROMPT} was refused with code {code}"


def get_without_a_required_argument(peer: Peer) -> dict:
    """prompts/get of the prompt with two required arguments, giving only the first."""
    bound(peer, "arguments-prompt")
    peer.open()
    prompt = require_role(peer, "arguments-prompt")
    first = next(iter(prompt.arguments.items()), None)
    if first is None or len(prompt.arguments) < 2:
        pytest.skip(f"fixture-missing: the profile gives {prompt.name} fewer than two arguments to leave one out")
    return get_prompt(peer, prompt.name, dict([first]))


@for_req("prompts-get-missing-arguments-error", "server", transports=BOTH_TRANSPORTS)
def test_a_missing_required_argument_gets_minus_32602(revision: str, transport: str, peer: Peer) -> None:
    code = refusal_code(get_without_a_required_argument(peer))
    assert code == INVALID_PARAMS, f"prompts/get without a required argument was refused with code {code}"


@for_req("prompts-validate-arguments", "server", transports=BOTH_TRANSPORTS)
def test_a_get_missing_a_required_argument_is_refused(revision: str, transport: str, peer: Peer) -> None:
    response = get_without_a_required_argument(peer)
    assert "error" in response and "result" not in response, (
        f"prompts/get without a required argument was answered {response}"
    )


@for_req("prompts-audio-content-base64", "server", transports=BOTH_TRANSPORTS)
def test_prompt_audio_data_is_base64(revision: str, transport: str, peer: Peer) -> None:
    bad = [str(item.get("data"))[:60] for item in content_items(peer, "audio") if not is_base64(item.get("data"))]
    assert not bad, f"audio content whose data is not base64: {bad}"


@for_req("prompts-audio-content-mime-type", "server", transports=BOTH_TRANSPORTS)
def test_prompt_audio_carries_a_valid_mime_type(revision: str, transport: str, peer: Peer) -> None:
    types = [item.get("mimeType") for item in content_items(peer, "audio")]
    bad = [t for t in types if not isinstance(t, str) or not MIME_TYPE.match(t)]
    assert not bad, f"audio content with an invalid mimeType: {bad}"


@for_req("prompts-internal-error-code", "server", transports=BOTH_TRANSPORTS)
def test_a_prompt_failing_inside_the_server_gets_minus_32603(revision: str, transport: str, peer: Peer) -> None:
    bound(peer, "failing-prompt")
    peer.open()
    prompt = require_role(peer, "failing-prompt")
    code = refusal_code(get_prompt(peer, prompt.name, prompt.args() or None))
    assert code == INTERNAL_ERROR, f"prompts/get {prompt.name}, which fails inside the server, got code {code}"


@for_req("prompts-respect-capability-negotiation", "server")
def test_a_prompt_list_change_is_announced_only_when_declared(revision: str, server: Peer) -> None:
    """The server's side of the negotiation for prompts: the one notification prompts define,
    ``notifications/prompts/list_changed``, comes only from a server that declared ``prompts.listChanged``
    (at 2026-07-28 on a ``subscriptions/listen`` stream that asked for it). Whether a declared change is
    announced at all is prompts-list-changed-notify's business: no announcement leaves nothing to judge."""
    bound(server, "prompt-list-changer")
    capabilities = server_capabilities(server)
    changer = require_role(server, "prompt-list-changer")
    if server.stateless:
        server.send_request(server.envelope("subscriptions/listen", "listen", {"notifications": LISTEN_PROMPTS}))
        await_notification(server, "notifications/subscriptions/acknowledged")
    called = call(server, changer)
    precondition("result" in called, f"{changer.name} (prompt-list-changer) failed: {called}")
    try:
        announcement = await_notification(server, "notifications/prompts/list_changed")
    except ImplementationTimeout:
        pytest.skip(f"fixture-missing: {changer.name} changed the prompt list but nothing was announced")
    declared = capabilities.get("prompts")
    assert isinstance(declared, dict) and declared.get("listChanged") is True, (
        f"the server sent {announcement} but declared prompts as {declared!r} (capabilities {capabilities})"
    )


LISTEN_PROMPTS = {"promptsListChanged": True}


# -- permissions (MAY): a pass shows the server taking one; otherwise the cell is not-exercised ---------------


@for_req("prompts-list-set-may-be-empty", "server", transports=BOTH_TRANSPORTS)
def test_the_prompt_list_may_be_empty(revision: str, transport: str, peer: Peer) -> None:
    check_list_may_be_empty(peer, "prompts", "prompts/list")


@for_req("prompts-list-set-may-change", "server")
def test_the_prompt_list_may_change(revision: str, server: Peer) -> None:
    """The list before and after the change ``prompt-list-changer`` makes."""
    check_list_may_change(server, "prompts/list", "prompt-list-changer")


@for_req("prompts-resource-link-allowed", "server", transports=BOTH_TRANSPORTS)
def test_prompt_messages_may_link_resources(revision: str, transport: str, peer: Peer) -> None:
    """A permission: a ``resource_link`` among the messages of a prompt the suite can get."""
    try:
        links = content_items(peer, "resource_link")
    except pytest.skip.Exception:
        links = []
    assert links, "no prompt the suite can get links a resource"


# -- the client side: prompts as the client consumes them ----------------------------------------------

RunClient = Callable[[str], ClientRun]
PAGED_PROMPTS = [  # three pages of one prompt each: the client needs two cursors to get them all
    {"items": [{"name": "first-prompt", "description": "On the first page."}], "nextCursor": "prompts-page-2"},
    {"items": [{"name": "second-prompt", "description": "On the second page."}], "nextCursor": "prompts-page-3"},
    {"items": [{"name": "third-prompt", "description": "On the last page."}]},
]


@for_req("prompts-client-handles-pagination", "client", transports=BOTH_TRANSPORTS)
def test_the_client_lists_every_page_of_the_prompts(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The scripted server lists its prompts in three pages; asked by its application for every prompt
    (the driver's ``paginated_lists``), the client asks for each page with the cursor the page before gave,
    and hands the application all three prompts."""
    paged(scripted_peer, "prompts/list", "prompts", PAGED_PROMPTS)
    run = run_peer_client("paginated_lists")

    def check() -> None:
        expected = [page["nextCursor"] for page in PAGED_PROMPTS if "nextCursor" in page]
        sent = cursors_sent(scripted_peer.frames(), "prompts/list")
        followed = list(dict.fromkeys(json.dumps(cursor) for cursor in sent))  # each once, in order
        assert followed == [json.dumps(c) for c in expected], (
            f"the prompts came with the cursors {expected}; the client sent {sent}"
        )
        listed = run.report("listed")
        precondition(isinstance(listed, dict), f"the client reported no listing:\n{run.output[-1500:]}")
        everything = [item["name"] for page in PAGED_PROMPTS for item in page["items"]]
        assert listed.get("prompts") == everything, f"the application got the prompts {listed.get('prompts')}"

    run.judge(check)


def declaring_only_tools(server: ScriptedPeer) -> None:
    """The scripted server declares the tools capability and no other (in its initialize or server/discover
    result)."""
    capabilities = {"tools": {}}
    discover = default_results(server.revision)["server/discover"]({}) | {"capabilities": capabilities}
    initialize = {"protocolVersion": server.revision, "capabilities": capabilities, "serverInfo": SERVER_INFO}
    script(server, results={"initialize": initialize, "server/discover": discover})


@for_req("prompts-respect-capability-negotiation", "client", transports=BOTH_TRANSPORTS)
def test_the_client_asks_for_no_prompts_of_a_server_that_declared_none(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The server declares tools only; asked by its application for the prompts (among other features the
    server did not declare: the driver's ``unnegotiated_features``), the client sends no ``prompts/*``
    request (it may refuse locally, or tell the application there are none)."""
    declaring_only_tools(scripted_peer)
    run = run_peer_client("unnegotiated_features")

    def check() -> None:
        asked = [f for f in scripted_peer.requests() if str(f.get("method", "")).startswith("prompts/")]
        assert not asked, f"the server declared no prompts; the client still sent {asked}"

    run.judge(check)
