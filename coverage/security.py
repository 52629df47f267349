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
        "L-097",
        "the client's halves of L-075: consent flows, access controls, best practice and privacy by design are the "
        "host's application and process, with no criterion a frame could fail",
        {
            "security-access-controls": "client",
            "security-best-practices": "client",
            "security-consent-flows": "client",
            "security-privacy-in-design": "client",
        },
    ),
    *gaps(
        "L-099",
        "what the client's documentation says about its security implications is not on the wire",
        {"security-document-implications": "client"},
    ),
]
