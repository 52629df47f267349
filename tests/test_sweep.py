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


def _page_sweep(tmp_path: Path, page: str, schema: dict | None = None, typedoc: str = "") -> list:
    pages = tmp_path / "docs" / "specification" / "2025-06-18"
    pages.mkdir(parents=True)
    (pages / "page.mdx").write_text(page)
    if typedoc:
        (pages / "schema.mdx").write_text(typedoc)
    schema_dir = tmp_path / "schema" / "2025-06-18"
    schema_dir.mkdir(parents=True)
    (schema_dir / "schema.json").write_text(json.dumps(schema or {"definitions": {}}))
    return [s for s in sweep_revision(tmp_path, "2025-06-18") if s.normative]


def test_each_item_under_a_keyword_lead_in_is_a_normative_unit_of_its_own(tmp_path: Path) -> None:
    found = _page_sweep(
        tmp_path,
        "## Security\n\nIntro text. Servers **MUST**:\n\n- Validate inputs\n- Rate limit calls. Always.\n"
        "- Clients SHOULD log.\n\n1. Clients **MAY**:\n   - Show logs\n   - For search:\n     - index them\n\n"
        "Plain list:\n\n- not bound\n\nAuthorization is OPTIONAL. When supported:\n\n- no keyword here\n",
    )
    items = [(s.anchor, s.kind, s.text, s.lead_in, s.inherited_keywords) for s in found if s.kind == "list-item"]
    assert items == [
        ("security", "list-item", "Servers MUST: Validate inputs", "Servers MUST:", ("MUST",)),
        ("security", "list-item", "Servers MUST: Rate limit calls. Always.", "Servers MUST:", ("MUST",)),
        ("security", "list-item", "Clients MAY: Show logs", "Clients MAY:", ("MAY",)),
        ("security", "list-item", "Clients MAY: For search:", "Clients MAY:", ("MAY",)),
        ("security", "list-item", "Clients MAY: index them", "Clients MAY:", ("MAY",)),
    ]
    # the lead-ins stay sentences of their own; an item with its own keyword is an ordinary sentence
    assert [s.text for s in found if s.kind == "sentence"] == [
        "Servers MUST:",
        "Clients SHOULD log.",
        "Clients MAY:",
        "Authorization is OPTIONAL.",
    ]
    # an item's fingerprint is that of the lead-in and the item together: the same item under another
    # lead-in is another unit, and a row citing the lead-in accounts for none of its items
    assert found[1].fingerprint == fingerprint("Servers MUST: Validate inputs")
    assert len({s.fingerprint for s in found}) == len(found)


def test_lead_ins_bind_list_items_in_schema_descriptions_and_typedoc_html(tmp_path: Path) -> None:
    schema = {"definitions": {"Icon": {"description": "Clients SHOULD support:\n\n- image/png\n- image/webp\n"}}}
    typedoc = (
        '<div class="tsd-anchor-link" id="icon-src"></div><div class="tsd-comment">'
        "<p>Consumers MUST:</p><ul><li>fetch without credentials</li><li>Callers MAY cache.</li></ul>"
        "<p>Other text:</p><ul><li>unbound</li></ul></div>\n"
    )
    found = _page_sweep(tmp_path, "Nothing here.\n", schema, typedoc)
    assert [(s.page, s.anchor, s.kind, s.text) for s in found] == [
        ("schema", "icon-src", "sentence", "Consumers MUST:"),
        ("schema", "icon-src", "list-item", "Consumers MUST: fetch without credentials"),
        ("schema", "icon-src", "sentence", "Callers MAY cache."),
        ("schema.json", "Icon", "sentence", "Clients SHOULD support:"),
        ("schema.json", "Icon", "list-item", "Clients SHOULD support: image/png"),
        ("schema.json", "Icon", "list-item", "Clients SHOULD support: image/webp"),
    ]


def test_a_row_citing_a_lead_in_accounts_for_the_lead_in_alone(tmp_path: Path) -> None:
    from conformance.catalogue.accounting import account
    from conformance.catalogue.overrides import Overrides
    from conformance.catalogue.rows import parse_catalogue

    found = _page_sweep(tmp_path, "## Security\n\nServers MUST:\n\n- Validate inputs\n- Rate limit calls\n")
    lead_in, first, second = found
    header = "| id | revisions | side | level | requirement | sources | notes |\n|---|---|---|---|---|---|---|\n"

    def unaccounted(*locators: object) -> list[str]:
        sources = " ".join(f"`{locator}`" for locator in locators)
        row = f"| lifecycle-x | 2025-06-18 | server | MUST | A server does x. | {sources} |  |\n"
        catalogue = parse_catalogue(f"# R\n\n## lifecycle\n\n{header}{row}", Path("requirements.md"))
        return [s.text for s in account(catalogue, Overrides(), found).unaccounted]

    assert unaccounted(lead_in.locator) == [first.text, second.text]
    assert unaccounted(lead_in.locator, first.locator, second.locator) == []


def test_an_extension_locator_names_its_extension_and_its_own_revision() -> None:
    text = "ext-apps:2026-01-26/apps#content-requirements@ec9bd7cae09e"
    locator = Locator.parse(text)
    assert (locator.extension, locator.revision, locator.page) == ("ext-apps", "2026-01-26", "apps")
    assert str(locator) == text
    assert locator.url.endswith("/ext-apps/blob/main/specification/2026-01-26/apps.mdx#content-requirements")
    assert str(Locator.parse("ext-apps:draft/apps#@ec9bd7cae09e")) == "ext-apps:draft/apps#@ec9bd7cae09e"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("ext-nope:2026-01-26/apps#a@ec9bd7cae09e", "unknown extension 'ext-nope'", id="unknown-extension"),
        pytest.param("ext-apps:2025-06-18/apps#a@ec9bd7cae09e", "ext-apps has no revision '2025-06-18'", id="revision"),
        pytest.param(
            "draft/basic/lifecycle#a@ec9bd7cae09e", "only an extension's locator names a draft", id="mcp-draft"
        ),
    ],
)
def test_a_bad_extension_locator_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Locator.parse(text)


STABLE_PAGE = "# Apps\n\n## Content\n\n- URI MUST start with ui://\n- Hosts MAY cache.\n"
DRAFT_PAGE = "# Apps\n\n## Content\n\n- URI MUST start with ui://\n- Hosts SHOULD cache.\n"


def _extension_sweep(tmp_path: Path) -> list:
    from conformance.catalogue.sweep import sweep_extension

    for revision, page in (("2026-01-26", STABLE_PAGE), ("draft", DRAFT_PAGE)):
        pages = tmp_path / "specification" / revision
        pages.mkdir(parents=True)
        (pages / "apps.mdx").write_text(page)
    return [s for s in sweep_extension(tmp_path, "ext-apps") if s.normative]


def test_an_extension_is_swept_under_its_own_revisions(tmp_path: Path) -> None:
    found = _extension_sweep(tmp_path)
    assert [(s.qualified_revision, s.anchor, s.text) for s in found] == [
        ("ext-apps:2026-01-26", "content", "URI MUST start with ui://"),
        ("ext-apps:2026-01-26", "content", "Hosts MAY cache."),
        ("ext-apps:draft", "content", "URI MUST start with ui://"),
        ("ext-apps:draft", "content", "Hosts SHOULD cache."),
    ]
    assert str(found[0].locator) == f"ext-apps:2026-01-26/apps#content@{fingerprint('URI MUST start with ui://')}"


APPS_HEADER = "| id | revisions | side | level | requirement | sources | notes |\n|---|---|---|---|---|---|---|\n"


def _apps_catalogue(revisions: str, *locators: object) -> object:
    from conformance.catalogue.rows import parse_catalogue

    sources = " ".join(f"`{locator}`" for locator in locators)
    row = f"| apps-x | {revisions} | server | MUST | A server does x. | {sources} |  |\n"
    return parse_catalogue(f"# R\n\n## apps\n\n{APPS_HEADER}{row}", Path("requirements.md"))


def test_a_stable_extension_locator_accounts_for_the_unchanged_draft_sentence_too(tmp_path: Path) -> None:
    from conformance.catalogue.accounting import account
    from conformance.catalogue.overrides import Overrides, parse_overrides

    uri, cache, uri_in_draft, cache_in_draft = _extension_sweep(tmp_path)
    catalogue = _apps_catalogue("2025-06-18..", uri.locator, cache.locator)
    accounting = account(catalogue, Overrides(), [uri, cache, uri_in_draft, cache_in_draft])
    assert accounting.unaccounted == [cache_in_draft]  # reworded in the draft: its own sentence
    draft_only = (
        f'not-requirements:\n  - fingerprint: "{cache_in_draft.fingerprint}"\n    extension: ext-apps\n'
        "    revisions: draft\n    reason: new in the draft\n"
    )
    overrides = parse_overrides({Path("overrides/apps.yaml"): draft_only}, catalogue)
    assert account(catalogue, overrides, [uri, cache, uri_in_draft, cache_in_draft]).unaccounted == []
    assert account(catalogue, overrides, [uri, cache]).stale_not_requirements  # no draft swept: names nothing


@pytest.mark.parametrize(
    ("revisions", "locator", "message"),
    [
        pytest.param(
            "2024-11-05..",
            "ext-apps:2026-01-26/apps#content@ec9bd7cae09e",
            "ext-apps 2026-01-26 applies at 2025-06-18..2026-07-28, not at 2024-11-05, 2025-03-26",
            id="before-the-extension-applies",
        ),
        pytest.param(
            "2026-07-28",
            "ext-apps:draft/apps#content@ec9bd7cae09e",
            "ext-apps draft applies at no MCP revision",
            id="draft",
        ),
    ],
)
def test_an_extension_row_keeps_to_the_revisions_its_extension_applies_at(
    revisions: str, locator: str, message: str
) -> None:
    from conformance.catalogue.errors import InputErrors

    with pytest.raises(InputErrors, match=message):
        _apps_catalogue(revisions, locator)


def test_an_extension_locator_belongs_to_its_extension_area() -> None:
    from conformance.catalogue.errors import InputErrors
    from conformance.catalogue.rows import parse_catalogue

    source = "`ext-apps:2026-01-26/apps#a@ec9bd7cae09e`"
    row = f"| lifecycle-x | 2026-07-28 | server | MUST | A server does x. | {source} |  |\n"
    with pytest.raises(InputErrors, match="whose rows are in the area 'apps'"):
        parse_catalogue(f"# R\n\n## lifecycle\n\n{APPS_HEADER}{row}", Path("requirements.md"))
