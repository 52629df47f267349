"""Sampling, server side: the ``sampling/createMessage`` requests a server makes, judged on what it
sends and to whom (docs/spec/requirements.md, sampling; client/sampling).

The server is driven through the role ``sampling-tool`` (a tool that asks the client to sample when the
client declared sampling). Before 2026-07-28 the server asks with a request of its own during the call,
which the harness answers; at 2026-07-28 the request is an entry of the call's ``inputRequests``
(basic/patterns/mrtr), and the harness retries with the answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.harness.exchanges import CLIENT_RESULTS, SAMPLED, is_request
from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import Peer
from conformance.harness.roles import Binding, bound, require_role
from conformance.harness.surface import send_unchecked
from conformance.harness.wire import Wire, answers, tool_call
from conformance.matrix.covers import for_req

CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
SAMPLING = "sampling/createMessage"
DEPRECATED_CONTEXT = ("thisServer", "allServers")
# A sampling result that breaks CreateMessageResult: its text content has no text, and no model is named.
MALFORMED_SAMPLE = {"role": "assistant", "content": {"type": "text"}}


def sampling_tool(peer: Peer, capabilities: dict) -> Binding:
    """The tool bound to sampling-tool, once the session is open declaring ``capabilities`` (before
    2026-07-28; at 2026-07-28 each request declares its own)."""
    bound(peer, "sampling-tool")
    peer.open(capabilities)
    return require_role(peer, "sampling-tool")


def modern_call(peer: Peer, tool: Binding, capabilities: dict, label: str, **retry: Any) -> dict:
    frame = tool_call(peer, label, tool.name, tool.args())
    frame["params"] |= retry
    frame["params"]["_meta"][CAPABILITIES_META] = capabilities
    peer.send_request(frame)
    return peer.expect_response(frame["id"])


def sampling_questions(response: dict) -> dict:
    """The sampling/createMessage entries of an input_required result's inputRequests, by key."""
    result = response.get("result") if isinstance(response.get("result"), dict) else {}
    requests = result.get("inputRequests") if result.get("resultType") == "input_required" else None
    return {k: r for k, r in (requests or {}).items() if isinstance(r, dict) and r.get("method") == SAMPLING}


def call_answering(peer: Peer, tool: Binding, sample: dict) -> tuple[dict, list[dict]]:
    """Before 2026-07-28: call ``tool``, answering its sampling requests with ``sample`` (others as the
    harness always does); the call's answer and every request the server sent."""
    wire = Wire(peer)
    call = wire.send(tool_call(peer, "sampling-call", tool.name, tool.args()))
    asked = []
    while True:
        frame = wire.until(lambda f: is_request(f) or answers(f, call.id), f"answer to {tool.name}")
        if not is_request(frame):
            return frame, asked
        asked.append(frame)
        result = sample if frame["method"] == SAMPLING else CLIENT_RESULTS.get(frame["method"], {})
        peer.send({"jsonrpc": "2.0", "id": frame["id"], "result": result})


def sampling_requests(peer: Peer, capabilities: dict) -> list[dict]:
    """Every sampling request the sampling tool makes of a client declaring ``capabilities`` (the request
    objects: a method and params), or fixture-missing when it makes none."""
    tool = sampling_tool(peer, capabilities)
    if peer.stateless:
        response = modern_call(peer, tool, capabilities, "sampling-call")
        found = list(sampling_questions(response).values())
    else:
        _, asked = call_answering(peer, tool, SAMPLED)
        found = [r for r in asked if r.get("method") == SAMPLING]
    if not found:
        pytest.skip(f"fixture-missing: {tool.name} asked for no sampling of a client declaring {capabilities}")
    return found


def params_of(request: dict) -> dict:
    params = request.get("params")
    return params if isinstance(params, dict) else {}


@for_req("sampling-tools-require-capability", "server", transports=BOTH_TRANSPORTS)
def test_no_tools_in_sampling_for_a_client_without_sampling_tools(revision: str, transport: str, peer: Peer) -> None:
    """A client that declared sampling without ``sampling.tools``: no sampling request carries tools or
    toolChoice."""
    problems = [
        {k: params_of(r)[k] for k in ("tools", "toolChoice") if k in params_of(r)}
        for r in sampling_requests(peer, {"sampling": {}})
    ]
    assert not any(problems), f"sampling requests carrying tools to a client without sampling.tools: {problems}"


@for_req("sampling-include-context-avoid", "server", transports=BOTH_TRANSPORTS)
def test_sampling_requests_leave_include_context_unset_or_none(revision: str, transport: str, peer: Peer) -> None:
    """Even from a client that declared ``sampling.context``, the server asks for no context of servers."""
    contexts = [params_of(r).get("includeContext") for r in sampling_requests(peer, {"sampling": {"context": {}}})]
    assert all(c in (None, "none") for c in contexts), f"includeContext values {contexts}"


@for_req("sampling-include-context-requires-capability", "server", transports=BOTH_TRANSPORTS)
def test_no_server_context_asked_of_a_client_without_sampling_context(
    revision: str, transport: str, peer: Peer
) -> None:
    contexts = [params_of(r).get("includeContext") for r in sampling_requests(peer, {"sampling": {}})]
    asked = [c for c in contexts if c in DEPRECATED_CONTEXT]
    assert not asked, f"includeContext {asked} asked of a client that did not declare sampling.context"


@for_req("sampling-message-role-content", "server", transports=BOTH_TRANSPORTS)
def test_every_sampling_message_has_a_role_and_content(revision: str, transport: str, peer: Peer) -> None:
    problems = []
    for request in sampling_requests(peer, {"sampling": {}}):
        messages = params_of(request).get("messages")
        assert isinstance(messages, list) and messages, f"a sampling request without messages: {request}"
        for message in messages:
            role = message.get("role") if isinstance(message, dict) else None
            if role not in ("user", "assistant") or not isinstance(message, dict) or "content" not in message:
                problems.append(json.dumps(message)[:200])
    assert not problems, f"sampling messages without a user/assistant role or without content: {problems}"


@for_req("sampling-validate-content", "server", transports=BOTH_TRANSPORTS)
def test_a_malformed_sample_is_not_taken(revision: str, transport: str, peer: Peer) -> None:
    """The harness answers the sampling request with a result that breaks CreateMessageResult (a text
    block without text, no model): the call does not complete as if it had sampled (an error, or a result
    with isError, or the question asked again)."""
    capabilities = {"sampling": {}}
    tool = sampling_tool(peer, capabilities)
    if peer.stateless:
        first = modern_call(peer, tool, capabilities, "sampling-first")
        keys = sampling_questions(first)
        if not keys:
            pytest.skip(f"fixture-missing: {tool.name} asked for no sampling")
        frame = tool_call(peer, "sampling-malformed", tool.name, tool.args())
        frame["params"]["_meta"][CAPABILITIES_META] = capabilities
        frame["params"]["inputResponses"] = dict.fromkeys(keys, MALFORMED_SAMPLE)
        if isinstance(first["result"].get("requestState"), str):
            frame["params"]["requestState"] = first["result"]["requestState"]
        send_unchecked(peer, frame)  # the harness's own frame breaks the schema on purpose
        answer = peer.expect_response(frame["id"])
    else:
        answer, asked = call_answering(peer, tool, MALFORMED_SAMPLE)
        if not any(r.get("method") == SAMPLING for r in asked):
            pytest.skip(f"fixture-missing: {tool.name} asked for no sampling")
    result = answer.get("result") if isinstance(answer.get("result"), dict) else None
    taken = result is not None and result.get("isError") is not True and result.get("resultType") != "input_required"
    assert not taken, f"a sample without text or model was taken: {answer}"
