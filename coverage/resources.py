"""Coverage of the resources area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import drop_field, set_field, silence
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_resources.py"
NO_RESOURCES: list = []
ONE_TEXT_CONTENT = {"contents": [{"uri": "test://mcp-matrix/fault", "text": "read anyway"}]}
PASSWD_READ = {"contents": [{"uri": "file:///etc/passwd", "text": "root:x:0:0:root:/root:/bin/bash\n"}]}

COVERS: list[Cover] = [
    Cover(
        "resources-capability-declared",
        "server",
        f"{TESTS}::test_a_server_listing_resources_declares_the_resources_capability",
        fault=drop_field("initialize", "result.capabilities.resources"),
        revisions="2024-11-05..2025-11-25",
    ),
    Cover(
        "resources-capability-declared",
        "server",
        f"{TESTS}::test_a_server_listing_resources_declares_the_resources_capability",
        fault=drop_field("server/discover", "result.capabilities.resources"),
        revisions="2026-07-28",
    ),
    Cover(
        "resources-list-current-set",
        "server",
        f"{TESTS}::test_resources_list_holds_the_resources_that_can_be_read",
        fault=set_field("resources/list", "result.resources", NO_RESOURCES),
    ),
    Cover(
        "resources-list-set-connection-independent",
        "server",
        f"{TESTS}::test_resources_list_depends_neither_on_the_connection_nor_on_earlier_requests",
        fault=set_field(
            "resources/list", "result.resources", NO_RESOURCES, occurrence=2
        ),  # the second answer, first connection
    ),
    Cover(
        "resources-list-changed-notify",
        "server",
        f"{TESTS}::test_a_resource_list_change_is_announced",
        fault=silence("notifications/resources/list_changed"),
    ),
    Cover(
        "resources-custom-uri-scheme-rfc3986",
        "server",
        f"{TESTS}::test_resource_uri_schemes_follow_rfc_3986",
        fault=set_field("resources/list", "result.resources", [{"uri": "bad_scheme://x", "name": "x"}]),
    ),
    Cover(
        "resources-read-not-found-invalid-params",
        "server",
        f"{TESTS}::test_an_unknown_resource_gets_minus_32602",
        fault=set_field("resources/read", "error.code", -32002),
    ),
    Cover(
        "resources-read-not-found-no-empty-contents",
        "server",
        f"{TESTS}::test_an_unknown_resource_is_not_read_as_empty_contents",
        fault=set_field("resources/read", "result", {"contents": []}),
    ),
    Cover(
        "resources-validate-uris",
        "server",
        f"{TESTS}::test_a_malformed_resource_uri_is_refused",
        fault=set_field("resources/read", "result", ONE_TEXT_CONTENT),
    ),
    Cover(
        "resources-internal-error-code",
        "server",
        f"{TESTS}::test_a_read_failing_inside_the_server_gets_minus_32603",
        fault=set_field("resources/read", "error.code", -32602),
    ),
    Cover(
        "resources-file-path-sanitized",
        "server",
        f"{TESTS}::test_a_file_path_cannot_climb_out_of_its_directory",
        fault=set_field("resources/read", "result", PASSWD_READ),
    ),
    # Permissions (MAY): a pass shows the server taking one, else not-exercised; no fault can break them.
    Cover("resources-list-set-may-be-empty", "server", f"{TESTS}::test_the_resource_list_may_be_empty"),
    Cover("resources-list-set-may-change", "server", f"{TESTS}::test_the_resource_list_may_change"),
    Cover("resources-read-multiple-contents", "server", f"{TESTS}::test_a_read_may_return_several_contents"),
    Cover("resources-file-xdg-mime-type", "server", f"{TESTS}::test_file_resources_may_carry_an_xdg_mime_type"),
    Cover(
        "resources-binary-encoding",
        "server",
        f"{TESTS}::test_binary_resource_contents_are_base64",
        fault=set_field("resources/read", "result.contents", [{"uri": "test://static-binary", "blob": "%% no b64 %%"}]),
    ),
]

GAPS: list[Gap] = [
    Gap(
        "resources-not-found-error-code",
        "server",
        "F-022",
        "reading an unknown resource is refused with -32602 (2026-07-28's code) instead of -32002",
    ),
    Gap(
        "resources-list-set-may-vary-by-authorization",
        "server",
        "L-065",
        "needs two authorizations of one server whose lists differ by design: who may see what is its policy",
    ),
    *gaps(
        "L-066",
        "whether the client can fetch an https:// resource from the web on its own is a fact of the deployment",
        {
            "resources-https-scheme-only-if-client-fetchable": "server",
            "resources-https-otherwise-other-scheme": "server",
        },
    ),
    *gaps(
        "L-065",
        "needs knowledge of who may read what: the server's access policy",
        {
            "resources-access-control": "server",
            "resources-permission-check": "server",
        },
    ),
]
