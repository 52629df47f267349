"""Coverage of the lifecycle area: which test holds each cell, or why none does yet.

Loaded by path (this folder is not a package); see conformance/covers.py.
"""

from conformance.covers import Cover, Gap, gaps
from conformance.harness.faults import drop_field, inject_before, set_field, silence
from conformance.harness.frames import UNKNOWN_VERSION

TESTS = "conformance/test_lifecycle.py"
EARLY_LOG = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "early"}}

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
        "lifecycle-initialize-first",
        "server",
        f"{TESTS}::test_nothing_comes_from_the_server_before_its_initialize_result",
        fault=inject_before("initialize", EARLY_LOG),
    ),
    Cover(
        "lifecycle-server-no-requests-before-initialized",
        "server",
        f"{TESTS}::test_no_request_from_the_server_before_initialized",
        fault=inject_before("ping", {"jsonrpc": "2.0", "id": "early", "method": "roots/list"}),
    ),
    Cover(
        "lifecycle-server-version-latest",
        "server",
        f"{TESTS}::test_the_counter_offer_is_the_newest_version_the_server_accepts",
        fault=set_field("initialize", "result.protocolVersion", "2024-11-05"),
    ),
    Cover(
        "lifecycle-use-negotiated-version-must",
        "server",
        f"{TESTS}::test_results_keep_to_the_negotiated_revision",
        fault=set_field("tools/list", "result.nextCursor", 7),
    ),
    Cover(
        "lifecycle-discover-implemented",
        "server",
        f"{TESTS}::test_discover_answers_with_a_discover_result",
        fault=drop_field("server/discover", "result.supportedVersions"),
    ),
    Cover(
        "lifecycle-initialize-first",
        "client",
        f"{TESTS}::test_the_client_opens_with_initialize",
        fault=inject_before("initialize", {"jsonrpc": "2.0", "id": "early", "method": "tools/list"}),
    ),
    Cover(
        "lifecycle-client-sends-initialize",
        "client",
        f"{TESTS}::test_the_clients_initialize_carries_version_capabilities_and_client_info",
        fault=drop_field("initialize", "params.clientInfo"),
    ),
    Cover(
        "lifecycle-client-sends-initialized",
        "client",
        f"{TESTS}::test_the_client_sends_initialized_before_anything_else",
        fault=silence("notifications/initialized"),
    ),
    Cover(
        "lifecycle-client-no-requests-before-init-response",
        "client",
        f"{TESTS}::test_the_client_waits_for_the_initialize_result",
        fault=inject_before("initialize", {"jsonrpc": "2.0", "id": "early", "method": "tools/list"}),
    ),
    Cover(
        "lifecycle-client-version-supported",
        "client",
        f"{TESTS}::test_the_client_requests_a_known_version",
        fault=set_field("initialize", "params.protocolVersion", UNKNOWN_VERSION),
    ),
    Cover(
        "lifecycle-use-negotiated-version-must",
        "client",
        f"{TESTS}::test_the_clients_messages_keep_to_the_negotiated_revision",
        fault=set_field("tools/list", "params.unexpected", True),
    ),
    Cover(
        "lifecycle-use-negotiated-version-should",
        "client",
        f"{TESTS}::test_the_clients_messages_keep_to_the_negotiated_revision_should",
        fault=set_field("tools/list", "params.unexpected", True),
    ),
]

GAPS = [
    Gap(
        "lifecycle-use-negotiated-version-should",
        "server",
        "F-003",
        "list results carry fields of later revisions (Tool.title/outputSchema/annotations, Resource.title, ...)",
    ),
    Gap(
        "lifecycle-server-initialize-result",
        "server",
        "F-001",
        "the result carries fields these revisions do not define (serverInfo.title, capabilities.completions...)",
        revisions="2024-11-05..2025-06-18",
    ),
    *gaps(
        "#4",
        "needs the harness: the client driver, and server cells it cannot reach yet",
        {
            "lifecycle-initialize-not-batched": "client",
            "lifecycle-client-version-latest": "client",
            "lifecycle-client-disconnect-unsupported-version": "client",
            "lifecycle-negotiated-capabilities-only-should": "both",
            "lifecycle-negotiated-capabilities-only-must": "both",
            "lifecycle-handle-error-cases": "both",
            "lifecycle-request-timeouts": "both",
            "lifecycle-timeout-cancel": "both",
            "lifecycle-timeout-cancel-transport": "client",
            "lifecycle-timeout-per-request-config": "both",
            "lifecycle-timeout-reset-on-progress": "both",
            "lifecycle-timeout-maximum": "both",
            "lifecycle-client-older-versions-protocolversion": "client",
            "lifecycle-instructions-system-prompt-instructions": "client",
            "lifecycle-client-disconnect-unsupported-protocolversion": "client",
            "lifecycle-client-request-timeouts": "client",
            "lifecycle-client-timeout-per-request-config": "client",
            "lifecycle-client-timeout-reset-on-progress": "client",
            "lifecycle-client-timeout-maximum": "client",
        },
    ),
]
