"""Sampling, server side: the ``sampling/createMessage`` requests a server makes, judged on what it
sends and to whom (docs/spec/requirements.md, sampling; client/sampling).

The server is driven through the role ``sampling-tool`` (a tool that asks the client to sample when the
client declared sampling). Before 2026-07-28 the server asks with a request of its own during the call,
which the harness answers; at 2026-07-28 the request is an entry of the call's ``inputRequests``
(basic/patterns/mrtr), and the harness retries with the answer.

Client side (the last section): the client under test answering the scripted stdio server's sampling
requests, judged on what it declares and what it answers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator, validators

from conformance.harness.exchanges import CLIENT_RESULTS, SAMPLED, is_request
from conformance.harness.frames import BOTH_TRANSPORTS, CLIENT_CAPABILITIES_META
from conformance.harness.peer import ImplementationTimeout, Peer
from conformance.harness.roles import Binding, bound, require_role
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.surface import input_questions, modern_call, send_unchecked
from conformance.harness.wire import Wire, answers, tool_call
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun

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


def sampling_questions(response: dict) -> dict:
    """The sampling/createMessage entries of an input_required result's inputRequests, by key."""
    return input_questions(response, SAMPLING)


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
        frame["params"]["_meta"][CLIENT_CAPABILITIES_META] = capabilities
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
MAX_ROUNDS = 10  # the sampling requests of one tool loop the harness answers: a bound on the test, not a verdict
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


# == client side: the client answering sampling/createMessage ====================================================
#
# The client under test runs a scenario of the client driver (conformance/fixtures/client.py: ``sampling``,
# ``sampling_with_tools``, ``sampling_user_rejects``, ``sampling_model_fails``), each a host with a sampling
# callback of its own that calls the first listed tool. The scripted stdio server (every revision) asks the
# client to sample during that call: before 2026-07-28 with requests of its own, sent before it answers the
# call (``ScriptedStdio.ask``); at 2026-07-28 in the inputRequests of the call's first answer, an input_required
# result (``ScriptedStdio.rounds``), whose retry gets the complete result. What the client answered is read from
# the record: its response to each request (a result or an error), or the inputResponses of its retries (a
# question left out of them is one the client did not answer, as the spec lets it decline at 2026-07-28).

RunClient = Callable[[str], ClientRun]
MODERN = "2026-07-28"
QUESTION_ID = "mcp-matrix-sampling-"  # + the question's key: the id of the request asking it (before 2026-07-28)
ASKED_TEXT = {"role": "user", "content": {"type": "text", "text": "What is the weather in Paris?"}}
OFFERED_TOOL = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
ANSWERED_CALL = {"content": [{"type": "text", "text": "done"}], "isError": False, "resultType": "complete"}
TEXT_BLOCK = {"type": "text", "text": "Sunny"}
TOOL_USE_BLOCK = {"type": "tool_use", "id": "mcp-matrix-use-1", "name": "get_weather", "input": {"city": "Paris"}}


def question(messages: list[dict] | None = None, **params: Any) -> dict:
    """The params of a sampling request: ``messages`` (a user's question by default), maxTokens and ``params``."""
    return {"messages": messages or [ASKED_TEXT], "maxTokens": 100} | params


def ask_client(server: ScriptedStdio, questions: dict[str, dict], unchecked: bool = False) -> None:
    """Have the scripted server ask the client, during its tools/call, each of ``questions`` (key -> the params
    of a sampling request). ``unchecked``: the questions break the schema on purpose (at 2026-07-28 the
    input_required result then goes out unchecked, and answers every call of the tool)."""
    if server.revision != MODERN:
        server.ask["tools/call"] = [
            {"jsonrpc": "2.0", "id": f"{QUESTION_ID}{key}", "method": SAMPLING, "params": params}
            for key, params in questions.items()
        ]
        return
    asking = {
        "resultType": "input_required",
        "inputRequests": {key: {"method": SAMPLING, "params": params} for key, params in questions.items()},
    }
    if unchecked:
        server.raw["tools/call"] = {"result": asking}
    else:
        server.rounds["tools/call"] = [asking, ANSWERED_CALL]


def client_frames(server: ScriptedStdio) -> list[dict]:
    return [f for frame in server.record.frames() for f in (frame if isinstance(frame, list) else [frame])]


def answers_to_questions(server: ScriptedStdio) -> dict[str, list[dict]]:
    """What the client answered each question, by key, as JSON-RPC responses (``{"result": ...}`` or
    ``{"error": ...}``): before 2026-07-28 its responses to the requests asking them; at 2026-07-28 each
    inputResponses entry of its tools/call requests, as a result."""
    found: dict[str, list[dict]] = {}
    for frame in client_frames(server):
        if not isinstance(frame, dict):
            continue
        if server.revision != MODERN:
            key = frame.get("id")
            if "method" not in frame and isinstance(key, str) and key.startswith(QUESTION_ID):
                found.setdefault(key.removeprefix(QUESTION_ID), []).append(frame)
        elif frame.get("method") == "tools/call":
            responses = params_of(frame).get("inputResponses")
            for key, value in (responses if isinstance(responses, dict) else {}).items():
                found.setdefault(key, []).append({"result": value})
    return found


def results_of(server: ScriptedStdio, key: str) -> list[dict]:
    """The results the client answered question ``key`` with (its errors left out)."""
    return [a["result"] for a in answers_to_questions(server).get(key, []) if "result" in a]


def sampled(server: ScriptedStdio, key: str) -> list[dict]:
    """``results_of``, or fixture-missing when the client answered the question with no result: it did not sample."""
    results = results_of(server, key)
    if not results:
        pytest.skip(
            f"fixture-missing: the client answered question {key!r} with no result: {answers_to_questions(server)}"
        )
    return results


def content_blocks(result: Any) -> list[dict]:
    content = result.get("content") if isinstance(result, dict) else None
    return [b for b in (content if isinstance(content, list) else [content]) if isinstance(b, dict)]


def declared_capabilities(server: ScriptedStdio) -> list[tuple[str, Any]]:
    """The capabilities the client declared: before 2026-07-28 those of its initialize request; at 2026-07-28
    those in the _meta of each of its requests (each with the request's method)."""
    requests = [f for f in client_frames(server) if isinstance(f, dict) and "method" in f and "id" in f]
    if server.revision != MODERN:
        return [(r["method"], params_of(r).get("capabilities")) for r in requests if r["method"] == "initialize"]
    metas = [(r["method"], params_of(r).get("_meta")) for r in requests]
    return [(method, meta.get(CLIENT_CAPABILITIES_META) if isinstance(meta, dict) else None) for method, meta in metas]


def assert_declared(server: ScriptedStdio, member: str, only: tuple[str, ...] = ()) -> None:
    """The client declared ``sampling`` (``member`` "tools": ``sampling.tools``) wherever it declares its
    capabilities (at 2026-07-28: on each request, or on each request of the methods ``only`` names)."""
    declarations = [(m, c) for m, c in declared_capabilities(server) if not only or m in only]
    assert declarations, f"the client declared no capabilities at all: {client_frames(server)[:3]}"
    missing = []
    for method, capabilities in declarations:
        sampling = capabilities.get("sampling") if isinstance(capabilities, dict) else None
        if not isinstance(sampling, dict) or (member and not isinstance(sampling.get(member), dict)):
            missing.append(f"{method}: {json.dumps(capabilities)}")
    wanted = "sampling" + (f".{member}" if member else "")
    assert not missing, f"a client that sampled did not declare {wanted}:\n" + "\n".join(missing)


@for_req("sampling-capability-declare-initialize", "client")
def test_a_client_that_samples_declares_sampling_at_initialization(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The client answers a sampling request with a sample: its initialize request declared ``sampling``."""
    ask_client(scripted_stdio, {"q": question()})
    run = run_stdio_client("sampling")

    def check() -> None:
        sampled(scripted_stdio, "q")
        assert_declared(scripted_stdio, "")

    run.judge(check)


@for_req("sampling-capability-declare-per-request", "client")
def test_a_client_that_samples_declares_sampling_on_each_request(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The client answers the sampling question of an input_required result with a sample: its tool calls,
    the one that was asked and the retry carrying the sample, declare ``sampling`` in their ``_meta``
    capabilities. Its other requests are not judged: the schema calls those capabilities the client's "for
    this specific request", so a client may leave sampling out of a request on which it would not sample."""
    ask_client(scripted_stdio, {"q": question()})
    run = run_stdio_client("sampling")

    def check() -> None:
        sampled(scripted_stdio, "q")
        assert_declared(scripted_stdio, "", only=("tools/call",))

    run.judge(check)


@for_req("sampling-tools-capability-declare", "client")
def test_a_client_that_samples_with_tools_declares_sampling_tools(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The client answers a sampling request that offers a tool with a sample: it declared ``sampling.tools``
    (at its initialization; at 2026-07-28 on its tool calls, the one asked and the one answering)."""
    ask_client(scripted_stdio, {"q": question(tools=[OFFERED_TOOL])})
    run = run_stdio_client("sampling_with_tools")

    def check() -> None:
        sampled(scripted_stdio, "q")
        assert_declared(scripted_stdio, "tools", only=("initialize", "tools/call"))

    run.judge(check)


@for_req("sampling-tools-need-capability-error-tools", "client")
def test_sampling_with_tools_is_refused_by_a_client_without_sampling_tools(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """A client that declared sampling without ``sampling.tools`` is asked for a sample offering a tool, and
    for one naming a toolChoice: it answers neither with a sample (an error; at 2026-07-28, no answer in its
    retries, since a declined question is simply not replayed)."""
    ask_client(
        scripted_stdio,
        {"tools": question(tools=[OFFERED_TOOL]), "choice": question(toolChoice={"mode": "auto"})},
    )
    run = run_stdio_client("sampling")

    def check() -> None:
        if revision != MODERN:
            unanswered = {"tools", "choice"} - answers_to_questions(scripted_stdio).keys()
            assert not unanswered, f"the client never answered the sampling requests {sorted(unanswered)}"
        taken = {key: results_of(scripted_stdio, key) for key in ("tools", "choice")}
        taken = {key: results for key, results in taken.items() if results}
        assert not taken, f"sampled although it did not declare sampling.tools: {json.dumps(taken)[:600]}"

    run.judge(check)


@for_req("sampling-tool-choice-required", "client")
def test_a_required_tool_choice_is_answered_with_a_tool_use(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """A client that declared ``sampling.tools`` is asked for a sample offering a tool with ``toolChoice``
    ``{"mode": "required"}``: its sample uses a tool."""
    ask_client(scripted_stdio, {"q": question(tools=[OFFERED_TOOL], toolChoice={"mode": "required"})})
    run = run_stdio_client("sampling_with_tools")

    def check() -> None:
        without = [
            r for r in sampled(scripted_stdio, "q") if not any(b.get("type") == "tool_use" for b in content_blocks(r))
        ]
        assert not without, f"asked to use a tool (toolChoice required), the client's sample used none: {without}"

    run.judge(check)


@for_req("sampling-tool-choice-none", "client")
def test_a_none_tool_choice_is_answered_without_a_tool_use(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """A client that declared ``sampling.tools`` is asked for a sample offering a tool with ``toolChoice``
    ``{"mode": "none"}``: its sample uses no tool."""
    ask_client(scripted_stdio, {"q": question(tools=[OFFERED_TOOL], toolChoice={"mode": "none"})})
    run = run_stdio_client("sampling_with_tools")

    def check() -> None:
        using = [r for r in sampled(scripted_stdio, "q") if any(b.get("type") == "tool_use" for b in content_blocks(r))]
        assert not using, f"told to use no tool (toolChoice none), the client's sample used one: {using}"

    run.judge(check)


@for_req("sampling-message-role-content", "client")
def test_the_clients_sample_has_a_role_and_content(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The client's answer to a sampling question has a ``role`` of ``user`` or ``assistant`` and a ``content``."""
    ask_client(scripted_stdio, {"q": question()})
    run = run_stdio_client("sampling")

    def check() -> None:
        broken = [
            r for r in sampled(scripted_stdio, "q") if r.get("role") not in ("user", "assistant") or "content" not in r
        ]
        assert not broken, f"samples without a user/assistant role or without content: {broken}"

    run.judge(check)


def refusals(run_client: RunClient, server: ScriptedStdio, scenario: str) -> tuple[ClientRun, list[dict]]:
    """Run ``scenario``, the server asking one sampling question: the run, and the client's answers to it."""
    ask_client(server, {"q": question()})
    run = run_client(scenario)
    return run, answers_to_questions(server).get("q", [])


def assert_refused(answers: list[dict], who: str, code: int | None = None) -> None:
    """The client answered the question, with an error (whose code is ``code``, if given), never with a result."""
    assert answers, f"{who}: the client never answered the sampling request"
    taken = [a for a in answers if "result" in a]
    assert not taken, f"{who}: the client answered with a result instead of an error: {taken}"
    if code is not None:
        codes = [(a.get("error") or {}).get("code") for a in answers]
        assert codes == [code] * len(answers), f"{who}: the client's error codes are {codes}, not {code}: {answers}"


@for_req("sampling-error-on-failure", "client")
def test_a_sample_the_client_cannot_give_is_answered_with_an_error(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """Two hosts that cannot complete the sampling request: one whose model fails (the callback raises), one
    whose user rejects it. Each answers with a JSON-RPC error, not a result."""
    failed, answers = refusals(run_stdio_client, scripted_stdio, "sampling_model_fails")
    failed.judge(lambda: assert_refused(answers, "the model failed"))
    rejected, answers = refusals(run_stdio_client, scripted_stdio, "sampling_user_rejects")
    rejected.judge(lambda: assert_refused(answers, "the user rejected the request"))


@for_req("sampling-error-user-rejected", "client")
def test_a_rejected_sample_is_answered_with_code_minus_one(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The host's user rejects the sampling request: the client answers with error code -1."""
    run, answers = refusals(run_stdio_client, scripted_stdio, "sampling_user_rejects")
    run.judge(lambda: assert_refused(answers, "the user rejected the request", code=-1))


# A tool loop's second request, broken: the model's tool use answered by no tool result, or by one mixed with text.
TOOL_USED = {"role": "assistant", "content": [TOOL_USE_BLOCK]}
TOOL_RESULT_BLOCK = {
    "type": "tool_result",
    "toolUseId": "mcp-matrix-use-1",
    "content": [{"type": "text", "text": "18"}],
}
UNANSWERED_TOOL_USE = [ASKED_TEXT, TOOL_USED, {"role": "user", "content": {"type": "text", "text": "And tomorrow?"}}]
MIXED_TOOL_RESULT = [ASKED_TEXT, TOOL_USED, {"role": "user", "content": [TOOL_RESULT_BLOCK, TEXT_BLOCK]}]


@for_req("sampling-error-tool-result-missing", "client")
def test_a_tool_use_without_its_result_is_refused_as_invalid_params(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """A client that declared ``sampling.tools`` is asked for a sample whose messages follow a tool use with
    no tool result: it answers with error -32602."""
    ask_client(scripted_stdio, {"q": question(UNANSWERED_TOOL_USE, tools=[OFFERED_TOOL])})
    run = run_stdio_client("sampling_with_tools")
    run.judge(
        lambda: assert_refused(answers_to_questions(scripted_stdio).get("q", []), "a tool use unanswered", -32602)
    )


@for_req("sampling-error-tool-results-mixed", "client")
def test_tool_results_mixed_with_other_content_are_refused_as_invalid_params(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """A client that declared ``sampling.tools`` is asked for a sample whose user message holds a tool result
    and text together: it answers with error -32602."""
    ask_client(scripted_stdio, {"q": question(MIXED_TOOL_RESULT, tools=[OFFERED_TOOL])})
    run = run_stdio_client("sampling_with_tools")
    run.judge(lambda: assert_refused(answers_to_questions(scripted_stdio).get("q", []), "a tool result mixed", -32602))


MALFORMED_MESSAGE = {"role": "user", "content": {"type": "text"}}  # a text block without its text


@for_req("sampling-validate-content", "client")
def test_a_malformed_sampling_message_is_not_sampled(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The client is asked for a sample of a message whose text block has no text: it does not sample it (an
    error, or no answer; at 2026-07-28, no answer to that question in a retry)."""
    ask_client(scripted_stdio, {"q": question([MALFORMED_MESSAGE])}, unchecked=True)
    run = run_stdio_client("sampling")

    def check() -> None:
        answers = answers_to_questions(scripted_stdio).get("q", [])
        taken = [a["result"] for a in answers if "result" in a]
        assert not taken, f"the client sampled a message whose text block has no text: {taken}"

    run.judge(check)
