"""Multi round-trip requests (2026-07-28), server side: ``InputRequiredResult``, ``inputRequests``,
``requestState`` and the retry (docs/spec/requirements.md, mrtr; basic/patterns/mrtr).

Every test speaks 2026-07-28 and reaches the server's questions through roles: ``sampling-tool``,
``roots-tool``, ``elicitation-tool`` and ``input-required-prompt`` ask the client for input on their first
round; ``request-state-tool`` asks with a ``requestState`` its retry needs; ``multi-round-tool`` asks twice.
The harness declares what the server may ask for in each request's ``_meta`` (sampling, roots,
elicitation), answers every question it is asked (``answer_for``) and retries with a new id. A role the
profile does not bind, or one that completes without asking, leaves the cell ``fixture-missing``.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.http import HttpPeer
from conformance.harness.peer import HarnessError, ImplementationTimeout, Peer, precondition
from conformance.harness.roles import Binding, bound, optional_roles, require_role
from conformance.harness.schema import violations
from conformance.harness.scripted_server import ScriptedServer, listing_tools
from conformance.harness.surface import send_unchecked
from conformance.harness.trace import Trace
from conformance.harness.wire import Wire, answers
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, ConfiguredServer, active_fault

CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
EVERY_CAPABILITY = {"sampling": {}, "roots": {}, "elicitation": {"form": {}}}
CAPABILITY_OF = {"sampling/createMessage": "sampling", "roots/list": "roots", "elicitation/create": "elicitation"}
INPUT_METHODS = frozenset(CAPABILITY_OF)
ASKING_ROLES = ("sampling-tool", "roots-tool", "elicitation-tool", "request-state-tool", "input-required-prompt")
SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "mcp-matrix"}
UNEXPECTED_KEY = "mcp-matrix-unexpected"
# requestState values no server issued: empty, short, long, JSON, a path, markup.
HOSTILE_STATES = ("", "x", "A" * 8192, '{"admin": true}', "../../../../etc/passwd", "<script>1</script>")
METHOD_OF_KIND = {"tool": "tools/call", "prompt": "prompts/get", "resource": "resources/read"}
_ids = itertools.count(1)
MAX_STATE_LIFETIME = 5.0  # seconds: a configured requestState lifetime the expiry test waits out
EXPIRY_MARGIN = 0.3  # seconds past it (clock granularity, the retry's own way)
RunClient = Callable[[str], ClientRun]


# -- the round trip ---------------------------------------------------------------------------------------


def request_frame(
    peer: Peer, binding: Binding, capabilities: dict | None = None, request_id: Any = None, **retry: Any
) -> dict:
    """The request that uses ``binding`` (tools/call, prompts/get or resources/read), declaring
    ``capabilities`` (every client capability the server may ask for, by default) in its ``_meta``, with
    ``retry`` (inputResponses, requestState) added; a fresh id unless one is given."""
    if binding.kind == "resource":
        params: dict[str, Any] = {"uri": binding.name}
    else:
        params = {"name": binding.name, "arguments": binding.args()}
    params |= {key: value for key, value in retry.items() if value is not None}
    params["_meta"] = {CAPABILITIES_META: EVERY_CAPABILITY if capabilities is None else capabilities}
    return peer.envelope(METHOD_OF_KIND[binding.kind], request_id or f"mrtr-{next(_ids)}", params)


def send(peer: Peer, frame: dict) -> dict:
    """Send ``frame`` and return its answer (the schema check is other cells' business here)."""
    peer.send_request(frame)
    return peer.expect_response(frame["id"])


def use(peer: Peer, binding: Binding, capabilities: dict | None = None, **retry: Any) -> dict:
    return send(peer, request_frame(peer, binding, capabilities, **retry))


def result_of(response: dict) -> dict:
    result = response.get("result")
    return result if isinstance(result, dict) else {}


def asks(response: dict) -> bool:
    """The answer is an InputRequiredResult."""
    return result_of(response).get("resultType") == "input_required"


def completed(response: dict) -> bool:
    """The answer is a final, successful result: not an error, not isError, not another question."""
    result = response.get("result")
    return isinstance(result, dict) and not asks(response) and result.get("isError") is not True


def refused(response: dict) -> str:
    return json.dumps(response.get("error") or result_of(response))[:400]


def questions(response: dict) -> dict:
    requests = result_of(response).get("inputRequests")
    return requests if isinstance(requests, dict) else {}


def first_round(peer: Peer, binding: Binding, capabilities: dict | None = None, request_id: Any = None) -> dict:
    """The answer to the first use of ``binding``: an InputRequiredResult, or fixture-missing."""
    response = send(peer, request_frame(peer, binding, capabilities, request_id))
    if not asks(response):
        pytest.skip(f"fixture-missing: {binding.name} ({binding.role}) asked for no input: {refused(response)}")
    return response


def asking(peer: Peer, *roles: str) -> list[Binding]:
    """Those of ``roles`` (ASKING_ROLES by default) the profile binds and the server lists, or fixture-missing."""
    roles = roles or ASKING_ROLES
    found = optional_roles(peer, *roles)
    if not found:
        pytest.skip(f"fixture-missing: the target binds and lists none of {', '.join(roles)}")
    return found


def answer_for(request: Any) -> dict:
    """What the harness, as a client, answers one input request: a sampled text, no roots, or a form filled
    in from its requested schema."""
    method = request.get("method") if isinstance(request, dict) else None
    if method == "sampling/createMessage":
        return dict(SAMPLED)
    if method == "roots/list":
        return {"roots": []}
    params = request.get("params") if isinstance(request, dict) else None
    schema = (params or {}).get("requestedSchema") or {}
    if (params or {}).get("mode") == "url":
        return {"action": "accept"}
    return {"action": "accept", "content": {k: _value_for(s) for k, s in (schema.get("properties") or {}).items()}}


def _value_for(schema: dict) -> Any:
    if schema.get("enum"):
        return schema["enum"][0]
    for option in schema.get("oneOf") or schema.get("anyOf") or ():
        if "const" in option:
            return option["const"]
    kind = schema.get("type")
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return max(schema.get("minimum", 1), 1)
    if kind == "array":
        items = schema.get("items") or {}
        return [_value_for(items)] if items else []
    return schema.get("default", "mcp-matrix")


def answers_to(response: dict) -> dict:
    return {key: answer_for(request) for key, request in questions(response).items()}


def retry(peer: Peer, binding: Binding, response: dict, **changed: Any) -> dict:
    """The retry of ``binding`` after ``response``: the answers to its questions and its requestState,
    each replaced by ``changed`` (a value of None leaves it out)."""
    state = result_of(response).get("requestState")
    parts = {"inputResponses": answers_to(response) or None, "requestState": state} | changed
    return use(peer, binding, **parts)


def state_of(response: dict) -> str:
    state = result_of(response).get("requestState")
    if not isinstance(state, str):
        pytest.skip(f"fixture-missing: the input_required result carries no requestState: {refused(response)}")
    return state


def load_bearing_state(peer: Peer, binding: Binding) -> dict:
    """A first round of ``binding`` whose requestState matters: a retry with the answers but without the
    state does not complete (else the server keeps nothing in it: fixture-missing)."""
    response = first_round(peer, binding)
    state_of(response)
    stateless = retry(peer, binding, response, requestState=None)
    if completed(stateless):
        pytest.skip(f"fixture-missing: {binding.name} completes without its requestState: its state carries nothing")
    return response


def tampered(state: str, how: str = "flip") -> str:
    """``state`` changed the way an attacker would: one character in the middle flipped, the last one cut,
    or one added."""
    if how == "cut":
        return state[:-1]
    if how == "add":
        return state + ("A" if not state.endswith("A") else "B")
    middle = len(state) // 2
    return state[:middle] + ("A" if state[middle : middle + 1] != "A" else "B") + state[middle + 1 :]


def keys_in_order(line: bytes, request_id: Any) -> list[list[str]] | None:
    """The keys of every ``inputRequests`` object in ``line``, as written (repeats kept), if ``line`` answers
    ``request_id``."""
    found: list[list[str]] = []

    def pairs(items: list[tuple[str, Any]]) -> dict:
        found.append([key for key, _ in items])
        return dict(items)

    try:
        frame = json.loads(line, object_pairs_hook=pairs)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not (isinstance(frame, dict) and answers(frame, request_id)):
        return None
    requests = result_of(frame).get("inputRequests")
    return [keys for keys in found if isinstance(requests, dict) and sorted(set(keys)) == sorted(requests)]


# -- what a server answers with an InputRequiredResult ----------------------------------------------------


@for_req("mrtr-server-requests-via-mrtr", "server", transports=BOTH_TRANSPORTS)
def test_a_server_asks_the_client_only_through_input_required_results(
    revision: str, transport: str, peer: Peer
) -> None:
    """Each tool that needs sampling, roots or elicitation, called by a client that declared all three: the
    server sends no request of its own; what it needs comes as inputRequests of an input_required result."""
    tools = asking(peer, "sampling-tool", "roots-tool", "elicitation-tool")
    wire = Wire(peer)
    asked_through_results = []
    for tool in tools:
        call = wire.send(request_frame(peer, tool))
        frame = wire.until(lambda f, call=call: ("method" in f and "id" in f) or answers(f, call.id), "answer")
        assert "method" not in frame, f"calling {tool.name}, the server sent a request of its own: {frame}"
        methods = {r.get("method") for r in questions(frame).values() if isinstance(r, dict)}
        asked_through_results.extend(sorted(methods & INPUT_METHODS))
    if not asked_through_results:
        pytest.skip(f"fixture-missing: none of {[t.name for t in tools]} asked the client for anything")


@for_req("mrtr-input-required-allowed-methods", "server", transports=BOTH_TRANSPORTS)
def test_a_server_may_ask_for_input_on_calls_gets_and_reads(revision: str, transport: str, peer: Peer) -> None:
    """The permission, used: a tools/call, prompts/get or resources/read answered with input_required."""
    answered = {binding.name: use(peer, binding) for binding in asking(peer)}
    used = [name for name, response in answered.items() if asks(response)]
    assert used, f"no call, get or read was answered with input_required: {answered}"


@for_req("mrtr-input-required-other-methods-forbidden", "server", transports=BOTH_TRANSPORTS)
def test_no_other_request_is_answered_with_input_required(revision: str, transport: str, peer: Peer) -> None:
    """Discovery and every list, asked by a client that declared everything the server may ask for, are
    answered with something other than input_required."""
    meta = {"_meta": {CAPABILITIES_META: EVERY_CAPABILITY}}
    methods = ("server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list")
    answered = {method: peer.rpc(method, dict(meta), check=False) for method in methods}
    asking_ones = {method: result_of(r) for method, r in answered.items() if asks(r)}
    assert not asking_ones, f"answered with input_required: {asking_ones}"


@for_req("mrtr-input-requests-optional", "server", transports=BOTH_TRANSPORTS)
def test_an_input_required_result_may_carry_input_requests(revision: str, transport: str, peer: Peer) -> None:
    """The permission, used: an input_required result whose inputRequests is a map of questions."""
    found = [result_of(r) for r in (use(peer, b) for b in asking(peer)) if asks(r)]
    if not found:
        pytest.skip("fixture-missing: no role was answered with input_required")
    with_requests = [r for r in found if isinstance(r.get("inputRequests"), dict) and r["inputRequests"]]
    assert with_requests, f"no input_required result carried inputRequests: {found}"


@for_req("mrtr-input-requests-unique-keys", "server", transports=BOTH_TRANSPORTS)
def test_input_request_keys_are_not_repeated(revision: str, transport: str, peer: Peer) -> None:
    """The keys of each inputRequests map as the server wrote them (a repeated key is invisible once the
    JSON is parsed into a map, so the lines themselves are read)."""
    checked = 0
    for n, binding in enumerate(asking(peer), start=1):
        request_id = f"mrtr-keys-{n}"
        response = send(peer, request_frame(peer, binding, request_id=request_id))
        if not asks(response):
            continue
        for line in peer.received_lines:
            for keys in keys_in_order(line, request_id) or ():
                checked += 1
                repeated = sorted({key for key in keys if keys.count(key) > 1})
                assert not repeated, f"{binding.name}: inputRequests repeats the key(s) {repeated}: {line[:400]!r}"
    if not checked:
        pytest.skip("fixture-missing: no role was answered with inputRequests")


@for_req("mrtr-input-requests-allowed-types", "server", transports=BOTH_TRANSPORTS)
def test_input_requests_are_sampling_elicitation_or_roots_requests(revision: str, transport: str, peer: Peer) -> None:
    found = {b.name: questions(r) for b, r in ((b, use(peer, b)) for b in asking(peer)) if asks(r)}
    if not any(found.values()):
        pytest.skip("fixture-missing: no role was answered with inputRequests")
    problems = []
    for name, requests in found.items():
        for key, request in requests.items():
            method = request.get("method") if isinstance(request, dict) else None
            broken = violations(revision, "InputRequest", request)
            if method not in INPUT_METHODS or broken:
                problems.append(f"{name}: inputRequests[{key!r}] is {json.dumps(request)[:200]} {broken[:2]}")
    assert not problems, "\n".join(problems)


@for_req("mrtr-request-state-optional", "server", transports=BOTH_TRANSPORTS)
def test_an_input_required_result_may_carry_request_state(revision: str, transport: str, peer: Peer) -> None:
    """The permission, used: an input_required result with a requestState string."""
    found = [result_of(r) for r in (use(peer, b) for b in asking(peer)) if asks(r)]
    if not found:
        pytest.skip("fixture-missing: no role was answered with input_required")
    with_state = [r for r in found if isinstance(r.get("requestState"), str)]
    assert with_state, f"no input_required result carried a requestState: {found}"


@for_req("mrtr-input-required-nonempty", "server", transports=BOTH_TRANSPORTS)
def test_every_input_required_result_asks_or_keeps_state(revision: str, transport: str, peer: Peer) -> None:
    found = {b.name: result_of(r) for b, r in ((b, use(peer, b)) for b in asking(peer)) if asks(r)}
    if not found:
        pytest.skip("fixture-missing: no role was answered with input_required")
    empty = {name: r for name, r in found.items() if "inputRequests" not in r and "requestState" not in r}
    assert not empty, f"input_required results with neither inputRequests nor requestState: {empty}"


DECLARATIONS = ({}, {"roots": {}}, {"sampling": {}}, {"elicitation": {"form": {}}})


@for_req("mrtr-input-requests-declared-capabilities", "server", transports=BOTH_TRANSPORTS)
def test_a_server_asks_only_for_what_the_client_declared(revision: str, transport: str, peer: Peer) -> None:
    """Each role that asks for input when the client declares everything, called again declaring nothing,
    then one capability at a time: no inputRequests of a feature the request did not declare."""
    gated = [b for b in asking(peer) if questions(use(peer, b))]
    if not gated:
        pytest.skip("fixture-missing: no role asked for input when the client declared everything")
    problems = []
    for declared in DECLARATIONS:
        for binding in gated:
            for key, request in questions(use(peer, binding, declared)).items():
                needed = CAPABILITY_OF.get(request.get("method") if isinstance(request, dict) else None)
                if needed and needed not in declared:
                    problems.append(f"{binding.name}, declaring {sorted(declared)}: asked {key!r} {request}")
    assert not problems, "\n".join(problems)


@for_req("mrtr-server-no-assumed-retry", "server", transports=BOTH_TRANSPORTS)
def test_a_server_does_not_wait_for_a_retry_that_never_comes(revision: str, transport: str, peer: Peer) -> None:
    """Three first rounds of the same role, none answered nor retried: the fourth is answered with a result
    (the server holds nothing back for the abandoned ones), and so is the probe."""
    binding = asking(peer)[0]
    first = first_round(peer, binding)
    for _ in range(2):
        use(peer, binding)
    try:
        again = use(peer, binding)
    except ImplementationTimeout as exc:
        raise AssertionError(f"after three abandoned rounds, {binding.name} was not answered: {exc}") from None
    assert "error" not in again and "result" in again, (
        f"after three abandoned rounds, {binding.name} was answered {refused(again)}, first {refused(first)}"
    )
    probe = peer.rpc("server/discover", check=False)
    assert "result" in probe, f"after three abandoned rounds, server/discover was answered {probe}"


@for_req("mrtr-server-repeat-input-required", "server", transports=BOTH_TRANSPORTS)
def test_a_server_may_ask_again_on_the_retry(revision: str, transport: str, peer: Peer) -> None:
    """The permission, used: the retry of the multi-round role, with every answer, is another input_required."""
    bound(peer, "multi-round-tool")
    binding = require_role(peer, "multi-round-tool")
    response = first_round(peer, binding)
    again = retry(peer, binding, response)
    assert asks(again), f"the retry with every answer was answered {refused(again)}"


# -- requestState ------------------------------------------------------------------------------------------


def state_role(peer: Peer) -> Binding:
    bound(peer, "request-state-tool")
    return require_role(peer, "request-state-tool")


@for_req("mrtr-request-state-untrusted", "server", transports=BOTH_TRANSPORTS)
def test_a_crafted_request_state_is_handled_as_hostile_input(revision: str, transport: str, peer: Peer) -> None:
    """Retries carrying requestState values the server never issued (empty, huge, JSON, a path, markup) are
    each answered, none with an internal error (a sign the value was used before it was checked), and the
    server goes on serving."""
    binding = state_role(peer)
    response = first_round(peer, binding)
    for state in HOSTILE_STATES:
        try:
            answer = retry(peer, binding, response, requestState=state)
        except ImplementationTimeout as exc:
            raise AssertionError(f"a retry with requestState {state[:40]!r} was not answered: {exc}") from None
        code = (answer.get("error") or {}).get("code")
        assert code != -32603, f"requestState {state[:40]!r} made the server fail internally: {answer}"
    probe = peer.rpc("server/discover", check=False)
    assert "result" in probe, f"after the crafted requestStates, server/discover was answered {probe}"


@for_req("mrtr-request-state-integrity", "server", transports=BOTH_TRANSPORTS)
def test_a_tampered_request_state_does_not_complete_the_request(revision: str, transport: str, peer: Peer) -> None:
    """A requestState the retry needs (without it the retry does not complete), altered three ways (one
    character flipped, the last cut, one added): no altered state completes the request; the state as
    issued does (the alterations, not the answers, are what is refused)."""
    binding = state_role(peer)
    response = load_bearing_state(peer, binding)
    state = state_of(response)
    for how in ("flip", "cut", "add"):
        answer = retry(peer, binding, response, requestState=tampered(state, how))
        assert not completed(answer), f"a requestState with {how} tampering completed the request: {answer}"
    genuine = retry(peer, binding, response)
    precondition(completed(genuine), f"the retry with the state as issued did not complete either: {genuine}")


@for_req("mrtr-request-state-reject-unverified", "server", transports=BOTH_TRANSPORTS)
def test_a_request_state_that_fails_verification_is_refused(revision: str, transport: str, peer: Peer) -> None:
    """A requestState one character off the one issued is refused (an error, a failed result, or the
    question asked anew), never acted on; the state as issued completes the request."""
    binding = state_role(peer)
    response = load_bearing_state(peer, binding)
    answer = retry(peer, binding, response, requestState=tampered(state_of(response)))
    assert not completed(answer), f"a requestState that cannot verify completed the request: {answer}"
    genuine = retry(peer, binding, response)
    precondition(completed(genuine), f"the retry with the state as issued did not complete either: {genuine}")


@for_req("mrtr-request-state-bind-request", "server", transports=BOTH_TRANSPORTS)
def test_a_request_state_is_refused_on_another_request(revision: str, transport: str, peer: Peer) -> None:
    """The requestState of a sampling call, presented with its answers on the same tool called with other
    arguments, does not complete that other request; on its own request it does."""
    bound(peer, "sampling-tool")
    binding = require_role(peer, "sampling-tool")
    response = first_round(peer, binding)
    state = state_of(response)
    other = Binding(binding.role, binding.kind, binding.name, {**binding.arguments, **other_arguments(binding)})
    answer = use(peer, other, inputResponses=answers_to(response), requestState=state)
    assert not completed(answer), f"the state of {binding.args()} completed the call with {other.args()}: {answer}"
    genuine = retry(peer, binding, response)
    precondition(completed(genuine), f"on its own request the state did not complete either: {genuine}")


@for_req("mrtr-request-state-single-use", "server", transports=BOTH_TRANSPORTS)
def test_a_single_use_request_state_is_redeemed_once(revision: str, transport: str, peer: Peer) -> None:
    """The role's requestState may be redeemed once: its retry completes, and the same retry sent again
    (the same answers, the same state, a new id) does not."""
    bound(peer, "single-use-state-tool")
    binding = require_role(peer, "single-use-state-tool")
    response = first_round(peer, binding)
    state_of(response)
    redeemed = retry(peer, binding, response)
    precondition(completed(redeemed), f"the first redemption did not complete: {redeemed}")
    again = retry(peer, binding, response)
    assert not completed(again), f"the same requestState was redeemed a second time: {again}"


# -- requestState replay protection: the principal and the lifetime (the server configured for them) ----------


class AuthorizedPeer(HttpPeer):
    """A client of the server configured with bearer tokens, sending its own on every request."""

    token = ""

    def headers_for(self, frame: Any) -> dict[str, str]:
        return super().headers_for(frame) | ({"Authorization": f"Bearer {self.token}"} if self.token else {})


def authorized(url: str, token: str, trace: Path, request: pytest.FixtureRequest, fault: bool = True) -> AuthorizedPeer:
    """A 2026-07-28 client of ``url`` authenticating with ``token``; under the test's fault when ``fault``."""
    client = AuthorizedPeer(
        url, Trace(trace, "streamable-http"), "2026-07-28", fault=active_fault(request) if fault else None
    )
    client.token = token
    client.roles = request.getfixturevalue("target").roles
    return client


@for_req("mrtr-request-state-bind-principal", "server")
def test_a_request_state_presented_by_another_principal_is_refused(
    revision: str, configured_server: ConfiguredServer, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The server configured to accept two bearer tokens, two principals (its profile's ``two-bearer-tokens``):
    the requestState one principal was issued, retried with its answers by the other, does not complete the
    request; retried by its own principal it does. The fault damages only what the other principal is told."""
    configured = configured_server("two-bearer-tokens")
    owner = authorized(configured.url, configured.values["token"], tmp_path / "owner.jsonl", request, fault=False)
    other = authorized(configured.url, configured.values["other-token"], tmp_path / "other.jsonl", request)
    with owner, other:
        binding = state_role(owner)
        response = load_bearing_state(owner, binding)
        answer = retry(other, binding, response)
        assert not completed(answer), f"another principal completed the request with the owner's requestState: {answer}"
        genuine = retry(owner, binding, response)
        precondition(completed(genuine), f"retried by its own principal the state did not complete either: {genuine}")


@for_req("mrtr-request-state-expiry", "server")
def test_a_request_state_presented_after_its_lifetime_is_refused(
    revision: str, configured_server: ConfiguredServer, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The server configured with a short requestState lifetime (its profile's ``request-state-ttl``): the
    state retried at once completes the request; the same retry once that lifetime has passed does not.
    The lifetime itself is the cue (nothing on the wire ends it), so the test waits it out, plus a margin."""
    configured = configured_server("request-state-ttl")
    lifetime = float(configured.values["seconds"])
    precondition(0 < lifetime <= MAX_STATE_LIFETIME, f"the configured lifetime {lifetime} s is not a short one")
    with authorized(configured.url, "", tmp_path / "expiry.jsonl", request) as client:
        binding = state_role(client)
        response = load_bearing_state(client, binding)
        fresh = retry(client, binding, response)
        precondition(completed(fresh), f"retried at once, the state did not complete the request: {fresh}")
        time.sleep(lifetime + EXPIRY_MARGIN)
        late = retry(client, binding, response)
    assert not completed(late), f"{lifetime:g} s after it was issued (its lifetime), the state still completed: {late}"


def other_arguments(binding: Binding) -> dict:
    """The binding's string arguments, each changed (another request to the same tool)."""
    changed = {k: f"{v} (another request)" for k, v in binding.arguments.items() if isinstance(v, str)}
    if not changed:
        pytest.skip(f"fixture-missing: {binding.name} is called with no string argument to change")
    return changed


# -- the retry's inputResponses ----------------------------------------------------------------------------


def wrong_kind(request: Any) -> dict:
    """An answer of another kind than ``request`` asks for (an elicitation answer to a sampling question, ...)."""
    method = request.get("method") if isinstance(request, dict) else None
    return {"roots": []} if method != "roots/list" else {"action": "decline"}


@for_req("mrtr-server-validate-input-responses", "server", transports=BOTH_TRANSPORTS)
def test_answers_of_the_wrong_kind_are_not_taken(revision: str, transport: str, peer: Peer) -> None:
    """A retry whose every answer is of another kind than its question asked (a roots list for a sampling
    question, ...) is not completed as if answered: an error, a failed result or the question again."""
    binding = asking(peer)[0]
    response = first_round(peer, binding)
    if not questions(response):
        pytest.skip(f"fixture-missing: {binding.name} asked no question")
    wrong = {key: wrong_kind(request) for key, request in questions(response).items()}
    answer = retry(peer, binding, response, inputResponses=wrong)
    assert not completed(answer), f"answers of the wrong kind {wrong} completed the request: {answer}"


@for_req("mrtr-protocol-errors-jsonrpc", "server", transports=BOTH_TRANSPORTS)
def test_a_malformed_retry_is_a_json_rpc_error(revision: str, transport: str, peer: Peer) -> None:
    """A retry whose inputResponses is a string, not a map (a schema violation: the harness sends it as raw
    bytes), is answered with a JSON-RPC error carrying an invalid-params or invalid-request code and a message."""
    binding = asking(peer)[0]
    response = first_round(peer, binding)
    frame = request_frame(peer, binding, requestState=result_of(response).get("requestState"))
    frame["params"]["inputResponses"] = "not a map of answers"
    send_unchecked(peer, frame)
    try:
        answer = peer.expect_response(frame["id"])
    except ImplementationTimeout as exc:
        refusal = peer.refusal_of(frame["id"])
        assert refusal is None, f"a retry with a malformed inputResponses got no JSON-RPC error: {refusal}"
        raise AssertionError(f"a retry with a malformed inputResponses was not answered: {exc}") from None
    error = answer.get("error")
    assert isinstance(error, dict), f"a retry with a malformed inputResponses was answered {answer}"
    assert error.get("code") in (-32602, -32600), f"the error's code is {error.get('code')}, not -32602/-32600"
    assert isinstance(error.get("message"), str) and error["message"], f"the error has no message: {error}"


@for_req("mrtr-ignore-unexpected-input-responses", "server", transports=BOTH_TRANSPORTS)
def test_an_unexpected_answer_is_ignored(revision: str, transport: str, peer: Peer) -> None:
    """A retry with every answer asked for plus one under a key the server never used completes, as the
    same retry without it does."""
    binding = asking(peer)[0]
    response = first_round(peer, binding)
    extra = answers_to(response) | {UNEXPECTED_KEY: {"roots": []}}
    answer = retry(peer, binding, response, inputResponses=extra)
    if completed(answer):
        return
    again = first_round(peer, binding)
    plain = retry(peer, binding, again)
    precondition(completed(plain), f"the retry without the unexpected answer does not complete either: {plain}")
    raise AssertionError(f"an unexpected answer under {UNEXPECTED_KEY!r} failed the request: {answer}")


@for_req("mrtr-rerequest-missing-input", "server", transports=BOTH_TRANSPORTS)
def test_missing_answers_are_asked_for_again(revision: str, transport: str, peer: Peer) -> None:
    """A retry with the requestState but none of the answers is met with the questions again (an
    input_required result with inputRequests), not with an error."""
    binding = asking(peer)[0]
    response = first_round(peer, binding)
    if not questions(response):
        pytest.skip(f"fixture-missing: {binding.name} asked no question")
    answer = retry(peer, binding, response, inputResponses=None)
    assert asks(answer) and questions(answer), f"a retry without the answers was answered {refused(answer)}"


# -- the client: answering input_required results (2026-07-28) ---------------------------------------------
#
# The scripted server lists the ``ask`` tool (and ``echo``) and answers the calls of ``ask`` with the rounds
# a test scripts (each an InputRequiredResult), then with a final result; the client driver's scenarios
# (``mrtr_tool_call``, ``mrtr_parallel_request``) call it with callbacks that answer sampling, roots and
# elicitation. What the client sent (its calls of ``ask``, in order) is the evidence.

ASK_TOOL = {"name": "ask", "description": "Asks the client for input first.", "inputSchema": {"type": "object"}}
ECHO_TOOL = {"name": "echo", "description": "Echoes its text.", "inputSchema": {"type": "object"}}
ELICIT_NAME = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Whom should the tool greet?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    },
}
SAMPLE_GREETING = {
    "method": "sampling/createMessage",
    "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hello"}}], "maxTokens": 16},
}
LIST_ROOTS = {"method": "roots/list"}
# Opaque states as a server may mint them: base64 with its padding, quotes, a backslash, non-ASCII text.
STATES = ('mcp-matrix/1 eyJyb3VuZCI6MX0= +/ "q" \\ café', 'mcp-matrix/2 ☕ eyJyb3VuZCI6Mn0=\t"')
RESULT_OF_INPUT = {
    "elicitation/create": "ElicitResult",
    "sampling/createMessage": "CreateMessageResult",
    "roots/list": "ListRootsResult",
}
FINAL = {"content": [{"type": "text", "text": "Hello, mcp-matrix"}], "isError": False, "resultType": "complete"}
# A call the client sends beside the round trip, carrying the round trip's state and answers (a fault).
STATE_ON_ANOTHER_CALL = {
    "jsonrpc": "2.0",
    "id": "mcp-matrix-parallel",
    "method": "tools/call",
    "params": {
        "name": "echo",
        "arguments": {"text": "in parallel"},
        "requestState": STATES[0],
        "inputResponses": {"name": {"action": "accept", "content": {"name": "mcp-matrix"}}},
    },
}


def input_required(requests: dict | None = None, state: str | None = None) -> dict:
    result: dict[str, Any] = {"resultType": "input_required"}
    if requests:
        result["inputRequests"] = requests
    if state is not None:
        result["requestState"] = state
    return result


def script_rounds(server: ScriptedServer, *rounds: dict) -> None:
    """Calls of ``ask`` answered with ``rounds`` in turn, then with FINAL; ``echo`` answered as by default."""
    calls = itertools.count()
    echo = server.answers["tools/call"]

    def answer(frame: dict) -> dict:
        if (frame.get("params") or {}).get("name") != ASK_TOOL["name"]:
            return echo(frame)
        number = next(calls)
        return dict(rounds[number]) if number < len(rounds) else dict(FINAL)

    server.answers["tools/call"] = answer
    server.answers["tools/list"] = listing_tools(server.answers["tools/list"], [ASK_TOOL, ECHO_TOOL])


def ask_calls(server: ScriptedServer) -> list[dict]:
    """The client's calls of ``ask``, in the order they arrived."""
    return [
        f
        for f in server.requests()
        if f.get("method") == "tools/call" and isinstance(f.get("params"), dict) and f["params"].get("name") == "ask"
    ]


def retries(server: ScriptedServer, rounds: tuple[dict, ...]) -> list[tuple[dict, dict]]:
    """Each retry the client sent, with the round (InputRequiredResult) it follows; none: the harness's."""
    calls = ask_calls(server)
    if len(calls) < 2:
        raise HarnessError(f"the client never retried its call of ask: it sent {server.requests()}")
    return list(zip(rounds, calls[1:], strict=False))


MULTI_ROUND = (
    input_required({"name": ELICIT_NAME}, STATES[0]),
    input_required({"greeting": SAMPLE_GREETING, "roots": LIST_ROOTS}, STATES[1]),
)


def check_inputs_constructed(server: ScriptedServer, rounds: tuple[dict, ...]) -> None:
    for asked, call in retries(server, rounds):
        responses = call["params"].get("inputResponses")
        questions_ = asked.get("inputRequests") or {}
        assert isinstance(responses, dict), (
            f"a retry after the questions {sorted(questions_)} carries no answers: {call}"
        )
        missing = sorted(set(questions_) - set(responses))
        assert not missing, f"the retry answers {sorted(responses)}, not the questions {missing}: {call}"
        for key, request in questions_.items():
            wrong = violations(server.revision, RESULT_OF_INPUT[request["method"]], responses[key])
            assert not wrong, f"the answer to {request['method']} ({key!r}) is no result of it: {wrong}"


@for_req("mrtr-client-fulfil-input-requests", "client")
def test_the_client_answers_every_question_before_it_retries(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Two rounds: an elicitation, then a sampling request and a roots request together. Each retry carries
    inputResponses with an answer to every question of the round before it, each a result of its kind (an
    elicitation answered by an ElicitResult, whatever its action, ...)."""
    script_rounds(scripted_server, *MULTI_ROUND)
    run_client("mrtr_tool_call").judge(lambda: check_inputs_constructed(scripted_server, MULTI_ROUND))


def check_states_echoed(server: ScriptedServer, rounds: tuple[dict, ...]) -> None:
    for asked, call in retries(server, rounds):
        sent = call["params"].get("requestState")
        assert sent == asked["requestState"], f"the retry carries requestState {sent!r}, not {asked['requestState']!r}"


@for_req("mrtr-client-echo-request-state", "client")
def test_the_client_sends_each_request_state_back_exactly(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Two rounds, each with a requestState of its own (padding, quotes, a backslash, a tab, non-ASCII text):
    each retry carries the value of the round before it, unchanged."""
    script_rounds(scripted_server, *MULTI_ROUND)
    run_client("mrtr_tool_call").judge(lambda: check_states_echoed(scripted_server, MULTI_ROUND))


# requestStates in the formats a server may choose, each with contents a client that reads them could draw a
# conclusion from: base64 JSON and an unsigned JWT that both read as long expired, JSON text saying it is done
# (spaced and ordered as no serializer would redo it), bytes serialized one a character, and nothing at all.
OPAQUE_STATES = (
    "eyJleHAiOjk0NjY4NDgwMCwicm91bmQiOjJ9",
    "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJleHAiOjk0NjY4NDgwMCwic3ViIjoibWNwLW1hdHJpeCJ9.",
    '{ "round" :4,"exp":946684800 ,"done":true }',
    "\x00\x01\x1f\x7f\x80\xff",
    "",
)
# A plain state first: a client that never retries even that leaves nothing to judge.
OPAQUE_ROUNDS = tuple(input_required({"name": ELICIT_NAME}, state) for state in ("mcp-matrix/plain", *OPAQUE_STATES))


def check_states_opaque(run: ClientRun, server: ScriptedServer) -> None:
    """After each round the client retried, its retry carrying that round's requestState unchanged (as a JSON
    string: how the wire escapes it is the serializer's): no round's state read, repaired or judged."""
    retried = ask_calls(server)[1:]
    if not retried:
        raise HarnessError(f"the client never retried its call of ask: it sent {server.requests()}")
    for asked, retry_ in zip(OPAQUE_ROUNDS, retried, strict=False):
        state, sent = asked["requestState"], retry_["params"].get("requestState")
        assert sent == state, f"the retry after the round with requestState {state!r} carries {sent!r}"
    if len(retried) < len(OPAQUE_ROUNDS):
        state = OPAQUE_ROUNDS[len(retried)]["requestState"]
        raise AssertionError(f"the client gave up after the round with requestState {state!r}: {run.report('failed')}")


@for_req("mrtr-client-request-state-opaque", "client")
def test_the_client_treats_request_state_as_opaque(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Six rounds, each asking the same elicitation, with requestStates a client that inspected them would
    read differently (OPAQUE_STATES, after a plain one): the client retries after every one, carrying the
    state as it came. What a client does with a state inside (logs it, say) shows on no wire."""
    script_rounds(scripted_server, *OPAQUE_ROUNDS)
    run = run_client("mrtr_tool_call")
    run.judge(lambda: check_states_opaque(run, scripted_server))


def check_no_state_invented(server: ScriptedServer, rounds: tuple[dict, ...]) -> None:
    for _, call in retries(server, rounds):
        assert "requestState" not in call["params"], f"a retry after a round without requestState has one: {call}"


@for_req("mrtr-client-no-invented-request-state", "client")
def test_the_client_invents_no_request_state(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """One round that asks an elicitation and carries no requestState: the retry carries none either."""
    rounds = (input_required({"name": ELICIT_NAME}),)
    script_rounds(scripted_server, *rounds)
    run_client("mrtr_tool_call").judge(lambda: check_no_state_invented(scripted_server, rounds))


def check_new_ids(server: ScriptedServer, rounds: tuple[dict, ...]) -> None:
    first = ask_calls(server)[0]
    for _, call in retries(server, rounds):
        assert call["id"] != first["id"], f"a retry reuses the JSON-RPC id {first['id']!r} of the initial request"


@for_req("mrtr-retry-new-jsonrpc-id", "client")
def test_each_retry_has_an_id_of_its_own(revision: str, run_client: RunClient, scripted_server: ScriptedServer) -> None:
    """Two rounds: neither retry carries the JSON-RPC id of the initial call."""
    script_rounds(scripted_server, *MULTI_ROUND)
    run_client("mrtr_tool_call").judge(lambda: check_new_ids(scripted_server, MULTI_ROUND))


@for_req("mrtr-client-immediate-retry", "client")
def test_the_client_may_retry_a_state_only_round_at_once(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """A round with a requestState and no questions: the client may retry at once, nothing to gather (a
    client that gives up on it instead does not take the option: not-exercised)."""
    script_rounds(scripted_server, input_required(state=STATES[0]))
    run = run_client("mrtr_tool_call")
    calls = ask_calls(scripted_server)
    if not calls:
        raise HarnessError(f"the client never called ask:\n{run.output[-1500:]}")
    assert len(calls) >= 2, f"the client did not retry a round that asked nothing: {run.report('failed')}"


def check_scoped_to_the_retry(server: ScriptedServer, rounds: tuple[dict, ...]) -> None:
    calls, frames = ask_calls(server), server.requests()
    others = [f for f in frames if f.get("method") != "server/discover" and not any(f is c for c in calls)]
    beside = [f for f in others if f.get("method") == "tools/call"]
    for frame in others:
        params = frame.get("params") if isinstance(frame.get("params"), dict) else {}
        carried = {k for k in ("requestState", "inputResponses") if k in params}
        text = json.dumps(params, ensure_ascii=False)
        assert not carried and STATES[0] not in text, (
            f"{frame.get('method')} {frame.get('id')!r}, beside ask's round trip, carries {sorted(carried)}: {frame}"
        )
    position = {id(f): n for n, f in enumerate(frames)}
    opened = position[id(calls[0])] if calls else len(frames)
    closed = position[id(calls[1])] if len(calls) > 1 else len(frames)
    if not any(opened < position[id(f)] < closed for f in beside):
        raise HarnessError(f"no call of echo came while the round trip of ask was open: {frames}")


@for_req("mrtr-input-scoped-to-retry", "client")
def test_a_round_trips_state_and_answers_go_only_on_its_retry(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """While the client answers the elicitation of ask's first round (its requestState in hand), it calls
    echo: that call, and every other request but ask's retry, carries neither the requestState nor
    inputResponses."""
    rounds = (input_required({"name": ELICIT_NAME}, STATES[0]),)
    script_rounds(scripted_server, *rounds)
    run_client("mrtr_parallel_request").judge(lambda: check_scoped_to_the_retry(scripted_server, rounds))
