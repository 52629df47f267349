"""Coverage of the sampling area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_sampling.py"
HANDSHAKE = "2024-11-05..2025-11-25"  # the server asks with a request of its own; at 2026-07-28 in inputRequests
MESSAGES = [{"role": "user", "content": {"type": "text", "text": "Hi"}}]
TOOL = {"name": "mcp-matrix-tool", "inputSchema": {"type": "object"}}
COMPLETE = {"content": [{"type": "text", "text": "LLM response: "}], "isError": False, "resultType": "complete"}


def asking(**params: object) -> dict:
    """An input_required result whose one question is a sampling request with ``params`` added."""
    question = {"method": "sampling/createMessage", "params": {"messages": MESSAGES, "maxTokens": 10} | params}
    return {"resultType": "input_required", "inputRequests": {"q": question}}


COVERS: list[Cover] = [
    Cover(
        "sampling-tools-require-capability",
        "server",
        f"{TESTS}::test_no_tools_in_sampling_for_a_client_without_sampling_tools",
        fault=set_field("sampling/createMessage", "params.tools", [TOOL]),
        revisions="2025-11-25",
    ),
    Cover(
        "sampling-tools-require-capability",
        "server",
        f"{TESTS}::test_no_tools_in_sampling_for_a_client_without_sampling_tools",
        fault=set_field("tools/call", "result", asking(tools=[TOOL])),
        revisions="2026-07-28",
    ),
    Cover(
        "sampling-include-context-avoid",
        "server",
        f"{TESTS}::test_sampling_requests_leave_include_context_unset_or_none",
        fault=set_field("sampling/createMessage", "params.includeContext", "thisServer"),
        revisions="2025-11-25",
    ),
    Cover(
        "sampling-include-context-avoid",
        "server",
        f"{TESTS}::test_sampling_requests_leave_include_context_unset_or_none",
        fault=set_field("tools/call", "result", asking(includeContext="allServers")),
        revisions="2026-07-28",
    ),
    Cover(
        "sampling-include-context-requires-capability",
        "server",
        f"{TESTS}::test_no_server_context_asked_of_a_client_without_sampling_context",
        fault=set_field("sampling/createMessage", "params.includeContext", "allServers"),
        revisions="2025-11-25",
    ),
    Cover(
        "sampling-include-context-requires-capability",
        "server",
        f"{TESTS}::test_no_server_context_asked_of_a_client_without_sampling_context",
        fault=set_field("tools/call", "result", asking(includeContext="thisServer")),
        revisions="2026-07-28",
    ),
    Cover(
        "sampling-message-role-content",
        "server",
        f"{TESTS}::test_every_sampling_message_has_a_role_and_content",
        fault=set_field(
            "tools/call",
            "result.inputRequests",
            {
                "q": {
                    "method": "sampling/createMessage",
                    "params": {"messages": [{"content": {"type": "text", "text": "Hi"}}], "maxTokens": 10},
                }
            },
        ),
    ),
    Cover(
        "sampling-validate-content",
        "server",
        f"{TESTS}::test_a_malformed_sample_is_not_taken",
        fault=set_field("tools/call", "result", COMPLETE),
        revisions=HANDSHAKE,
    ),
    Cover(
        "sampling-validate-content",
        "server",
        f"{TESTS}::test_a_malformed_sample_is_not_taken",
        fault=set_field("tools/call", "result", COMPLETE, occurrence=2),  # the retry with the malformed sample
        revisions="2026-07-28",
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "#11",
        "needs a role that runs a sampling tool loop (offers tools in sampling/createMessage, runs the tool the "
        "model asked for, and sends its result back in the next request); the fixture has none",
        {
            "sampling-tool-result-message-exclusive": "server",
            "sampling-tool-use-result-balance": "server",
            "sampling-tool-result-id-matches-tooluseid": "server",
            "sampling-tool-result-output-schema-structuredcontent": "server",
            "sampling-preserve-meta-toolresultcontent": "server",
            "sampling-preserve-meta-toolusecontent": "server",
            "sampling-tool-loop-iteration-limit": "server",
        },
    ),
    *gaps(
        "L-087",
        "what counts as sensitive in sampling messages and what care is appropriate is the implementation's own "
        "judgement, with no mark on the wire",
        {"sampling-sensitive-data": "server"},
    ),
    *gaps(
        "#12",
        "catalogued, not yet tested",
        {
            "sampling-human-in-loop": "client",
            "sampling-review-ui": "client",
            "sampling-edit-prompts": "client",
            "sampling-review-responses": "client",
            "sampling-tools-capability-declare": "client",
            "sampling-capability-declare-initialize": "client",
            "sampling-capability-declare-per-request": "client",
            "sampling-tool-choice-required": "client",
            "sampling-tool-choice-none": "client",
            "sampling-parallel-tool-use-extension": "client",
            "sampling-message-role-content": "client",
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
            "sampling-validate-content": "client",
            "sampling-respect-model-preferences": "client",
            "sampling-rate-limit": "client",
            "sampling-sensitive-data": "client",
            "sampling-tool-loop-iteration-limit": "client",
            "sampling-context-request-ignorable-includecontext": "client",
            "sampling-fewer-tokens-allowed-maxtokens": "client",
            "sampling-preferences-ignorable-modelpreferences": "client",
            "sampling-system-prompt-alterable-systemprompt": "client",
            "sampling-hint-substring-match-modelhint": "client",
            "sampling-hints-first-match-hints": "client",
            "sampling-hints-before-priorities-hints": "client",
            "sampling-priorities-break-ties-hints": "client",
            "sampling-tools-need-capability-error-tools": "client",
            "sampling-preserve-meta-toolresultcontent": "client",
            "sampling-preserve-meta-toolusecontent": "client",
        },
    ),
]
