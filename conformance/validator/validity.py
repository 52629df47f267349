"""A fast yes/no answer to "is this instance valid against that definition?", for the keywords MCP's
published schemas use (type, properties, required, additionalProperties, items, maxItems, enum, const,
anyOf, allOf, minimum, maximum, $ref; format and description are annotations, as jsonschema treats them
without a format checker).

It only ever spares work: an instance it finds valid is valid; one it finds invalid is judged again by
the suite's own schema loading (conformance/harness/schema.py, jsonschema), which gives the reasons and
has the last word. tests/test_validator_validity.py holds the two to the same yes/no on the corpus and
on generated damage of it. A schema using any other keyword is not compiled: every instance goes to
jsonschema.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from conformance.harness import schema

Predicate = Callable[[Any], bool]
ANNOTATIONS = frozenset({"description", "format", "title", "$comment", "default", "examples"})
KNOWN = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "maxItems", "enum", "const", "anyOf", "allOf"}
    | {"minimum", "maximum", "$ref"}
    | ANNOTATIONS
)


class Unsupported(Exception):
    """The schema uses a keyword this module does not compile."""


def json_equal(left: Any, right: Any) -> bool:
    """JSON equality as JSON Schema defines it: true and 1 differ, 1 and 1.0 do not."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, (dict, list)) or isinstance(right, (dict, list)):
        return False
    return (type(left) is type(right) and left == right) or _numbers(left, right)


def _numbers(left: Any, right: Any) -> bool:
    return isinstance(left, (int, float)) and isinstance(right, (int, float)) and left == right


def _is_type(instance: Any, name: str) -> bool:
    if name == "object":
        return isinstance(instance, dict)
    if name == "array":
        return isinstance(instance, list)
    if name == "string":
        return isinstance(instance, str)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "null":
        return instance is None
    if isinstance(instance, bool):
        return False
    if name == "integer":
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    if name == "number":
        return isinstance(instance, (int, float))
    raise Unsupported(f"type {name!r}")


class _Compiler:
    def __init__(self, definitions: dict, prefix: str, ref_overrides: bool) -> None:
        self.definitions = definitions
        self.prefix = prefix
        self.ref_overrides = ref_overrides  # draft-07 and earlier: a $ref's sibling keywords are ignored
        self.compiled: dict[str, Predicate] = {}
        self.compiling: set[str] = set()

    def reference(self, ref: str) -> Predicate:
        if not ref.startswith(self.prefix):
            raise Unsupported(f"$ref {ref}")
        name = ref[len(self.prefix) :]
        if name not in self.compiling:  # a definition that refers to itself is compiled once, looked up on use
            self.compiling.add(name)
            self.compiled[name] = self.compile(self.definitions[name])
        compiled = self.compiled
        return lambda instance: compiled[name](instance)

    def compile(self, node: Any) -> Predicate:
        if node is True or node == {}:
            return lambda instance: True
        if node is False:
            return lambda instance: False
        if not isinstance(node, dict) or set(node) - KNOWN:
            raise Unsupported(f"keywords {sorted(set(node) - KNOWN) if isinstance(node, dict) else node!r}")
        if "$ref" in node and self.ref_overrides:
            return self.reference(node["$ref"])
        tests: list[Predicate] = []
        if "$ref" in node:
            tests.append(self.reference(node["$ref"]))
        if "type" in node:
            names = node["type"] if isinstance(node["type"], list) else [node["type"]]
            for name in names:
                _is_type(None, name)  # refuse an unknown type name now
            if len(names) == 1:
                tests.append(lambda instance, name=names[0]: _is_type(instance, name))
            else:
                tests.append(lambda instance, names=tuple(names): any(_is_type(instance, n) for n in names))
        if "const" in node:
            tests.append(lambda instance, value=node["const"]: json_equal(instance, value))
        if "enum" in node:
            tests.append(lambda instance, values=tuple(node["enum"]): any(json_equal(instance, v) for v in values))
        for keyword, holds in (("minimum", lambda i, m: i >= m), ("maximum", lambda i, m: i <= m)):
            if keyword in node:
                tests.append(
                    lambda instance, bound=node[keyword], holds=holds: (
                        not _is_number(instance) or holds(instance, bound)
                    )
                )
        if "required" in node:
            tests.append(
                lambda instance, names=tuple(node["required"]): (
                    not isinstance(instance, dict) or all(n in instance for n in names)
                )
            )
        if "properties" in node or "additionalProperties" in node:
            tests.append(self._object(node))
        if "items" in node or "maxItems" in node:
            tests.append(self._array(node))
        if "anyOf" in node:
            options = [self.compile(option) for option in node["anyOf"]]
            tests.append(lambda instance: any(option(instance) for option in options))
        if "allOf" in node:
            parts = [self.compile(part) for part in node["allOf"]]
            tests.append(lambda instance: all(part(instance) for part in parts))
        if not tests:
            return lambda instance: True
        if len(tests) == 1:
            return tests[0]
        return lambda instance: all(test(instance) for test in tests)

    def _object(self, node: dict) -> Predicate:
        properties = {name: self.compile(sub) for name, sub in (node.get("properties") or {}).items()}
        extra = node.get("additionalProperties", True)
        others = self.compile(extra) if extra is not True else None

        def holds(instance: Any) -> bool:
            if not isinstance(instance, dict):
                return True
            for name, value in instance.items():
                check = properties.get(name, others)
                if check is not None and not check(value):
                    return False
            return True

        return holds

    def _array(self, node: dict) -> Predicate:
        items = self.compile(node["items"]) if "items" in node else None
        most = node.get("maxItems")

        def holds(instance: Any) -> bool:
            if not isinstance(instance, list):
                return True
            if most is not None and len(instance) > most:
                return False
            return items is None or all(items(item) for item in instance)

        return holds


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@cache
def predicate(revision: str, definition: str) -> Predicate | None:
    """The compiled yes/no test of ``definition`` at ``revision``, or None if its schema is not compilable."""
    document = schema.revision_schema(revision)
    key = schema.definitions_key(document)
    compiler = _Compiler(document[key], f"#/{key}/", "draft-07" in str(document.get("$schema")))
    try:
        return compiler.reference(f"#/{key}/{definition}")
    except Unsupported:
        return None


def surely_valid(revision: str, definition: str, instance: Any) -> bool:
    """True only if ``instance`` is valid against ``definition`` (False: ask jsonschema)."""
    test = predicate(revision, definition)
    return test is not None and test(instance)
