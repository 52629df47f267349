"""Coverage of the transports area: no test yet; every applicable cell is gapped, by name.

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
            "transports-client-supports-stdio": "client",
            "transports-jsonrpc-utf8": "both",
            "transports-binding-delivers-client-messages": "both",
            "transports-binding-delivers-server-messages": "both",
            "transports-binding-mirror-metadata": "both",
            "transports-custom-allowed": "both",
            "transports-custom-preserve-jsonrpc-format": "both",
            "transports-custom-preserve-lifecycle": "both",
            "transports-custom-preserve-message-patterns": "both",
            "transports-custom-preserve-request-metadata": "both",
            "transports-custom-document-patterns": "both",
            "transports-custom-document-framing-cancellation": "both",
            "transports-custom-bytestream-stdio-framing": "both",
            "transports-custom-bytestream-stdio-message-rules": "both",
        },
    ),
]
