"""Coverage of the progress area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "#3",
        "catalogued, not yet tested",
        {
            "progress-token-type": "both",
            "progress-token-unique": "both",
            "progress-notifications-optional": "both",
            "progress-value-increases": "both",
            "progress-values-may-be-fractional": "both",
            "progress-message-human-readable": "both",
            "progress-reference-active-token": "both",
            "progress-frequency-free": "both",
            "progress-total-optional": "both",
            "progress-task-token-persists": "both",
            "progress-task-stop-at-terminal": "both",
            "progress-track-tokens": "both",
            "progress-rate-limit": "both",
            "progress-stop-after-completion": "both",
            "progress-client-token-type": "client",
            "progress-client-token-unique": "client",
            "progress-server-notifications-optional": "server",
            "progress-server-value-increases": "server",
            "progress-server-values-may-be-fractional": "server",
            "progress-server-message-human-readable": "server",
            "progress-server-reference-active-token": "server",
            "progress-server-frequency-free": "server",
            "progress-server-total-optional": "server",
            "progress-server-stop-after-completion": "server",
        },
    ),
]
