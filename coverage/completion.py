"""Coverage of the completion area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "#3",
        "catalogued, not yet tested",
        {
            "completion-capability-declared": "server",
            "completion-unsupported-method-not-found": "server",
            "completion-unknown-prompt-error": "server",
            "completion-missing-arguments-error": "server",
            "completion-internal-error-code": "server",
            "completion-sorted-by-relevance": "server",
            "completion-fuzzy-matching": "server",
            "completion-rate-limit": "server",
            "completion-validate-inputs": "server",
            "completion-client-debounce": "client",
            "completion-client-cache": "client",
            "completion-client-partial-results": "client",
            "completion-access-control": "server",
            "completion-no-information-disclosure": "server",
        },
    ),
]
