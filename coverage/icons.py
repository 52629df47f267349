"""Coverage of the icons area: no test yet; every applicable cell is gapped, by name.

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
            "icons-render-png-jpeg": "client",
            "icons-render-svg-webp": "client",
            "icons-untrusted-input": "both",
            "icons-https-or-data-uri": "both",
            "icons-reject-unsafe-schemes": "client",
            "icons-no-cross-origin-redirect": "both",
            "icons-resource-exhaustion": "both",
            "icons-size-limits-allowed": "both",
            "icons-fetch-without-credentials": "both",
            "icons-same-origin-as-server": "both",
            "icons-executable-content-caution": "both",
            "icons-sanitize-allowed": "both",
            "icons-verify-content-type": "both",
            "icons-image-type-allowlist": "both",
            "icons-trusted-origin-src": "both",
            "icons-svg-precautions-src": "both",
        },
    ),
]
