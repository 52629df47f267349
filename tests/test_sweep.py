"""The sweep's parts: sentence splitting, anchors, markup stripping, schema descriptions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.catalogue.accounting import copied_runs
from conformance.catalogue.locator import Locator, fingerprint
from conformance.catalogue.sweep import slugify, split_sentences, sweep_revision


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("One MUST. Two MAY.", ["One MUST.", "Two MAY."], id="two-sentences"),
        pytest.param("Use e.g. pings. Then stop.", ["Use e.g. pings.", "Then stop."], id="abbreviation"),
        pytest.param("Version 2.0 is fine.", ["Version 2.0 is fine."], id="decimal"),
        pytest.param('It said "stop." Then it did.', ['It said "stop."', "Then it did."], id="quoted-end"),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_slugify_follows_the_site() -> None:
    assert slugify("Protocol Version Header") == "protocol-version-header"
    assert slugify("`_meta`") == "_meta"


def test_a_fingerprint_ignores_whitespace_but_not_wording() -> None:
    assert fingerprint("Servers  MUST\nreply.") == fingerprint("Servers MUST reply.")
    assert fingerprint("Servers MUST reply.") != fingerprint("Servers SHOULD reply.")


def test_a_locator_round_trips_and_refuses_garbage() -> None:
    text = "2026-07-28/schema.json#RequestMetaObject.io.modelcontextprotocol/logLevel@51f867ea7743"
    assert str(Locator.parse(text)) == text
    assert Locator.parse("2026-07-28/server/discover#@845b6a3bae33").url.endswith("/server/discover")
    with pytest.raises(ValueError, match="bad locator"):
        Locator.parse("2026-07-28/server/discover@845b6a3bae33")


def test_copied_runs_finds_six_shared_words() -> None:
    assert copied_runs("The server MUST respond with its own capabilities", "server must respond with its own x")
    assert not copied_runs("The server answers with its capabilities", "The server MUST respond with its own")


def test_a_revision_is_swept_from_pages_typedoc_html_and_schema_descriptions(tmp_path: Path) -> None:
    pages = tmp_path / "docs" / "specification" / "2025-06-18"
    (pages / "basic").mkdir(parents=True)
    (pages / "basic" / "lifecycle.mdx").write_text(
        "---\ntitle: Lifecycle\n---\n\nIntro MAY apply.\n\n## Initialization\n\n"
        "The client **MUST** send `initialize`. It is fine.\n\n- Servers SHOULD answer.\n\n"
        '<Note>\nHosts MUST ask.\n</Note>\n\n```json\n{"MUST": 1}\n```\n\n| a | b |\n|---|---|\n| x MAY y | z |\n'
    )
    (pages / "schema.mdx").write_text(
        '<div class="tsd-anchor-link" id="tool-name"></div><div class="tsd-comment"><p>Names MUST be short.</p>'
        '<aside class="tsd-sources"><p>Inherited MUST</p></aside></div>\n'
    )
    schema_dir = tmp_path / "schema" / "2025-06-18"
    schema_dir.mkdir(parents=True)
    (schema_dir / "schema.json").write_text(
        json.dumps({"definitions": {"Tool": {"properties": {"name": {"description": "See {@link Foo}. It MUST x."}}}}})
    )
    found = [(s.page, s.anchor, s.text, s.keywords) for s in sweep_revision(tmp_path, "2025-06-18") if s.normative]
    assert found == [
        ("basic/lifecycle", "", "Intro MAY apply.", ("MAY",)),
        ("basic/lifecycle", "initialization", "The client MUST send initialize.", ("MUST",)),
        ("basic/lifecycle", "initialization", "Servers SHOULD answer.", ("SHOULD",)),
        ("basic/lifecycle", "initialization", "Hosts MUST ask.", ("MUST",)),
        ("basic/lifecycle", "initialization", "x MAY y", ("MAY",)),
        ("schema", "tool-name", "Names MUST be short.", ("MUST",)),
        ("schema.json", "Tool.name", "It MUST x.", ("MUST",)),
    ]
