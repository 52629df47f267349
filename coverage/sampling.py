"""Coverage of the sampling area: no test yet; every applicable cell is gapped, by name.

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
            "sampling-human-in-loop": "client",
            "sampling-review-ui": "client",
            "sampling-edit-prompts": "client",
            "sampling-review-responses": "client",
            "sampling-tools-capability-declare": "client",
            "sampling-tools-require-capability": "server",
            "sampling-capability-declare-initialize": "client",
            "sampling-capability-declare-per-request": "client",
            "sampling-include-context-avoid": "server",
            "sampling-include-context-requires-capability": "server",
            "sampling-tool-result-message-exclusive": "server",
            "sampling-tool-use-result-balance": "server",
            "sampling-tool-choice-required": "client",
            "sampling-tool-choice-none": "client",
            "sampling-parallel-tool-use-extension": "client",
            "sampling-message-role-content": "both",
            "sampling-messages-not-retained": "client",
            "sampling-model-hints-map": "client",
            "sampling-include-context-may-alter": "client",
            "sampling-max-tokens-respect": "client",
            "sampling-optional-params-may-alter": "client",
            "sampling-stop-reason-custom": "client",
            "sampling-error-on-failure": "client",
            "sampling-error-user-rejected": "client",
            "sampling-error-tool-result-missing": "client",
            "sampling-error-tool-results-mixed": "client",
            "sampling-user-approval-controls": "client",
            "sampling-validate-content": "both",
            "sampling-respect-model-preferences": "client",
            "sampling-rate-limit": "client",
            "sampling-sensitive-data": "both",
            "sampling-tool-loop-iteration-limit": "both",
            "sampling-context-request-ignorable-includecontext": "client",
            "sampling-fewer-tokens-allowed-maxtokens": "client",
            "sampling-preferences-ignorable-modelpreferences": "client",
            "sampling-system-prompt-alterable-systemprompt": "client",
            "sampling-hint-substring-match-modelhint": "client",
            "sampling-hints-first-match-hints": "client",
            "sampling-hints-before-priorities-hints": "client",
            "sampling-priorities-break-ties-hints": "client",
            "sampling-tools-need-capability-error-tools": "client",
            "sampling-tool-result-id-matches-tooluseid": "server",
            "sampling-tool-result-output-schema-structuredcontent": "server",
            "sampling-preserve-meta-toolresultcontent": "both",
            "sampling-preserve-meta-toolusecontent": "both",
        },
    ),
]
