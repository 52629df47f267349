"""Subscriptions, server side (2026-07-28): ``subscriptions/listen`` streams, their acknowledgement,
their filter and their end.

Each test holds the server under test to one requirement of docs/spec/requirements.md
(subscriptions), at every revision its cover claims (see coverage/subscriptions.py). The changes
announced on a stream are those the tools of roles ``tool-list-changer``, ``prompt-list-changer``
and ``resource-list-changer`` make; the stream's end is the one ``subscription-ender`` brings about.
Every wait is bounded and ended by the frame awaited.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import HarnessError, ImplementationTimeout, Peer, precondition
from conformance.harness.roles import Binding, bound, require_role, require_roles
from conformance.harness.scripted_stdio import ScriptedStdio, StdioRecord
from conformance.harness.surface import call, server_capabilities
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun

RunClient = Callable[[str], ClientRun]

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
TOOLS_CHANGED = "notifications/tools/list_changed"
# The notification each filter flag asks for, and the flag of each list-changing role.
NOTIFICATION_OF_FLAG = {
    "toolsListChanged": TOOLS_CHANGED,
    "promptsListChanged": "notifications/prompts/list_changed",
    "resourcesListChanged": "notifications/resources/list_changed",
}
CHANGERS = {
    "tool-list-changer": "toolsListChanged",
    "prompt-list-changer": "promptsListChanged",
    "resource-list-changer": "resourcesListChanged",
}
ACK_WAIT_SECONDS = 1.0  # the first wait for an acknowledgement; one held back is looked for again later


def subscription_of(frame: Any) -> Any:
    """The subscription id a frame names in ``_meta`` (a notification's params, a response's result)."""
    if not isinstance(frame, dict):
        return None
    body = frame.get("params") if "method" in frame else frame.get("result")
    meta = body.get("_meta") if isinstance(body, dict) else None
    return meta.get(SUBSCRIPTION_ID) if isinstance(meta, dict) else None


class Stream:
    """One ``subscriptions/listen`` request and every frame the session received after it, in order."""

    def __init__(self, peer: Peer, request_id: str, notifications: dict[str, Any]) -> None:
        self.peer, self.id = peer, request_id
        self.frames: list[Any] = []
        peer.send_request(peer.envelope("subscriptions/listen", request_id, {"notifications": notifications}))

    def until(self, wanted: Any, what: str, seconds: float | None = None) -> Any:
        """Frames until one that ``wanted`` accepts (kept, like every other, in ``frames``); bounded."""
        for frame in self.frames:
            if wanted(frame):
                return frame
        bound_ = self.peer.default_bound() if seconds is None else seconds
        deadline = time.monotonic() + bound_
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ImplementationTimeout(f"no {what} within {bound_:g}s; the server sent {self.summary()}")
            try:
                frame = self.peer.receive(timeout=remaining)
            except ImplementationTimeout:
                raise ImplementationTimeout(f"no {what} within {bound_:g}s; the server sent {self.summary()}") from None
            self.frames.append(frame)
            if isinstance(frame, dict) and frame.get("id") == self.id and "error" in frame:
                pytest.skip(f"fixture-missing: the server refused subscriptions/listen: {frame['error']}")
            if wanted(frame):
                return frame

    def acknowledgement(self, seconds: float | None = None) -> dict:
        def acknowledges(frame: Any) -> bool:
            return is_method(frame, ACKNOWLEDGED) and subscription_of(frame) == self.id

        return self.until(acknowledges, "acknowledgement", seconds)

    def notification(self, method: str) -> dict:
        return self.until(lambda f: is_method(f, method) and subscription_of(f) == self.id, f"{method} on {self.id!r}")

    def tagged(self) -> list[Any]:
        """The frames received so far that name this stream's subscription."""
        return [frame for frame in self.frames if subscription_of(frame) == self.id]

    def summary(self) -> list[Any]:
        return [(f.get("method", f.get("id")), subscription_of(f)) if isinstance(f, dict) else f for f in self.frames]


def is_method(frame: Any, method: str) -> bool:
    return isinstance(frame, dict) and frame.get("method") == method


def listening(peer: Peer, request_id: str, notifications: dict[str, Any]) -> Stream:
    """A ``subscriptions/listen`` stream opened on a server that serves them (else fixture-missing)."""
    peer.open()
    return Stream(peer, request_id, notifications)


def change(peer: Peer, changer: Binding) -> None:
    """The change ``changer`` makes (its binding looked up beforehand: nothing else goes out meanwhile)."""
    called = call(peer, changer)
    precondition("result" in called, f"{changer.name} ({changer.role}) failed: {called}")


def declared_changers(peer: Peer) -> dict[str, str]:
    """The list-changing roles the profile binds, for lists whose ``listChanged`` the server declares."""
    capabilities = server_capabilities(peer)
    kinds = {"tool-list-changer": "tools", "prompt-list-changer": "prompts", "resource-list-changer": "resources"}
    return {
        role: flag
        for role, flag in CHANGERS.items()
        if role in peer.roles and (capabilities.get(kinds[role]) or {}).get("listChanged") is True
    }


@for_req("subscriptions-acknowledge", "server", transports=BOTH_TRANSPORTS)
def test_a_listen_stream_is_acknowledged_first(revision: str, transport: str, peer: Peer) -> None:
    stream = listening(peer, "listen-ack", {"toolsListChanged": True})
    try:
        stream.until(lambda f: is_method(f, ACKNOWLEDGED) or subscription_of(f) == stream.id, "acknowledgement")
    except ImplementationTimeout as exc:
        raise AssertionError(f"subscriptions/listen {stream.id!r} was not acknowledged: {exc}") from None
    first = stream.tagged()[0] if stream.tagged() else stream.frames[-1]
    assert is_method(first, ACKNOWLEDGED), f"the first message naming subscription {stream.id!r} is {first}"
    assert subscription_of(first) == stream.id, (
        f"the acknowledgement names subscription {subscription_of(first)!r}, not {stream.id!r}: {first}"
    )


@for_req("subscriptions-nothing-before-ack", "server", transports=BOTH_TRANSPORTS)
def test_nothing_comes_on_a_stream_before_its_acknowledgement(revision: str, transport: str, peer: Peer) -> None:
    """A change the stream asked for, made as soon as the acknowledgement came (or after a short wait for
    it): whatever of the stream arrives, the acknowledgement comes first."""
    bound(peer, "tool-list-changer")
    peer.open()
    changer = require_role(peer, "tool-list-changer")
    if "tool-list-changer" not in declared_changers(peer):
        pytest.skip("fixture-missing: the server does not declare tools.listChanged")
    stream = listening(peer, "listen-order", {"toolsListChanged": True})
    with contextlib.suppress(ImplementationTimeout):  # judged below on everything that came
        stream.acknowledgement(ACK_WAIT_SECONDS)
    change(peer, changer)
    with contextlib.suppress(ImplementationTimeout):  # a change never announced is another row's business
        stream.acknowledgement()
        stream.notification(TOOLS_CHANGED)
    tagged = stream.tagged()
    if not tagged:
        pytest.skip(f"fixture-missing: nothing named subscription {stream.id!r}: {stream.summary()}")
    early = []
    for frame in tagged:
        if is_method(frame, ACKNOWLEDGED):
            break
        early.append(frame)
    assert not early, f"messages of subscription {stream.id!r} before its acknowledgement: {early}"


@for_req("subscriptions-only-requested-types", "server", transports=BOTH_TRANSPORTS)
def test_a_stream_carries_only_the_types_it_asked_for(revision: str, transport: str, peer: Peer) -> None:
    """A stream asking for tool-list changes only; the prompt and resource lists change first, then the
    tool list, whose announcement ends the wait: nothing else of the stream may come before it."""
    bound(peer, "tool-list-changer")
    peer.open()
    changers = declared_changers(peer)
    others = [role for role in changers if role != "tool-list-changer"]
    if "tool-list-changer" not in changers or not others:
        pytest.skip("fixture-missing: the server declares listChanged for no list besides tools")
    changing = require_roles(peer, *others, "tool-list-changer")
    stream = listening(peer, "listen-filter", {"toolsListChanged": True})
    stream.acknowledgement()
    for changer in changing:
        change(peer, changer)
    try:
        stream.notification(TOOLS_CHANGED)
    except ImplementationTimeout:
        pytest.skip("fixture-missing: the tool-list change was not announced on the stream (its own row)")
    asked = {ACKNOWLEDGED, TOOLS_CHANGED}
    unasked = [f for f in stream.tagged() if isinstance(f, dict) and "method" in f and f["method"] not in asked]
    assert not unasked, f"subscription {stream.id!r} asked only for toolsListChanged, yet carried {unasked}"


@for_req("subscriptions-stdio-interleave", "server", transports=("stdio",))
def test_other_subscriptions_may_come_before_an_acknowledgement(revision: str, transport: str, peer: Peer) -> None:
    """A permission: on stdio, a message of one subscription arriving after a second stream was asked
    for and before that stream's acknowledgement shows the server interleaving them. The first stream's
    change is made right after the second stream's request goes out."""
    bound(peer, "tool-list-changer")
    peer.open()
    changer = require_role(peer, "tool-list-changer")
    first = listening(peer, "listen-first", {"toolsListChanged": True})
    first.acknowledgement()
    asked_at = len(first.frames)
    second = Stream(peer, "listen-second", {"toolsListChanged": True})
    second.frames = first.frames  # one channel: one record of it
    change(peer, changer)
    second.acknowledgement()
    acknowledged_at = next(i for i, f in enumerate(second.frames) if subscription_of(f) == second.id)
    between = [f for f in second.frames[asked_at:acknowledged_at] if subscription_of(f) == first.id]
    assert between, f"no message of {first.id!r} came before {second.id!r}'s acknowledgement"


@for_req("subscriptions-graceful-close", "server", transports=BOTH_TRANSPORTS)
def test_a_stream_the_server_ends_gets_its_response(revision: str, transport: str, peer: Peer) -> None:
    """The stream ``subscription-ender`` tears down ends with a successful response to its request. The
    cancellation page asks instead for ``notifications/cancelled`` naming the request (C-16 of
    docs/spec/revision-conflicts.md): that explicit ending is accepted too; only an ending that says
    nothing, or an error, is not graceful."""
    bound(peer, "subscription-ender")
    peer.open()
    ender = require_role(peer, "subscription-ender")
    stream = listening(peer, "listen-end", {"toolsListChanged": True})
    stream.acknowledgement()
    called = call(peer, ender)
    precondition("result" in called, f"{ender.name} (subscription-ender) failed: {called}")

    def ends(frame: Any) -> bool:
        answers = isinstance(frame, dict) and frame.get("id") == stream.id and "method" not in frame
        cancels = (
            is_method(frame, "notifications/cancelled") and (frame.get("params") or {}).get("requestId") == stream.id
        )
        return answers or cancels

    try:
        ending = stream.until(ends, "end of the stream")
    except ImplementationTimeout as exc:
        raise AssertionError(f"the server ended subscription {stream.id!r} without saying so: {exc}") from None
    graceful = "result" in ending or is_method(ending, "notifications/cancelled")
    assert graceful, f"the server ended subscription {stream.id!r} with {ending}, not a result"


# -- the client (2026-07-28): several subscriptions, a filter honoured in part, a connection lost ----------
#
# The scripted stdio server acknowledges each subscriptions/listen request and holds it open (``listen``),
# sending one tool-list change stamped for the Nth; it may honour only some of a filter's members
# (``listen_honour``) or die once it has acknowledged one (``crash_after``). The client driver's scenarios
# report to their application what the client told them (``mcp-matrix: <name> <JSON>``).

LISTEN = "subscriptions/listen"


def listens_in(frames: list[Any]) -> list[dict]:
    return [f for f in frames if isinstance(f, dict) and f.get("method") == LISTEN and "id" in f]


def check_open_together(frames: list[Any]) -> None:
    listens = listens_in(frames)
    assert len(listens) >= 2, f"the client opened {len(listens)} subscription(s), not several"
    first, second = frames.index(listens[0]), frames.index(listens[1])
    ended = [
        f
        for f in frames[first:second]
        if isinstance(f, dict)
        and f.get("method") == "notifications/cancelled"
        and (f.get("params") or {}).get("requestId") == listens[0]["id"]
    ]
    assert not ended, f"the client ended its first subscription before it opened the second: {ended}"


@for_req("subscriptions-concurrent", "client")
def test_the_client_may_hold_several_subscriptions_at_once(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """Two subscriptions with the same filter, the second opened while the first is held open: a client
    that keeps one subscription at a time does not take the option (not-exercised)."""
    scripted_stdio.listen = 2
    run = run_stdio_client("two_subscriptions")
    scripted_stdio.load()
    run.judge(lambda: check_open_together(scripted_stdio.frames()))


ASKED_FILTER = {"toolsListChanged": True, "promptsListChanged": True}
HONOURED_FLAGS = ["toolsListChanged"]


def check_partial_filter_handled(scripted: ScriptedStdio, run: ClientRun) -> None:
    listens = listens_in(scripted.frames())
    if not listens or (listens[0].get("params") or {}).get("notifications") != ASKED_FILTER:
        raise HarnessError(f"the client did not listen with the scenario's filter {ASKED_FILTER}: {listens}")
    honoured = run.report("honoured")
    if honoured is not None:
        told = {flag: bool(honoured.get(flag)) for flag in ASKED_FILTER}
        acknowledged = {flag: flag in HONOURED_FLAGS for flag in ASKED_FILTER}
        assert told == acknowledged, f"the client told its application {told}; the server acknowledged {acknowledged}"
    delivered = run.report("delivered")
    assert delivered == "ToolsListChanged", (
        f"the honoured part of the subscription delivered {delivered!r}, not the tool-list change sent on it"
    )


@for_req("subscriptions-check-ack-filter", "client")
def test_a_filter_honoured_in_part_is_handled_gracefully(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The client listens for tool-list and prompt-list changes; the server acknowledges only the tool-list
    part and then sends a tool-list change. The client keeps the subscription and delivers the change to its
    application (its closing the subscription once the scenario is done is no giving up), and what it tells
    its application about the honoured filter (if it tells anything) is what the acknowledgement said."""
    scripted_stdio.listen = 1
    scripted_stdio.listen_honour = HONOURED_FLAGS
    run = run_stdio_client("listen_partly_honoured")
    scripted_stdio.load()
    run.judge(lambda: check_partial_filter_handled(scripted_stdio, run))


def lost_subscription(scripted: ScriptedStdio, run: ClientRun) -> list[StdioRecord]:
    """After ``listen_through_crash`` (the server dies once it has acknowledged the subscription): the records
    of the servers the client launched again."""
    scripted.load()
    if not scripted.record.lifecycle("crash"):
        raise HarnessError(f"the scripted server did not die as planned:\n{run.output[-2000:]}")
    return scripted.restarts()


@for_req("subscriptions-reconnect-on-abrupt-close", "client")
def test_the_client_may_reconnect_when_a_subscription_is_cut_off(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The server dies with the subscription open (no listen response): the client may take that as an
    unexpected disconnect and connect again (launch the server anew). One that does not has not taken the
    option (not-exercised)."""
    scripted_stdio.listen = 1
    scripted_stdio.crash_after = LISTEN
    run = run_stdio_client("listen_through_crash")
    restarts = lost_subscription(scripted_stdio, run)
    assert restarts, f"the client did not connect again after the subscription was cut off:\n{run.output[-1000:]}"


@for_req("subscriptions-stdio-resubscribe", "client")
def test_a_re_established_stdio_connection_gets_the_subscription_anew(
    revision: str, run_stdio_client: RunClient, scripted_stdio: ScriptedStdio
) -> None:
    """The server dies once it has acknowledged a subscription the application still holds. If the client
    launches the server again, and it did not tell its application that the subscription was lost (then
    the application holds none), the new connection carries a subscriptions/listen request asking for what
    the subscription asked for (tool-list changes). A client that
    never connects again does not reach the situation (fixture-missing)."""
    scripted_stdio.listen = 1
    scripted_stdio.crash_after = LISTEN
    run = run_stdio_client("listen_through_crash")
    restarts = lost_subscription(scripted_stdio, run)
    if not restarts:
        pytest.skip("fixture-missing: the client never re-established the connection after its server died")
    ended = run.report("subscription")
    if ended not in (None, "open"):
        pytest.skip(f"fixture-missing: the client told its application the subscription ended ({ended})")
    again = [f for record in restarts for f in listens_in(record.frames())]
    held = [f for f in again if ((f.get("params") or {}).get("notifications") or {}).get("toolsListChanged") is True]
    assert held, f"the re-established connection carries no subscriptions/listen for tool-list changes: {again}"
