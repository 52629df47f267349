"""Coverage of the mrtr area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.matrix.covers import Cover, Gap, gaps

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "#3",
        "catalogued, not yet tested",
        {
            "mrtr-server-requests-via-mrtr": "server",
            "mrtr-client-request-state-opaque": "client",
            "mrtr-input-required-allowed-methods": "server",
            "mrtr-input-required-other-methods-forbidden": "server",
            "mrtr-input-requests-optional": "server",
            "mrtr-input-requests-unique-keys": "server",
            "mrtr-input-requests-allowed-types": "server",
            "mrtr-request-state-optional": "server",
            "mrtr-request-state-untrusted": "server",
            "mrtr-request-state-integrity": "server",
            "mrtr-request-state-reject-unverified": "server",
            "mrtr-request-state-integrity-omission": "server",
            "mrtr-request-state-bind-principal": "server",
            "mrtr-request-state-expiry": "server",
            "mrtr-request-state-bind-request": "server",
            "mrtr-request-state-single-use": "server",
            "mrtr-input-required-nonempty": "server",
            "mrtr-input-requests-declared-capabilities": "server",
            "mrtr-server-no-assumed-retry": "server",
            "mrtr-server-repeat-input-required": "server",
            "mrtr-client-fulfil-input-requests": "client",
            "mrtr-client-immediate-retry": "client",
            "mrtr-client-echo-request-state": "client",
            "mrtr-client-no-invented-request-state": "client",
            "mrtr-retry-new-jsonrpc-id": "client",
            "mrtr-input-scoped-to-retry": "client",
            "mrtr-server-validate-input-responses": "server",
            "mrtr-protocol-errors-jsonrpc": "server",
            "mrtr-ignore-unexpected-input-responses": "server",
            "mrtr-rerequest-missing-input": "server",
        },
    ),
]
