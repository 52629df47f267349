"""Coverage of the completion area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import drop_field, misreport, set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_completion.py"
NO_VALUES = {"completion": {"values": []}}

COVERS: list[Cover] = [
    Cover(
        "completion-capability-declared",
        "server",
        f"{TESTS}::test_a_server_that_completes_declares_the_completions_capability",
        fault=drop_field("initialize", "result.capabilities.completions"),
        revisions="2025-03-26..2025-11-25",
    ),
    Cover(
        "completion-capability-declared",
        "server",
        f"{TESTS}::test_a_server_that_completes_declares_the_completions_capability",
        fault=drop_field("server/discover", "result.capabilities.completions"),
        revisions="2026-07-28",
    ),
    # Without its completions capability, the server reads as one that lacks completion yet answers
    # completion/complete with another code (-32602 for the unknown prompt) than method-not-found.
    Cover(
        "completion-unsupported-method-not-found",
        "server",
        f"{TESTS}::test_a_server_without_completion_answers_minus_32601",
        fault=drop_field("initialize", "result.capabilities.completions"),
        revisions="2025-03-26..2025-11-25",
    ),
    Cover(
        "completion-unsupported-method-not-found",
        "server",
        f"{TESTS}::test_a_server_without_completion_answers_minus_32601",
        fault=drop_field("server/discover", "result.capabilities.completions"),
        revisions="2026-07-28",
    ),
    Cover(
        "completion-unknown-prompt-error",
        "server",
        f"{TESTS}::test_completion_for_an_unknown_prompt_gets_minus_32602",
        fault=set_field("completion/complete", "error.code", -32603),
    ),
    Cover(
        "completion-missing-arguments-error",
        "server",
        f"{TESTS}::test_completion_without_its_argument_gets_minus_32602",
        fault=set_field("completion/complete", "error.code", -32603),
    ),
    Cover(
        "completion-internal-error-code",
        "server",
        f"{TESTS}::test_a_completion_failing_inside_the_server_gets_minus_32603",
        fault=set_field("completion/complete", "error.code", -32602),
    ),
    Cover(
        "completion-validate-inputs",
        "server",
        f"{TESTS}::test_a_completion_request_with_a_malformed_ref_is_refused",
        fault=set_field("completion/complete", "result", NO_VALUES),
    ),
    # the client side: the SDK's client through the driver's complete_prompt_argument
    Cover(
        "completion-client-partial-results",
        "client",
        f"{TESTS}::test_the_client_copes_with_partial_and_empty_completions",
        fault=misreport("completions"),  # the partial answer handed on as the empty one, and back
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-067",
        "a judgement of relevance and of where fuzzy matching fits: no protocol peer can call it wrong",
        {
            "completion-sorted-by-relevance": "server",
            "completion-fuzzy-matching": "server",
        },
    ),
    *gaps(
        "L-065",
        "needs knowledge of the server's policy (what rate, who may see which suggestions, what is confidential)",
        {
            "completion-rate-limit": "server",
            "completion-access-control": "server",
            "completion-no-information-disclosure": "server",
        },
    ),
    *gaps(
        "L-095",
        "debouncing follows the pace of the user's typing, which no scripted peer produces",
        {"completion-client-debounce": "client"},
    ),
    *gaps(
        "L-097",
        "'where appropriate' gives a client's caching of completions no criterion: caching and not caching both "
        "conform",
        {"completion-client-cache": "client"},
    ),
]
