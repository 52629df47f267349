"""Coverage of the caching area: no test yet; every applicable cell is gapped, by name.

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
            "caching-hints-required": "server",
            "caching-key-match": "client",
            "caching-no-cache-mrtr-retries": "client",
            "caching-ttl-fresh-window": "client",
            "caching-ttl-zero-stale": "client",
            "caching-ttl-zero-refetch-each-use": "client",
            "caching-ttl-positive-fresh": "client",
            "caching-ttl-absent-zero": "client",
            "caching-ttl-negative-zero": "client",
            "caching-ttl-non-negative": "server",
            "caching-data-may-change-within-ttl": "server",
            "caching-refetch-when-stale": "client",
            "caching-ttl-not-poll-interval": "client",
            "caching-poll-jitter-backoff": "client",
            "caching-early-refetch": "client",
            "caching-stale-on-error": "client",
            "caching-public-shared": "client",
            "caching-private-same-context": "client",
            "caching-private-not-shared": "client",
            "caching-ttl-with-or-without-list-changed": "server",
            "caching-per-page-ttl": "server",
            "caching-refetch-expired-page": "client",
            "caching-snapshot-from-start": "client",
            "caching-invalid-cursor-discard": "client",
            "caching-uniform-scope-across-pages": "server",
            "caching-public-scope-awareness": "server",
            "caching-access-control": "server",
            "caching-scope-not-access-control": "server",
        },
    ),
]
