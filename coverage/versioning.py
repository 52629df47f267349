"""Coverage of the versioning area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps
from conformance.harness.faults import drop_field, set_field

TESTS = "conformance/test_versioning.py"

COVERS: list[Cover] = [
    Cover(
        "versioning-unsupported-version-error",
        "server",
        f"{TESTS}::test_an_unsupported_version_gets_minus_32022_listing_the_supported_ones",
        fault=set_field("tools/list", "error.code", -32602),
    ),
    Cover(
        "versioning-unsupported-version-error",
        "server",
        f"{TESTS}::test_an_unsupported_version_gets_the_schemas_unsupported_version_error",
        fault=drop_field("tools/list", "error.data"),
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "#4",
        "base protocol: tested with the harness (issue #4)",
        {
            "versioning-client-retry-supported-version": "client",
            "versioning-discover-optional-for-client": "client",
            "versioning-extension-identifier-format": "both",
            "versioning-extension-unsupported-fallback": "both",
            "versioning-dual-era-server-allowed": "server",
            "versioning-era-cache": "client",
            "versioning-era-persist-allowed": "client",
            "versioning-modern-only-initialize-error": "server",
            "versioning-dual-era-concurrent-allowed": "server",
            "versioning-deprecated-not-adopted": "both",
            "versioning-deprecated-migrate": "both",
        },
    ),
]
