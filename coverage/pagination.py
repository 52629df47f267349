"""Coverage of the pagination area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import answer_twice, drop_field, inject_before, misreport, set_field
from conformance.matrix.covers import Cover, Gap

TESTS = "conformance/test_pagination.py"
HEADER_MISMATCH = "2026-07-28"  # where a rejected call (HeaderMismatch) has a client list the tools again
# Faults on the client's frames: a cursor it altered, cursors it dropped (so it starts over, page after
# page), a page asked for past the end, the first connection's cursor on the second, and an application
# told one listing for the other.
ALTERED_CURSOR = "mcp-matrix-altered-cursor"
FIRST_CONNECTIONS_CURSOR = "1/eyJvZmZzZXQiOiAzfQ=="  # test_pagination.CURSORS[0] on connection 1
PAST_THE_END = {
    "jsonrpc": "2.0",
    "id": "mcp-matrix-past-the-end",
    "method": "tools/list",
    "params": {"cursor": "1" + "-opaque" * 64},  # the cursor of the last page, again
}
COVERS: list[Cover] = [
    Cover(
        "pagination-server-stable-cursors",
        "server",
        f"{TESTS}::test_a_cursor_gives_the_same_page_each_time",
        # the fixture's templates come one a page: answers 1-3 walk the pages, 4 and 5 ask the first cursor
        # twice, and the second of those comes back emptied
        fault=set_field("resources/templates/list", "result.resourceTemplates", [], occurrence=5),
    ),
    Cover(
        "pagination-server-invalid-cursor-graceful",
        "server",
        f"{TESTS}::test_an_invalid_cursor_is_answered_and_the_server_carries_on",
        fault=set_field("tools/list", "result.tools", "not a list"),
    ),
    # the client side
    Cover(
        "pagination-cursor-not-parsed-or-modified",
        "client",
        f"{TESTS}::test_the_client_hands_each_cursor_back_as_it_came",
        fault=set_field("tools/list", "params.cursor", ALTERED_CURSOR),
    ),
    Cover(
        "pagination-cursor-no-format-assumptions",
        "client",
        f"{TESTS}::test_the_client_follows_cursors_of_any_form",
        fault=drop_field("tools/list", "params.cursor"),
    ),
    Cover(
        "pagination-client-no-fixed-page-size",
        "client",
        f"{TESTS}::test_the_client_goes_on_after_a_shorter_page",
        fault=drop_field("tools/list", "params.cursor"),
    ),
    Cover(
        "pagination-client-no-fixed-page-size",
        "client",
        f"{TESTS}::test_the_client_goes_on_after_a_shorter_page",
        fault=misreport("listed"),
    ),
    Cover(
        "pagination-client-no-fixed-page-size",
        "client",
        f"{TESTS}::test_the_clients_own_listing_goes_on_after_a_shorter_page",
        revisions=HEADER_MISMATCH,
        fault=set_field("tools/list", "params.cursor", FIRST_CONNECTIONS_CURSOR),  # the short page, again and again
    ),
    Cover(
        "pagination-client-missing-cursor-ends",
        "client",
        f"{TESTS}::test_the_clients_own_listing_ends_at_a_page_without_a_cursor",
        revisions=HEADER_MISMATCH,
        fault=answer_twice("tools/list"),  # the last page asked for again, once it came without a cursor
    ),
    Cover(
        "pagination-client-missing-cursor-ends",
        "client",
        f"{TESTS}::test_a_page_without_a_cursor_ends_the_listing",
        fault=inject_before("prompts/list", PAST_THE_END),
    ),
    Cover(
        "pagination-client-supports-both-flows",
        "client",
        f"{TESTS}::test_the_client_takes_paginated_and_unpaginated_listings",
        fault=misreport("listed"),
    ),
    Cover(
        "pagination-cursor-not-persisted",
        "client",
        f"{TESTS}::test_no_cursor_of_an_earlier_session_is_used",
        fault=set_field("tools/list", "params.cursor", FIRST_CONNECTIONS_CURSOR),
    ),
    Cover(
        "pagination-cursor-presence-only",
        "client",
        f"{TESTS}::test_an_empty_cursor_does_not_end_the_listing",
        fault=drop_field("tools/list", "params.cursor"),
    ),
    Cover(
        "pagination-cursor-presence-only",
        "client",
        f"{TESTS}::test_an_empty_cursor_does_not_end_the_clients_own_listing",
        fault=drop_field("tools/list", "params.cursor"),
    ),
]

GAPS: list[Gap] = [
    Gap(
        "pagination-invalid-cursor-error",
        "server",
        "F-023",
        "a cursor the server never issued is ignored: the list request is answered with the whole list",
    ),
]
