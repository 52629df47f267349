"""Coverage of the stdio area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "#4",
        "base protocol: tested with the harness (issue #4)",
        {
            "stdio-newline-delimited": "both",
            "stdio-no-embedded-newlines": "both",
            "stdio-server-stderr-logging": "server",
            "stdio-client-stderr-handling": "client",
            "stdio-client-stderr-not-error": "client",
            "stdio-server-stdout-only-mcp": "server",
            "stdio-client-stdin-only-mcp": "client",
            "stdio-client-no-responses": "client",
            "stdio-client-correlate-subscription-notifications": "client",
            "stdio-server-no-requests": "server",
            "stdio-client-cancel-notification": "client",
            "stdio-server-stop-cancelled-work": "server",
            "stdio-server-silent-after-cancel": "server",
            "stdio-client-shutdown-close-stdin": "client",
            "stdio-client-shutdown-force-kill": "client",
            "stdio-server-exit-on-stdin-eof": "server",
            "stdio-server-may-initiate-shutdown": "server",
            "stdio-client-restart-crashed-server": "client",
            "stdio-backcompat-probe-discover": "client",
            "stdio-backcompat-fallback-not-single-code": "client",
            "stdio-backcompat-modern-only-probe": "client",
        },
    ),
]
