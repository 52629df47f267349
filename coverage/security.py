"""Coverage of the security area: the implementation guidelines of the specification's overview, which no
frame shows (docs/limits/075-security-principles.md); what the wire can show of them is judged under
authorization, streamable-http and the capability rows.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py.
"""

from conformance.matrix.covers import Cover, Gap, gaps

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "L-075",
        "consent, documentation, access policy, best practice and privacy by design are the implementor's "
        "application, documents and process: no frame shows them",
        {
            "security-consent-flows": "server",
            "security-document-implications": "server",
            "security-access-controls": "server",
            "security-best-practices": "server",
            "security-privacy-in-design": "server",
        },
    ),
    *gaps(
        "#12",
        "catalogued, not yet tested",
        {
            "security-consent-flows": "client",
            "security-document-implications": "client",
            "security-access-controls": "client",
            "security-best-practices": "client",
            "security-privacy-in-design": "client",
        },
    ),
]
