"""Coverage of the roots area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import Fault, drop_field, inject_before, set_field, silence
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_roots.py"
HANDSHAKE = "2024-11-05..2025-11-25"  # the server asks with a request of its own; at 2026-07-28 in inputRequests
PUSHED_ROOTS_REQUEST = {"jsonrpc": "2.0", "id": "mcp-matrix-pushed-roots", "method": "roots/list"}
READ = {"content": [{"type": "text", "text": "mcp-matrix: a file outside the client's roots"}]}  # every read done
ASKING_ROOTS = {"resultType": "input_required", "inputRequests": {"roots": {"method": "roots/list"}}}

COVERS: list[Cover] = [
    Cover(
        "roots-server-check-capability",
        "server",
        f"{TESTS}::test_a_server_asks_for_roots_only_from_a_client_that_declared_them",
        fault=inject_before("tools/call", PUSHED_ROOTS_REQUEST),
        revisions=HANDSHAKE,
    ),
    Cover(
        "roots-server-check-capability",
        "server",
        f"{TESTS}::test_a_server_asks_for_roots_only_from_a_client_that_declared_them",
        fault=set_field("tools/call", "result", ASKING_ROOTS),
        revisions="2026-07-28",
    ),
    Cover(
        "roots-server-handle-unavailable",
        "server",
        f"{TESTS}::test_a_root_that_is_gone_does_not_fail_the_server",
        fault=set_field("tools/call", "error", {"code": -32603, "message": "root not found"}),
    ),
    Cover(
        "roots-server-respect-boundaries",
        "server",
        f"{TESTS}::test_a_server_acts_only_under_the_roots",
        fault=set_field("tools/call", "result", READ),
    ),
    Cover(
        "roots-server-validate-paths",
        "server",
        f"{TESTS}::test_a_path_climbing_out_of_the_roots_is_refused",
        fault=set_field("tools/call", "result", READ),
    ),
    Cover(
        "roots-server-handle-list-changes",
        "server",
        f"{TESTS}::test_a_changed_root_list_is_asked_for_again",
        fault=Fault("silence", "roots/list", description="the server's second roots/list never seen", occurrence=2),
    ),
]

# The client side: the client under test answering the scripted server's roots/list. Up to 2025-11-25 its
# answer is a response to roots/list (over stdio), which the faults rewrite on its way to the scripted server;
# at 2026-07-28 it travels in the retried tools/call's inputResponses (over Streamable HTTP).
ROOTS_KEY = "mcp-matrix-roots"  # the test's inputRequests key at 2026-07-28
CLIENT_META = {  # a 2026-07-28 request's _meta declaring no capability
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "mcp-matrix-fault", "version": "0"},
}
WEB_ROOTS = [{"uri": "https://mcp-matrix.example/project", "name": "web"}]
CLIMBING_ROOTS = [{"uri": "file:///tmp/mcp-matrix/project/../../../etc", "name": "climbing"}]
UNREACHABLE_ROOTS = [{"uri": "file:///tmp/mcp-matrix/no-such-directory/gone", "name": "gone"}]
COVERS += [
    Cover(
        "roots-capability-declare-initialize",
        "client",
        f"{TESTS}::test_a_client_listing_roots_declares_them_when_it_initializes",
        fault=drop_field("initialize", "params.capabilities.roots"),
    ),
    Cover(
        "roots-capability-declare-per-request",
        "client",
        f"{TESTS}::test_a_client_listing_roots_declares_them_on_every_request",
        fault=set_field("tools/call", "params._meta", CLIENT_META),
    ),
    Cover(
        "roots-list-changed-notification",
        "client",
        f"{TESTS}::test_a_change_of_roots_is_announced",
        fault=silence("notifications/roots/list_changed"),
    ),
    Cover(
        "roots-uri-file-scheme",
        "client",
        f"{TESTS}::test_every_root_is_a_file_uri",
        fault=set_field("roots/list", "result.roots", WEB_ROOTS),
        revisions=HANDSHAKE,
    ),
    Cover(
        "roots-uri-file-scheme",
        "client",
        f"{TESTS}::test_every_root_is_a_file_uri",
        fault=set_field("tools/call", "params.inputResponses", {ROOTS_KEY: {"roots": WEB_ROOTS}}),
        revisions="2026-07-28",
    ),
    Cover(
        "roots-validate-uris-traversal",
        "client",
        f"{TESTS}::test_no_root_climbs_out_of_its_location",
        fault=set_field("roots/list", "result.roots", CLIMBING_ROOTS),
        revisions=HANDSHAKE,
    ),
    Cover(
        "roots-validate-uris-traversal",
        "client",
        f"{TESTS}::test_no_root_climbs_out_of_its_location",
        fault=set_field("tools/call", "params.inputResponses", {ROOTS_KEY: {"roots": CLIMBING_ROOTS}}),
        revisions="2026-07-28",
    ),
    Cover(
        "roots-error-not-supported",
        "client",
        f"{TESTS}::test_a_client_without_roots_answers_method_not_found",
        fault=set_field("roots/list", "error.code", -32600),
    ),
    Cover(
        "roots-error-internal",
        "client",
        f"{TESTS}::test_a_failure_to_list_the_roots_is_an_internal_error",
        fault=set_field("roots/list", "error.code", 0),
    ),
    Cover(
        "roots-check-accessible-before-exposing",
        "client",
        f"{TESTS}::test_a_root_that_cannot_be_reached_is_not_exposed",
        fault=set_field("roots/list", "result.roots", UNREACHABLE_ROOTS),
        revisions=HANDSHAKE,
    ),
    Cover(
        "roots-check-accessible-before-exposing",
        "client",
        f"{TESTS}::test_a_root_that_cannot_be_reached_is_not_exposed",
        fault=set_field("tools/call", "params.inputResponses", {ROOTS_KEY: {"roots": UNREACHABLE_ROOTS}}),
        revisions="2026-07-28",
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-086",
        "the page gives no criterion for a suitable cache of the roots, and a cache is internal to the server",
        {"roots-server-cache-appropriately": "server"},
    ),
    *gaps(
        "L-095",
        "asking the user before a root is exposed, and the interface for managing roots, happen on the host's screen",
        {
            "roots-consent-before-exposing": "client",
            "roots-management-ui": "client",
        },
    ),
    *gaps(
        "L-096",
        "watching roots for changes and for reachability is the client's bookkeeping; what it leads to on the wire is "
        "roots-list-changed-notification",
        {
            "roots-monitor-accessibility": "client",
            "roots-watch-changes": "client",
        },
    ),
    *gaps(
        "L-097",
        "which locations a client may share, and under what access control, is the user's and the host's policy, "
        "which no message states",
        {
            "roots-access-controls": "client",
            "roots-expose-only-permitted": "client",
        },
    ),
]
