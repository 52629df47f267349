"""Elicitation (2025-11-25 on): a declared elicitation capability names a mode, an elicitation in an
undeclared mode is refused with -32602, URL-mode URLs use https outside loopback, form requests carry no links."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from conformance.validator.checks.answers import judge_refusals
from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, REQUEST, SERVER, Message, Session

MODES = frozenset({"form", "url"})
INVALID_PARAMS = -32602
URL_PARTS = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?:[^@/?#]*@)?(?P<host>\[[^\]]*\]|[^:/?#]*)")
LOOPBACK = re.compile(r"^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$", re.IGNORECASE)
LINK = re.compile(r"\b(https?|ftp|file|javascript|data):[^\s]*|\bwww\.[^\s]+", re.IGNORECASE)


def elicitations(session: Session) -> Iterator[tuple[Message, dict]]:
    return session.server_asks("elicitation/create")


def _declared_capabilities(session: Session) -> Iterator[tuple[Message, Any]]:
    """Each elicitation capability the client declared, with the message declaring it."""
    if session.modern:
        for request in session.sent_by(CLIENT, REQUEST):
            capabilities = session.client_capabilities_for(request) or {}
            if "elicitation" in capabilities:
                yield request, capabilities["elicitation"]
    elif session.initialize is not None and "elicitation" in (session.client_capabilities or {}):
        yield session.initialize, session.client_capabilities["elicitation"]


def _modes(capability: Any) -> set[str]:
    """The modes an elicitation capability declares: an empty object declares form."""
    if not isinstance(capability, dict):
        return set()
    return set(capability) & MODES if capability else {"form"}


@check("elicitation-capability-at-least-one-mode")
def declared_elicitation_names_a_mode(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A declared elicitation capability is empty (form) or names form, url or both."""
    for message, capability in _declared_capabilities(session):
        judgement.examine()
        if not _modes(capability):
            judgement.fail(message.seq, f"elicitation capability {capability!r} declares neither form nor url")


@check("elicitation-error-undeclared-mode")
def undeclared_modes_refused(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A client answers an elicitation/create in a mode it did not declare with error -32602."""
    declared = next((_modes(c) for _, c in _declared_capabilities(session)), set())
    undeclared = [
        request
        for request in session.sent_by(SERVER, REQUEST)
        if request.method == "elicitation/create" and request.params.get("mode", "form") not in declared
    ]
    judge_refusals(
        session,
        judgement,
        undeclared,
        INVALID_PARAMS,
        lambda request: f"an elicitation in undeclared mode {request.params.get('mode', 'form')!r}",
    )


@check("elicitation-url-https")
def elicitation_urls_https(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A URL-mode elicitation's url uses https (a loopback host counts as a development environment)."""
    for carrier, params in elicitations(session):
        if params.get("mode") != "url" or not isinstance(params.get("url"), str):
            continue
        judgement.examine()
        parts = URL_PARTS.match(params["url"])
        scheme, host = (parts["scheme"].lower(), parts["host"]) if parts else ("", "")
        if scheme != "https" and not LOOPBACK.match(host):
            judgement.fail(carrier.seq, f"URL elicitation to {params['url']!r}, not https")


def _texts(value: Any) -> Iterator[str]:
    """The human-readable strings of a form request: its message and each title and description."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("title", "description") and isinstance(item, str):
                yield item
            elif key != "default":
                yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


@check("elicitation-form-no-clickable-urls")
def form_requests_without_links(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A form-mode elicitation's message, titles and descriptions hold no link."""
    for carrier, params in elicitations(session):
        if params.get("mode", "form") != "form":
            continue
        judgement.examine()
        texts = [params.get("message")] if isinstance(params.get("message"), str) else []
        texts += list(_texts(params.get("requestedSchema")))
        link = next((found.group(0) for text in texts if (found := LINK.search(text))), None)
        if link:
            judgement.fail(carrier.seq, f"a form elicitation holds the link {link!r}")
