"""Coverage of the sampling area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import drop_field, set_field
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


# A sampling tool loop, as the faults rewrite it: the weather question, the model's tool use (turn 1, without
# the _meta the harness gave it), and its result.
WEATHER = {
    "name": "get_weather",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
    "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}}},
}
QUESTION = {"role": "user", "content": {"type": "text", "text": "What is the weather in Paris?"}}
USE = {"type": "tool_use", "id": "mcp-matrix-use-1", "name": "get_weather", "input": {"city": "Paris"}}
USED = {"role": "assistant", "content": [USE]}
RESULT = {"type": "tool_result", "toolUseId": "mcp-matrix-use-1", "content": [{"type": "text", "text": "18"}]}
ANSWERED = {"role": "user", "content": [RESULT]}
LOOPS = {  # test -> the messages of the loop's second request under its fault
    "exclusive": [QUESTION, USED, {"role": "user", "content": [RESULT, {"type": "text", "text": "and more"}]}],
    "balance": [QUESTION, USED, QUESTION],
    "id": [QUESTION, USED, {"role": "user", "content": [RESULT | {"toolUseId": "mcp-matrix-use-404"}]}],
    "structured": [
        QUESTION,
        USED,
        {"role": "user", "content": [RESULT | {"structuredContent": {"temperature": "warm"}}]},
    ],
    "use-meta": [QUESTION, USED, ANSWERED],
}
THIRD_WITHOUT_RESULT_META = [  # the loop's third request, its first result passed again without its _meta
    QUESTION,
    {"role": "assistant", "content": [USE | {"_meta": {"com.example.mcp-matrix/use": "turn 1"}}]},
    ANSWERED,
    {
        "role": "assistant",
        "content": [USE | {"id": "mcp-matrix-use-2", "_meta": {"com.example.mcp-matrix/use": "turn 2"}}],
    },
    {"role": "user", "content": [RESULT | {"toolUseId": "mcp-matrix-use-2"}]},
]


def loop_covers(requirement: str, test: str, messages: list, occurrence: int = 2) -> list[Cover]:
    """The tool-loop test's covers: its fault rewrites the messages of the loop's Nth sampling request."""
    return [
        Cover(
            requirement,
            "server",
            f"{TESTS}::{test}",
            fault=set_field("sampling/createMessage", "params.messages", messages, occurrence=occurrence),
            revisions="2025-11-25",
        ),
        Cover(
            requirement,
            "server",
            f"{TESTS}::{test}",
            fault=set_field("tools/call", "result", asking(messages=messages, tools=[WEATHER]), occurrence=occurrence),
            revisions="2026-07-28",
        ),
    ]


COVERS: list[Cover] = [
    *loop_covers(
        "sampling-tool-result-message-exclusive",
        "test_a_message_with_tool_results_holds_nothing_else",
        LOOPS["exclusive"],
    ),
    *loop_covers(
        "sampling-tool-use-result-balance", "test_every_tool_use_is_answered_in_the_next_message", LOOPS["balance"]
    ),
    *loop_covers(
        "sampling-tool-result-id-matches-tooluseid", "test_every_tool_result_answers_an_earlier_tool_use", LOOPS["id"]
    ),
    *loop_covers(
        "sampling-tool-result-output-schema-structuredcontent",
        "test_tool_results_conform_to_the_tools_output_schema",
        LOOPS["structured"],
    ),
    *loop_covers(
        "sampling-preserve-meta-toolusecontent", "test_tool_uses_are_passed_back_with_their_meta", LOOPS["use-meta"]
    ),
    *loop_covers(
        "sampling-preserve-meta-toolresultcontent",
        "test_tool_results_passed_again_keep_their_meta",
        THIRD_WITHOUT_RESULT_META,
        occurrence=3,
    ),
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

# -- client side: the client answering sampling/createMessage (the client section of TESTS) ------------------
# Before 2026-07-28 a fault rewrites the client's response to the scripted server's sampling request; at
# 2026-07-28 its tools/call requests: the first (asked the question) or the retry carrying its inputResponses.

SAMPLE = {"role": "assistant", "content": {"type": "text", "text": "Sunny"}, "model": "mcp-matrix-model"}
TOOL_USE = {"type": "tool_use", "id": "mcp-matrix-use-1", "name": "get_weather", "input": {"city": "Paris"}}


def modern_meta(capabilities: dict) -> dict:
    """A 2026-07-28 request's _meta as the client writes it, declaring ``capabilities``."""
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }


def answer_covers(requirement: str, test: str, handshake: object, modern: object, revisions: str) -> list[Cover]:
    """A client test's covers: ``handshake`` its fault up to 2025-11-25, ``modern`` at 2026-07-28."""
    covers = [Cover(requirement, "client", f"{TESTS}::{test}", fault=handshake, revisions=revisions)]
    if modern is not None:
        covers.append(Cover(requirement, "client", f"{TESTS}::{test}", fault=modern, revisions="2026-07-28"))
    return covers


COVERS += [
    Cover(
        "sampling-capability-declare-initialize",
        "client",
        f"{TESTS}::test_a_client_that_samples_declares_sampling_at_initialization",
        fault=drop_field("initialize", "params.capabilities.sampling"),
    ),
    Cover(
        "sampling-capability-declare-per-request",
        "client",
        f"{TESTS}::test_a_client_that_samples_declares_sampling_on_each_request",
        fault=set_field("tools/call", "params._meta", modern_meta({})),
    ),
    *answer_covers(
        "sampling-tools-capability-declare",
        "test_a_client_that_samples_with_tools_declares_sampling_tools",
        drop_field("initialize", "params.capabilities.sampling.tools"),
        set_field("tools/call", "params._meta", modern_meta({"sampling": {}})),
        "2025-11-25",
    ),
    *answer_covers(
        "sampling-tools-need-capability-error-tools",
        "test_sampling_with_tools_is_refused_by_a_client_without_sampling_tools",
        set_field("sampling/createMessage", "result", SAMPLE),
        set_field("tools/call", "params.inputResponses", {"tools": SAMPLE}, occurrence=1),
        "2025-11-25",
    ),
    *answer_covers(
        "sampling-tool-choice-required",
        "test_a_required_tool_choice_is_answered_with_a_tool_use",
        set_field("sampling/createMessage", "result.content", SAMPLE["content"]),
        set_field("tools/call", "params.inputResponses.q.content", SAMPLE["content"], occurrence=2),
        "2025-11-25",
    ),
    *answer_covers(
        "sampling-tool-choice-none",
        "test_a_none_tool_choice_is_answered_without_a_tool_use",
        set_field("sampling/createMessage", "result.content", [TOOL_USE]),
        set_field("tools/call", "params.inputResponses.q.content", [TOOL_USE], occurrence=2),
        "2025-11-25",
    ),
    Cover(
        "sampling-message-role-content",
        "client",
        f"{TESTS}::test_the_clients_sample_has_a_role_and_content",
        fault=set_field("tools/call", "params.inputResponses.q.role", "system", occurrence=2),
    ),
    Cover(
        "sampling-error-on-failure",
        "client",
        f"{TESTS}::test_a_sample_the_client_cannot_give_is_answered_with_an_error",
        fault=set_field("sampling/createMessage", "result", SAMPLE),
    ),
    Cover(
        "sampling-error-user-rejected",
        "client",
        f"{TESTS}::test_a_rejected_sample_is_answered_with_code_minus_one",
        fault=set_field("sampling/createMessage", "error.code", -32603),
    ),
    Cover(
        "sampling-error-tool-result-missing",
        "client",
        f"{TESTS}::test_a_tool_use_without_its_result_is_refused_as_invalid_params",
        fault=set_field("sampling/createMessage", "error.code", -32603),
    ),
    Cover(
        "sampling-error-tool-results-mixed",
        "client",
        f"{TESTS}::test_tool_results_mixed_with_other_content_are_refused_as_invalid_params",
        fault=set_field("sampling/createMessage", "error.code", -32603),
    ),
    *answer_covers(
        "sampling-validate-content",
        "test_a_malformed_sampling_message_is_not_sampled",
        set_field("sampling/createMessage", "result", SAMPLE),
        set_field("tools/call", "params.inputResponses", {"q": SAMPLE}, occurrence=1),
        HANDSHAKE,
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-087",
        "what counts as sensitive in sampling messages and what care is appropriate is the implementation's own "
        "judgement, with no mark on the wire",
        {"sampling-sensitive-data": "server"},
    ),
    *gaps(
        "L-095",
        "review, editing and approval of a sampling request and its response are the host's interface; the wire shows "
        "only the result it chose to send",
        {
            "sampling-edit-prompts": "client",
            "sampling-human-in-loop": "client",
            "sampling-review-responses": "client",
            "sampling-review-ui": "client",
            "sampling-user-approval-controls": "client",
        },
    ),
    *gaps(
        "L-096",
        "model choice among models the suite does not know, token counts of a tokenizer it does not have, and what "
        "the client keeps between requests are internal to it",
        {
            "sampling-hint-substring-match-modelhint": "client",
            "sampling-hints-before-priorities-hints": "client",
            "sampling-hints-first-match-hints": "client",
            "sampling-max-tokens-respect": "client",
            "sampling-messages-not-retained": "client",
            "sampling-respect-model-preferences": "client",
        },
    ),
    *gaps(
        "L-097",
        "'appropriate' care of sensitive data names no criterion; what is sensitive is for the client and its user to "
        "know",
        {"sampling-sensitive-data": "client"},
    ),
    *gaps(
        "L-098",
        "a rate limit or a cap on tool-loop iterations with no number: any threshold a test picked would be the "
        "suite's",
        {
            "sampling-rate-limit": "client",
            "sampling-tool-loop-iteration-limit": "both",
        },
    ),
    *gaps(
        "L-100",
        "permissions of the client (which model answers a hint, what it does with includeContext, the system "
        "prompt, temperature, stop sequences and metadata, how many tokens it samples, which stop reasons it "
        "names, whether it offers a parallel-tool-use switch) that no behaviour breaks",
        {
            "sampling-model-hints-map": "client",
            "sampling-priorities-break-ties-hints": "client",
            "sampling-preferences-ignorable-modelpreferences": "client",
            "sampling-context-request-ignorable-includecontext": "client",
            "sampling-include-context-may-alter": "client",
            "sampling-system-prompt-alterable-systemprompt": "client",
            "sampling-optional-params-may-alter": "client",
            "sampling-fewer-tokens-allowed-maxtokens": "client",
            "sampling-stop-reason-custom": "client",
            "sampling-parallel-tool-use-extension": "client",
        },
    ),
    *gaps(
        "L-101",
        "a client never sends sampling requests, so it never passes tool uses or tool results back in one: the "
        "situation cannot arise on the client's side",
        {
            "sampling-preserve-meta-toolusecontent": "client",
            "sampling-preserve-meta-toolresultcontent": "client",
        },
    ),
]
