"""HTTP+SSE, the transport of 2024-11-05: its two endpoints, the ``endpoint`` event, its security rules
(docs/spec/requirements.md, http-sse); and, at 2026-07-28, that it is deprecated.

Server cells open an HTTP+SSE session on the server under test (``conformance/harness/http_sse.py``;
the fixture server runs the SDK's ``SseServerTransport`` once per worker); client cells run the client
under test against the scripted HTTP+SSE server (``conformance/harness/scripted_sse.py``), which
records what the client sent and where.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.harness.http import HttpPeer
from conformance.harness.http_sse import HttpSsePeer
from conformance.harness.scripted_server import ScriptedServer
from conformance.harness.scripted_sse import ScriptedSseServer
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, ConfiguredServer

SSE = ("http+sse",)
FOREIGN_ORIGIN = "http://attacker.example"
EVENT_STREAM = "text/event-stream"
LISTEN = "0A"  # the state of a listening socket in /proc/net/tcp
MODERN = "2026-07-28"

RunClient = Callable[[str], ClientRun]


def opened(peer: HttpSsePeer) -> HttpSsePeer:
    """The session made usable (the handshake, over a stream the first POST opens) and a ping answered."""
    peer.open()
    response = peer.rpc("ping", check=False)
    assert "result" in response, f"ping over HTTP+SSE was answered {response}"
    return peer


# -- the server's two endpoints ---------------------------------------------------------------------


@for_req("http-sse-sse-endpoint", "server", transports=SSE)
def test_the_sse_endpoint_opens_a_stream_of_the_servers_messages(
    revision: str, transport: str, peer: HttpSsePeer
) -> None:
    stream = peer.connect()
    assert stream.status == 200, f"GET on the SSE endpoint was answered {stream.status}"
    content_type = stream.headers.get("content-type", "")
    assert content_type.startswith(EVENT_STREAM), f"GET on the SSE endpoint was answered with {content_type!r}"
    opened(peer)  # the answers to its requests reached the session: the stream is the only way they come


@for_req("http-sse-post-endpoint", "server", transports=SSE)
def test_the_post_endpoint_takes_every_client_message(revision: str, transport: str, peer: HttpSsePeer) -> None:
    opened(peer)
    posts = peer.posts()
    assert len(posts) >= 3, f"only {len(posts)} POSTs for initialize, initialized and ping"
    refused = [e.status for e in posts if not 200 <= e.status < 300]
    assert not refused, f"the POST endpoint answered {refused} to the client's messages"


@for_req("http-sse-endpoint-event", "server", transports=SSE)
def test_the_stream_opens_with_an_endpoint_event_naming_the_post_uri(
    revision: str, transport: str, peer: HttpSsePeer
) -> None:
    first = peer.first_event()
    assert first.get("event") == "endpoint", f"the SSE stream opened with {first}, not an endpoint event"
    uri = urllib.parse.urljoin(peer.url, first["data"].strip())
    parts = urllib.parse.urlsplit(uri)
    assert parts.scheme in ("http", "https") and parts.path, f"the endpoint event names {first['data']!r}"
    opened(peer)  # the messages POSTed there are taken and answered
    assert peer.endpoint == uri


# -- security -----------------------------------------------------------------------------------------


@for_req("http-sse-origin-validation", "server", transports=SSE)
def test_a_connection_from_a_foreign_origin_is_refused(revision: str, transport: str, peer: HttpSsePeer) -> None:
    foreign = {"Origin": FOREIGN_ORIGIN}
    stream = peer.exchange("GET", headers=peer.stream_headers() | foreign)
    assert 400 <= stream.status < 500, f"a GET from {FOREIGN_ORIGIN} on the SSE endpoint was answered {stream.status}"
    endpoint = opened(peer).endpoint
    ping = peer.envelope("ping", "foreign-ping")
    post = peer.exchange("POST", endpoint, peer.post_headers() | foreign, frame=ping)
    assert 400 <= post.status < 500, f"a POST from {FOREIGN_ORIGIN} to the message endpoint was answered {post.status}"


def listening_addresses(port: int) -> list[str]:
    """The local addresses of the sockets listening on ``port`` (``/proc/net/tcp``, ``tcp6``)."""
    found = []
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        if not table.is_file():
            continue
        for row in table.read_text(encoding="ascii").splitlines()[1:]:
            fields = row.split()
            address, port_hex = fields[1].split(":")
            if fields[3] == LISTEN and int(port_hex, 16) == port:
                raw = bytes.fromhex(address)
                # the kernel writes each 32-bit word in host (little-endian) order
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
                found.append(str(ipaddress.ip_address(words)))
    return found


def is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return (mapped or ip).is_loopback


@for_req("http-sse-bind-localhost", "server", transports=SSE)
def test_the_server_listens_on_loopback_only(revision: str, transport: str, peer: HttpSsePeer) -> None:
    port = urllib.parse.urlsplit(peer.url).port or 80
    addresses = listening_addresses(port)
    if not addresses:
        pytest.skip(f"fixture-missing: no listening socket for port {port} in this machine's socket table")
    exposed = [a for a in addresses if not is_loopback(a)]
    assert not exposed, f"the server listens on {exposed} (port {port}), not on loopback only"


@for_req("http-sse-authentication", "server", transports=SSE)
def test_every_connection_must_authenticate(
    revision: str, transport: str, peer: HttpSsePeer, configured_server: ConfiguredServer
) -> None:
    """Against the server configured with a credential (its profile's ``bearer-token``), as a deployment
    would be: the session with the credential works; the same connections without it, or with a wrong
    one, are refused, on both endpoints."""
    configured = configured_server("bearer-token", transport="sse")
    token = configured.values["token"]
    peer.url = configured.url
    peer.headers = {"Authorization": f"Bearer {token}"}
    endpoint = opened(peer).endpoint
    refused = {}
    for name, credential in (("no credential", {}), ("a wrong credential", {"Authorization": "Bearer not-it"})):
        stream = peer.exchange("GET", headers={"Accept": EVENT_STREAM} | credential)
        post = peer.exchange(
            "POST", endpoint, {"Content-Type": "application/json"} | credential, frame=peer.envelope("ping", name)
        )
        refused[name] = (stream.status, post.status)
    accepted = {name: statuses for name, statuses in refused.items() if not all(s in (401, 403) for s in statuses)}
    assert not accepted, f"connections were let in (GET, POST statuses): {accepted}"


# -- the client: where it sends its messages ---------------------------------------------------------


@for_req("http-sse-client-post-to-endpoint", "client", transports=SSE)
def test_the_client_posts_every_message_to_the_endpoint(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedSseServer
) -> None:
    run_peer_client("tools_call").judge(lambda: check_posted_to_the_endpoint(scripted_peer))


def check_posted_to_the_endpoint(server: ScriptedSseServer) -> None:
    if server.received:
        first = server.received[0]
        assert first.method == "GET", f"the client's first request was {first.method} {first.path}, not the SSE GET"
    carrying = [r for r in server.received if r.frames]
    astray = [(r.method, r.path) for r in carrying if r.method != "POST" or r.path != server.endpoint]
    assert not astray, f"messages went elsewhere than POST {server.endpoint}: {astray}"


# -- 2026-07-28: the transport is deprecated ----------------------------------------------------------


def assert_speaks_streamable_http(server: HttpPeer) -> None:
    """The server's HTTP endpoint answers a POSTed request (Streamable HTTP) with its response."""
    exchange = server.exchange("POST", server.envelope(server.probe_method, "probe"))
    assert exchange.status == 200, f"a POSTed {server.probe_method} was answered {exchange.status}"
    answers = [f for f in server.frames_of(exchange) if f.get("id") == "probe"]
    assert answers and "result" in answers[0], f"the POST carried no result for its request: {answers}"


@for_req("http-sse-migrate", "server")
def test_a_modern_server_speaks_streamable_http(revision: str, http_server: HttpPeer) -> None:
    assert_speaks_streamable_http(http_server)


@for_req("http-sse-no-new-adoption", "server")
def test_a_modern_servers_endpoint_is_not_an_http_sse_endpoint(revision: str, http_server: HttpPeer) -> None:
    """A GET on the endpoint, as a client falling back to HTTP+SSE would send it, opens no HTTP+SSE
    session (a stream whose first event is ``endpoint``); POSTed requests are served there instead."""
    headers = http_server.headers_for(None) | {"Accept": EVENT_STREAM}
    headers.pop("Content-Type", None)
    stream = http_server.exchange("GET", headers=headers)  # an event stream is read to its end (bounded)
    first = stream.events[0].get("event") if stream.events else None
    assert first != "endpoint", f"a GET on the endpoint opened an HTTP+SSE session: {stream.events[0]}"
    assert_speaks_streamable_http(http_server)


@for_req("http-sse-migrate", "client")
def test_a_modern_client_speaks_streamable_http(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    run_client("initialize").require_completed()
    posts = [r for r in scripted_server.received if r.method == "POST" and r.frames]
    assert posts, "the client POSTed no message to the server's URL"
    accepts = posts[0].headers.get("accept", "")
    assert "application/json" in accepts and EVENT_STREAM in accepts, f"its POST accepts {accepts!r}"


@for_req("http-sse-no-new-adoption", "client")
def test_a_modern_client_does_not_open_with_http_sse(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    run_client("initialize").judge(lambda: check_opens_with_streamable_http(scripted_server))


def check_opens_with_streamable_http(server: ScriptedServer) -> None:
    first = server.received[0] if server.received else None
    if first is not None:
        assert first.method == "POST" and first.frames, f"the client opened with {first.method}, as HTTP+SSE clients do"
    streams = [r for r in server.received if r.method == "GET"]
    assert not streams, "a client of a server that speaks Streamable HTTP still asked for an HTTP+SSE stream"
