"""The fast validity test agrees with jsonschema (the suite's schema loading) on every message of the
corpus and on generated damage of those messages: it may only spare work, never change a verdict."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.harness import schema
from conformance.harness.tour import as_defined
from conformance.validator import registry
from conformance.validator.checks.schema import messages_by_definition
from conformance.validator.revision import infer
from conformance.validator.session import Session
from conformance.validator.validity import json_equal, predicate, surely_valid
from tests.validator import corpus


@cache
def corpus_instances() -> tuple[tuple[str, str, Any], ...]:
    """(revision, definition, instance) of every message of every corpus trace."""
    found = []
    for path in sorted(corpus.CONFORMING.glob("*.jsonl")) + sorted(corpus.VIOLATIONS.glob("*.jsonl"))[::7]:
        events = corpus.read_trace(str(path))
        revision = infer(events, registry.revisions(), None).revision
        session = Session(events, revision)
        for (definition, _), messages in messages_by_definition(session).items():
            for message in messages:
                found.append((revision, definition, as_defined(revision, definition, message.frame)))
    return tuple(found)


def agree(revision: str, definition: str, instance: Any) -> None:
    expected = not schema.violations(revision, definition, instance)
    assert surely_valid(revision, definition, instance) == expected, (revision, definition, instance)


def test_every_definition_of_every_revision_compiles() -> None:
    for revision in registry.revisions():
        document = schema.revision_schema(revision)
        for definition in document[schema.definitions_key(document)]:
            assert predicate(revision, definition) is not None, (revision, definition)


def test_the_corpus_messages_are_judged_alike() -> None:
    instances = corpus_instances()
    assert len(instances) > 1000
    for revision, definition, instance in instances:
        agree(revision, definition, instance)


REPLACEMENTS = st.sampled_from([None, True, 0, 1.5, -1, "", "text", [], {}, [1], {"type": "text"}])


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


@settings(max_examples=1500, deadline=None)
@given(st.data())
def test_damaged_messages_are_judged_alike(data: st.DataObject) -> None:
    revision, definition, instance = data.draw(st.sampled_from(corpus_instances()))
    damaged = copy.deepcopy(instance)
    path = data.draw(st.sampled_from(_paths(damaged)))
    if not path:
        damaged = data.draw(REPLACEMENTS)
    else:
        parent = damaged
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict) and data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(REPLACEMENTS)
    agree(revision, definition, damaged)


def test_json_equality_keeps_booleans_apart_from_numbers() -> None:
    assert json_equal(1, 1.0) and not json_equal(True, 1) and not json_equal("1", 1)
    assert json_equal({"a": [1, "x"]}, {"a": [1.0, "x"]}) and not json_equal([1], [1, 1])
