"""Frames checked against the pinned ``schema.json`` of the negotiated revision.

The implementation's frames are checked strictly: an object schema that lists its properties
and says nothing of others is closed (``additionalProperties: false``), so a key the revision
does not define fails. Declared extension points (``_meta``, index signatures, which the schema
writes as ``additionalProperties: {}`` or a schema) stay open, and so do the properties whose value
is itself a JSON Schema document (``inputSchema``, ``outputSchema``, ``requestedSchema``): the MCP
schema sketches their top level, but every JSON Schema keyword belongs there.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

from conformance.catalogue.spec_pin import materialise

SCHEMA_VALUED = frozenset({"inputSchema", "outputSchema", "requestedSchema"})


def _close_objects(node: Any, closable: bool = True) -> None:
    """Close every object schema that lists its properties, except the parts of an ``allOf`` (each
    part describes only some of the object's keys, so closing one would refuse the others') and
    the JSON-Schema-valued properties."""
    if isinstance(node, dict):
        if closable and "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for key, value in node.items():
            if key == "allOf" and isinstance(value, list):
                for part in value:
                    _close_objects(part, closable=False)
            elif key == "properties" and isinstance(value, dict):
                for name, child in value.items():
                    if name not in SCHEMA_VALUED:
                        _close_objects(child)
            else:
                _close_objects(value)
    elif isinstance(node, list):
        for value in node:
            _close_objects(value)


@cache
def revision_schema(revision: str, strict: bool) -> dict:
    schema = json.loads((materialise() / "schema" / revision / "schema.json").read_text(encoding="utf-8"))
    if strict:
        schema = copy.deepcopy(schema)
        _close_objects(schema)
    return schema


def definitions_key(schema: dict) -> str:
    return "$defs" if "$defs" in schema else "definitions"


@cache
def _validator(revision: str, definition: str, strict: bool) -> Any:
    schema = revision_schema(revision, strict)
    key = definitions_key(schema)
    if definition not in schema[key]:
        raise KeyError(f"schema {revision} defines no {definition!r}")
    root = {"$schema": schema.get("$schema"), key: schema[key], "$ref": f"#/{key}/{definition}"}
    from jsonschema import validators  # here, not at import: the scripted stdio server never validates

    cls = validators.validator_for(schema)
    return cls(root)


def has_definition(revision: str, definition: str) -> bool:
    schema = revision_schema(revision, False)
    return definition in schema[definitions_key(schema)]


def violations(revision: str, definition: str, instance: Any, *, strict: bool = True) -> list[str]:
    """Every way ``instance`` breaks ``definition`` of ``revision``'s schema, as readable lines."""
    errors = sorted(_validator(revision, definition, strict).iter_errors(instance), key=lambda e: list(e.path))
    found = []
    for error in errors:
        # anyOf failures hide the useful detail in their context; show the deepest one.
        leaf = max(error.context, key=lambda e: len(e.absolute_path), default=error) if error.context else error
        where = "/".join(str(p) for p in leaf.absolute_path) or "(root)"
        found.append(f"{definition} at {where}: {leaf.message}")
    return found
