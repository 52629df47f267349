"""Coverage of the tools area: no test yet; every applicable cell is gapped, by name.

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
            "tools-human-can-deny-invocation": "client",
            "tools-ui-show-exposed-tools": "client",
            "tools-ui-indicate-invocation": "client",
            "tools-ui-confirm-operations": "client",
            "tools-capability-declared": "server",
            "tools-list-current-set": "server",
            "tools-list-set-may-be-empty": "server",
            "tools-list-set-may-change": "server",
            "tools-list-set-connection-independent": "server",
            "tools-list-set-may-vary-by-authorization": "server",
            "tools-list-deterministic-order": "server",
            "tools-list-changed-notify": "server",
            "tools-list-changed-notify-subscribers": "server",
            "tools-input-schema-valid-object": "server",
            "tools-annotations-untrusted": "client",
            "tools-name-length": "server",
            "tools-name-case-sensitive": "both",
            "tools-name-allowed-characters": "server",
            "tools-name-no-special-characters": "server",
            "tools-name-unique": "server",
            "tools-aggregator-disambiguate-names": "client",
            "tools-aggregator-not-rely-on-server-name": "client",
            "tools-x-mcp-header-no-sensitive-params": "server",
            "tools-result-resource-link-allowed": "server",
            "tools-result-embedded-resource-allowed": "server",
            "tools-embedded-resources-capability": "server",
            "tools-structured-content-text-mirror": "server",
            "tools-output-schema-conformance": "server",
            "tools-output-schema-client-validates": "client",
            "tools-execution-errors-to-model": "client",
            "tools-protocol-errors-to-model": "client",
            "tools-server-validate-inputs": "server",
            "tools-server-access-control": "server",
            "tools-server-rate-limit": "server",
            "tools-server-sanitize-outputs": "server",
            "tools-client-confirm-sensitive": "client",
            "tools-client-show-inputs": "client",
            "tools-client-validate-results": "client",
            "tools-client-ref-resolution": "client",
            "tools-client-call-timeouts": "client",
            "tools-client-audit-log": "client",
            "tools-tool-errors-in-result-iserror": "server",
        },
    ),
]
