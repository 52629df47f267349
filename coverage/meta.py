"""Coverage of the meta area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps
from conformance.harness.faults import drop_field

TESTS = "conformance/test_meta.py"

COVERS: list[Cover] = [
    Cover(
        "meta-server-info-every-result",
        "server",
        f"{TESTS}::test_every_result_names_the_server",
        fault=drop_field(("server/discover", "tools/list", "prompts/list"), "result._meta"),
    ),
]

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
            "meta-info-not-behavioral": "both",
            "meta-info-not-security": "both",
            "meta-subscription-id-on-listen-notifications": "server",
            "meta-trace-context-format": "both",
        },
    ),
]
