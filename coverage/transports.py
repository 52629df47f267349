"""Coverage of the transports area: every applicable cell is tested.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.harness.faults import drop_field, encode_as, set_field, silence
from conformance.matrix.covers import Cover, Gap

TESTS = "conformance/test_transports.py"

COVERS: list[Cover] = [
    Cover(
        "transports-jsonrpc-utf8",
        "server",
        f"{TESTS}::test_the_servers_messages_are_utf8",
        fault=encode_as("prompts/get", "latin-1"),
    ),
    Cover(
        "transports-jsonrpc-utf8",
        "client",
        f"{TESTS}::test_the_clients_messages_are_utf8",
        fault=set_field("tools/call", "params.arguments.text", "caf\ufffd"),
    ),
    Cover(
        "transports-binding-delivers-client-messages",
        "server",
        f"{TESTS}::test_the_clients_requests_and_notifications_reach_the_server",
        fault=silence("tools/list"),
    ),
    Cover(
        "transports-binding-delivers-client-messages",
        "client",
        f"{TESTS}::test_the_clients_binding_delivers_its_requests_and_notifications",
        fault=silence("tools/call"),
    ),
    Cover(
        "transports-binding-delivers-server-messages",
        "server",
        f"{TESTS}::test_the_servers_responses_and_notifications_reach_the_client",
        fault=silence("tools/call"),
    ),
    Cover(
        "transports-binding-delivers-server-messages",
        "client",
        f"{TESTS}::test_the_servers_notifications_and_response_reach_the_application",
        fault=drop_field("tools/call", "params._meta.progressToken"),
    ),
    Cover(
        "transports-client-supports-stdio",
        "client",
        f"{TESTS}::test_the_client_speaks_stdio",
        fault=silence("tools/list"),  # over stdio the client never gets as far as listing the tools
    ),
]

# The rows about custom transports, and transports-binding-mirror-metadata, bind the design of a
# transport binding: n/a on both sides (overrides/applicability-transports.yaml).
GAPS: list[Gap] = []
