"""Coverage of the http-sse area: the cells its tests hold (every applicable cell is tested).

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.faults import http_header, http_method, http_status, rename_sse_event
from conformance.matrix.covers import Cover, Gap

TESTS = "conformance/test_http_sse.py"
FIRST_POST = ("initialize", "server/discover")  # what a client opens with, whichever era it starts in

COVERS: list[Cover] = [
    Cover(
        "http-sse-sse-endpoint",
        "server",
        f"{TESTS}::test_the_sse_endpoint_opens_a_stream_of_the_servers_messages",
        fault=http_status("GET", 404),
    ),
    Cover(
        "http-sse-post-endpoint",
        "server",
        f"{TESTS}::test_the_post_endpoint_takes_every_client_message",
        fault=http_status("ping", 405),
    ),
    Cover(
        "http-sse-endpoint-event",
        "server",
        f"{TESTS}::test_the_stream_opens_with_an_endpoint_event_naming_the_post_uri",
        fault=rename_sse_event("GET", "endpoint", "message"),
    ),
    Cover(
        "http-sse-origin-validation",
        "server",
        f"{TESTS}::test_a_connection_from_a_foreign_origin_is_refused",
        fault=http_status("GET", 200),
    ),
    # No fault: the addresses a server listens on are in the machine's socket table, not in anything it sends.
    Cover("http-sse-bind-localhost", "server", f"{TESTS}::test_the_server_listens_on_loopback_only"),
    Cover(
        "http-sse-authentication",
        "server",
        f"{TESTS}::test_every_connection_must_authenticate",
        fault=http_status("GET", 200),  # the stream opened without a credential (or with a wrong one)
    ),
    Cover(
        "http-sse-client-post-to-endpoint",
        "client",
        f"{TESTS}::test_the_client_posts_every_message_to_the_endpoint",
        fault=http_method("initialize", "PUT"),
    ),
    Cover(
        "http-sse-migrate",
        "server",
        f"{TESTS}::test_a_modern_server_speaks_streamable_http",
        fault=http_status("server/discover", 405),  # a POSTed request refused, as an HTTP+SSE-only endpoint does
    ),
    Cover(
        "http-sse-no-new-adoption",
        "server",
        f"{TESTS}::test_a_modern_servers_endpoint_is_not_an_http_sse_endpoint",
        fault=http_status("server/discover", 405),
    ),
    Cover(
        "http-sse-migrate",
        "client",
        f"{TESTS}::test_a_modern_client_speaks_streamable_http",
        fault=http_header(FIRST_POST, "accept", "application/json"),  # its POST takes no event stream
    ),
    Cover(
        "http-sse-no-new-adoption",
        "client",
        f"{TESTS}::test_a_modern_client_does_not_open_with_http_sse",
        fault=http_method(FIRST_POST, "GET"),  # it opens with a GET, as an HTTP+SSE client does
    ),
]

GAPS: list[Gap] = []
