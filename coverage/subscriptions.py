"""Coverage of the subscriptions area: the server cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.faults import drop_field, inject_before, misreport, set_field, silence
from conformance.matrix.covers import Cover, Gap

TESTS = "conformance/test_subscriptions.py"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
# A prompt-list change on the stream that asked only for tool-list changes, just before its tool-list change.
UNASKED_ON_THE_STREAM = {
    "jsonrpc": "2.0",
    "method": "notifications/prompts/list_changed",
    "params": {"_meta": {SUBSCRIPTION_ID: "listen-filter"}},
}

# A tool-list change on the stream, sent just before the stream's acknowledgement.
CHANGE_BEFORE_THE_ACK = {
    "jsonrpc": "2.0",
    "method": "notifications/tools/list_changed",
    "params": {"_meta": {SUBSCRIPTION_ID: "listen-order"}},
}

COVERS: list[Cover] = [
    Cover(
        "subscriptions-acknowledge",
        "server",
        f"{TESTS}::test_a_listen_stream_is_acknowledged_first",
        fault=drop_field("notifications/subscriptions/acknowledged", "params._meta"),
    ),
    Cover(
        "subscriptions-nothing-before-ack",
        "server",
        f"{TESTS}::test_nothing_comes_on_a_stream_before_its_acknowledgement",
        fault=inject_before("notifications/subscriptions/acknowledged", CHANGE_BEFORE_THE_ACK),
    ),
    Cover(
        "subscriptions-only-requested-types",
        "server",
        f"{TESTS}::test_a_stream_carries_only_the_types_it_asked_for",
        fault=inject_before("notifications/tools/list_changed", UNASKED_ON_THE_STREAM),
    ),
    Cover(
        "subscriptions-stdio-interleave",
        "server",
        f"{TESTS}::test_other_subscriptions_may_come_before_an_acknowledgement",
    ),
    Cover(
        "subscriptions-graceful-close",
        "server",
        f"{TESTS}::test_a_stream_the_server_ends_gets_its_response",
        fault=silence("subscriptions/listen"),  # the stream's response never comes
    ),
]

# The client's side (2026-07-28, over stdio): what it sends the scripted server, and tells its application.
COVERS += [
    Cover(
        "subscriptions-concurrent",
        "client",
        f"{TESTS}::test_the_client_may_hold_several_subscriptions_at_once",
    ),
    Cover(
        "subscriptions-check-ack-filter",
        "client",
        f"{TESTS}::test_a_filter_honoured_in_part_is_handled_gracefully",
        fault=misreport("honoured"),  # the application told the prompt-list part is honoured, not the tool-list part
    ),
    Cover(
        "subscriptions-reconnect-on-abrupt-close",
        "client",
        f"{TESTS}::test_the_client_may_reconnect_when_a_subscription_is_cut_off",
    ),
    Cover(
        "subscriptions-stdio-resubscribe",
        "client",
        f"{TESTS}::test_a_re_established_stdio_connection_gets_the_subscription_anew",
        # every listen asks for prompt-list changes instead: the one on the new connection is not the one held
        fault=set_field("subscriptions/listen", "params.notifications", {"promptsListChanged": True}),
    ),
]

GAPS: list[Gap] = []
