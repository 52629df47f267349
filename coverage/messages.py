"""Coverage of the messages area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "#4",
        "base protocol: tested with the harness (issue #4)",
        {
            "messages-jsonrpc-2-0": "both",
            "messages-request-id-type": "both",
            "messages-request-id-not-null": "both",
            "messages-request-id-unique-in-session": "both",
            "messages-request-id-unique-in-flight": "client",
            "messages-response-id-matches-request": "both",
            "messages-response-result-or-error": "both",
            "messages-response-not-both": "both",
            "messages-result-any-object": "both",
            "messages-result-response-id-matches-request": "both",
            "messages-result-response-has-result": "both",
            "messages-result-type-present": "server",
            "messages-result-type-supported-set": "both",
            "messages-result-type-unknown-invalid": "client",
            "messages-result-type-absent-complete": "client",
            "messages-error-response-id-matches-request": "both",
            "messages-error-code-and-message": "both",
            "messages-error-code-integer": "both",
            "messages-error-data-optional": "server",
            "messages-notification-no-response": "both",
            "messages-notification-no-id": "both",
            "messages-batch-send-optional": "both",
            "messages-batch-receive": "both",
            "messages-server-no-requests": "server",
            "messages-request-scoped-notifications": "server",
            "messages-result-type-included-resulttype": "server",
            "messages-absent-result-type-complete-resulttype": "client",
        },
    ),
]
