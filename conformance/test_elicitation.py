"""Elicitation, server side: what a server asks the user through the client, and when; and, in the module's
second half, the client side: how the client under test answers the scripted server's questions.

Each test holds the server under test to one requirement of docs/spec/requirements.md (elicitation),
at every revision its cover claims (see coverage/elicitation.py). The tools called are those the
target's profile binds to the elicitation roles (harness/roles.py): the official suite's form tools
(``elicitation-tool``, ``elicitation-defaults-tool``, ``elicitation-enums-tool``) and, from
2025-11-25, a tool that asks in URL mode (``url-elicitation-tool``) and one that cannot be served
before a URL-mode elicitation completes (``url-elicitation-required-tool``). Up to 2025-11-25 the
server asks with an ``elicitation/create`` request during the call, which the harness answers; at
2026-07-28 it answers the call with an ``input_required`` result whose ``inputRequests`` hold the
question, and the harness retries the call with its answer.

The client's capabilities are declared in the handshake, or at 2026-07-28 in each request's
``_meta``; 2025-06-18 knows no modes (``elicitation: {}``), and from 2025-11-25 an empty object
declares form mode only.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from conformance.harness import schema
from conformance.harness.exchanges import CLIENT_RESULTS, converse, error_objects, rich_requests
from conformance.harness.frames import BOTH_TRANSPORTS, CLIENT_CAPABILITIES_META
from conformance.harness.http import HttpPeer
from conformance.harness.pages import Page, PageServer
from conformance.harness.peer import Peer, precondition
from conformance.harness.roles import Binding, optional_roles, require_role
from conformance.harness.scripted_server import GetStreamScript, ScriptedServer, StreamScript
from conformance.harness.timing import Timeline
from conformance.harness.trace import Trace
from conformance.harness.wire import tool_call
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, SessionFactory

FORM_ROLES = ("elicitation-tool", "elicitation-defaults-tool", "elicitation-enums-tool")
URL_ROLE = "url-elicitation-tool"
REQUIRED_ROLE = "url-elicitation-required-tool"
INPUT_REQUIRED = "input_required"
URL_ELICITATION_REQUIRED = -32042
INTERNAL_ERROR = -32603
COMPLETE = "notifications/elicitation/complete"
DECLINE = {"action": "decline"}

# A form field that asks for a secret granting access or authorizing a transaction, by its name or title
# (camelCase and snake_case split into words). What a field asks for beyond its label no wire shows.
SECRET_FIELD = re.compile(
    r"\b(pass ?words?|passwd|pass ?phrases?|pass ?codes?|api ?keys?|access ?tokens?|refresh ?tokens?|bearer ?tokens?"
    r"|auth(entication|orization)? ?tokens?|secret ?keys?|client ?secrets?|private ?keys?|credit ?card( numbers?)?"
    r"|card ?numbers?|cvv|cvc|card security codes?)\b",
    re.IGNORECASE,
)
# A link a client could render clickable: an http(s) URL or a bare www. host.
LINK = re.compile(r"\b(https?://|www\.)[^\s]+", re.IGNORECASE)
# RFC 3986: scheme ":" and then no character a URI cannot hold.
ABSOLUTE_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]+$")
LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}
# Query or fragment parameters that carry a credential of the user.
CREDENTIAL_PARAMETERS = {
    "password",
    "passwd",
    "pwd",
    "access_token",
    "id_token",
    "refresh_token",
    "api_key",
    "apikey",
    "client_secret",
    "secret",
}
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+(@|%40)[A-Za-z0-9.-]+\.[A-Za-z]{2,}")


# -- asking -----------------------------------------------------------------------------------------------


def declared(revision: str, *modes: str) -> dict:
    """The client's capabilities: elicitation in ``modes`` (form, url); 2025-06-18 knows no modes, and
    from 2025-11-25 no mode at all is the empty object (form only)."""
    elicitation = {} if revision < "2025-11-25" else {mode: {} for mode in modes}
    return {"elicitation": elicitation}


@dataclass
class Asked:
    """One tools/call of a role's tool, and what the server asked meanwhile."""

    role: str
    response: dict
    requests: list[dict] = field(default_factory=list)  # the params of every elicitation/create
    input_keys: list[str] = field(default_factory=list)  # 2026-07-28: the inputRequests key of each
    notifications: list[dict] = field(default_factory=list)  # every notification that came with it

    @property
    def result(self) -> dict:
        result = self.response.get("result")
        return result if isinstance(result, dict) else {}

    @property
    def error(self) -> dict | None:
        error = self.response.get("error")
        return error if isinstance(error, dict) else None

    @property
    def input_required(self) -> bool:
        return self.error is None and self.result.get("resultType") == INPUT_REQUIRED


def ask(
    peer: Peer,
    binding: Binding,
    capabilities: dict,
    answer: Callable[[dict], dict] = lambda params: DECLINE,
    retry: dict | None = None,
) -> Asked:
    """Call the tool bound to a role and answer whatever the server asks meanwhile (an elicitation with
    ``answer(params)``); at 2026-07-28 ``retry`` (inputResponses, requestState) goes into the call."""
    params: dict[str, Any] = {"name": binding.name, "arguments": binding.args()} | (retry or {})
    if peer.stateless:
        params["_meta"] = {CLIENT_CAPABILITIES_META: capabilities}
    asked = exchange(peer, peer.envelope("tools/call", f"elicit-{peer.next_id()}", params), binding.role, answer)
    if asked.input_required:
        for key, request in (asked.result.get("inputRequests") or {}).items():
            if isinstance(request, dict) and request.get("method") == "elicitation/create":
                asked.input_keys.append(key)
                asked.requests.append(request.get("params") if isinstance(request.get("params"), dict) else {})
    return asked


def exchange(peer: Peer, frame: dict, role: str = "", answer: Callable[[dict], dict] = lambda params: DECLINE) -> Asked:
    """Send a request and take frames until its answer, answering every request of the server's meanwhile
    (an elicitation with ``answer(params)``) and keeping every notification."""
    peer.send_request(frame)
    asked = Asked(role, {})
    while True:
        incoming = peer.receive()
        if not isinstance(incoming, dict):
            continue
        if "method" not in incoming and incoming.get("id") == frame["id"]:
            asked.response = incoming
            return asked
        method = incoming.get("method")
        if method and "id" in incoming:  # a request of the server's: answered
            request_params = incoming.get("params") if isinstance(incoming.get("params"), dict) else {}
            if method == "elicitation/create":
                asked.requests.append(request_params)
                result = answer(request_params)
            else:
                result = CLIENT_RESULTS.get(method, {})
            peer.send({"jsonrpc": "2.0", "id": incoming["id"], "result": result})
        elif method:
            asked.notifications.append(incoming)


def ask_each(peer: Peer, roles: tuple[str, ...], capabilities: dict) -> list[Asked]:
    """Each role's tool the profile binds and the server lists to such a client, called once (declined)."""
    peer.open(capabilities)  # at 2026-07-28 each call declares them instead
    return [ask(peer, binding, capabilities) for binding in optional_roles(peer, *roles)]


def requests_of(calls: list[Asked]) -> list[dict]:
    return [request for call in calls for request in call.requests]


def asked_anything(calls: list[Asked], what: str) -> list[dict]:
    """The elicitation requests of ``calls``; fixture-missing when there are none."""
    requests = requests_of(calls)
    if not requests:
        called = {call.role: call.error or call.result for call in calls}
        pytest.skip(f"fixture-missing: no {what} was asked (the calls: {called or 'no role bound and listed'})")
    return requests


def is_url_mode(params: dict) -> bool:
    return params.get("mode") == "url"


def form_requests(peer: Peer, revision: str) -> list[dict]:
    """The form-mode requests the form roles' tools send a client declaring every mode."""
    calls = ask_each(peer, FORM_ROLES, declared(revision, "form", "url"))
    return [params for params in asked_anything(calls, "form") if not is_url_mode(params)]


def url_requests(peer: Peer, revision: str, answer: Callable[[dict], dict] = lambda params: DECLINE) -> Asked:
    """One call of the URL role's tool by a client declaring both modes; fixture-missing if it asks nothing."""
    capabilities = declared(revision, "form", "url")
    peer.open(capabilities)  # at 2026-07-28 each call declares them instead
    asked = ask(peer, require_role(peer, URL_ROLE), capabilities, answer)
    asked_anything([asked], "URL-mode elicitation")
    return asked


# -- form mode --------------------------------------------------------------------------------------------


def field_labels(params: dict) -> list[str]:
    """The name and title of every field a form asks for, camelCase and snake_case split into words."""
    properties = (params.get("requestedSchema") or {}).get("properties") or {}
    labels = []
    for name, definition in properties.items() if isinstance(properties, dict) else ():
        labels.append(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", str(name)).replace("_", " ").replace("-", " "))
        if isinstance(definition, dict) and isinstance(definition.get("title"), str):
            labels.append(definition["title"])
    return labels


def assert_no_secret_asked(requests: list[dict]) -> None:
    asking = [(label, params.get("message")) for params in requests for label in field_labels(params)]
    secrets = [f"{label!r} (message {message!r})" for label, message in asking if SECRET_FIELD.search(label)]
    assert not secrets, f"form fields that ask for a secret: {', '.join(secrets)}"


@for_req("elicitation-no-sensitive-info", "server")
def test_no_elicitation_asks_for_a_secret(revision: str, server: Peer) -> None:
    assert_no_secret_asked(form_requests(server, revision))


@for_req("elicitation-form-no-sensitive-info", "server")
def test_no_form_asks_for_a_secret(revision: str, server: Peer) -> None:
    assert_no_secret_asked(form_requests(server, revision))


@for_req("elicitation-request-message", "server")
def test_every_elicitation_carries_a_message(revision: str, server: Peer) -> None:
    calls = ask_each(server, (*FORM_ROLES, URL_ROLE), declared(revision, "form", "url"))
    requests = asked_anything(calls, "elicitation")
    bad = [params for params in requests if not isinstance(params.get("message"), str) or not params["message"].strip()]
    assert not bad, f"elicitation requests without a message saying why: {bad}"


@for_req("elicitation-form-request-shape", "server")
def test_form_requests_are_form_mode_with_a_flat_primitive_schema(revision: str, server: Peer) -> None:
    calls = ask_each(server, FORM_ROLES, declared(revision, "form", "url"))
    problems = []
    for params in asked_anything(calls, "form"):
        if params.get("mode", "form") != "form":
            problems.append(f"mode {params.get('mode')!r} in a form request: {params}")
            continue
        if not isinstance(params.get("requestedSchema"), dict):
            problems.append(f"no requestedSchema: {params}")
            continue
        # The schema's own rules for a form: a flat object of primitive properties (the revision's shapes,
        # with the defaults and enum forms it defines); the message is its own cell.
        problems += schema.violations(revision, "ElicitRequestFormParams", {"message": ""} | params)
    assert not problems, "form requests out of shape:\n" + "\n".join(problems)


@for_req("elicitation-mode-omit-for-form", "server")
def test_a_form_request_may_leave_out_its_mode(revision: str, server: Peer) -> None:
    requests = form_requests(server, revision)
    without = [params for params in requests if "mode" not in params]
    if not without:
        pytest.skip(f"not-exercised: every form request names its mode ({[p.get('mode') for p in requests]})")
    assert all(isinstance(p.get("requestedSchema"), dict) and "url" not in p for p in without), without


@for_req("elicitation-mode-must-be-declared", "server")
def test_elicitations_keep_to_the_modes_the_client_declared(
    revision: str, server: Peer, open_session: SessionFactory
) -> None:
    """Three clients call every elicitation role's tool: one declaring form mode alone (an empty
    ``elicitation``), one URL mode alone, one no elicitation at all; each is asked only in its modes."""
    roles = (*FORM_ROLES, URL_ROLE)
    form_only = ask_each(server, roles, {"elicitation": {}})
    if server.stateless:  # no session: each call declares its own
        url_only = ask_each(server, roles, declared(revision, "url"))
        undeclared = ask_each(server, roles, {})
    else:
        with open_session(revision) as second, open_session(revision) as third:
            url_only = ask_each(second, roles, declared(revision, "url"))
            undeclared = ask_each(third, roles, {})
    wrong = [
        f"form only, {call.role}: {params}" for call in form_only for params in call.requests if is_url_mode(params)
    ]
    wrong += [
        f"url only, {call.role}: {params}" for call in url_only for params in call.requests if not is_url_mode(params)
    ]
    wrong += [f"no elicitation, {call.role}: {params}" for call in undeclared for params in call.requests]
    asked_anything(form_only + url_only + undeclared, "elicitation")
    assert not wrong, "elicitation requests in a mode the client did not declare:\n" + "\n".join(wrong)


def shown_texts(params: dict) -> list[str]:
    """What a client shows the user of a form: the message, and the titles, descriptions and option labels of
    the schema and its fields (values a field holds or offers, its default and enum values, are data)."""
    found = [params.get("message")]
    requested = params.get("requestedSchema") if isinstance(params.get("requestedSchema"), dict) else {}
    nodes = [requested, *((requested.get("properties") or {}).values())]
    for node in [n for n in nodes if isinstance(n, dict)]:
        found += [node.get("title"), node.get("description"), *(node.get("enumNames") or [])]
        items = node.get("items") if isinstance(node.get("items"), dict) else {}
        options = [*(node.get("oneOf") or []), *(node.get("anyOf") or []), *(items.get("anyOf") or [])]
        found += [option.get("title") for option in options if isinstance(option, dict)]
    return [text for text in found if isinstance(text, str)]


@for_req("elicitation-form-no-clickable-urls", "server")
def test_form_requests_hold_no_links(revision: str, server: Peer) -> None:
    links = [
        match.group(0)
        for params in form_requests(server, revision)
        for text in shown_texts(params)
        for match in LINK.finditer(text)
    ]
    assert not links, f"form requests carry links a client could render clickable: {links}"


def invalid_content(params: dict) -> dict:
    """Content that breaks the form's requestedSchema: each field given a value of another type."""
    content: dict[str, Any] = {}
    properties = (params.get("requestedSchema") or {}).get("properties") or {}
    for name, definition in properties.items():
        kind = definition.get("type") if isinstance(definition, dict) else None
        content[name] = {"string": 12345, "number": "not a number", "integer": "not a number", "boolean": "maybe"}.get(
            kind, ["mcp-matrix-not-an-option"] if kind != "array" else "mcp-matrix-not-a-list"
        )
    return content


@for_req("elicitation-server-validate-response", "server")
def test_content_that_breaks_the_requested_schema_is_not_taken(revision: str, server: Peer) -> None:
    capabilities = declared(revision, "form", "url")
    server.open(capabilities)
    tool = require_role(server, "elicitation-tool")
    invalid: list[dict] = []

    def accept_invalid(params: dict) -> dict:
        if len(invalid) >= 3:  # a server that asks again and again has shown it refuses the content
            return DECLINE
        invalid.append(invalid_content(params))
        return {"action": "accept", "content": invalid[-1]}

    asked = ask(server, tool, capabilities, accept_invalid)
    if server.stateless and asked.input_required and asked.input_keys:
        state = asked.result.get("requestState")
        responses = {key: accept_invalid(params) for key, params in zip(asked.input_keys, asked.requests, strict=True)}
        retry = {"inputResponses": responses} | ({"requestState": state} if state is not None else {})
        answered = ask(server, tool, capabilities, accept_invalid, retry)
    else:
        answered = asked
    if not invalid or not any(invalid):
        pytest.skip(f"fixture-missing: {tool.name} asked for no field to give a wrong value: {asked.requests}")
    refused = answered.error is not None or answered.result.get("isError") is True
    asked_again = bool(answered.requests) if server.stateless else len(asked.requests) > 1
    assert refused or asked_again, (
        f"content breaking the requestedSchema ({invalid[-1]}) was taken: {answered.response}"
    )


# -- URL mode ---------------------------------------------------------------------------------------------


@for_req("elicitation-url-request-fields", "server")
def test_url_requests_carry_mode_message_and_url(revision: str, server: Peer) -> None:
    asked = url_requests(server, revision)
    bad = [
        params
        for params in asked.requests
        if params.get("mode") != "url"
        or not isinstance(params.get("message"), str)
        or not isinstance(params.get("url"), str)
    ]
    assert not bad, f"URL-mode requests without mode url, a message and a url: {bad}"


@for_req("elicitation-url-request-elicitation-id", "server")
def test_url_requests_carry_an_elicitation_id(revision: str, server: Peer) -> None:
    asked = url_requests(server, revision)
    bad = [
        params
        for params in asked.requests
        if not isinstance(params.get("elicitationId"), str) or not params["elicitationId"]
    ]
    assert not bad, f"URL-mode requests without an elicitationId: {bad}"


def urls(peer: Peer, revision: str) -> list[Any]:
    """The url of every URL-mode request the URL role's tool sends (a request without mode url is
    elicitation-url-request-fields' cell: none at all leaves nothing to judge here)."""
    found = [params.get("url") for params in url_requests(peer, revision).requests if is_url_mode(params)]
    if not found:
        pytest.skip("fixture-missing: the URL role's tool sent no request with mode url")
    return found


def is_valid_url(url: Any) -> bool:
    if not isinstance(url, str) or not ABSOLUTE_URI.match(url):
        return False
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        return False
    return parts.scheme.lower() not in ("http", "https") or bool(parts.hostname)


@for_req("elicitation-url-valid", "server")
def test_the_url_is_a_valid_url(revision: str, server: Peer) -> None:
    found = urls(server, revision)
    assert all(is_valid_url(url) for url in found), f"URL-mode requests with an invalid url: {found}"


@for_req("elicitation-url-https", "server")
def test_the_url_uses_https(revision: str, server: Peer) -> None:
    # http to a loopback host is a development environment, which the clause exempts.
    found = urls(server, revision)
    plain = [
        url
        for url in found
        if isinstance(url, str)
        and urllib.parse.urlsplit(url).scheme.lower() != "https"
        and (urllib.parse.urlsplit(url).hostname or "") not in LOOPBACK_HOSTS
    ]
    assert not plain, f"URL-mode requests whose url is not https: {plain}"


@for_req("elicitation-url-no-user-sensitive-data", "server")
def test_the_url_holds_no_credentials_or_personal_data(revision: str, server: Peer) -> None:
    # As far as a URL shows it: a password in its userinfo, a credential-named parameter, an email address.
    problems = []
    for url in urls(server, revision):
        parts = urllib.parse.urlsplit(str(url))
        if parts.password:
            problems.append(f"{url}: a password in its userinfo")
        parameters = urllib.parse.parse_qsl(parts.query) + urllib.parse.parse_qsl(parts.fragment)
        named = sorted({name for name, _ in parameters if name.lower() in CREDENTIAL_PARAMETERS})
        if named:
            problems.append(f"{url}: credential parameters {named}")
        if EMAIL.search(urllib.parse.unquote(str(url))):
            problems.append(f"{url}: an email address")
    assert not problems, "URL-mode requests whose url carries the user's sensitive data:\n" + "\n".join(problems)


def completed(peer: Peer, revision: str) -> tuple[set[str], list[dict]]:
    """Accept one URL-mode elicitation; its elicitationIds and the completions the server sent with the call
    (a ping after it takes in whatever the server sent before answering the ping)."""
    asked = url_requests(peer, revision, lambda params: {"action": "accept"})
    pinged = exchange(peer, peer.envelope("ping", f"after-{peer.next_id()}"))
    complete = [frame for frame in asked.notifications + pinged.notifications if frame.get("method") == COMPLETE]
    ids = {params.get("elicitationId") for params in asked.requests if is_url_mode(params)}
    return {i for i in ids if isinstance(i, str)}, complete


@for_req("elicitation-complete-notification-may", "server")
def test_the_completion_of_a_url_elicitation_may_be_announced(revision: str, server: Peer) -> None:
    _, complete = completed(server, revision)
    if not complete:
        pytest.skip("not-exercised: no notifications/elicitation/complete came with the accepted URL elicitation")
    assert all(isinstance((n.get("params") or {}).get("elicitationId"), str) for n in complete), complete


@for_req("elicitation-complete-notification-id", "server")
def test_the_completion_names_the_elicitation(revision: str, server: Peer) -> None:
    ids, complete = completed(server, revision)
    if not complete:
        pytest.skip("fixture-missing: the server announced no completion of the accepted URL elicitation")
    named = [(n.get("params") or {}).get("elicitationId") for n in complete]
    assert all(name in ids for name in named), f"completions name {named}; the elicitation/create named {sorted(ids)}"


@for_req("elicitation-complete-notification-target", "server", transports=BOTH_TRANSPORTS)
def test_a_completion_goes_only_to_the_client_that_was_asked(
    revision: str, transport: str, peer: Peer, open_session: SessionFactory, tmp_path: Any
) -> None:
    """Two sessions with the server, each accepting a URL-mode elicitation of its own: neither is told of
    the other's completion (over Streamable HTTP both are sessions of one server process)."""
    if isinstance(peer, HttpPeer):
        trace = Trace(tmp_path / "second-session.jsonl", "streamable-http")
        other_session = HttpPeer(peer.url, trace, revision, fault=peer.fault)
        other_session.roles = peer.roles
        context: Any = other_session
    else:
        context = open_session(revision)
    with context as other:
        first_ids, first = completed(peer, revision)
        second_ids, second = completed(other, revision)
        if not first and not second:
            pytest.skip("fixture-missing: the server announced no completion of an accepted URL elicitation")
        foreign = [
            f"{who}: {n}"
            for who, own, complete in (("first", first_ids, first), ("second", second_ids, second))
            for n in complete
            if (n.get("params") or {}).get("elicitationId") not in own
        ]
        assert not foreign, "completions of elicitations this client was never asked:\n" + "\n".join(foreign)


def refused_for_url_elicitation(peer: Peer, revision: str) -> Asked:
    capabilities = declared(revision, "form", "url")
    peer.open(capabilities)  # at 2026-07-28 each call declares them instead
    return ask(peer, require_role(peer, REQUIRED_ROLE), capabilities)


def url_required_error(peer: Peer, revision: str) -> dict:
    """The -32042 error the url-elicitation-required tool answers with; fixture-missing otherwise."""
    asked = refused_for_url_elicitation(peer, revision)
    if asked.error is None or asked.error.get("code") != URL_ELICITATION_REQUIRED:
        pytest.skip(f"fixture-missing: the call was not refused with -32042: {asked.response}")
    return asked.error


@for_req("elicitation-url-required-error-may", "server")
def test_a_request_may_be_refused_until_a_url_elicitation_completes(revision: str, server: Peer) -> None:
    asked = refused_for_url_elicitation(server, revision)
    if asked.error is None:
        pytest.skip(f"not-exercised: the call was served: {asked.result}")
    assert asked.error.get("code") == URL_ELICITATION_REQUIRED, asked.error


@for_req("elicitation-error-url-required-code", "server")
def test_a_request_waiting_on_a_url_elicitation_is_refused_with_32042(revision: str, server: Peer) -> None:
    asked = refused_for_url_elicitation(server, revision)
    if asked.error is None:
        pytest.skip(f"fixture-missing: the call was served, so nothing waited on an elicitation: {asked.result}")
    assert asked.error.get("code") == URL_ELICITATION_REQUIRED, (
        f"a call that needs a URL-mode elicitation first was refused with {asked.error}"
    )


@for_req("elicitation-url-required-error-lists-elicitations", "server")
def test_the_url_required_error_lists_the_elicitations(revision: str, server: Peer) -> None:
    error = url_required_error(server, revision)
    listed = (error.get("data") or {}).get("elicitations") if isinstance(error.get("data"), dict) else None
    assert isinstance(listed, list) and listed, f"-32042 without a list of elicitations in data.elicitations: {error}"


@for_req("elicitation-url-required-error-url-mode-only", "server")
def test_the_url_required_error_lists_url_mode_elicitations_only(revision: str, server: Peer) -> None:
    error = url_required_error(server, revision)
    listed = (error.get("data") or {}).get("elicitations") if isinstance(error.get("data"), dict) else None
    if not isinstance(listed, list) or not listed:
        pytest.skip(f"fixture-missing: the -32042 error lists no elicitations (their own cell): {error}")
    problems = []
    for entry in listed:
        if not isinstance(entry, dict) or entry.get("mode") != "url" or not entry.get("elicitationId"):
            problems.append(f"not a URL-mode elicitation with an elicitationId: {entry}")
        else:
            problems += schema.violations(revision, "ElicitRequestURLParams", entry)
    assert not problems, "-32042 lists:\n" + "\n".join(problems)


@for_req("elicitation-url-required-error-only-when-needed", "server")
def test_requests_that_need_no_url_elicitation_are_not_refused_with_32042(revision: str, server: Peer) -> None:
    """Requests a server answers without asking anything in URL mode (the lists, a read, a prompt, plain
    tool calls, and a call that asks in form mode) are never refused with -32042."""
    server.open({"sampling": {}, "roots": {"listChanged": True}} | declared(revision, "form", "url"))

    def requests(peer: Peer) -> Any:
        yield from rich_requests(peer)
        if tool := peer.roles.get("elicitation-tool"):
            yield tool_call(peer, "needs-form", tool.name, tool.args())

    refused = [
        e
        for e in error_objects([s.frame for s in converse(server, requests).seen])
        if e.get("code") == URL_ELICITATION_REQUIRED
    ]
    assert not refused, f"requests needing no URL-mode elicitation refused with -32042: {refused}"


# -- 2026-07-28: asking in an input_required result ---------------------------------------------------------


@for_req("elicitation-request-via-input-required", "server")
def test_elicitation_may_come_as_an_input_required_result(revision: str, server: Peer) -> None:
    capabilities = declared(revision, "form", "url")
    asked = ask(server, require_role(server, "elicitation-tool"), capabilities)
    if not (asked.input_required and asked.requests):
        pytest.skip(f"not-exercised: the call asked no elicitation in an input_required result: {asked.response}")
    assert all("message" in params for params in asked.requests), asked.result


@for_req("elicitation-server-handle-failure", "server")
def test_declined_cancelled_or_unanswered_elicitations_are_handled(revision: str, server: Peer) -> None:
    """A retry that declines, one that cancels and one that brings no answer (the client failed to process
    the question) are each answered, and not with an internal error."""
    capabilities = declared(revision, "form", "url")
    tool = require_role(server, "elicitation-tool")
    asked = ask(server, tool, capabilities)
    if not (asked.input_required and asked.input_keys):
        pytest.skip(f"fixture-missing: the call asked no elicitation in an input_required result: {asked.response}")
    state = asked.result.get("requestState")
    carried = {"requestState": state} if state is not None else {}
    outcomes = {}
    for what, responses in (
        ("declined", {key: {"action": "decline"} for key in asked.input_keys}),
        ("cancelled", {key: {"action": "cancel"} for key in asked.input_keys}),
        ("unanswered", {}),
    ):
        outcomes[what] = ask(server, tool, capabilities, retry={"inputResponses": responses} | carried).response
    broken = {
        what: response
        for what, response in outcomes.items()
        if (response.get("error") or {}).get("code") == INTERNAL_ERROR
    }
    assert not broken, f"the server failed on an elicitation that did not succeed: {broken}"


# == the client side: the client under test answering the scripted server's elicitations =====================
#
# The client under test runs a scenario of the client driver (conformance/fixtures/client.py: the host takes
# elicitation, and its user accepts, declines or answers wrongly) against the scripted Streamable HTTP server.
# Up to 2025-11-25 the server asks with ``elicitation/create`` requests sent on the SSE stream of the client's
# tool call, which it answers once the client has answered them (bounded); at 2026-07-28 it answers the call
# with an ``input_required`` result whose ``inputRequests`` hold the questions, and the client's answers come
# in the retried call's ``inputResponses``. Each test judges what the client sent (and, where the driver tells
# it, what the client told its application) before requiring the run to have completed.

RunClient = Callable[[str], ClientRun]
MODERN = "2026-07-28"
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}
FORM_QUESTION = {"message": "What is your name?", "requestedSchema": NAME_SCHEMA}  # no mode: form by default
PROFILE_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 1},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "default": 30},  # SEP-1034: a default
        "colour": {"type": "string", "title": "Colour", "enum": ["red", "green"]},  # SEP-1330: a choice
        "subscribed": {"type": "boolean", "title": "Subscribed"},
    },
    "required": ["name", "age", "colour"],
}
PROFILE_QUESTION = {"mode": "form", "message": "Tell us about yourself", "requestedSchema": PROFILE_SCHEMA}
PAGE = "https://mcp-matrix.example/elicitation/page"
OPAQUE_ID = "mcp-matrix:0042/../%2e%2e?x=1#frag Ünï {not json}"  # an elicitationId that invites interpretation
PLAIN_ID = "mcp-matrix-plain-id"
ACTIONS = ("accept", "decline", "cancel")
INVALID_PARAMS = -32602
ELICITED_REPORT = "elicited"  # every question, as the application was asked it (a list)
IDS_REPORT = "elicitation-ids"  # the elicitationId the application was given for each URL question, by message


def url_question(revision: str, elicitation_id: str = PLAIN_ID, message: str = "Connect your account") -> dict:
    """A URL-mode question; 2025-11-25 gives it an elicitationId, 2026-07-28 none."""
    question = {"mode": "url", "message": message, "url": PAGE}
    return question | ({"elicitationId": elicitation_id} if revision != MODERN else {})


def ask_client(server: ScriptedServer, questions: list[dict]) -> list[str]:
    """Have the scripted server ask the client each of ``questions`` (elicitation/create params) during its
    first tools/call; the key of each question: its request's id, or at 2026-07-28 its inputRequests key."""
    if server.revision != MODERN:
        frames = [server.client_answers.request("elicitation/create") | {"params": q} for q in questions]
        server.streams["tools/call"] = StreamScript(
            events=list(frames), respond_when=lambda: all(server.answered(f["id"])() for f in frames)
        )
        return [f["id"] for f in frames]
    keys = [f"mcp-matrix-{number}" for number in range(1, len(questions) + 1)]
    requests = {key: {"method": "elicitation/create", "params": q} for key, q in zip(keys, questions, strict=True)}
    complete = server.answers["tools/call"]

    def serve(frame: dict) -> dict:
        params = frame.get("params") if isinstance(frame.get("params"), dict) else {}
        if params.get("inputResponses"):
            return complete(frame)
        return {"resultType": "input_required", "inputRequests": requests}

    server.answers["tools/call"] = serve
    return keys


def client_answers(server: ScriptedServer, keys: list[str]) -> dict[str, dict]:
    """The client's answer to each question asked (``ask_client``): ``{"result": ...}`` or ``{"error": ...}``,
    as the response (up to 2025-11-25) or the retried call's inputResponses entry (2026-07-28) carried it."""
    found: dict[str, dict] = {}
    for frame in server.frames():
        if not isinstance(frame, dict):
            continue
        if server.revision != MODERN:
            if "method" not in frame and frame.get("id") in keys:
                found[frame["id"]] = frame
        elif frame.get("method") == "tools/call":
            given = (frame.get("params") or {}).get("inputResponses") if isinstance(frame.get("params"), dict) else None
            for key, value in (given or {}).items() if isinstance(given, dict) else ():
                if key in keys:
                    found[key] = {"result": value}
    return found


def is_elicit_result(answer: dict | None) -> bool:
    """A result (no error) with one of the three actions."""
    result = (answer or {}).get("result")
    return "error" not in (answer or {}) and isinstance(result, dict) and result.get("action") in ACTIONS


def requests_sent(server: ScriptedServer) -> list[dict]:
    return [f for f in server.frames() if isinstance(f, dict) and "method" in f and "id" in f]


def handshake_capabilities(server: ScriptedServer) -> dict:
    """The capabilities of the client's initialize request (precondition: it sent one)."""
    initialize = next((f for f in requests_sent(server) if f["method"] == "initialize"), None)
    precondition(initialize is not None, "the client sent no initialize request")
    capabilities = (initialize.get("params") or {}).get("capabilities")
    return capabilities if isinstance(capabilities, dict) else {}


def request_capabilities(frame: dict) -> dict:
    """The capabilities a 2026-07-28 request declares in its ``_meta``."""
    params = frame.get("params") if isinstance(frame.get("params"), dict) else {}
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    capabilities = meta.get(CLIENT_CAPABILITIES_META)
    return capabilities if isinstance(capabilities, dict) else {}


def declared_elicitation(server: ScriptedServer) -> dict | None:
    """The elicitation capability the client declared: in its initialize request, or at 2026-07-28 in its
    tools/call (the request that was asked); None when it declared none."""
    if server.revision != MODERN:
        capabilities = handshake_capabilities(server)
    else:
        calls = [f for f in requests_sent(server) if f["method"] == "tools/call"]
        precondition(bool(calls), "the client sent no tools/call")
        capabilities = request_capabilities(calls[0])
    elicitation = capabilities.get("elicitation")
    return elicitation if isinstance(elicitation, dict) else None


def declared_modes(elicitation: dict) -> set[str]:
    """The modes an elicitation capability declares: the empty object is form only."""
    return {mode for mode in ("form", "url") if mode in elicitation} or {"form"}


def took_an_elicitation(server: ScriptedServer, keys: list[str]) -> dict[str, dict]:
    """The questions the client answered with a result; fixture-missing when it took none (it does not take
    elicitation in this scenario)."""
    answers = client_answers(server, keys)
    taken = {key: answer for key, answer in answers.items() if is_elicit_result(answer)}
    if not taken:
        pytest.skip(f"fixture-missing: the client answered no elicitation with a result: {answers}")
    return taken


@for_req("elicitation-capability-declare-initialize", "client")
def test_a_client_taking_elicitations_declares_them_when_it_initializes(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The host takes elicitation (``elicitation_accept``) and answers the server's form question: its
    initialize request declared ``elicitation``."""
    keys = ask_client(scripted_server, [FORM_QUESTION])
    run = run_client("elicitation_accept")

    def check() -> None:
        taken = took_an_elicitation(scripted_server, keys)
        capabilities = handshake_capabilities(scripted_server)
        assert isinstance(capabilities.get("elicitation"), dict), (
            f"the client answered elicitation/create with {list(taken.values())}, yet its initialize declared "
            f"the capabilities {capabilities}"
        )

    run.judge(check)


@for_req("elicitation-capability-declare-per-request", "client")
def test_a_client_taking_elicitations_declares_them_on_every_request(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The host takes elicitation and answers the question of an input_required result: every request it
    sent declared ``elicitation`` in ``_meta``'s client capabilities."""
    keys = ask_client(scripted_server, [FORM_QUESTION])
    run = run_client("elicitation_accept")

    def check() -> None:
        took_an_elicitation(scripted_server, keys)
        undeclared = [
            f"{f['method']} (id {f['id']}): {request_capabilities(f)}"
            for f in requests_sent(scripted_server)
            if not isinstance(request_capabilities(f).get("elicitation"), dict)
        ]
        assert not undeclared, "requests of a client that takes elicitation, without it declared:\n" + "\n".join(
            undeclared
        )

    run.judge(check)


@for_req("elicitation-capability-at-least-one-mode", "client")
def test_a_client_declaring_elicitation_takes_a_mode_it_declared(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The server asks one form question and one URL question: of the modes the client declared (an empty
    ``elicitation`` object: form), at least one is answered with a result (accepted, declined or cancelled)."""
    questions = {"form": PROFILE_QUESTION, "url": url_question(revision)}
    keys = dict(zip(questions, ask_client(scripted_server, list(questions.values())), strict=True))
    run = run_client("elicitation_accept")

    def check() -> None:
        elicitation = declared_elicitation(scripted_server)
        if elicitation is None:
            pytest.skip("fixture-missing: the client declared no elicitation in this scenario")
        answers = client_answers(scripted_server, list(keys.values()))
        modes = declared_modes(elicitation)
        taken = [mode for mode in modes if is_elicit_result(answers.get(keys[mode]))]
        assert taken, (
            f"the client declared elicitation {elicitation} (modes {sorted(modes)}), yet answered no question in "
            f"those modes with a result: { ({mode: answers.get(keys[mode]) for mode in modes}) }"
        )

    run.judge(check)


@for_req("elicitation-missing-mode-is-form", "client")
def test_a_question_without_a_mode_is_taken_as_a_form(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The server asks a form question without ``mode``: the client answers it with a result, as a form, and
    (where the driver tells it) its application was asked a form."""
    keys = ask_client(scripted_server, [FORM_QUESTION])
    run = run_client("elicitation_accept")

    def check() -> None:
        elicitation = declared_elicitation(scripted_server)
        if elicitation is None or "form" not in declared_modes(elicitation):
            pytest.skip(f"fixture-missing: the client declared no form mode ({elicitation})")
        answer = client_answers(scripted_server, keys).get(keys[0])
        assert is_elicit_result(answer), f"a form question without a mode was answered {answer}"
        told = run.report(ELICITED_REPORT) or []
        modes = [entry.get("mode", "form") for entry in told if isinstance(entry, dict)]
        assert all(mode == "form" for mode in modes), f"the application was asked {told}"

    run.judge(check)


@for_req("elicitation-error-undeclared-mode", "client")
def test_a_question_in_an_undeclared_mode_is_refused_with_invalid_params(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """A host that takes form mode only (``elicitation_form_only``) is asked a form and a URL question: the
    question in the mode it did not declare is answered with -32602."""
    questions = {"form": PROFILE_QUESTION, "url": url_question(revision)}
    keys = dict(zip(questions, ask_client(scripted_server, list(questions.values())), strict=True))
    run = run_client("elicitation_form_only")

    def check() -> None:
        elicitation = declared_elicitation(scripted_server)
        undeclared = sorted(set(questions) - declared_modes(elicitation or {})) if elicitation is not None else []
        if not undeclared:
            pytest.skip(f"fixture-missing: the client left no mode undeclared (elicitation {elicitation})")
        answers = client_answers(scripted_server, list(keys.values()))
        wrong = {mode: answers.get(keys[mode]) for mode in undeclared}
        wrong = {mode: a for mode, a in wrong.items() if ((a or {}).get("error") or {}).get("code") != INVALID_PARAMS}
        assert not wrong, (
            f"questions in modes the client did not declare ({elicitation}), not refused with -32602: {wrong}"
        )

    run.judge(check)


@for_req("elicitation-client-validate-response", "client")
def test_an_answer_that_breaks_the_form_is_not_sent(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The user's answer breaks the requested schema (``elicitation_invalid_answer``: a number for a text, a
    text for a number, a colour not offered): the client does not send it as accepted content (it may refuse,
    decline, cancel, or send a corrected answer)."""
    question = (
        PROFILE_QUESTION if revision != "2025-06-18" else {k: v for k, v in PROFILE_QUESTION.items() if k != "mode"}
    )
    keys = ask_client(scripted_server, [question])
    run = run_client("elicitation_invalid_answer")

    def check() -> None:
        answer = client_answers(scripted_server, keys).get(keys[0])
        if answer is None:
            pytest.skip("fixture-missing: the client did not answer the form")
        result = answer.get("result") if isinstance(answer.get("result"), dict) else {}
        if result.get("action") != "accept" or "error" in answer:
            return
        content = result.get("content", {})
        problems = [
            f"{list(e.absolute_path)}: {e.message}" for e in Draft202012Validator(PROFILE_SCHEMA).iter_errors(content)
        ]
        assert not problems, f"the client sent an answer that breaks the requested schema: {result}\n" + "\n".join(
            problems
        )

    run.judge(check)


@for_req("elicitation-url-id-opaque-elicitationid", "client")
def test_the_elicitation_id_is_taken_as_it_is(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Two URL questions, one with a plain elicitationId and one whose id looks like a path, a query and
    JSON: the client answers both alike, and (where the driver tells it) hands the application each id as
    it came."""
    questions = [url_question(revision, PLAIN_ID, "Plain"), url_question(revision, OPAQUE_ID, "Opaque")]
    plain, opaque = ask_client(scripted_server, questions)
    run = run_client("elicitation_accept")

    def check() -> None:
        answers = client_answers(scripted_server, [plain, opaque])
        if not is_elicit_result(answers.get(plain)):
            pytest.skip(f"fixture-missing: the client took no URL elicitation: {answers.get(plain)}")
        assert is_elicit_result(answers.get(opaque)), (
            f"the client took the URL question with the id {PLAIN_ID!r}, but answered the one with the id "
            f"{OPAQUE_ID!r} with {answers.get(opaque)}"
        )
        told = run.report(IDS_REPORT) or {}
        sent = {q["message"]: q["elicitationId"] for q in questions}
        wrong = {message: told[message] for message in told.keys() & sent.keys() if told[message] != sent[message]}
        assert not wrong, f"the application was told other ids than the server sent: {wrong} (sent {sent})"

    run.judge(check)


# -- the client side: what a client does with the URL of a URL-mode question -------------------------------
#
# The URL points at the page server (harness/pages.py: a loopback listener apart from the MCP endpoint, which
# serves a page there and records every request and connection); the client's requests to it are its fetches
# of the URL and of anything about it. The record is read once the client's process has ended: the bound
# waited for is its whole run, with no idle wait after it.

URL_PAGE = "/elicitation/connect"


def page_question(revision: str, pages: PageServer) -> dict:
    """A URL-mode question whose URL is a page the page server serves."""
    pages.pages[URL_PAGE] = Page(b"<!doctype html><title>Connect your account</title>", "text/html")
    return url_question(revision) | {"url": f"{pages.url}{URL_PAGE}?flow=mcp-matrix"}


@for_req("elicitation-url-no-prefetch", "client")
def test_nothing_about_the_url_is_fetched_on_the_clients_initiative(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer, page_server: PageServer
) -> None:
    """The server asks a URL question, which the user accepts (consent to open the URL): within the client's whole
    run nothing reaches the URL's origin but, at most, a GET of the URL itself (the opening the consent allows,
    which a prefetch of it cannot be told from): no HEAD or OPTIONS of it, no favicon, robots.txt or other path
    of its site, no TLS handshake. A client that answered no URL question with a result: fixture-missing."""
    question = page_question(revision, page_server)
    keys = ask_client(scripted_server, [question])
    run = run_client("elicitation_accept")

    def check() -> None:
        opening = [r for r in page_server.requests() if r.method == "GET" and r.bare_path == URL_PAGE]
        about = [f"{r.method} {r.path}" for r in page_server.requests() if r not in opening]
        about += [f"a connection beginning {c.began!r}" for c in page_server.connections() if not c.http]
        assert not about, f"the client fetched what is about the URL {question['url']} on its own: {about}"
        took_an_elicitation(scripted_server, keys)

    run.judge(check)


@for_req("elicitation-url-consent-before-open", "client")
def test_a_url_the_user_declined_is_never_opened(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer, page_server: PageServer
) -> None:
    """The server asks a URL question, which the user declines: the user never agreed to open the URL, and within
    the client's whole run no request for it reaches the page server. A client that answered no URL question with
    a result (the user was never asked): fixture-missing."""
    question = page_question(revision, page_server)
    keys = ask_client(scripted_server, [question])
    run = run_client("elicitation_decline")

    def check() -> None:
        opened = [f"{r.method} {r.path}" for r in page_server.requests() if r.bare_path == URL_PAGE]
        assert not opened, f"the client opened the URL {question['url']}, which its user declined: {opened}"
        took_an_elicitation(scripted_server, keys)

    run.judge(check)


# -- the client side, 2025-11-25: completion notifications of URL-mode elicitations ------------------------
#
# A completion notification belongs to no request: the scripted server sends it on the client's standalone GET
# stream (a client that opens none cannot be told, and its cells read fixture-missing).

UNKNOWN_ID = "mcp-matrix-never-asked"


def completion(elicitation_id: str) -> dict:
    return {"jsonrpc": "2.0", "method": COMPLETE, "params": {"elicitationId": elicitation_id}}


def get_events_sent(server: ScriptedServer, count: int) -> Callable[[], bool]:
    """A predicate: ``count`` events have gone out on the client's GET stream."""
    return lambda: any(s.method == "GET" and len(s.event_ids) >= count for s in server.stream_log)


@for_req("elicitation-complete-ignore-unknown", "client")
def test_completions_of_unknown_or_completed_elicitations_are_ignored(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """During a tool call the server asks a URL question, which the user accepts; then, on the GET stream, the
    server announces its completion, announces it again (already completed) and announces one it never asked
    (unknown), and only then answers the call. The client ignores the last two as far as the wire shows: it
    answers none of them, and carries on (the call's answer taken, its next request sent)."""
    server = scripted_server
    asked = ask_client(server, [url_question(revision)])
    announced = [completion(PLAIN_ID), completion(PLAIN_ID), completion(UNKNOWN_ID)]
    server.get_stream = GetStreamScript(events=announced, send_when=server.answered(asked[0]))
    told = get_events_sent(server, len(announced))
    server.streams["tools/call"].respond_when = lambda: server.answered(asked[0])() and told()
    run = run_client("elicitation_accept")

    def check() -> None:
        took_an_elicitation(server, asked)
        sent = [e.payload for e in Timeline(server).to_client(COMPLETE)]
        if len(sent) < len(announced):
            pytest.skip(f"fixture-missing: the client opened no GET stream to be told of completions ({sent})")
        frames = [f for f in server.frames() if isinstance(f, dict)]
        stray = [f for f in frames if "method" not in f and f.get("id") not in asked]
        assert not stray, f"the client answered frames it was never asked (the completions?): {stray}"
        call = next(i for i, f in enumerate(frames) if f.get("method") == "tools/call")
        later = [f for f in frames[call + 1 :] if "method" in f and "id" in f]
        assert later, "after the completions of an unknown and of a completed elicitation, the client sent nothing more"

    run.judge(check)


@for_req("elicitation-complete-may-await", "client")
def test_a_client_may_await_the_completion_before_retrying(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """The first tools/call is refused until a URL-mode elicitation completes (-32042); the server then
    announces its completion on the GET stream. The permission used: the client retries the call once the
    completion is announced (not-exercised when it does not retry, or retries without waiting for it)."""
    server = scripted_server
    refusal = {
        "code": -32042,
        "message": "This request requires more information.",
        "data": {"elicitations": [url_question(revision)]},
    }
    complete_call = server.answers["tools/call"]
    calls = iter(range(1, 1000))
    server.answers["tools/call"] = lambda frame: {"error": refusal} if next(calls) == 1 else complete_call(frame)

    def refused() -> bool:
        return any(r.status and any(f.get("method") == "tools/call" for f in r.frames) for r in server.received)

    server.get_stream = GetStreamScript(events=[completion(PLAIN_ID)], send_when=refused)
    run = run_client("url_elicitation_required")
    run.require_completed()
    timeline = Timeline(server)
    announced = timeline.to_client(COMPLETE)
    retries = timeline.requests("tools/call")[1:]
    if not announced:
        pytest.skip("fixture-missing: the client opened no GET stream to be told of the completion")
    waited = [r for r in retries if r.ts >= announced[0].ts]
    if not waited:
        pytest.skip(
            f"not-exercised: the client did not retry the call once the completion came ({len(retries)} retries)"
        )
    assert all(r.payload.get("params", {}).get("name") for r in waited), [r.payload for r in waited]
