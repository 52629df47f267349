"""Coverage of the http-sse area: no test yet; every applicable cell is gapped, by name.

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
            "http-sse-origin-validation": "server",
            "http-sse-bind-localhost": "server",
            "http-sse-authentication": "server",
            "http-sse-sse-endpoint": "server",
            "http-sse-post-endpoint": "server",
            "http-sse-endpoint-event": "server",
            "http-sse-client-post-to-endpoint": "client",
            "http-sse-no-new-adoption": "both",
            "http-sse-migrate": "both",
        },
    ),
]
