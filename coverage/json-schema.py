"""Coverage of the json-schema area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import fetch, misreport, set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_json_schema.py"
BROKEN_OUTPUT_SCHEMA_TOOL = [
    {"name": "broken", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"x": 5}}}
]
DRAFT_07_TOOL = [
    {"name": "draft7", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}}
]
DIALECT_NOT_A_URI_TOOL = [{"name": "unnamed", "inputSchema": {"$schema": "draft-07", "type": "object"}}]
RAN = set_field("tools/call", "result.isError", False)  # the refused call reads as one that ran
# the client tells its application each result with the verdict of another: a result it must refuse reads accepted
VERDICTS_SWAPPED = misreport("tool-results")

COVERS: list[Cover] = [
    Cover(
        "json-schema-support-2020-12",
        "server",
        f"{TESTS}::test_a_schema_without_dialect_is_read_as_2020_12",
        fault=RAN,
    ),
    Cover(
        "json-schema-validate-per-dialect",
        "server",
        f"{TESTS}::test_arguments_are_validated_under_the_declared_dialect",
        fault=RAN,
    ),
    Cover(
        "json-schema-schemas-valid",
        "server",
        f"{TESTS}::test_every_schema_the_server_sends_is_valid_under_its_dialect",
        fault=set_field("tools/list", "result.tools", BROKEN_OUTPUT_SCHEMA_TOOL),
    ),
    Cover(
        "json-schema-prefer-2020-12",
        "server",
        f"{TESTS}::test_the_servers_schemas_are_written_in_2020_12",
        fault=set_field("tools/list", "result.tools", DRAFT_07_TOOL),
    ),
    Cover(
        "json-schema-explicit-dialect-allowed",
        "server",
        f"{TESTS}::test_a_schema_may_name_its_dialect_by_its_uri",
        fault=set_field("tools/list", "result.tools", DIALECT_NOT_A_URI_TOOL),
    ),
    # the client side: the outputSchemas of the scripted server's tools, and the results the client accepts
    Cover(
        "json-schema-support-2020-12",
        "client",
        f"{TESTS}::test_the_client_reads_a_schema_without_dialect_as_2020_12",
        fault=VERDICTS_SWAPPED,
    ),
    Cover(
        "json-schema-validate-per-dialect",
        "client",
        f"{TESTS}::test_the_client_checks_each_schema_by_its_declared_dialect",
        fault=VERDICTS_SWAPPED,
    ),
    Cover(
        "json-schema-unsupported-dialect-error",
        "client",
        f"{TESTS}::test_the_client_refuses_a_schema_in_a_dialect_it_does_not_support",
        fault=VERDICTS_SWAPPED,
    ),
    Cover(
        "json-schema-unresolved-ref-reject",
        "client",
        f"{TESTS}::test_the_client_refuses_a_schema_whose_external_ref_does_not_resolve",
        fault=VERDICTS_SWAPPED,
    ),
    Cover(
        "json-schema-no-network-ref",
        "client",
        f"{TESTS}::test_the_client_dereferences_no_network_ref",
        fault=fetch("tools/call", "/schemas/integer.json"),  # the $ref target, fetched once the tools are listed
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-061",
        "a server validates only against schemas it wrote itself: no message brings it a schema in a dialect it "
        "does not support, a $ref to the network or a hostile schema",
        {
            "json-schema-unsupported-dialect-error": "server",
            "json-schema-no-network-ref": "server",
            "json-schema-remote-ref-opt-in": "server",
            "json-schema-remote-ref-off-by-default": "server",
            "json-schema-remote-ref-host-restrictions": "server",
            "json-schema-remote-ref-limits": "server",
            "json-schema-remote-ref-logging": "server",
            "json-schema-unresolved-ref-reject": "server",
            "json-schema-validation-bounds": "server",
        },
    ),
    *gaps(
        "L-062",
        "what an implementation's documentation says is not on the wire",
        {"json-schema-document-dialects": "server"},
    ),
    *gaps(
        "L-096",
        "the log of the URIs a client dereferenced is kept inside it, and only once remote fetching is enabled",
        {"json-schema-remote-ref-logging": "client"},
    ),
    *gaps(
        "L-098",
        "a fetch timeout and size limit, or a validator's depth, subschema or time budget, with no number: any bound "
        "a test picked would be the suite's",
        {
            "json-schema-remote-ref-limits": "client",
            "json-schema-validation-bounds": "client",
        },
    ),
    *gaps(
        "L-099",
        "which schema dialects the client's documentation lists is not on the wire",
        {"json-schema-document-dialects": "client"},
    ),
    *gaps(
        "L-136",
        "a setting that fetches remote $ref targets, off by default and with a host allowlist, is the client's "
        "configuration: none of the clients under test has one, so no driver scenario can turn it on; with it "
        "off, the wire shows only json-schema-no-network-ref's observation",
        {
            "json-schema-remote-ref-opt-in": "client",
            "json-schema-remote-ref-off-by-default": "client",
            "json-schema-remote-ref-host-restrictions": "client",
        },
    ),
]
