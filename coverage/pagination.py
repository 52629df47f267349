"""Coverage of the pagination area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "#3",
        "catalogued, not yet tested",
        {
            "pagination-client-no-fixed-page-size": "client",
            "pagination-server-stable-cursors": "server",
            "pagination-server-invalid-cursor-graceful": "server",
            "pagination-client-missing-cursor-ends": "client",
            "pagination-client-supports-both-flows": "client",
            "pagination-cursor-no-format-assumptions": "client",
            "pagination-cursor-not-parsed-or-modified": "client",
            "pagination-cursor-not-persisted": "client",
            "pagination-cursor-presence-only": "client",
            "pagination-invalid-cursor-error": "server",
        },
    ),
]
