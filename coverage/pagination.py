"""Coverage of the pagination area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

from conformance.harness.faults import set_field
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_pagination.py"

COVERS: list[Cover] = [
    Cover(
        "pagination-server-stable-cursors",
        "server",
        f"{TESTS}::test_a_cursor_gives_the_same_page_each_time",
    ),
    Cover(
        "pagination-server-invalid-cursor-graceful",
        "server",
        f"{TESTS}::test_an_invalid_cursor_is_answered_and_the_server_carries_on",
        fault=set_field("tools/list", "result.tools", "not a list"),
    ),
]

GAPS: list[Gap] = [
    Gap(
        "pagination-invalid-cursor-error",
        "server",
        "F-023",
        "a cursor the server never issued is ignored: the list request is answered with the whole list",
    ),
    *gaps(
        "#3",
        "catalogued, not yet tested",
        {
            "pagination-client-no-fixed-page-size": "client",
            "pagination-client-missing-cursor-ends": "client",
            "pagination-client-supports-both-flows": "client",
            "pagination-cursor-no-format-assumptions": "client",
            "pagination-cursor-not-parsed-or-modified": "client",
            "pagination-cursor-not-persisted": "client",
            "pagination-cursor-presence-only": "client",
        },
    ),
]
