"""Coverage of the streamable-http area: no test yet; every applicable cell is gapped, by name.

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
            "streamable-http-broken-stream-reissue": "client",
        },
    ),
]
