"""Coverage of the lifecycle area: which test holds each cell, or why none does yet.

Loaded by path (this folder is not a package); see conformance/covers.py.
"""

from conformance.covers import Cover, Gap, gaps
from conformance.harness.faults import drop_field, set_field
from conformance.harness.frames import UNKNOWN_VERSION

TESTS = "conformance/test_lifecycle.py"

COVERS = [
    Cover(
        "lifecycle-server-initialize-result",
        "server",
        f"{TESTS}::test_initialize_result_is_the_revisions_initialize_result",
        fault=drop_field("initialize", "result.serverInfo"),
    ),
    Cover(
        "lifecycle-server-version-echo",
        "server",
        f"{TESTS}::test_initialize_echoes_a_supported_requested_version",
        fault=set_field("initialize", "result.protocolVersion", UNKNOWN_VERSION),
    ),
    Cover(
        "lifecycle-server-version-alternative",
        "server",
        f"{TESTS}::test_initialize_with_an_unknown_version_proposes_a_supported_one",
        fault=set_field("initialize", "result.protocolVersion", UNKNOWN_VERSION),
    ),
    Cover(
        "lifecycle-discover-implemented",
        "server",
        f"{TESTS}::test_discover_answers_with_a_discover_result",
        fault=drop_field("server/discover", "result.supportedVersions"),
    ),
    Cover(
        "lifecycle-discover-server-info",
        "server",
        f"{TESTS}::test_discover_result_names_the_server",
        fault=drop_field("server/discover", "result._meta"),
    ),
]

GAPS = [
    Gap(
        "lifecycle-server-initialize-result",
        "server",
        "F-001",
        "serverInfo carries title/websiteUrl, which these revisions do not define",
        revisions="2024-11-05..2025-06-18",
    ),
    *gaps(
        "#4",
        "needs the harness: the client driver, and server cells it cannot reach yet",
        {
            "lifecycle-initialize-first": "both",
            "lifecycle-client-sends-initialize": "client",
            "lifecycle-client-sends-initialized": "client",
            "lifecycle-client-no-requests-before-init-response": "client",
            "lifecycle-server-no-requests-before-initialized": "server",
            "lifecycle-initialize-not-batched": "client",
            "lifecycle-client-version-supported": "client",
            "lifecycle-client-version-latest": "client",
            "lifecycle-server-version-latest": "server",
            "lifecycle-client-disconnect-unsupported-version": "client",
            "lifecycle-http-protocol-version-header": "client",
            "lifecycle-use-negotiated-version-should": "both",
            "lifecycle-negotiated-capabilities-only-should": "both",
            "lifecycle-use-negotiated-version-must": "both",
            "lifecycle-negotiated-capabilities-only-must": "both",
            "lifecycle-stdio-client-shutdown": "client",
            "lifecycle-stdio-server-shutdown": "server",
            "lifecycle-handle-error-cases": "both",
            "lifecycle-request-timeouts": "both",
            "lifecycle-timeout-cancel": "both",
            "lifecycle-timeout-cancel-transport": "client",
            "lifecycle-timeout-per-request-config": "both",
            "lifecycle-timeout-reset-on-progress": "both",
            "lifecycle-timeout-maximum": "both",
            "lifecycle-discover-probe-first": "client",
            "lifecycle-discover-server-info-no-behaviour": "client",
            "lifecycle-discover-server-info-no-security": "client",
            "lifecycle-client-older-versions-protocolversion": "client",
            "lifecycle-instructions-system-prompt-instructions": "client",
            "lifecycle-client-disconnect-unsupported-protocolversion": "client",
        },
    ),
]
