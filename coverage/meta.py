"""Coverage of the meta area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps
from conformance.harness.faults import drop_field, http_status, set_field

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

GAPS: list[Gap] = [
    *gaps(
        "#4",
        "base protocol: tested with the harness (issue #4)",
        {
            "meta-reserved-keys-no-assumptions": "both",
            "meta-key-prefix-labels": "client",
            "meta-key-prefix-label-characters": "client",
            "meta-key-prefix-reverse-dns": "both",
            "meta-key-name-alphanumeric-ends": "client",
            "meta-key-name-interior-characters": "both",
            "meta-request-required-fields": "client",
            "meta-client-info-every-request": "client",
            "meta-no-undeclared-client-capabilities": "server",
            "meta-info-not-behavioral": "both",
            "meta-info-not-security": "both",
            "meta-subscription-id-on-listen-notifications": "server",
            "meta-trace-context-format": "both",
        },
    ),
]
