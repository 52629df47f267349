"""Coverage of the ping area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps
from conformance.harness.faults import set_field

TESTS = "conformance/test_ping.py"

COVERS: list[Cover] = [
    Cover(
        "ping-respond-promptly-empty",
        "server",
        f"{TESTS}::test_a_ping_is_answered_promptly_with_an_empty_result",
        fault=set_field("ping", "result.unexpected", True),
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "#4",
        "base protocol: tested with the harness (issue #4)",
        {
            "ping-respond-promptly-empty": "client",
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
