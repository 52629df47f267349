"""Coverage of the caching area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import (
    Fault,
    answer_twice,
    drop_field,
    inject_before,
    inject_frames_before,
    misreport,
    set_field,
    silence,
)
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_caching.py"

COVERS: list[Cover] = [
    Cover(
        "caching-hints-required",
        "server",
        f"{TESTS}::test_every_cacheable_result_carries_ttl_and_scope",
        fault=drop_field("tools/list", "result.ttlMs"),
    ),
    Cover(
        "caching-ttl-non-negative",
        "server",
        f"{TESTS}::test_no_ttl_is_negative",
        fault=set_field("resources/list", "result.ttlMs", -1),
    ),
    Cover(
        "caching-uniform-scope-across-pages",
        "server",
        f"{TESTS}::test_every_page_of_a_list_has_the_same_scope",
        # the second page of the (paged) resource template list made public, the first left private
        fault=set_field("resources/templates/list", "result.cacheScope", "public", occurrence=2),
    ),
    Cover(
        "caching-per-page-ttl",
        "server",
        f"{TESTS}::test_pages_of_a_list_may_carry_their_own_ttl",
        fault=set_field("resources/templates/list", "result.ttlMs", 0),
    ),
    Cover(
        "caching-ttl-with-or-without-list-changed",
        "server",
        f"{TESTS}::test_lists_may_carry_a_ttl_with_or_without_list_changed",
        fault=drop_field(("tools/list", "prompts/list", "resources/list", "resources/templates/list"), "result.ttlMs"),
    ),
    Cover(
        "caching-data-may-change-within-ttl",
        "server",
        f"{TESTS}::test_data_may_change_before_its_ttl_runs_out",
    ),
]

# The client's side (2026-07-28, over Streamable HTTP): the scripted server's hints, what reached it again,
# and what the driver's application got.
TOOLS_LIST_AGAIN = {"jsonrpc": "2.0", "id": "mcp-matrix-refetch", "method": "tools/list", "params": {}}
PAGE_TWO_AT_ONCE = {
    "jsonrpc": "2.0",
    "id": "mcp-matrix-page-2",
    "method": "tools/list",
    "params": {"cursor": "mcp-matrix-page-2"},
}
REFETCHED = answer_twice("tools/list")  # every tools/list sent twice: the second a re-fetch of a fresh list
NOT_REFETCHED = silence("tools/list")  # no tools/list reaches the server: nothing fetched again
COVERS += [
    Cover(
        "caching-ttl-positive-fresh", "client", f"{TESTS}::test_a_result_is_fresh_for_its_ttl_only", fault=NOT_REFETCHED
    ),
    Cover("caching-ttl-fresh-window", "client", f"{TESTS}::test_a_client_may_reuse_a_fresh_result"),
    Cover("caching-private-same-context", "client", f"{TESTS}::test_a_private_result_may_be_reused_in_its_context"),
    Cover("caching-ttl-zero-stale", "client", f"{TESTS}::test_a_zero_ttl_result_is_stale_at_once", fault=NOT_REFETCHED),
    Cover("caching-ttl-zero-refetch-each-use", "client", f"{TESTS}::test_a_zero_ttl_result_may_be_fetched_at_each_use"),
    Cover(
        "caching-ttl-absent-zero", "client", f"{TESTS}::test_a_result_without_ttl_is_stale_at_once", fault=NOT_REFETCHED
    ),
    Cover("caching-ttl-negative-zero", "client", f"{TESTS}::test_a_negative_ttl_counts_as_zero", fault=NOT_REFETCHED),
    Cover(
        "caching-refetch-when-stale", "client", f"{TESTS}::test_a_stale_result_is_fetched_again", fault=NOT_REFETCHED
    ),
    Cover("caching-stale-on-error", "client", f"{TESTS}::test_a_stale_result_may_stand_in_when_refetching_fails"),
    Cover(
        "caching-key-match",
        "client",
        f"{TESTS}::test_a_cached_result_answers_only_its_own_request",
        fault=misreport("read"),  # each resource's reads given to the other: b served from a's result
    ),
    Cover(
        "caching-no-cache-mrtr-retries",
        "client",
        f"{TESTS}::test_a_result_reached_through_a_retry_is_not_cached",
        # the application's second read (the third resources/read) swallowed: as if served from a cache
        fault=Fault("silence", "resources/read", occurrence=3),
    ),
    Cover("caching-ttl-not-poll-interval", "client", f"{TESTS}::test_a_ttl_is_no_polling_interval", fault=REFETCHED),
    Cover(
        "caching-poll-jitter-backoff",
        "client",
        f"{TESTS}::test_a_client_that_polls_adds_jitter_and_backoff",
        # three more tools/list sent at once with the application's: re-fetches at no interval, none growing
        fault=inject_frames_before("tools/list", [TOOLS_LIST_AGAIN, TOOLS_LIST_AGAIN, TOOLS_LIST_AGAIN]),
    ),
    Cover("caching-early-refetch", "client", f"{TESTS}::test_a_client_may_refetch_early_after_an_unexpected_error"),
    Cover(
        "caching-refetch-expired-page",
        "client",
        f"{TESTS}::test_an_expired_page_is_fetched_again_with_its_cursor",
        fault=set_field("tools/list", "params.cursor", "mcp-matrix-forged"),  # never the page's own cursor
    ),
    Cover(
        "caching-snapshot-from-start",
        "client",
        f"{TESTS}::test_the_whole_list_is_gathered_again_from_its_first_page",
        fault=inject_before("tools/list", PAGE_TWO_AT_ONCE),  # each listing preceded by a request for page two
    ),
    Cover(
        "caching-invalid-cursor-discard",
        "client",
        f"{TESTS}::test_an_invalid_cursor_discards_the_cached_pages",
        fault=set_field("tools/list", "params.cursor", "mcp-matrix-page-2"),  # never from the first page again
    ),
    Cover(
        "caching-private-not-shared",
        "client",
        f"{TESTS}::test_a_private_result_stays_in_its_authorization_context",
        fault=misreport("listed"),  # each user given the other's private list
    ),
    Cover("caching-public-shared", "client", f"{TESTS}::test_a_public_result_may_be_shared_across_contexts"),
]

GAPS: list[Gap] = [
    *gaps(
        "L-065",
        "needs knowledge of who may see what: the server's access policy, which results are caller-specific",
        {
            "caching-public-scope-awareness": "server",
            "caching-access-control": "server",
            "caching-scope-not-access-control": "server",
        },
    ),
]
