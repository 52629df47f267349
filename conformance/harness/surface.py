"""The feature surface of a server as the tests of every feature see it: the capability declared,
the list as one whole (following cursors), the list compared across connections, list-changed
announcements. Shared by the tests of tools, resources, prompts, completion and pagination. What a
test calls comes from the target's profile, by role (harness/roles.py).
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from conformance.harness.frames import CLIENT_CAPABILITIES_META
from conformance.harness.peer import ImplementationTimeout, Peer, precondition
from conformance.harness.roles import Binding, bound, require_role
from conformance.harness.wire import tool_call

if TYPE_CHECKING:
    from conformance.run.plugin import SessionFactory

MAX_PAGES = 50  # a list longer than this many pages is a runaway cursor, not a long list
LIST_KEYS = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}


def server_capabilities(peer: Peer) -> dict:
    """The capabilities the server declares: the initialize result's, or server/discover's at 2026-07-28.

    Opens the session: at revisions with a handshake, this is its initialize.
    """
    response = peer.rpc("server/discover", check=False) if peer.stateless else {"result": peer.initialize(check=False)}
    capabilities = response.get("result", {}).get("capabilities")
    # Whether the answer is well formed is its own cell (lifecycle, schema); here it is only read.
    precondition(isinstance(capabilities, dict), f"the server's capabilities could not be read: {response}")
    return capabilities


def list_pages(peer: Peer, method: str, params: dict | None = None) -> list[dict]:
    """Every response of a list request, following ``nextCursor`` until a page has none."""
    responses = [peer.rpc(method, params, check=False)]
    while len(responses) < MAX_PAGES:
        cursor = responses[-1].get("result", {}).get("nextCursor")
        if cursor is None:
            return responses
        responses.append(peer.rpc(method, {"cursor": cursor}, check=False))
    raise AssertionError(f"{method} still had a nextCursor after {MAX_PAGES} pages")


def list_items(peer: Peer, method: str) -> list[dict] | None:
    """The items of every page of a list request, or None when the server refuses the request."""
    items: list[dict] = []
    for response in list_pages(peer, method):
        if "result" not in response:
            return None
        page = response["result"].get(LIST_KEYS[method])
        assert isinstance(page, list), f"{method} answered without a {LIST_KEYS[method]} array: {response}"
        items.extend(page)
    return items


CAPABILITY_OF_LIST = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resources",
    "prompts/list": "prompts",
}


def offers(peer: Peer, capability: str) -> None:
    """Go on only if the server declares ``capability``: the rows of a feature bind a server that offers
    it, and one that does not is right to refuse its methods (-32601). Else fixture-missing."""
    if capability not in server_capabilities(peer):
        pytest.skip(f"fixture-missing: the server declares no {capability} capability, so it offers none")


def listed(peer: Peer, method: str) -> list[dict]:
    """The items of a list request the server must answer; an empty list leaves nothing to check
    (the test reports fixture-missing rather than passing over nothing), and neither does a refusal
    from a server that does not declare the feature (then it owes no list)."""
    items = list_items(peer, method)
    if items is None:
        offers(peer, CAPABILITY_OF_LIST[method])
    assert items is not None, f"{method} was refused although the server declares {CAPABILITY_OF_LIST[method]}"
    if not items:
        pytest.skip(f"fixture-missing: the server lists no {LIST_KEYS[method]}")
    return items


def names(items: list[dict], key: str = "name") -> list[Any]:
    return [item.get(key) for item in items]


def canonical(items: list[dict]) -> list[str]:
    """A list's items as comparable text, whatever their order."""
    return sorted(json.dumps(item, sort_keys=True) for item in items)


def is_base64(data: object) -> bool:
    """``data`` is a string of standard base64 (RFC 4648, padded), as the schema's ``byte`` format."""
    if not isinstance(data, str):
        return False
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def assert_capability_declared(peer: Peer, capability: str, method: str) -> None:
    """A server whose ``method`` lists something declares ``capability``."""
    capabilities = server_capabilities(peer)
    items = list_items(peer, method)
    if not items:
        pytest.skip(f"fixture-missing: {method} lists nothing, so the server offers no {capability}")
    assert capability in capabilities, f"{method} lists {len(items)} item(s) but capabilities are {capabilities}"


def assert_available_is_listed(peer: Peer, method: str, key: str, role: str, use: str, param: str) -> None:
    """What the profile binds to ``role``, which ``use`` serves (given as ``param``), is in the answer to
    ``method`` (the set presently available). The binding is not checked against the list: that is the test."""
    binding = bound(peer, role)
    name = binding.name
    params: dict[str, Any] = {param: name} | ({"arguments": dict(binding.arguments)} if binding.arguments else {})
    peer.open()
    used = peer.rpc(use, params, check=False)
    if "result" not in used:
        pytest.skip(f"fixture-missing: {use} of {name} fails: {used.get('error')}")
    items = list_items(peer, method)
    assert items is not None, f"{method} was refused"
    assert name in names(items, key), f"{use} serves {name}, but {method} lists only {names(items, key)}"


def assert_list_connection_independent(
    server: Peer, open_session: SessionFactory, revision: str, method: str, exercise: Callable[[Peer], object]
) -> None:
    """``method`` lists the same set before and after other requests, and on another connection."""
    server.open()
    before = canonical(listed(server, method))  # nothing listed: nothing to compare (fixture-missing)
    exercise(server)
    after, elsewhere = list_items(server, method), None
    with open_session(revision) as other:
        other.open()
        elsewhere = list_items(other, method)
    # An empty or refused list here is the set changing, not a missing fixture: judged, never skipped.
    after, elsewhere = canonical(after or []), canonical(elsewhere or [])
    assert before == after, f"{method} changed after other requests on the connection:\n{before}\n{after}"
    assert before == elsewhere, f"{method} differs between two connections:\n{before}\n{elsewhere}"


def await_notification(peer: Peer, method: str, seconds: float | None = None) -> dict:
    """The next frame carrying notification ``method``; other frames are passed over. Bounded: a wait
    that gives up raises ImplementationTimeout, which the test's own check turns into its verdict."""
    bound = peer.default_bound() if seconds is None else seconds
    deadline = time.monotonic() + bound
    passed: list[Any] = []
    while True:
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise ImplementationTimeout("deadline passed")
            frame = peer.receive(timeout=remaining)
        except ImplementationTimeout:
            raise ImplementationTimeout(f"no {method} within {bound:g}s; the server sent {passed}") from None
        if isinstance(frame, dict) and frame.get("method") == method:
            return frame
        passed.append(frame.get("method", frame.get("id")) if isinstance(frame, dict) else frame)


def assert_list_changed_announced(peer: Peer, capability: str, changer: str, notification: str, flag: str) -> None:
    """A server declaring ``<capability>.listChanged`` announces a change of that list.

    The change is the one the tool of role ``changer`` makes. At 2026-07-28 the announcement
    travels on a ``subscriptions/listen`` stream that asked for it (``flag``).
    """
    bound(peer, changer)
    capabilities = server_capabilities(peer)
    if not (capabilities.get(capability) or {}).get("listChanged"):
        pytest.skip(f"fixture-missing: the server does not declare {capability}.listChanged")
    trigger = require_role(peer, changer)
    if peer.stateless:
        peer.send_request(peer.envelope("subscriptions/listen", "listen", {"notifications": {flag: True}}))
        await_notification(peer, "notifications/subscriptions/acknowledged")
    called = call(peer, trigger)
    precondition("result" in called, f"{trigger.name} ({changer}) failed: {called}")
    try:
        await_notification(peer, notification)
    except ImplementationTimeout as exc:
        raise AssertionError(f"{trigger.name} changed the {capability} list, but it was not announced: {exc}") from None


# -- tools ---------------------------------------------------------------------------------------------


def call_tool(peer: Peer, name: str, arguments: dict[str, Any] | None = None) -> dict:
    return peer.rpc("tools/call", {"name": name, "arguments": arguments or {}}, check=False)


def call(peer: Peer, tool: Binding, **arguments: Any) -> dict:
    """tools/call of the tool bound to a role, with its arguments (``arguments`` added or replacing)."""
    return call_tool(peer, tool.name, tool.args(**arguments))


def listed_tools(peer: Peer) -> list[dict]:
    peer.open()
    return listed(peer, "tools/list")


def text_of(result: dict) -> list[str]:
    return [item.get("text", "") for item in result.get("content", []) if item.get("type") == "text"]


# -- frames the schema refuses -------------------------------------------------------------------------


def send_unchecked(peer: Peer, frame: dict) -> None:
    """Send ``frame``, a request that breaks the revision's schema on purpose (a malformed retry, ...), as
    ``Peer.send_request`` would but without the check that refuses the harness's own malformed frames; its
    answer is read (and faulted) as the answer to its method. Over Streamable HTTP it carries the headers
    its method and name call for, as a well-formed request would."""
    peer._pending_methods[frame["id"]] = frame["method"]
    peer.trace.message("client-to-server", frame)
    peer._transmit(json.dumps(frame, separators=(",", ":")).encode(), frame)


def open_standalone_stream(peer: Peer) -> None:
    """Over Streamable HTTP at a handshake revision, open the session's standalone GET stream and read
    what comes on it into the session, as the answers to POSTs are read: for tests in which the server may
    send a request unrelated to any of the client's (a roots/list after notifications/roots/list_changed,
    or on a timer after initialization), which a server sends on that stream. Elsewhere nothing to do; a
    server that offers no GET stream (405) leaves the session as it was."""
    from conformance.harness.http import HttpPeer  # surface serves every transport; http is one of them

    if not isinstance(peer, HttpPeer) or peer.stateless:
        return
    headers = peer.headers_for(None) | {"Accept": "text/event-stream"}
    headers.pop("Content-Type", None)
    peer.trace.record("client-to-server", "http", method="GET", headers=headers)
    response = peer._send_http("GET", None, headers)
    if not peer._record("GET", response, "GET").headers.get("content-type", "").startswith("text/event-stream"):
        peer._done(response)
        return
    reader = threading.Thread(target=peer._read_stream, args=(response,), daemon=True)
    with peer._lock:
        peer._readers.append(reader)
    reader.start()


# -- 2026-07-28: a call that declares the client's capabilities, and the questions its answer asks --------


def modern_call(peer: Peer, tool: Binding, capabilities: dict, label: str, **retry: Any) -> dict:
    """At 2026-07-28: the tools/call of ``tool`` declaring ``capabilities`` in its ``_meta``, with ``retry``
    (``inputResponses``, ``requestState``) added; its answer."""
    frame = tool_call(peer, label, tool.name, tool.args())
    frame["params"] |= retry
    frame["params"]["_meta"][CLIENT_CAPABILITIES_META] = capabilities
    peer.send_request(frame)
    return peer.expect_response(frame["id"])


def input_questions(response: dict, method: str) -> dict:
    """The ``method`` entries (``roots/list``, ``sampling/createMessage``, ...) of an input_required result's
    ``inputRequests``, by key; none for any other answer."""
    result = response.get("result") if isinstance(response.get("result"), dict) else {}
    requests = result.get("inputRequests") if result.get("resultType") == "input_required" else None
    return {k: r for k, r in (requests or {}).items() if isinstance(r, dict) and r.get("method") == method}


# -- permissions (MAY) of the feature lists: a pass shows the server taking one --------------------------------


def check_list_may_be_empty(peer: Peer, capability: str, method: str) -> None:
    """The server of ``capability`` lists nothing under ``method`` (else the MAY reads not-exercised)."""
    offers(peer, capability)
    items = list_items(peer, method)
    precondition(items is not None, f"{method} was refused ({capability}-list-current-set judges that)")
    assert items == [], f"the server lists {len(items or [])} {capability}"


def check_list_may_change(server: Peer, method: str, changer_role: str) -> None:
    """The list under ``method`` before and after the change the ``changer_role`` makes differs."""
    bound(server, changer_role)
    server.open()
    changer = require_role(server, changer_role)
    before = list_items(server, method)
    called = call(server, changer)
    precondition("result" in called, f"{changer.name} ({changer_role}) failed: {called}")
    after = list_items(server, method)
    assert canonical(before or []) != canonical(after or []), f"the {method} list stayed the same"
