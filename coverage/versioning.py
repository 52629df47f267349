"""Coverage of the versioning area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.faults import drop_field, set_field, silence
from conformance.matrix.covers import Cover, Gap, gaps

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

# Negotiation, eras and extensions (issue #4).
UNPREFIXED = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {"probe": {}}},
}
COVERS += [
    Cover(
        "versioning-client-retry-supported-version",
        "client",
        f"{TESTS}::test_the_client_retries_at_a_shared_version_or_gives_up",
        # the retry after -32022 proposes a version the server did not name instead of 2025-11-25
        fault=set_field("initialize", "params.protocolVersion", "2099-01-01"),
    ),
    Cover(
        "versioning-discover-optional-for-client",
        "client",
        f"{TESTS}::test_the_client_may_discover_first_or_not_at_all",
    ),
    Cover(
        "versioning-extension-identifier-format",
        "client",
        f"{TESTS}::test_the_clients_extension_identifiers_are_well_formed",
        fault=set_field("tools/list", "params._meta", UNPREFIXED),
    ),
    Cover(
        "versioning-extension-identifier-format",
        "server",
        f"{TESTS}::test_the_servers_extension_identifiers_are_well_formed",
        fault=set_field("server/discover", "result.capabilities.extensions", {"probe": {}}),
    ),
    Cover(
        "versioning-extension-unsupported-fallback",
        "client",
        f"{TESTS}::test_a_client_extension_the_server_lacks_leaves_core_protocol",
        fault=silence("tools/call"),
    ),
    Cover(
        "versioning-extension-unsupported-fallback",
        "server",
        f"{TESTS}::test_a_server_extension_the_client_lacks_leaves_core_protocol",
        fault=set_field("tools/list", "result.resultType", "com.example.mcp-matrix/probe"),
    ),
    Cover("versioning-dual-era-server-allowed", "server", f"{TESTS}::test_the_server_serves_both_eras"),
    Cover("versioning-dual-era-concurrent-allowed", "server", f"{TESTS}::test_the_server_serves_both_eras_at_once"),
    Cover(
        "versioning-modern-only-initialize-error",
        "server",
        f"{TESTS}::test_a_modern_only_server_names_its_versions_when_refusing_initialize",
        # the refusal of initialize names no version: a bare message, no data
        fault=set_field("initialize", "error", {"code": -32602, "message": "Unsupported protocol version."}),
    ),
]

GAPS: list[Gap] = [
    Gap(
        "versioning-era-cache",
        "client",
        "F-053",
        "each connection to the same HTTP origin probes server/discover again: the era found is not kept",
    ),
    Gap(
        "versioning-era-persist-allowed",
        "client",
        "F-054",
        "a client started from a kept era (prior_discover) never probes again when the server refuses that era",
    ),
    *gaps(
        "L-051",
        "whether an implementation is new or existing, and what it will do before a future removal date, is "
        "history and plans: at this revision a conforming and a breaking one behave alike",
        {"versioning-deprecated-not-adopted": "both", "versioning-deprecated-migrate": "both"},
    ),
]
