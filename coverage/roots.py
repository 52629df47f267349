"""Coverage of the roots area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.matrix.covers import Cover, Gap, gaps

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "#3",
        "catalogued, not yet tested",
        {
            "roots-capability-declare-initialize": "client",
            "roots-capability-declare-per-request": "client",
            "roots-list-changed-notification": "client",
            "roots-uri-file-scheme": "client",
            "roots-error-not-supported": "client",
            "roots-error-internal": "client",
            "roots-expose-only-permitted": "client",
            "roots-validate-uris-traversal": "client",
            "roots-access-controls": "client",
            "roots-monitor-accessibility": "client",
            "roots-server-handle-unavailable": "server",
            "roots-server-respect-boundaries": "server",
            "roots-server-validate-paths": "server",
            "roots-consent-before-exposing": "client",
            "roots-management-ui": "client",
            "roots-check-accessible-before-exposing": "client",
            "roots-watch-changes": "client",
            "roots-server-check-capability": "server",
            "roots-server-handle-list-changes": "server",
            "roots-server-cache-appropriately": "server",
        },
    ),
]
