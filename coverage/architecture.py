"""Coverage of the architecture area: no test yet; every applicable cell is gapped, by name.

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
            "architecture-base-protocol-required": "both",
            "architecture-core-components-required": "both",
            "architecture-optional-components": "both",
            "architecture-stateless-no-connection-context": "server",
            "architecture-stateless-interleaved-work": "server",
            "architecture-stateless-no-connection-affinity": "server",
            "architecture-stdio-process-not-conversation": "client",
            "architecture-cross-request-state-explicit-handle": "both",
        },
    ),
]
