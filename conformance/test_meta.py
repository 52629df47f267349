"""_meta: what the reserved keys carry (docs/spec/requirements.md, meta)."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance.harness.exchanges import TRACEPARENT as TRACEPARENT_SENT
from conformance.harness.exchanges import is_request, meta_objects, rich_requests, server_frames
from conformance.harness.frames import BOTH_TRANSPORTS, CLIENT_CAPABILITIES_META
from conformance.harness.http import HttpPeer
from conformance.harness.peer import ImplementationTimeout, Peer, precondition
from conformance.harness.roles import require_role
from conformance.harness.scripted_server import ScriptedPeer, ScriptedServer, default_results
from conformance.harness.surface import await_notification, call_tool, server_capabilities
from conformance.harness.wire import params_of
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun

RunClient = Callable[[str], ClientRun]
MODERN = "2026-07-28"

SERVER_INFO = "io.modelcontextprotocol/serverInfo"


@for_req("meta-server-info-every-result", "server", transports=BOTH_TRANSPORTS)
def test_every_result_names_the_server(revision: str, transport: str, peer: Peer) -> None:
    for method in ("server/discover", "tools/list", "prompts/list"):
        result = peer.rpc(method, check=False).get("result")
        assert isinstance(result, dict), f"{method} failed"
        info = (result.get("_meta") or {}).get(SERVER_INFO)
        assert isinstance(info, dict), f"{method}: no _meta {SERVER_INFO} in {result}"
        assert isinstance(info.get("name"), str) and isinstance(info.get("version"), str), info


# -- the per-request _meta envelope of 2026-07-28 ----------------------------------------------------------


def without_meta(peer: Peer) -> dict:
    """A tools/list that lacks the required ``_meta`` envelope, and its answer."""
    peer.send_request({"jsonrpc": "2.0", "id": "bare", "method": "tools/list", "params": {}})
    return peer.expect_response("bare")


@for_req("meta-missing-required-field-invalid-params", "server", transports=BOTH_TRANSPORTS)
def test_a_request_without_its_meta_envelope_gets_minus_32602(revision: str, transport: str, peer: Peer) -> None:
    error = without_meta(peer).get("error")
    assert isinstance(error, dict) and error.get("code") == -32602, f"answered {error}"


@for_req("meta-missing-required-field-http-400", "server")
def test_a_request_without_its_meta_envelope_gets_400(revision: str, http_server: HttpPeer) -> None:
    frame = {"jsonrpc": "2.0", "id": "bare", "method": "tools/list", "params": {}}
    exchange = http_server.exchange("POST", frame, http_server.headers_for(frame))
    assert exchange.status == 400, f"a request without _meta was answered {exchange.status}"


def sampling_without_the_capability(peer: Peer) -> dict:
    """The tool that cannot be served without the client's sampling capability, called without it."""
    tool = require_role(peer, "sampling-required-tool")
    return peer.rpc("tools/call", {"name": tool.name, "arguments": tool.args()}, check=False)


@for_req("meta-missing-client-capability-error", "server", transports=BOTH_TRANSPORTS)
def test_a_request_needing_an_undeclared_capability_gets_minus_32021(revision: str, transport: str, peer: Peer) -> None:
    error = sampling_without_the_capability(peer).get("error")
    assert isinstance(error, dict) and error.get("code") == -32021, f"answered {error}"


@for_req("meta-missing-client-capability-http-400", "server")
def test_a_missing_client_capability_gets_400(revision: str, http_server: HttpPeer) -> None:
    sampling_without_the_capability(http_server)
    post = http_server.exchanges[-1]
    assert post.status == 400, f"a request needing an undeclared capability was answered {post.status}"


# -- the names of the _meta keys a server writes (2025-06-18 on) ----------------------------------------------

META_KEY = re.compile(r"^(?:(?P<prefix>[^/]+)/)?(?P<name>.*)$")
LABEL = re.compile(r"^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$")
NAME_ENDS = re.compile(r"^[A-Za-z0-9](?:.*[A-Za-z0-9])?$")
NAME_INTERIOR = re.compile(r"^[A-Za-z0-9._-]*$")
TOP_LEVEL_DOMAINS = frozenset(
    re.findall(
        r"\w+",
        "com org net edu gov mil int io dev ai app co me info biz xyz tech cloud sh us uk eu de fr nl be ch at "
        "se no dk fi es it pt pl cz ru ua jp cn kr in au nz ca br mx ar za",
    )
)


def meta_keys_written(peer: Peer) -> list[str]:
    """Every key of every ``_meta`` object in the server's answers to a few requests."""
    peer.open()
    keys: list[str] = []

    def collect(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("_meta"), dict):
                keys.extend(node["_meta"])
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    for method in ("server/discover", "tools/list") if peer.stateless else ("tools/list", "prompts/list"):
        collect(peer.rpc(method, check=False))
    if not keys:
        pytest.skip("fixture-missing: the server wrote no _meta keys in these answers")
    return keys


def prefixed(keys: list[str], labels: int = 1) -> list[str]:
    """The keys whose prefix a prefix rule can judge: those with a prefix of at least ``labels`` labels (a key
    without one passes every prefix rule, so judging only such keys would pass on nothing)."""
    judged = [key for key in keys if (prefix := parts(key)[0]) is not None and len(prefix.split(".")) >= labels]
    if not judged:
        kind = "a prefix" if labels == 1 else f"a prefix of {labels} labels or more"
        pytest.skip(f"fixture-missing: no _meta key written has {kind}: {sorted(set(keys))}")
    return judged


@for_req("meta-key-prefix-labels", "server", transports=BOTH_TRANSPORTS)
def test_meta_key_prefixes_are_dot_separated_labels(revision: str, transport: str, peer: Peer) -> None:
    check_prefix_labels(prefixed(meta_keys_written(peer)))


@for_req("meta-key-prefix-label-characters", "server", transports=BOTH_TRANSPORTS)
def test_meta_key_prefix_labels_are_well_formed(revision: str, transport: str, peer: Peer) -> None:
    check_label_characters(prefixed(meta_keys_written(peer)))


@for_req("meta-key-name-alphanumeric-ends", "server", transports=BOTH_TRANSPORTS)
def test_meta_key_names_start_and_end_alphanumeric(revision: str, transport: str, peer: Peer) -> None:
    check_name_ends(meta_keys_written(peer))


@for_req("meta-key-name-interior-characters", "server", transports=BOTH_TRANSPORTS)
def test_meta_key_names_use_only_the_allowed_interior_characters(revision: str, transport: str, peer: Peer) -> None:
    check_name_interior(meta_keys_written(peer))


@for_req("meta-key-prefix-reverse-dns", "server", transports=BOTH_TRANSPORTS)
def test_meta_key_prefixes_are_reverse_dns(revision: str, transport: str, peer: Peer) -> None:
    check_reverse_dns(prefixed(meta_keys_written(peer), labels=2))


# The _meta key grammar, checked on the keys one side writes (the server's answers above; the client's
# requests below).


def parts(key: str) -> tuple[str | None, str]:
    match = META_KEY.match(key)
    assert match is not None
    return match["prefix"], match["name"]


def check_prefix_labels(keys: list[str]) -> None:
    for key in keys:
        prefix, _ = parts(key)
        assert prefix is None or all(prefix.split(".")), f"_meta key {key!r}: prefix is not dot-separated labels"


def check_label_characters(keys: list[str]) -> None:
    for key in keys:
        prefix, _ = parts(key)
        bad = [label for label in (prefix or "").split(".") if prefix and not LABEL.match(label)]
        assert not bad, f"_meta key {key!r}: labels {bad}"


def check_name_ends(keys: list[str]) -> None:
    for key in keys:
        _, name = parts(key)
        assert not name or NAME_ENDS.match(name), f"_meta key {key!r}: name {name!r}"


def check_name_interior(keys: list[str]) -> None:
    for key in keys:
        _, name = parts(key)
        assert NAME_INTERIOR.match(name[1:-1]), f"_meta key {key!r}: name {name!r} has other characters inside"


def check_reverse_dns(keys: list[str]) -> None:
    """A prefix of several labels reads from the top-level domain down: ``com.example/``, not
    ``example.com/``. Only a prefix that ends in a top-level domain without starting with one is judged
    (``mcp-matrix.probe/`` names no domain either way)."""
    for key in keys:
        prefix, _ = parts(key)
        labels = (prefix or "").lower().split(".")
        forward = len(labels) > 1 and labels[-1] in TOP_LEVEL_DOMAINS and labels[0] not in TOP_LEVEL_DOMAINS
        assert not forward, f"_meta key {key!r}: prefix {prefix!r} is forward DNS, not {'.'.join(labels[::-1])}"


# -- the _meta the client writes -------------------------------------------------------------------------

CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"


def client_requests(run_client: RunClient, server: ScriptedPeer, scenario: str = "rich") -> list[dict]:
    """The requests the client sends in ``scenario`` (lists, and a tool call with a progress callback)."""
    run_client(scenario).require_completed()
    requests = [f for f in server.frames() if is_request(f)]
    assert requests, "the client sent no request"
    return requests


def client_meta_keys(run_client: RunClient, server: ScriptedPeer) -> list[str]:
    keys = [key for request in client_requests(run_client, server) for meta in meta_objects(request) for key in meta]
    if not keys:
        pytest.skip("fixture-missing: the client wrote no _meta keys in this scenario")
    return keys


@for_req("meta-key-prefix-labels", "client", transports=BOTH_TRANSPORTS)
def test_client_meta_key_prefixes_are_dot_separated_labels(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    check_prefix_labels(prefixed(client_meta_keys(run_peer_client, scripted_peer)))


@for_req("meta-key-prefix-label-characters", "client", transports=BOTH_TRANSPORTS)
def test_client_meta_key_prefix_labels_are_well_formed(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    check_label_characters(prefixed(client_meta_keys(run_peer_client, scripted_peer)))


@for_req("meta-key-name-alphanumeric-ends", "client", transports=BOTH_TRANSPORTS)
def test_client_meta_key_names_start_and_end_alphanumeric(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    check_name_ends(client_meta_keys(run_peer_client, scripted_peer))


@for_req("meta-key-name-interior-characters", "client", transports=BOTH_TRANSPORTS)
def test_client_meta_key_names_use_only_the_allowed_interior_characters(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    check_name_interior(client_meta_keys(run_peer_client, scripted_peer))


@for_req("meta-key-prefix-reverse-dns", "client", transports=BOTH_TRANSPORTS)
def test_client_meta_key_prefixes_are_reverse_dns(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    check_reverse_dns(prefixed(client_meta_keys(run_peer_client, scripted_peer), labels=2))


@for_req("meta-request-required-fields", "client", transports=BOTH_TRANSPORTS)
def test_every_client_request_carries_the_required_meta_fields(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    for request in client_requests(run_peer_client, scripted_peer):
        meta = params_of(request).get("_meta") or {}
        missing = [key for key in (PROTOCOL_VERSION, CLIENT_CAPABILITIES_META) if key not in meta]
        assert not missing, f"{request['method']} without {missing}: {request}"


@for_req("meta-client-info-every-request", "client", transports=BOTH_TRANSPORTS)
def test_every_client_request_names_the_client(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    for request in client_requests(run_peer_client, scripted_peer):
        info = (params_of(request).get("_meta") or {}).get(CLIENT_INFO)
        assert isinstance(info, dict) and isinstance(info.get("name"), str), f"{request['method']}: {request}"


# -- values under keys MCP reserves ------------------------------------------------------------------------

# Keys under prefixes MCP reserves (second label modelcontextprotocol or mcp) that no revision defines,
# holding values of every JSON type: an implementation that assumed something about them would stumble.
UNDEFINED_RESERVED = {
    "io.modelcontextprotocol/mcp-matrix-undefined": [1, "two", None, {"three": 3.0}],
    "dev.mcp/mcp-matrix-undefined": "a string where an object might be expected",
    "io.modelcontextprotocol.mcp-matrix/undefined": 0,
}
LISTED = [{"name": "echo", "description": "Echoes its text.", "inputSchema": {"type": "object"}}]


@for_req("meta-reserved-keys-no-assumptions", "client", transports=BOTH_TRANSPORTS)
def test_the_client_assumes_nothing_of_undefined_reserved_keys(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The server's tools/list result carries undefined reserved keys: the client takes the listing as
    usual and calls the tool it names."""
    result: dict = {"tools": LISTED, "_meta": UNDEFINED_RESERVED}
    if revision == MODERN:
        result |= {"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
    scripted_peer.raw["tools/list"] = {"result": result}
    run_peer_client("tools_call").judge(lambda: check_calls_the_tool(scripted_peer))


def check_calls_the_tool(server: ScriptedPeer) -> None:
    calls = [f for f in server.frames() if isinstance(f, dict) and f.get("method") == "tools/call"]
    assert calls, "the client did not call the tool after a listing with undefined reserved _meta keys"


@for_req("meta-reserved-keys-no-assumptions", "server", transports=BOTH_TRANSPORTS)
def test_the_server_assumes_nothing_of_undefined_reserved_keys(revision: str, transport: str, peer: Peer) -> None:
    """A request whose ``_meta`` carries undefined reserved keys gets the answer it gets without them."""
    peer.open()
    plain = peer.rpc("tools/list", check=False)
    odd = peer.rpc("tools/list", {"_meta": dict(UNDEFINED_RESERVED)}, check=False)
    assert "result" in odd, f"with undefined reserved _meta keys tools/list was answered {odd}"
    assert odd["result"] == plain.get("result"), f"{odd} differs from {plain}"


# -- self-reported identities (clientInfo, serverInfo) change nothing -----------------------------------------

ORDINARY = {"name": "mcp-matrix", "version": "0.1.0"}
OTHER = {"name": "another-client", "title": "Another client", "version": "99.0"}
PRIVILEGED = {"name": "admin", "title": "Trusted administrator (mcp-matrix)", "version": "1.0"}


def answers_as(peer: Peer, info: dict | None, requests: list[tuple[str, dict | None]]) -> list[dict]:
    """The answer (its result or error) to each request, sent with ``info`` as clientInfo (None: none)."""
    found = []
    for method, params in requests:
        frame = peer.envelope(method, peer.next_id(), params)
        if info is None:
            frame["params"]["_meta"].pop(CLIENT_INFO, None)
        else:
            frame["params"]["_meta"][CLIENT_INFO] = info
        peer.send_request(frame)
        response = peer.expect_response(frame["id"])
        found.append({key: response[key] for key in ("result", "error") if key in response})
    return found


def ordinary_requests(peer: Peer) -> list[tuple[str, dict | None]]:
    """Requests any client may make: discovery, the lists, and a call of the profile's simple tool."""
    requests: list[tuple[str, dict | None]] = [
        ("server/discover", None),
        ("tools/list", None),
        ("prompts/list", None),
        ("resources/list", None),
    ]
    if tool := peer.roles.get("simple-tool"):
        requests.append(("tools/call", {"name": tool.name, "arguments": tool.args()}))
    return requests


def guarded_requests(peer: Peer) -> list[tuple[str, dict | None]]:
    """Requests that are refused: the profile's tool needing a capability not declared, an unknown resource;
    and one that is allowed."""
    requests: list[tuple[str, dict | None]] = []
    if tool := peer.roles.get("sampling-required-tool"):
        requests.append(("tools/call", {"name": tool.name, "arguments": tool.args()}))
    return [*requests, ("resources/read", {"uri": "test://mcp-matrix/no-such-resource"}), ("tools/list", None)]


@for_req("meta-info-not-behavioral", "server", transports=BOTH_TRANSPORTS)
def test_the_server_answers_alike_whoever_the_client_says_it_is(revision: str, transport: str, peer: Peer) -> None:
    ordinary = answers_as(peer, ORDINARY, ordinary_requests(peer))
    other = answers_as(peer, OTHER, ordinary_requests(peer))
    assert ordinary == other, f"answers differ with clientInfo {OTHER}:\n{ordinary}\n{other}"


@for_req("meta-info-not-security", "server", transports=BOTH_TRANSPORTS)
def test_a_claimed_identity_opens_or_closes_nothing(revision: str, transport: str, peer: Peer) -> None:
    """What is refused stays refused for a client claiming to be an administrator, and what is allowed
    stays allowed for a client that names itself not at all."""
    ordinary = answers_as(peer, ORDINARY, guarded_requests(peer))
    for info in (PRIVILEGED, None):
        claimed = answers_as(peer, info, guarded_requests(peer))
        assert claimed == ordinary, f"answers differ with clientInfo {info}:\n{ordinary}\n{claimed}"


SCRIPTED_INFO = {"name": "mcp-matrix-scripted-server", "version": "0.1.0"}
TRUSTED_INFO = {"name": "io.modelcontextprotocol/reference-server", "title": "Trusted (verified)", "version": "9.9"}


def requests_meeting(run_client: RunClient, server: ScriptedServer, info: dict | None) -> list[tuple[str, Any]]:
    """What the client sends, request by request (method, params), to a server whose discovery result
    names it ``info`` (None: names nobody)."""
    discover = default_results(server.revision)["server/discover"]

    def named(frame: dict) -> dict:
        result = discover(frame)
        result["_meta"] = {SERVER_INFO: info} if info is not None else {}
        return result

    server.answers["server/discover"] = named
    before = len(server.frames())
    run_client("rich").require_completed()
    return [(f["method"], f.get("params")) for f in server.frames()[before:] if is_request(f)]


@for_req("meta-info-not-behavioral", "client")
def test_the_client_acts_alike_whoever_the_server_says_it_is(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    usual = requests_meeting(run_client, scripted_server, SCRIPTED_INFO)
    other = requests_meeting(run_client, scripted_server, OTHER)
    assert usual == other, f"the client acted otherwise with serverInfo {OTHER}:\n{usual}\n{other}"


@for_req("meta-info-not-security", "client")
def test_the_client_trusts_no_claimed_server_identity(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """A server claiming a trusted identity, and one naming itself not at all, get exactly what any other
    server gets: the same requests, the same declared capabilities, nothing more."""
    usual = requests_meeting(run_client, scripted_server, SCRIPTED_INFO)
    for info in (TRUSTED_INFO, None):
        claimed = requests_meeting(run_client, scripted_server, info)
        assert claimed == usual, f"the client acted otherwise with serverInfo {info}:\n{usual}\n{claimed}"


# -- capabilities the request declares, and nothing else ------------------------------------------------------


@for_req("meta-no-undeclared-client-capabilities", "server", transports=BOTH_TRANSPORTS)
def test_the_server_relies_on_no_capability_the_request_does_not_declare(
    revision: str, transport: str, peer: Peer
) -> None:
    """A tool that needs sampling, called first by a request that declares it, then by one that does not:
    the second must not be answered by asking the client to sample (capabilities are never inferred from
    earlier requests)."""
    tool = require_role(peer, "sampling-tool")
    declaring = {"_meta": {CLIENT_CAPABILITIES_META: {"sampling": {}}}}
    first = peer.rpc("tools/call", {"name": tool.name, "arguments": tool.args()} | declaring, check=False)
    if "sampling/createMessage" not in sampling_asked(first):
        pytest.skip(f"fixture-missing: {tool.name} did not ask for sampling even when declared: {first}")
    second = peer.rpc("tools/call", {"name": tool.name, "arguments": tool.args()}, check=False)
    assert "sampling/createMessage" not in sampling_asked(second), f"undeclared, the server still asked: {second}"


def sampling_asked(response: dict) -> list[str]:
    """The methods of the input requests an input_required result makes."""
    requests = ((response.get("result") or {}).get("inputRequests")) or {}
    return [r.get("method") for r in requests.values() if isinstance(r, dict)] if isinstance(requests, dict) else []


# -- subscriptions/listen ------------------------------------------------------------------------------------

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"


def listen(peer: Peer, request_id: str, notifications: dict) -> dict:
    """Open a ``subscriptions/listen`` stream and return its acknowledgement. A server that answers the
    request with an error has no listen stream, so nothing is delivered on one: fixture-missing."""
    peer.send_request(peer.envelope("subscriptions/listen", request_id, {"notifications": notifications}))
    bound = peer.default_bound()
    deadline = time.monotonic() + bound
    passed: list[Any] = []
    while True:
        try:
            frame = peer.receive(timeout=max(0.0, deadline - time.monotonic()))
        except ImplementationTimeout:
            raise ImplementationTimeout(
                f"no notifications/subscriptions/acknowledged for {request_id!r} within {bound:g}s; "
                f"the server sent {passed}"
            ) from None
        if isinstance(frame, dict) and frame.get("method") == "notifications/subscriptions/acknowledged":
            return frame
        if isinstance(frame, dict) and frame.get("id") == request_id and "error" in frame:
            pytest.skip(f"fixture-missing: the server refused subscriptions/listen: {frame['error']}")
        passed.append(frame.get("method", frame.get("id")) if isinstance(frame, dict) else frame)


@for_req("meta-subscription-id-on-listen-notifications", "server", transports=BOTH_TRANSPORTS)
def test_notifications_on_a_listen_stream_name_their_subscription(revision: str, transport: str, peer: Peer) -> None:
    """The acknowledgement, and the tool-list change a server declaring ``tools.listChanged`` announces
    on the stream, each name the stream's subscription. Whether the change is announced at all is
    tools-list-changed-notify-subscribers' business, not this row's."""
    announces = bool((server_capabilities(peer).get("tools") or {}).get("listChanged"))
    changer = require_role(peer, "tool-list-changer") if announces else None
    delivered = [listen(peer, "listen-7", {"toolsListChanged": True})]
    if changer is not None:
        called = call_tool(peer, changer.name, changer.args())
        precondition("result" in called, f"{changer.name} (tool-list-changer) failed: {called}")
        with contextlib.suppress(ImplementationTimeout):
            delivered.append(await_notification(peer, "notifications/tools/list_changed"))
    for notification in delivered:
        meta = params_of(notification).get("_meta") or {}
        assert meta.get(SUBSCRIPTION_ID) == "listen-7", f"{notification} does not name subscription 'listen-7'"


# -- W3C trace context --------------------------------------------------------------------------------------

TRACEPARENT = re.compile(r"^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$")
TRACESTATE_MEMBER = re.compile(
    r"^(?:[a-z][_0-9a-z*/-]{0,255}|[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13})"
    r"=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$"
)
BAGGAGE_MEMBER = re.compile(
    r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=\s*(?:[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]|%[0-9A-Fa-f]{2})*"
    r"(?:\s*;\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:\s*=\s*(?:[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]|%[0-9A-Fa-f]{2})*)?)*$"
)
TRACE_KEYS = ("traceparent", "tracestate", "baggage")


def trace_context_problems(frames: list) -> tuple[int, list[str]]:
    """How many trace-context values the frames' ``_meta`` objects hold, and what is wrong with them."""
    seen, problems = 0, []
    for meta in (m for frame in frames for m in meta_objects(frame)):
        for key in (k for k in TRACE_KEYS if k in meta):
            seen += 1
            value = meta[key]
            if not isinstance(value, str):
                problems.append(f"{key} is not a string: {value!r}")
            elif key == "traceparent" and not TRACEPARENT.match(value):
                problems.append(f"traceparent {value!r} is not W3C Trace Context")
            elif key == "tracestate" and not all(
                TRACESTATE_MEMBER.match(m.strip()) for m in value.split(",") if m.strip()
            ):
                problems.append(f"tracestate {value!r} is not W3C Trace Context")
            elif key == "baggage" and not all(BAGGAGE_MEMBER.match(m.strip()) for m in value.split(",") if m.strip()):
                problems.append(f"baggage {value!r} is not W3C Baggage")
    return seen, problems


@for_req("meta-trace-context-format", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_trace_context_is_w3c(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The client runs its scenario inside a sampled span with baggage: whatever it propagates in _meta."""
    seen, problems = trace_context_problems(client_requests(run_peer_client, scripted_peer, "traced"))
    if not seen:
        pytest.skip("fixture-missing: the client propagated no trace context")
    assert not problems, "\n".join(problems)


@for_req("meta-trace-context-format", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_trace_context_is_w3c(revision: str, transport: str, peer: Peer) -> None:
    """The requests carry a trace context of their own: whatever the server writes back or sends on."""
    seen, problems = trace_context_problems(server_frames(peer, traced_requests))
    if not seen:
        pytest.skip("fixture-missing: the server wrote no traceparent, tracestate or baggage")
    assert not problems, "\n".join(problems)


def traced_requests(peer: Peer) -> Iterator[dict]:
    for frame in rich_requests(peer):
        frame.setdefault("params", {}).setdefault("_meta", {}).update(
            {"traceparent": TRACEPARENT_SENT, "tracestate": "mcp-matrix=probe", "baggage": "mcp-matrix=probe"}
        )
        yield frame
