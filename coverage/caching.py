"""Coverage of the caching area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import drop_field, set_field
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
    *gaps(
        "#12",
        "catalogued, not yet tested",
        {
            "caching-key-match": "client",
            "caching-no-cache-mrtr-retries": "client",
            "caching-ttl-fresh-window": "client",
            "caching-ttl-zero-stale": "client",
            "caching-ttl-zero-refetch-each-use": "client",
            "caching-ttl-positive-fresh": "client",
            "caching-ttl-absent-zero": "client",
            "caching-ttl-negative-zero": "client",
            "caching-refetch-when-stale": "client",
            "caching-ttl-not-poll-interval": "client",
            "caching-poll-jitter-backoff": "client",
            "caching-early-refetch": "client",
            "caching-stale-on-error": "client",
            "caching-public-shared": "client",
            "caching-private-same-context": "client",
            "caching-private-not-shared": "client",
            "caching-refetch-expired-page": "client",
            "caching-snapshot-from-start": "client",
            "caching-invalid-cursor-discard": "client",
        },
    ),
]
