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
from jsonschema import Draft202012Validator, validators

from conformance.harness.exchanges import CLIENT_RESULTS, SAMPLED, is_request
from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import ImplementationTimeout, Peer
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
        try:
            answer = peer.expect_response(frame["id"])
        except ImplementationTimeout:
            if peer.refusal_of(frame["id"]) is None:
                raise
            return  # refused at the HTTP level (a 4xx without an answer): not taken either
    else:
        answer, asked = call_answering(peer, tool, MALFORMED_SAMPLE)
        if not any(r.get("method") == SAMPLING for r in asked):
            pytest.skip(f"fixture-missing: {tool.name} asked for no sampling")
    result = answer.get("result") if isinstance(answer.get("result"), dict) else None
    taken = result is not None and result.get("isError") is not True and result.get("resultType") != "input_required"
    assert not taken, f"a sample without text or model was taken: {answer}"


# -- a sampling tool loop (2025-11-25 on): the server offers tools, the harness's "model" asks for them ----------

TOOLS_CAPABILITY = {"sampling": {"tools": {}}}
MAX_ROUNDS = 10  # sampling requests one tool call may make before its loop counts as unbounded
USE_META_KEY = "com.example.mcp-matrix/use"


def model_turn(request: dict, turn: int) -> dict:
    """The harness's "model": it asks for the first tool a request offers (unless toolChoice forbids it),
    its tool_use carrying a _meta of its own; else it answers with text."""
    params = params_of(request)
    tools = [t for t in params.get("tools") or [] if isinstance(t, dict) and t.get("name")]
    if not tools or (params.get("toolChoice") or {}).get("mode") == "none":
        return dict(SAMPLED)
    tool = tools[0]
    schema = tool.get("inputSchema") or {}
    arguments = {name: "Paris" for name in schema.get("required") or ()}
    use = {
        "type": "tool_use",
        "id": f"mcp-matrix-use-{turn}",
        "name": tool["name"],
        "input": arguments,
        "_meta": {USE_META_KEY: f"turn {turn}"},
    }
    return {"role": "assistant", "content": [use], "model": "mcp-matrix", "stopReason": "toolUse"}


def tool_loop(peer: Peer) -> tuple[list[dict], dict[str, dict]]:
    """The sampling requests of the tool-loop role, in order, as the harness's model asks for a tool in every
    turn (at most MAX_ROUNDS of them are answered), and the tool_use blocks it gave, by id."""
    bound(peer, "sampling-tool-loop-tool")
    peer.open(TOOLS_CAPABILITY)
    tool = require_role(peer, "sampling-tool-loop-tool")
    requests: list[dict] = []
    given: dict[str, dict] = {}

    def answer(request: dict) -> dict:
        requests.append(request)
        turn = model_turn(request, len(requests))
        given.update({b["id"]: b.get("_meta") for b in turn["content"] if isinstance(turn["content"], list)})
        return turn

    if peer.stateless:
        response = modern_call(peer, tool, TOOLS_CAPABILITY, "loop-0")
        while sampling_questions(response) and len(requests) < MAX_ROUNDS:
            answers_now = {key: answer(request) for key, request in sampling_questions(response).items()}
            state = response["result"].get("requestState")
            retry = {"inputResponses": answers_now} | ({"requestState": state} if isinstance(state, str) else {})
            response = modern_call(peer, tool, TOOLS_CAPABILITY, f"loop-{len(requests)}", **retry)
    else:
        wire = Wire(peer)
        call = wire.send(tool_call(peer, "loop", tool.name, tool.args()))
        while len(requests) < MAX_ROUNDS:
            frame = wire.until(lambda f: is_request(f) or answers(f, call.id), f"answer to {tool.name}")
            if not is_request(frame):
                break
            result = CLIENT_RESULTS.get(frame["method"], {})
            if frame["method"] == SAMPLING:
                result = answer(frame)
            peer.send({"jsonrpc": "2.0", "id": frame["id"], "result": result})
    if len(requests) < 2:
        pytest.skip(f"fixture-missing: {tool.name} sent {len(requests)} sampling request(s), no tool result")
    return requests, given


def blocks(message: Any) -> list[dict]:
    """The content blocks of a sampling message (its content: one block or a list)."""
    content = message.get("content") if isinstance(message, dict) else None
    found = content if isinstance(content, list) else [content]
    return [block for block in found if isinstance(block, dict)]


def messages_of(request: dict) -> list[dict]:
    messages = params_of(request).get("messages")
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


@for_req("sampling-tool-result-message-exclusive", "server", transports=BOTH_TRANSPORTS)
def test_a_message_with_tool_results_holds_nothing_else(revision: str, transport: str, peer: Peer) -> None:
    requests, _ = tool_loop(peer)
    mixed = [
        message
        for request in requests
        for message in messages_of(request)
        if any(b.get("type") == "tool_result" for b in blocks(message))
        and any(b.get("type") != "tool_result" for b in blocks(message))
    ]
    assert not mixed, f"messages mixing tool_result with other content: {mixed}"


@for_req("sampling-tool-use-result-balance", "server", transports=BOTH_TRANSPORTS)
def test_every_tool_use_is_answered_in_the_next_message(revision: str, transport: str, peer: Peer) -> None:
    """In each request's messages, an assistant message with tool_use blocks is followed at once by a user
    message holding a tool_result for each of them."""
    requests, _ = tool_loop(peer)
    problems = []
    for request in requests:
        messages = messages_of(request)
        for index, message in enumerate(messages):
            uses = [b.get("id") for b in blocks(message) if b.get("type") == "tool_use"]
            if message.get("role") != "assistant" or not uses:
                continue
            following = messages[index + 1] if index + 1 < len(messages) else {}
            answered = {b.get("toolUseId") for b in blocks(following) if b.get("type") == "tool_result"}
            if following.get("role") != "user" or set(uses) - answered:
                problems.append(f"tool_use {uses} followed by {json.dumps(following)[:200]}")
    assert not problems, "\n".join(problems)


@for_req("sampling-tool-result-id-matches-tooluseid", "server", transports=BOTH_TRANSPORTS)
def test_every_tool_result_answers_an_earlier_tool_use(revision: str, transport: str, peer: Peer) -> None:
    requests, _ = tool_loop(peer)
    problems = []
    for request in requests:
        seen: set[Any] = set()
        for message in messages_of(request):
            for block in blocks(message):
                if block.get("type") == "tool_use":
                    seen.add(block.get("id"))
                elif block.get("type") == "tool_result" and block.get("toolUseId") not in seen:
                    problems.append(
                        f"toolUseId {block.get('toolUseId')!r} answers no earlier tool_use ({sorted(seen)})"
                    )
    assert not problems, "\n".join(problems)


@for_req("sampling-tool-result-output-schema-structuredcontent", "server", transports=BOTH_TRANSPORTS)
def test_tool_results_conform_to_the_tools_output_schema(revision: str, transport: str, peer: Peer) -> None:
    requests, _ = tool_loop(peer)
    checked, problems = 0, []
    for request in requests:
        schemas = {t.get("name"): t.get("outputSchema") for t in params_of(request).get("tools") or []}
        everything = [b for m in messages_of(request) for b in blocks(m)]
        named = {b.get("id"): b.get("name") for b in everything if b.get("type") == "tool_use"}
        for block in everything:
            schema = schemas.get(named.get(block.get("toolUseId")))
            if block.get("type") == "tool_result" and isinstance(schema, dict) and "structuredContent" in block:
                checked += 1
                validator = validators.validator_for(schema, default=Draft202012Validator)(schema)
                errors = [e.message for e in validator.iter_errors(block["structuredContent"])]
                if errors:
                    problems.append(f"{block['structuredContent']!r} breaks the outputSchema: {errors}")
    if not checked:
        pytest.skip("fixture-missing: no tool result with structuredContent answered a tool with an outputSchema")
    assert not problems, "\n".join(problems)


@for_req("sampling-preserve-meta-toolusecontent", "server", transports=BOTH_TRANSPORTS)
def test_tool_uses_are_passed_back_with_their_meta(revision: str, transport: str, peer: Peer) -> None:
    """Each tool_use of the harness's model that the server passes back in a later request carries the
    _meta the model gave it."""
    requests, given = tool_loop(peer)
    echoed = [b for r in requests for m in messages_of(r) for b in blocks(m) if b.get("type") == "tool_use"]
    echoed = [b for b in echoed if b.get("id") in given]
    if not echoed:
        pytest.skip("fixture-missing: the server passed back none of the model's tool uses")
    changed = [b for b in echoed if b.get("_meta") != given[b["id"]]]
    assert not changed, f"tool uses passed back without their _meta ({[given[b['id']] for b in changed]}): {changed}"


@for_req("sampling-preserve-meta-toolresultcontent", "server", transports=BOTH_TRANSPORTS)
def test_tool_results_passed_again_keep_their_meta(revision: str, transport: str, peer: Peer) -> None:
    """A tool result the server sends in one request and again in a later one carries the same _meta."""
    requests, _ = tool_loop(peer)
    first_seen: dict[Any, Any] = {}
    repeated, changed = 0, []
    for request in requests:
        for block in (b for m in messages_of(request) for b in blocks(m) if b.get("type") == "tool_result"):
            key = block.get("toolUseId")
            if key in first_seen:
                repeated += 1
                if block.get("_meta") != first_seen[key]:
                    changed.append(f"{key}: _meta {first_seen[key]!r}, later {block.get('_meta')!r}")
            else:
                first_seen[key] = block.get("_meta")
    if not repeated:
        pytest.skip("fixture-missing: no tool result was passed again in a later request")
    assert not changed, "\n".join(changed)


@for_req("sampling-tool-loop-iteration-limit", "server", transports=BOTH_TRANSPORTS)
def test_a_tool_loop_ends(revision: str, transport: str, peer: Peer) -> None:
    """The harness's model asks for a tool in every turn: the server stops asking within MAX_ROUNDS requests."""
    requests, _ = tool_loop(peer)
    assert len(requests) < MAX_ROUNDS, f"the tool loop was still sampling after {len(requests)} requests"
