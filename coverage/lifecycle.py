"""Coverage of the lifecycle area: which test holds each cell, or why none does yet.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py.
"""

from conformance.harness.faults import Fault, as_batch, delay, drop_field, inject_before, set_field, silence
from conformance.harness.frames import UNKNOWN_VERSION
from conformance.matrix.covers import Cover, Gap

TESTS = "conformance/test_lifecycle.py"
EARLY_ANNOUNCEMENT = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}  # an operation-phase message
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
ROOTS_REQUEST = {"jsonrpc": "2.0", "id": "mcp-matrix-injected", "method": "roots/list"}
# The server's cancellation of its timed-out request arrives 2.5 s late: it gave up long after its timeout
# (0.5 s, with 1.5 s of allowance for a loaded machine), as a server that ignores the timeout set does.
GIVES_UP_LATE = delay("notifications/cancelled", 2.5)

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
        fault=inject_before("initialize", EARLY_ANNOUNCEMENT),
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
        fault=set_field("tools/list", "result.mcpMatrixUndefined", True),
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
    # the client: what it does with the handshake's result
    Cover(
        "lifecycle-client-disconnect-unsupported-protocolversion",
        "client",
        f"{TESTS}::test_the_client_disconnects_from_a_version_it_cannot_support",
        fault=inject_before("initialize", INITIALIZED),
    ),
    Cover(
        "lifecycle-client-disconnect-unsupported-version",
        "client",
        f"{TESTS}::test_the_client_disconnects_from_a_version_it_does_not_implement",
        fault=inject_before("initialize", INITIALIZED),  # it goes on with the session
    ),
    Cover(
        "lifecycle-client-older-versions-protocolversion",
        "client",
        f"{TESTS}::test_the_client_works_with_the_servers_older_version",
    ),
    Cover(
        "lifecycle-client-version-latest",
        "client",
        f"{TESTS}::test_the_client_requests_the_newest_version_it_accepts",
        fault=set_field("initialize", "params.protocolVersion", "2024-11-05"),  # an older one than it implements
    ),
    Cover(
        "lifecycle-initialize-not-batched",
        "client",
        f"{TESTS}::test_the_client_sends_initialize_on_its_own",
        fault=as_batch("initialize"),
    ),
    Cover(
        "lifecycle-instructions-system-prompt-instructions",
        "client",
        f"{TESTS}::test_the_servers_instructions_reach_the_application",
    ),
    Cover(
        "lifecycle-handle-error-cases",
        "client",
        f"{TESTS}::test_the_client_copes_with_timeouts_and_version_mismatch",
        fault=inject_before("initialize", INITIALIZED),  # it goes on with a version it cannot speak
    ),
    # the client: timeouts on the requests it sends. No fault for how long the client waits (request-timeouts,
    # per-request-config, timeout-maximum, nor timeout-cancel-transport's close of the stream): when it gave a
    # request up is read from its cancellation, its next request and, over Streamable HTTP, the close of the
    # request's stream; a fault can drop or rewrite a frame but not move that close, and delaying a frame
    # stalls the scripted server, and with it the client's own session.
    Cover("lifecycle-request-timeouts", "client", f"{TESTS}::test_the_clients_requests_time_out"),
    Cover("lifecycle-client-request-timeouts", "client", f"{TESTS}::test_the_modern_clients_requests_time_out"),
    Cover(
        "lifecycle-timeout-cancel",
        "client",
        f"{TESTS}::test_the_client_cancels_a_timed_out_request",
        fault=silence("notifications/cancelled"),
    ),
    Cover(
        "lifecycle-timeout-cancel-transport",
        "client",
        f"{TESTS}::test_the_modern_client_cancels_a_timed_out_request_its_transports_way",
    ),
    Cover(
        "lifecycle-timeout-per-request-config",
        "client",
        f"{TESTS}::test_each_request_of_the_client_has_its_own_timeout",
    ),
    Cover(
        "lifecycle-client-timeout-per-request-config",
        "client",
        f"{TESTS}::test_each_request_of_the_modern_client_has_its_own_timeout",
    ),
    Cover(
        "lifecycle-timeout-maximum",
        "client",
        f"{TESTS}::test_progress_does_not_keep_the_clients_request_alive_forever",
    ),
    Cover(
        "lifecycle-client-timeout-maximum",
        "client",
        f"{TESTS}::test_progress_does_not_keep_the_modern_clients_request_alive_forever",
    ),
    Cover(
        "lifecycle-timeout-reset-on-progress",
        "client",
        f"{TESTS}::test_the_client_may_restart_its_clock_on_progress",
    ),
    Cover(
        "lifecycle-client-timeout-reset-on-progress",
        "client",
        f"{TESTS}::test_the_modern_client_may_restart_its_clock_on_progress",
    ),
    # the server: features, timeouts on its own requests (the fixture's test_timed_request)
    Cover(
        "lifecycle-negotiated-capabilities-only-must",
        "server",
        f"{TESTS}::test_the_server_uses_only_negotiated_features",
        fault=inject_before("tools/call", ROOTS_REQUEST),
    ),
    Cover(
        "lifecycle-negotiated-capabilities-only-should",
        "server",
        f"{TESTS}::test_the_server_uses_only_negotiated_features_should",
        fault=inject_before("tools/call", ROOTS_REQUEST),
    ),
    Cover(
        "lifecycle-handle-error-cases",
        "server",
        f"{TESTS}::test_the_server_copes_with_timeouts_and_missing_capabilities",
        # the call of the tool needing sampling, from a client that did not declare it, reads as a success
        fault=Fault("rename", "tools/call", "error", "result", occurrence=2),
    ),
    Cover("lifecycle-request-timeouts", "server", f"{TESTS}::test_the_servers_requests_time_out", fault=GIVES_UP_LATE),
    Cover(
        "lifecycle-timeout-cancel",
        "server",
        f"{TESTS}::test_the_server_cancels_a_timed_out_request",
        fault=silence("notifications/cancelled"),
    ),
    Cover(
        "lifecycle-timeout-per-request-config",
        "server",
        f"{TESTS}::test_each_request_of_the_server_has_its_own_timeout",
        # the request with a 0.2 s timeout is given up 0.6 s late: at 0.8 s, the other request's timeout
        fault=Fault("delay", "notifications/cancelled", value=0.6, occurrence=1),
    ),
    Cover(
        "lifecycle-timeout-maximum",
        "server",
        f"{TESTS}::test_progress_does_not_keep_the_servers_request_alive_forever",
        fault=GIVES_UP_LATE,  # progress kept it waiting
    ),
    Cover(
        "lifecycle-timeout-reset-on-progress",
        "server",
        f"{TESTS}::test_the_server_may_restart_its_clock_on_progress",
    ),
]

GAPS = [
    Gap(
        "lifecycle-use-negotiated-version-should",
        "server",
        "F-003",
        "results carry members of later revisions: list items' title, outputSchema and annotations, a tool "
        "result's structuredContent (F-003); serverInfo.title and websiteUrl, capabilities.completions (F-001); "
        "at 2024-11-05 a progress notification's message (F-012)",
    ),
    Gap(
        "lifecycle-use-negotiated-version-must",
        "server",
        "F-001",
        "the initialize result carries serverInfo.websiteUrl (F-001), and elicitation/create carries params.mode "
        "(F-111), neither defined by 2025-06-18",
        revisions="2025-06-18",
    ),
    Gap(
        "lifecycle-negotiated-capabilities-only-must",
        "client",
        "F-040",
        "the client sends prompts/list, resources/list and logging/setLevel to a server that declared none of them",
    ),
    Gap(
        "lifecycle-negotiated-capabilities-only-should",
        "client",
        "F-040",
        "the client sends prompts/list, resources/list and logging/setLevel to a server that declared none of them",
    ),
]
