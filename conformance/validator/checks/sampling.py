"""Sampling conversations with tools (2025-11-25 on): the messages a server puts in sampling/createMessage
pair every tool_use with its tool_result."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from conformance.validator.judgement import Judgement, check
from conformance.validator.session import REQUEST, SERVER, Message, Session


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
