"""Coverage of the json-schema area: no test yet; every applicable cell is gapped, by name.

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
            "json-schema-explicit-dialect-allowed": "server",
            "json-schema-support-2020-12": "both",
            "json-schema-document-dialects": "both",
            "json-schema-prefer-2020-12": "server",
            "json-schema-validate-per-dialect": "both",
            "json-schema-unsupported-dialect-error": "both",
            "json-schema-schemas-valid": "server",
            "json-schema-no-network-ref": "both",
            "json-schema-remote-ref-opt-in": "both",
            "json-schema-remote-ref-off-by-default": "both",
            "json-schema-remote-ref-host-restrictions": "both",
            "json-schema-remote-ref-limits": "both",
            "json-schema-remote-ref-logging": "both",
            "json-schema-unresolved-ref-reject": "both",
            "json-schema-validation-bounds": "both",
        },
    ),
]
