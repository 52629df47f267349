"""2026-07-28's per-request _meta: clientInfo on every request and serverInfo on every result, capabilities a
client supports declared on every request, W3C trace context values, MissingRequiredClientCapabilityError
and the HTTP status of the envelope's refusals; and (2025-11-25 on) _meta prefixes in reverse-DNS order."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from conformance.validator.checks.capabilities import declared
from conformance.validator.checks.http import _on_streamable_http, exchanges
from conformance.validator.judgement import Judgement, check
from conformance.validator.reader import Event
from conformance.validator.session import (
    CLIENT,
    ERROR,
    META_CLIENT_CAPABILITIES,
    META_PROTOCOL_VERSION,
    REQUEST,
    RESULT,
    SERVER,
    Message,
    Session,
)

CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
MISSING_CLIENT_CAPABILITY = -32021
INVALID_PARAMS = -32602
TRACEPARENT = re.compile(r"^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$")
TRACESTATE_MEMBER = re.compile(
    r"^([a-z0-9][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})"
    r"=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$"
)
TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
BAGGAGE_MEMBER = re.compile(
    rf"^{TOKEN}\s*=\s*[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*\s*(;\s*{TOKEN}(\s*=\s*[^,;]*)?\s*)*$"
)
# top-level domains seen first in a forward-written prefix (example.com/) and last in a reversed one
TOP_LEVEL = frozenset({"com", "org", "net", "io", "dev", "ai", "app", "edu", "gov", "co", "uk", "de", "fr", "jp", "eu"})


def _not_modern(session: Session) -> str | None:
    return None if session.modern else "the per-request _meta envelope exists from 2026-07-28"


def _result_meta(message: Message) -> dict:
    meta = message.result.get("_meta") if isinstance(message.result, dict) else None
    return meta if isinstance(meta, dict) else {}


def metas(session: Session) -> Iterator[tuple[Message, dict]]:
    """Every _meta object of the trace, with the message carrying it."""
    for message in session.messages:
        meta = _result_meta(message) if message.kind == RESULT else message.meta
        if meta:
            yield message, meta


@check("meta-client-info-every-request", not_applicable=_not_modern)
def client_info_on_requests(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every client request carries io.modelcontextprotocol/clientInfo in its _meta."""
    for request in session.sent_by(CLIENT, REQUEST):
        judgement.examine()
        if CLIENT_INFO not in request.meta:
            judgement.fail(request.seq, f"a {request.method} request without {CLIENT_INFO}")


@check("meta-server-info-every-result", not_applicable=_not_modern)
def server_info_on_results(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every server result carries io.modelcontextprotocol/serverInfo in its _meta."""
    for result in session.sent_by(SERVER, RESULT):
        judgement.examine()
        if SERVER_INFO not in _result_meta(result):
            request = session.request_answered(result)
            judgement.fail(result.seq, f"a {request.method if request else 'result'} result without {SERVER_INFO}")


def _declared_on_every_request(session: Session, judgement: Judgement, capability: str) -> None:
    """A client that declares ``capability`` on one request declares it on each."""
    requests = list(session.sent_by(CLIENT, REQUEST))
    declaring = [r for r in requests if declared(session.client_capabilities_for(r), (capability,))]
    if not declaring:
        return
    for request in requests:
        judgement.examine()
        if request not in declaring:
            judgement.fail(
                request.seq,
                f"a {request.method} request leaves {capability} out of its clientCapabilities "
                f"(declared at seq {declaring[0].seq})",
            )


@check("roots-capability-declare-per-request", not_applicable=_not_modern)
def roots_declared_on_every_request(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client that declares roots in one request's clientCapabilities declares it in every request."""
    _declared_on_every_request(session, judgement, "roots")


@check("sampling-capability-declare-per-request", not_applicable=_not_modern)
def sampling_declared_on_every_request(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client that declares sampling in one request's clientCapabilities declares it in every request."""
    _declared_on_every_request(session, judgement, "sampling")


@check("elicitation-capability-declare-per-request", not_applicable=_not_modern)
def elicitation_declared_on_every_request(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client that declares elicitation in one request's clientCapabilities declares it in every request."""
    _declared_on_every_request(session, judgement, "elicitation")


def _trace_context_problem(key: str, value: Any) -> str | None:
    if not isinstance(value, str):
        return f"{key} is {type(value).__name__}, not a string"
    if key == "traceparent":
        return None if TRACEPARENT.match(value) else f"traceparent {value!r} is not version-traceid-parentid-flags"
    members = [m.strip() for m in value.split(",") if m.strip()]
    pattern = TRACESTATE_MEMBER if key == "tracestate" else BAGGAGE_MEMBER
    bad = [m for m in members if not pattern.match(m)]
    return f"{key} member {bad[0]!r} is not key=value" if bad else None


@check("meta-trace-context-format", not_applicable=_not_modern)
def trace_context_values(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """traceparent and tracestate in _meta follow W3C Trace Context, baggage W3C Baggage."""
    for message, meta in metas(session):
        for key in ("traceparent", "tracestate", "baggage"):
            if key not in meta:
                continue
            judgement.examine()
            problem = _trace_context_problem(key, meta[key])
            if problem:
                judgement.fail(message.seq, problem)


def _error(answer: Message) -> dict:
    error = answer.frame.get("error") if answer.kind == ERROR else None
    return error if isinstance(error, dict) else {}


@check("meta-missing-client-capability-error", not_applicable=_not_modern)
def missing_capability_errors_name_them(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A MissingRequiredClientCapabilityError (-32021) carries data.requiredCapabilities naming capabilities
    the request's clientCapabilities lack."""
    for answer in session.sent_by(SERVER, ERROR):
        error = _error(answer)
        if error.get("code") != MISSING_CLIENT_CAPABILITY:
            continue
        judgement.examine()
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        required = data.get("requiredCapabilities")
        if not isinstance(required, dict) or not required:
            judgement.fail(answer.seq, "a -32021 error without data.requiredCapabilities naming a capability")
            continue
        request = session.request_answered(answer)
        declared_by_request = session.client_capabilities_for(request)
        present = [".".join(path) for path in _paths(required) if declared(declared_by_request, path)]
        if present and len(present) == len(list(_paths(required))):
            judgement.fail(answer.seq, f"a -32021 error names {present}, which the request declared")


def _paths(capabilities: dict, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The capability paths a capabilities object names: down to each empty object or non-object value
    (``{"elicitation": {"url": {}}}`` names elicitation.url)."""
    for name, value in capabilities.items():
        if isinstance(value, dict) and value:
            yield from _paths(value, (*prefix, name))
        else:
            yield (*prefix, name)


def _refusal_statuses(session: Session, refused: Any) -> Iterator[tuple[Message, Event, int]]:
    """(request, its HTTP response event, the status) for each request whose answer ``refused`` selects."""
    for post, response in exchanges(session):
        body = session.body_of.get(post["seq"])
        if body is None or body.kind != REQUEST:
            continue
        answers = session.answers_to(body)
        if answers and refused(body, answers[0]):
            yield body, response, response["status"]


@check("meta-missing-client-capability-http-400", not_applicable=_on_streamable_http)
def missing_capability_answered_400(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Over HTTP, a MissingRequiredClientCapabilityError travels with status 400."""
    for body, response, status in _refusal_statuses(
        session, lambda _, answer: _error(answer).get("code") == MISSING_CLIENT_CAPABILITY
    ):
        judgement.examine()
        if status != 400:
            judgement.fail(response["seq"], f"-32021 for {body.method} sent with status {status}, not 400")


def _lacks_required_meta(request: Message) -> bool:
    return not all(key in request.meta for key in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES))


@check("meta-missing-required-field-http-400", not_applicable=_on_streamable_http)
def missing_meta_answered_400(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Over HTTP, the refusal of a request lacking a required _meta field travels with status 400."""
    for body, response, status in _refusal_statuses(
        session, lambda request, answer: _lacks_required_meta(request) and answer.kind == ERROR
    ):
        judgement.examine()
        if status != 400:
            judgement.fail(response["seq"], f"the refusal of {body.method} lacking _meta sent with {status}, not 400")


def _forward_written(prefix: str) -> bool:
    labels = prefix.split(".")
    return len(labels) >= 2 and labels[-1] in TOP_LEVEL and labels[0] not in TOP_LEVEL


@check("meta-key-prefix-reverse-dns")
def meta_prefixes_reversed(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A _meta key's prefix is written in reverse-DNS order (com.example/, not example.com/)."""
    for message, meta in metas(session):
        if message.sender not in sides:
            continue
        for key in meta:
            if "/" not in key:
                continue
            judgement.examine()
            prefix = key.rsplit("/", 1)[0]
            if _forward_written(prefix):
                judgement.fail(message.seq, f"_meta key {key!r}: its prefix reads as a forward domain name")
