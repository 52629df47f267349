"""Streamable HTTP, from the trace's ``http`` events: Accept headers, session ids, the protocol-version
header, the 2026-07-28 mirrored headers, statuses and content types of the answers.

An http POST event and the message it carried pair only where their order leaves no doubt
(``Session.body_of``). A response event is paired with its request only where that is certain: the one
request of its HTTP method still unanswered at that point (concurrent requests leave their answers unjudged).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from conformance.validator.judgement import Judgement, check
from conformance.validator.reader import Event
from conformance.validator.session import (
    ERROR,
    META_PROTOCOL_VERSION,
    NOTIFICATION,
    PROTOCOL_VERSION_HEADER,
    REQUEST,
    RESULT,
    SESSION_ID_HEADER,
    Message,
    Session,
    header,
)

STREAMABLE_HTTP = "streamable-http"
ENDPOINT_PATHS = "http-endpoint-paths"  # Session.memo's key
EVENT_STREAM, JSON = "text/event-stream", "application/json"


def _on_streamable_http(session: Session) -> str | None:
    if any(e["transport"] == STREAMABLE_HTTP for e in session.http):
        return None
    return "the trace has no Streamable HTTP exchange"


def path_of(event: Event) -> str | None:
    """The event's path without its query (None where the recorder wrote no path)."""
    path = event.get("path")
    return path.split("?", 1)[0].split("#", 1)[0] if isinstance(path, str) else None


def _carries_json_rpc(text: object) -> bool:
    try:
        parsed = json.loads(text) if isinstance(text, str) and text else None
    except ValueError:
        return False
    items = parsed if isinstance(parsed, list) else [parsed]
    return any(isinstance(item, dict) and item.get("jsonrpc") == "2.0" for item in items)


def endpoint_paths(session: Session) -> set[str]:
    """The paths JSON-RPC messages were POSTed to (a paired body, or a recorder's ``body`` member holding one):
    the MCP endpoint."""
    if ENDPOINT_PATHS not in session.memo:
        session.memo[ENDPOINT_PATHS] = {
            path
            for event in session.http_requests()
            if (path := path_of(event)) is not None
            and event["method"] == "POST"
            and (event["seq"] in session.body_of or _carries_json_rpc(event.get("body")))
        }
    return session.memo[ENDPOINT_PATHS]


def at_endpoint(session: Session, event: Event) -> bool:
    """Whether an http event is the MCP endpoint's: its path is one of ``endpoint_paths``, or it has none (a
    recorder that writes no path records the MCP endpoint only). The well-known metadata documents and an
    authorization server's endpoints on the same origin are not."""
    path = path_of(event)
    return path is None or path in endpoint_paths(session)


def _requests(session: Session, method: str | None = None) -> Iterator[Event]:
    for event in session.http_requests():
        wanted = method is None or event["method"] == method
        if event["transport"] == STREAMABLE_HTTP and wanted and at_endpoint(session, event):
            yield event


def exchanges(session: Session, anywhere: bool = False) -> list[tuple[Event, Event]]:
    """(request event, response event) pairs whose pairing is certain: the MCP endpoint's (``anywhere``: of every
    path, each path's apart)."""
    pending: dict[tuple[str, str | None], list[Event]] = {}
    pairs = []
    for event in session.http:
        if event["transport"] != STREAMABLE_HTTP or not (anywhere or at_endpoint(session, event)):
            continue
        key = (event["method"], path_of(event))
        if event["direction"] == "client-to-server":
            pending.setdefault(key, []).append(event)
            continue
        waiting = pending.get(key, [])
        if len(waiting) == 1:
            pairs.append((waiting.pop(), event))
        elif waiting:
            waiting.pop(0)  # answered, by one of them: which one is not certain
    return pairs


def _media_types(value: str | None) -> set[str]:
    return {part.split(";")[0].strip().lower() for part in (value or "").split(",") if part.strip()}


@check("streamable-http-client-accept-header-post", not_applicable=_on_streamable_http)
def post_accepts_json_and_event_stream(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every client POST has an Accept header naming application/json and text/event-stream."""
    for event in _requests(session, "POST"):
        judgement.examine()
        accepted = _media_types(header(event, "accept"))
        if not {JSON, EVENT_STREAM} <= accepted:
            judgement.fail(
                event["seq"], f"a POST accepts {sorted(accepted) or 'nothing'}: not both {JSON} and {EVENT_STREAM}"
            )


@check("streamable-http-client-accept-header-get", not_applicable=_on_streamable_http)
def get_accepts_event_stream(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every client GET has an Accept header naming text/event-stream."""
    for event in _requests(session, "GET"):
        judgement.examine()
        if EVENT_STREAM not in _media_types(header(event, "accept")):
            judgement.fail(event["seq"], f"a GET's Accept {header(event, 'accept')!r} does not name {EVENT_STREAM}")


@check("streamable-http-session-id-visible-ascii", not_applicable=_on_streamable_http)
def session_id_visible_ascii(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A session id the server assigns holds only visible ASCII (0x21 to 0x7E)."""
    for event in session.http_responses():
        value = header(event, SESSION_ID_HEADER)
        if value is None:
            continue
        judgement.examine()
        if not value or any(not 0x21 <= ord(c) <= 0x7E for c in value):
            judgement.fail(event["seq"], f"session id {value!r} holds characters outside 0x21..0x7E")


def _is_initialize_post(session: Session, event: Event) -> bool:
    body = session.body_of.get(event["seq"])
    return body is not None and body.method == "initialize"


@check("streamable-http-client-sends-session-id", not_applicable=_on_streamable_http)
def client_sends_session_id(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Once the server has given a session id, every later request of the client carries it (a new
    initialize, which opens another session, aside)."""
    assigned: str | None = None
    for event in session.http:
        if event["transport"] != STREAMABLE_HTTP or not at_endpoint(session, event):
            continue
        if event["direction"] == "server-to-client":
            assigned = header(event, SESSION_ID_HEADER) or assigned
            continue
        if assigned is None or _is_initialize_post(session, event):
            if assigned is not None:
                assigned = None
            continue
        judgement.examine()
        sent = header(event, SESSION_ID_HEADER)
        if sent != assigned:
            judgement.fail(
                event["seq"], f"a {event['method']} carries session id {sent!r}, not the assigned {assigned!r}"
            )


def _after_initialization(session: Session) -> Iterator[Event]:
    """The client's requests after an initialize result naming a revision: one naming none is a failed
    negotiation (a client that cannot work with it disconnects), with no version to send."""
    from conformance.catalogue.vocabulary import REVISIONS

    result = session.initialize_result
    if result is None or _negotiated(session) not in REVISIONS:
        return
    for event in _requests(session):
        if event["seq"] > result.seq:
            yield event


def _negotiated(session: Session) -> str | None:
    result = session.initialize_result
    version = result.result.get("protocolVersion") if result and isinstance(result.result, dict) else None
    return version if isinstance(version, str) else None


@check("streamable-http-protocol-version-header-after-init", not_applicable=_on_streamable_http)
def protocol_version_header_after_init(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """After initialization, every HTTP request of the client carries MCP-Protocol-Version."""
    for event in _after_initialization(session):
        judgement.examine()
        if header(event, PROTOCOL_VERSION_HEADER) is None:
            judgement.fail(event["seq"], f"a {event['method']} after initialization has no MCP-Protocol-Version header")


@check("streamable-http-protocol-version-header-negotiated", not_applicable=_on_streamable_http)
def protocol_version_header_negotiated(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The MCP-Protocol-Version the client sends is the version negotiated in initialize."""
    negotiated = _negotiated(session)
    for event in _after_initialization(session):
        sent = header(event, PROTOCOL_VERSION_HEADER)
        if sent is None or negotiated is None:
            continue
        judgement.examine()
        if sent != negotiated:
            judgement.fail(event["seq"], f"MCP-Protocol-Version {sent!r}, but {negotiated!r} was negotiated")


@check("streamable-http-protocol-version-header-every-post", not_applicable=_on_streamable_http)
def protocol_version_header_every_post(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) Every POST of the client carries MCP-Protocol-Version."""
    for event in _requests(session, "POST"):
        judgement.examine()
        if header(event, PROTOCOL_VERSION_HEADER) is None:
            judgement.fail(event["seq"], "a POST without an MCP-Protocol-Version header")


def posts_with_body(session: Session) -> Iterator[tuple[Event, Message]]:
    for event in _requests(session, "POST"):
        body = session.body_of.get(event["seq"])
        if body is not None:
            yield event, body


@check("streamable-http-protocol-version-header-matches-meta", not_applicable=_on_streamable_http)
def protocol_version_header_matches_meta(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) The MCP-Protocol-Version header equals the body's _meta protocol version."""
    for event, body in posts_with_body(session):
        declared = body.meta.get(META_PROTOCOL_VERSION)
        sent = header(event, PROTOCOL_VERSION_HEADER)
        if declared is None or sent is None:
            continue
        judgement.examine()
        if sent != declared:
            judgement.fail(event["seq"], f"MCP-Protocol-Version {sent!r} differs from the body's _meta {declared!r}")


@check("streamable-http-mcp-method-header", not_applicable=_on_streamable_http)
def method_header(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) Every request POST carries Mcp-Method equal to the body's method."""
    for event, body in posts_with_body(session):
        if body.kind != REQUEST:
            continue
        judgement.examine()
        sent = header(event, "mcp-method")
        if sent != body.method:
            judgement.fail(event["seq"], f"Mcp-Method {sent!r} for a {body.method} request")


NAMED_BY = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
BASE64_PREFIX, BASE64_SUFFIX = "=?base64?", "?="


def decoded(value: str) -> str | None:
    import base64
    import binascii

    if not (value.startswith(BASE64_PREFIX) and value.endswith(BASE64_SUFFIX)):
        return value
    try:
        return base64.b64decode(value[len(BASE64_PREFIX) : -len(BASE64_SUFFIX)], validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


@check("streamable-http-mcp-name-header", not_applicable=_on_streamable_http)
def name_header(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A tools/call, prompts/get or resources/read POST carries Mcp-Name equal to the body's
    params.name (params.uri for resources/read), plain or in the Base64 sentinel form."""
    for event, body in posts_with_body(session):
        member = NAMED_BY.get(body.method or "")
        if member is None or body.kind != REQUEST:
            continue
        judgement.examine()
        sent = header(event, "mcp-name")
        if sent is None or decoded(sent) != body.params.get(member):
            judgement.fail(event["seq"], f"Mcp-Name {sent!r} for a {body.method} of {body.params.get(member)!r}")


@check("streamable-http-post-body-single-message", not_applicable=_on_streamable_http)
def post_body_not_a_batch(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A POST body is one JSON-RPC message, never a batch array."""
    for event in session.events:
        if event["kind"] != "message" or event["direction"] != "client-to-server":
            continue
        if event["transport"] != STREAMABLE_HTTP:
            continue
        judgement.examine()
        if isinstance(event["payload"], list):
            judgement.fail(event["seq"], f"the client POSTed a batch of {len(event['payload'])} messages")


@check("streamable-http-request-response-content-type", not_applicable=_on_streamable_http)
def request_answer_content_type(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A successful answer to a POST carrying a request is application/json or text/event-stream."""
    for request, response in exchanges(session):
        body = session.body_of.get(request["seq"])
        if request["method"] != "POST" or body is None or body.kind != REQUEST or not 200 <= response["status"] < 300:
            continue
        if header(response, "content-type") is None:
            continue  # not recorded (a recorder keeps the headers it finds relevant)
        judgement.examine()
        media = _media_types(header(response, "content-type"))
        if not media & {JSON, EVENT_STREAM}:
            judgement.fail(
                response["seq"], f"a request's POST answered {response['status']} with content type {sorted(media)}"
            )


@check("streamable-http-accepted-no-request-202", not_applicable=_on_streamable_http)
def notification_post_accepted_202(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A POST carrying a notification or response that the server accepts is answered 202 Accepted."""
    for request, response in exchanges(session):
        body = session.body_of.get(request["seq"])
        if request["method"] != "POST" or body is None or body.kind not in (NOTIFICATION, RESULT, ERROR):
            continue
        if not 200 <= response["status"] < 300:
            continue
        judgement.examine()
        if response["status"] != 202:
            judgement.fail(
                response["seq"], f"a {body.method or 'response'} POST accepted with {response['status']}, not 202"
            )


@check("streamable-http-get-response", not_applicable=_on_streamable_http)
def get_answered_stream_or_405(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A successful answer to a GET opens an event stream (text/event-stream); a server without one says 405."""
    for request, response in exchanges(session):
        if request["method"] != "GET" or not 200 <= response["status"] < 300:
            continue
        if header(response, "content-type") is None:
            continue  # not recorded
        judgement.examine()
        media = _media_types(header(response, "content-type"))
        if EVENT_STREAM not in media:
            judgement.fail(
                response["seq"], f"a GET answered {response['status']} with {sorted(media)}, not an event stream"
            )


@check("streamable-http-x-accel-buffering", not_applicable=_on_streamable_http)
def event_stream_unbuffered(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) An answer that opens an event stream carries X-Accel-Buffering: no."""
    for event in session.http_responses():
        if EVENT_STREAM not in _media_types(header(event, "content-type")):
            continue
        judgement.examine()
        if (header(event, "x-accel-buffering") or "").strip().lower() != "no":
            judgement.fail(event["seq"], "an event stream opened without X-Accel-Buffering: no")


@check("streamable-http-ended-session-404", not_applicable=_on_streamable_http)
def ended_session_404(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Once a DELETE ended a session (a 2xx answer), a request sent later with that session id is answered
    404 (a request sent before the DELETE was answered is not judged, nor a 405: a method the endpoint does
    not offer at all, whatever the session)."""
    ended: dict[str, int] = {}  # session id -> seq of the answer that ended it
    for request, response in exchanges(session):
        session_id = header(request, SESSION_ID_HEADER)
        if session_id is None:
            continue
        if session_id in ended and request["seq"] > ended[session_id]:
            if response["status"] == 405:
                continue
            judgement.examine()
            if response["status"] != 404:
                judgement.fail(
                    response["seq"], f"a request in the ended session answered {response['status']}, not 404"
                )
        elif request["method"] == "DELETE" and 200 <= response["status"] < 300:
            ended.setdefault(session_id, response["seq"])


@check("streamable-http-client-sends-via-post", not_applicable=_on_streamable_http)
def messages_travel_by_post(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every JSON-RPC message the client sends over Streamable HTTP travels in a POST: the trace holds no
    more client bodies than POSTs (which POST carried which is not always certain: ``Session.post_pairing``)."""
    judgement.examine(
        sum(
            1
            for e in session.events
            if e["kind"] == "message" and e["direction"] == "client-to-server" and e["transport"] == STREAMABLE_HTTP
        )
    )
    unposted = session.post_pairing[1]
    if unposted is not None:
        seq, count = unposted
        judgement.fail(seq, f"{count} client message(s) from seq {seq} on travelled in no recorded POST")


@check("streamable-http-unsupported-protocol-version-400", not_applicable=_on_streamable_http)
def unknown_version_answered_400(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A request whose MCP-Protocol-Version names no revision at all is answered 400 Bad Request."""
    from conformance.catalogue.vocabulary import REVISIONS

    for request, response in exchanges(session):
        sent = header(request, PROTOCOL_VERSION_HEADER)
        if sent is None or sent in REVISIONS:
            continue
        judgement.examine()
        if response["status"] != 400:
            judgement.fail(response["seq"], f"MCP-Protocol-Version {sent!r} answered {response['status']}, not 400")


METHOD_NOT_FOUND = -32601


@check("streamable-http-method-not-found-404", not_applicable=_on_streamable_http)
def unknown_method_answered_404(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A request the server answers with -32601 (method not found) gets HTTP status 404."""
    for request, response in exchanges(session):
        body = session.body_of.get(request["seq"])
        if body is None or body.kind != REQUEST:
            continue
        answers = session.answers_to(body)
        error = answers[0].frame.get("error") if answers and answers[0].kind == ERROR else None
        if not isinstance(error, dict) or error.get("code") != METHOD_NOT_FOUND:
            continue
        judgement.examine()
        if response["status"] != 404:
            judgement.fail(response["seq"], f"method not found ({body.method}) answered {response['status']}, not 404")


def _post_answers(session: Session, transport: str) -> Iterator[Event]:
    return (e for e in session.http_responses() if e["transport"] == transport and e["method"] == "POST")


@check("streamable-http-endpoint-accepts-post", not_applicable=_on_streamable_http)
def endpoint_accepts_post(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The MCP endpoint takes POST: no POST is answered 405 Method Not Allowed."""
    for response in _post_answers(session, STREAMABLE_HTTP):
        judgement.examine()
        if response["status"] == 405:
            judgement.fail(response["seq"], "a POST to the MCP endpoint was answered 405 Method Not Allowed")


def _on_http_sse(session: Session) -> str | None:
    return None if any(e["transport"] == "sse" for e in session.http) else "the trace has no HTTP+SSE exchange"


@check("http-sse-post-endpoint", not_applicable=_on_http_sse)
def sse_server_takes_posts(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2024-11-05) The server offers a POST endpoint: no POST of the client is answered 405 Method Not
    Allowed."""
    for response in _post_answers(session, "sse"):
        judgement.examine()
        if response["status"] == 405:
            judgement.fail(response["seq"], "a POST of the client was answered 405 Method Not Allowed")


@check("streamable-http-missing-session-id-400", not_applicable=_on_streamable_http)
def missing_session_id_answered_400(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Once the server has assigned a session id, a POST of another message than initialize without the
    Mcp-Session-Id header is answered 400 Bad Request."""
    assigned = False
    for request, response in exchanges(session):
        body = session.body_of.get(request["seq"])
        unnamed = header(request, SESSION_ID_HEADER) is None
        if unnamed and assigned and request["method"] == "POST" and body is not None and body.method != "initialize":
            judgement.examine()
            if response["status"] != 400:
                judgement.fail(
                    response["seq"], f"a {body.method or body.kind} without a session id answered {response['status']}"
                )
        assigned = assigned or header(response, SESSION_ID_HEADER) is not None


@check("streamable-http-client-reinitialize-on-404", not_applicable=_on_streamable_http)
def no_request_on_a_session_gone(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """After a 404 to a request carrying a session id, the client's next POST opens a new session: an
    initialize without a session id. That initialize begins another session of the trace (``following``);
    a next POST within the session is something else (it fails); a client that never POSTs again leaves
    nothing to judge (the trace may end first). A DELETE of the old session is no message."""
    for request, response in exchanges(session):
        gone = header(request, SESSION_ID_HEADER)
        if response["status"] != 404 or gone is None:
            continue
        later = next((e for e in session.http_requests() if e["seq"] > response["seq"] and e["method"] == "POST"), None)
        if later is None:
            if _opens_afresh(session.following):
                judgement.examine()
            continue
        judgement.examine()
        body = session.body_of.get(later["seq"])
        if header(later, SESSION_ID_HEADER) is not None or (body is not None and body.method != "initialize"):
            judgement.fail(later["seq"], f"after the 404 at seq {response['seq']} the client POSTs no fresh initialize")


def _opens_afresh(following: list[Event]) -> bool:
    """Whether the events after a session open the next one with the client's initialize POSTed without a
    session id (the only way an HTTP session is followed by another of the same transport)."""
    post = next((e for e in following if e["kind"] == "http" and e["direction"] == "client-to-server"), None)
    message = next((e for e in following if e["kind"] == "message"), None)
    payload = message["payload"] if message is not None else None
    return (
        post is not None
        and post["method"] == "POST"
        and header(post, SESSION_ID_HEADER) is None
        and isinstance(payload, dict)
        and message["direction"] == "client-to-server"
        and payload.get("method") == "initialize"
    )


@check("streamable-http-post-body-batch", not_applicable=_on_streamable_http)
def post_batch_shape(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-03-26) A batch the client POSTs is not empty, and holds requests and notifications only or
    responses only."""
    for event in session.events:
        if (
            event["kind"] != "message"
            or event["direction"] != "client-to-server"
            or event["transport"] != STREAMABLE_HTTP
        ):
            continue
        payload = event["payload"]
        if not isinstance(payload, list):
            continue
        judgement.examine()
        kinds = {Message(event["seq"], "client", STREAMABLE_HTTP, item).kind for item in payload}
        if not payload:
            judgement.fail(event["seq"], "the client POSTed an empty batch")
        elif kinds & {RESULT, ERROR} and kinds & {REQUEST, NOTIFICATION}:
            judgement.fail(event["seq"], "the client POSTed a batch mixing responses with requests or notifications")
        elif not kinds <= {RESULT, ERROR, REQUEST, NOTIFICATION}:
            judgement.fail(event["seq"], "the client POSTed a batch holding something that is no JSON-RPC message")


UNSUPPORTED_VERSION = -32022


def unsupported_version_errors(session: Session) -> Iterator[tuple[Message, dict]]:
    for message in session.messages:
        error = message.frame.get("error") if message.kind == ERROR else None
        if message.sender == "server" and isinstance(error, dict) and error.get("code") == UNSUPPORTED_VERSION:
            yield message, error


def supported_list(error: dict) -> list | None:
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, dict) else None
    return supported if isinstance(supported, list) else None


@check("streamable-http-unsupported-protocol-version-error")
def unsupported_version_lists_supported(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) An UnsupportedProtocolVersionError (-32022) lists the versions the server supports:
    data.supported, a non-empty list of strings."""
    for message, error in unsupported_version_errors(session):
        judgement.examine()
        supported = supported_list(error)
        if not supported or not all(isinstance(v, str) for v in supported):
            judgement.fail(
                message.seq, "an UnsupportedProtocolVersionError lists no supported versions (data.supported)"
            )


def _not_modern_only(session: Session) -> str | None:
    """The server supports 2026-07-28 alone when its server/discover result lists no initialize-based version."""
    from conformance.catalogue.vocabulary import REVISIONS

    legacy = {r for r in REVISIONS if r < "2026-07-28"}
    results = session.results_by_method.get(("server", "server/discover"), [])
    listed = results[-1].result.get("supportedVersions") if results and isinstance(results[-1].result, dict) else None
    if not isinstance(listed, list):
        return "no server/discover result lists the server's versions"
    return "the server also supports an initialize-based version" if legacy & set(map(str, listed)) else None


@check("streamable-http-modern-server-get-delete-405", not_applicable=_not_modern_only)
def modern_only_get_delete_405(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A server supporting 2026-07-28 alone answers GET and DELETE with 405 Method Not Allowed."""
    for request, response in exchanges(session):
        if request["method"] not in ("GET", "DELETE"):
            continue
        judgement.examine()
        if response["status"] != 405:
            judgement.fail(response["seq"], f"a {request['method']} was answered {response['status']}, not 405")


@check("streamable-http-modern-server-no-session-id", not_applicable=_not_modern_only)
def modern_only_no_session_id(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A server supporting 2026-07-28 alone neither issues nor echoes an Mcp-Session-Id."""
    for response in session.http_responses():
        if response["transport"] != STREAMABLE_HTTP:
            continue
        judgement.examine()
        if header(response, SESSION_ID_HEADER) is not None:
            judgement.fail(response["seq"], "a response carries an Mcp-Session-Id header")
