"""Coverage of the ping area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.faults import delay, inject_frames_before, set_field
from conformance.matrix.covers import Cover, Gap

TESTS = "conformance/test_ping.py"
# A burst of pings, five at once (the idle tests allow one a second).
PING_BURST = [{"jsonrpc": "2.0", "id": f"mcp-matrix-burst-{n}", "method": "ping"} for n in range(5)]
# The server's cancellation of its ping with the tight timeout reads as sent well after that timeout
# (0.15 s + 1.5 s of allowance for a loaded machine): a ping timeout that is not the one set.
LATE_GIVE_UP = delay("notifications/cancelled", 2.0)

COVERS: list[Cover] = [
    Cover(
        "ping-respond-promptly-empty",
        "server",
        f"{TESTS}::test_a_ping_is_answered_promptly_with_an_empty_result",
        fault=set_field("ping", "result.unexpected", True),
    ),
    Cover(
        "ping-respond-promptly-empty",
        "client",
        f"{TESTS}::test_the_client_answers_a_ping_promptly_with_an_empty_result",
        fault=set_field("ping", "result.unexpected", True),
    ),
    Cover(
        "ping-avoid-excessive",
        "client",
        f"{TESTS}::test_the_client_does_not_ping_excessively",
        fault=inject_frames_before("tools/list", PING_BURST),  # five pings before it lists the tools
    ),
    Cover(
        "ping-avoid-excessive",
        "server",
        f"{TESTS}::test_the_server_does_not_ping_excessively",
        fault=inject_frames_before("initialize", PING_BURST),  # five pings before its initialize result
    ),
    Cover(
        "ping-timeout-suits-network",
        "client",
        f"{TESTS}::test_the_clients_ping_timeout_is_the_one_set_for_the_network",
        # No fault: over Streamable HTTP the client also gives a ping up by closing its POST stream, a
        # moment no fault can move; delaying its notifications/cancelled falsifies the stdio cells only.
    ),
    Cover(
        "ping-timeout-suits-network",
        "server",
        f"{TESTS}::test_the_servers_ping_timeout_is_the_one_set_for_the_network",
        fault=LATE_GIVE_UP,
    ),
    Cover("ping-no-response-sender-options", "client", f"{TESTS}::test_the_client_handles_an_unanswered_ping"),
    Cover("ping-no-response-sender-options", "server", f"{TESTS}::test_the_server_handles_an_unanswered_ping"),
    Cover("ping-reset-after-failures", "client", f"{TESTS}::test_the_client_handles_several_failed_pings"),
    Cover("ping-reset-after-failures", "server", f"{TESTS}::test_the_server_handles_several_failed_pings"),
]

GAPS: list[Gap] = [
    Gap("ping-periodic", "server", "F-041", "the SDK's server never pings on its own and has no setting for it"),
    Gap("ping-periodic", "client", "F-041", "the SDK's client never pings on its own and has no setting for it"),
    Gap("ping-frequency-configurable", "server", "F-041", "the SDK's server has no ping interval to set"),
    Gap("ping-frequency-configurable", "client", "F-041", "the SDK's client has no ping interval to set"),
    Gap(
        "ping-timeout-is-failure",
        "server",
        "F-042",
        "after its ping timed out the server goes on serving the session as if it were sound",
    ),
    Gap(
        "ping-timeout-is-failure",
        "client",
        "F-042",
        "after its ping timed out the client goes on sending requests on the same connection",
    ),
    Gap("ping-log-failures", "server", "F-043", "a ping of the server that times out leaves no log line on stderr"),
    Gap("ping-log-failures", "client", "F-043", "a ping of the client that times out leaves no log line"),
]
