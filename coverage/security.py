"""Coverage of the security area: no test yet; every applicable cell is gapped, by name.

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
            "security-consent-flows": "both",
            "security-document-implications": "both",
            "security-access-controls": "both",
            "security-best-practices": "both",
            "security-privacy-in-design": "both",
        },
    ),
]
