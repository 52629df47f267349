"""Multi-round-trip requests (2026-07-28): what an InputRequiredResult may hold and answer, that a server asks
the client for roots, sampling and elicitation only through it, and how the client retries (a new id, the
requestState echoed unchanged or not invented, every input asked for answered, the state used for that
retry only)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from conformance.validator.checks.capabilities import declared
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, REQUEST, RESULT, SERVER, Message, Session

INPUT_REQUIRED = "input_required"
RETRYABLE = frozenset({"prompts/get", "resources/read", "tools/call"})
INPUT_METHODS = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}


def _not_modern(session: Session) -> str | None:
    return None if session.modern else "multi-round-trip requests exist from 2026-07-28"


@dataclass(frozen=True)
class Round:
    """An InputRequiredResult, the request it answered, and the client's retry of that request (if any)."""

    original: Message
    answer: Message
    retry: Message | None

    @property
    def result(self) -> dict:
        return self.answer.result


def _target(request: Message) -> tuple[Any, ...]:
    """What a request is about: its method and the prompt, tool or resource it names."""
    return request.method, request.params.get("name"), request.params.get("uri")


def _is_retry(request: Message) -> bool:
    return request.kind == REQUEST and ("inputResponses" in request.params or "requestState" in request.params)


def rounds(session: Session) -> list[Round]:
    if "mrtr-rounds" in session.memo:
        return session.memo["mrtr-rounds"]
    found: list[Round] = []
    taken: set[int] = set()
    client_requests = list(session.sent_by(CLIENT, REQUEST))
    for answer in session.sent_by(SERVER, RESULT):
        if not (isinstance(answer.result, dict) and answer.result.get("resultType") == INPUT_REQUIRED):
            continue
        original = session.request_answered(answer)
        if original is None:
            continue
        retry = next(
            (
                r
                for r in client_requests
                if r.seq > answer.seq and id(r) not in taken and _is_retry(r) and _target(r) == _target(original)
            ),
            None,
        )
        if retry is not None:
            taken.add(id(retry))
        found.append(Round(original, answer, retry))
    session.memo["mrtr-rounds"] = found
    return found


def _input_requests(round_: Round) -> Iterator[tuple[str, Any]]:
    requests = round_.result.get("inputRequests")
    if isinstance(requests, dict):
        yield from requests.items()


@check("mrtr-input-required-nonempty", not_applicable=_not_modern)
def input_required_holds_something(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every InputRequiredResult carries inputRequests, requestState, or both."""
    for round_ in rounds(session):
        judgement.examine()
        if "inputRequests" not in round_.result and "requestState" not in round_.result:
            judgement.fail(round_.answer.seq, "an InputRequiredResult with neither inputRequests nor requestState")


@check("mrtr-input-required-other-methods-forbidden", not_applicable=_not_modern)
def input_required_only_for_retryable(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Only prompts/get, resources/read and tools/call are answered with an InputRequiredResult."""
    for round_ in rounds(session):
        judgement.examine()
        if round_.original.method not in RETRYABLE:
            judgement.fail(round_.answer.seq, f"{round_.original.method} answered with an InputRequiredResult")


@check("mrtr-input-requests-allowed-types", not_applicable=_not_modern)
def input_requests_of_allowed_types(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each inputRequests value is an elicitation/create, sampling/createMessage or roots/list request."""
    for round_ in rounds(session):
        for key, request in _input_requests(round_):
            judgement.examine()
            method = request.get("method") if isinstance(request, dict) else None
            if method not in INPUT_METHODS:
                judgement.fail(round_.answer.seq, f"input request {key!r} is {method!r}, not one the client serves")


@check("mrtr-input-requests-declared-capabilities", not_applicable=_not_modern)
def input_requests_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No input request for a feature the original request's clientCapabilities do not declare."""
    for round_ in rounds(session):
        capabilities = session.client_capabilities_for(round_.original)
        for key, request in _input_requests(round_):
            method = request.get("method") if isinstance(request, dict) else None
            if method not in INPUT_METHODS:
                continue
            judgement.examine()
            if not declared(capabilities, (INPUT_METHODS[method],)):
                judgement.fail(
                    round_.answer.seq,
                    f"input request {key!r} ({method}) but the request declared no {INPUT_METHODS[method]}",
                )


@check("mrtr-server-requests-via-mrtr", not_applicable=_not_modern)
def no_server_requests_for_input(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The server sends no roots/list, sampling/createMessage or elicitation/create request of its own (it asks
    through inputRequests)."""
    for request in session.sent_by(SERVER, REQUEST):
        judgement.examine()
        if request.method in INPUT_METHODS:
            judgement.fail(request.seq, f"the server sent its own {request.method} request")
    judgement.examine(sum(1 for round_ in rounds(session) if "inputRequests" in round_.result))


def _retried(session: Session) -> Iterator[tuple[Round, Message]]:
    for round_ in rounds(session):
        if round_.retry is not None:
            yield round_, round_.retry


@check("mrtr-retry-new-jsonrpc-id", not_applicable=_not_modern)
def retries_take_a_new_id(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A retry's JSON-RPC id differs from the original request's."""
    for round_, retry in _retried(session):
        judgement.examine()
        if retry.key == round_.original.key:
            judgement.fail(retry.seq, f"the retry reuses the original request's id {retry.id!r}")


@check("mrtr-client-echo-request-state", not_applicable=_not_modern)
def request_state_echoed(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A retry after an InputRequiredResult holding requestState sends that value back unchanged."""
    for round_, retry in _retried(session):
        if "requestState" not in round_.result:
            continue
        judgement.examine()
        if retry.params.get("requestState") != round_.result["requestState"]:
            judgement.fail(retry.seq, "the retry does not send back the requestState it was given, unchanged")


@check("mrtr-client-no-invented-request-state", not_applicable=_not_modern)
def request_state_not_invented(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A retry after an InputRequiredResult without requestState carries none."""
    for round_, retry in _retried(session):
        if "requestState" in round_.result:
            continue
        judgement.examine()
        if "requestState" in retry.params:
            judgement.fail(retry.seq, "the retry carries a requestState the server never gave")


@check("mrtr-client-fulfil-input-requests", not_applicable=_not_modern)
def input_requests_answered(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A retry answers every input request it was given, under the same key."""
    for round_, retry in _retried(session):
        asked = {key for key, _ in _input_requests(round_)}
        if not asked:
            continue
        judgement.examine()
        responses = retry.params.get("inputResponses")
        missing = sorted(asked - set(responses if isinstance(responses, dict) else {}))
        if missing:
            judgement.fail(retry.seq, f"the retry answers no input for {missing}")


@check("mrtr-input-scoped-to-retry", not_applicable=_not_modern)
def request_state_used_for_its_retry(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A requestState travels only in a request about what the request it came for was about."""
    issued: dict[str, tuple[Any, ...]] = {}
    by_answer = {id(round_.answer): round_ for round_ in rounds(session)}
    for message in session.messages:
        round_ = by_answer.get(id(message))
        if round_ is not None and isinstance(round_.result.get("requestState"), str):
            issued[round_.result["requestState"]] = _target(round_.original)
        elif (
            message.sender == CLIENT and message.kind == REQUEST and isinstance(message.params.get("requestState"), str)
        ):
            target = issued.get(message.params["requestState"])
            if target is None:
                continue
            judgement.examine()
            if _target(message) != target:
                judgement.fail(message.seq, f"a {message.method} carries the requestState given for {target[0]}")
