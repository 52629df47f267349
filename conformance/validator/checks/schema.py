"""The schema rows: every message a side sends is valid against its definition in the revision's pinned
schema, as the spec publishes it (the suite's own schema loading, conformance/harness/schema.py, which
reads the pinned schema.json with jsonschema, never the SDK's types).

Each message is named by its definition as the live suite names it (conformance/harness/tour.py): a
request or notification by its method, a result by the request it answers (``InputRequiredResult``
where 2026-07-28 says so, ``CreateTaskResult`` for a task-augmented request's answer, ``Result`` for a
request without a result type of its own). Error responses are no message type of the schema's unions.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from conformance.harness import schema
from conformance.harness.peer import method_definitions, result_definition
from conformance.harness.tour import as_defined, sender_definitions
from conformance.validator.judgement import Check, Judgement
from conformance.validator.session import REQUEST, RESULT, Message, Session
from conformance.validator.validity import surely_valid


def definition_of(session: Session, message: Message) -> str | None:
    """The schema definition ``message`` is of at the session's revision, or None (an error response, an
    unknown method, a result answering no request of the trace)."""
    revision = session.revision
    if message.kind in (REQUEST, "notification"):
        return method_definitions(revision).get(message.method or "")
    if message.kind != RESULT or not isinstance(message.result, dict):
        return None
    request = session.request_answered(message)
    if request is None or request.method is None:
        return None
    augmented = isinstance(request.params.get("task"), dict) and isinstance(message.result.get("task"), dict)
    if augmented and schema.has_definition(revision, "CreateTaskResult"):
        return "CreateTaskResult"
    return result_definition(revision, request.method, message.result) or "Result"


def _canonical_id(frame: dict) -> dict:
    """The frame with its id replaced by one of the same JSON type: the schema judges an id by its type
    only, so equal shapes share one cached verdict (a long trace repeats its shapes many times)."""
    if "id" not in frame:
        return frame
    value = frame["id"]
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return frame
    return {**frame, "id": 0 if isinstance(value, int) else ""}


@lru_cache(maxsize=65536)
def _violations(revision: str, definition: str, text: str) -> tuple[str, ...]:
    frame = json.loads(text)
    return tuple(schema.violations(revision, definition, as_defined(revision, definition, frame)))


def violations(revision: str, definition: str, frame: dict) -> tuple[str, ...]:
    """Every way ``frame`` breaks ``definition``: none if the fast test finds it valid, else jsonschema's word."""
    if surely_valid(revision, definition, as_defined(revision, definition, frame)):
        return ()
    return _violations(revision, definition, json.dumps(_canonical_id(frame), sort_keys=True))


def messages_by_definition(session: Session) -> dict[tuple[str, str], list[Message]]:
    """(definition, sender) -> the messages of that definition the sender sent, worked out once a session."""
    found = session.memo.get("schema-definitions")
    if found is None:
        found = {}
        for message in session.messages:
            if isinstance(message.frame, dict):
                definition = definition_of(session, message)
                if definition is not None and definition in sender_definitions(session.revision, message.sender):
                    found.setdefault((definition, message.sender), []).append(message)
        session.memo["schema-definitions"] = found
    return found


def messages_of(session: Session, definition: str, side: str) -> Iterator[Message]:
    return iter(messages_by_definition(session).get((definition, side), []))


def schema_check(row: dict[str, Any]) -> Check:
    """The check of one schema row: the side it binds, the definition its locator names."""
    definition = row["sources"][0].split("#", 1)[1].split("@", 1)[0]
    side = row["side"]

    def judge(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
        for message in messages_of(session, definition, side):
            judgement.examine()
            for problem in violations(session.revision, definition, message.frame):
                judgement.fail(message.seq, f"the {side}'s {definition} breaks the schema: {problem}")

    description = f"Every {definition} the {side} sends is valid against the revision's published schema."
    return Check(f"schema:{definition}:{side}", (row["id"],), judge, description)
