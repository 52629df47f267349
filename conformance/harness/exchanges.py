"""Whole conversations for the base-protocol tests (messages, errors, _meta, versioning).

Server side: ``converse`` sends a list of requests one after the other, answers every request the
server sends meanwhile (sampling, roots, elicitation, ping) and keeps every frame the server sent;
``rich_requests`` is a bit of everything a server answers (what it reads, gets and calls: the roles
its profile binds, harness/roles.py). Client side: ``PUSHED`` are requests and
a notification the scripted stdio server sends the client before it answers, and
``client_responses`` the client's responses to them; ``ordered`` is a scripted server's record as
(direction, frame) pairs in the order they happened, for the in-flight checks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from conformance.harness.faults import Fault, inject_before
from conformance.harness.frames import UNKNOWN_METHOD, UNKNOWN_VERSION, modern_meta
from conformance.harness.peer import Peer
from conformance.harness.roles import Binding
from conformance.harness.scripted_server import MODERN, ScriptedPeer, ScriptedServer
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.wire import Wire, answers, tool_call

# What the harness, as a client, answers the requests a server sends it (before 2026-07-28).
SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "mcp-matrix"}
CLIENT_RESULTS: dict[str, dict] = {
    "sampling/createMessage": SAMPLED,
    "roots/list": {"roots": []},
    "elicitation/create": {"action": "decline"},
    "ping": {},
}
CLIENT_CAPABILITIES = {"sampling": {}, "roots": {"listChanged": True}}
TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def is_request(frame: Any) -> bool:
    return isinstance(frame, dict) and "method" in frame and "id" in frame


def is_notification(frame: Any) -> bool:
    return isinstance(frame, dict) and "method" in frame and "id" not in frame


def items(frame: Any) -> list[Any]:
    """The messages of a frame: itself, or the elements of a batch."""
    return frame if isinstance(frame, list) else [frame]


def opened(peer: Peer) -> None:
    """Open the session declaring what a server may ask for (sampling, roots; elicitation where it exists)."""
    capabilities = dict(CLIENT_CAPABILITIES)
    if peer.revision >= "2025-06-18":
        capabilities["elicitation"] = {}
    peer.open(capabilities)


def declared(peer: Peer, params: dict) -> dict:
    """``params`` whose 2026-07-28 envelope declares the client capabilities the server may need."""
    if not peer.stateless:
        return params
    capabilities = dict(CLIENT_CAPABILITIES) | {"elicitation": {}}
    meta = {"io.modelcontextprotocol/clientCapabilities": capabilities}
    return params | {"_meta": params.get("_meta", {}) | meta}


def rich_requests(peer: Peer) -> Iterator[dict]:
    """A bit of everything a server answers: discovery or ping, the lists, and of the roles the profile
    binds, a read, a prompt, and tool calls that answer text, report progress, log, and ask the client
    to sample."""
    n = iter(range(1, 100))
    roles = peer.roles
    yield peer.envelope(peer.probe_method, f"rich-{next(n)}")
    for method in ("tools/list", "prompts/list", "resources/list"):
        yield peer.envelope(method, f"rich-{next(n)}")
    if resource := roles.get("static-text-resource"):
        yield peer.envelope("resources/read", f"rich-{next(n)}", {"uri": resource.name})
    if prompt := roles.get("simple-prompt"):
        yield peer.envelope("prompts/get", f"rich-{next(n)}", {"name": prompt.name} | _arguments(prompt))
    if tool := roles.get("simple-tool"):
        yield tool_call(peer, f"rich-{next(n)}", tool.name, tool.args())
    if tool := roles.get("progress-tool"):
        yield tool_call(peer, f"rich-{next(n)}", tool.name, tool.args(), token=f"rich-progress-{next(n)}")
    if tool := roles.get("logging-tool"):
        logging = tool_call(peer, f"rich-{next(n)}", tool.name, tool.args())
        if peer.stateless:  # 2026-07-28 logs only to a request that opts in
            logging["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = "debug"
        yield logging
    if tool := roles.get("sampling-tool"):
        sampling = tool_call(peer, f"rich-{next(n)}", tool.name, tool.args())
        sampling["params"] = declared(peer, sampling["params"])
        yield sampling


def _arguments(binding: Binding) -> dict:
    return {"arguments": dict(binding.arguments)} if binding.arguments else {}


def converse(peer: Peer, requests: Callable[[Peer], Iterator[dict]] = rich_requests) -> Wire:
    """Send each request and wait for its answer, answering whatever the server asks meanwhile; the
    Wire holds every frame the server sent, in order."""
    opened(peer)
    wire = Wire(peer)
    for frame in requests(peer):
        call = wire.send(frame)
        while True:
            seen = wire.until(
                lambda f, call=call: not isinstance(f, dict) or answers(f, call.id) or is_request(f),
                f"answer to {frame['method']}",
            )
            if not is_request(seen):
                if isinstance(seen, dict):
                    break
                continue
            peer.send({"jsonrpc": "2.0", "id": seen["id"], "result": CLIENT_RESULTS.get(seen["method"], {})})
    return wire


def bad_requests(peer: Peer) -> Iterator[dict]:
    """Requests a server refuses: an unknown method, resource, prompt and tool; at 2026-07-28 also the
    tool bound to ``sampling-required-tool`` (if the profile binds one) without the sampling capability,
    a request without its ``_meta`` envelope, and one at a version nobody supports."""
    yield peer.envelope(UNKNOWN_METHOD, "bad-1")
    yield peer.envelope("resources/read", "bad-2", {"uri": "test://mcp-matrix/no-such-resource"})
    yield peer.envelope("prompts/get", "bad-3", {"name": "mcp-matrix-no-such-prompt"})
    yield peer.envelope("tools/call", "bad-4", {"name": "mcp-matrix-no-such-tool", "arguments": {}})
    if peer.stateless:
        if tool := peer.roles.get("sampling-required-tool"):
            yield tool_call(peer, "bad-5", tool.name, tool.args())
        yield {"jsonrpc": "2.0", "id": "bad-6", "method": "tools/list", "params": {}}
        yield peer.envelope("tools/list", "bad-7", {"_meta": modern_meta(UNKNOWN_VERSION)})


def server_frames(peer: Peer, requests: Callable[[Peer], Iterator[dict]] = rich_requests) -> list[Any]:
    return [seen.frame for seen in converse(peer, requests).seen]


def error_objects(frames: list[Any]) -> list[dict]:
    """The ``error`` object of every error response among ``frames`` (batches included)."""
    return [
        f["error"] for frame in frames for f in items(frame) if isinstance(f, dict) and isinstance(f.get("error"), dict)
    ]


def meta_objects(node: Any) -> Iterator[dict]:
    """Every ``_meta`` object anywhere in ``node``."""
    if isinstance(node, dict):
        if isinstance(node.get("_meta"), dict):
            yield node["_meta"]
        for value in node.values():
            yield from meta_objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from meta_objects(value)


# -- the client side -------------------------------------------------------------------------------------

PING_ID = "mcp-matrix-push-ping"
UNKNOWN_ID = "mcp-matrix-push-unknown"
PUSHED = [
    {"jsonrpc": "2.0", "id": PING_ID, "method": "ping"},
    {"jsonrpc": "2.0", "id": UNKNOWN_ID, "method": "mcp-matrix/no-such-method"},
    {"jsonrpc": "2.0", "method": "notifications/mcp-matrix/probe", "params": {}},
]
PUSHED_IDS = {PING_ID, UNKNOWN_ID}


def client_sends(frame: dict) -> Fault:
    """A fault: the client's record shows ``frame`` (a response of its) just before its tools/call."""
    return inject_before("tools/call", {"jsonrpc": "2.0"} | frame)


def client_responses(run_client: Callable[[str], Any], server: ScriptedStdio) -> list[Any]:
    """Before it answers the client's ``tools/list``, the scripted stdio server sends it a ping, a request
    of a method nobody defines, and a notification; the client's responses (every frame of its that is
    not a request or a notification), once it has run ``tools_call``. At 2026-07-28 only the notification:
    a server writes no requests on stdio then, and a client no responses, so a request pushed there would
    make the client choose between two breaches (stdio-client-no-responses, or leaving it unanswered)."""
    server.push["tools/list"] = [PUSHED[2]] if server.revision == MODERN else list(PUSHED)
    run_client("tools_call").require_completed()
    frames = server.load().frames()
    return [f for frame in frames for f in items(frame) if not (isinstance(f, dict) and "method" in f)]


def ordered(server: ScriptedPeer) -> list[tuple[str, Any]]:
    """The scripted server's record as (direction, frame), in the order things happened."""
    if isinstance(server, ScriptedStdio):
        events = server.load().events
    elif isinstance(server, ScriptedServer):
        events = [json.loads(line) for line in Path(server.trace.path).read_text(encoding="utf-8").splitlines()]
    else:
        raise TypeError(f"no record of {server!r}")
    return [(e["direction"], e["payload"]) for e in events if e["kind"] == "message"]
