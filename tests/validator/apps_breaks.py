"""The violation traces of the MCP Apps checks (conformance/validator/checks/apps.py): check name -> (the
conforming trace it breaks, the break). Each starts from apps-2026-07-28-stdio.jsonl (traces/README.md: an
Apps host's requests and, in the same trace, a client's without the extension). corpus.py merges them into
its BREAKS."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from tests.validator.corpus import C2S, S2C, Break, Event, frames, is_request, is_result_of

APPS = "apps-2026-07-28-stdio.jsonl"
EXTENSION = "io.modelcontextprotocol/ui"
ELSEWHERE = "https://mcp-matrix.example/app.html"  # a URI that is not ui://


def _declares_apps(frame: dict) -> bool:
    capabilities = frame["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    return EXTENSION in capabilities.get("extensions", {})


def _answer(events: list[Event], method: str, by_host: bool, index: int = 0) -> dict:
    """The result of the ``index``-th ``method`` request of the host (``by_host``) or of the client without
    the extension."""
    requests = [f for _, f in frames(events, C2S) if is_request(method)(f) and _declares_apps(f) == by_host]
    wanted = requests[index]["id"]
    return next(f for _, f in frames(events, S2C) if is_result_of(events, method)(f) and f["id"] == wanted)


def _host_tool(events: list[Event]) -> dict:
    """The first UI-linked tool listed to the host."""
    return next(t for t in _answer(events, "tools/list", True)["result"]["tools"] if "_meta" in t)


def _host_ui(events: list[Event]) -> dict:
    return _host_tool(events)["_meta"]["ui"]


def _listed_ui_resource(events: list[Event]) -> dict:
    return next(r for r in _answer(events, "resources/list", True)["result"]["resources"] if "_meta" in r)


def _read_item(events: list[Event]) -> dict:
    return _answer(events, "resources/read", True)["result"]["contents"][0]


def _refuse_the_read(events: list[Event]) -> None:
    answer = _answer(events, "resources/read", True)
    del answer["result"]
    answer["error"] = {"code": -32602, "message": "Resource not found"}  # 2026-07-28 retired -32002


def _link_for_everyone(events: list[Event]) -> None:
    """The client without the extension is listed the tools as the host is: their UI links with them."""
    _answer(events, "tools/list", False)["result"]["tools"] = _answer(events, "tools/list", True)["result"]["tools"]


def _content(by_host: bool, content: list[dict]) -> Break:
    """The first tools/call result to the host (``by_host``), or to the client without the extension, carries
    ``content``."""
    return lambda events: _answer(events, "tools/call", by_host)["result"].update(content=content)


def _declare_without_mime_types(events: list[Event]) -> None:
    first = next(f for _, f in frames(events, C2S) if is_request()(f))
    capabilities = first["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    capabilities["extensions"] = {**capabilities["extensions"], EXTENSION: {}}


def _set(get: Callable[[list[Event]], dict], **members: Any) -> Break:
    return lambda events: get(events).update(members)


AN_IMAGE = {"type": "image", "data": base64.b64encode(b"\x89PNG").decode(), "mimeType": "image/png"}

APPS_BREAKS: dict[str, tuple[str, Break]] = {
    "ui-tools-name-ui-uris": (APPS, _set(_host_ui, resourceUri=ELSEWHERE)),
    "ui-tool-visibility": (APPS, _set(_host_ui, visibility=["model", "user"])),
    "ui-tool-nested-resource-uri": (
        APPS,
        lambda ev: _host_tool(ev)["_meta"].update({"ui/resourceUri": "ui://mcp-matrix/elsewhere.html"}),
    ),
    "ui-tool-input-schema": (APPS, _set(_host_tool, inputSchema={"type": "string"})),
    "ui-tool-resources-read": (APPS, _refuse_the_read),
    "ui-tool-results-carry-content": (APPS, _content(True, [])),
    "ui-links-only-for-hosts": (APPS, _link_for_everyone),
    "ui-tools-answer-in-text": (APPS, _content(False, [AN_IMAGE])),
    "ui-resource-uris": (APPS, _set(_listed_ui_resource, uri=ELSEWHERE)),
    "ui-resource-mime-types": (APPS, _set(_read_item, mimeType="text/html")),
    "ui-resource-reads-match": (APPS, _set(_read_item, uri="ui://mcp-matrix/elsewhere.html")),
    "ui-resource-text-or-blob": (APPS, lambda ev: _read_item(ev).update(blob=base64.b64encode(b"<p>").decode())),
    "ui-resource-html5": (APPS, _set(_read_item, text="<p>a fragment, not a document</p>")),
    "ui-resource-meta-shape": (
        APPS,
        lambda ev: _listed_ui_resource(ev)["_meta"]["ui"]["csp"].update(connectDomains="https://api.example.com"),
    ),
    "host-lists-mime-types": (APPS, _declare_without_mime_types),
}
