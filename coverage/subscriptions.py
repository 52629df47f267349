"""Coverage of the subscriptions area: no test yet; every applicable cell is gapped, by name.

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
            "subscriptions-only-requested-types": "server",
            "subscriptions-acknowledge": "server",
            "subscriptions-nothing-before-ack": "server",
            "subscriptions-stdio-interleave": "server",
            "subscriptions-check-ack-filter": "client",
            "subscriptions-concurrent": "client",
            "subscriptions-graceful-close": "server",
            "subscriptions-reconnect-on-abrupt-close": "client",
            "subscriptions-stdio-resubscribe": "client",
        },
    ),
]
