"""Coverage of the errors area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps
from conformance.harness.faults import set_field

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

GAPS: list[Gap] = [
    *gaps(
        "#4",
        "base protocol: tested with the harness (issue #4)",
        {
            "errors-legacy-range-no-new-codes": "both",
            "errors-legacy-range-avoid": "client",
            "errors-legacy-range-no-assumed-meaning": "both",
            "errors-reserved-range-defined-only": "client",
            "errors-reserved-range-defined-meaning": "both",
            "errors-retired-codes-not-emitted": "client",
            "errors-accept-legacy-resource-not-found": "client",
            "errors-new-codes-outside-jsonrpc-range": "both",
            "errors-message-one-sentence-message": "both",
            "errors-server-message-one-sentence": "server",
        },
    ),
]
