"""JSON-RPC message rules: the envelope, request ids (type, null, uniqueness), responses (matching a
request, result or error, never both), error objects and codes, notifications without ids, ping."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from conformance.validator.judgement import Judgement, check
from conformance.validator.reader import Event
from conformance.validator.session import (
    CLIENT,
    ERROR,
    MALFORMED,
    META_CLIENT_CAPABILITIES,
    NOTIFICATION,
    REQUEST,
    RESULT,
    SERVER,
    Message,
    Session,
    id_key,
)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@check("messages-jsonrpc-2-0")
def jsonrpc_envelope(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every message is a JSON-RPC 2.0 object: jsonrpc "2.0", and a request, notification or response."""
    for message in session.messages:
        if message.sender not in sides:
            continue
        judgement.examine()
        frame = message.frame
        if not isinstance(frame, dict):
            judgement.fail(message.seq, f"the {message.sender} sent a {type(frame).__name__}, not a JSON-RPC object")
        elif frame.get("jsonrpc") != "2.0":
            judgement.fail(message.seq, f'the {message.sender} sent jsonrpc {frame.get("jsonrpc")!r}, not "2.0"')
        elif message.kind == MALFORMED:
            judgement.fail(message.seq, f"the {message.sender} sent an object with neither method, result nor error")
        elif "method" in frame and not isinstance(frame["method"], str):
            judgement.fail(message.seq, f"the {message.sender} sent a method that is not a string")


@check("messages-request-id-type", "messages-client-request-id-type")
def request_id_type(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every request's id is a string or an integer."""
    for message in session.messages:
        if message.kind != REQUEST or message.sender not in sides:
            continue
        judgement.examine()
        if message.id is not None and not (isinstance(message.id, str) or _is_integer(message.id)):
            judgement.fail(
                message.seq, f"the {message.sender}'s request id {message.id!r} is neither string nor integer"
            )


@check("messages-request-id-not-null", "messages-client-request-id-not-null")
def request_id_not_null(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No request has a null id."""
    for message in session.messages:
        if message.kind != REQUEST or message.sender not in sides:
            continue
        judgement.examine()
        if message.id is None:
            judgement.fail(message.seq, f"the {message.sender}'s {message.method} request has id null")


@check("messages-request-id-unique-in-session")
def request_id_unique(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A requester never reuses one of its own request ids within the session."""
    used: dict[tuple[str, str], int] = {}
    for message in session.messages:
        if message.kind != REQUEST or message.sender not in sides:
            continue
        judgement.examine()
        key = (message.sender, message.key)
        if key in used:
            judgement.fail(
                message.seq, f"the {message.sender} reused request id {message.id!r} (first at seq {used[key]})"
            )
        else:
            used[key] = message.seq


@check("messages-request-id-unique-in-flight")
def request_id_unique_in_flight(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client never gives a request the id of another of its requests still unanswered."""
    pending: dict[str, int] = {}
    for message in session.messages:
        if message.kind == REQUEST and message.sender == CLIENT:
            judgement.examine()
            key = message.key
            if key in pending:
                judgement.fail(
                    message.seq, f"request id {message.id!r} is still in flight (sent at seq {pending[key]})"
                )
            pending[key] = message.seq
        elif message.kind in (RESULT, ERROR) and message.sender == SERVER:
            pending.pop(message.key, None)


def _responses(session: Session, sides: frozenset[str], kinds: tuple[str, ...]) -> list[Message]:
    return [m for m in session.messages if m.kind in kinds and m.sender in sides]


def _unmatched(session: Session, judgement: Judgement, sides: frozenset[str], kinds: tuple[str, ...]) -> None:
    for response in _responses(session, sides, kinds):
        judgement.examine()
        if response.kind == ERROR and response.id is None:
            continue  # JSON-RPC's answer to a message it could not read: there was no id to carry
        if session.request_answered(response) is None:
            judgement.fail(
                response.seq,
                f"the {response.sender}'s response id {response.id!r} matches no earlier request of its peer",
            )


@check("messages-response-id-matches-request")
def response_id_matches(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every response, result or error, carries the id of a request its peer sent before it."""
    _unmatched(session, judgement, sides, (RESULT, ERROR))


@check("messages-result-response-id-matches-request", "messages-server-result-response-id")
def result_id_matches(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every result response carries the id of a request its peer sent before it."""
    _unmatched(session, judgement, sides, (RESULT,))


@check("messages-error-response-id-matches-request", "messages-server-error-response-id")
def error_id_matches(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every error response carries the id of a request its peer sent before it (null for a message whose
    id could not be read)."""
    _unmatched(session, judgement, sides, (ERROR,))


def _response_shaped(message: Message) -> bool:
    frame = message.frame
    return isinstance(frame, dict) and "method" not in frame and "id" in frame


@check(
    "messages-response-result-or-error",
    "messages-result-response-has-result",
    "messages-server-result-response-has-result",
)
def response_has_result_or_error(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every response (an object with an id and no method) holds a result or an error member."""
    for message in session.messages:
        if message.sender not in sides or not _response_shaped(message):
            continue
        judgement.examine()
        if "result" not in message.frame and "error" not in message.frame:
            judgement.fail(message.seq, f"the {message.sender}'s response {message.id!r} has neither result nor error")


@check("messages-response-not-both")
def response_not_both(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No response holds both a result and an error."""
    for message in session.messages:
        if message.sender not in sides or not _response_shaped(message):
            continue
        judgement.examine()
        if "result" in message.frame and "error" in message.frame:
            judgement.fail(message.seq, f"the {message.sender}'s response {message.id!r} has both result and error")


def _errors(session: Session, sides: frozenset[str]) -> list[Message]:
    return [m for m in session.messages if m.sender in sides and m.kind == ERROR and "result" not in m.frame]


@check("messages-error-code-and-message", "messages-server-error-code-and-message")
def error_has_code_and_message(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every error response's error is an object with at least a code and a message."""
    for message in _errors(session, sides):
        judgement.examine()
        error = message.frame["error"]
        if not isinstance(error, dict) or "code" not in error or "message" not in error:
            judgement.fail(message.seq, f"the {message.sender}'s error {error!r} lacks a code or a message")


@check("messages-error-code-integer", "messages-server-error-code-integer")
def error_code_integer(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every error code is an integer."""
    for message in _errors(session, sides):
        error = message.frame["error"]
        if isinstance(error, dict) and "code" in error:
            judgement.examine()
            if not _is_integer(error["code"]):
                judgement.fail(message.seq, f"the {message.sender}'s error code {error['code']!r} is not an integer")


@check("messages-notification-no-id")
def notification_without_id(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A notification (a notifications/... method) never carries an id."""
    for message in session.messages:
        if message.sender not in sides or not (message.method or "").startswith("notifications/"):
            continue
        judgement.examine()
        if "id" in message.frame:
            judgement.fail(message.seq, f"the {message.sender}'s {message.method} carries an id")


def _server_requests(session: Session, judgement: Judgement, transport: str | None) -> None:
    for message in session.sent_by(SERVER):
        if transport is not None and message.transport != transport:
            continue
        judgement.examine()
        if message.kind == REQUEST:
            judgement.fail(message.seq, f"the server sent a {message.method} request")


def _client_responses(session: Session, judgement: Judgement, transport: str) -> None:
    for message in session.sent_by(CLIENT):
        if message.transport != transport:
            continue
        judgement.examine()
        if message.kind in (RESULT, ERROR):
            judgement.fail(message.seq, f"the client sent a response (id {message.id!r})")


@check("messages-server-no-requests")
def server_sends_no_requests(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) The server never sends a JSON-RPC request: it answers and notifies only."""
    _server_requests(session, judgement, None)


@check("stdio-server-no-requests")
def stdio_server_sends_no_requests(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A stdio server never writes a JSON-RPC request on stdout."""
    _server_requests(session, judgement, "stdio")


@check("stdio-client-no-responses")
def stdio_client_sends_no_responses(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A stdio client never sends a JSON-RPC response."""
    _client_responses(session, judgement, "stdio")


@check("streamable-http-client-no-responses")
def http_client_posts_no_responses(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A Streamable HTTP client never POSTs a JSON-RPC response."""
    _client_responses(session, judgement, "streamable-http")


@check("messages-result-type-present")
def result_type_present(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) Every result the server returns carries a resultType string."""
    for message in session.sent_by(SERVER, RESULT):
        judgement.examine()
        result = message.result
        if not isinstance(result, dict) or not isinstance(result.get("resultType"), str):
            judgement.fail(message.seq, f"the server's result to {message.id!r} has no resultType string")


RETIRED_CODES = {-32002: "the old resource-not-found", -32042: "the old URL-elicitation-required"}
DEFINED_RESERVED_CODES = frozenset({-32020, -32021, -32022})


def _error_codes(session: Session, sides: frozenset[str]) -> list[tuple[Message, int]]:
    found = []
    for message in _errors(session, sides):
        error = message.frame["error"]
        if isinstance(error, dict) and _is_integer(error.get("code")):
            found.append((message, error["code"]))
    return found


@check("errors-retired-codes-not-emitted")
def retired_codes(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) No error carries -32002 or -32042, codes this revision retired."""
    for message, code in _error_codes(session, sides):
        judgement.examine()
        if code in RETIRED_CODES:
            judgement.fail(message.seq, f"the {message.sender} sent error code {code} ({RETIRED_CODES[code]})")


@check("errors-reserved-range-defined-only")
def reserved_range(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) No error code in -32099..-32020 but those the specification defines."""
    for message, code in _error_codes(session, sides):
        judgement.examine()
        if -32099 <= code <= -32020 and code not in DEFINED_RESERVED_CODES:
            judgement.fail(message.seq, f"the {message.sender} sent error code {code}, reserved and undefined")


@check("errors-legacy-range-avoid")
def legacy_range(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) No error code in the legacy range -32019..-32000."""
    for message, code in _error_codes(session, sides):
        judgement.examine()
        if -32019 <= code <= -32000:
            judgement.fail(message.seq, f"the {message.sender} sent error code {code}, of the legacy range")


@check("ping-respond-promptly-empty")
def ping_answered_empty(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A ping is answered with the empty object as its result (when it is answered with a result)."""
    for response in session.messages:
        if response.kind != RESULT or response.sender not in sides:
            continue
        request = session.request_answered(response)
        if request is None or request.method != "ping":
            continue
        judgement.examine()
        if response.result != {}:
            judgement.fail(response.seq, f"the {response.sender} answered ping with {response.result!r}, not {{}}")


@check("cancellation-initialize-not-cancellable")
def initialize_not_cancelled(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The client never sends notifications/cancelled for its initialize request."""
    request = session.initialize
    for message in session.sent_by(CLIENT, NOTIFICATION):
        if message.method != "notifications/cancelled":
            continue
        judgement.examine()
        if request is not None and id_key(message.params.get("requestId")) == request.key:
            judgement.fail(message.seq, "the client cancelled its initialize request")


@check("cancellation-reference-own-inflight-request", "cancellation-reference-client-request")
def cancellation_names_own_request(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A notifications/cancelled names a request its own sender issued before it (at 2026-07-28, a
    request of the client's)."""
    for message in session.messages:
        if message.method != "notifications/cancelled" or message.sender not in sides:
            continue
        if "requestId" not in message.params:
            continue  # a task's cancellation (2025-11-25) names no request
        judgement.examine()
        requester = CLIENT if session.modern else message.sender
        request = session.requests.get((requester, id_key(message.params["requestId"])))
        if request is None or request.seq > message.seq:
            judgement.fail(
                message.seq,
                f"the {message.sender} cancelled request {message.params['requestId']!r}, "
                f"which the {requester} never sent",
            )


@check("cancellation-tasks-use-tasks-cancel")
def tasks_not_cancelled_by_notification(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) No notifications/cancelled names a task-augmented request: a task is cancelled with
    tasks/cancel."""
    for message in session.messages:
        sent = message.method == "notifications/cancelled" and message.sender in sides
        if not sent or "requestId" not in message.params:
            continue
        request = session.requests.get((message.sender, id_key(message.params["requestId"])))
        if request is None or request.seq > message.seq:
            continue
        judgement.examine()
        if isinstance(request.params.get("task"), dict):
            judgement.fail(
                message.seq, f"notifications/cancelled for the task-augmented {request.method} {request.id!r}"
            )


CORE_RESULT_TYPES = frozenset({"complete", "input_required"})


@check("messages-result-type-supported-set")
def result_types_known(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A result's resultType is complete or input_required, unless an extension was advertised
    (whose values this check cannot know)."""
    advertised = any(
        isinstance(capabilities, dict) and capabilities.get("extensions")
        for capabilities in (
            session.server_capabilities,
            *(m.meta.get(META_CLIENT_CAPABILITIES) for m in session.messages),
        )
    )
    for message in session.messages:
        if message.kind != RESULT or message.sender not in sides or not isinstance(message.result, dict):
            continue
        value = message.result.get("resultType")
        if value is None:
            continue
        judgement.examine()
        if value not in CORE_RESULT_TYPES and not advertised:
            judgement.fail(message.seq, f"the {message.sender}'s resultType {value!r}, with no extension advertised")


def _stdio_units(session: Session, direction: str) -> Iterator[Event]:
    """Each line one side wrote on stdio: a message, or one the recorder could not parse (``unparsable``)."""
    for event in session.events:
        if event["transport"] != "stdio" or event["direction"] != direction:
            continue
        if event["kind"] == "message" or (event["kind"] == "lifecycle" and event["event"] == "unparsable"):
            yield event


def _only_mcp_on_stdio(session: Session, judgement: Judgement, direction: str, side: str) -> None:
    for event in _stdio_units(session, direction):
        judgement.examine()
        if event["kind"] == "lifecycle":
            text = str(event.get("data", ""))[:60]
            judgement.fail(
                event["seq"], f"the {side} wrote a line that is no MCP message: {text!r} ({event.get('reason')})"
            )


@check("stdio-server-stdout-only-mcp")
def server_stdout_only_mcp(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A stdio server writes nothing but MCP messages on stdout (a recorder keeps any other line as
    unparsable)."""
    _only_mcp_on_stdio(session, judgement, "server-to-client", SERVER)


@check("stdio-client-stdin-only-mcp")
def client_stdin_only_mcp(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A stdio client writes nothing but MCP messages on the server's stdin."""
    _only_mcp_on_stdio(session, judgement, "client-to-server", CLIENT)


@check("cancellation-request-id-for-non-task-requestid")
def cancellations_name_their_request(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) A notifications/cancelled carries requestId (a task is cancelled with tasks/cancel)."""
    for message in session.messages:
        if message.method != "notifications/cancelled" or message.sender not in sides:
            continue
        judgement.examine()
        if "requestId" not in message.params:
            judgement.fail(message.seq, f"the {message.sender}'s notifications/cancelled names no requestId")
