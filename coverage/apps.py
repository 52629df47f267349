"""Coverage of the apps area (MCP Apps, the extension catalogued from its own pinned specification, #15).

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. Every row applies at
2025-06-18, 2025-11-25 and 2026-07-28 (docs/spec/requirements.md, section apps). The server cells are held by
the Apps checks of conformance/test_apps.py (each test one row, each row's test in one check: test_apps.CHECKS);
a fault rewrites the frames the server sends every item of a list (``*``) at a time, so it holds whatever the
target names its tools and resources.
"""

from conformance.harness.faults import Fault, drop_field, set_field
from conformance.harness.frames import modern_meta
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_apps.py"
MODERN = "2026-07-28"
ELSEWHERE = "https://mcp-matrix.example/app.html"  # a URI that is not ui://
NOT_FOUND = {"code": -32002, "message": "Resource not found"}
APPS_EXTENSION = "io.modelcontextprotocol/ui"
HOST_SETTINGS = {"mimeTypes": ["text/html;profile=mcp-app"]}


def declaring(target: str, path: str, settings: dict) -> Fault:
    """The client's record shows ``target`` declaring the extension with ``settings``: its initialize's
    capabilities, or (``params._meta``) a 2026-07-28 request's whole envelope."""
    capabilities = {"extensions": {APPS_EXTENSION: settings}}
    return set_field(target, path, modern_meta(MODERN, capabilities) if path == "params._meta" else capabilities)


COVERS: list[Cover] = [
    # ui-tools-present
    Cover("apps-tool-ui-linkage", "server", f"{TESTS}::test_a_tool_may_link_a_ui_resource"),
    # ui-tool-metadata-valid
    Cover(
        "apps-tool-resource-uri-ui-scheme",
        "server",
        f"{TESTS}::test_a_tool_names_its_ui_resource_by_a_ui_uri",
        fault=set_field("tools/list", "result.tools.*._meta.ui.resourceUri", ELSEWHERE),
    ),
    Cover(
        "apps-tool-visibility-values",
        "server",
        f"{TESTS}::test_a_tool_visibility_holds_only_model_and_app",
        fault=set_field("tools/list", "result.tools.*._meta.ui.visibility", ["model", "user"]),
    ),
    Cover(
        "apps-tool-flat-resource-uri-deprecated",
        "server",
        f"{TESTS}::test_a_tool_names_its_ui_resource_in_the_nested_key",
        fault=set_field("tools/list", "result.tools.*._meta.ui/resourceUri", "ui://mcp-matrix/elsewhere.html"),
    ),
    # ui-tool-input-schema-valid
    Cover(
        "apps-tool-input-schema",
        "server",
        f"{TESTS}::test_a_ui_tool_input_schema_is_an_object_schema",
        fault=set_field("tools/list", "result.tools.*.inputSchema", {"type": "string"}),
    ),
    # ui-listed-resources-valid
    Cover(
        "apps-ui-resource-uri-scheme",
        "server",
        f"{TESTS}::test_a_listed_ui_resource_has_a_ui_uri",
        fault=set_field("resources/list", "result.resources.*.uri", ELSEWHERE),
    ),
    Cover(
        "apps-ui-resource-mime-type",
        "server",
        f"{TESTS}::test_a_listed_ui_resource_has_the_app_mime_type",
        fault=set_field("resources/list", "result.resources.*.mimeType", "text/html"),
    ),
    # ui-resources-readable
    Cover(
        "apps-tool-resource-exists",
        "server",
        f"{TESTS}::test_every_ui_resource_a_tool_names_reads",
        fault=set_field("resources/read", "error", NOT_FOUND),
    ),
    Cover(
        "apps-server-may-omit-ui-only-resources",
        "server",
        f"{TESTS}::test_an_unlisted_ui_resource_still_reads",
    ),
    # ui-resource-contents-valid
    Cover(
        "apps-ui-resource-read-matches",
        "server",
        f"{TESTS}::test_a_read_ui_resource_is_one_item_of_the_uri_read",
        fault=set_field("resources/read", "result.contents.*.uri", "ui://mcp-matrix/elsewhere.html"),
    ),
    Cover(
        "apps-ui-resource-uri-scheme",
        "server",
        f"{TESTS}::test_a_read_ui_resource_has_a_ui_uri",
        fault=set_field("resources/read", "result.contents.*.uri", ELSEWHERE),
    ),
    Cover(
        "apps-ui-resource-mime-type",
        "server",
        f"{TESTS}::test_a_read_ui_resource_has_the_app_mime_type",
        fault=set_field("resources/read", "result.contents.*.mimeType", "text/html"),
    ),
    Cover(
        "apps-ui-resource-content-text-or-blob",
        "server",
        f"{TESTS}::test_a_read_ui_resource_comes_as_text_or_blob",
        fault=drop_field("resources/read", "result.contents.*.text"),
    ),
    Cover(
        "apps-ui-resource-content-html",
        "server",
        f"{TESTS}::test_a_read_ui_resource_is_one_html5_document",
        fault=set_field("resources/read", "result.contents.*.text", "<p>a fragment, not a document</p>"),
    ),
    # ui-resource-meta-valid
    Cover(
        "apps-ui-resource-meta-valid",
        "server",
        f"{TESTS}::test_a_listed_ui_resource_meta_has_the_declared_shape",
        fault=set_field("resources/list", "result.resources.*._meta.ui.csp.connectDomains", "https://api.example.com"),
    ),
    Cover(
        "apps-ui-resource-meta-valid",
        "server",
        f"{TESTS}::test_a_read_ui_resource_meta_has_the_declared_shape",
        fault=set_field("resources/read", "result.contents.*._meta.ui.permissions", {"usb": {}}),
    ),
    # ui-tool-graceful-degradation
    Cover(
        "apps-tool-result-content",
        "server",
        f"{TESTS}::test_a_ui_tool_result_carries_content",
        fault=set_field("tools/call", "result.content", []),
    ),
    Cover("apps-server-check-host-capability", "server", f"{TESTS}::test_a_host_without_the_extension_gets_no_ui_link"),
    Cover(
        "apps-server-text-fallback",
        "server",
        f"{TESTS}::test_a_ui_tool_answers_a_host_without_the_extension_in_text",
    ),
    # The host side, judged on a client once it declares the extension (the client targets here declare none:
    # their profiles gap these cells to what they do not offer, N-020..N-022). The faults make the client's
    # declaration (its initialize, or at 2026-07-28 its tools/list's _meta) name the extension without content
    # types, or make it a host that then reads no UI.
    *(
        Cover(requirement, "client", f"{TESTS}::{test}", revisions=revisions, fault=declaring(target, path, settings))
        for requirement, test, settings in (
            ("apps-host-capability-mime-types", "test_a_host_declaring_the_extension_lists_its_mime_types", {}),
            ("apps-host-read-ui-resource", "test_a_host_reads_the_ui_resource_of_the_tool_it_calls", HOST_SETTINGS),
        )
        for revisions, target, path in (
            ("2025-06-18, 2025-11-25", "initialize", "params.capabilities"),
            ("2026-07-28", "tools/list", "params._meta"),
        )
    ),
    Cover(
        "apps-server-tool-variants",
        "server",
        f"{TESTS}::test_a_server_may_offer_a_host_without_the_extension_other_tool_versions",
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-181",
        "the view is the HTML app the server serves; the suite reads it but does not run it in a host's iframe",
        {
            "apps-view-initialize-capabilities": "server",
            "apps-view-declare-display-modes": "server",
            "apps-view-check-display-mode": "server",
            "apps-view-accept-other-display-mode": "server",
            "apps-view-update-model-context": "server",
            "apps-view-partial-input-optional": "server",
            "apps-view-partial-input-not-critical": "server",
            "apps-view-partial-input-changing-fields": "server",
            "apps-view-report-size-changes": "server",
            "apps-view-merge-context-updates": "server",
        },
    ),
    *gaps(
        "L-180",
        "what a host does inside its own rendering (the sandbox proxy and iframes, the CSP it applies, the "
        "postMessage traffic with the view, what it gives the model and the user) shows on no wire the suite "
        "stands on",
        {
            "apps-host-prefetch-ui-resources": "client",
            "apps-host-hide-app-only-tools-from-model": "client",
            "apps-host-reject-app-calls-outside-visibility": "client",
            "apps-host-csp-from-declared-domains": "client",
            "apps-host-csp-restrictive-default": "client",
            "apps-host-csp-no-undeclared-domains": "client",
            "apps-host-csp-audit-log": "client",
            "apps-host-sandboxed-iframes": "client",
            "apps-host-warn-external-domains": "client",
            "apps-host-domain-allowlists": "client",
            "apps-host-web-sandbox-proxy": "client",
            "apps-host-sandbox-distinct-origin": "client",
            "apps-host-sandbox-permissions": "client",
            "apps-host-sandbox-proxy-ready": "client",
            "apps-host-send-resource-to-sandbox": "client",
            "apps-host-sandbox-csp-declared": "client",
            "apps-host-sandbox-frame-src": "client",
            "apps-host-sandbox-base-uri": "client",
            "apps-host-sandbox-object-src": "client",
            "apps-host-sandbox-allow-attribute": "client",
            "apps-host-sandbox-forward-messages": "client",
            "apps-host-wait-for-view-initialized": "client",
            "apps-host-sandbox-no-own-requests": "client",
            "apps-host-forward-view-messages": "client",
            "apps-host-view-connection-compliant": "client",
            "apps-host-context-in-initialize": "client",
            "apps-host-follow-size-changes": "client",
            "apps-host-display-mode-only-declared": "client",
            "apps-host-display-mode-report-result": "client",
            "apps-host-display-mode-unavailable-current": "client",
            "apps-host-display-mode-may-decline": "client",
            "apps-host-open-link-in-browser": "client",
            "apps-host-message-into-conversation": "client",
            "apps-host-message-consent": "client",
            "apps-host-model-context-future-turns": "client",
            "apps-host-model-context-handling": "client",
            "apps-host-model-context-last-update": "client",
            "apps-host-send-tool-input": "client",
            "apps-host-partial-tool-input": "client",
            "apps-host-partial-tool-input-stop": "client",
            "apps-host-send-tool-result": "client",
            "apps-host-send-tool-cancelled": "client",
            "apps-host-teardown-notice": "client",
            "apps-host-teardown-wait": "client",
            "apps-host-context-change-notice": "client",
        },
    ),
]
