"""Coverage of the stdio area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps
from conformance.harness.faults import inject_raw_before, pretty_print, strip_newline

TESTS = "conformance/test_stdio.py"

COVERS: list[Cover] = [
    Cover(
        "stdio-newline-delimited",
        "server",
        f"{TESTS}::test_every_message_on_stdout_ends_with_a_newline",
        fault=strip_newline("ping"),
        revisions="2024-11-05..2025-11-25",
    ),
    Cover(
        "stdio-newline-delimited",
        "server",
        f"{TESTS}::test_every_message_on_stdout_ends_with_a_newline",
        fault=strip_newline("server/discover"),
        revisions="2026-07-28",
    ),
    Cover(
        "stdio-no-embedded-newlines",
        "server",
        f"{TESTS}::test_no_message_spans_several_lines",
        fault=pretty_print("ping"),
        revisions="2024-11-05..2025-11-25",
    ),
    Cover(
        "stdio-no-embedded-newlines",
        "server",
        f"{TESTS}::test_no_message_spans_several_lines",
        fault=pretty_print("server/discover"),
        revisions="2026-07-28",
    ),
    Cover(
        "stdio-server-stdout-only-mcp",
        "server",
        f"{TESTS}::test_stdout_carries_only_mcp_messages",
        fault=inject_raw_before("tools/list", "server ready"),
    ),
    Cover("stdio-server-exit-on-stdin-eof", "server", f"{TESTS}::test_the_server_exits_when_its_stdin_closes"),
]

GAPS: list[Gap] = [
    *gaps(
        "#4",
        "base protocol: tested with the harness (issue #4)",
        {
            "stdio-newline-delimited": "client",
            "stdio-no-embedded-newlines": "client",
            "stdio-server-stderr-logging": "server",
            "stdio-client-stderr-handling": "client",
            "stdio-client-stderr-not-error": "client",
            "stdio-client-stdin-only-mcp": "client",
            "stdio-client-no-responses": "client",
            "stdio-client-correlate-subscription-notifications": "client",
            "stdio-server-no-requests": "server",
            "stdio-client-cancel-notification": "client",
            "stdio-server-stop-cancelled-work": "server",
            "stdio-server-silent-after-cancel": "server",
            "stdio-client-shutdown-close-stdin": "client",
            "stdio-client-shutdown-force-kill": "client",
            "stdio-server-may-initiate-shutdown": "server",
            "stdio-client-restart-crashed-server": "client",
            "stdio-backcompat-probe-discover": "client",
            "stdio-backcompat-fallback-not-single-code": "client",
            "stdio-backcompat-modern-only-probe": "client",
        },
    ),
]
