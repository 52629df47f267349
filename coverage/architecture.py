"""Coverage of the architecture area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import drop_field, set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_architecture.py"
# A final tool result, as a server that took the state from the connection would answer a retry without it.
COMPLETED = {"content": [{"type": "text", "text": "done"}]}

COVERS: list[Cover] = [
    Cover(
        "architecture-base-protocol-required",
        "server",
        f"{TESTS}::test_the_server_implements_the_base_protocol_and_the_lifecycle",
        fault=drop_field("initialize", "result.capabilities"),
    ),
    Cover(
        "architecture-core-components-required",
        "server",
        f"{TESTS}::test_the_server_implements_versioning_and_the_message_patterns",
        fault=drop_field("server/discover", "result.supportedVersions"),
    ),
    Cover(
        "architecture-cross-request-state-explicit-handle",
        "server",
        f"{TESTS}::test_state_that_spans_requests_is_named_by_the_handle_the_client_sends",
        fault=set_field("tools/call", "result", COMPLETED, occurrence=2),  # the retry without its state
    ),
    Cover(
        "architecture-stateless-no-connection-affinity",
        "server",
        f"{TESTS}::test_related_requests_may_arrive_on_another_connection",
        fault=set_field("tools/call", "result.requestState", "mcp-matrix-forged"),
    ),
    Cover(
        "architecture-stateless-no-connection-context",
        "server",
        f"{TESTS}::test_no_context_is_carried_over_from_earlier_requests_on_the_connection",
        fault=set_field("tools/call", "result", COMPLETED, occurrence=3),  # served after another declared sampling
    ),
    Cover(
        "architecture-stateless-interleaved-work",
        "server",
        f"{TESTS}::test_requests_of_several_conversations_interleave_on_one_connection",
        fault=set_field("tools/call", "result.isError", True, occurrence=2),  # the call made meanwhile
    ),
    # the client side
    Cover(
        "architecture-base-protocol-required",
        "client",
        f"{TESTS}::test_the_client_implements_the_base_protocol_and_the_lifecycle",
        fault=drop_field("initialize", "params.capabilities"),
    ),
    Cover(
        "architecture-cross-request-state-explicit-handle",
        "client",
        f"{TESTS}::test_the_client_passes_the_handle_of_the_work_on_each_request",
        fault=drop_field("tools/call", "params.requestState"),
    ),
    Cover(
        "architecture-core-components-required",
        "client",
        f"{TESTS}::test_the_client_implements_versioning_and_the_message_patterns",
        fault=drop_field("tools/list", "params._meta"),
    ),
    Cover(
        "architecture-core-components-required",
        "client",
        f"{TESTS}::test_the_client_implements_versioning_and_the_message_patterns",
        fault=drop_field("tools/call", "params.inputResponses"),
    ),
]

GAPS: list[Gap] = [
    Gap(
        "architecture-optional-components",
        "server",
        "L-074",
        "a permission with nothing to break: which optional components a server implements is its own choice",
    ),
    *gaps(
        "L-099",
        "whether the host ties a stdio server process to one conversation turns on its own notion of a conversation, "
        "which no message carries",
        {"architecture-stdio-process-not-conversation": "client"},
    ),
    Gap(
        "architecture-optional-components",
        "client",
        "L-126",
        "a permission with nothing to break: which optional components a client implements is its own choice",
    ),
]
