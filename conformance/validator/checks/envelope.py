"""The envelope around the payloads: `_meta` key names, 2026-07-28's per-request `_meta` fields, and
extension identifiers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from conformance.validator.judgement import Judgement, check
from conformance.validator.reader import Event
from conformance.validator.session import (
    CLIENT,
    META_CLIENT_CAPABILITIES,
    META_PROTOCOL_VERSION,
    PROTOCOL_VERSION_HEADER,
    REQUEST,
    RESULT,
    SERVER,
    Message,
    Session,
    header,
)

LABEL = re.compile(r"^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$")
ALPHANUMERIC = re.compile(r"^[A-Za-z0-9]")


def _meta_keys(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "_meta" and isinstance(value, dict):
                yield from value
            yield from _meta_keys(value)
    elif isinstance(node, list):
        for item in node:
            yield from _meta_keys(item)


def meta_keys(session: Session) -> list[tuple[Message, str]]:
    """Every key of every ``_meta`` object in every message, with its message (worked out once a session)."""
    found = session.memo.get("meta-keys")
    if found is None:
        found = [(message, key) for message in session.messages for key in _meta_keys(message.frame)]
        session.memo["meta-keys"] = found
    return found


def split_key(key: str) -> tuple[list[str] | None, str]:
    """(the labels of the key's prefix, or None without one; the name)."""
    if "/" not in key:
        return None, key
    prefix, name = key.rsplit("/", 1)
    return prefix.split("."), name


def prefix_labels_problem(key: str) -> str | None:
    labels, _ = split_key(key)
    if labels is not None and any(label == "" for label in labels):
        return "its prefix is not dot-separated labels ending with /"
    return None


def label_characters_problem(key: str) -> str | None:
    labels, _ = split_key(key)
    bad = [label for label in labels or [] if label and not LABEL.match(label)]
    return (
        f"prefix label {bad[0]!r} is not letters, digits and hyphens from a letter to a letter or digit"
        if bad
        else None
    )


def name_ends_problem(key: str) -> str | None:
    _, name = split_key(key)
    if name and not (ALPHANUMERIC.match(name) and ALPHANUMERIC.match(name[-1])):
        return f"name {name!r} does not start and end with a letter or digit"
    return None


def _judge_keys(session: Session, judgement: Judgement, sides: frozenset[str], problem_of: Any) -> None:
    for message, key in meta_keys(session):
        if message.sender not in sides:
            continue
        judgement.examine()
        problem = problem_of(key)
        if problem:
            judgement.fail(message.seq, f"the {message.sender}'s _meta key {key!r}: {problem}")


@check("meta-key-prefix-labels")
def meta_prefix_labels(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A _meta key's prefix, if any, is one or more dot-separated labels ending with a slash."""
    _judge_keys(session, judgement, sides, prefix_labels_problem)


@check("meta-key-prefix-label-characters")
def meta_prefix_label_characters(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each label of a _meta key's prefix starts with a letter, ends with a letter or digit, and holds only
    letters, digits and hyphens."""
    _judge_keys(session, judgement, sides, label_characters_problem)


@check("meta-key-name-alphanumeric-ends")
def meta_name_ends(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A non-empty _meta key name starts and ends with an ASCII letter or digit."""
    _judge_keys(session, judgement, sides, name_ends_problem)


@check("meta-request-required-fields")
def request_meta_fields(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) Every client request's params._meta carries the protocol version and the client's
    capabilities."""
    for request in session.sent_by(CLIENT, REQUEST):
        judgement.examine()
        missing = [k for k in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES) if k not in request.meta]
        if missing:
            judgement.fail(request.seq, f"the client's {request.method} lacks _meta {', '.join(missing)}")


def _extension_keys(session: Session) -> Iterator[tuple[Message, str]]:
    for message in session.messages:
        if message.sender == SERVER and message.kind == RESULT and isinstance(message.result, dict):
            capabilities = message.result.get("capabilities")
        elif message.sender == CLIENT and message.kind == REQUEST:
            capabilities = message.params.get("capabilities") or message.meta.get(META_CLIENT_CAPABILITIES)
        else:
            continue
        extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
        for key in extensions if isinstance(extensions, dict) else ():
            yield message, key


@check("versioning-extension-identifier-format")
def extension_identifiers(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) Every key of a capabilities extensions map has a prefix and follows the _meta key rules."""
    for message, key in _extension_keys(session):
        if message.sender not in sides:
            continue
        judgement.examine()
        problems = [p(key) for p in (prefix_labels_problem, label_characters_problem, name_ends_problem)]
        if split_key(key)[0] is None:
            problems.append("it has no prefix")
        found = [p for p in problems if p]
        if found:
            judgement.fail(message.seq, f"the {message.sender}'s extension {key!r}: {'; '.join(found)}")


INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION = -32602, -32022


def _first_answer_code(session: Session, request: Message) -> tuple[bool, Any]:
    """(answered at all, the error code of the first answer or None for a result)."""
    answers = session.answers_to(request)
    if not answers:
        return False, None
    error = answers[0].frame.get("error") if answers[0].kind == "error" else None
    return True, error.get("code") if isinstance(error, dict) else None


@check("meta-missing-required-field-invalid-params")
def missing_meta_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A client request lacking a required _meta field is answered with error -32602. An
    initialize (a legacy client's, which knows no per-request _meta) is not judged here: a server speaking
    2026-07-28 alone may refuse it with whatever error, so long as it lists its versions
    (versioning-modern-only-initialize-error)."""
    for request in session.sent_by(CLIENT, REQUEST):
        if request.method == "initialize":
            continue
        if all(k in request.meta for k in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES)):
            continue
        answered, code = _first_answer_code(session, request)
        if not answered:
            continue
        judgement.examine()
        if code != INVALID_PARAMS:
            given = "a result" if code is None else f"error {code}"
            judgement.fail(request.seq, f"a {request.method} lacking required _meta was answered with {given}")


def _posts_by_seq(session: Session) -> list[tuple[Event, Message]]:
    posts = {e["seq"]: e for e in session.http_requests()}
    return [(posts[seq], body) for seq, body in session.body_of.items() if seq in posts]


@check("versioning-unsupported-version-error")
def unknown_version_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) A request declaring a protocol version that is no revision at all is answered with
    UnsupportedProtocolVersionError (-32022); one whose MCP-Protocol-Version header names another version than
    its _meta is a header mismatch first (-32020 answers it), and is not judged here."""
    from conformance.catalogue.vocabulary import REVISIONS

    header_of = {body.seq: header(post, PROTOCOL_VERSION_HEADER) for post, body in _posts_by_seq(session)}
    for request in session.sent_by(CLIENT, REQUEST):
        declared_version = request.meta.get(META_PROTOCOL_VERSION)
        if declared_version is None or declared_version in REVISIONS:
            continue
        if header_of.get(request.seq) not in (None, declared_version):
            continue
        answered, code = _first_answer_code(session, request)
        if not answered:
            continue
        judgement.examine()
        if code != UNSUPPORTED_PROTOCOL_VERSION:
            given = "a result" if code is None else f"error {code}"
            judgement.fail(request.seq, f"protocol version {declared_version!r} was answered with {given}, not -32022")
