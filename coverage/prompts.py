"""Coverage of the prompts area: no test yet; every applicable cell is gapped, by name.

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
            "prompts-capability-declared": "server",
            "prompts-list-current-set": "server",
            "prompts-list-set-may-be-empty": "server",
            "prompts-list-set-may-change": "server",
            "prompts-list-set-connection-independent": "server",
            "prompts-list-set-may-vary-by-authorization": "server",
            "prompts-list-changed-notify": "server",
            "prompts-list-changed-notify-subscribers": "server",
            "prompts-image-content-base64": "server",
            "prompts-image-content-mime-type": "server",
            "prompts-audio-content-base64": "server",
            "prompts-audio-content-mime-type": "server",
            "prompts-resource-link-allowed": "server",
            "prompts-embedded-resource-uri": "server",
            "prompts-embedded-resource-mime-type": "server",
            "prompts-embedded-resource-content": "server",
            "prompts-get-unknown-name-error": "server",
            "prompts-get-missing-arguments-error": "server",
            "prompts-internal-error-code": "server",
            "prompts-validate-arguments": "server",
            "prompts-client-handles-pagination": "client",
            "prompts-respect-capability-negotiation": "both",
            "prompts-validate-inputs-outputs": "both",
        },
    ),
]
