"""MCP Apps (``io.modelcontextprotocol/ui``, the extension's stable 2026-01-26), server side: the Apps checks.

The suite talks to the server as an Apps host would: it declares the extension with the app MIME type
(in the initialize request, or at 2026-07-28 in each request's ``_meta``), lists the tools and
resources, reads every UI resource a tool names, and calls the UI-linked tools it can call (the profile's
``app-tool``, and those that take no argument); a second session, whose host leaves the extension out,
shows what a host without Apps is offered and answered. Eight checks, each with a stable id, judge what
it finds (``CHECKS``); each test holds one catalogue row (the apps area of docs/spec/requirements.md)
and belongs to one check. ``python -m conformance apps --target T`` runs them and sums them up per
check (conformance/cli/apps.py).

A server that links no tool to a UI resource and lists none has no Apps surface: ``ui-tools-present``
reads not-exercised (its row is a MAY) and every other check finds nothing to check (fixture-missing,
"nothing to check"), which the summary reports as not applicable. A profile that binds the
``app-tool`` role says the target has an Apps surface: a listing without that tool linked to a UI fails.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

import pytest
from jsonschema import Draft202012Validator, SchemaError, validators

from conformance.harness.frames import BOTH_TRANSPORTS, CLIENT_CAPABILITIES_META
from conformance.harness.peer import Peer, precondition
from conformance.harness.scripted_server import SCRIPTED_TOOL, ScriptedServer
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, SessionFactory

APPS_EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"
HOST_CAPABILITIES = {"extensions": {APPS_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}}
FLAT_RESOURCE_URI = "ui/resourceUri"  # the deprecated flat _meta key
VISIBILITY_VALUES = ("model", "app")
CSP_LISTS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
CSP_FLAGS = ("wasmUnsafeEval",)
PERMISSIONS = ("camera", "microphone", "geolocation", "clipboardWrite")
# An origin, as the CSP domain lists name them: scheme://host[:port], the host's first label may be * (subdomains),
# or an IPv6 address in brackets.
ORIGIN = re.compile(
    r"^[a-z][a-z0-9+.-]*://(\[[0-9a-f:.]+\]|(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*)(:\d{1,5})?$", re.IGNORECASE
)
MAX_PAGES = 20
# The reason a check gives when the server offers nothing of what it judges: the summary reads it as not applicable.
NOTHING_TO_CHECK = "fixture-missing: nothing to check:"

# The checks, by stable id: the tests that make each up (each holds one row; conformance/cli/apps.py sums them up).
CHECKS: dict[str, tuple[str, ...]] = {
    "ui-tools-present": ("test_a_tool_may_link_a_ui_resource",),
    "ui-tool-metadata-valid": (
        "test_a_tool_names_its_ui_resource_by_a_ui_uri",
        "test_a_tool_visibility_holds_only_model_and_app",
        "test_a_tool_names_its_ui_resource_in_the_nested_key",
    ),
    "ui-tool-input-schema-valid": ("test_a_ui_tool_input_schema_is_an_object_schema",),
    "ui-listed-resources-valid": (
        "test_a_listed_ui_resource_has_a_ui_uri",
        "test_a_listed_ui_resource_has_the_app_mime_type",
    ),
    "ui-resources-readable": (
        "test_every_ui_resource_a_tool_names_reads",
        "test_an_unlisted_ui_resource_still_reads",
    ),
    "ui-resource-contents-valid": (
        "test_a_read_ui_resource_is_one_item_of_the_uri_read",
        "test_a_read_ui_resource_has_a_ui_uri",
        "test_a_read_ui_resource_has_the_app_mime_type",
        "test_a_read_ui_resource_comes_as_text_or_blob",
        "test_a_read_ui_resource_is_one_html5_document",
    ),
    "ui-resource-meta-valid": (
        "test_a_listed_ui_resource_meta_has_the_declared_shape",
        "test_a_read_ui_resource_meta_has_the_declared_shape",
    ),
    "ui-tool-graceful-degradation": (
        "test_a_ui_tool_result_carries_content",
        "test_a_host_without_the_extension_gets_no_ui_link",
        "test_a_ui_tool_answers_a_host_without_the_extension_in_text",
        "test_a_server_may_offer_a_host_without_the_extension_other_tool_versions",
    ),
}


# -- the Apps surface, as a host sees it ----------------------------------------------------------------


def host_request(peer: Peer, method: str, params: dict[str, Any] | None = None) -> dict:
    """``method`` as an Apps host sends it: the session opened declaring the extension, or at 2026-07-28
    the extension declared in the request's own ``_meta``."""
    peer.open(HOST_CAPABILITIES)
    if peer.stateless:
        params = {**(params or {}), "_meta": {CLIENT_CAPABILITIES_META: HOST_CAPABILITIES}}
    # Whether the answer keeps to the schema is the schema area's cell; here it is only read.
    return peer.rpc(method, params, check=False)


def plain_request(peer: Peer, method: str, params: dict[str, Any] | None = None) -> dict:
    """``method`` as a host without the extension sends it: its capabilities (the session's, or at 2026-07-28 the
    request's ``_meta``) do not name it."""
    peer.open()
    return peer.rpc(method, params, check=False)


def host_list(peer: Peer, method: str, key: str, send: Callable[..., dict] = host_request) -> list[dict]:
    """Every item of every page of ``method`` (sent by ``send``: as an Apps host, unless told); a refusal is an
    empty list (the server offers none)."""
    items: list[dict] = []
    params: dict[str, Any] = {}
    for _ in range(MAX_PAGES):
        result = send(peer, method, params or None).get("result")
        if not isinstance(result, dict):
            return items
        items.extend(item for item in result.get(key) or [] if isinstance(item, dict))
        cursor = result.get("nextCursor")
        if not cursor:
            return items
        params = {"cursor": cursor}
    raise AssertionError(f"{method} still had a nextCursor after {MAX_PAGES} pages")


def ui_meta(item: dict) -> Any:
    """The ``_meta.ui`` of a tool or resource (None without one)."""
    meta = item.get("_meta")
    return meta.get("ui") if isinstance(meta, dict) else None


def flat_resource_uri(tool: dict) -> Any:
    meta = tool.get("_meta")
    return meta.get(FLAT_RESOURCE_URI) if isinstance(meta, dict) else None


def has_flat_key(tool: dict) -> bool:
    meta = tool.get("_meta")
    return isinstance(meta, dict) and FLAT_RESOURCE_URI in meta


def named_resource_uri(tool: dict) -> Any:
    """The UI resource a tool names: ``_meta.ui.resourceUri``, else the deprecated flat key's."""
    ui = ui_meta(tool)
    nested = ui.get("resourceUri") if isinstance(ui, dict) else None
    return nested if nested is not None else flat_resource_uri(tool)


@dataclass(frozen=True)
class Surface:
    """What the server offers an Apps host."""

    tools: list[dict]  # the tools with UI metadata (_meta.ui, or the deprecated flat key)
    resources: list[dict]  # the listed UI resources: a ui:// URI, the app MIME type, _meta.ui, or named by a tool
    referenced: list[str]  # the URIs the tools name, once each, in listing order

    def require(self, what: str, items: list) -> list:
        if not self.tools and not self.resources:
            pytest.skip(f"{NOTHING_TO_CHECK} the server has no Apps surface (no tool linked to a UI resource)")
        if not items:
            pytest.skip(f"{NOTHING_TO_CHECK} {what}")
        return items


def apps_surface(peer: Peer) -> Surface:
    tools = [tool for tool in host_list(peer, "tools/list", "tools") if ui_meta(tool) is not None or has_flat_key(tool)]
    app_tool = peer.roles.get("app-tool")
    if app_tool is not None and app_tool.name not in [tool.get("name") for tool in tools]:
        pytest.fail(
            f"the target's profile maps app-tool to {app_tool.name}, but the server lists no tool of that name "
            "with UI metadata to a host that declares the Apps extension"
        )
    referenced = list(dict.fromkeys(uri for tool in tools if isinstance(uri := named_resource_uri(tool), str)))
    resources = [
        resource
        for resource in host_list(peer, "resources/list", "resources")
        if str(resource.get("uri", "")).startswith("ui://")
        or resource.get("mimeType") == APP_MIME_TYPE
        or ui_meta(resource) is not None
        or resource.get("uri") in referenced
    ]
    return Surface(tools, resources, referenced)


def read(peer: Peer, uri: str) -> dict:
    return host_request(peer, "resources/read", {"uri": uri})


def read_contents(peer: Peer, surface: Surface) -> list[tuple[str, list[Any]]]:
    """Each UI resource a tool names (that reads) with the content items of its read."""
    uris = surface.require("no tool names a UI resource", surface.referenced)
    found = []
    for uri in uris:
        result = read(peer, uri).get("result")
        if isinstance(result, dict) and isinstance(result.get("contents"), list):
            found.append((uri, result["contents"]))
    return surface.require("no UI resource a tool names could be read (ui-resources-readable says why)", found)


def same_mime_type(given: Any, wanted: str) -> bool:
    """MIME types compared as the grammar reads them: type, subtype and parameter names in any case, blanks
    around the separators ignored; parameter values as written."""
    if not isinstance(given, str):
        return False

    def parsed(text: str) -> tuple[str, frozenset[tuple[str, str]]]:
        kind, *parameters = (part.strip() for part in text.split(";"))
        pairs = (parameter.partition("=") for parameter in parameters if parameter)
        return kind.lower(), frozenset((name.strip().lower(), value.strip()) for name, _, value in pairs)

    return parsed(given) == parsed(wanted)


# -- ui-tools-present ---------------------------------------------------------------------------------


@for_req("apps-tool-ui-linkage", "server", transports=BOTH_TRANSPORTS)
def test_a_tool_may_link_a_ui_resource(revision: str, transport: str, peer: Peer) -> None:
    surface = apps_surface(peer)
    assert surface.tools, "the server links no tool to a UI resource: it has no Apps surface"


# -- ui-tool-metadata-valid ---------------------------------------------------------------------------


@for_req("apps-tool-resource-uri-ui-scheme", "server", transports=BOTH_TRANSPORTS)
def test_a_tool_names_its_ui_resource_by_a_ui_uri(revision: str, transport: str, peer: Peer) -> None:
    surface = apps_surface(peer)
    named = {}  # "<tool>: <key>" -> the URI it names there; a tool whose _meta.ui names no resource links none
    for tool in surface.require("no tool has UI metadata", surface.tools):
        ui = ui_meta(tool)
        if isinstance(ui, dict) and "resourceUri" in ui:
            named[f"{tool.get('name')}: _meta.ui.resourceUri"] = ui["resourceUri"]
        elif has_flat_key(tool):
            named[f"{tool.get('name')}: _meta[{FLAT_RESOURCE_URI!r}]"] = flat_resource_uri(tool)
    if not named:
        pytest.skip(f"{NOTHING_TO_CHECK} no tool names a UI resource in its _meta")
    bad = {where: uri for where, uri in named.items() if not isinstance(uri, str) or not uri.startswith("ui://")}
    assert not bad, f"tools that name their UI resource by something other than a ui:// URI: {bad}"


@for_req("apps-tool-visibility-values", "server", transports=BOTH_TRANSPORTS)
def test_a_tool_visibility_holds_only_model_and_app(revision: str, transport: str, peer: Peer) -> None:
    surface = apps_surface(peer)
    tools = surface.require("no tool has UI metadata", surface.tools)
    visible = {
        tool.get("name"): ui_meta(tool)["visibility"]
        for tool in tools
        if isinstance(ui_meta(tool), dict) and "visibility" in ui_meta(tool)
    }
    if not visible:
        pytest.skip(f"{NOTHING_TO_CHECK} no tool sets _meta.ui.visibility (it then defaults to model and app)")
    bad = {
        name: value
        for name, value in visible.items()
        if not isinstance(value, list) or any(entry not in VISIBILITY_VALUES for entry in value)
    }
    assert not bad, f"_meta.ui.visibility must be an array of 'model' and 'app' only: {bad}"


@for_req("apps-tool-flat-resource-uri-deprecated", "server", transports=BOTH_TRANSPORTS)
def test_a_tool_names_its_ui_resource_in_the_nested_key(revision: str, transport: str, peer: Peer) -> None:
    surface = apps_surface(peer)
    tools = surface.require("no tool has UI metadata", surface.tools)
    flat = {tool.get("name"): tool for tool in tools if has_flat_key(tool)}
    if not flat:
        pytest.skip(f"{NOTHING_TO_CHECK} no tool carries the deprecated flat {FLAT_RESOURCE_URI!r} key")
    only_flat = [
        name for name, tool in flat.items() if not isinstance(ui_meta(tool), dict) or "resourceUri" not in ui_meta(tool)
    ]
    differing = {
        name: (ui_meta(tool)["resourceUri"], flat_resource_uri(tool))
        for name, tool in flat.items()
        if name not in only_flat and ui_meta(tool)["resourceUri"] != flat_resource_uri(tool)
    }
    assert not only_flat, f"tools that name their UI only in the deprecated flat {FLAT_RESOURCE_URI!r} key: {only_flat}"
    assert not differing, (
        f"tools whose flat {FLAT_RESOURCE_URI!r} names another URI than _meta.ui.resourceUri: {differing}"
    )


# -- ui-tool-input-schema-valid -----------------------------------------------------------------------


@for_req("apps-tool-input-schema", "server", transports=BOTH_TRANSPORTS)
def test_a_ui_tool_input_schema_is_an_object_schema(revision: str, transport: str, peer: Peer) -> None:
    surface = apps_surface(peer)
    problems = []
    for tool in surface.require("no tool has UI metadata", surface.tools):
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            problems.append(f"{tool.get('name')}: inputSchema is not an object schema: {schema!r}")
            continue
        try:
            validators.validator_for(schema, default=Draft202012Validator).check_schema(schema)
        except SchemaError as exc:
            problems.append(f"{tool.get('name')}: inputSchema is not a valid JSON Schema: {exc.message}")
    assert not problems, "\n".join(problems)


# -- ui-listed-resources-valid ------------------------------------------------------------------------


@for_req("apps-ui-resource-uri-scheme", "server", transports=BOTH_TRANSPORTS)
def test_a_listed_ui_resource_has_a_ui_uri(revision: str, transport: str, peer: Peer) -> None:
    surface = apps_surface(peer)
    resources = surface.require("resources/list holds no UI resource", surface.resources)
    bad = [resource.get("uri") for resource in resources if not str(resource.get("uri")).startswith("ui://")]
    assert not bad, f"UI resources listed under a URI that is not ui://: {bad}"


@for_req("apps-ui-resource-mime-type", "server", transports=BOTH_TRANSPORTS)
def test_a_listed_ui_resource_has_the_app_mime_type(revision: str, transport: str, peer: Peer) -> None:
    surface = apps_surface(peer)
    resources = surface.require("resources/list holds no UI resource", surface.resources)
    bad = {r.get("uri"): r.get("mimeType") for r in resources if not same_mime_type(r.get("mimeType"), APP_MIME_TYPE)}
    assert not bad, f"UI resources listed with a MIME type other than {APP_MIME_TYPE}: {bad}"


# -- ui-resources-readable ----------------------------------------------------------------------------


@for_req("apps-tool-resource-exists", "server", transports=BOTH_TRANSPORTS)
def test_every_ui_resource_a_tool_names_reads(revision: str, transport: str, peer: Peer) -> None:
    surface = apps_surface(peer)
    failed = {}
    for uri in surface.require("no tool names a UI resource", surface.referenced):
        response = read(peer, uri)
        result = response.get("result")
        if "error" in response or not isinstance(result, dict) or not result.get("contents"):
            failed[uri] = response.get("error", result)
    assert not failed, f"UI resources a tool names that resources/read does not serve: {failed}"


@for_req("apps-server-may-omit-ui-only-resources", "server", transports=BOTH_TRANSPORTS)
def test_an_unlisted_ui_resource_still_reads(revision: str, transport: str, peer: Peer) -> None:
    surface = apps_surface(peer)
    listed = {resource.get("uri") for resource in surface.resources}
    unlisted = [uri for uri in surface.require("no tool names a UI resource", surface.referenced) if uri not in listed]
    assert unlisted, "every UI resource a tool names is listed in resources/list (the server did not omit one)"
    # One that does not read is apps-tool-resource-exists's failure; here the option is taken if one does.
    found = [uri for uri in unlisted if (read(peer, uri).get("result") or {}).get("contents")]
    assert found, f"no UI resource left out of resources/list reads: {unlisted}"


# -- ui-resource-contents-valid -----------------------------------------------------------------------


@for_req("apps-ui-resource-read-matches", "server", transports=BOTH_TRANSPORTS)
def test_a_read_ui_resource_is_one_item_of_the_uri_read(revision: str, transport: str, peer: Peer) -> None:
    problems = {}
    for uri, contents in read_contents(peer, apps_surface(peer)):
        uris = [item.get("uri") if isinstance(item, dict) else item for item in contents]
        if uris != [uri]:
            problems[uri] = uris
    assert not problems, f"UI resources that read as other than one content item of the URI read: {problems}"


@for_req("apps-ui-resource-uri-scheme", "server", transports=BOTH_TRANSPORTS)
def test_a_read_ui_resource_has_a_ui_uri(revision: str, transport: str, peer: Peer) -> None:
    items = [item for _, contents in read_contents(peer, apps_surface(peer)) for item in contents]
    bad = [item.get("uri") for item in items if isinstance(item, dict) and not str(item.get("uri")).startswith("ui://")]
    assert not bad, f"UI resource content items whose URI is not ui://: {bad}"


@for_req("apps-ui-resource-mime-type", "server", transports=BOTH_TRANSPORTS)
def test_a_read_ui_resource_has_the_app_mime_type(revision: str, transport: str, peer: Peer) -> None:
    items = [item for _, contents in read_contents(peer, apps_surface(peer)) for item in contents]
    bad = {
        item.get("uri"): item.get("mimeType")
        for item in items
        if isinstance(item, dict) and not same_mime_type(item.get("mimeType"), APP_MIME_TYPE)
    }
    assert not bad, f"UI resource content items with a MIME type other than {APP_MIME_TYPE}: {bad}"


def document_of(item: dict) -> str | None:
    """The item's HTML as text: its ``text``, or its ``blob`` decoded (None: neither, or not base64). A blob's
    bytes are read as UTF-8, any other bytes replaced: the document's shape is all the HTML check reads."""
    if isinstance(item.get("text"), str):
        return item["text"]
    try:
        return base64.b64decode(item.get("blob", ""), validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, TypeError, ValueError):
        return None


@for_req("apps-ui-resource-content-text-or-blob", "server", transports=BOTH_TRANSPORTS)
def test_a_read_ui_resource_comes_as_text_or_blob(revision: str, transport: str, peer: Peer) -> None:
    problems = {}
    for _, contents in read_contents(peer, apps_surface(peer)):
        for item in contents:
            if not isinstance(item, dict):
                problems[repr(item)] = "not an object"
                continue
            carriers = [key for key in ("text", "blob") if key in item]
            if len(carriers) != 1:
                problems[item.get("uri")] = f"carries {carriers or 'neither text nor blob'}"
            elif not isinstance(item[carriers[0]], str) or (carriers == ["blob"] and document_of(item) is None):
                problems[item.get("uri")] = (
                    f"its {carriers[0]} is not a string (base64 for a blob): {item[carriers[0]]!r:.80}"
                )
    assert not problems, f"UI resource content that is not given as one text string or one base64 blob: {problems}"


class _DocumentShape(HTMLParser):
    """What an HTML5 document must start with and hold once: the DOCTYPE first (after blanks and comments)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tokens: list[str] = []  # "doctype", "html", or "other", in document order (comments and blanks left out)

    def handle_decl(self, decl: str) -> None:
        self.tokens.append("doctype" if re.match(r"(?i)doctype\s+html(\s|$)", decl) else "other")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tokens.append("html" if tag == "html" else "other")

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.tokens.append("other")


def html5_problem(document: str) -> str | None:
    """Why ``document`` is not one HTML5 document (None: it is): it must open with ``<!DOCTYPE html>``,
    and hold one DOCTYPE and at most one ``<html>`` start tag (the tag itself may be left out)."""
    shape = _DocumentShape()
    shape.feed(document.removeprefix("\ufeff"))
    shape.close()
    if not shape.tokens or shape.tokens[0] != "doctype":
        return "does not open with <!DOCTYPE html>"
    if shape.tokens.count("doctype") > 1 or shape.tokens.count("html") > 1:
        return f"holds {shape.tokens.count('doctype')} DOCTYPEs and {shape.tokens.count('html')} <html> elements"
    return None


@for_req("apps-ui-resource-content-html", "server", transports=BOTH_TRANSPORTS)
def test_a_read_ui_resource_is_one_html5_document(revision: str, transport: str, peer: Peer) -> None:
    problems = {}
    for _, contents in read_contents(peer, apps_surface(peer)):
        for item in contents:
            document = document_of(item) if isinstance(item, dict) else None
            if document is None:
                continue  # no text to judge: test_a_read_ui_resource_comes_as_text_or_blob's cell
            problem = html5_problem(document)
            if problem:
                problems[item.get("uri")] = f"{problem}: {document[:120]!r}"
    assert not problems, f"UI resource content that is not one HTML5 document: {problems}"


# -- ui-resource-meta-valid ---------------------------------------------------------------------------


def meta_problems(ui: Any) -> list[str]:
    """How a resource's ``_meta.ui`` breaks its declared shape (csp, permissions, domain, prefersBorder)."""
    if not isinstance(ui, dict):
        return [f"_meta.ui is not an object: {ui!r}"]
    problems = []
    csp = ui.get("csp", {})
    if not isinstance(csp, dict):
        problems.append(f"csp is not an object: {csp!r}")
        csp = {}
    for key, value in csp.items():
        if key in CSP_FLAGS:
            if not isinstance(value, bool):
                problems.append(f"csp.{key} is not a boolean: {value!r}")
        elif key not in CSP_LISTS:
            problems.append(f"csp.{key} is no CSP key (known: {', '.join(CSP_LISTS + CSP_FLAGS)})")
        elif not isinstance(value, list):
            problems.append(f"csp.{key} is not an array of origins: {value!r}")
        else:
            bad = [entry for entry in value if not isinstance(entry, str) or not ORIGIN.match(entry)]
            if bad:
                problems.append(f"csp.{key} holds entries that are not origins: {bad}")
    permissions = ui.get("permissions", {})
    if not isinstance(permissions, dict):
        problems.append(f"permissions is not an object: {permissions!r}")
        permissions = {}
    for key, value in permissions.items():
        if key not in PERMISSIONS:
            problems.append(f"permissions.{key} is no permission (known: {', '.join(PERMISSIONS)})")
        elif not isinstance(value, dict):
            problems.append(f"permissions.{key} is not an object: {value!r}")
    if "domain" in ui and not isinstance(ui["domain"], str):
        problems.append(f"domain is not a string: {ui['domain']!r}")
    if "prefersBorder" in ui and not isinstance(ui["prefersBorder"], bool):
        problems.append(f"prefersBorder is not a boolean: {ui['prefersBorder']!r}")
    return problems


def assert_meta_shapes(where: str, items: list[tuple[Any, Any]]) -> None:
    """Every ``(uri, _meta.ui)`` of ``items`` keeps to the declared shape; nothing to check without one."""
    declared = [(uri, ui) for uri, ui in items if ui is not None]
    if not declared:
        pytest.skip(f"{NOTHING_TO_CHECK} no UI resource {where} carries _meta.ui")
    problems = {uri: found for uri, ui in declared if (found := meta_problems(ui))}
    assert not problems, f"_meta.ui of UI resources {where} that breaks its declared shape: {problems}"


@for_req("apps-ui-resource-meta-valid", "server", transports=BOTH_TRANSPORTS)
def test_a_listed_ui_resource_meta_has_the_declared_shape(revision: str, transport: str, peer: Peer) -> None:
    surface = apps_surface(peer)
    resources = surface.require("resources/list holds no UI resource", surface.resources)
    assert_meta_shapes("in resources/list", [(resource.get("uri"), ui_meta(resource)) for resource in resources])


@for_req("apps-ui-resource-meta-valid", "server", transports=BOTH_TRANSPORTS)
def test_a_read_ui_resource_meta_has_the_declared_shape(revision: str, transport: str, peer: Peer) -> None:
    items = [item for _, contents in read_contents(peer, apps_surface(peer)) for item in contents]
    assert_meta_shapes("as read", [(item.get("uri"), ui_meta(item)) for item in items if isinstance(item, dict)])


# -- ui-tool-graceful-degradation ---------------------------------------------------------------------
# What a UI-linked tool answers, and what the server offers a host whose capabilities leave the extension out: a
# second session with the server (at 2026-07-28, requests whose _meta declares no extension).

TEXT_ONLY = ("text",)
SUBSTANTIAL = {"text": "text", "image": "data", "audio": "data", "resource_link": "uri", "resource": "resource"}


def callable_ui_tools(peer: Peer, surface: Surface) -> dict[str, dict[str, Any]]:
    """The UI-linked tools the suite can call, with their arguments: the profile's ``app-tool`` with its own, and
    every one whose inputSchema requires no argument. Calling others would need arguments no one gave."""
    tools = surface.require("no tool has UI metadata", surface.tools)
    calls: dict[str, dict[str, Any]] = {}
    app_tool = peer.roles.get("app-tool")
    if app_tool is not None:
        calls[app_tool.name] = app_tool.args()
    for tool in tools:
        schema = tool.get("inputSchema")
        if isinstance(tool.get("name"), str) and isinstance(schema, dict) and not schema.get("required"):
            calls.setdefault(tool["name"], {})
    if not calls:
        pytest.skip("fixture-missing: every UI-linked tool needs arguments and the profile binds no app-tool")
    return calls


def content_problem(result: dict, kinds: tuple[str, ...] | None = None) -> str | None:
    """Why ``result``'s ``content`` says nothing (None: an item of one of ``kinds``, any kind by default, carries
    something: text that is not blank, data, a link's URI, an embedded resource)."""
    content = result.get("content")
    if not isinstance(content, list) or not content:
        return f"its content is {content!r}"
    for item in content:
        if isinstance(item, dict) and (kinds is None or item.get("type") in kinds):
            carried = item.get(SUBSTANTIAL.get(str(item.get("type")), "type"))
            if carried and (not isinstance(carried, str) or carried.strip()):
                return None
    wanted = "a text item" if kinds == TEXT_ONLY else "an item"
    return f"it has no {wanted} of substance: {content!r:.200}"


def non_host_listing(session: Peer) -> dict[str, dict]:
    """The tools a host without the extension is offered, by name."""
    listed = host_list(session, "tools/list", "tools", send=plain_request)
    return {tool["name"]: tool for tool in listed if isinstance(tool.get("name"), str)}


def links_a_ui(tool: dict) -> bool:
    return ui_meta(tool) is not None or has_flat_key(tool)


@for_req("apps-tool-result-content", "server", transports=BOTH_TRANSPORTS)
def test_a_ui_tool_result_carries_content(revision: str, transport: str, peer: Peer) -> None:
    problems = {}
    for name, arguments in callable_ui_tools(peer, apps_surface(peer)).items():
        response = host_request(peer, "tools/call", {"name": name, "arguments": arguments})
        result = response.get("result")
        precondition(
            isinstance(result, dict) and result.get("isError") is not True,
            f"{name} could not be called with {arguments}: {response}",
        )
        problem = content_problem(result)
        if problem:
            problems[name] = problem
    assert not problems, f"UI-linked tools whose result, to an Apps host, carries no content of substance: {problems}"


@for_req("apps-server-check-host-capability", "server")
def test_a_host_without_the_extension_gets_no_ui_link(
    revision: str, server: Peer, open_session: SessionFactory
) -> None:
    surface = apps_surface(server)
    names = [tool.get("name") for tool in surface.require("no tool has UI metadata", surface.tools)]
    with open_session(revision) as session:
        offered = non_host_listing(session)
    linked = sorted(name for name in names if name in offered and links_a_ui(offered[name]))
    assert not linked, (
        f"tools offered with their UI link to a host whose capabilities do not name {APPS_EXTENSION}: {linked}"
    )


@for_req("apps-server-text-fallback", "server")
def test_a_ui_tool_answers_a_host_without_the_extension_in_text(
    revision: str, server: Peer, open_session: SessionFactory
) -> None:
    calls = callable_ui_tools(server, apps_surface(server))
    problems = {}
    with open_session(revision) as session:
        offered = non_host_listing(session)
        for name, arguments in calls.items():
            if name not in offered:
                problems[name] = "not offered to a host without the extension"
                continue
            response = plain_request(session, "tools/call", {"name": name, "arguments": arguments})
            result = response.get("result")
            if not isinstance(result, dict) or result.get("isError") is True:
                problems[name] = f"the call fails: {response}"
            elif problem := content_problem(result, TEXT_ONLY):
                problems[name] = problem
    assert not problems, f"UI-linked tools with no text-only answer for a host without the extension: {problems}"


@for_req("apps-server-tool-variants", "server")
def test_a_server_may_offer_a_host_without_the_extension_other_tool_versions(
    revision: str, server: Peer, open_session: SessionFactory
) -> None:
    surface = apps_surface(server)
    tools = surface.require("no tool has UI metadata", surface.tools)
    with open_session(revision) as session:
        offered = non_host_listing(session)
    variants = [tool.get("name") for tool in tools if tool.get("name") in offered and offered[tool["name"]] != tool]
    assert variants, (
        "the server offers a host without the extension each UI-linked tool as it offers it an Apps host (no variant)"
    )


# -- the host side: what a client declares and reads, once it declares the extension --------------------------
# A host is a client that declares the extension; a client that does not is no Apps host, and these cells have
# nothing to judge on it (fixture-missing).

SCRIPTED_APP_URI = "ui://mcp-matrix/echo.html"


def declared_apps_settings(server: ScriptedServer) -> list[Any]:
    """The extension's settings in each declaration the client made (initialize's capabilities, or at 2026-07-28
    each request's ``_meta``); none: the client is no Apps host, and the test stops there."""
    found = []
    for frame in server.requests():
        params = frame.get("params") if isinstance(frame.get("params"), dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        for capabilities in (params.get("capabilities"), meta.get(CLIENT_CAPABILITIES_META)):
            extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
            if isinstance(extensions, dict) and APPS_EXTENSION in extensions:
                found.append(extensions[APPS_EXTENSION])
    if not found:
        pytest.skip(f"fixture-missing: the client declares no {APPS_EXTENSION} extension: it is no Apps host")
    return found


@for_req("apps-host-capability-mime-types", "client")
def test_a_host_declaring_the_extension_lists_its_mime_types(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    run_client("initialize").require_completed()
    bad = [
        settings
        for settings in declared_apps_settings(scripted_server)
        if not isinstance(settings, dict)
        or not isinstance(settings.get("mimeTypes"), list)
        or not settings["mimeTypes"]
        or not all(isinstance(mime_type, str) for mime_type in settings["mimeTypes"])
    ]
    assert not bad, f"declarations of {APPS_EXTENSION} without a mimeTypes array of content types: {bad}"


@for_req("apps-host-read-ui-resource", "client")
def test_a_host_reads_the_ui_resource_of_the_tool_it_calls(
    revision: str, run_client: Callable[[str], ClientRun], scripted_server: ScriptedServer
) -> None:
    """The scripted server's one tool (which the client's scenario calls) names a UI resource."""
    listed = scripted_server.answers["tools/list"]
    ui_tool = SCRIPTED_TOOL | {"_meta": {"ui": {"resourceUri": SCRIPTED_APP_URI}}}
    scripted_server.answers["tools/list"] = lambda frame: listed(frame) | {"tools": [ui_tool]}
    run_client("rich").require_completed()
    declared_apps_settings(scripted_server)
    requests = scripted_server.requests()
    if not any(frame.get("method") == "tools/call" for frame in requests):
        pytest.skip("fixture-missing: the client did not call the tool whose UI it would read")
    read = [(frame.get("params") or {}).get("uri") for frame in requests if frame.get("method") == "resources/read"]
    assert SCRIPTED_APP_URI in read, f"a host called a tool naming {SCRIPTED_APP_URI} and never read it: {read}"
