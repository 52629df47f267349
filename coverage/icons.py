"""Coverage of the icons area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import drop_field, fetch, silence
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
    # no fault: the callback goes to the scripted server's own listener, which a fetch fault does not reach; SHOULD
    Cover("icons-svg-precautions-src", "client", f"{TESTS}::test_no_script_in_an_svg_icon_runs"),
    # what the client fetches of the icons it is handed, seen by the page server (harness/pages.py); each fault is
    # the request a client breaking the clause makes, after the listing has handed the icons over (its tools/call)
    Cover(
        "icons-https-or-data-uri",
        "client",
        f"{TESTS}::test_an_icon_over_plain_http_is_not_used",
        fault=fetch("tools/call", "/icons/plain-http.png"),
    ),
    Cover(
        "icons-reject-unsafe-schemes",
        "client",
        f"{TESTS}::test_icons_with_unsafe_schemes_are_refused",
        fault=fetch("tools/call", "/icons/unsafe-ws", {"Upgrade": "websocket", "Sec-WebSocket-Version": "13"}),
    ),
    Cover(
        "icons-no-cross-origin-redirect",
        "client",
        f"{TESTS}::test_an_icon_redirect_to_another_origin_or_scheme_is_not_followed",
        fault=fetch("tools/call", "/icons/moved-away.png"),  # the redirect to the other listener followed
    ),
    Cover(
        "icons-fetch-without-credentials",
        "client",
        f"{TESTS}::test_icons_are_fetched_without_credentials",
        fault=fetch("tools/call", "/icons/second.png", {"Cookie": "mcp-matrix-icon=secret"}),
    ),
    Cover(
        "icons-same-origin-as-server",
        "client",
        f"{TESTS}::test_an_icon_of_another_origin_than_the_server_is_not_fetched",
        fault=fetch("tools/call", "/icons/elsewhere.png"),
    ),
    Cover(
        "icons-trusted-origin-src",
        "client",
        f"{TESTS}::test_an_icon_of_another_domain_is_not_fetched",
        fault=fetch("tools/call", "/icons/other-domain.png"),
    ),
    Cover(
        "icons-executable-content-caution",
        "client",
        f"{TESTS}::test_the_scripts_and_references_of_a_fetched_svg_icon_stay_inert",
        fault=fetch("tools/call", "/callback/script"),  # what the SVG's script requests when it runs
    ),
    Cover(
        "icons-verify-content-type",
        "client",
        f"{TESTS}::test_an_icon_whose_bytes_belie_its_type_is_not_rendered",
        fault=fetch("tools/call", "/callback/lying-icon"),
    ),
    Cover(
        "icons-image-type-allowlist",
        "client",
        f"{TESTS}::test_an_icon_that_is_no_image_is_not_rendered",
        fault=fetch("tools/call", "/callback/html-script"),
    ),
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
]
