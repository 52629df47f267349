"""Coverage of the ping area: no test yet; every applicable cell is gapped, by name.

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
            "ping-respond-promptly-empty": "both",
            "ping-no-response-sender-options": "both",
            "ping-periodic": "both",
            "ping-frequency-configurable": "both",
            "ping-timeout-suits-network": "both",
            "ping-avoid-excessive": "both",
            "ping-timeout-is-failure": "both",
            "ping-reset-after-failures": "both",
            "ping-log-failures": "both",
        },
    ),
]
