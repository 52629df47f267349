"""Coverage of the meta area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.faults import Fault, drop_field, http_status, set_field, silence
from conformance.matrix.covers import Cover, Gap

TESTS = "conformance/test_meta.py"

COVERS: list[Cover] = [
    Cover(
        "meta-server-info-every-result",
        "server",
        f"{TESTS}::test_every_result_names_the_server",
        fault=drop_field(("server/discover", "tools/list", "prompts/list"), "result._meta"),
    ),
    Cover(
        "meta-missing-required-field-invalid-params",
        "server",
        f"{TESTS}::test_a_request_without_its_meta_envelope_gets_minus_32602",
        fault=set_field("tools/list", "error.code", -32600),
    ),
    Cover(
        "meta-missing-required-field-http-400",
        "server",
        f"{TESTS}::test_a_request_without_its_meta_envelope_gets_400",
        fault=http_status("tools/list", 200),
    ),
    Cover(
        "meta-missing-client-capability-error",
        "server",
        f"{TESTS}::test_a_request_needing_an_undeclared_capability_gets_minus_32021",
        fault=set_field("tools/call", "error.code", -32603),
    ),
    Cover(
        "meta-missing-client-capability-http-400",
        "server",
        f"{TESTS}::test_a_missing_client_capability_gets_400",
        fault=http_status("tools/call", 200),
    ),
    Cover(
        "meta-key-prefix-labels",
        "server",
        f"{TESTS}::test_meta_key_prefixes_are_dot_separated_labels",
        fault=set_field("tools/list", "result._meta", {"com..example/name": 1}),
    ),
    Cover(
        "meta-key-prefix-label-characters",
        "server",
        f"{TESTS}::test_meta_key_prefix_labels_are_well_formed",
        fault=set_field("tools/list", "result._meta.-label/name", 1),
    ),
    Cover(
        "meta-key-name-alphanumeric-ends",
        "server",
        f"{TESTS}::test_meta_key_names_start_and_end_alphanumeric",
        fault=set_field("tools/list", "result._meta.com/name-", 1),
    ),
]


def client_writes(meta: dict) -> Fault:
    """The client's record shows its tools/list carrying ``meta`` as its whole ``_meta``."""
    return set_field("tools/list", "params._meta", meta)


SAMPLING_ASKED = {
    "resultType": "input_required",
    "inputRequests": {"sample": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 1}}},
}

# The base protocol's _meta over whole conversations (issue #4).
COVERS += [
    Cover(
        "meta-key-prefix-labels",
        "client",
        f"{TESTS}::test_client_meta_key_prefixes_are_dot_separated_labels",
        fault=client_writes({"com..example/name": 1}),
    ),
    Cover(
        "meta-key-prefix-label-characters",
        "client",
        f"{TESTS}::test_client_meta_key_prefix_labels_are_well_formed",
        fault=client_writes({"-label/name": 1}),
    ),
    Cover(
        "meta-key-name-alphanumeric-ends",
        "client",
        f"{TESTS}::test_client_meta_key_names_start_and_end_alphanumeric",
        fault=client_writes({"com.example/name-": 1}),
    ),
    Cover(
        "meta-key-name-interior-characters",
        "client",
        f"{TESTS}::test_client_meta_key_names_use_only_the_allowed_interior_characters",
    ),
    Cover(
        "meta-key-name-interior-characters",
        "server",
        f"{TESTS}::test_meta_key_names_use_only_the_allowed_interior_characters",
    ),
    Cover(
        "meta-key-prefix-reverse-dns",
        "client",
        f"{TESTS}::test_client_meta_key_prefixes_are_reverse_dns",
        fault=client_writes({"example.com/name": 1}),
    ),
    Cover(
        "meta-key-prefix-reverse-dns",
        "server",
        f"{TESTS}::test_meta_key_prefixes_are_reverse_dns",
        fault=set_field("tools/list", "result._meta", {"example.com/name": 1}),
    ),
    Cover(
        "meta-request-required-fields",
        "client",
        f"{TESTS}::test_every_client_request_carries_the_required_meta_fields",
        fault=drop_field("tools/list", "params._meta"),
    ),
    Cover(
        "meta-client-info-every-request",
        "client",
        f"{TESTS}::test_every_client_request_names_the_client",
        # the tools/list keeps its version and capabilities, and no longer names the client
        fault=client_writes(
            {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
        ),
    ),
    Cover(
        "meta-reserved-keys-no-assumptions",
        "client",
        f"{TESTS}::test_the_client_assumes_nothing_of_undefined_reserved_keys",
        fault=silence("tools/call"),
    ),
    Cover(
        "meta-reserved-keys-no-assumptions",
        "server",
        f"{TESTS}::test_the_server_assumes_nothing_of_undefined_reserved_keys",
        fault=drop_field("tools/list", "result"),
    ),
    Cover(
        "meta-info-not-behavioral",
        "server",
        f"{TESTS}::test_the_server_answers_alike_whoever_the_client_says_it_is",
        # the second tools/list, the one sent as another client, lists nothing
        fault=set_field("tools/list", "result.tools", [], occurrence=2),
    ),
    Cover("meta-info-not-behavioral", "client", f"{TESTS}::test_the_client_acts_alike_whoever_the_server_says_it_is"),
    Cover(
        "meta-info-not-security",
        "server",
        f"{TESTS}::test_a_claimed_identity_opens_or_closes_nothing",
        # the third tools/list, from a client that names itself not at all, is shown no tool
        fault=set_field("tools/list", "result.tools", [], occurrence=3),
    ),
    Cover("meta-info-not-security", "client", f"{TESTS}::test_the_client_trusts_no_claimed_server_identity"),
    Cover(
        "meta-no-undeclared-client-capabilities",
        "server",
        f"{TESTS}::test_the_server_relies_on_no_capability_the_request_does_not_declare",
        fault=set_field("tools/call", "result", SAMPLING_ASKED),
    ),
    Cover(
        "meta-subscription-id-on-listen-notifications",
        "server",
        f"{TESTS}::test_notifications_on_a_listen_stream_name_their_subscription",
        fault=drop_field("notifications/tools/list_changed", "params._meta"),
    ),
    Cover(
        "meta-trace-context-format",
        "client",
        f"{TESTS}::test_the_clients_trace_context_is_w3c",
        fault=client_writes({"traceparent": "not-a-trace-context"}),
    ),
    Cover(
        "meta-trace-context-format",
        "server",
        f"{TESTS}::test_the_servers_trace_context_is_w3c",
        fault=set_field("tools/list", "result._meta", {"traceparent": "not-a-trace-context"}),
    ),
]

GAPS: list[Gap] = []
