"""Coverage of the errors area: no test yet; every applicable cell is gapped, by name.

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
            "errors-legacy-range-no-new-codes": "both",
            "errors-legacy-range-avoid": "both",
            "errors-legacy-range-no-assumed-meaning": "both",
            "errors-reserved-range-defined-only": "both",
            "errors-reserved-range-defined-meaning": "both",
            "errors-retired-codes-not-emitted": "both",
            "errors-accept-legacy-resource-not-found": "client",
            "errors-new-codes-outside-jsonrpc-range": "both",
            "errors-message-one-sentence-message": "both",
            "errors-server-message-one-sentence": "server",
        },
    ),
]
