"""JSON Schema (2025-11-25 on): every schema a server sends (a tool's input and output schema, an
elicitation's requestedSchema) is valid under its dialect, and that dialect is 2020-12."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError

from conformance.validator.checks.elicitation import elicitations
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import SERVER, Message, Session

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def schemas(session: Session) -> Iterator[tuple[Message, str, Any]]:
    """(message, what the schema is, the schema) for each schema the server sent."""
    for answer in session.results_by_method.get((SERVER, "tools/list"), []):
        tools = answer.result.get("tools") if isinstance(answer.result, dict) else None
        for tool in tools if isinstance(tools, list) else []:
            if not isinstance(tool, dict):
                continue
            for member in ("inputSchema", "outputSchema"):
                if member in tool:
                    yield answer, f"{member} of tool {tool.get('name')!r}", tool[member]
    for carrier, params in elicitations(session):
        if "requestedSchema" in params:
            yield carrier, "an elicitation's requestedSchema", params["requestedSchema"]


def _dialect(schema: Any) -> str:
    return str(schema.get("$schema", DRAFT_2020_12)) if isinstance(schema, dict) else DRAFT_2020_12


def validator_of(schema: Any) -> Any:
    """The validator class of the schema's dialect (2020-12 when it names none), or None for a dialect the
    validator does not know."""
    if not isinstance(schema, dict):
        return None
    if "$schema" not in schema:
        return jsonschema.Draft202012Validator
    return jsonschema.validators.validator_for(schema, default=None)


@check("json-schema-schemas-valid")
def schemas_valid_under_their_dialect(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every schema the server sends is a valid schema of its $schema dialect (2020-12 when it names none; a
    dialect the validator does not know is not judged)."""
    for message, what, schema in schemas(session):
        validator = validator_of(schema)
        if validator is None:
            continue
        judgement.examine()
        try:
            validator.check_schema(schema)
        except SchemaError as error:
            judgement.fail(message.seq, f"{what} is not a valid schema: {error.message}"[:200])


@check("json-schema-prefer-2020-12")
def schemas_in_2020_12(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every schema the server sends is in JSON Schema 2020-12 (no $schema, or 2020-12's)."""
    for message, what, schema in schemas(session):
        judgement.examine()
        if _dialect(schema).rstrip("#") != DRAFT_2020_12:
            judgement.fail(message.seq, f"{what} is in {_dialect(schema)!r}, not 2020-12")
