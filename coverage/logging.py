"""Coverage of the logging area: no test yet; every applicable cell is gapped, by name.

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
            "logging-deprecated-not-adopted": "both",
            "logging-deprecated-migrate": "both",
            "logging-capability-declared": "server",
            "logging-set-level-allowed": "client",
            "logging-no-messages-without-level": "server",
            "logging-per-request-messages-allowed": "server",
            "logging-messages-request-scoped": "server",
            "logging-set-level-invalid-level-error": "server",
            "logging-set-level-configuration-error": "server",
            "logging-invalid-meta-level-rejected": "server",
            "logging-rate-limit": "both",
            "logging-include-context": "server",
            "logging-consistent-logger-names": "server",
            "logging-remove-sensitive-info": "server",
            "logging-client-presentation-options": "client",
            "logging-no-credentials": "server",
            "logging-no-personal-data": "server",
            "logging-no-attack-aiding-details": "server",
            "logging-validate-data-fields": "both",
            "logging-control-access": "both",
            "logging-monitor-sensitive-content": "both",
            "logging-server-default-messages-loggingmessagenotification": "server",
        },
    ),
]
