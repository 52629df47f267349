"""Coverage of the meta area: no test yet; every applicable cell is gapped, by name.

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
            "meta-reserved-keys-no-assumptions": "both",
            "meta-key-prefix-labels": "both",
            "meta-key-prefix-label-characters": "both",
            "meta-key-prefix-reverse-dns": "both",
            "meta-key-name-alphanumeric-ends": "both",
            "meta-key-name-interior-characters": "both",
            "meta-request-required-fields": "client",
            "meta-missing-required-field-invalid-params": "server",
            "meta-missing-required-field-http-400": "server",
            "meta-client-info-every-request": "client",
            "meta-no-undeclared-client-capabilities": "server",
            "meta-missing-client-capability-error": "server",
            "meta-missing-client-capability-http-400": "server",
            "meta-server-info-every-result": "server",
            "meta-info-not-behavioral": "both",
            "meta-info-not-security": "both",
            "meta-subscription-id-on-listen-notifications": "server",
            "meta-trace-context-format": "both",
            "meta-reserved-keys-no-assumptions-metaobject": "both",
            "meta-key-prefix-dotted-labels-metaobject": "both",
            "meta-key-prefix-label-shape-metaobject": "both",
            "meta-key-name-alphanumeric-ends-metaobject": "both",
            "meta-subscription-id-on-stream-subscriptionid": "server",
            "meta-client-info-on-requests-clientinfo": "client",
            "meta-client-info-no-behaviour-change-clientinfo": "server",
            "meta-client-info-no-security-clientinfo": "server",
            "meta-no-inferred-capabilities-clientcapabilities": "server",
            "meta-status-400-missingrequiredclientcapabilityerror": "server",
        },
    ),
]
