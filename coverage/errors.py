"""Coverage of the errors area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.exchanges import UNKNOWN_ID, client_sends
from conformance.harness.faults import set_field, silence
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_errors.py"

COVERS: list[Cover] = [
    Cover(
        "errors-retired-codes-not-emitted",
        "server",
        f"{TESTS}::test_no_retired_error_code_is_emitted",
        fault=set_field("resources/read", "error.code", -32002),
    ),
    Cover(
        "errors-reserved-range-defined-only",
        "server",
        f"{TESTS}::test_the_reserved_range_holds_only_defined_codes",
        fault=set_field("resources/read", "error.code", -32050),
    ),
    Cover(
        "errors-legacy-range-avoid",
        "server",
        f"{TESTS}::test_no_legacy_range_code_is_emitted",
        fault=set_field("resources/read", "error.code", -32010),
    ),
]


TWO_SENTENCES = "Resource not found. Check the URI and try again."  # an error message of two sentences

# The codes over whole conversations (issue #4): the server's answers to bad requests, the client's to
# what the scripted stdio server asks it, and the client's reactions to the codes it receives.
COVERS += [
    Cover(
        "errors-new-codes-outside-jsonrpc-range",
        "server",
        f"{TESTS}::test_the_servers_own_codes_lie_outside_the_json_rpc_range",
        fault=set_field("resources/read", "error.code", -32500),
    ),
    Cover(
        "errors-reserved-range-defined-meaning",
        "server",
        f"{TESTS}::test_the_server_uses_each_defined_code_for_its_condition_only",
        fault=set_field("resources/read", "error.code", -32021),
    ),
    Cover(
        "errors-message-one-sentence-message",
        "server",
        f"{TESTS}::test_the_servers_error_messages_are_one_sentence",
        fault=set_field("resources/read", "error.message", TWO_SENTENCES),
    ),
    Cover(
        "errors-message-one-sentence-message",
        "client",
        f"{TESTS}::test_the_clients_error_messages_are_one_sentence",
        fault=client_sends({"id": UNKNOWN_ID, "error": {"code": -32601, "message": TWO_SENTENCES}}),
    ),
    Cover(
        "errors-server-message-one-sentence",
        "server",
        f"{TESTS}::test_a_modern_servers_error_messages_are_one_sentence",
        fault=set_field("resources/read", "error.message", TWO_SENTENCES),
    ),
    Cover(
        "errors-legacy-range-no-assumed-meaning",
        "client",
        f"{TESTS}::test_the_client_assumes_no_meaning_for_legacy_codes",
        fault=silence("tools/list"),
    ),
    Cover(
        "errors-accept-legacy-resource-not-found",
        "client",
        f"{TESTS}::test_the_client_takes_minus_32002_from_a_legacy_server_as_not_found",
        # the client's record shows it stopping after the refused read instead of carrying on
        fault=silence("tools/list"),
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-050",
        "whether a legacy-range code was allocated before the policy or after it is history, not behaviour",
        {"errors-legacy-range-no-new-codes": "both"},
    ),
]
