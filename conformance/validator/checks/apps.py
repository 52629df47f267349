"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension, its stable 2026-01-26 text): what a server offers a
host, judged on the tools/list, resources/list, resources/read and tools/call answers of a trace, and the
extension settings a host declares.

A host is a client that declares the extension: in its initialize capabilities, or at 2026-07-28 in a
request's own ``_meta`` envelope (so one trace may hold requests of a host and of a client without Apps).
The rules about the Apps surface (a UI-linked tool, a UI resource) are judged on the answers to a host's
requests and do not apply to a session in which no request declared the extension; the two rules about
a client without the extension (the server hides its UI links from it, and answers its UI-linked tools in
text) are judged on the answers to requests that do not declare it.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from conformance.validator.checks.content import _schema_problem, results_of
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, REQUEST, SERVER, Message, Session

EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"
FLAT_KEY = "ui/resourceUri"  # the deprecated flat _meta key naming a tool's UI
VISIBILITIES = frozenset({"model", "app"})
CSP_DOMAIN_LISTS = frozenset({"connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"})
CSP_SWITCHES = frozenset({"wasmUnsafeEval"})
PERMISSIONS = frozenset({"camera", "microphone", "geolocation", "clipboardWrite"})
# an origin of a CSP domain list: scheme://host[:port], the host DNS labels (the first may be '*', for every
# subdomain) or an IPv6 address in brackets; nothing after it (no path, not even '/')
SCHEME = r"[a-z][a-z0-9+.-]*"
HOST = r"(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\]"
ORIGIN = re.compile(rf"(?P<scheme>{SCHEME})://(?P<host>{HOST})(:(?P<port>[0-9]{{1,5}}))?", re.IGNORECASE)
HIGHEST_PORT = 65535
# what a content item of a tool result carries, by its type: one that is empty carries nothing
CARRIED_BY = {"text": "text", "image": "data", "audio": "data", "resource_link": "uri", "resource": "resource"}


# -- who declared the extension ---------------------------------------------------------------------------


def apps_settings(capabilities: Any) -> Any:
    """The extension's settings in a capabilities object (None: it does not declare the extension)."""
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return extensions.get(EXTENSION) if isinstance(extensions, dict) else None


def _declared(session: Session, request: Message | None) -> bool:
    """The client declared the extension for ``request`` (its session's initialize, or its own _meta)."""
    return apps_settings(session.client_capabilities_for(request)) is not None


def _without_apps(session: Session, request: Message | None, mime_type: bool = False) -> bool:
    """The trace shows the client's capabilities for ``request`` and they do not declare the extension (with
    ``mime_type``: with the app MIME type). A trace that holds no initialize (a capture begun mid-session) does
    not say what the client declared: neither a host nor a client without Apps."""
    if session.client_capabilities_for(request) is None:
        return False
    return not (_renders_apps(session, request) if mime_type else _declared(session, request))


def _renders_apps(session: Session, request: Message | None) -> bool:
    """The client declared the extension for ``request`` with the app MIME type among its ``mimeTypes``: a
    host the server's UI (always of that type) is for."""
    settings = apps_settings(session.client_capabilities_for(request))
    types = settings.get("mimeTypes") if isinstance(settings, dict) else None
    return isinstance(types, list) and any(_is_app_mime_type(kind) for kind in types)


def _declarations(session: Session) -> Iterator[tuple[Message, Any]]:
    """Each client request that declares the extension, with its settings."""
    for request in session.sent_by(CLIENT, REQUEST):
        if request.method == "initialize":
            settings = apps_settings(request.params.get("capabilities"))
        elif session.modern:
            settings = apps_settings(session.client_capabilities_for(request))
        else:
            continue
        if settings is not None:
            yield request, settings


def _never_declared(session: Session) -> str | None:
    if next(_declarations(session), None) is None:
        return f"no client request declared the {EXTENSION} extension: MCP Apps was not negotiated"
    return None


# -- the Apps surface ---------------------------------------------------------------------------------------


def ui_of(item: Any) -> Any:
    """The ``_meta.ui`` of a tool, resource or content item (None without one)."""
    meta = item.get("_meta") if isinstance(item, dict) else None
    return meta.get("ui") if isinstance(meta, dict) else None


def has_flat_key(tool: dict) -> bool:
    meta = tool.get("_meta")
    return isinstance(meta, dict) and FLAT_KEY in meta


def is_ui_linked(tool: Any) -> bool:
    return isinstance(tool, dict) and (ui_of(tool) is not None or has_flat_key(tool))


def named_uri(tool: dict) -> tuple[str, Any] | None:
    """(where, the URI) a UI-linked tool names its resource by: ``_meta.ui.resourceUri``, else the flat key;
    None if it names none."""
    ui = ui_of(tool)
    if isinstance(ui, dict) and "resourceUri" in ui:
        return "_meta.ui.resourceUri", ui["resourceUri"]
    if has_flat_key(tool):
        return f"_meta[{FLAT_KEY!r}]", tool["_meta"][FLAT_KEY]
    return None


def _listings(session: Session, method: str, key: str) -> Iterator[tuple[Message, Message | None, list[dict]]]:
    """(the result, the request it answers, its items) of every ``method`` result the server sent."""
    for response, result in results_of(session, SERVER, method):
        items = result.get(key)
        if isinstance(items, list):
            yield response, session.request_answered(response), [i for i in items if isinstance(i, dict)]


def host_ui_tools(session: Session) -> Iterator[tuple[Message, dict]]:
    """(the listing, the tool) of each UI-linked tool the server listed to a host."""
    for response, request, tools in _listings(session, "tools/list", "tools"):
        if _declared(session, request):
            for tool in tools:
                if is_ui_linked(tool):
                    yield response, tool


@dataclass(frozen=True)
class Surface:
    """What the trace shows of the server's Apps surface, from every listing in it (a host's or not)."""

    ui_tools: frozenset[str]  # the names of the tools some listing links to a UI
    named: frozenset[str]  # the URIs those tools name
    ui_resources: frozenset[str]  # the URIs some resources/list marks as UI resources

    def is_ui_resource(self, uri: Any) -> bool:
        return isinstance(uri, str) and (uri.startswith("ui://") or uri in self.named or uri in self.ui_resources)


def surface(session: Session) -> Surface:
    if "apps.surface" not in session.memo:
        tools, named = set(), set()
        for _, _, listed in _listings(session, "tools/list", "tools"):
            for tool in filter(is_ui_linked, listed):
                if isinstance(tool.get("name"), str):
                    tools.add(tool["name"])
                if isinstance(uri := (named_uri(tool) or ("", None))[1], str):
                    named.add(uri)
        resources = {
            resource["uri"]
            for _, _, listed in _listings(session, "resources/list", "resources")
            for resource in listed
            if isinstance(resource.get("uri"), str) and _marked_as_ui(resource)
        }
        session.memo["apps.surface"] = Surface(frozenset(tools), frozenset(named), frozenset(resources))
    return session.memo["apps.surface"]


def _marked_as_ui(resource: dict) -> bool:
    """A listed resource that presents itself as a UI resource, whatever its URI: the app MIME type, or
    ``_meta.ui``."""
    return _is_app_mime_type(resource.get("mimeType")) or ui_of(resource) is not None


def host_listed_ui_resources(session: Session) -> Iterator[tuple[Message, dict]]:
    """(the listing, the resource) of each UI resource the server listed to a host: a ui:// URI, the app MIME
    type, ``_meta.ui``, or a URI a UI-linked tool names."""
    apps = surface(session)
    for response, request, resources in _listings(session, "resources/list", "resources"):
        if _declared(session, request):
            for resource in resources:
                if apps.is_ui_resource(resource.get("uri")) or _marked_as_ui(resource):
                    yield response, resource


def host_ui_reads(session: Session) -> Iterator[tuple[Message, str, list[Message]]]:
    """(the request, the URI read, its answers) of each resources/read of a UI resource by a host."""
    apps = surface(session)
    for request in session.sent_by(CLIENT, REQUEST):
        uri = request.params.get("uri")
        if request.method == "resources/read" and apps.is_ui_resource(uri) and _declared(session, request):
            yield request, uri, session.answers_to(request)


def host_ui_contents(session: Session) -> Iterator[tuple[Message, dict]]:
    """(the result, the content item) of each content item a host's read of a UI resource returned."""
    for _, _, answers in host_ui_reads(session):
        for answer in answers:
            contents = answer.result.get("contents") if isinstance(answer.result, dict) else None
            for item in contents if isinstance(contents, list) else []:
                yield answer, item


def _is_app_mime_type(given: Any) -> bool:
    """``given`` is the app MIME type, read as MIME types are: type, subtype and parameter names in any case,
    blanks around ``;`` and ``=`` not counted, the parameter's value as written."""
    if not isinstance(given, str):
        return False
    kind, _, rest = given.partition(";")
    name, _, value = rest.partition("=")
    return (kind.strip().lower(), name.strip().lower(), value.strip()) == ("text/html", "profile", "mcp-app")


# -- the tools ----------------------------------------------------------------------------------------------


@check("apps-tool-resource-uri-ui-scheme", not_applicable=_never_declared)
def ui_tools_name_ui_uris(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each tool listed to a host that names a UI resource (``_meta.ui.resourceUri``, else the deprecated
    flat key) names it by a string beginning ``ui://``."""
    for response, tool in host_ui_tools(session):
        named = named_uri(tool)
        if named is None:
            continue
        judgement.examine()
        where, uri = named
        if not isinstance(uri, str) or not uri.startswith("ui://"):
            judgement.fail(response.seq, f"tool {tool.get('name')!r} names its UI in {where} as {uri!r}, not ui://")


@check("apps-tool-visibility-values", not_applicable=_never_declared)
def ui_tool_visibility(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each tool listed to a host whose ``_meta.ui`` sets ``visibility`` sets it to an array of "model" and
    "app" only."""
    for response, tool in host_ui_tools(session):
        ui = ui_of(tool)
        if not isinstance(ui, dict) or "visibility" not in ui:
            continue
        judgement.examine()
        value = ui["visibility"]
        if not isinstance(value, list) or not all(isinstance(v, str) and v in VISIBILITIES for v in value):
            judgement.fail(
                response.seq, f"tool {tool.get('name')!r}: _meta.ui.visibility {value!r} is not an array of model/app"
            )


@check("apps-tool-flat-resource-uri-deprecated", not_applicable=_never_declared)
def ui_tool_nested_resource_uri(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each tool listed to a host that names a UI resource names it in ``_meta.ui.resourceUri``; a deprecated
    flat ``_meta["ui/resourceUri"]`` beside it names the same URI."""
    for response, tool in host_ui_tools(session):
        if named_uri(tool) is None:
            continue
        judgement.examine()
        ui = ui_of(tool)
        nested = ui.get("resourceUri") if isinstance(ui, dict) else None
        if not isinstance(ui, dict) or "resourceUri" not in ui:
            judgement.fail(response.seq, f"tool {tool.get('name')!r} names its UI only in the flat {FLAT_KEY!r} key")
        elif has_flat_key(tool) and tool["_meta"][FLAT_KEY] != nested:
            judgement.fail(
                response.seq,
                f"tool {tool.get('name')!r}: the flat {FLAT_KEY!r} names {tool['_meta'][FLAT_KEY]!r}, "
                f"_meta.ui.resourceUri {nested!r}",
            )


@check("apps-tool-input-schema", not_applicable=_never_declared)
def ui_tool_input_schema(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each UI-linked tool listed to a host has an inputSchema that is a valid JSON Schema of type "object"."""
    for response, tool in host_ui_tools(session):
        judgement.examine()
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            judgement.fail(response.seq, f"UI-linked tool {tool.get('name')!r}: its inputSchema is {schema!r:.80}")
        elif problem := _schema_problem(json.dumps(schema, sort_keys=True)):
            judgement.fail(response.seq, f"UI-linked tool {tool.get('name')!r}: its inputSchema is invalid: {problem}")


@check("apps-tool-resource-exists", not_applicable=_never_declared)
def ui_tool_resources_read(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each UI resource a tool listed to a host names reads: every answer to a host's resources/read of it is
    a result with contents and no error. A named URI the trace holds no read of cannot be judged (said in the
    report)."""
    reads: dict[str, list[Message]] = {}
    for _, uri, answers in host_ui_reads(session):
        reads.setdefault(uri, []).extend(answers)
    unread: dict[str, int] = {}
    for response, tool in host_ui_tools(session):
        uri = (named_uri(tool) or ("", None))[1]
        if isinstance(uri, str) and uri not in reads:
            unread.setdefault(uri, response.seq)
    for uri, answers in reads.items():
        if uri not in surface(session).named:
            continue
        for answer in answers:
            judgement.examine()
            contents = answer.result.get("contents") if isinstance(answer.result, dict) else None
            error = answer.frame.get("error") if isinstance(answer.frame, dict) else None
            if error is not None:  # an error response, or a result that also carries an error: no success
                code = error.get("code") if isinstance(error, dict) else error
                judgement.fail(answer.seq, f"resources/read of {uri!r}, which a tool names, was refused ({code!r})")
            elif not contents:
                judgement.fail(answer.seq, f"resources/read of {uri!r}, which a tool names, returned no contents")
    for uri, seq in unread.items():
        judgement.cannot_judge(seq, f"a tool names {uri!r}, which the trace holds no read of")


def _ui_tool_calls(session: Session, by_host: bool) -> Iterator[tuple[Message, list[Message]]]:
    """(the request, its answers) of each tools/call of a tool some listing links to a UI, sent by a host
    (``by_host``) or by a client that did not declare the extension."""
    tools = surface(session).ui_tools
    for request in session.sent_by(CLIENT, REQUEST):
        called = request.params.get("name") if request.method == "tools/call" else None
        of_the_kind = _declared(session, request) if by_host else _without_apps(session, request)
        if isinstance(called, str) and called in tools and of_the_kind:
            yield request, session.answers_to(request)


def _carries_something(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    carried = item.get(CARRIED_BY.get(str(item.get("type")), "type"))
    return bool(carried) and (not isinstance(carried, str) or bool(carried.strip()))


@check("apps-tool-result-content", not_applicable=_never_declared)
def ui_tool_results_carry_content(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each result of a host's tools/call of a UI-linked tool has a content array with an item that carries
    something (text that is not blank, data, a link's URI, an embedded resource)."""
    for request, answers in _ui_tool_calls(session, by_host=True):
        for answer in answers:
            if not isinstance(answer.result, dict):
                continue
            judgement.examine()
            content = answer.result.get("content")
            if not isinstance(content, list) or not any(map(_carries_something, content)):
                judgement.fail(
                    answer.seq, f"the result of UI-linked tool {request.params['name']!r} has content {content!r:.120}"
                )


# -- a client without the extension ---------------------------------------------------------------------


@check("apps-server-check-host-capability")
def ui_links_only_for_hosts(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A server whose Apps surface the trace shows (a tool some listing links to a UI) lists no UI-linked tool
    to a client that did not declare the extension with the app MIME type."""
    if not surface(session).ui_tools:
        return  # no UI-linked tool anywhere: a listing without one says nothing of what the server hides
    for response, request, tools in _listings(session, "tools/list", "tools"):
        if not _without_apps(session, request, mime_type=True):
            continue
        judgement.examine()
        linked = [str(tool.get("name")) for tool in tools if is_ui_linked(tool)]
        if linked:
            judgement.fail(
                response.seq,
                f"tools/list to a client without the {EXTENSION} extension (and {APP_MIME_TYPE}) links "
                f"{', '.join(linked)} to a UI",
            )


@check("apps-server-text-fallback")
def ui_tools_answer_in_text(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each tools/call of a UI-linked tool by a client that did not declare the extension is answered with a
    text item that is not blank. A call that fails is not judged: the trace does not say whether for want of
    a fallback or for its arguments."""
    for request, answers in _ui_tool_calls(session, by_host=False):
        for answer in answers:
            result = answer.result if isinstance(answer.result, dict) else None
            if result is None or result.get("isError") is True:
                judgement.cannot_judge(answer.seq, f"the call of UI-linked tool {request.params['name']!r} failed")
                continue
            judgement.examine()
            content = result.get("content")
            texts = [i for i in content if isinstance(i, dict) and i.get("type") == "text"] if content else []
            if not isinstance(content, list) or not any(map(_carries_something, texts)):
                judgement.fail(
                    answer.seq,
                    f"UI-linked tool {request.params['name']!r} answers a client without the extension with no text: "
                    f"{content!r:.120}",
                )


# -- the UI resources -----------------------------------------------------------------------------------


@check("apps-ui-resource-uri-scheme", not_applicable=_never_declared)
def ui_resource_uris(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each UI resource listed to a host, and each content item of a host's read of one, has a URI beginning
    ``ui://``."""
    for response, item in [*host_listed_ui_resources(session), *host_ui_contents(session)]:
        judgement.examine()
        uri = item.get("uri") if isinstance(item, dict) else None
        if not isinstance(uri, str) or not uri.startswith("ui://"):
            judgement.fail(response.seq, f"a UI resource's uri is {uri!r}, not ui://")


@check("apps-ui-resource-mime-type", not_applicable=_never_declared)
def ui_resource_mime_types(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each UI resource listed to a host, and each content item of a host's read of one, has the MIME type
    text/html;profile=mcp-app."""
    for response, item in [*host_listed_ui_resources(session), *host_ui_contents(session)]:
        judgement.examine()
        kind = item.get("mimeType") if isinstance(item, dict) else None
        if not _is_app_mime_type(kind):
            uri = item.get("uri") if isinstance(item, dict) else None
            judgement.fail(response.seq, f"UI resource {uri!r} has mimeType {kind!r}, not {APP_MIME_TYPE}")


@check("apps-ui-resource-read-matches", not_applicable=_never_declared)
def ui_resource_reads_match(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each result of a host's resources/read of a UI resource holds one content item, whose uri is the URI
    read."""
    for _, uri, answers in host_ui_reads(session):
        for answer in answers:
            contents = answer.result.get("contents") if isinstance(answer.result, dict) else None
            if not isinstance(contents, list):
                continue
            judgement.examine()
            uris = [item.get("uri") if isinstance(item, dict) else item for item in contents]
            if uris != [uri]:
                judgement.fail(answer.seq, f"the read of {uri!r} returned content items of {uris!r:.120}")


def document_of(item: dict) -> str | None:
    """A content item's document as text: its ``text``, or its ``blob`` decoded (bytes that are not UTF-8
    replaced: only the document's shape is read); None without either, or with a blob that is not base64."""
    if isinstance(item.get("text"), str):
        return item["text"]
    if not isinstance(item.get("blob"), str):
        return None
    try:
        return base64.b64decode(item["blob"], validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return None


@check("apps-ui-resource-content-text-or-blob", not_applicable=_never_declared)
def ui_resource_text_or_blob(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each content item of a host's read of a UI resource carries its document in exactly one of ``text`` (a
    string) and ``blob`` (base64)."""
    for answer, item in host_ui_contents(session):
        judgement.examine()
        if not isinstance(item, dict):
            judgement.fail(answer.seq, f"a UI resource's content item is {item!r:.60}, not an object")
            continue
        carriers = sorted({"text", "blob"} & item.keys())
        if len(carriers) != 1:
            judgement.fail(
                answer.seq, f"UI resource {item.get('uri')!r}: its content item carries {carriers or 'neither'}"
            )
        elif carriers == ["text"] and not isinstance(item["text"], str):
            judgement.fail(answer.seq, f"UI resource {item.get('uri')!r}: its text is {item['text']!r:.60}")
        elif carriers == ["blob"] and document_of(item) is None:
            judgement.fail(answer.seq, f"UI resource {item.get('uri')!r}: its blob is not base64")


class _Outline(HTMLParser):
    """The declarations and ``<html>`` start tags of a document, in order, with whether anything else came
    before the first of them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.doctypes = 0
        self.html_tags = 0
        self.opens_with_doctype: bool | None = None  # None until the first thing that is not a comment or blank

    def _first(self, is_doctype: bool) -> None:
        if self.opens_with_doctype is None:
            self.opens_with_doctype = is_doctype

    def handle_decl(self, decl: str) -> None:
        is_doctype = re.fullmatch(r"(?is)doctype\s+html(\s.*)?", decl) is not None
        self.doctypes += is_doctype
        self._first(is_doctype)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.html_tags += tag == "html"
        self._first(False)

    def handle_data(self, data: str) -> None:
        if data.strip():
            self._first(False)

    def handle_pi(self, data: str) -> None:
        self._first(False)


def html5_document_problem(document: str) -> str | None:
    """Why ``document`` is not an HTML5 document, as far as its outline shows (None: it is one): it opens,
    after blanks and comments, with the HTML5 DOCTYPE, and holds one DOCTYPE and at most one ``<html>``."""
    outline = _Outline()
    outline.feed(document.removeprefix("\ufeff"))
    outline.close()
    if not outline.opens_with_doctype:
        return f"it does not open with <!DOCTYPE html>: {document.lstrip()[:60]!r}"
    if outline.doctypes > 1 or outline.html_tags > 1:
        return f"it holds {outline.doctypes} DOCTYPEs and {outline.html_tags} <html> start tags"
    return None


@check("apps-ui-resource-content-html", not_applicable=_never_declared)
def ui_resource_html5(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The document of each content item of a host's read of a UI resource (its text, or its blob decoded) is
    one HTML5 document: the HTML5 DOCTYPE first (after blanks and comments), one DOCTYPE, at most one
    ``<html>``."""
    for answer, item in host_ui_contents(session):
        document = document_of(item) if isinstance(item, dict) else None
        if document is None:
            continue  # no document to read: apps-ui-resource-content-text-or-blob's failure
        judgement.examine()
        if problem := html5_document_problem(document):
            judgement.fail(answer.seq, f"UI resource {item.get('uri')!r} is no HTML5 document: {problem}")


def origin_problem(entry: Any) -> str | None:
    if not isinstance(entry, str):
        return f"{entry!r} is not a string"
    origin = ORIGIN.fullmatch(entry)
    if origin is None:
        return f"{entry!r} is no origin (scheme://host[:port], nothing after it)"
    if origin["port"] is not None and int(origin["port"]) > HIGHEST_PORT:
        return f"{entry!r} names port {origin['port']}"
    return None


def ui_meta_problems(ui: Any) -> list[str]:
    """How a UI resource's ``_meta.ui`` departs from its declared shape."""
    if not isinstance(ui, dict):
        return [f"_meta.ui is {ui!r:.60}, not an object"]
    problems: list[str] = []
    csp = ui.get("csp", {})
    for key, value in csp.items() if isinstance(csp, dict) else ():
        if key in CSP_SWITCHES:
            if not isinstance(value, bool):
                problems.append(f"csp.{key} is {value!r:.40}, not a boolean")
        elif key not in CSP_DOMAIN_LISTS:
            problems.append(f"csp.{key} is no CSP setting the extension declares")
        elif not isinstance(value, list):
            problems.append(f"csp.{key} is {value!r:.60}, not an array of origins")
        else:
            problems += [f"csp.{key}: {p}" for p in map(origin_problem, value) if p]
    if not isinstance(csp, dict):
        problems.append(f"csp is {csp!r:.60}, not an object")
    permissions = ui.get("permissions", {})
    for key, value in permissions.items() if isinstance(permissions, dict) else ():
        if key not in PERMISSIONS:
            problems.append(f"permissions.{key} is no permission the extension declares")
        elif not isinstance(value, dict):
            problems.append(f"permissions.{key} is {value!r:.40}, not an object")
    if not isinstance(permissions, dict):
        problems.append(f"permissions is {permissions!r:.60}, not an object")
    if "domain" in ui and not isinstance(ui["domain"], str):
        problems.append(f"domain is {ui['domain']!r:.40}, not a string")
    if "prefersBorder" in ui and not isinstance(ui["prefersBorder"], bool):
        problems.append(f"prefersBorder is {ui['prefersBorder']!r:.40}, not a boolean")
    return problems


@check("apps-ui-resource-meta-valid", not_applicable=_never_declared)
def ui_resource_meta_shape(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each ``_meta.ui`` of a UI resource listed to a host, or of a content item of a host's read of one, has
    its declared shape: csp's domain lists arrays of origins (wasmUnsafeEval a boolean), permissions' members
    objects, domain a string, prefersBorder a boolean; no csp setting or permission the extension does not
    declare."""
    for response, item in [*host_listed_ui_resources(session), *host_ui_contents(session)]:
        if ui_of(item) is None:
            continue
        judgement.examine()
        if problems := ui_meta_problems(ui_of(item)):
            judgement.fail(response.seq, f"UI resource {item.get('uri')!r}: its _meta.ui: {'; '.join(problems)}")


# -- the host's declaration -------------------------------------------------------------------------------


@check("apps-host-capability-mime-types", not_applicable=_never_declared)
def host_lists_mime_types(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Each declaration of the extension by the client (its initialize, or at 2026-07-28 a request's
    ``_meta``) has ``mimeTypes``: a non-empty array of content type strings."""
    for request, settings in _declarations(session):
        judgement.examine()
        types = settings.get("mimeTypes") if isinstance(settings, dict) else None
        if not isinstance(types, list) or not types or not all(isinstance(kind, str) for kind in types):
            judgement.fail(request.seq, f"the client's {request.method} declares {EXTENSION} with {settings!r:.120}")
