"""Capability gating, both ways: no request or notification for a capability the peer (or the sender
itself) did not declare, and no feature offered without its capability declared."""

from __future__ import annotations

from typing import Any

from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, NOTIFICATION, REQUEST, SERVER, Message, Session

# method -> (the side whose capability it needs, the capability path)
SERVER_FEATURE_METHODS: dict[str, tuple[str, ...]] = {
    "tools/list": ("tools",),
    "tools/call": ("tools",),
    "resources/list": ("resources",),
    "resources/read": ("resources",),
    "resources/templates/list": ("resources",),
    "resources/subscribe": ("resources", "subscribe"),
    "resources/unsubscribe": ("resources", "subscribe"),
    "prompts/list": ("prompts",),
    "prompts/get": ("prompts",),
    "logging/setLevel": ("logging",),
    "completion/complete": ("completions",),
}
SERVER_NOTIFICATIONS: dict[str, tuple[str, ...]] = {
    "notifications/tools/list_changed": ("tools", "listChanged"),
    "notifications/prompts/list_changed": ("prompts", "listChanged"),
    "notifications/resources/list_changed": ("resources", "listChanged"),
    "notifications/resources/updated": ("resources", "subscribe"),
    "notifications/message": ("logging",),
}
CLIENT_FEATURE_METHODS: dict[str, tuple[str, ...]] = {
    "sampling/createMessage": ("sampling",),
    "roots/list": ("roots",),
    "elicitation/create": ("elicitation",),
}
CLIENT_NOTIFICATIONS: dict[str, tuple[str, ...]] = {"notifications/roots/list_changed": ("roots", "listChanged")}
# completions became a capability at 2025-03-26: before, completion/complete needed none
CAPABILITY_SINCE = {("completions",): "2025-03-26"}


def declared(capabilities: dict | None, path: tuple[str, ...]) -> bool:
    node: Any = capabilities or {}
    for name in path:
        if not isinstance(node, dict) or name not in node:
            return False
        node = node[name]
    return node is not False and node is not None


def _gate(session: Session, message: Message) -> tuple[str, tuple[str, ...]] | None:
    """(the side that must have declared it, the capability) ``message`` needs, or None."""
    method = message.method or ""
    if message.sender == CLIENT:
        path = SERVER_FEATURE_METHODS.get(method) if message.kind == REQUEST else CLIENT_NOTIFICATIONS.get(method)
        owner = SERVER if message.kind == REQUEST else CLIENT
    else:
        path = CLIENT_FEATURE_METHODS.get(method) if message.kind == REQUEST else SERVER_NOTIFICATIONS.get(method)
        owner = CLIENT if message.kind == REQUEST else SERVER
    if path is None or session.revision < CAPABILITY_SINCE.get(path[:1], ""):
        return None
    return owner, path


def _no_negotiation(session: Session) -> str | None:
    if session.server_capabilities is None or session.client_capabilities is None:
        return "no capabilities were negotiated in the trace (no initialize exchange)"
    return None


@check(
    "lifecycle-negotiated-capabilities-only-should",
    "lifecycle-negotiated-capabilities-only-must",
    not_applicable=_no_negotiation,
)
def only_negotiated_capabilities(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No request or notification of a feature whose capability was not negotiated: a client request
    needs the server's capability, a server request the client's, a notification its sender's own."""
    for message in session.messages:
        if message.kind not in (REQUEST, NOTIFICATION) or message.sender not in sides:
            continue
        gate = _gate(session, message)
        if gate is None:
            continue
        owner, path = gate
        judgement.examine()
        capabilities = session.server_capabilities if owner == SERVER else session.client_capabilities
        if not declared(capabilities, path):
            judgement.fail(
                message.seq, f"the {message.sender} sent {message.method}, but the {owner} declared no {'.'.join(path)}"
            )


def _offered_without_declaring(session: Session, judgement: Judgement, feature: str, methods: tuple[str, ...]) -> None:
    """The server answered a ``feature`` method with a result (or sent its notification): it offers the
    feature, so its capabilities (initialize's, or server/discover's) must name it."""
    if session.server_capabilities is None:
        return
    offers = [(m, method) for method in methods for m in session.results_by_method.get((SERVER, method), [])]
    offers += [(m, method) for method in methods for m in session.notifications_by_method.get((SERVER, method), [])]
    for message, method in sorted(offers, key=lambda offer: offer[0].seq):
        judgement.examine()
        if not declared(session.server_capabilities, (feature,)):
            judgement.fail(message.seq, f"the server offers {method} but declared no {feature} capability")


def _no_server_capabilities(session: Session) -> str | None:
    if session.server_capabilities is None:
        return "the server's capabilities are not in the trace (no initialize or server/discover result)"
    return None


@check("tools-capability-declared", not_applicable=_no_server_capabilities)
def tools_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A server that answers tools/list or tools/call with a result declared the tools capability."""
    _offered_without_declaring(session, judgement, "tools", ("tools/list", "tools/call"))


@check("resources-capability-declared", not_applicable=_no_server_capabilities)
def resources_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A server that answers resources/list, resources/templates/list or resources/read with a result
    declared the resources capability."""
    _offered_without_declaring(
        session, judgement, "resources", ("resources/list", "resources/templates/list", "resources/read")
    )


@check("prompts-capability-declared", not_applicable=_no_server_capabilities)
def prompts_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A server that answers prompts/list or prompts/get with a result declared the prompts capability."""
    _offered_without_declaring(session, judgement, "prompts", ("prompts/list", "prompts/get"))


@check("completion-capability-declared", not_applicable=_no_server_capabilities)
def completions_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A server that answers completion/complete with a result declared the completions capability."""
    _offered_without_declaring(session, judgement, "completions", ("completion/complete",))


@check("logging-capability-declared", not_applicable=_no_server_capabilities)
def logging_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A server that sends notifications/message declared the logging capability."""
    _offered_without_declaring(session, judgement, "logging", ("notifications/message",))


def _client_offered_without_declaring(session: Session, judgement: Judgement, feature: str, method: str) -> None:
    """The client answered a ``method`` request with a result: it supports the feature, so its initialize
    capabilities must name it."""
    if session.client_capabilities is None:
        return
    for message in session.results_by_method.get((CLIENT, method), []):
        judgement.examine()
        if not declared(session.client_capabilities, (feature,)):
            judgement.fail(message.seq, f"the client answers {method} but declared no {feature} capability")


def _no_client_capabilities(session: Session) -> str | None:
    return None if session.client_capabilities is not None else "the trace holds no initialize request"


@check("sampling-capability-declare-initialize", not_applicable=_no_client_capabilities)
def sampling_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client that answers sampling/createMessage with a result declared sampling in initialize."""
    _client_offered_without_declaring(session, judgement, "sampling", "sampling/createMessage")


@check("roots-capability-declare-initialize", not_applicable=_no_client_capabilities)
def roots_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client that answers roots/list with a result declared roots in initialize."""
    _client_offered_without_declaring(session, judgement, "roots", "roots/list")


@check("elicitation-capability-declare-initialize", not_applicable=_no_client_capabilities)
def elicitation_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client that answers elicitation/create with a result declared elicitation in initialize."""
    _client_offered_without_declaring(session, judgement, "elicitation", "elicitation/create")


@check("sampling-tools-require-capability", not_applicable=_no_client_capabilities)
def sampling_tools_need_capability(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The server sends no sampling/createMessage with tools or toolChoice to a client that did not
    declare sampling.tools."""
    for message in session.sent_by(SERVER, REQUEST):
        if message.method != "sampling/createMessage":
            continue
        judgement.examine()
        if ({"tools", "toolChoice"} & set(message.params)) and not declared(
            session.client_capabilities, ("sampling", "tools")
        ):
            judgement.fail(
                message.seq, "sampling/createMessage carries tools but the client declared no sampling.tools"
            )


@check("elicitation-mode-must-be-declared", not_applicable=_no_client_capabilities)
def elicitation_mode_declared(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The server sends no elicitation in a mode the client did not declare (an empty elicitation object
    declares form mode only)."""
    capability = (session.client_capabilities or {}).get("elicitation")
    modes = set(capability) & {"form", "url"} if isinstance(capability, dict) else set()
    if isinstance(capability, dict) and not modes:
        modes = {"form"}
    for message in session.sent_by(SERVER, REQUEST):
        if message.method != "elicitation/create":
            continue
        judgement.examine()
        mode = message.params.get("mode", "form")
        if mode not in modes:
            judgement.fail(message.seq, f"an elicitation in {mode} mode, which the client did not declare")
