"""Message definitions of the schema as normative units: swept, fingerprinted, accounted for by rows.

Bad fixtures: a definition no row accounts for is reported; a definition that changed no longer
resolves from the row that located it (and the changed one is unaccounted).
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import catalogue_text, row

from conformance.catalogue.accounting import Accounting, account
from conformance.catalogue.locator import canonical_json, definition_fingerprint
from conformance.catalogue.overrides import Overrides
from conformance.catalogue.rows import parse_catalogue
from conformance.catalogue.sweep import DEFINITION, message_definitions, sweep_revision

REVISION = "2025-06-18"
PING = {"properties": {"method": {"const": "ping", "type": "string"}}, "required": ["method"], "type": "object"}
RESULT = {"additionalProperties": {}, "properties": {"_meta": {"type": "object"}}, "type": "object"}
CALL = {"properties": {"method": {"const": "tools/call", "type": "string"}}, "type": "object"}
PROGRESS = {"properties": {"method": {"const": "notifications/progress", "type": "string"}}, "type": "object"}


def schema(**changed: dict) -> dict:
    definitions = {"PingRequest": PING, "Result": RESULT, "CallToolRequest": CALL, "ProgressNotification": PROGRESS}
    definitions |= changed
    return {
        "definitions": definitions
        | {
            "ClientRequest": {
                "anyOf": [{"$ref": "#/definitions/PingRequest"}, {"$ref": "#/definitions/CallToolRequest"}]
            },
            "ServerRequest": {"anyOf": [{"$ref": "#/definitions/PingRequest"}]},
            "ClientResult": {"$ref": "#/definitions/Result", "description": "a union of one, as a reference"},
            "ServerNotification": dict(definitions["ProgressNotification"]),  # a union of one, inlined
            "Unrelated": {"type": "string"},
        }
    }


def spec(tmp_path: Path, document: dict) -> Path:
    (tmp_path / "docs" / "specification" / REVISION).mkdir(parents=True)
    schema_dir = tmp_path / "schema" / REVISION
    schema_dir.mkdir(parents=True)
    (schema_dir / "schema.json").write_text(json.dumps(document, indent=2))
    return tmp_path


def test_the_unions_name_each_message_definition_and_its_senders() -> None:
    assert message_definitions(schema()) == {
        "CallToolRequest": ("client",),
        "PingRequest": ("server", "client"),
        "ProgressNotification": ("server",),
        "Result": ("client",),
    }


def test_a_fingerprint_is_over_canonical_json_and_sees_any_change() -> None:
    assert canonical_json({"b": 1, "a": [1, "x y"]}) == '{"a":[1,"x y"],"b":1}'
    assert definition_fingerprint({"b": 1, "a": 2}) == definition_fingerprint({"a": 2, "b": 1})
    # whitespace inside a description is part of the definition: not folded away as in sentences
    assert definition_fingerprint({"description": "a  b"}) != definition_fingerprint({"description": "a b"})


def test_each_message_definition_is_swept_as_a_normative_unit(tmp_path: Path) -> None:
    units = [s for s in sweep_revision(spec(tmp_path, schema()), REVISION) if s.kind == DEFINITION]
    assert [(s.page, s.anchor, s.normative) for s in units] == [
        ("schema.json", name, True) for name in ("CallToolRequest", "PingRequest", "ProgressNotification", "Result")
    ]
    ping = next(s for s in units if s.anchor == "PingRequest")
    assert json.loads(ping.text) == PING
    assert str(ping.locator) == f"{REVISION}/schema.json#PingRequest@{definition_fingerprint(PING)}"


def rows_for(*names: str, fingerprints: dict[str, str] | None = None) -> str:
    fingerprints = fingerprints or {}
    found = {"PingRequest": PING, "Result": RESULT, "CallToolRequest": CALL, "ProgressNotification": PROGRESS}
    return "".join(
        row(
            requirement_id=f"schema-{name.lower()}",
            revisions=REVISION,
            side="both",
            text=f"What is sent as a {name} is valid against it.",
            sources=f"`{REVISION}/schema.json#{name}@{fingerprints.get(name) or definition_fingerprint(found[name])}`",
        )
        for name in names
    )


def accounting_of(tmp_path: Path, rows: str, document: dict) -> Accounting:
    catalogue = parse_catalogue(catalogue_text(rows, area="schema"), Path("requirements.md"))
    return account(catalogue, Overrides(), sweep_revision(spec(tmp_path, document), REVISION))


def test_every_definition_accounted_for_leaves_nothing_over(tmp_path: Path) -> None:
    accounting = accounting_of(
        tmp_path, rows_for("CallToolRequest", "PingRequest", "ProgressNotification", "Result"), schema()
    )
    assert accounting.unaccounted == [] and accounting.unresolved == []


def test_a_definition_no_row_accounts_for_is_reported(tmp_path: Path) -> None:
    accounting = accounting_of(tmp_path, rows_for("CallToolRequest", "PingRequest", "Result"), schema())
    assert [(s.kind, s.anchor) for s in accounting.unaccounted] == [(DEFINITION, "ProgressNotification")]


def test_a_changed_definition_no_longer_resolves(tmp_path: Path) -> None:
    changed = dict(CALL, required=["method", "params"])
    accounting = accounting_of(
        tmp_path,
        rows_for("CallToolRequest", "PingRequest", "ProgressNotification", "Result"),
        schema(CallToolRequest=changed),
    )
    assert [(requirement, locator.anchor) for requirement, locator in accounting.unresolved] == [
        ("schema-calltoolrequest", "CallToolRequest")
    ]
    assert [(s.anchor, s.fingerprint) for s in accounting.unaccounted] == [
        ("CallToolRequest", definition_fingerprint(changed))
    ]
