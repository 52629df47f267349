"""Coverage of the elicitation area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.

Up to 2025-11-25 a server asks with an ``elicitation/create`` request, which the faults rewrite as it
arrives; at 2026-07-28 the question travels in the ``inputRequests`` of an ``input_required`` result,
and the faults there replace the questions of every ``tools/call`` answer (``asks``).
"""

from conformance.harness.faults import Fault, drop_field, fetch, inject_before, misreport, rename_field, set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_elicitation.py"
COMPLETE = "notifications/elicitation/complete"
PAGE = "https://mcp-matrix.example/connect"
SECRET_FORM = {"type": "object", "properties": {"password": {"type": "string", "title": "Password"}}}
NESTED_FORM = {
    "type": "object",
    "properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
}
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}}
LINKED_MESSAGE = "Details at https://mcp-matrix.example/help"
SENSITIVE_URL = f"{PAGE}?email=alice%40example.com&access_token=abc"


def asks(params: dict) -> Fault:
    """2026-07-28: every tools/call answer asks this one elicitation/create instead of its own questions."""
    return set_field(
        "tools/call", "result.inputRequests", {"mcp-matrix": {"method": "elicitation/create", "params": params}}
    )


COVERS: list[Cover] = [
    # -- form mode
    Cover(
        "elicitation-no-sensitive-info",
        "server",
        f"{TESTS}::test_no_elicitation_asks_for_a_secret",
        fault=set_field("elicitation/create", "params.requestedSchema", SECRET_FORM),
    ),
    Cover(
        "elicitation-form-no-sensitive-info",
        "server",
        f"{TESTS}::test_no_form_asks_for_a_secret",
        fault=set_field("elicitation/create", "params.requestedSchema", SECRET_FORM),
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-form-no-sensitive-info",
        "server",
        f"{TESTS}::test_no_form_asks_for_a_secret",
        fault=asks({"mode": "form", "message": "Sign in", "requestedSchema": SECRET_FORM}),
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-request-message",
        "server",
        f"{TESTS}::test_every_elicitation_carries_a_message",
        fault=drop_field("elicitation/create", "params.message"),
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-request-message",
        "server",
        f"{TESTS}::test_every_elicitation_carries_a_message",
        fault=asks({"mode": "form", "requestedSchema": NAME_FORM}),
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-form-request-shape",
        "server",
        f"{TESTS}::test_form_requests_are_form_mode_with_a_flat_primitive_schema",
        fault=drop_field("elicitation/create", "params.requestedSchema"),
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-form-request-shape",
        "server",
        f"{TESTS}::test_form_requests_are_form_mode_with_a_flat_primitive_schema",
        fault=asks({"mode": "form", "message": "Where do you live?", "requestedSchema": NESTED_FORM}),
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-mode-omit-for-form",
        "server",
        f"{TESTS}::test_a_form_request_may_leave_out_its_mode",
    ),
    Cover(
        "elicitation-mode-must-be-declared",
        "server",
        f"{TESTS}::test_elicitations_keep_to_the_modes_the_client_declared",
        fault=set_field("elicitation/create", "params.mode", "url"),
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-mode-must-be-declared",
        "server",
        f"{TESTS}::test_elicitations_keep_to_the_modes_the_client_declared",
        fault=asks({"mode": "url", "message": "Open the page", "url": PAGE}),
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-form-no-clickable-urls",
        "server",
        f"{TESTS}::test_form_requests_hold_no_links",
        fault=set_field("elicitation/create", "params.message", LINKED_MESSAGE),
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-form-no-clickable-urls",
        "server",
        f"{TESTS}::test_form_requests_hold_no_links",
        fault=asks({"mode": "form", "message": LINKED_MESSAGE, "requestedSchema": NAME_FORM}),
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-server-validate-response",
        "server",
        f"{TESTS}::test_content_that_breaks_the_requested_schema_is_not_taken",
        fault=set_field("tools/call", "result.isError", False),  # the refusal read as a success
    ),
    # -- URL mode
    Cover(
        "elicitation-url-request-fields",
        "server",
        f"{TESTS}::test_url_requests_carry_mode_message_and_url",
        fault=drop_field("elicitation/create", "params.url"),
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-url-request-fields",
        "server",
        f"{TESTS}::test_url_requests_carry_mode_message_and_url",
        fault=asks({"mode": "url", "message": "Open the page"}),
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-url-request-elicitation-id",
        "server",
        f"{TESTS}::test_url_requests_carry_an_elicitation_id",
        fault=drop_field("elicitation/create", "params.elicitationId"),
    ),
    Cover(
        "elicitation-url-valid",
        "server",
        f"{TESTS}::test_the_url_is_a_valid_url",
        fault=set_field("elicitation/create", "params.url", "not a url"),
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-url-valid",
        "server",
        f"{TESTS}::test_the_url_is_a_valid_url",
        fault=asks({"mode": "url", "message": "Open the page", "url": "not a url"}),
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-url-https",
        "server",
        f"{TESTS}::test_the_url_uses_https",
        fault=set_field("elicitation/create", "params.url", "http://mcp-matrix.example/connect"),
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-url-https",
        "server",
        f"{TESTS}::test_the_url_uses_https",
        fault=asks({"mode": "url", "message": "Open the page", "url": "http://mcp-matrix.example/connect"}),
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-url-no-user-sensitive-data",
        "server",
        f"{TESTS}::test_the_url_holds_no_credentials_or_personal_data",
        fault=set_field("elicitation/create", "params.url", SENSITIVE_URL),
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-url-no-user-sensitive-data",
        "server",
        f"{TESTS}::test_the_url_holds_no_credentials_or_personal_data",
        fault=asks({"mode": "url", "message": "Open the page", "url": SENSITIVE_URL}),
        revisions="2026-07-28",
    ),
    # -- completion notifications (2025-11-25)
    Cover(
        "elicitation-complete-notification-may",
        "server",
        f"{TESTS}::test_the_completion_of_a_url_elicitation_may_be_announced",
    ),
    Cover(
        "elicitation-complete-notification-id",
        "server",
        f"{TESTS}::test_the_completion_names_the_elicitation",
        fault=set_field(COMPLETE, "params.elicitationId", "mcp-matrix-unknown"),
    ),
    Cover(
        "elicitation-complete-notification-target",
        "server",
        f"{TESTS}::test_a_completion_goes_only_to_the_client_that_was_asked",
        fault=inject_before(
            COMPLETE, {"jsonrpc": "2.0", "method": COMPLETE, "params": {"elicitationId": "mcp-matrix-other-client"}}
        ),
    ),
    # -- URLElicitationRequiredError (2025-11-25)
    Cover(
        "elicitation-url-required-error-may",
        "server",
        f"{TESTS}::test_a_request_may_be_refused_until_a_url_elicitation_completes",
    ),
    Cover(
        "elicitation-error-url-required-code",
        "server",
        f"{TESTS}::test_a_request_waiting_on_a_url_elicitation_is_refused_with_32042",
        fault=set_field("tools/call", "error.code", -32603),
    ),
    Cover(
        "elicitation-url-required-error-lists-elicitations",
        "server",
        f"{TESTS}::test_the_url_required_error_lists_the_elicitations",
        fault=drop_field("tools/call", "error.data.elicitations"),
    ),
    Cover(
        "elicitation-url-required-error-url-mode-only",
        "server",
        f"{TESTS}::test_the_url_required_error_lists_url_mode_elicitations_only",
        fault=set_field(
            "tools/call",
            "error.data.elicitations",
            [{"mode": "form", "message": "Who are you?", "requestedSchema": NAME_FORM}],
        ),
    ),
    Cover(
        "elicitation-url-required-error-only-when-needed",
        "server",
        f"{TESTS}::test_requests_that_need_no_url_elicitation_are_not_refused_with_32042",
        fault=set_field(
            "tools/call", "error", {"code": -32042, "message": "URL elicitation required", "data": {"elicitations": []}}
        ),
    ),
    # -- 2026-07-28: input_required
    Cover(
        "elicitation-request-via-input-required",
        "server",
        f"{TESTS}::test_elicitation_may_come_as_an_input_required_result",
    ),
    Cover(
        "elicitation-server-handle-failure",
        "server",
        f"{TESTS}::test_declined_cancelled_or_unanswered_elicitations_are_handled",
        fault=set_field("tools/call", "error", {"code": -32603, "message": "Internal error"}, occurrence=2),
    ),
]

# The client side: the client under test answering the scripted server's elicitations. Up to 2025-11-25 its
# answers are responses to elicitation/create, which the faults rewrite on their way to the scripted server; at
# 2026-07-28 they travel in the retried tools/call's inputResponses, and the faults rewrite that call.
CLIENT_META = {  # a 2026-07-28 request's _meta declaring no capability
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "mcp-matrix-fault", "version": "0"},
}
REFUSED = rename_field("elicitation/create", "result", "error")  # each question answered with an error instead
NEVER_ANSWERED = drop_field("tools/call", "params.inputResponses")  # 2026-07-28: the retry carries no answers
BROKEN_CONTENT = {"action": "accept", "content": {"name": 42}}

URL_PAGE = "/elicitation/connect"  # the page server's page the client tests' URL question points at


def fetched_as_it_answers(revision: str, path: str) -> Fault:
    """The client GETs ``path`` of the page server just as it answers the URL question: with its response to
    elicitation/create up to 2025-11-25, with the retried tools/call that carries its inputResponses at 2026-07-28."""
    if revision == "2026-07-28":
        return fetch("tools/call", path, occurrence=2)
    return fetch("elicitation/create", path)


COVERS += [
    Cover(
        "elicitation-capability-declare-initialize",
        "client",
        f"{TESTS}::test_a_client_taking_elicitations_declares_them_when_it_initializes",
        fault=drop_field("initialize", "params.capabilities.elicitation"),
    ),
    Cover(
        "elicitation-capability-declare-per-request",
        "client",
        f"{TESTS}::test_a_client_taking_elicitations_declares_them_on_every_request",
        fault=set_field("tools/call", "params._meta", CLIENT_META),
    ),
    Cover(
        "elicitation-capability-at-least-one-mode",
        "client",
        f"{TESTS}::test_a_client_declaring_elicitation_takes_a_mode_it_declared",
        fault=REFUSED,
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-capability-at-least-one-mode",
        "client",
        f"{TESTS}::test_a_client_declaring_elicitation_takes_a_mode_it_declared",
        fault=NEVER_ANSWERED,
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-missing-mode-is-form",
        "client",
        f"{TESTS}::test_a_question_without_a_mode_is_taken_as_a_form",
        fault=REFUSED,
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-missing-mode-is-form",
        "client",
        f"{TESTS}::test_a_question_without_a_mode_is_taken_as_a_form",
        fault=NEVER_ANSWERED,
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-error-undeclared-mode",
        "client",
        f"{TESTS}::test_a_question_in_an_undeclared_mode_is_refused_with_invalid_params",
        fault=set_field("elicitation/create", "error.code", -32603),
    ),
    Cover(
        "elicitation-client-validate-response",
        "client",
        f"{TESTS}::test_an_answer_that_breaks_the_form_is_not_sent",
        fault=set_field("elicitation/create", "result", BROKEN_CONTENT),
        revisions="2025-06-18..2025-11-25",
    ),
    Cover(
        "elicitation-client-validate-response",
        "client",
        f"{TESTS}::test_an_answer_that_breaks_the_form_is_not_sent",
        fault=set_field("tools/call", "params.inputResponses", {"mcp-matrix-1": BROKEN_CONTENT}),
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-url-id-opaque-elicitationid",
        "client",
        f"{TESTS}::test_the_elicitation_id_is_taken_as_it_is",
        fault=misreport("elicitation-ids"),  # the application given another question's id
    ),
    Cover(
        "elicitation-complete-ignore-unknown",
        "client",
        f"{TESTS}::test_completions_of_unknown_or_completed_elicitations_are_ignored",
        # a client that answers a completion it does not know with an error, before its next request
        fault=inject_before(
            "tools/list", {"jsonrpc": "2.0", "id": None, "error": {"code": -32602, "message": "Unknown elicitation"}}
        ),
    ),
    Cover(
        "elicitation-complete-may-await", "client", f"{TESTS}::test_a_client_may_await_the_completion_before_retrying"
    ),
    # what the client fetches of a URL question's URL, seen by the page server (harness/pages.py)
    Cover(
        "elicitation-url-no-prefetch",
        "client",
        f"{TESTS}::test_nothing_about_the_url_is_fetched_on_the_clients_initiative",
        fault=fetched_as_it_answers("2025-11-25", "/favicon.ico"),  # metadata of the URL's site
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-url-no-prefetch",
        "client",
        f"{TESTS}::test_nothing_about_the_url_is_fetched_on_the_clients_initiative",
        fault=fetched_as_it_answers("2026-07-28", "/favicon.ico"),  # metadata of the URL's site
        revisions="2026-07-28",
    ),
    Cover(
        "elicitation-url-consent-before-open",
        "client",
        f"{TESTS}::test_a_url_the_user_declined_is_never_opened",
        fault=fetched_as_it_answers("2025-11-25", URL_PAGE),
        revisions="2025-11-25",
    ),
    Cover(
        "elicitation-url-consent-before-open",
        "client",
        f"{TESTS}::test_a_url_the_user_declined_is_never_opened",
        fault=fetched_as_it_answers("2026-07-28", URL_PAGE),
        revisions="2026-07-28",
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-090",
        "whether a server needs a secret from the user is its own affair; the wire shows only a secret asked "
        "in form mode, which elicitation-form-no-sensitive-info judges",
        {"elicitation-sensitive-use-url-mode": "server"},
    ),
    *gaps(
        "L-091",
        "how the server ties elicitations and their state to a verified user happens inside it and on the "
        "out-of-band page, with no MCP message to show it",
        {
            "elicitation-state-bound-to-user": "server",
            "elicitation-state-not-session-only": "server",
            "elicitation-state-storage-protected": "server",
            "elicitation-user-id-from-authorization": "server",
            "elicitation-server-bind-identity": "server",
            "elicitation-server-verify-user-identity": "server",
            "elicitation-server-identity-best-practices": "server",
            "elicitation-url-verify-opener": "server",
            "elicitation-url-same-user": "server",
            "elicitation-url-identity-tamper-resistant": "server",
        },
    ),
    *gaps(
        "L-092",
        "third-party authorization through URL mode runs between the user's browser, the server and the third "
        "party, out of the MCP client's sight",
        {
            "elicitation-url-not-for-mcp-authorization": "server",
            "elicitation-third-party-credentials-bypass-client": "server",
            "elicitation-no-token-passthrough": "server",
            "elicitation-user-authorizes-server-directly": "server",
            "elicitation-credentials-not-sent-to-client": "server",
            "elicitation-url-not-preauthenticated": "server",
        },
    ),
    *gaps(
        "L-093",
        "an assumption inside the server; what it leads to on the wire (a decline, cancel or failure left "
        "unhandled) is elicitation-server-handle-failure's cell",
        {"elicitation-server-no-assume-success": "server"},
    ),
    *gaps(
        "L-095",
        "how the host presents an elicitation to its user (the asking server, what and why, decline and cancel "
        "choices, review, defaults, the full URL and its domain, warnings, an isolated browser, manual controls) is "
        "its interface; the wire carries only the answer",
        {
            "elicitation-complete-manual-fallback": "client",
            "elicitation-decline-anytime": "client",
            "elicitation-decline-cancel-options": "client",
            "elicitation-decline-cancel-options-recommended": "client",
            "elicitation-explain-request": "client",
            "elicitation-form-defaults-prefill": "client",
            "elicitation-form-review-before-send": "client",
            "elicitation-identify-server": "client",
            "elicitation-identify-server-recommended": "client",
            "elicitation-no-clickable-urls": "client",
            "elicitation-review-before-send-recommended": "client",
            "elicitation-url-careful-handling": "client",
            "elicitation-url-display-domain": "client",
            "elicitation-url-highlight-domain": "client",
            "elicitation-url-manual-controls": "client",
            "elicitation-url-open-isolated": "client",
            "elicitation-url-show-full": "client",
            "elicitation-url-warn-suspicious": "client",
            "elicitation-user-approval-controls": "client",
        },
    ),
    *gaps(
        "L-097",
        "'respect the user's privacy' names no criterion a frame could fail",
        {
            "elicitation-respect-privacy": "client",
            "elicitation-respect-privacy-recommended": "client",
        },
    ),
    *gaps(
        "L-098",
        "a rate limit with no rate: any number a test demanded would be the suite's",
        {"elicitation-rate-limit": "client"},
    ),
]
