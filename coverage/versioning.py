"""Coverage of the versioning area: no test yet; every applicable cell is gapped, by name.

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
            "versioning-unsupported-version-error": "server",
            "versioning-client-retry-supported-version": "client",
            "versioning-discover-optional-for-client": "client",
            "versioning-extension-identifier-format": "both",
            "versioning-extension-unsupported-fallback": "both",
            "versioning-dual-era-server-allowed": "server",
            "versioning-era-cache": "client",
            "versioning-era-persist-allowed": "client",
            "versioning-modern-only-initialize-error": "server",
            "versioning-stdio-discover-first": "client",
            "versioning-dual-era-concurrent-allowed": "server",
            "versioning-deprecated-not-adopted": "both",
            "versioning-deprecated-migrate": "both",
            "versioning-client-discover-optional-discoverrequest": "client",
            "versioning-unsupported-version-error-protocolversion": "server",
            "versioning-status-400-unsupportedprotocolversionerror": "server",
            "versioning-extension-key-format-extensions": "both",
        },
    ),
]
