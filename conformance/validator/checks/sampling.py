"""Sampling: the messages a server puts in sampling/createMessage (every tool_use paired with its
tool_result, a role and content each, tool uses and results passed again with their _meta), includeContext
avoided and used only where declared; the client's answers (tools only where sampling.tools is declared,
malformed tool conversations refused with -32602)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from conformance.validator.checks.answers import first_answer, judge_refusals
from conformance.validator.checks.capabilities import declared
from conformance.validator.checks.json_schema import validator_of
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, ERROR, REQUEST, RESULT, SERVER, Message, Session

INVALID_PARAMS = -32602
ROLES = ("user", "assistant")


def _handshake_only(session: Session) -> str | None:
    """The client's capabilities of a handshake; at 2026-07-28 sampling travels in inputRequests."""
    return "sampling requests travel in inputRequests at 2026-07-28" if session.modern else None


def _blocks(message: Any) -> list[dict]:
    content = message.get("content") if isinstance(message, dict) else None
    items = content if isinstance(content, list) else [content]
    return [item for item in items if isinstance(item, dict)]


def conversations(session: Session) -> Iterator[tuple[Message, list[Any]]]:
    """Each sampling/createMessage the server sent, with its messages."""
    for request in session.sent_by(SERVER, REQUEST):
        messages = request.params.get("messages") if request.method == "sampling/createMessage" else None
        if isinstance(messages, list):
            yield request, messages


def sampling_requests(session: Session) -> Iterator[tuple[Message, dict]]:
    return session.server_asks("sampling/createMessage")


@check("sampling-tool-result-message-exclusive")
def tool_results_alone(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A user message holding a tool_result block holds nothing but tool_result blocks."""
    for request, messages in conversations(session):
        for message in messages:
            kinds = [block.get("type") for block in _blocks(message)]
            if "tool_result" in kinds:
                judgement.examine()
                if any(kind != "tool_result" for kind in kinds):
                    judgement.fail(
                        request.seq, f"a message mixes tool_result with {sorted(set(kinds) - {'tool_result'})}"
                    )


@check("sampling-tool-use-result-balance")
def tool_uses_answered_next(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """An assistant message with tool_use blocks is followed at once by a user message answering each of them."""
    for request, messages in conversations(session):
        for position, message in enumerate(messages):
            uses = {b.get("id") for b in _blocks(message) if b.get("type") == "tool_use"}
            if not uses or not isinstance(message, dict) or message.get("role") != "assistant":
                continue
            judgement.examine()
            following = messages[position + 1] if position + 1 < len(messages) else None
            answered = {b.get("toolUseId") for b in _blocks(following) if b.get("type") == "tool_result"}
            if not isinstance(following, dict) or following.get("role") != "user" or not uses <= answered:
                judgement.fail(
                    request.seq, f"tool_use {sorted(map(str, uses - answered))} not answered by the next message"
                )


@check("sampling-tool-result-id-matches-tooluseid")
def tool_results_name_earlier_uses(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every tool_result's toolUseId is the id of a tool_use earlier in the conversation."""
    for request, messages in conversations(session):
        seen: set[Any] = set()
        for message in messages:
            for block in _blocks(message):
                if block.get("type") == "tool_use":
                    seen.add(block.get("id"))
                elif block.get("type") == "tool_result":
                    judgement.examine()
                    if block.get("toolUseId") not in seen:
                        judgement.fail(
                            request.seq, f"tool_result for {block.get('toolUseId')!r}, which no earlier tool_use has"
                        )


def _offers_tools(request: Message) -> bool:
    return "tools" in request.params or "toolChoice" in request.params


def _client_declares_sampling_tools(session: Session) -> bool:
    return declared(session.client_capabilities, ("sampling", "tools"))


@check("sampling-tools-capability-declare", not_applicable=_handshake_only)
def tool_sampling_accepted_only_when_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client whose answer to a sampling/createMessage carrying tools uses one (a tool_use block: it takes
    tool-enabled sampling) declared sampling.tools. A sample that ignores the tools shows no support for them:
    that an undeclared client answered it at all is sampling-tools-need-capability-error-tools' to judge."""
    for request, _ in conversations(session):
        answer = first_answer(session, request)
        if not _offers_tools(request) or answer is None or answer.kind != RESULT:
            continue
        judgement.examine()
        uses_a_tool = any(block.get("type") == "tool_use" for block in _blocks(answer.result))
        if uses_a_tool and not _client_declares_sampling_tools(session):
            judgement.fail(answer.seq, "the client sampled a tool use without declaring sampling.tools")


@check("sampling-tools-need-capability-error-tools", not_applicable=_handshake_only)
def undeclared_tool_sampling_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client that did not declare sampling.tools answers a sampling/createMessage carrying tools or
    toolChoice with an error."""
    if _client_declares_sampling_tools(session):
        return
    for request, _ in conversations(session):
        answer = first_answer(session, request)
        if not _offers_tools(request) or answer is None:
            continue
        judgement.examine()
        if answer.kind != ERROR:
            judgement.fail(answer.seq, "a sampling request with tools, undeclared, answered with a result")


def _refused_with_invalid_params(session: Session, judgement: Judgement, broken: Callable[[list[Any]], bool]) -> None:
    malformed = [request for request, messages in conversations(session) if broken(messages)]
    judge_refusals(session, judgement, malformed, INVALID_PARAMS, lambda _: "a malformed tool conversation")


def _tool_use_unanswered(messages: list[Any]) -> bool:
    for position, message in enumerate(messages):
        uses = {b.get("id") for b in _blocks(message) if b.get("type") == "tool_use"}
        if not uses:
            continue
        following = messages[position + 1] if position + 1 < len(messages) else None
        if following is None:
            continue  # the conversation ends on the model's turn: nothing left unanswered in it yet
        answered = {b.get("toolUseId") for b in _blocks(following) if b.get("type") == "tool_result"}
        if not uses <= answered:
            return True
    return False


def _tool_results_mixed(messages: list[Any]) -> bool:
    for message in messages:
        kinds = {block.get("type") for block in _blocks(message)}
        if "tool_result" in kinds and kinds != {"tool_result"}:
            return True
    return False


@check("sampling-error-tool-result-missing", not_applicable=_handshake_only)
def unanswered_tool_use_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client refuses with -32602 a sampling request in which a tool_use is not answered by the next message."""
    _refused_with_invalid_params(session, judgement, _tool_use_unanswered)


@check("sampling-error-tool-results-mixed", not_applicable=_handshake_only)
def mixed_tool_results_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client refuses with -32602 a sampling request whose user message mixes tool_result with other content."""
    _refused_with_invalid_params(session, judgement, _tool_results_mixed)


@check("sampling-include-context-avoid")
def include_context_left_none(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A server's sampling requests leave includeContext unset or none."""
    for carrier, params in sampling_requests(session):
        judgement.examine()
        if params.get("includeContext") in ("thisServer", "allServers"):
            judgement.fail(carrier.seq, f"includeContext {params['includeContext']!r}")


@check("sampling-include-context-requires-capability", not_applicable=_handshake_only)
def include_context_only_when_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """includeContext thisServer or allServers only to a client that declared sampling.context."""
    for carrier, params in sampling_requests(session):
        if params.get("includeContext") not in ("thisServer", "allServers"):
            continue
        judgement.examine()
        if not declared(session.client_capabilities, ("sampling", "context")):
            judgement.fail(
                carrier.seq, f"includeContext {params['includeContext']!r}, but the client declared no sampling.context"
            )


@check("sampling-message-role-content")
def sampling_messages_have_role_and_content(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every message of a sampling request has content and a role of user or assistant."""
    for carrier, params in sampling_requests(session):
        for message in params.get("messages") or []:
            judgement.examine()
            if not isinstance(message, dict) or "content" not in message or message.get("role") not in ROLES:
                judgement.fail(carrier.seq, "a sampling message without content or a user or assistant role")


def _preserved(session: Session, judgement: Judgement, block_type: str, key: str) -> None:
    """A block of ``block_type`` passed again (same ``key``) in a later sampling request keeps its _meta."""
    first_seen: dict[Any, tuple[int, Any]] = {}
    for message in session.messages:
        if message.kind == RESULT and message.sender == CLIENT and isinstance(message.result, dict):
            blocks = _blocks(message.result)
            passed_again = False
        elif message.kind == REQUEST and message.method == "sampling/createMessage":
            blocks = [b for m in message.params.get("messages") or [] for b in _blocks(m)]
            passed_again = True
        else:
            continue
        for block in blocks:
            if block.get("type") != block_type or not isinstance(block.get(key), (str, int)):
                continue
            earlier = first_seen.get(block[key])
            if earlier is None:
                first_seen[block[key]] = (message.seq, block.get("_meta"))
            elif passed_again and earlier[0] != message.seq:
                judgement.examine()
                if block.get("_meta") != earlier[1]:
                    judgement.fail(message.seq, f"{block_type} {block[key]!r} passed again with other _meta")


@check("sampling-preserve-meta-toolusecontent")
def tool_use_meta_preserved(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tool_use passed again in a later sampling request keeps its _meta."""
    _preserved(session, judgement, "tool_use", "id")


@check("sampling-preserve-meta-toolresultcontent")
def tool_result_meta_preserved(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tool_result passed again in a later sampling request keeps its _meta."""
    _preserved(session, judgement, "tool_result", "toolUseId")


@check("sampling-tool-result-output-schema-structuredcontent")
def tool_results_match_output_schemas(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tool_result's structuredContent conforms to the outputSchema of the tool (of the request's tools)
    whose tool_use it answers."""
    for carrier, params in sampling_requests(session):
        tools = params.get("tools") if isinstance(params.get("tools"), list) else []
        schemas = {t.get("name"): t["outputSchema"] for t in tools if isinstance(t, dict) and "outputSchema" in t}
        used: dict[Any, Any] = {}
        for message in params.get("messages") or []:
            for block in _blocks(message):
                if block.get("type") == "tool_use":
                    used[block.get("id")] = block.get("name")
                    continue
                schema = schemas.get(used.get(block.get("toolUseId")))
                validator = validator_of(schema)
                if block.get("type") != "tool_result" or "structuredContent" not in block or validator is None:
                    continue
                judgement.examine()
                if not validator(schema).is_valid(block["structuredContent"]):
                    judgement.fail(
                        carrier.seq, f"tool_result for {block.get('toolUseId')!r} breaks its tool's outputSchema"
                    )
