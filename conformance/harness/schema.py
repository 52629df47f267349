"""Frames checked against the pinned ``schema.json`` of the negotiated revision, as published.

``violations`` judges an instance by the revision's definition exactly as the spec publishes it:
where the schema leaves an object open (it says nothing of members it does not list), a member
the revision does not define is no breach of the definition. Such members are the business of the
catalogue's rows about keeping to the negotiated revision (``lifecycle-use-negotiated-version-*``),
and of nothing else: ``undefined_members`` names them, for those rows' tests only. It judges by a
closed copy of the schema (``additionalProperties: false`` added to every object schema that lists
its properties and says nothing of others), keeping open the declared extension points (``_meta``,
index signatures, which the schema writes as ``additionalProperties: {}`` or a schema) and the
properties whose value is itself a JSON Schema document (``inputSchema``, ``outputSchema``,
``requestedSchema``), whose every keyword belongs there.
"""

from __future__ import annotations

import copy
import json
from functools import cache, lru_cache
from typing import Any

from conformance.catalogue.spec_pin import materialise

SCHEMA_VALUED = frozenset({"inputSchema", "outputSchema", "requestedSchema"})
CLOSED_MARK = "x-mcp-matrix-closed"  # on each object schema the closed copy closed (jsonschema ignores it)


def _inline_all_of_refs(node: Any, definitions: dict) -> None:
    """Replace each ``$ref`` part of an ``allOf`` by a copy of the definition it names, so that the part is
    not closed on its own (``TaskStatusNotificationParams`` is ``NotificationParams`` and ``Task``: each,
    closed where it is defined, would refuse the other's members)."""
    if isinstance(node, dict):
        parts = node.get("allOf")
        if isinstance(parts, list):
            for index, part in enumerate(parts):
                ref = part.get("$ref") if isinstance(part, dict) and len(part) == 1 else None
                if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in definitions:
                    parts[index] = copy.deepcopy(definitions[ref.rsplit("/", 1)[-1]])
        for value in node.values():
            _inline_all_of_refs(value, definitions)
    elif isinstance(node, list):
        for value in node:
            _inline_all_of_refs(value, definitions)


def _all_of_members(node: dict) -> set[str] | None:
    """The members the parts of ``node``'s ``allOf`` list, if none of them leaves the object open."""
    names: set[str] = set()
    for part in node.get("allOf") or []:
        if not isinstance(part, dict) or "additionalProperties" in part or "$ref" in part:
            return None
        names |= set(part.get("properties") or {})
        if "allOf" in part:
            nested = _all_of_members(part)
            if nested is None:
                return None
            names |= nested
    return names


def _close_objects(node: Any, closable: bool = True) -> None:
    """Close every object schema that lists its properties, except the parts of an ``allOf`` (each
    part describes only some of the object's keys, so closing one would refuse the others': the
    object they make up is closed instead, to the members its parts list, unless a part leaves it
    open) and the JSON-Schema-valued properties."""
    if isinstance(node, dict):
        if closable and isinstance(node.get("allOf"), list) and not {"properties", "additionalProperties"} & set(node):
            members = _all_of_members(node)
            if members is not None:
                node["properties"] = {name: {} for name in sorted(members)}
        if closable and "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
            node[CLOSED_MARK] = True
        for key, value in list(node.items()):
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
def revision_schema(revision: str, closed: bool = False) -> dict:
    """The revision's schema as published, or (``closed``) its closed copy for ``undefined_members``."""
    schema = json.loads((materialise() / "schema" / revision / "schema.json").read_text(encoding="utf-8"))
    if closed:
        schema = copy.deepcopy(schema)
        _inline_all_of_refs(schema, schema[definitions_key(schema)])
        _close_objects(schema)
    return schema


def definitions_key(schema: dict) -> str:
    return "$defs" if "$defs" in schema else "definitions"


@cache
def _validator(revision: str, definition: str, closed: bool) -> Any:
    schema = revision_schema(revision, closed)
    key = definitions_key(schema)
    if definition not in schema[key]:
        raise KeyError(f"schema {revision} defines no {definition!r}")
    root = {"$schema": schema.get("$schema"), key: schema[key], "$ref": f"#/{key}/{definition}"}
    from jsonschema import validators  # here, not at import: the scripted stdio server never validates

    cls = validators.validator_for(schema)
    return cls(root)


def has_definition(revision: str, definition: str) -> bool:
    schema = revision_schema(revision)
    return definition in schema[definitions_key(schema)]


def definition_of(revision: str, definition: str) -> dict:
    schema = revision_schema(revision)
    return schema[definitions_key(schema)][definition]


# Verdicts remembered per worker, by the instance's JSON text: a suite validates the same answers (an
# initialize result, a listing) session after session, and validation is a large share of a worker's CPU.
VERDICTS_KEPT = 8192


def violations(revision: str, definition: str, instance: Any) -> list[str]:
    """Every way ``instance`` breaks ``definition`` of ``revision``'s published schema, as readable lines."""
    return list(_violations(revision, definition, json.dumps(instance)))


@lru_cache(maxsize=VERDICTS_KEPT)
def _violations(revision: str, definition: str, text: str) -> tuple[str, ...]:
    instance = json.loads(text)
    errors = sorted(_validator(revision, definition, False).iter_errors(instance), key=lambda e: list(e.path))
    found = []
    for error in errors:
        # anyOf failures hide the useful detail in their context; show the deepest one.
        leaf = max(error.context, key=lambda e: len(e.absolute_path), default=error) if error.context else error
        where = "/".join(str(p) for p in leaf.absolute_path) or "(root)"
        found.append(f"{definition} at {where}: {leaf.message}")
    return tuple(found)


def _undefined_only(error: Any) -> list[Any] | None:
    """The closing errors ``error`` consists of, if it consists of nothing else (None otherwise):
    a member no listed property names, in an object the closed copy closed; or, for ``anyOf`` /
    ``oneOf``, the fewest such errors of any one branch made only of them."""
    if error.validator == "additionalProperties" and isinstance(error.schema, dict) and error.schema.get(CLOSED_MARK):
        return [error]
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches: dict[Any, list[Any]] = {}
        for child in error.context:
            branches.setdefault(child.relative_schema_path[0], []).append(child)
        candidates = []
        for children in branches.values():
            parts = [_undefined_only(child) for child in children]
            if all(part is not None for part in parts):
                candidates.append([e for part in parts if part for e in part])
        return min(candidates, key=len) if candidates else None
    return None


# The members an instance's revision leaves undefined follow from its shape alone: its keys, the JSON type of
# each value, and the values that pick a union's branch. Messages of one shape (a long session's tool calls,
# differing in ids, tokens and text) are judged once, not once each.
DISCRIMINATORS = frozenset({"type", "method", "mode", "role", "resultType"})
_undefined_by_shape: dict[tuple[str, str, Any], list[str]] = {}


def _shape(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        return ("{", tuple((k, _shape(v, k)) for k, v in value.items()))
    if isinstance(value, list):
        return ("[", tuple(_shape(v) for v in value))
    if isinstance(value, str):
        return ("=", value) if key in DISCRIMINATORS else "str"
    return type(value).__name__


def undefined_members(revision: str, definition: str, instance: Any) -> list[str]:
    """Each member of ``instance`` that ``revision``'s ``definition`` does not define (outside its extension
    points), named by its path (see ``_undefined_members``); remembered by the instance's shape."""
    key = (revision, definition, _shape(instance))
    found = _undefined_by_shape.get(key)
    if found is None:
        if len(_undefined_by_shape) >= VERDICTS_KEPT:
            _undefined_by_shape.clear()
        found = _undefined_by_shape[key] = _undefined_members(revision, definition, instance)
    return list(found)


def _undefined_members(revision: str, definition: str, instance: Any) -> list[str]:
    """Each member of ``instance`` that ``revision``'s ``definition`` does not define (outside its
    extension points), named by its path: ``InitializeResult: serverInfo.title``. Nothing else is
    reported; a breach of the published definition is ``violations``' business.

    A capabilities object's ``extensions`` is an extension point at every revision: extensions are
    negotiated through it (SEP-1724) whatever revision the session speaks, as MCP Apps does in its own
    example at 2024-11-05, though only 2026-07-28's schema lists it."""
    found = []
    for error in _validator(revision, definition, True).iter_errors(instance):
        for closing in _undefined_only(error) or ():
            listed = closing.schema.get("properties", {})
            patterns = closing.schema.get("patternProperties", {})
            base = ".".join(str(p) for p in closing.absolute_path)
            for member in closing.instance:
                if (
                    member not in listed
                    and not patterns
                    and not (base == "params" and member == "_meta" and _base_meta(revision))
                    and not (member == "extensions" and base.rpartition(".")[2] == "capabilities")
                ):
                    found.append(f"{definition}: {base + '.' if base else ''}{member}")
    return sorted(set(found))


@cache
def _base_meta(revision: str) -> bool:
    """Whether ``revision`` defines ``params._meta`` for every request and notification: up to 2025-06-18 the
    base ``Request`` and ``Notification`` define it (``_meta.progressToken`` among it), while the specific
    requests restate ``params`` without it (CallToolRequest lists only name and arguments); a request's
    ``params._meta`` is then defined by the revision, not a member it lacks."""
    definitions = revision_schema(revision)[definitions_key(revision_schema(revision))]
    return all(
        "_meta" in ((definitions.get(base) or {}).get("properties", {}).get("params") or {}).get("properties", {})
        for base in ("Request", "Notification")
    )
