"""Server features beyond the schema: tool names, a tool result's structured content and its text mirror,
embedded resources and the resources capability, the order of tool listings, prompts/get refusals,
server/discover, and the answer to a batch (2025-03-26)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from conformance.validator.checks.content import results_of
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, ERROR, NOTIFICATION, REQUEST, RESULT, SERVER, Message, Session

TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]*$")
LONGEST_TOOL_NAME = 128
INVALID_PARAMS, METHOD_NOT_FOUND = -32602, -32601


def _listed_tools(session: Session) -> Iterator[tuple[Message, list[dict]]]:
    for response, result in results_of(session, SERVER, "tools/list"):
        tools = result.get("tools")
        if isinstance(tools, list):
            yield response, [t for t in tools if isinstance(t, dict)]


def _tool_names(session: Session) -> Iterator[tuple[Message, str]]:
    for response, tools in _listed_tools(session):
        for tool in tools:
            if isinstance(tool.get("name"), str):
                yield response, tool["name"]


@check("tools-name-allowed-characters")
def tool_name_characters(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) Every listed tool's name holds only ASCII letters and digits, '_', '-' and '.'."""
    for response, name in _tool_names(session):
        judgement.examine()
        if not TOOL_NAME.match(name):
            judgement.fail(response.seq, f"tool name {name!r} holds a character other than A-Z a-z 0-9 _ - .")


@check("tools-name-length")
def tool_name_length(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) Every listed tool's name is 1 to 128 characters long."""
    for response, name in _tool_names(session):
        judgement.examine()
        if not 1 <= len(name) <= LONGEST_TOOL_NAME:
            judgement.fail(response.seq, f"tool name {name[:40]!r} is {len(name)} characters long")


@check("tools-name-unique")
def tool_names_unique(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) No tools/list result names two tools alike."""
    for response, tools in _listed_tools(session):
        judgement.examine()
        names = [t.get("name") for t in tools if isinstance(t.get("name"), str)]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            judgement.fail(response.seq, f"tools/list names tool {repeated[0]!r} more than once")


@check("tools-structured-content-text-mirror")
def structured_content_mirrored_in_text(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A tools/call result with structuredContent also carries it serialised as JSON in a text block."""
    for response, result in results_of(session, SERVER, "tools/call"):
        if "structuredContent" not in result:
            continue
        judgement.examine()
        content = result.get("content")
        texts = [c.get("text") for c in content if isinstance(c, dict)] if isinstance(content, list) else []
        if not any(isinstance(text, str) and _json_equal(text, result["structuredContent"]) for text in texts):
            judgement.fail(response.seq, "structuredContent has no text content block holding it as JSON")


def _json_equal(text: str, value: object) -> bool:
    try:
        return json.loads(text) == value
    except ValueError:
        return False


@check("tools-embedded-resources-capability")
def embedded_resources_need_the_capability(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A server whose tools/call result embeds a resource declared the resources capability."""
    if session.server_capabilities is None:
        return
    for response, result in results_of(session, SERVER, "tools/call"):
        content = result.get("content")
        embedded = [c for c in content if isinstance(c, dict) and c.get("type") == "resource"] if content else []
        if not isinstance(content, list) or not embedded:
            continue
        judgement.examine()
        if not isinstance(session.server_capabilities.get("resources"), dict):
            judgement.fail(response.seq, "a tool result embeds a resource, but the server declared no resources")


@check("tools-list-deterministic-order")
def tool_listings_keep_their_order(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) Two whole tools/list results of the same set of tools, with no list_changed between them,
    list them in the same order."""
    changes = [m.seq for m in session.notifications_by_method.get((SERVER, "notifications/tools/list_changed"), [])]
    previous: tuple[Message, list] | None = None
    for response, result in results_of(session, SERVER, "tools/list"):
        request = session.request_answered(response)
        if result.get("nextCursor") or (request is not None and "cursor" in request.params):
            continue  # a page, not the whole list
        names = [t.get("name") for t in result.get("tools") or [] if isinstance(t, dict)]
        unchanged = previous is not None and not any(previous[0].seq < seq < response.seq for seq in changes)
        if previous is not None and unchanged and sorted(map(str, names)) == sorted(map(str, previous[1])):
            judgement.examine()
            if names != previous[1]:
                judgement.fail(
                    response.seq, f"tools/list lists the same tools in another order than at seq {previous[0].seq}"
                )
        previous = (response, names)


def _complete_prompt_listing(session: Session, before: int) -> dict[str, dict] | None:
    """name -> prompt of the latest whole prompts/list result before seq ``before`` (None if there is none)."""
    found = None
    for response, result in results_of(session, SERVER, "prompts/list"):
        request = session.request_answered(response)
        if response.seq > before:
            break
        if result.get("nextCursor") or (request is not None and "cursor" in request.params):
            continue
        prompts = result.get("prompts") if isinstance(result.get("prompts"), list) else []
        found = {p["name"]: p for p in prompts if isinstance(p, dict) and isinstance(p.get("name"), str)}
    return found


def _answered_invalid_params(session: Session, request: Message, judgement: Judgement, why: str) -> None:
    answers = session.answers_to(request)
    if not answers:
        return
    judgement.examine()
    answer = answers[0]
    code = answer.frame.get("error", {}).get("code") if answer.kind == ERROR else None
    if answer.kind == RESULT:
        judgement.fail(answer.seq, f"prompts/get {why} was answered with a result, not error -32602")
    elif code != INVALID_PARAMS:
        judgement.fail(answer.seq, f"prompts/get {why} was answered with error {code!r}, not -32602")


@check("prompts-get-unknown-name-error")
def unknown_prompt_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A prompts/get naming a prompt the server's latest whole prompts/list did not list is answered with
    error -32602."""
    for request in session.sent_by(CLIENT, REQUEST):
        if request.method != "prompts/get" or not isinstance(request.params.get("name"), str):
            continue
        listed = _complete_prompt_listing(session, request.seq)
        if listed is not None and request.params["name"] not in listed:
            _answered_invalid_params(session, request, judgement, f"of the unlisted prompt {request.params['name']!r}")


@check("prompts-get-missing-arguments-error")
def missing_prompt_arguments_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A prompts/get that leaves out an argument the listed prompt marks required is answered with -32602."""
    for request in session.sent_by(CLIENT, REQUEST):
        if request.method != "prompts/get":
            continue
        prompt = (_complete_prompt_listing(session, request.seq) or {}).get(request.params.get("name"))
        arguments = request.params.get("arguments")
        given = arguments if isinstance(arguments, dict) else {}
        required = [
            a.get("name") for a in (prompt or {}).get("arguments") or [] if isinstance(a, dict) and a.get("required")
        ]
        missing = [name for name in required if name not in given]
        if missing:
            _answered_invalid_params(session, request, judgement, f"without the required argument {missing[0]!r}")


@check("lifecycle-discover-implemented")
def discover_answered(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A server/discover request is answered with a result, never method-not-found."""
    for request in session.sent_by(CLIENT, REQUEST):
        if request.method != "server/discover":
            continue
        answers = session.answers_to(request)
        if not answers:
            continue
        judgement.examine()
        if answers[0].kind != RESULT:
            code = answers[0].frame.get("error", {}).get("code") if isinstance(answers[0].frame, dict) else None
            judgement.fail(answers[0].seq, f"server/discover was answered with error {code!r}, not a result")


@check("messages-batch-receive")
def batches_answered(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-03-26) Every request that came in a batch is answered by the side that received it."""
    for message in session.messages:
        receiver = SERVER if message.sender == CLIENT else CLIENT
        if not message.in_batch or message.kind not in (REQUEST, NOTIFICATION) or receiver not in sides:
            continue
        if message.kind == NOTIFICATION:
            continue
        judgement.examine()
        if not session.answers_to(message):
            judgement.fail(
                message.seq, f"the {receiver} never answered {message.method} (id {message.id!r}) of a batch"
            )
