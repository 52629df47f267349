"""The handshake (up to 2025-11-25): initialize first, its shape both ways, the initialized notification,
nothing but ping before it, the negotiated version kept, only negotiated capabilities used."""

from __future__ import annotations

import json

from conformance.catalogue.vocabulary import REVISIONS
from conformance.harness import schema
from conformance.harness.peer import method_definitions
from conformance.harness.tour import as_defined, members_judged_at, sender_definitions
from conformance.validator.checks.http import exchanges, supported_list, unsupported_version_errors
from conformance.validator.checks.schema import definition_of
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import (
    CLIENT,
    ERROR,
    META_PROTOCOL_VERSION,
    NOTIFICATION,
    REQUEST,
    RESULT,
    SERVER,
    Session,
)

PING = "ping"


def _no_handshake(session: Session) -> str | None:
    if session.modern:
        return None
    return None if session.initialize is not None else "the trace holds no initialize request"


def _no_initialize_result(session: Session) -> str | None:
    return None if session.initialize_result is not None else "the server never answered initialize with a result"


def _refused_before_session(session: Session) -> set[int]:
    """seq of each client request before initialize that the server refused: with a JSON-RPC error, or with an
    HTTP 4xx to the POST that carried it."""
    refused = {
        m.seq
        for m in session.before_session
        if m.kind == REQUEST
        and any(r.kind == ERROR for r in session.before_session if r.sender == SERVER and r.key == m.key)
    }
    for request, response in exchanges(session):
        body = session.body_of.get(request["seq"])
        if body is not None and 400 <= response["status"] < 500:
            refused.add(body.seq)
    return refused


@check("lifecycle-initialize-first")
def initialize_first(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The session opens with the client's initialize request: before it, nothing but ping, and requests the
    server refused (a client probing for a newer revision first, as 2026-07-28 lets it)."""
    if not session.all_messages:
        return
    judgement.examine()
    if session.initialize is None:
        opening = session.all_messages[0]
        if opening.sender not in sides:
            return
        judgement.fail(
            opening.seq, f"the {opening.sender} sent {opening.method or opening.kind} and no initialize came"
        )
        return
    refused = _refused_before_session(session)
    for message in session.before_session:
        if message.method == PING or message.seq in refused or message.sender not in sides:
            continue
        if message.kind == ERROR or (message.kind == RESULT and message.sender == SERVER and message.result == {}):
            continue  # the refusal of a probe, or the answer to a ping
        judgement.fail(message.seq, f"the {message.sender} sent {message.method or message.kind} before initialize")
        return


@check("lifecycle-client-sends-initialize", not_applicable=_no_handshake)
def initialize_request_members(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The initialize request carries protocolVersion (a string), capabilities and clientInfo (objects)."""
    request = session.initialize
    if request is None:
        return
    judgement.examine()
    params = request.params
    expected = {"protocolVersion": str, "capabilities": dict, "clientInfo": dict}
    for member, kind in expected.items():
        if not isinstance(params.get(member), kind):
            judgement.fail(request.seq, f"initialize params.{member} is missing or not a {kind.__name__}")


@check("lifecycle-server-initialize-result", not_applicable=_no_initialize_result)
def initialize_result_members(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The initialize result carries protocolVersion (a string), capabilities and serverInfo (objects)."""
    response = session.initialize_result
    if response is None:
        return
    judgement.examine()
    result = response.result if isinstance(response.result, dict) else {}
    expected = {"protocolVersion": str, "capabilities": dict, "serverInfo": dict}
    for member, kind in expected.items():
        if not isinstance(result.get(member), kind):
            judgement.fail(response.seq, f"initialize result.{member} is missing or not a {kind.__name__}")


@check("lifecycle-client-sends-initialized", not_applicable=_no_initialize_result)
def initialized_before_operation(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Once initialize succeeded, notifications/initialized comes before any other request or notification
    of the client's (ping aside): a client that said nothing more never had the chance."""
    response = session.initialize_result
    if response is None:
        return
    for message in session.sent_by(CLIENT, REQUEST, NOTIFICATION):
        if message.seq <= response.seq or message.method == PING:
            continue
        judgement.examine()
        if message.method != "notifications/initialized":
            judgement.fail(message.seq, f"the client sent {message.method} before notifications/initialized")
        return


@check("lifecycle-client-no-requests-before-init-response", not_applicable=_no_handshake)
def client_waits_for_initialize_result(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Until the server answered initialize, the client sends no request but initialize and ping."""
    request = session.initialize
    if request is None:
        return
    judgement.examine()
    answered = session.initialize_result.seq if session.initialize_result else None
    for message in session.sent_by(CLIENT, REQUEST):
        if answered is not None and message.seq > answered:
            break
        if message.seq > request.seq and message.method not in ("initialize", PING):
            judgement.fail(message.seq, f"the client sent {message.method} before the initialize result")


@check("lifecycle-server-no-requests-before-initialized", not_applicable=_no_initialize_result)
def server_waits_for_initialized(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Until notifications/initialized arrived, the server sends the client no request but ping."""
    judgement.examine()
    ready = session.initialized_seq
    for message in session.sent_by(SERVER, REQUEST):
        if ready is not None and message.seq > ready:
            break
        if message.method != PING:
            judgement.fail(message.seq, f"the server sent {message.method} before notifications/initialized")


@check("lifecycle-initialize-not-batched", not_applicable=_no_handshake)
def initialize_alone(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The initialize request never travels inside a JSON-RPC batch."""
    for message in session.sent_by(CLIENT, REQUEST):
        if message.method == "initialize":
            judgement.examine()
            if message.in_batch:
                judgement.fail(message.seq, "initialize sent as a member of a batch")


def _defined_elsewhere(revision: str) -> dict[str, list[str]]:
    """method -> the revisions defining it, for the methods ``revision`` does not define."""
    ours = method_definitions(revision)
    found: dict[str, list[str]] = {}
    for other_revision in REVISIONS:
        for method in method_definitions(other_revision):
            if method not in ours:
                found.setdefault(method, []).append(other_revision)
    return found


@check("lifecycle-use-negotiated-version-should", "lifecycle-use-negotiated-version-must")
def keeps_to_the_negotiated_revision(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every request and notification uses a method of the negotiated revision, not one that only another
    revision defines (a method no revision defines is an extension, not judged here); and every message of a
    schema definition its sender sends has only members the negotiated revision defines (outside the schema's
    extension points; the initialize request, sent before a revision is agreed, those of the revision it
    proposes), as the live suite judges it (conformance/test_lifecycle.py, harness/tour.undefined_in)."""
    revision = session.revision
    foreign = _defined_elsewhere(revision)
    for message in session.messages:
        if message.sender not in sides:
            continue
        if message.method is not None:
            judgement.examine()
            if message.method in foreign:
                others = ", ".join(foreign[message.method])
                judgement.fail(
                    message.seq,
                    f"the {message.sender} sent {message.method}, which {revision} does not define ({others} do)",
                )
                continue
        definition = definition_of(session, message)
        if definition is None or definition not in sender_definitions(revision, message.sender):
            continue
        judged_at = members_judged_at(revision, definition, message.frame)
        if judged_at is None:
            continue
        judgement.examine()
        members = schema.undefined_members(judged_at, definition, as_defined(judged_at, definition, message.frame))
        if members:
            judgement.fail(message.seq, f"the {message.sender} sent members {judged_at} does not define: {members}")


@check("versioning-modern-only-initialize-error")
def initialize_refusal_names_versions(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) An error the server answers an initialize request with names a protocol version it
    supports (in its message or its data)."""
    for request in session.all_messages:
        if request.sender != CLIENT or request.kind != REQUEST or request.method != "initialize":
            continue
        refusals = [a for a in session.answers_to(request) if a.kind == ERROR]
        if not refusals:
            continue
        judgement.examine()
        error = refusals[0].frame.get("error")
        text = json.dumps(error) if isinstance(error, dict) else ""
        if not any(revision in text for revision in REVISIONS):
            judgement.fail(refusals[0].seq, "the refusal of initialize names no protocol version the server supports")


@check("versioning-client-retry-supported-version")
def retry_with_a_supported_version(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A client that sends the refused method again after an UnsupportedProtocolVersionError,
    naming another version than the refused one (a retry with a version it chose), names one of the error's
    supported list. A request naming the refused version again is no such retry (it may be a new attempt,
    another connection): not judged."""
    for message, error in unsupported_version_errors(session):
        refused = session.request_answered(message)
        supported = supported_list(error)
        if refused is None or not supported:
            continue
        refused_version = refused.meta.get(META_PROTOCOL_VERSION)
        retry = next(
            (m for m in session.sent_by(CLIENT, REQUEST) if m.seq > message.seq and m.method == refused.method), None
        )
        if retry is None or retry.meta.get(META_PROTOCOL_VERSION) == refused_version:
            continue
        judgement.examine()
        version = retry.meta.get(META_PROTOCOL_VERSION)
        if version not in supported:
            judgement.fail(
                retry.seq, f"the retry of {refused.method} names version {version!r}, not one of {supported}"
            )


def _probes_with_discover(session: Session, judgement: Judgement) -> None:
    opening = next((m for m in session.sent_by(CLIENT, REQUEST) if m.transport == "stdio"), None)
    if opening is None or not session.modern:
        return
    judgement.examine()
    if opening.method != "server/discover":
        judgement.fail(opening.seq, f"the client's first request on stdio is {opening.method}, not server/discover")


def _initializes_later(session: Session) -> bool:
    """Whether the client sends initialize on stdio in a later session of the trace: it speaks an
    initialize-based revision too."""
    return any(
        event["kind"] == "message"
        and event["direction"] == "client-to-server"
        and event["transport"] == "stdio"
        and isinstance(event["payload"], dict)
        and event["payload"].get("method") == "initialize"
        for event in session.following
    )


@check("stdio-backcompat-probe-discover")
def stdio_client_probes_first(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A stdio client speaking a modern revision and an initialize-based one sends server/discover
    before any other request. An opening without the probe is judged here only where the trace shows the
    client initializing in a later session; else whether the row binds it (a modern-only client is
    stdio-backcompat-modern-only-probe's) the trace does not say."""
    opening = next((m for m in session.sent_by(CLIENT, REQUEST) if m.transport == "stdio"), None)
    if opening is None or not session.modern:
        return
    if opening.method != "server/discover" and not _initializes_later(session):
        judgement.cannot_judge(
            opening.seq,
            f"the client opened with {opening.method}, not server/discover; whether it also speaks an "
            "initialize-based revision, which this row asks, the trace does not show",
        )
        return
    _probes_with_discover(session, judgement)


@check("stdio-backcompat-modern-only-probe")
def stdio_modern_client_probes_first(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A stdio client speaking a modern revision sends server/discover before any other request
    (the modern-only client's row; the trace cannot tell it from one that also speaks a legacy revision, and
    the rule is the same)."""
    _probes_with_discover(session, judgement)
