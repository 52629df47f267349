"""Coverage of the tools area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import drop_field, misreport, reverse_list, set_field, silence
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_tools.py"
HANDSHAKE = "2024-11-05..2025-11-25"  # capabilities in the initialize result; server/discover's after
NO_TOOLS: list = []
BROKEN_SCHEMA_TOOL = [{"name": "broken", "inputSchema": {"type": "no-such-type"}}]
BADLY_NAMED_TOOL = [{"name": "bad name, with spaces", "inputSchema": {"type": "object"}}]
OVERLONG_NAMED_TOOL = [{"name": "x" * 129, "inputSchema": {"type": "object"}}]
TWIN_TOOLS = [{"name": "twin", "inputSchema": {"type": "object"}}] * 2

COVERS: list[Cover] = [
    Cover(
        "tools-capability-declared",
        "server",
        f"{TESTS}::test_a_server_listing_tools_declares_the_tools_capability",
        fault=drop_field("initialize", "result.capabilities.tools"),
        revisions=HANDSHAKE,
    ),
    Cover(
        "tools-capability-declared",
        "server",
        f"{TESTS}::test_a_server_listing_tools_declares_the_tools_capability",
        fault=drop_field("server/discover", "result.capabilities.tools"),
        revisions="2026-07-28",
    ),
    Cover(
        "tools-list-current-set",
        "server",
        f"{TESTS}::test_tools_list_holds_the_tools_that_can_be_called",
        fault=set_field("tools/list", "result.tools", NO_TOOLS),
    ),
    Cover(
        "tools-list-set-connection-independent",
        "server",
        f"{TESTS}::test_tools_list_depends_neither_on_the_connection_nor_on_earlier_requests",
        fault=set_field("tools/list", "result.tools", NO_TOOLS, occurrence=2),  # the second answer, first connection
    ),
    Cover(
        "tools-list-deterministic-order",
        "server",
        f"{TESTS}::test_tools_are_listed_in_the_same_order_every_time",
        fault=reverse_list("tools/list", "result.tools", occurrence=2),  # the same tools, another order
    ),
    Cover(
        "tools-list-changed-notify",
        "server",
        f"{TESTS}::test_a_tool_list_change_is_announced",
        fault=silence("notifications/tools/list_changed"),
    ),
    Cover(
        "tools-list-changed-notify-subscribers",
        "server",
        f"{TESTS}::test_a_tool_list_change_is_announced_to_subscribers",
        fault=silence("notifications/tools/list_changed"),
    ),
    Cover(
        "tools-input-schema-valid-object",
        "server",
        f"{TESTS}::test_every_input_schema_is_a_json_schema_object",
        fault=set_field("tools/list", "result.tools", BROKEN_SCHEMA_TOOL),
    ),
    Cover(
        "tools-name-length",
        "server",
        f"{TESTS}::test_tool_names_are_1_to_128_characters",
        fault=set_field("tools/list", "result.tools", OVERLONG_NAMED_TOOL),
    ),
    Cover(
        "tools-name-allowed-characters",
        "server",
        f"{TESTS}::test_tool_names_use_only_letters_digits_underscore_hyphen_dot",
        fault=set_field("tools/list", "result.tools", BADLY_NAMED_TOOL),
    ),
    Cover(
        "tools-name-no-special-characters",
        "server",
        f"{TESTS}::test_tool_names_hold_no_whitespace_commas_or_special_characters",
        fault=set_field("tools/list", "result.tools", BADLY_NAMED_TOOL),
    ),
    Cover(
        "tools-name-unique",
        "server",
        f"{TESTS}::test_no_two_tools_share_a_name",
        fault=set_field("tools/list", "result.tools", TWIN_TOOLS),
    ),
    Cover(
        "tools-name-case-sensitive",
        "server",
        f"{TESTS}::test_a_tool_name_in_another_case_is_another_tool",
        fault=set_field("tools/call", "result.isError", False),
    ),
    Cover(
        "tools-embedded-resources-capability",
        "server",
        f"{TESTS}::test_a_server_embedding_resources_in_tool_results_declares_resources",
        fault=drop_field("initialize", "result.capabilities.resources"),
        revisions="2025-06-18..2025-11-25",
    ),
    Cover(
        "tools-embedded-resources-capability",
        "server",
        f"{TESTS}::test_a_server_embedding_resources_in_tool_results_declares_resources",
        fault=drop_field("server/discover", "result.capabilities.resources"),
        revisions="2026-07-28",
    ),
    Cover(
        "tools-output-schema-conformance",
        "server",
        f"{TESTS}::test_structured_content_matches_the_output_schema",
        fault=set_field("tools/call", "result.structuredContent", {"sum": "five"}),
    ),
    Cover(
        "tools-structured-content-text-mirror",
        "server",
        f"{TESTS}::test_structured_content_is_mirrored_as_json_text",
        fault=set_field("tools/call", "result.content", []),
    ),
    Cover(
        "tools-tool-errors-in-result-iserror",
        "server",
        f"{TESTS}::test_an_error_inside_a_tool_is_a_result_with_is_error",
        fault=set_field("tools/call", "result.isError", False),
    ),
    Cover("tools-list-set-may-be-empty", "server", f"{TESTS}::test_a_server_may_list_no_tools"),
    Cover(
        "tools-list-set-may-change",
        "server",
        f"{TESTS}::test_a_server_may_change_its_tools",
        fault=set_field("tools/list", "result.tools", NO_TOOLS, occurrence=3),  # the changed set, gone again
    ),
    Cover(
        "tools-result-embedded-resource-allowed",
        "server",
        f"{TESTS}::test_a_tool_result_may_embed_a_resource",
        fault=set_field("tools/call", "result.content", [{"type": "resource", "resource": {"uri": "test://x"}}]),
    ),
    Cover(
        "tools-result-resource-link-allowed",
        "server",
        f"{TESTS}::test_a_tool_result_may_link_a_resource",
        fault=set_field("tools/call", "result.content", [{"type": "resource_link", "uri": "no-scheme", "name": "x"}]),
    ),
    Cover(
        "tools-server-validate-inputs",
        "server",
        f"{TESTS}::test_a_call_with_invalid_arguments_is_refused",
        fault=set_field("tools/call", "result.isError", False),
    ),
    # the client side: the SDK's client through the driver's call_each_tool, against the scripted server
    Cover(
        "tools-name-case-sensitive",
        "client",
        f"{TESTS}::test_the_client_keeps_tools_named_alike_but_for_case_apart",
        fault=set_field("tools/call", "params.name", "getuser"),  # a client folding names to lower case
    ),
    Cover(
        "tools-output-schema-client-validates",
        "client",
        f"{TESTS}::test_the_client_checks_structured_content_against_the_output_schema",
        fault=misreport("tool-results"),  # the breaking result handed on as accepted, the conforming one refused
    ),
    Cover(
        "tools-client-ref-resolution",
        "client",
        f"{TESTS}::test_the_client_resolves_refs_as_the_base_protocol_says",
        fault=misreport("tool-results"),
    ),
    # a client aggregating two servers (the driver's aggregate_two_servers)
    Cover(
        "tools-aggregator-disambiguate-names",
        "client",
        f"{TESTS}::test_an_aggregating_client_keeps_equally_named_tools_apart",
        fault=set_field("tools/call", "params.name", "mcp-matrix-alpha_search"),  # the prefixed name sent on
    ),
    Cover(
        "tools-aggregator-not-rely-on-server-name",
        "client",
        f"{TESTS}::test_an_aggregating_client_does_not_tell_servers_apart_by_their_name",
        fault=set_field("tools/call", "params.name", "mcp-matrix-twin_search"),
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-060",
        "a policy of the server's (who may call or see what, at what rate, what output is unsafe, which "
        "parameters are sensitive) that no frame states and the profile does not give",
        {
            "tools-list-set-may-vary-by-authorization": "server",
            "tools-x-mcp-header-no-sensitive-params": "server",
            "tools-server-access-control": "server",
            "tools-server-rate-limit": "server",
            "tools-server-sanitize-outputs": "server",
        },
    ),
    *gaps(
        "L-095",
        "what the host shows its user (the exposed tools, an invocation, its inputs) and asks him to confirm or deny "
        "happens on its screen, not on the wire",
        {
            "tools-client-confirm-sensitive": "client",
            "tools-client-show-inputs": "client",
            "tools-human-can-deny-invocation": "client",
            "tools-ui-confirm-operations": "client",
            "tools-ui-indicate-invocation": "client",
            "tools-ui-show-exposed-tools": "client",
        },
    ),
    *gaps(
        "L-096",
        "audit records, the trust placed in annotations and what the host passes to its language model stay inside "
        "the client",
        {
            "tools-annotations-untrusted": "client",
            "tools-client-audit-log": "client",
            "tools-client-validate-results": "client",
            "tools-execution-errors-to-model": "client",
            "tools-protocol-errors-to-model": "client",
        },
    ),
    *gaps(
        "L-098",
        "a tool-call timeout with no length: any bound a test waited for would be the suite's",
        {"tools-client-call-timeouts": "client"},
    ),
]
