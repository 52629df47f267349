"""Coverage of the prompts area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import Fault, drop_field, misreport, set_field, silence
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_prompts.py"
# a prompts/list request, as if the client had sent it just before opening the session
ASKED_FOR_PROMPTS = Fault(
    "inject",
    ("initialize", "server/discover"),
    value={"jsonrpc": "2.0", "id": "mcp-matrix-prompts", "method": "prompts/list"},
    description="a prompts/list request sent just before the client's initialize or server/discover",
)
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC"


def messages_with(content: dict) -> list[dict]:
    """A prompt's messages holding just ``content``: what a fault puts in every prompts/get answer."""
    return [{"role": "user", "content": content}]


COVERS: list[Cover] = [
    Cover(
        "prompts-capability-declared",
        "server",
        f"{TESTS}::test_a_server_listing_prompts_declares_the_prompts_capability",
        fault=drop_field("initialize", "result.capabilities.prompts"),
        revisions="2024-11-05..2025-11-25",
    ),
    Cover(
        "prompts-capability-declared",
        "server",
        f"{TESTS}::test_a_server_listing_prompts_declares_the_prompts_capability",
        fault=drop_field("server/discover", "result.capabilities.prompts"),
        revisions="2026-07-28",
    ),
    Cover(
        "prompts-list-current-set",
        "server",
        f"{TESTS}::test_prompts_list_holds_the_prompts_that_can_be_got",
        fault=set_field("prompts/list", "result.prompts", []),
    ),
    Cover(
        "prompts-list-set-connection-independent",
        "server",
        f"{TESTS}::test_prompts_list_depends_neither_on_the_connection_nor_on_earlier_requests",
        fault=set_field("prompts/list", "result.prompts", [], occurrence=2),  # the second answer, first connection
    ),
    Cover(
        "prompts-list-changed-notify",
        "server",
        f"{TESTS}::test_a_prompt_list_change_is_announced",
        fault=silence("notifications/prompts/list_changed"),
    ),
    Cover(
        "prompts-list-changed-notify-subscribers",
        "server",
        f"{TESTS}::test_a_prompt_list_change_is_announced_to_subscribers",
        fault=silence("notifications/prompts/list_changed"),
    ),
    Cover(
        "prompts-image-content-base64",
        "server",
        f"{TESTS}::test_prompt_image_data_is_base64",
        fault=set_field(
            "prompts/get",
            "result.messages",
            messages_with({"type": "image", "data": "%% no b64 %%", "mimeType": "image/png"}),
        ),
    ),
    Cover(
        "prompts-image-content-mime-type",
        "server",
        f"{TESTS}::test_prompt_images_carry_a_valid_mime_type",
        fault=set_field(
            "prompts/get", "result.messages", messages_with({"type": "image", "data": PNG, "mimeType": "png"})
        ),
    ),
    Cover(
        "prompts-embedded-resource-uri",
        "server",
        f"{TESTS}::test_embedded_resources_in_prompts_carry_a_valid_uri",
        fault=set_field(
            "prompts/get",
            "result.messages",
            messages_with(
                {"type": "resource", "resource": {"uri": "not a uri", "mimeType": "text/plain", "text": "x"}}
            ),
        ),
    ),
    Cover(
        "prompts-embedded-resource-mime-type",
        "server",
        f"{TESTS}::test_embedded_resources_in_prompts_carry_a_mime_type",
        fault=set_field(
            "prompts/get",
            "result.messages",
            messages_with({"type": "resource", "resource": {"uri": "test://static-text", "text": "x"}}),
        ),
    ),
    Cover(
        "prompts-embedded-resource-content",
        "server",
        f"{TESTS}::test_embedded_resources_in_prompts_carry_text_or_base64_blob",
        fault=set_field(
            "prompts/get",
            "result.messages",
            messages_with({"type": "resource", "resource": {"uri": "test://static-text", "mimeType": "text/plain"}}),
        ),
    ),
    Cover(
        "prompts-audio-content-base64",
        "server",
        f"{TESTS}::test_prompt_audio_data_is_base64",
        fault=set_field(
            "prompts/get",
            "result.messages",
            messages_with({"type": "audio", "data": "%% no b64 %%", "mimeType": "audio/wav"}),
        ),
    ),
    Cover(
        "prompts-audio-content-mime-type",
        "server",
        f"{TESTS}::test_prompt_audio_carries_a_valid_mime_type",
        fault=set_field(
            "prompts/get", "result.messages", messages_with({"type": "audio", "data": PNG, "mimeType": "wav"})
        ),
    ),
    Cover(
        "prompts-internal-error-code",
        "server",
        f"{TESTS}::test_a_prompt_failing_inside_the_server_gets_minus_32603",
        fault=set_field("prompts/get", "error.code", -32602),
    ),
    Cover(
        "prompts-respect-capability-negotiation",
        "server",
        f"{TESTS}::test_a_prompt_list_change_is_announced_only_when_declared",
        fault=drop_field("initialize", "result.capabilities.prompts.listChanged"),
        revisions="2024-11-05..2025-11-25",
    ),
    Cover(
        "prompts-respect-capability-negotiation",
        "server",
        f"{TESTS}::test_a_prompt_list_change_is_announced_only_when_declared",
        fault=drop_field("server/discover", "result.capabilities.prompts.listChanged"),
        revisions="2026-07-28",
    ),
    # the client side: the SDK's client through the driver, against the scripted server
    Cover(
        "prompts-client-handles-pagination",
        "client",
        f"{TESTS}::test_the_client_lists_every_page_of_the_prompts",
        fault=drop_field("prompts/list", "params.cursor"),  # the first page asked for again, and again
    ),
    Cover(
        "prompts-client-handles-pagination",
        "client",
        f"{TESTS}::test_the_client_lists_every_page_of_the_prompts",
        fault=misreport("listed"),  # the application handed the tools as the prompts
    ),
    Cover(
        "prompts-respect-capability-negotiation",
        "client",
        f"{TESTS}::test_the_client_asks_for_no_prompts_of_a_server_that_declared_none",
        fault=ASKED_FOR_PROMPTS,
    ),
    # Permissions (MAY): a pass shows the server taking one, else not-exercised; no fault can break them.
    Cover("prompts-list-set-may-be-empty", "server", f"{TESTS}::test_the_prompt_list_may_be_empty"),
    Cover("prompts-list-set-may-change", "server", f"{TESTS}::test_the_prompt_list_may_change"),
    Cover("prompts-resource-link-allowed", "server", f"{TESTS}::test_prompt_messages_may_link_resources"),
    Cover(
        "prompts-validate-arguments",
        "server",
        f"{TESTS}::test_a_get_missing_a_required_argument_is_refused",
        fault=set_field("prompts/get", "result", {"messages": []}),
    ),
]

GAPS: list[Gap] = [
    Gap(
        "prompts-get-unknown-name-error",
        "server",
        "F-021",
        "prompts/get of an unknown prompt is refused with code 0 (-32603 at 2026-07-28), not -32602",
    ),
    Gap(
        "prompts-get-missing-arguments-error",
        "server",
        "F-021",
        "prompts/get missing a required argument is refused with code 0 (-32603 at 2026-07-28), not -32602",
    ),
    Gap(
        "prompts-internal-error-code",
        "server",
        "F-150",
        "a prompt failing inside the server is answered with code 0, not -32603",
        revisions="2024-11-05..2025-11-25",
    ),
    Gap(
        "prompts-list-set-may-vary-by-authorization",
        "server",
        "L-065",
        "needs two authorizations of one server whose lists differ by design: who may see what is its policy",
    ),
    Gap(
        "prompts-validate-inputs-outputs",
        "server",
        "L-068",
        "careful validation against injection and unauthorized access is a property of the server's code, "
        "not of any exchange a peer can judge",
    ),
    *gaps(
        "L-097",
        "what counts as an injection or an unauthorized access in prompt arguments and messages is the client's "
        "judgement, with no criterion a frame could fail",
        {"prompts-validate-inputs-outputs": "client"},
    ),
]
