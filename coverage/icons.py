"""Coverage of the icons area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import drop_field, silence
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_icons.py"
HANDSHAKE = "2025-11-25"  # icons arrive with initialize, and ping probes the session after it
MODERN = "2026-07-28"  # icons arrive in the _meta clientInfo of server/discover, which also probes

COVERS: list[Cover] = [
    Cover(
        "icons-untrusted-input",
        "server",
        f"{TESTS}::test_hostile_client_icon_metadata_leaves_the_server_serving",
        fault=drop_field("ping", "result"),
        revisions=HANDSHAKE,
    ),
    Cover(
        "icons-untrusted-input",
        "server",
        f"{TESTS}::test_hostile_client_icon_metadata_leaves_the_server_serving",
        fault=drop_field("server/discover", "result"),
        revisions=MODERN,
    ),
    Cover(
        "icons-resource-exhaustion",
        "server",
        f"{TESTS}::test_client_icons_built_to_exhaust_leave_the_server_serving",
        fault=drop_field("ping", "result"),
        revisions=HANDSHAKE,
    ),
    Cover(
        "icons-resource-exhaustion",
        "server",
        f"{TESTS}::test_client_icons_built_to_exhaust_leave_the_server_serving",
        fault=drop_field("server/discover", "result"),
        revisions=MODERN,
    ),
    # the client side: the scripted server's listing and serverInfo bear the icons; the client goes on
    Cover(
        "icons-untrusted-input",
        "client",
        f"{TESTS}::test_hostile_icon_metadata_leaves_the_client_working",
        fault=silence("tools/call"),  # the call after the listing never arrives: a client that stopped
    ),
    Cover(
        "icons-resource-exhaustion",
        "client",
        f"{TESTS}::test_icons_built_to_exhaust_leave_the_client_working",
        fault=silence("tools/call"),
    ),
    # no fault: none can make a client request the callback URL (see the #12 gap below); the row is a SHOULD
    Cover("icons-svg-precautions-src", "client", f"{TESTS}::test_no_script_in_an_svg_icon_runs"),
]

GAPS: list[Gap] = [
    *gaps(
        "L-063",
        "what a server does with its client's icons (fetching, rendering) happens inside it; a conformant "
        "server fetches none of the icons the suite can serve, and no fault can make one fetch",
        {
            "icons-https-or-data-uri": "server",
            "icons-no-cross-origin-redirect": "server",
            "icons-fetch-without-credentials": "server",
            "icons-same-origin-as-server": "server",
            "icons-executable-content-caution": "server",
            "icons-verify-content-type": "server",
            "icons-image-type-allowlist": "server",
            "icons-trusted-origin-src": "server",
            "icons-svg-precautions-src": "server",
            "icons-size-limits-allowed": "server",
            "icons-sanitize-allowed": "server",
        },
    ),
    *gaps(
        "L-095",
        "whether a client can draw PNG, JPEG, SVG or WebP icons, and whether it uses its permission to sanitize or "
        "cap them, leaves no frame",
        {
            "icons-render-png-jpeg": "client",
            "icons-render-svg-webp": "client",
            "icons-sanitize-allowed": "client",
            "icons-size-limits-allowed": "client",
        },
    ),
    *gaps(
        "#12",
        "a breach shows only as a request of the client to a URL the harness serves (an icon fetched over plain "
        "HTTP, from another origin, after a redirect, with credentials; an SVG or HTML payload's script calling "
        "back), and no fault of the harness makes a client send one (faults.py has no kind for a request outside "
        "the MCP endpoint), so no test of them could be shown to fail; none of the client targets (the SDK, the "
        "TypeScript SDK, fastmcp) fetches or draws icons either",
        {
            "icons-https-or-data-uri": "client",
            "icons-reject-unsafe-schemes": "client",
            "icons-no-cross-origin-redirect": "client",
            "icons-fetch-without-credentials": "client",
            "icons-same-origin-as-server": "client",
            "icons-executable-content-caution": "client",
            "icons-verify-content-type": "client",
            "icons-image-type-allowlist": "client",
            "icons-trusted-origin-src": "client",
        },
    ),
]
