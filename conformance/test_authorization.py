"""Authorization: the server side (the SDK's resource server in front of the fixture server) and the client side
(the client under test through its OAuth flow), against the harness's authorization server and protected
resource on loopback (docs/authorization-fixture.md).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import jwt
import pytest

from conformance.fixtures.user_agent import (
    CLIENT_METADATA_URL,
    CLIENT_METADATA_URL_VARIABLE,
    OAUTH_REDIRECT_URI,
    PREREGISTERED_CLIENT_ID,
    PREREGISTERED_ISSUER_VARIABLE,
)
from conformance.harness.authorization import (
    MOVED_ENDPOINTS,
    OAUTH_ONLY,
    OPENID_ONLY,
    OTHER_AUDIENCE,
    OWN_ISSUER,
    REDIRECT_REFUSAL,
    WRONG_ISSUER,
    AuthorizationServer,
    Misbehaviour,
    SeenRequest,
)
from conformance.harness.frames import initialize_params
from conformance.harness.http import Exchange, HttpPeer
from conformance.harness.launcher import Launcher
from conformance.harness.peer import precondition
from conformance.harness.protected_resource import ProtectedResource, ResourceMisbehaviour
from conformance.harness.trace import Trace
from conformance.matrix.covers import for_req
from conformance.run.plugin import (
    CLIENT_RUN_SECONDS,
    TRACE_KEY,
    ClientRun,
    ConfiguredServer,
    active_fault,
    run_client_process,
    trace_goes,
)

# -- server side ---------------------------------------------------------------------------------------------
#
# The target's server in its ``oauth`` configuration (for the default target, the SDK's resource server in front
# of the fixture server), trusting the worker's ``authorization_server``, whose ``mint`` signs whatever token a
# test orders. Each test sends the opening request of a session (initialize; server/discover at 2026-07-28)
# with a token, and judges the status and ``WWW-Authenticate`` challenge of the answer, and the protected-resource
# metadata; a cover's fault rewrites those answers (``http-status``, ``http-header``, ``http-body``).

OPENING_ID = "opening"  # the id of the opening request (a cover's fault names its method: see the coverage)
#: RFC 7235's auth-param: a token, "=", a token or a quoted string (with backslash escapes).
AUTH_PARAM = re.compile(r'([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


@dataclass
class Protected:
    """The protected server under test: its MCP endpoint, the scopes its configuration says a request needs,
    the authorization server it trusts, and the test's peer (its fault and trace), pointed at each URL asked."""

    url: str
    scopes: list[str]
    issuer: AuthorizationServer
    peer: HttpPeer

    def token(self, **minted: Any) -> str:
        """A token of the trusted issuer for this server with the scopes it needs, unless ``minted`` says
        otherwise (``AuthorizationServer.mint``'s arguments)."""
        return self.issuer.mint(**({"audience": self.url, "scopes": self.scopes} | minted))

    def attempt(self, token: str | None, *, in_query: bool = False) -> Exchange:
        return opening_attempt(self.peer, self.url, token, in_query=in_query)

    def untokened_follow_up(self, session_id: str) -> Exchange:
        """A request (ping; server/discover at 2026-07-28) in the session ``session_id``, without a token."""
        peer = self.peer
        peer.url = self.url
        peer.session_id, peer.negotiated_version = session_id, peer.revision
        try:
            return peer.exchange("POST", peer.envelope(peer.probe_method, "follow-up"))
        finally:
            peer.session_id, peer.negotiated_version = None, peer.revision if peer.stateless else None

    def fetch(self, url: str) -> Exchange:
        """A GET of a document beside the MCP endpoint (its protected-resource metadata)."""
        self.peer.url = url
        return self.peer.exchange("GET", headers={"Accept": "application/json"})

    def well_known_metadata_urls(self) -> list[str]:
        """RFC 9728's locations for this endpoint: the well-known prefix before its path, then at the root."""
        parts = urllib.parse.urlsplit(self.url)
        root = f"{parts.scheme}://{parts.netloc}{PRM_PATH}"
        path = parts.path.rstrip("/")
        return [f"{root}{path}", root] if path else [root]


def opening_attempt(peer: HttpPeer, url: str, token: str | None, *, in_query: bool = False) -> Exchange:
    """The opening request of a session (initialize; server/discover at 2026-07-28) to ``url`` bearing ``token``
    in the Authorization header, or (``in_query``) only as RFC 6750's ``access_token`` query parameter."""
    peer.url = url
    if token and in_query:
        peer.url = f"{url}{'&' if '?' in url else '?'}{urllib.parse.urlencode({'access_token': token})}"
    if peer.stateless:
        frame = peer.envelope(peer.probe_method, OPENING_ID)
    else:
        frame = peer.envelope("initialize", OPENING_ID, initialize_params(peer.revision))
    headers = peer.headers_for(frame)
    if token and not in_query:
        headers["Authorization"] = f"Bearer {token}"
    return peer.exchange("POST", frame, headers)


@pytest.fixture
def protected(
    configured_server: ConfiguredServer,
    authorization_server: AuthorizationServer,
    authorization_trace: Trace,
    revision: str,
    request: pytest.FixtureRequest,
) -> Iterator[Protected]:
    """The target's server in its ``oauth`` configuration (fixture-missing where its profile has none). Its
    session trace, beside the authorization trace, is the test's (what the offline validator judges), kept only
    if the test fails."""
    configured = configured_server("oauth")
    trace = Trace(authorization_trace.path.with_suffix("").with_suffix(".jsonl"), "streamable-http")
    request.node.stash[TRACE_KEY] = trace.path
    peer = HttpPeer(configured.url, trace, revision, fault=active_fault(request))
    try:
        yield Protected(configured.url, configured.values.get("scopes", "").split(), authorization_server, peer)
    finally:
        peer.close()
        if trace_goes(request):
            trace.path.unlink(missing_ok=True)


def accepting(server: Protected) -> Protected:
    """The server lets in a request with a good token: without that, no refusal shows anything about tokens."""
    exchange = server.attempt(server.token())
    precondition(200 <= exchange.status < 300, f"a request with a good token was answered {exchange.status}")
    return server


def challenge_of(exchange: Exchange) -> tuple[str, dict[str, str]]:
    """The auth scheme of an answer's WWW-Authenticate header (lower case; "" when there is none) and its
    parameters (names in lower case, quoted values unescaped)."""
    value = exchange.headers.get("www-authenticate", "").strip()
    scheme, _, rest = value.partition(" ")
    params = {
        match[1].lower(): re.sub(r"\\(.)", r"\1", match[2]) if match[2] is not None else match[3]
        for match in AUTH_PARAM.finditer(rest)
    }
    return scheme.lower(), params


def refused(server: Protected, tokens: dict[str, str | None], status: int) -> dict[str, int]:
    """Each named token's attempt whose answer is not ``status``, with the status it got."""
    statuses = {name: server.attempt(token).status for name, token in tokens.items()}
    return {name: got for name, got in statuses.items() if got != status}


def tampered(token: str) -> str:
    """The token with its signature altered: another byte signed nothing this issuer signed."""
    head, _, signature = token.rpartition(".")
    return f"{head}.{'B' if signature[0] != 'B' else 'C'}{signature[1:]}"


def json_objects_in(exchange: Exchange) -> list[dict]:
    """The JSON objects an answer carried (its JSON body, or its SSE events' data), whatever they are."""
    texts = [exchange.body.decode("utf-8", "replace")] + [e.get("data", "") for e in exchange.events]
    found: list[dict] = []
    for text in texts:
        try:
            parsed = json.loads(text)
        except ValueError:
            continue
        found.extend(item for item in (parsed if isinstance(parsed, list) else [parsed]) if isinstance(item, dict))
    return found


def metadata_document(server: Protected, url: str) -> Any:
    """The JSON a metadata URL serves, or None where it serves none (not 200, or not JSON)."""
    exchange = server.fetch(url)
    if exchange.status != 200:
        return None
    try:
        return json.loads(exchange.body)
    except ValueError:
        return None


def located_metadata(server: Protected) -> tuple[str, Any]:
    """Where the protected-resource metadata is found and what it says: at the challenge's
    ``resource_metadata`` if the 401 names one, else at the first well-known location that serves JSON.
    ("", None) where neither serves it."""
    _, params = challenge_of(server.attempt(None))
    named = params.get("resource_metadata")
    for url in [named] if named else server.well_known_metadata_urls():
        document = metadata_document(server, url)
        if document is not None:
            return url, document
    return "", None


def same_resource(stated: Any, url: str) -> bool:
    """RFC 9728 compares the resource identifier with the URL the client used; scheme and host in any case,
    a trailing slash not meaningful here."""
    if not isinstance(stated, str):
        return False
    left, right = urllib.parse.urlsplit(stated), urllib.parse.urlsplit(url)
    return (left.scheme.lower(), left.netloc.lower(), left.path.rstrip("/"), left.query) == (
        right.scheme.lower(),
        right.netloc.lower(),
        right.path.rstrip("/"),
        right.query,
    )


@for_req("authorization-server-401-authorization-required", "server")
def test_a_request_without_a_token_is_answered_401(revision: str, protected: Protected) -> None:
    """No Authorization header: 401, also inside a session a good token opened (every request needs its
    token). Nor is a good token in the query string proof (OAuth 2.1 keeps only the header and the form body;
    a resource server must not take a token from the request URI)."""
    opened = protected.attempt(protected.token())
    precondition(200 <= opened.status < 300, f"a request with a good token was answered {opened.status}")
    bare = protected.attempt(None)
    assert bare.status == 401, f"a request without a token was answered {bare.status}"
    in_query = protected.attempt(protected.token(), in_query=True)
    assert in_query.status == 401, (
        f"a request with its (good) token only in the query string was answered {in_query.status}"
    )
    session = opened.headers.get("mcp-session-id")
    if session:
        later = protected.untokened_follow_up(session)
        assert later.status == 401, f"a request without a token in the session {session} was answered {later.status}"


@for_req("authorization-server-401-invalid-token", "server")
def test_a_request_with_an_invalid_or_expired_token_is_answered_401(revision: str, protected: Protected) -> None:
    server = accepting(protected)
    wrong = refused(
        server,
        {
            "expired a minute ago": server.token(expired=True),
            "not a token at all": "mcp-matrix-not-a-token",
            "with an altered signature": tampered(server.token()),
        },
        401,
    )
    assert not wrong, f"requests bearing an invalid or expired token were answered (status): {wrong}"


@for_req("authorization-server-validate-token", "server")
def test_the_server_validates_the_tokens_origin(revision: str, protected: Protected) -> None:
    """OAuth 2.1 section 5.2: a resource server makes sure the token is one its authorization server issued,
    untouched, and still valid. A token of another issuer (signed with the trusted key, so only the issuer
    tells), one whose signature does not verify, and an expired one are each refused. (On the default target the
    signature and issuer are checked by the deployment's token verifier, conformance/fixtures/resource_server.py,
    the SDK taking its verdict; expiry and the refusal's 401 are the SDK's.)"""
    server = accepting(protected)
    wrong = refused(
        server,
        {
            "of another issuer": server.token(issuer=WRONG_ISSUER),
            "with an altered signature": tampered(server.token()),
            "expired a minute ago": server.token(expired=True),
        },
        401,
    )
    assert not wrong, f"requests bearing tokens that fail validation were answered (status): {wrong}"


@for_req("authorization-server-validate-audience", "server")
def test_the_server_refuses_a_token_issued_for_another_resource(revision: str, protected: Protected) -> None:
    """The trusted issuer's token, good in every way but its audience: another resource (alone, or as a
    list that does not name this server) is refused with 401."""
    server = accepting(protected)
    wrong = refused(
        server,
        {
            "for another resource": server.token(audience=OTHER_AUDIENCE),
            "for a list of other resources": server.token(audience=[OTHER_AUDIENCE, f"{OTHER_AUDIENCE}/other"]),
        },
        401,
    )
    assert not wrong, f"requests bearing tokens issued for another audience were answered (status): {wrong}"


@for_req("authorization-server-validation-failure-response", "server")
def test_a_failed_validation_is_answered_with_a_bearer_error(revision: str, protected: Protected) -> None:
    """OAuth 2.1 section 5.3: the refusal of a token carries a ``WWW-Authenticate: Bearer`` challenge with
    the error code of its case: ``invalid_token`` (401) for an expired one, ``insufficient_scope`` (403) for
    one without the scope the request needs."""
    server = accepting(protected)
    cases = {"expired": (server.token(expired=True), 401, "invalid_token")}
    if server.scopes:
        cases["without the needed scope"] = (server.token(scopes=[]), 403, "insufficient_scope")
    wrong = {}
    for name, (token, status, error) in cases.items():
        exchange = server.attempt(token)
        scheme, params = challenge_of(exchange)
        if exchange.status != status or scheme != "bearer" or params.get("error") != error:
            wrong[name] = (exchange.status, exchange.headers.get("www-authenticate"))
    assert not wrong, f"refusals without the Bearer error response of their case (status, challenge): {wrong}"


@for_req("authorization-server-403-insufficient-permissions", "server")
def test_a_token_without_the_needed_scope_is_answered_403(revision: str, protected: Protected) -> None:
    """The configuration's ``scopes`` are what a request needs: a token of no scope, or of a scope the
    resource does not know, is answered 403."""
    server = accepting(protected)
    if not server.scopes:
        pytest.skip("fixture-missing: the target's oauth configuration names no scope a request needs")
    wrong = refused(
        server,
        {"of no scope": server.token(scopes=[]), "of an unknown scope": server.token(scopes=["mcp-matrix:unknown"])},
        403,
    )
    assert not wrong, f"requests bearing tokens without the needed scope were answered (status): {wrong}"


@for_req("authorization-server-validate-before-processing", "server")
def test_a_request_with_a_refused_token_is_not_processed(revision: str, protected: Protected) -> None:
    """The opening request bearing an expired token: its answer carries no JSON-RPC result for it and opens
    no session, either of which would show the server had processed it before refusing the token."""
    server = accepting(protected)
    exchange = server.attempt(server.token(expired=True))
    assert "mcp-session-id" not in exchange.headers, (
        f"the refused request opened a session ({exchange.headers['mcp-session-id']}): it was processed"
    )
    answered = [f for f in json_objects_in(exchange) if f.get("id") == OPENING_ID and "result" in f]
    assert not answered, f"the refused request (status {exchange.status}) was answered as processed: {answered}"


@for_req("authorization-server-protected-resource-metadata", "server")
def test_the_server_serves_its_protected_resource_metadata(revision: str, protected: Protected) -> None:
    """RFC 9728: the document (where the challenge points, or at a well-known location) is a JSON object
    whose ``resource`` is this server's endpoint and which says where its authorization servers are."""
    url, document = located_metadata(protected)
    assert isinstance(document, dict), "no protected-resource metadata at the challenge's URL or a well-known one"
    assert same_resource(document.get("resource"), protected.url), (
        f"the metadata at {url} names resource {document.get('resource')!r}, not {protected.url}"
    )
    assert document.get("authorization_servers"), f"the metadata at {url} names no authorization server: {document}"


@for_req("authorization-server-prm-authorization-servers", "server")
def test_the_metadata_lists_the_authorization_servers(revision: str, protected: Protected) -> None:
    url, document = located_metadata(protected)
    precondition(isinstance(document, dict), "the server serves protected-resource metadata")
    listed = document.get("authorization_servers")
    assert isinstance(listed, list) and listed, f"authorization_servers at {url} is not a non-empty list: {listed!r}"
    not_urls = [s for s in listed if not (isinstance(s, str) and urllib.parse.urlsplit(s).scheme in ("http", "https"))]
    assert not not_urls, f"authorization_servers at {url} lists entries that are no issuer URL: {not_urls}"


@for_req("authorization-server-401-www-authenticate", "server")
def test_every_401_points_at_the_metadata(revision: str, protected: Protected) -> None:
    """Each 401 (no token, an expired one, one for another resource) names the metadata's URL in its
    ``WWW-Authenticate`` header (``resource_metadata``), and that URL serves the metadata of this server."""
    server = accepting(protected)
    attempts = {
        "no token": server.attempt(None),
        "an expired token": server.attempt(server.token(expired=True)),
        "a token for another resource": server.attempt(server.token(audience=OTHER_AUDIENCE)),
    }
    unauthorized = {name: exchange for name, exchange in attempts.items() if exchange.status == 401}
    precondition(unauthorized, "the server answers some request 401")
    pointing = {name: challenge_of(exchange)[1].get("resource_metadata") for name, exchange in unauthorized.items()}
    silent = {name: unauthorized[name].headers.get("www-authenticate") for name, url in pointing.items() if not url}
    assert not silent, f"401 answers whose WWW-Authenticate names no resource_metadata: {silent}"
    for url in set(pointing.values()):
        document = metadata_document(server, str(url))
        assert isinstance(document, dict) and same_resource(document.get("resource"), server.url), (
            f"the resource_metadata URL {url} serves no metadata of {server.url}: {document!r}"
        )


@for_req("authorization-server-prm-discovery-mechanism", "server")
def test_the_metadata_can_be_found(revision: str, protected: Protected) -> None:
    """By the 401 challenge's ``resource_metadata`` or at a well-known location: either will do."""
    url, document = located_metadata(protected)
    assert isinstance(document, dict) and same_resource(document.get("resource"), protected.url), (
        "neither the 401 challenge's resource_metadata nor a well-known location "
        f"({protected.well_known_metadata_urls()}) serves this server's metadata (found at {url!r}: {document!r})"
    )


@for_req("authorization-server-enforce-token-expiry", "server")
def test_an_expired_token_is_refused(revision: str, protected: Protected) -> None:
    """The trusted issuer's token for this server with the scope it needs, expired a minute ago."""
    server = accepting(protected)
    exchange = server.attempt(server.token(expired=True))
    assert exchange.status in (401, 403), f"a request bearing an expired token was answered {exchange.status}"


def scopes_of(params: dict[str, str]) -> list[str] | None:
    """The scopes a challenge's ``scope`` parameter names (space-delimited), None without one."""
    return params["scope"].split() if "scope" in params else None


def insufficient(server: Protected, scopes: list[str]) -> Exchange:
    """A request bearing a good token of ``scopes``, which lack what the configuration needs."""
    if not server.scopes:
        pytest.skip("fixture-missing: the target's oauth configuration names no scope a request needs")
    return server.attempt(server.token(scopes=scopes))


def another_scope(server: Protected) -> list[str]:
    """A scope the issuer knows that is not one a request needs."""
    return [s for s in ("mcp-matrix:admin", "mcp-matrix:tools") if s not in server.scopes][:1]


@for_req("authorization-server-insufficient-scope-403", "server")
def test_a_token_lacking_the_needed_scope_is_answered_403(revision: str, protected: Protected) -> None:
    """A good token of another scope than the one the request needs: 403 Forbidden."""
    server = accepting(protected)
    exchange = insufficient(server, another_scope(server))
    assert exchange.status == 403, f"a token of scope {another_scope(server)} was answered {exchange.status}"


@for_req("authorization-server-insufficient-scope-challenge", "server")
def test_the_insufficient_scope_challenge_says_what_to_ask_for(revision: str, protected: Protected) -> None:
    """The 403's ``WWW-Authenticate``: Bearer, ``error="insufficient_scope"``, a ``scope`` and a
    ``resource_metadata`` parameter (``error_description`` optional)."""
    server = accepting(protected)
    exchange = insufficient(server, another_scope(server))
    precondition(exchange.status == 403, f"the token lacking the needed scope was answered {exchange.status}")
    scheme, params = challenge_of(exchange)
    missing = [name for name in ("scope", "resource_metadata") if name not in params]
    assert scheme == "bearer" and params.get("error") == "insufficient_scope" and not missing, (
        f"the 403's challenge {exchange.headers.get('www-authenticate')!r} is not a Bearer insufficient_scope "
        f"challenge with scope and resource_metadata (missing: {missing})"
    )


@for_req("authorization-server-insufficient-scope-required-scopes", "server")
def test_the_insufficient_scope_challenge_names_the_needed_scopes(revision: str, protected: Protected) -> None:
    """The 403's ``scope`` names scopes that would let the request through: those the configuration needs."""
    server = accepting(protected)
    exchange = insufficient(server, another_scope(server))
    precondition(exchange.status == 403, f"the token lacking the needed scope was answered {exchange.status}")
    named = scopes_of(challenge_of(exchange)[1])
    left_out = [s for s in server.scopes if named is None or s not in named]
    assert not left_out, f"the 403's challenge scope {named} leaves out the needed {left_out}"


@for_req("authorization-server-all-required-scopes-in-one-challenge", "server")
def test_one_challenge_names_every_needed_scope(revision: str, protected: Protected) -> None:
    """A token of no scope at all: the one 403 names every scope the configuration needs, not only the first."""
    server = accepting(protected)
    exchange = insufficient(server, [])
    precondition(exchange.status == 403, f"the token of no scope was answered {exchange.status}")
    named = scopes_of(challenge_of(exchange)[1])
    left_out = [s for s in server.scopes if named is None or s not in named]
    assert not left_out, f"the 403's challenge scope {named} leaves out the needed {left_out}"


@for_req("authorization-server-challenge-scope", "server")
def test_the_401_challenge_names_the_needed_scopes(revision: str, protected: Protected) -> None:
    """The 401 to a request without a token names in ``scope`` the scopes a request needs."""
    if not protected.scopes:
        pytest.skip("fixture-missing: the target's oauth configuration names no scope a request needs")
    exchange = protected.attempt(None)
    precondition(exchange.status == 401, f"a request without a token was answered {exchange.status}")
    named = scopes_of(challenge_of(exchange)[1])
    left_out = [s for s in protected.scopes if named is None or s not in named]
    assert not left_out, (
        f"the 401's challenge {exchange.headers.get('www-authenticate')!r} does not name the needed {left_out}"
    )


@for_req("authorization-server-no-offline-access-scope", "server")
def test_offline_access_is_not_asked_for(revision: str, protected: Protected) -> None:
    """Neither the 401's ``scope`` nor the metadata's ``scopes_supported`` names ``offline_access``."""
    named = scopes_of(challenge_of(protected.attempt(None))[1]) or []
    url, document = located_metadata(protected)
    supported = document.get("scopes_supported") if isinstance(document, dict) else None
    listed = supported if isinstance(supported, list) else []
    if not named and not listed:  # a server that names no scope anywhere left nothing to judge
        pytest.skip("fixture-missing: the server names no scope in its 401 challenge nor in scopes_supported")
    where = ["the 401's challenge"] * ("offline_access" in named) + [f"scopes_supported at {url}"] * (
        "offline_access" in listed
    )
    assert not where, f"offline_access is named in {where}"


@for_req("authorization-canonical-uri-no-trailing-slash", "server")
def test_the_metadata_names_the_resource_without_a_trailing_slash(revision: str, protected: Protected) -> None:
    """The endpoint's path (no slash at its end) has no meaningful trailing slash: the canonical URI the
    metadata's ``resource`` states has none either."""
    precondition(not urllib.parse.urlsplit(protected.url).path.endswith("/"), "the endpoint's path ends in '/'")
    url, document = located_metadata(protected)
    precondition(isinstance(document, dict), "the server serves protected-resource metadata")
    resource = document.get("resource")
    assert isinstance(resource, str) and not resource.endswith("/"), f"the metadata at {url} states {resource!r}"


@for_req("authorization-accept-uppercase-scheme-host", "server")
def test_a_token_for_the_uppercased_server_uri_is_accepted(revision: str, protected: Protected) -> None:
    """The token's audience is this server's URI with its scheme and host in upper case: the same resource."""
    server = accepting(protected)
    parts = urllib.parse.urlsplit(server.url)
    shouted = urllib.parse.urlunsplit(parts._replace(scheme=parts.scheme.upper(), netloc=parts.netloc.upper()))
    exchange = server.attempt(server.token(audience=shouted))
    assert 200 <= exchange.status < 300, f"a token for {shouted} was answered {exchange.status}"


# -- server side: the MCP server as its own authorization server (the target's oauth-hosted configuration) -------
#
# The target's server in its ``oauth-hosted`` configuration: it serves the authorization endpoints itself, beside
# its MCP endpoint (2025-03-26's model, which later revisions still allow). For the default target these are the
# SDK's routes and handlers over the fixture's in-memory provider (conformance/fixtures/authorization_host.py):
# where a test judges what that provider decides (rotation, the iss of a success response, delegation), its
# docstring says that it holds the deployment, not the SDK. Each test plays the client's and the browser's part
# with plain HTTP: what it needs on the way goes through ``Hosted.plain`` (no fault), the exchanges it judges
# through ``Hosted.peer``, whose fault rewrites their answers (``GET`` for the metadata and the authorization
# endpoint, ``POST`` for registration and the token endpoint).

AS_METADATA_PATH = "/.well-known/oauth-authorization-server"  # RFC 8414's well-known suffix
OIDC_PATH = "/.well-known/openid-configuration"  # OpenID Connect Discovery 1.0's
#: The client's redirect URI (nothing listens there: the browser's part reads the Location, never follows it).
CALLBACK = "http://127.0.0.1:9/callback"
FOREIGN_CALLBACK = "http://mcp-matrix.example/callback"  # neither localhost nor HTTPS


@dataclass
class Hosted:
    """The server under test as its own authorization server: its MCP endpoint, the scopes a request needs, two
    peers, ``plain`` for the steps on the way and ``peer`` (with the test's fault) for the judged ones, and the
    decisions its configuration says the suite's own code makes (its value ``decided-by-the-suite``:
    ``refresh-token-rotation``, ``success-redirect``)."""

    url: str
    scopes: list[str]
    plain: HttpPeer
    peer: HttpPeer
    decided_by_the_suite: frozenset[str] = frozenset()

    def decided_by_the_target(self, decision: str) -> None:
        """fixture-missing where the suite's own code makes ``decision`` (on the default target, a policy the SDK
        leaves to the provider the fixture wrote): a pass there would judge the suite, not the target."""
        if decision in self.decided_by_the_suite:
            pytest.skip(f"fixture-missing: the target's {decision} is the suite's own code (decided-by-the-suite)")

    @property
    def base(self) -> str:
        """The authorization base URL: the MCP endpoint's URL without its path."""
        parts = urllib.parse.urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    def get(self, url: str, *, judged: bool) -> Exchange:
        peer = self.peer if judged else self.plain
        peer.url = url
        return peer.exchange("GET", headers={"Accept": "application/json"})

    def post(self, url: str, body: bytes, content_type: str, *, judged: bool) -> Exchange:
        peer = self.peer if judged else self.plain
        peer.url = url
        return peer.exchange("POST", headers={"Content-Type": content_type, "Accept": "application/json"}, body=body)

    def document(self, url: str, *, judged: bool) -> Any:
        """The JSON object ``url`` serves, or None (not 200, or not a JSON object)."""
        exchange = self.get(url, judged=judged)
        try:
            document = json.loads(exchange.body) if exchange.status == 200 else None
        except ValueError:
            return None
        return document if isinstance(document, dict) else None

    def metadata(self) -> dict[str, Any]:
        """Its RFC 8414 metadata at the base URL, on the way (an empty dict where it serves none)."""
        return self.document(f"{self.base}{AS_METADATA_PATH}", judged=False) or {}

    def endpoint(self, name: str, default_path: str) -> str:
        """An endpoint its metadata names (``authorization_endpoint`` ...), else 2025-03-26's default path."""
        named = self.metadata().get(name)
        return named if isinstance(named, str) else f"{self.base}{default_path}"

    def register(self, redirect_uris: list[str], *, judged: bool = False) -> Exchange:
        """RFC 7591 registration of a public client (no secret) of the code grant."""
        document = {
            "redirect_uris": redirect_uris,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "client_name": "mcp-matrix",
            "scope": " ".join(self.scopes) or None,
        }
        body = json.dumps({k: v for k, v in document.items() if v is not None}).encode()
        return self.post(self.endpoint("registration_endpoint", "/register"), body, "application/json", judged=judged)

    def registered(self, redirect_uris: list[str]) -> str:
        """A client registered with ``redirect_uris`` (on the way): its client_id."""
        exchange = self.register(redirect_uris)
        client_id = registered_client_id(exchange)
        precondition(client_id, f"registration answered {exchange.status} without a client_id")
        return client_id

    def authorize(self, client_id: str | None, redirect_uri: str | None, *, judged: bool, **params: str) -> Exchange:
        """An authorization request of the code grant with PKCE S256 (``params`` added or, as "", left out), as
        the browser sends it; the answer's redirect is read, never followed."""
        query = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "code_challenge": s256(PKCE_VERIFIER),
            "code_challenge_method": "S256",
            "state": "mcp-matrix-state",
            "resource": self.url,
            "scope": " ".join(self.scopes),
        } | params
        sent = {name: value for name, value in query.items() if value}
        url = f"{self.endpoint('authorization_endpoint', '/authorize')}?{urllib.parse.urlencode(sent)}"
        return self.get(url, judged=judged)

    def token_request(self, form: dict[str, str], *, judged: bool) -> Exchange:
        body = urllib.parse.urlencode(form).encode()
        return self.post(
            self.endpoint("token_endpoint", "/token"), body, "application/x-www-form-urlencoded", judged=judged
        )

    def tokens(self, client_id: str, resource: str) -> dict[str, Any]:
        """The token response of a whole code grant for ``resource`` (on the way)."""
        answer = self.authorize(client_id, CALLBACK, judged=False, resource=resource)
        code = redirect_parameters(answer).get("code")
        precondition(code, f"the authorization request was answered {answer.status} {answer.headers.get('location')}")
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "client_id": client_id}
        exchange = self.token_request(form | {"code_verifier": PKCE_VERIFIER, "resource": resource}, judged=False)
        granted = json_body(exchange)
        precondition(exchange.status == 200 and "access_token" in granted, f"the code was redeemed: {exchange.status}")
        return granted


PKCE_VERIFIER = "mcp-matrix-pkce-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"  # 43..128 characters


def json_body(exchange: Exchange) -> dict[str, Any]:
    try:
        parsed = json.loads(exchange.body)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def registered_client_id(exchange: Exchange) -> str:
    client_id = json_body(exchange).get("client_id") if 200 <= exchange.status < 300 else None
    return client_id if isinstance(client_id, str) else ""


def redirection(exchange: Exchange) -> str:
    """Where an answer sends the browser: its Location, if it is a redirect ("" otherwise)."""
    return exchange.headers.get("location", "") if 300 <= exchange.status < 400 else ""


def redirect_parameters(exchange: Exchange) -> dict[str, str]:
    """The query parameters of the redirect an answer makes (the first value of each)."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(redirection(exchange)).query)
    return {name: values[0] for name, values in query.items()}


def rfc8414_url(issuer: str) -> str:
    """RFC 8414 section 3.1: the well-known suffix between the issuer's host and its path."""
    parts = urllib.parse.urlsplit(issuer)
    return f"{parts.scheme}://{parts.netloc}{AS_METADATA_PATH}{parts.path.rstrip('/')}"


def oidc_urls(issuer: str) -> list[str]:
    """Where OpenID Connect Discovery may be: inserted before the issuer's path (as RFC 8414 does), appended."""
    parts = urllib.parse.urlsplit(issuer)
    path = parts.path.rstrip("/")
    inserted = f"{parts.scheme}://{parts.netloc}{OIDC_PATH}{path}"
    return list(dict.fromkeys([inserted, f"{parts.scheme}://{parts.netloc}{path}{OIDC_PATH}"]))


@pytest.fixture
def hosted(
    configured_server: ConfiguredServer, revision: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Hosted]:
    """The target's server in its ``oauth-hosted`` configuration (fixture-missing where its profile has none)."""
    configured = configured_server("oauth-hosted")
    trace = Trace(tmp_path / "hosted.jsonl", "streamable-http")
    plain = HttpPeer(configured.url, trace, revision)
    peer = HttpPeer(configured.url, trace, revision, fault=active_fault(request))
    try:
        decided = frozenset(configured.values.get("decided-by-the-suite", "").split())
        yield Hosted(configured.url, configured.values.get("scopes", "").split(), plain, peer, decided)
    finally:
        plain.close()
        peer.close()


def own_issuer(server: Hosted) -> str:
    """The authorization server the protected-resource metadata names, which must be the server itself here."""
    exchange = server.get(f"{server.base}{PRM_PATH}{urllib.parse.urlsplit(server.url).path}", judged=False)
    listed = json_body(exchange).get("authorization_servers") or []
    precondition(listed, f"the server's protected-resource metadata names no authorization server ({exchange.status})")
    issuer = str(listed[0])
    precondition(
        urllib.parse.urlsplit(issuer).netloc == urllib.parse.urlsplit(server.url).netloc,
        f"the authorization server {issuer} is not the MCP server itself",
    )
    return issuer


@for_req("authorization-server-as-metadata", "server")
def test_the_server_publishes_its_authorization_server_metadata(revision: str, hosted: Hosted) -> None:
    """RFC 8414 section 2 and 3: at the base URL's well-known location, a JSON object whose issuer is the base
    URL and which names the authorization and token endpoints and the response types (``code`` among them)."""
    url = f"{hosted.base}{AS_METADATA_PATH}"
    document = hosted.document(url, judged=True)
    assert document is not None, f"{url} serves no JSON object"
    missing = [name for name in ("authorization_endpoint", "token_endpoint") if not isinstance(document.get(name), str)]
    assert document.get("issuer") == hosted.base and not missing, (
        f"the metadata at {url} states issuer {document.get('issuer')!r} (not {hosted.base}) or lacks {missing}"
    )
    assert "code" in (document.get("response_types_supported") or []), (
        f"the metadata's response_types_supported {document.get('response_types_supported')!r} lacks code"
    )


@for_req("authorization-server-metadata-at-base-url", "server")
def test_the_metadata_is_at_the_authorization_base_url(revision: str, hosted: Hosted) -> None:
    """The MCP endpoint has a path (``/mcp``); the metadata is at the well-known location of the origin alone."""
    precondition(urllib.parse.urlsplit(hosted.url).path.strip("/"), "the MCP endpoint's URL has no path")
    url = f"{hosted.base}{AS_METADATA_PATH}"
    exchange = hosted.get(url, judged=True)
    assert exchange.status == 200 and json_body(exchange), f"{url} was answered {exchange.status}, no metadata"


@for_req("authorization-server-fallback-default-endpoints", "server")
def test_without_metadata_the_default_endpoints_serve(revision: str, hosted: Hosted) -> None:
    """A server that publishes no metadata serves ``/authorize``, ``/token`` and ``/register`` under the base
    URL: each is there (answers its method other than 404 or 405)."""
    if hosted.metadata():
        pytest.skip(
            "fixture-missing: the server publishes authorization server metadata (the defaults bind one without)"
        )
    answers = {
        "/authorize": hosted.get(f"{hosted.base}/authorize", judged=True).status,
        "/token": hosted.post(f"{hosted.base}/token", b"", "application/x-www-form-urlencoded", judged=True).status,
        "/register": hosted.post(f"{hosted.base}/register", b"{}", "application/json", judged=True).status,
    }
    absent = {path: status for path, status in answers.items() if status in (404, 405)}
    assert not absent, f"default endpoints not served (status): {absent}"


@for_req("authorization-as-rfc8414-metadata", "server")
def test_the_authorization_server_publishes_rfc8414_metadata(revision: str, hosted: Hosted) -> None:
    """The issuer the protected-resource metadata names serves RFC 8414 metadata at the location built from it,
    stating that issuer."""
    issuer = own_issuer(hosted)
    url = rfc8414_url(issuer)
    document = hosted.document(url, judged=True)
    assert document is not None, f"{url} serves no RFC 8414 metadata"
    assert document.get("issuer") == issuer, f"the metadata at {url} states issuer {document.get('issuer')!r}"


@for_req("authorization-as-discovery-mechanism", "server")
def test_the_authorization_server_offers_a_discovery_document(revision: str, hosted: Hosted) -> None:
    """RFC 8414 metadata or OpenID Connect Discovery, at one of the locations built from the issuer, stating it."""
    issuer = own_issuer(hosted)
    served = {}
    for url in [rfc8414_url(issuer), *oidc_urls(issuer)]:
        document = hosted.document(url, judged=True)
        if document is not None:
            served[url] = document.get("issuer")
    assert issuer in served.values(), f"no discovery document of {issuer} (found: {served})"


@for_req("authorization-as-oidc-code-challenge-methods", "server")
def test_the_authorization_servers_openid_discovery_lists_code_challenge_methods(revision: str, hosted: Hosted) -> None:
    issuer = own_issuer(hosted)
    documents = {url: hosted.document(url, judged=True) for url in oidc_urls(issuer)}
    offered = {url: document for url, document in documents.items() if document is not None}
    if not offered:
        pytest.skip("fixture-missing: the authorization server offers no OpenID Connect Discovery")
    silent = [url for url, document in offered.items() if not document.get("code_challenge_methods_supported")]
    assert not silent, f"OpenID discovery documents without code_challenge_methods_supported: {silent}"


def registration_of(hosted: Hosted) -> str:
    """The client_id a judged RFC 7591 registration got ("" when it got none)."""
    exchange = hosted.register([CALLBACK], judged=True)
    return registered_client_id(exchange) if exchange.status == 201 else ""


@for_req("authorization-as-dynamic-registration", "server")
def test_the_server_registers_clients_dynamically(revision: str, hosted: Hosted) -> None:
    """RFC 7591: a registration request gets 201 and a client_id, with no person involved."""
    assert registration_of(hosted), "a dynamic client registration got no client_id (with 201)"


@for_req("authorization-as-dynamic-registration-optional", "server")
def test_the_server_may_register_clients_dynamically(revision: str, hosted: Hosted) -> None:
    assert registration_of(hosted), "the server offers no dynamic client registration (201 with a client_id)"


def redirected_to(hosted: Hosted, client_id: str, variants: list[str]) -> dict[str, str]:
    """Each redirect URI variant whose authorization request was answered with a redirect, and where to."""
    answers = {variant: hosted.authorize(client_id, variant, judged=True) for variant in variants}
    return {
        variant: f"{a.status} {a.headers.get('location')}" for variant, a in answers.items() if 300 <= a.status < 400
    }


def with_a_registered_redirect(hosted: Hosted) -> str:
    """A client registered with CALLBACK, which its authorization requests are redirected to (on the way)."""
    client_id = hosted.registered([CALLBACK])
    answer = hosted.authorize(client_id, CALLBACK, judged=False)
    precondition(redirection(answer).startswith(CALLBACK), f"the registered redirect URI was answered {answer.status}")
    return client_id


@for_req("authorization-server-validate-redirect-uri", "server")
def test_the_server_redirects_to_no_unregistered_uri(revision: str, hosted: Hosted) -> None:
    """Authorization requests naming another host, another path, or the registered URI with a query added (which
    an open redirector would pass on) are not redirected."""
    client_id = with_a_registered_redirect(hosted)
    variants = [FOREIGN_CALLBACK, f"{CALLBACK}/elsewhere", f"{CALLBACK}?next={urllib.parse.quote(FOREIGN_CALLBACK)}"]
    redirected = redirected_to(hosted, client_id, variants)
    assert not redirected, f"authorization requests with unregistered redirect URIs were redirected: {redirected}"


@for_req("authorization-as-exact-redirect-uri", "server")
def test_the_authorization_server_matches_redirect_uris_exactly(revision: str, hosted: Hosted) -> None:
    """OAuth 2.1 compares redirect URIs as strings: a trailing slash, another case of the path or of the scheme, a
    dot segment or a query added make another URI, whose request is not redirected. (Only the port of a loopback
    URI may vary: no variant here changes it.)"""
    client_id = with_a_registered_redirect(hosted)
    scheme, rest = CALLBACK.split("://", 1)
    variants = [
        f"{CALLBACK}/",
        CALLBACK.replace("/callback", "/Callback"),
        f"{scheme.upper()}://{rest}",
        CALLBACK.replace("/callback", "/mcp-matrix/../callback"),
        f"{CALLBACK}?mcp-matrix=1",
    ]
    redirected = redirected_to(hosted, client_id, variants)
    assert not redirected, f"redirect URIs that are not the registered {CALLBACK} were redirected: {redirected}"


@for_req("authorization-as-redirect-uri-localhost-or-https", "server")
def test_the_authorization_server_takes_only_localhost_or_https_redirect_uris(revision: str, hosted: Hosted) -> None:
    """A client registering a plain-HTTP redirect URI of another host is refused, at registration or at the
    authorization request (no redirect there)."""
    exchange = hosted.register([FOREIGN_CALLBACK], judged=True)
    taken = 200 <= exchange.status < 300
    client_id = registered_client_id(exchange)
    assert client_id or not taken, (
        f"the registration of {FOREIGN_CALLBACK} was answered {exchange.status} without a client_id"
    )
    redirected = redirected_to(hosted, client_id, [FOREIGN_CALLBACK]) if taken else {}
    assert not redirected, f"the server registered {FOREIGN_CALLBACK} and redirected to it: {redirected}"


@for_req("authorization-server-400-malformed-request", "server")
def test_a_malformed_authorization_request_is_answered_400(revision: str, hosted: Hosted) -> None:
    """Requests the server cannot answer by a redirect (RFC 6749 section 4.1.2.1: no client, an unknown one, a
    redirect URI not registered) are answered 400 directly. (A malformed request of a known client with its
    registered redirect URI is answered by an error redirect, as OAuth has it: not judged here.)"""
    client_id = hosted.registered([CALLBACK])
    answers = {
        "without client_id": hosted.authorize(None, CALLBACK, judged=True),
        "of an unknown client": hosted.authorize("mcp-matrix-unknown-client", CALLBACK, judged=True),
        "with an unregistered redirect_uri": hosted.authorize(client_id, FOREIGN_CALLBACK, judged=True),
    }
    wrong = {name: exchange.status for name, exchange in answers.items() if exchange.status != 400}
    assert not wrong, f"malformed authorization requests not answered 400 (status): {wrong}"


def refresh_twice(hosted: Hosted) -> tuple[str, Exchange, Exchange]:
    """A public client's refresh token used (judged), then used again (judged): the token and both answers."""
    hosted.decided_by_the_target("refresh-token-rotation")
    client_id = hosted.registered([CALLBACK])
    granted = hosted.tokens(client_id, hosted.url)
    refresh = granted.get("refresh_token")
    precondition(isinstance(refresh, str) and refresh, "the token response carried no refresh token")
    form = {"grant_type": "refresh_token", "refresh_token": str(refresh), "client_id": client_id}
    return str(refresh), hosted.token_request(form, judged=True), hosted.token_request(form, judged=True)


@for_req("authorization-as-refresh-token-rotation", "server")
def test_the_authorization_server_rotates_a_public_clients_refresh_token(revision: str, hosted: Hosted) -> None:
    """OAuth 2.1 section 4.3.1: the refresh answers a new refresh token, and the spent one is refused. The SDK's
    token endpoint leaves rotation to the provider, on the default target the fixture's: fixture-missing there
    (L-190)."""
    refresh, first, again = refresh_twice(hosted)
    renewed = json_body(first).get("refresh_token")
    precondition(first.status == 200, f"the refresh was answered {first.status}")
    assert renewed and renewed != refresh, f"the refresh answered no new refresh token: {json_body(first)}"
    assert again.status == 400, f"the spent refresh token was taken again ({again.status})"


@for_req("authorization-as-token-rotation", "server")
def test_the_server_rotates_tokens(revision: str, hosted: Hosted) -> None:
    """A refresh answers a new refresh token, and the spent one is refused (fixture-missing where the suite's own
    provider rotates: L-190)."""
    refresh, first, again = refresh_twice(hosted)
    renewed = json_body(first).get("refresh_token")
    assert first.status == 200 and renewed and renewed != refresh and again.status == 400, (
        f"no rotation: the refresh answered {first.status} {json_body(first)}, its reuse {again.status}"
    )


@for_req("authorization-as-accept-own-resource-tokens", "server")
def test_a_token_the_server_issued_for_another_resource_is_refused(revision: str, hosted: Hosted) -> None:
    """The server's own token, asked for another resource (RFC 8707), does not open its MCP endpoint (401); one
    asked for this endpoint does. The resource is bound by the provider, the refusal is the SDK's resource
    server (``validate_token_resource``)."""
    client_id = hosted.registered([CALLBACK])
    own = hosted.tokens(client_id, hosted.url)["access_token"]
    other = hosted.tokens(client_id, OTHER_AUDIENCE)["access_token"]
    accepted = opening_attempt(hosted.plain, hosted.url, own)
    precondition(200 <= accepted.status < 300, f"a token for this server was answered {accepted.status}")
    refused = opening_attempt(hosted.peer, hosted.url, other)
    assert refused.status == 401, f"a token issued for {OTHER_AUDIENCE} was answered {refused.status}"


def error_redirect(hosted: Hosted, client_id: str) -> Exchange:
    """An authorization request of a known client and its redirect URI asking for a scope no one has: answered by
    an error redirect (RFC 6749 section 4.1.2.1)."""
    return hosted.authorize(client_id, CALLBACK, judged=True, scope="mcp-matrix:unknown")


def targets_redirects(hosted: Hosted, client_id: str) -> dict[str, Exchange]:
    """The authorization responses the target builds: its error redirect (RFC 6749 section 4.1.2.1), and its
    success redirect unless the suite's own code builds that (``decided-by-the-suite: success-redirect``: on the
    default target the SDK's endpoint redirects to the URL the provider returns, the fixture's here, L-190)."""
    answers = {"error": error_redirect(hosted, client_id)}
    if "success-redirect" not in hosted.decided_by_the_suite:
        answers["success"] = hosted.authorize(client_id, CALLBACK, judged=True)
    return answers


@for_req("authorization-as-iss-in-authorization-responses", "server")
def test_the_authorization_servers_responses_carry_its_issuer(revision: str, hosted: Hosted) -> None:
    """RFC 9207: the authorization responses the target builds, its error redirect among them, carry ``iss``, the
    issuer."""
    answers = targets_redirects(hosted, hosted.registered([CALLBACK]))
    precondition(all(redirection(a) for a in answers.values()), f"not all redirected: {answers}")
    wrong = {name: redirection(a) for name, a in answers.items() if redirect_parameters(a).get("iss") != hosted.base}
    assert not wrong, f"authorization responses without iss={hosted.base}: {wrong}"


@for_req("authorization-as-advertises-iss-support", "server")
def test_the_authorization_server_advertises_the_issuer_it_returns(revision: str, hosted: Hosted) -> None:
    """Where the authorization responses the target builds carry ``iss``, the metadata states
    ``authorization_response_iss_parameter_supported: true``."""
    answers = targets_redirects(hosted, hosted.registered([CALLBACK]))
    if not any("iss" in redirect_parameters(answer) for answer in answers.values()):
        pytest.skip(
            f"fixture-missing: the authorization responses the target builds ({', '.join(answers)}) carry no iss"
        )
    document = hosted.document(f"{hosted.base}{AS_METADATA_PATH}", judged=True) or {}
    stated = document.get("authorization_response_iss_parameter_supported")
    assert stated is True, (
        f"responses carry iss, yet the metadata states authorization_response_iss_parameter_supported {stated!r}"
    )


@for_req("authorization-as-cimd", "server")
def test_the_authorization_server_supports_client_id_metadata_documents(revision: str, hosted: Hosted) -> None:
    document = hosted.document(f"{hosted.base}{AS_METADATA_PATH}", judged=True) or {}
    stated = document.get("client_id_metadata_document_supported")
    assert stated is True, f"the metadata states client_id_metadata_document_supported {stated!r}, not true"


@for_req("authorization-server-third-party-delegation", "server")
def test_the_server_may_delegate_to_a_third_party_authorization_server(revision: str, hosted: Hosted) -> None:
    """Delegation shows as the authorization request redirected to another authorization server (an origin that is
    neither the server's nor the client's redirect URI's) instead of back to the client. Where the success redirect
    is the suite's own code (on the default target the provider's, the fixture's), fixture-missing (L-190)."""
    hosted.decided_by_the_target("success-redirect")
    client_id = hosted.registered([CALLBACK])
    where = redirection(hosted.authorize(client_id, CALLBACK, judged=True))
    precondition(where, "the authorization request was not redirected")
    origin = urllib.parse.urlsplit(where).netloc
    assert origin not in (urllib.parse.urlsplit(hosted.url).netloc, urllib.parse.urlsplit(CALLBACK).netloc), (
        f"the server authorizes by itself (redirected to {where})"
    )


# -- client side ---------------------------------------------------------------------------------------------
#
# The client under test runs the driver scenario ``oauth_flow`` against ``protected_resource`` (which trusts the
# worker's ``authorization_server``): a 401, discovery, registration, the authorization request (through the
# scripted user agent), the code redeemed, then ``tools/list`` with the token. Each test judges what the two
# servers recorded of the client's requests; a cover's fault rewrites that record (``Recorder.fault``).


PRM_PATH = "/.well-known/oauth-protected-resource"  # RFC 9728's well-known prefix


def oauth_run(client_launcher: Launcher, revision: str, resource: ProtectedResource) -> ClientRun:
    return run_client_process(client_launcher, "oauth_flow", revision, [resource.url])


def the_one(seen: list[SeenRequest], what: str) -> SeenRequest:
    """The first of ``seen``; a client that never sent one leaves nothing to judge."""
    precondition(seen, f"the client sent no {what}")
    return seen[0]


def code_redemptions(authorization: AuthorizationServer) -> list[SeenRequest]:
    return [
        seen for seen in authorization.requests_to("/token") if seen.form.get("grant_type") == ["authorization_code"]
    ]


def accepted_mcp_requests(resource: ProtectedResource) -> list[SeenRequest]:
    """The client's requests the resource let through (their token did): from the first on, the authorized session."""
    mcp = resource.requests_to_mcp()
    first = next((index for index, seen in enumerate(mcp) if seen.status < 400), None)
    precondition(first is not None, "no request of the client reached the MCP server with a token")
    return mcp[first:]


def past_discovery(resource: ProtectedResource, authorization: AuthorizationServer) -> list[str]:
    """The client's requests to the authorization endpoint and the token endpoint, once it is known to have
    reached discovery (read the protected-resource metadata)."""
    read = [seen for seen in resource.seen if seen.path.startswith(PRM_PATH) and seen.status == 200]
    precondition(read, "the client never read the protected-resource metadata (it never reached discovery)")
    return [
        f"{seen.method} {seen.path} ({seen.status})"
        for seen in authorization.requests_to("/authorize") + authorization.requests_to("/token")
    ]


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


@for_req("authorization-client-pkce", "client")
def test_the_client_binds_its_code_to_a_pkce_verifier(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization request carries a code challenge, and the code is redeemed with the verifier it was
    derived from (by the method the request named)."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        asked = the_one(authorization_server.requests_to("/authorize"), "authorization request").query
        redeemed = the_one(code_redemptions(authorization_server), "authorization code redemption").form
        challenge, method = asked.get("code_challenge", [""])[0], asked.get("code_challenge_method", ["plain"])[0]
        verifier = redeemed.get("code_verifier", [""])[0]
        assert challenge, f"the authorization request carried no code_challenge: {asked}"
        assert verifier, f"the code was redeemed without a code_verifier: {redeemed}"
        derived = s256(verifier) if method == "S256" else verifier
        assert derived == challenge, (
            f"the code_verifier {verifier!r} does not give the code_challenge {challenge!r} by {method}"
        )

    run.judge(check)


@for_req("authorization-client-pkce-s256", "client")
def test_the_client_asks_for_the_s256_challenge_method(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization server advertises S256, so the client can use it, and must."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        asked = the_one(authorization_server.requests_to("/authorize"), "authorization request").query
        assert asked.get("code_challenge_method") == ["S256"], (
            f"the authorization request's code_challenge_method is {asked.get('code_challenge_method')}, not S256"
        )

    run.judge(check)


@for_req("authorization-client-verify-pkce-support", "client")
def test_the_client_refuses_an_authorization_server_that_states_no_pkce(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """Neither metadata document states code_challenge_methods_supported: the client goes no further than
    discovery (no authorization request, no token request), where it goes on with a server that states S256."""
    going_through(client_launcher, revision, protected_resource, authorization_server)
    authorization_server.misbehaviour = Misbehaviour(code_challenge_methods=None)
    oauth_run(client_launcher, revision, protected_resource)
    went_on = past_discovery(protected_resource, authorization_server)
    assert not went_on, (
        f"the authorization server's metadata states no code_challenge_methods_supported, yet the client went on: "
        f"{went_on}"
    )


@for_req("authorization-client-as-metadata-issuer-must-match", "client")
def test_the_client_discards_metadata_naming_another_issuer(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """Every metadata document of the authorization server states another issuer than the one its URL was built
    from: the client has no metadata to go on with (no authorization request, no token request), where it goes on
    with metadata stating the right one."""
    going_through(client_launcher, revision, protected_resource, authorization_server)
    authorization_server.misbehaviour = Misbehaviour(metadata_issuer=WRONG_ISSUER)
    oauth_run(client_launcher, revision, protected_resource)
    went_on = past_discovery(protected_resource, authorization_server)
    assert not went_on, f"the metadata's issuer is {WRONG_ISSUER}, yet the client went on: {went_on}"


@for_req("authorization-client-iss-matches-recorded-issuer", "client")
def test_the_client_redeems_no_code_of_a_response_from_another_issuer(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization response's ``iss`` names another issuer than the one the client recorded: the client
    sends its code to no token endpoint, whatever the metadata says of iss support (advertised, stated false, not
    stated: the table's first and third rows)."""
    going_through(client_launcher, revision, protected_resource, authorization_server, redirect_issuer=OWN_ISSUER)
    stated = {
        "advertised": {},
        "stated false": {"iss_parameter_supported": False},
        "not stated": {"metadata_overrides": {"authorization_response_iss_parameter_supported": None}},
    }
    for support, switches in stated.items():
        authorization_server.reset()
        authorization_server.misbehaviour = Misbehaviour(redirect_issuer=WRONG_ISSUER, **switches)
        oauth_run(client_launcher, revision, protected_resource)
        check_no_code_redeemed(authorization_server, f"the response's iss was {WRONG_ISSUER} (iss support {support})")


@for_req("authorization-client-protected-resource-metadata", "client")
def test_the_client_finds_its_authorization_server_through_the_resource_metadata(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization server is on another origin than the MCP server, named only by the protected-resource
    metadata: the client reads that metadata before it asks the authorization server anything."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        first_asked = the_one(authorization_server.seen, "request to the authorization server")
        read = [s for s in protected_resource.seen if s.path.startswith(PRM_PATH) and s.status == 200]
        assert read and read[0].at <= first_asked.at, (
            f"the client asked the authorization server ({first_asked.method} {first_asked.path}) without having "
            f"read the protected-resource metadata first (read: {[s.path for s in read]})"
        )

    run.judge(check)


@for_req("authorization-client-resource-parameter", "client")
def test_the_client_names_a_resource_in_every_authorization_and_token_request(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        asked = the_one(authorization_server.requests_to("/authorize"), "authorization request").query
        assert asked.get("resource"), f"the authorization request carried no resource parameter: {asked}"
        tokens = authorization_server.requests_to("/token")
        precondition(tokens, "the client sent no token request")
        without = [seen.form for seen in tokens if not seen.form.get("resource")]
        assert not without, f"token requests without a resource parameter: {without}"

    run.judge(check)


@for_req("authorization-client-resource-identifies-server", "client")
def test_the_resource_parameter_names_the_mcp_server(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The resource asked for is the MCP endpoint the client uses (its canonical URI, which the protected-resource
    metadata also states)."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        asked = the_one(authorization_server.requests_to("/authorize"), "authorization request").query
        named = [
            *asked.get("resource", []),
            *(r for s in authorization_server.requests_to("/token") for r in s.form.get("resource", [])),
        ]
        precondition(named, "the client named no resource")
        wrong = [resource for resource in named if resource != protected_resource.url]
        assert not wrong, f"the client asked for the resource {wrong}, not the MCP server {protected_resource.url}"

    run.judge(check)


@for_req("authorization-client-state-parameter", "client")
def test_the_client_sends_a_state_and_drops_a_response_with_another(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization response comes back with a state other than the one sent: the client redeems no code
    (where it redeems the code of a response with its own state)."""
    going_through(client_launcher, revision, protected_resource, authorization_server)
    authorization_server.misbehaviour = Misbehaviour(redirect_state="mcp-matrix-another-state")
    oauth_run(client_launcher, revision, protected_resource)
    asked = the_one(authorization_server.requests_to("/authorize"), "authorization request").query
    assert asked.get("state", [""])[0], f"the authorization request carried no state: {asked}"
    redeemed = [seen.form.get("code") for seen in code_redemptions(authorization_server)]
    assert not redeemed, f"the client redeemed a code whose response carried another state: {redeemed}"


@for_req("authorization-client-bearer-header", "client")
def test_the_client_sends_its_token_as_a_bearer_authorization_header(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        for seen in accepted_mcp_requests(protected_resource):
            scheme, _, token = seen.headers.get("authorization", "").partition(" ")
            assert scheme.lower() == "bearer" and token.strip(), (
                f"{seen.method} {seen.path} carried Authorization {seen.headers.get('authorization')!r}, "
                f"not 'Bearer <access-token>'"
            )

    run.judge(check)


@for_req("authorization-client-token-every-request", "client")
def test_the_client_sends_its_token_on_every_request(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """From the first request the token got through on, every request to the MCP server carries it."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        session = accepted_mcp_requests(protected_resource)
        precondition(len(session) >= 2, "the client sent the MCP server one request with its token, no more")
        bare = [f"{seen.method} {seen.path}" for seen in session if "authorization" not in seen.headers]
        assert not bare, f"requests of the authorized session without the token: {bare}"

    run.judge(check)


@for_req("authorization-client-no-token-in-query", "client")
def test_the_client_puts_no_token_in_a_query_string(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """No request of the client, to the MCP server or to the authorization server, has an access token in its
    query string (as access_token, or as the value of any parameter)."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        accepted_mcp_requests(protected_resource)  # a token was sent
        tokens = {
            seen.headers["authorization"].partition(" ")[2].strip()
            for seen in protected_resource.seen
            if "authorization" in seen.headers
        }
        for seen in protected_resource.seen + authorization_server.seen:
            values = {value for values in seen.query.values() for value in values}
            assert "access_token" not in seen.query and not values & tokens, (
                f"{seen.method} {seen.path} carried an access token in its query: {seen.query}"
            )

    run.judge(check)


@for_req("authorization-client-only-as-issued-tokens", "client")
def test_the_client_sends_only_tokens_its_authorization_server_issued(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """Every token the MCP server gets is one the authorization server its metadata names signed."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        sent = [seen for seen in protected_resource.seen if "authorization" in seen.headers]
        precondition(sent, "the client sent the MCP server no token")
        for seen in sent:
            token = seen.headers["authorization"].partition(" ")[2].strip()
            assert authorization_server.verified_claims(token) is not None, (
                f"{seen.method} {seen.path} carried a token its authorization server did not issue: {token[:40]!r}"
            )

    run.judge(check)


@for_req("authorization-client-prm-from-header", "client")
def test_the_client_reads_the_metadata_the_challenge_names(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The 401's resource_metadata names a URL off the well-known paths, the only place the metadata is: the
    client asks there first."""
    protected_resource.misbehaviour = ResourceMisbehaviour(
        metadata_locations=frozenset({"elsewhere"}), challenge_names="elsewhere"
    )
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        named = urllib.parse.urlsplit(protected_resource.metadata_url_at("elsewhere")).path
        asked = [s.path for s in protected_resource.seen if s.method == "GET" and s.path != protected_resource.path]
        assert asked[:1] == [named], f"the challenge named {named}; the client asked for the metadata at {asked}"

    run.judge(check)


def scopes_asked(authorization: AuthorizationServer) -> list[set[str]]:
    """The scope set of each authorization request, in order."""
    return [set(seen.query.get("scope", [""])[0].split()) for seen in authorization.requests_to("/authorize")]


@for_req("authorization-client-initial-scope-from-challenge", "client")
def test_the_client_first_asks_for_the_scope_the_challenge_names(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The 401's scope names mcp-matrix:admin, the metadata's scopes_supported another scope: the first
    authorization request asks for what the challenge named."""
    protected_resource.misbehaviour = ResourceMisbehaviour(
        challenge_scope="mcp-matrix:admin",
        required_scopes=("mcp-matrix:admin",),
        metadata_overrides={"scopes_supported": ["mcp-matrix:tools"]},
    )
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        first = the_one(scopes_asked(authorization_server), "authorization request")
        assert first == {"mcp-matrix:admin"}, f"the challenge named scope mcp-matrix:admin; the client asked {first}"

    run.judge(check)


@for_req("authorization-client-step-up-on-scope-error", "client")
def test_the_client_steps_up_on_an_insufficient_scope_error(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """tools/list needs mcp-matrix:admin beyond what a request needs: its 403 insufficient_scope names both, and
    the client authorizes again asking for them."""
    protected_resource.misbehaviour = ResourceMisbehaviour(method_scopes={"tools/list": ("mcp-matrix:admin",)})
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        refused = [s for s in protected_resource.requests_to_mcp() if s.status == 403]
        precondition(refused, "no request of the client met the insufficient-scope refusal")
        asked = scopes_asked(authorization_server)
        assert any("mcp-matrix:admin" in scopes for scopes in asked), (
            f"after a 403 insufficient_scope naming mcp-matrix:admin the client asked for the scopes {asked}"
        )

    run.judge(check)


@for_req("authorization-client-prm-well-known-fallback", "client")
def test_without_a_metadata_url_the_client_tries_the_well_known_paths_in_order(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The challenge names no resource_metadata and the metadata is only at the root well-known URI: the client
    asks the path-aware URI first, then the root one."""
    protected_resource.misbehaviour = ResourceMisbehaviour(
        challenge_metadata=False, metadata_locations=frozenset({"root"})
    )
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        asked = [seen.path for seen in protected_resource.seen if seen.path.startswith(PRM_PATH)]
        expected = [PRM_PATH + protected_resource.path, PRM_PATH]
        assert asked[:2] == expected, f"the client asked for the protected-resource metadata at {asked}, not {expected}"

    run.judge(check)


# -- client side: registration, redirect URIs, issuer identification, refresh, credentials across servers -------


def successful_registrations(authorization: AuthorizationServer) -> list[SeenRequest]:
    return [seen for seen in authorization.requests_to("/register") if seen.method == "POST" and seen.status < 300]


def client_id_of(seen: SeenRequest) -> str:
    """The client ID a request names (in its query or its form)."""
    return (seen.query.get("client_id") or seen.form.get("client_id") or [""])[0]


def is_loopback_or_https(uri: str) -> bool:
    """An https URI, or an http one on this machine: localhost or a loopback address (RFC 8252's loopback redirect;
    the revisions say localhost, and show 127.0.0.1 in an example: C-41 in docs/spec/revision-conflicts.md)."""
    parts = urllib.parse.urlsplit(uri)
    host = (parts.hostname or "").lower()
    local = host == "localhost" or host.endswith(".localhost") or host == "::1" or host.startswith("127.")
    return parts.scheme == "https" or (parts.scheme == "http" and local)


def check_registered_before_authorizing(authorization: AuthorizationServer) -> None:
    """The client registered at the registration endpoint, then asked for authorization with the client ID it got."""
    asked = the_one(authorization.requests_to("/authorize"), "authorization request")
    registered = [seen for seen in successful_registrations(authorization) if seen.at <= asked.at]
    assert registered, (
        f"the client sent no registration request before its authorization request (to /register: "
        f"{[(s.method, s.path, s.status) for s in authorization.requests_to('/register')]})"
    )
    client_id = client_id_of(asked)
    assert client_id in authorization.registered_client_ids, (
        f"the authorization request names client_id {client_id!r}, not the one registered "
        f"({authorization.registered_client_ids})"
    )


@for_req("authorization-client-dynamic-registration", "client")
def test_the_client_registers_itself_dynamically(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization server offers RFC 7591 registration and the client has no client ID: it registers, with
    no person involved, and authorizes with the client ID it got."""
    run = oauth_run(client_launcher, revision, protected_resource)
    run.judge(lambda: check_registered_before_authorizing(authorization_server))


@for_req("authorization-client-dynamic-registration-optional", "client")
def test_the_client_may_register_itself_dynamically(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """As above, a MAY since 2025-11-25: a client that gets its client ID otherwise has not taken the option."""
    run = oauth_run(client_launcher, revision, protected_resource)
    run.judge(lambda: check_registered_before_authorizing(authorization_server))


@for_req("authorization-client-has-client-id-before-flow", "client")
def test_the_client_holds_a_client_id_before_it_asks_for_authorization(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization request names a client ID, and one the client already holds: where it registered first,
    the one the authorization server issued it."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        asked = the_one(authorization_server.requests_to("/authorize"), "authorization request")
        client_id = client_id_of(asked)
        assert client_id, f"the authorization request names no client_id: {asked.query}"
        # a client holding a client ID from elsewhere (pre-registered, a metadata document) need not register
        if any(s.at <= asked.at for s in successful_registrations(authorization_server)):
            assert client_id in authorization_server.registered_client_ids, (
                f"the client registered, then named client_id {client_id!r}, not the one it was issued "
                f"({authorization_server.registered_client_ids})"
            )

    run.judge(check)


def registered_metadata(authorization: AuthorizationServer) -> dict[str, Any]:
    """The client metadata of the client's (first successful) registration request."""
    registration = the_one(successful_registrations(authorization), "successful registration request").json()
    precondition(isinstance(registration, dict), f"the registration request is no JSON object: {registration!r}")
    return registration


def redirect_uris_used(authorization: AuthorizationServer) -> list[str]:
    """The redirect URIs the client's authorization and token requests name."""
    return [
        uri
        for seen in authorization.requests_to("/authorize") + authorization.requests_to("/token")
        for uri in seen.query.get("redirect_uri", []) + seen.form.get("redirect_uri", [])
    ]


@for_req("authorization-client-registered-redirect-uris", "client")
def test_the_client_uses_only_redirect_uris_it_registered(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The registration lists redirect URIs, and each one the authorization and token requests name is among them."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        registered = registered_metadata(authorization_server).get("redirect_uris") or []
        assert registered, "the client's registration request lists no redirect_uris"
        used = redirect_uris_used(authorization_server)
        precondition(used, "the client's authorization request names no redirect_uri")
        unregistered = [uri for uri in used if uri not in registered]
        assert not unregistered, f"redirect URIs used but not registered ({registered}): {unregistered}"

    run.judge(check)


@for_req("authorization-client-redirect-uri-localhost-or-https", "client")
def test_every_redirect_uri_is_on_localhost_or_https(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """Every redirect URI the client registers or sends is an https URI or an http one on this machine. A client
    library uses the redirect URI its host configures: where that is only the one the suite's driver gives it
    (OAUTH_REDIRECT_URI), the choice is the suite's, and there is nothing of the client's to judge (L-191)."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        registered = [
            uri
            for seen in successful_registrations(authorization_server)
            for uri in seen.json().get("redirect_uris", [])
        ]
        every = registered + redirect_uris_used(authorization_server)
        precondition(every, "the client named no redirect URI")
        if set(every) == {OAUTH_REDIRECT_URI}:
            pytest.skip("fixture-missing: the client's only redirect URI is the one the suite's driver configures")
        elsewhere = [uri for uri in every if not is_loopback_or_https(str(uri))]
        assert not elsewhere, f"redirect URIs neither https nor on localhost: {elsewhere}"

    run.judge(check)


@for_req("authorization-client-dcr-sets-application-type", "client")
def test_the_registration_states_an_application_type(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """OpenID Connect registration defaults a missing application_type to web: the client states one."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        stated = registered_metadata(authorization_server).get("application_type")
        assert stated in ("native", "web"), f"the registration request's application_type is {stated!r}"

    run.judge(check)


@for_req("authorization-client-dcr-native-application-type", "client")
def test_a_client_with_loopback_redirects_registers_as_native(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """A client whose redirect URIs are all on this machine runs on it (a native application): it registers with
    application_type native."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        registration = registered_metadata(authorization_server)
        uris = [str(uri) for uri in registration.get("redirect_uris") or []]
        local = [uri for uri in uris if urllib.parse.urlsplit(uri).scheme == "http" and is_loopback_or_https(uri)]
        precondition(uris and local == uris, f"the client's redirect URIs are not all on this machine: {uris}")
        stated = registration.get("application_type")
        assert stated == "native", f"a client redirecting to {uris} registered with application_type {stated!r}"

    run.judge(check)


REGISTRATION_ATTEMPTS = 3  # registrations a refused client may send (a retry adjusted) before it is looping


@for_req("authorization-client-dcr-handles-redirect-uri-rejection", "client")
def test_a_refused_registration_ends_the_flow_without_a_hang(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization server refuses every registration with invalid_redirect_uri (an OpenID server's rule for
    the application_type): the client ends its run within the harness's bound, sends no authorization request
    without a client ID, and does not register again and again."""
    authorization_server.misbehaviour = Misbehaviour(registration="redirect-refused")
    started = time.monotonic()
    oauth_run(client_launcher, revision, protected_resource)
    took = time.monotonic() - started
    went_on = [f"{s.method} {s.path}" for s in authorization_server.requests_to("/authorize")]
    went_on += [f"{s.method} {s.path}" for s in authorization_server.requests_to("/token")]
    assert not went_on, f"every registration was refused, yet the client went on: {went_on}"
    attempts = authorization_server.requests_to("/register")
    precondition(attempts, "the client never asked to register")
    assert len(attempts) <= REGISTRATION_ATTEMPTS, f"the client registered {len(attempts)} times after refusals"
    assert took < CLIENT_RUN_SECONDS, f"the client was still running {took:.1f} s after its refused registration"


@for_req("authorization-client-dcr-rejection-reported", "client")
def test_a_refused_registration_is_reported_with_its_reason(
    revision: str,
    client_launcher: Launcher,
    protected_resource: ProtectedResource,
    authorization_server,
    request: pytest.FixtureRequest,
) -> None:
    """The authorization server refuses every registration (invalid_redirect_uri, with a description): the error
    the client gives its application (the driver reports it, ``oauth-failed``) names the refusal, by its error
    code or its description. Whether a person then reads it is the application's (L-095)."""
    authorization_server.misbehaviour = Misbehaviour(registration="redirect-refused")
    run = run_client_process(
        client_launcher, "oauth_flow", revision, [protected_resource.url], fault=active_fault(request)
    )
    refused = [seen for seen in authorization_server.requests_to("/register") if seen.status == 400]
    precondition(refused, "the client's registration was never refused")
    told = run.report("oauth-failed")
    assert told, f"the client's registration was refused; it told its application no error:\n{run.output[-800:]}"
    explained = [m for m in told if "invalid_redirect_uri" in str(m) or REDIRECT_REFUSAL in str(m)]
    assert explained, f"the error the client gave its application does not say why it was refused: {told}"


@for_req("authorization-client-dcr-retry-adjusted", "client")
def test_a_refused_client_may_register_again_adjusted(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """After an invalid_redirect_uri refusal the client may register again with another application_type or other
    redirect URIs (not-exercised when it does not)."""
    authorization_server.misbehaviour = Misbehaviour(registration="redirect-refused")
    oauth_run(client_launcher, revision, protected_resource)
    attempts = [seen.json() for seen in authorization_server.requests_to("/register")]
    precondition(attempts, "the client never asked to register")
    first = attempts[0]
    adjusted = [
        later
        for later in attempts[1:]
        if later.get("application_type") != first.get("application_type")
        or later.get("redirect_uris") != first.get("redirect_uris")
    ]
    assert adjusted, f"after its refused registration the client sent {len(attempts) - 1} adjusted one(s)"


# Client ID metadata documents: scenario oauth_cimd, whose client ID is CLIENT_METADATA_URL. The document at that
# URL is the client deployment's; the authorization server is handed it (loopback cannot serve that host).

CIMD_DOCUMENT = {
    "client_id": CLIENT_METADATA_URL,
    "client_name": "mcp-matrix client",
    "redirect_uris": [OAUTH_REDIRECT_URI],
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "token_endpoint_auth_method": "none",
}
PREREGISTERED = {"redirect_uris": [OAUTH_REDIRECT_URI], "token_endpoint_auth_method": "none"}


def cimd_run(
    client_launcher: Launcher,
    revision: str,
    resource: ProtectedResource,
    authorization: AuthorizationServer,
    advertised: bool,
) -> ClientRun:
    """The client of scenario oauth_cimd against an authorization server that advertises client ID metadata
    documents (and knows the client's) or does not; registration open either way."""
    authorization.misbehaviour = Misbehaviour(
        client_id_metadata_documents=advertised, known_clients={CLIENT_METADATA_URL: CIMD_DOCUMENT}
    )
    return run_client_process(client_launcher, "oauth_cimd", revision, [resource.url])


def is_url_client_id(client_id: str) -> bool:
    return "://" in client_id


@for_req("authorization-client-cimd", "client")
def test_the_client_uses_its_metadata_document_url_as_client_id(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization server advertises client ID metadata documents: the client authorizes with its document's
    URL as client ID, without registering."""
    run = cimd_run(client_launcher, revision, protected_resource, authorization_server, advertised=True)

    def check() -> None:
        client_id = client_id_of(the_one(authorization_server.requests_to("/authorize"), "authorization request"))
        registered = [f"{s.method} {s.path}" for s in authorization_server.requests_to("/register")]
        assert is_url_client_id(client_id) and not registered, (
            f"offered client ID metadata documents, the client authorized as {client_id!r} (registrations: "
            f"{registered})"
        )

    run.judge(check)


@for_req("authorization-client-cimd-check-support", "client")
def test_the_client_uses_no_metadata_document_the_server_does_not_take(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization server's metadata does not state client_id_metadata_document_supported: the client, which
    has a metadata document URL, does not use it as client ID."""
    run = cimd_run(client_launcher, revision, protected_resource, authorization_server, advertised=False)

    def check() -> None:
        client_id = client_id_of(the_one(authorization_server.requests_to("/authorize"), "authorization request"))
        assert not is_url_client_id(client_id), (
            f"the authorization server states no client ID metadata document support; the client used {client_id!r}"
        )

    run.judge(check)


@for_req("authorization-client-cimd-fallback", "client")
def test_without_metadata_document_support_the_client_may_register(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """No client ID metadata document support stated: the client may register dynamically instead."""
    run = cimd_run(client_launcher, revision, protected_resource, authorization_server, advertised=False)
    run.judge(lambda: check_registered_before_authorizing(authorization_server))


def is_https_url_with_a_path(client_id: str) -> bool:
    parts = urllib.parse.urlsplit(client_id)
    return parts.scheme == "https" and parts.path not in ("", "/")


@for_req("authorization-client-cimd-client-id-url", "client")
def test_the_metadata_document_client_id_is_an_https_url_with_a_path(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """Every URL client ID the client names is an https URL with a path: with the document URL the host configures
    (which it uses), and with one the host gets wrong (plain http, no path), which it must use in no request (it
    may refuse it or fall back to another client ID). The document URL is the host's choice: only the second run
    gives the client a URL to refuse."""
    run = cimd_run(client_launcher, revision, protected_resource, authorization_server, advertised=True)

    def named_urls() -> list[str]:
        named = [client_id_of(s) for s in authorization_server.requests_to("/authorize")]
        named += [client_id_of(s) for s in authorization_server.requests_to("/token")]
        return [client_id for client_id in named if is_url_client_id(client_id)]

    def check() -> None:
        urls = named_urls()
        precondition(urls, "the client used no metadata document URL as client ID")
        wrong = [url for url in urls if not is_https_url_with_a_path(url)]
        assert not wrong, f"client IDs that are not https URLs with a path: {wrong}"

    run.judge(check)
    misconfigured = "http://client.mcp-matrix.example/"
    authorization_server.reset()
    authorization_server.misbehaviour = Misbehaviour(
        client_id_metadata_documents=True, known_clients={misconfigured: CIMD_DOCUMENT | {"client_id": misconfigured}}
    )
    env = {CLIENT_METADATA_URL_VARIABLE: misconfigured}
    run_client_process(client_launcher, "oauth_cimd", revision, [protected_resource.url], env=env)
    used = [url for url in named_urls() if not is_https_url_with_a_path(url)]
    assert not used, f"configured with the document URL {misconfigured}, the client used it as client ID: {used}"


@for_req("authorization-client-cimd-private-key-jwt", "client")
def test_a_metadata_document_client_may_authenticate_with_a_signed_assertion(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The client may authenticate its token requests with private_key_jwt (RFC 7523's client assertion, issued and
    subject-named by its client ID); not-exercised when it authenticates otherwise."""
    run = cimd_run(client_launcher, revision, protected_resource, authorization_server, advertised=True)

    def check() -> None:
        tokens = authorization_server.requests_to("/token")
        precondition(tokens, "the client sent no token request")
        asserted = [s.form for s in tokens if s.form.get("client_assertion_type") == [JWT_BEARER_ASSERTION]]
        assert asserted, "the client's token requests carry no private_key_jwt client assertion"
        for form in asserted:
            claims = jwt.decode(form.get("client_assertion", [""])[0], options={"verify_signature": False})
            client_id = form.get("client_id", [claims.get("iss")])[0]
            assert claims.get("iss") == claims.get("sub") == client_id, f"the client assertion's claims: {claims}"

    run.judge(check)


JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def preregistered_run(
    client_launcher: Launcher, revision: str, resource: ProtectedResource, authorization: AuthorizationServer
) -> ClientRun:
    """The client of scenario oauth_preregistered, its credentials those the authorization server knows."""
    env = {PREREGISTERED_ISSUER_VARIABLE: authorization.issuer}
    return run_client_process(client_launcher, "oauth_preregistered", revision, [resource.url], env=env)


@for_req("authorization-client-registration-priority", "client")
def test_the_client_prefers_what_it_has_then_metadata_documents_then_registration(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization server offers both client ID metadata documents and registration. A client holding
    credentials for it uses them; one with a metadata document URL uses that; neither registers."""
    authorization_server.misbehaviour = Misbehaviour(
        client_id_metadata_documents=True,
        known_clients={CLIENT_METADATA_URL: CIMD_DOCUMENT, PREREGISTERED_CLIENT_ID: PREREGISTERED},
    )
    preregistered = preregistered_run(client_launcher, revision, protected_resource, authorization_server)

    def check(expected: str, what: str) -> Callable[[], None]:
        def used() -> None:
            asked = the_one(authorization_server.requests_to("/authorize"), "authorization request")
            registered = [f"{s.method} {s.path}" for s in authorization_server.requests_to("/register")]
            assert client_id_of(asked) == expected and not registered, (
                f"a client with {what} authorized as {client_id_of(asked)!r} (registrations: {registered})"
            )

        return used

    preregistered.judge(check(PREREGISTERED_CLIENT_ID, f"pre-registered credentials ({PREREGISTERED_CLIENT_ID})"))
    authorization_server.seen.clear()
    documented = cimd_run(client_launcher, revision, protected_resource, authorization_server, advertised=True)
    documented.judge(check(CLIENT_METADATA_URL, f"a metadata document URL ({CLIENT_METADATA_URL})"))


# RFC 9207 issuer identification of the authorization response (2026-07-28's table)


def check_no_code_redeemed(authorization: AuthorizationServer, why: str) -> None:
    the_one(authorization.requests_to("/authorize"), "authorization request")
    sent = [seen.form for seen in authorization.requests_to("/token")]
    assert not sent, f"{why}, yet the client sent the token endpoint {sent}"


def going_through(
    client_launcher: Launcher,
    revision: str,
    resource: ProtectedResource,
    authorization: AuthorizationServer,
    **switches: Any,
) -> None:
    """The client redeems the code of an authorization server that keeps to the rules (with ``switches``: one
    whose redirect names its issuer, as advertised): without that, a flow it then refuses to finish shows nothing
    about the one case the test makes (a client that redeems no code at all would pass). Both servers' records are
    cleared after, the authorization server's switches reset."""
    authorization.misbehaviour = Misbehaviour(**switches)
    oauth_run(client_launcher, revision, resource)
    precondition(code_redemptions(authorization), f"the client redeemed no code of a well-behaved server {switches}")
    authorization.reset()
    resource.seen.clear()


@for_req("authorization-client-iss-required-when-advertised", "client")
def test_the_client_rejects_a_response_without_the_advertised_iss(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The metadata states authorization_response_iss_parameter_supported true; the response carries no iss."""
    going_through(client_launcher, revision, protected_resource, authorization_server, redirect_issuer=OWN_ISSUER)
    authorization_server.misbehaviour = Misbehaviour(iss_parameter_supported=True)
    oauth_run(client_launcher, revision, protected_resource)
    check_no_code_redeemed(authorization_server, "the advertised iss was missing from the authorization response")


@for_req("authorization-client-iss-absent-unadvertised-proceeds", "client")
def test_without_iss_support_a_response_without_iss_is_taken(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The metadata states authorization_response_iss_parameter_supported false, then leaves it out; the response
    carries no iss: the client redeems its code and gets through, each time."""
    for stated in (False, None):
        authorization_server.reset()
        authorization_server.misbehaviour = Misbehaviour(iss_parameter_supported=stated)
        run = oauth_run(client_launcher, revision, protected_resource)
        advertised = "false" if stated is False else "absent"

        def check(advertised: str = advertised) -> None:
            the_one(authorization_server.requests_to("/authorize"), "authorization request")
            assert code_redemptions(authorization_server), (
                f"iss support {advertised}, no iss in the response: the client redeemed no code"
            )

        run.judge(check)


@for_req("authorization-client-iss-compared-unnormalized", "client")
def test_the_client_compares_iss_as_a_plain_string(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The response's iss is the issuer spelled as RFC 3986 normalization would make equal (a trailing slash, the
    scheme in capitals, a percent-encoded digit of the host): a different string, so each response is rejected."""
    issuer = authorization_server.issuer
    scheme, rest = issuer.split("://", 1)
    host, port = rest.split(":", 1)
    going_through(client_launcher, revision, protected_resource, authorization_server, redirect_issuer=OWN_ISSUER)
    for spelled in (f"{issuer}/", f"{scheme.upper()}://{rest}", f"{scheme}://{host[:-1]}%{ord(host[-1]):02X}:{port}"):
        authorization_server.reset()
        authorization_server.misbehaviour = Misbehaviour(redirect_issuer=spelled)
        oauth_run(client_launcher, revision, protected_resource)
        check_no_code_redeemed(authorization_server, f"the authorization response's iss was {spelled!r}, not {issuer}")


# Refresh tokens (2026-07-28): a token that lives 1 s and scenario oauth_refresh, which outlives it


def refresh_run(
    client_launcher: Launcher,
    revision: str,
    resource: ProtectedResource,
    authorization: AuthorizationServer,
    **bent: Any,
) -> ClientRun:
    authorization.misbehaviour = Misbehaviour(access_token_seconds=1, **bent)
    return run_client_process(client_launcher, "oauth_refresh", revision, [resource.url])


def refresh_grants(authorization: AuthorizationServer) -> list[SeenRequest]:
    return [s for s in authorization.requests_to("/token") if s.form.get("grant_type") == ["refresh_token"]]


@for_req("authorization-client-refresh-token-confidential", "client")
def test_the_client_sends_its_refresh_token_only_to_the_token_endpoint(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """In transit, as far as the wire shows: the refresh token goes in the body of a token request and nowhere else
    (no query string, no request to the MCP server). Its storage is the client's own (L-096)."""
    run = refresh_run(client_launcher, revision, protected_resource, authorization_server)

    def check() -> None:
        issued = authorization_server.issued_refresh_tokens
        precondition(issued and refresh_grants(authorization_server), "the client refreshed no token")
        leaks = []
        for where, seen in [("MCP server", s) for s in protected_resource.seen] + [
            ("authorization server", s) for s in authorization_server.seen
        ]:
            in_query = "refresh_token" in seen.query or any(t in json.dumps(seen.query) for t in issued)
            carried = any(t in seen.body.decode(errors="replace") or t in json.dumps(seen.headers) for t in issued)
            elsewhere = carried and (where == "MCP server" or seen not in authorization_server.requests_to("/token"))
            if in_query or elsewhere:
                leaks.append(f"{seen.method} {seen.path} to the {where}")
        assert not leaks, f"requests that carried a refresh token outside a token request's body: {leaks}"

    run.judge(check)


@for_req("authorization-client-refresh-token-grant-type", "client")
def test_a_client_that_refreshes_registers_the_refresh_token_grant(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """A client that uses refresh tokens lists refresh_token in the grant_types it registers."""
    run = refresh_run(client_launcher, revision, protected_resource, authorization_server)

    def check() -> None:
        precondition(refresh_grants(authorization_server), "the client refreshed no token (it wants none)")
        grants = registered_metadata(authorization_server).get("grant_types")
        assert isinstance(grants, list) and "refresh_token" in grants, f"the registration's grant_types: {grants!r}"

    run.judge(check)


@for_req("authorization-client-refresh-token-not-assumed", "client")
def test_the_client_keeps_working_without_refresh_tokens(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """No refresh token is issued and the access token lives 1 s: once it has expired, the client sends no refresh
    grant and gets through again (it lists the tools a second time)."""
    run = refresh_run(client_launcher, revision, protected_resource, authorization_server, refresh_tokens=False)
    refreshed = [s.form for s in refresh_grants(authorization_server)]
    assert not refreshed, f"no refresh token was issued, yet the client sent refresh grants: {refreshed}"
    listed = [
        seen
        for seen in protected_resource.requests_to_mcp()
        if seen.status < 400 and b'"tools/list"' in seen.body.replace(b" ", b"")
    ]
    assert run.completed and len(listed) >= 2, (
        f"without a refresh token the client did not get through again ({len(listed)} tools/list let through); "
        f"its last output:\n{run.output[-800:]}"
    )
    lapsed = [seen for seen in protected_resource.requests_to_mcp() if seen.status == 401 and seen.at > listed[0].at]
    precondition(
        len(code_redemptions(authorization_server)) >= 2 or lapsed,
        "the client listed again with its first token still good (it neither authorized again nor met a 401)",
    )


# Credentials across authorization servers (2026-07-28): once a token is taken, the resource trusts only another
# authorization server, which its metadata names from then on (ResourceMisbehaviour.migrate_to)


@pytest.fixture
def other_authorization_server(request: pytest.FixtureRequest) -> Iterator[AuthorizationServer]:
    """A second authorization server, what it records under the test's fault."""
    with AuthorizationServer() as other:
        other.recorder.fault = active_fault(request)
        yield other


@for_req("authorization-client-reregisters-on-as-change", "client")
def test_the_client_registers_with_the_new_authorization_server(
    revision: str,
    client_launcher: Launcher,
    protected_resource: ProtectedResource,
    authorization_server,
    other_authorization_server: AuthorizationServer,
) -> None:
    other = other_authorization_server
    protected_resource.misbehaviour = ResourceMisbehaviour(migrate_to=other)
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        asked = the_one(other.requests_to("/authorize"), "authorization request to the new authorization server")
        assert any(seen.at <= asked.at for seen in successful_registrations(other)), (
            f"the client asked the new authorization server for authorization as {client_id_of(asked)!r} without "
            f"registering with it"
        )

    run.judge(check)


@for_req("authorization-client-no-credential-reuse-across-as", "client")
def test_the_client_presents_no_other_servers_client_id(
    revision: str,
    client_launcher: Launcher,
    protected_resource: ProtectedResource,
    authorization_server,
    other_authorization_server: AuthorizationServer,
) -> None:
    """After the move every client ID the client names to the new server is one that server issued."""
    other = other_authorization_server
    protected_resource.misbehaviour = ResourceMisbehaviour(migrate_to=other)
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        named = [(f"{s.method} {s.path}", client_id_of(s)) for s in other.seen if client_id_of(s)]
        precondition(named, "the client named no client ID to the new authorization server")
        foreign = [(request, cid) for request, cid in named if cid not in other.registered_client_ids]
        assert not foreign, (
            f"client IDs the new authorization server never issued (the old one's: "
            f"{authorization_server.registered_client_ids}): {foreign}"
        )

    run.judge(check)


@for_req("authorization-client-preregistered-as-mismatch-error", "client")
def test_the_client_does_not_try_preregistered_credentials_on_another_server(
    revision: str,
    client_launcher: Launcher,
    protected_resource: ProtectedResource,
    authorization_server,
    other_authorization_server: AuthorizationServer,
) -> None:
    """The client's credentials were pre-registered with the first server (and bound to its issuer); the resource
    moves to another: the client does not try them there. Whether it also tells a person is not on the wire
    (L-095); a client that registers anew instead, as authorization-client-reregisters-on-as-change has it, passes."""
    other = other_authorization_server
    authorization_server.misbehaviour = Misbehaviour(known_clients={PREREGISTERED_CLIENT_ID: PREREGISTERED})
    protected_resource.misbehaviour = ResourceMisbehaviour(migrate_to=other)
    run = preregistered_run(client_launcher, revision, protected_resource, authorization_server)

    def check() -> None:
        first = the_one(authorization_server.requests_to("/authorize"), "authorization request")
        precondition(client_id_of(first) == PREREGISTERED_CLIENT_ID, "the client did not use its credentials")
        precondition(other.seen, "the client never turned to the new authorization server")
        tried = [f"{s.method} {s.path}" for s in other.seen if client_id_of(s) == PREREGISTERED_CLIENT_ID]
        assert not tried, f"the client tried its pre-registered client ID on the new authorization server: {tried}"

    run.judge(check)


# -- client side: discovery of the authorization server ------------------------------------------------------
#
# 2025-03-26 has no protected-resource metadata: the client finds the authorization server's metadata under the
# MCP server's authorization base URL (its origin), or uses the default endpoints there. ``own_origin_resource``
# plays such a server: the protected resource at /v1/mcp on the worker's authorization server's own origin.
# From 2025-06-18 the metadata names the authorization server; from 2025-11-25 the client knows both RFC 8414
# and OpenID Connect discovery, at the paths and in the order the revision gives.

FIRST_REVISION_WITH_AUTHORIZATION = "2025-03-26"
OWN_ORIGIN_PATH = "/v1/mcp"  # a path the authorization base URL drops
OWN_ORIGIN_DIRECTORY = "/v1/"  # a URL holding it was built from more than the origin
OAUTH_METADATA_PATH = "/.well-known/oauth-authorization-server"  # RFC 8414's well-known prefix
OPENID_METADATA_PATH = "/.well-known/openid-configuration"  # OpenID Connect Discovery's
DEFAULT_ENDPOINTS = ("/register", "/authorize", "/token")  # 2025-03-26's, below the authorization base URL
TENANT = "/tenant1"  # the path of an issuer that has one


@pytest.fixture
def own_origin_resource(
    authorization_server: AuthorizationServer,
    http_server_url: str,
    authorization_trace: Trace,
    request: pytest.FixtureRequest,
) -> Iterator[ProtectedResource]:
    """A 2025-03-26 MCP server: at /v1/mcp on the origin the worker's authorization server is served from (so
    that origin is its authorization base URL), serving no protected-resource metadata and naming none in its
    challenge, nor needing a scope (that revision says nothing of scopes). The authorization server binds its
    tokens to it: a client of that revision names no resource."""
    with ProtectedResource(
        http_server_url, [authorization_server], path=OWN_ORIGIN_PATH, on=authorization_server
    ) as resource:
        resource.recorder.trace = authorization_trace
        resource.recorder.fault = active_fault(request)
        resource.misbehaviour = ResourceMisbehaviour(
            metadata_locations=frozenset(), challenge_metadata=False, required_scopes=()
        )
        authorization_server.misbehaviour = Misbehaviour(token_audience=resource.url)
        yield resource


@dataclass
class Tenant:
    """An authorization server whose issuer has a path, and a protected resource that names it."""

    authorization: AuthorizationServer
    resource: ProtectedResource


@pytest.fixture
def tenant(http_server_url: str, authorization_trace: Trace, request: pytest.FixtureRequest) -> Iterator[Tenant]:
    with (
        AuthorizationServer(issuer_path=TENANT) as authorization,
        ProtectedResource(http_server_url, [authorization]) as resource,
    ):
        for recorder in (authorization.recorder, resource.recorder):
            recorder.trace, recorder.fault = authorization_trace, active_fault(request)
        yield Tenant(authorization, resource)


def also_misbehave(authorization: AuthorizationServer, **switches: Any) -> None:
    """``switches`` set on top of the authorization server's misbehaviour (the token binding
    ``own_origin_resource`` needs of it)."""
    authorization.misbehaviour = replace(authorization.misbehaviour, **switches)


def discovery_paths(authorization: AuthorizationServer) -> list[str]:
    """The paths of the client's requests for a discovery document, in order."""
    return [seen.path for seen in list(authorization.seen) if seen.path.startswith("/.well-known/")]


def default_endpoint_requests(authorization: AuthorizationServer) -> list[SeenRequest]:
    return [seen for seen in list(authorization.seen) if seen.path in DEFAULT_ENDPOINTS]


def authorized_session(resource: ProtectedResource) -> list[SeenRequest]:
    """The client's requests the resource let through; the client got nowhere with its token without them."""
    return [seen for seen in resource.requests_to_mcp() if seen.status < 400]


@for_req("authorization-client-as-metadata", "client")
def test_the_client_takes_the_endpoints_from_the_authorization_server_metadata(
    revision: str, client_launcher: Launcher, authorization_server, request: pytest.FixtureRequest
) -> None:
    """The metadata names the authorization, token and registration endpoints off the default paths: the client
    goes there, and to no default path (at 2025-03-26 the metadata is under the MCP server's own origin; later
    the protected-resource metadata names the authorization server)."""
    legacy = revision == FIRST_REVISION_WITH_AUTHORIZATION
    resource = request.getfixturevalue("own_origin_resource" if legacy else "protected_resource")
    also_misbehave(authorization_server, moved_endpoints=True)
    run = oauth_run(client_launcher, revision, resource)

    def check() -> None:
        precondition(discovery_paths(authorization_server), "the client asked for no authorization server metadata")
        moved = [
            f"{seen.method} {seen.path}"
            for endpoint in DEFAULT_ENDPOINTS
            for seen in authorization_server.requests_to(MOVED_ENDPOINTS + endpoint)
        ]
        at_defaults = [f"{seen.method} {seen.path}" for seen in default_endpoint_requests(authorization_server)]
        assert moved and not at_defaults, (
            f"the metadata names the endpoints under {MOVED_ENDPOINTS}; the client sent {moved} there and "
            f"{at_defaults} to the default paths"
        )

    run.judge(check)


@for_req("authorization-client-metadata-at-base-url", "client")
def test_the_client_asks_for_the_metadata_at_the_authorization_base_url(
    revision: str, client_launcher: Launcher, own_origin_resource: ProtectedResource, authorization_server
) -> None:
    """The MCP server is at /v1/mcp: the client asks for /.well-known/oauth-authorization-server at its origin."""
    run = oauth_run(client_launcher, revision, own_origin_resource)

    def check() -> None:
        asked = discovery_paths(authorization_server)
        assert asked[:1] == [OAUTH_METADATA_PATH], (
            f"the MCP server is {own_origin_resource.url}; the client asked for authorization server metadata at "
            f"{asked}, not first at {OAUTH_METADATA_PATH} of its origin"
        )

    run.judge(check)


@for_req("authorization-client-base-url-strip-path", "client")
def test_the_authorization_base_url_is_the_origin_of_the_mcp_server(
    revision: str, client_launcher: Launcher, own_origin_resource: ProtectedResource, authorization_server
) -> None:
    """No metadata: every URL the client builds from the authorization base URL (the metadata's, then the
    default endpoints) is at the MCP server's origin without the /v1/mcp path."""
    also_misbehave(authorization_server, documents=frozenset())
    run = oauth_run(client_launcher, revision, own_origin_resource)

    def check() -> None:
        built = [seen.path for seen in list(authorization_server.seen)]  # the MCP server's own paths are not here
        precondition(built, "the client sent its authorization base URL nothing")
        under_the_path = [path for path in built if OWN_ORIGIN_DIRECTORY in path]
        assert not under_the_path, (
            f"the MCP server is {own_origin_resource.url}; the client asked for {under_the_path}, built from a base "
            f"URL other than its origin"
        )

    run.judge(check)


@for_req("authorization-client-fallback-default-endpoints", "client")
def test_without_metadata_the_client_uses_the_default_endpoints(
    revision: str, client_launcher: Launcher, own_origin_resource: ProtectedResource, authorization_server
) -> None:
    """No metadata: the client registers at /register, authorizes at /authorize and redeems at /token."""
    also_misbehave(authorization_server, documents=frozenset())
    run = oauth_run(client_launcher, revision, own_origin_resource)

    def check() -> None:
        used = {seen.path for seen in default_endpoint_requests(authorization_server)}
        missing = [endpoint for endpoint in DEFAULT_ENDPOINTS if endpoint not in used]
        assert not missing, f"without metadata the client sent nothing to the default endpoints {missing}"

    run.judge(check)


@for_req("authorization-client-metadata-before-defaults", "client")
def test_the_client_asks_for_the_metadata_before_using_the_default_endpoints(
    revision: str, client_launcher: Launcher, own_origin_resource: ProtectedResource, authorization_server
) -> None:
    also_misbehave(authorization_server, documents=frozenset())
    run = oauth_run(client_launcher, revision, own_origin_resource)

    def check() -> None:
        defaults = default_endpoint_requests(authorization_server)
        precondition(defaults, "the client used no default endpoint")
        asked = authorization_server.requests_to(OAUTH_METADATA_PATH)
        assert asked and asked[0].at <= defaults[0].at, (
            f"the client sent {defaults[0].method} {defaults[0].path} without first asking for the metadata at "
            f"{OAUTH_METADATA_PATH} (asked: {[seen.path for seen in asked]})"
        )

    run.judge(check)


@for_req("authorization-client-discovery-protocol-version-header", "client")
def test_the_metadata_request_carries_the_protocol_version(
    revision: str, client_launcher: Launcher, own_origin_resource: ProtectedResource, authorization_server
) -> None:
    """The request for the authorization server metadata names the protocol version the client uses (the one
    its initialize request proposes) in MCP-Protocol-Version."""
    run = oauth_run(client_launcher, revision, own_origin_resource)

    def check() -> None:
        opening = the_one(own_origin_resource.requests_to_mcp(), "request to the MCP server")
        proposed = opening.json().get("params", {}).get("protocolVersion")
        asked = the_one(authorization_server.requests_to(OAUTH_METADATA_PATH), "authorization server metadata request")
        sent = asked.headers.get("mcp-protocol-version")
        assert sent == proposed, (
            f"the metadata request's MCP-Protocol-Version is {sent!r}; the client's initialize proposes {proposed!r}"
        )

    run.judge(check)


@for_req("authorization-client-as-discovery-both", "client")
def test_the_client_discovers_by_rfc8414_and_by_openid_connect(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """Two runs: the authorization server serves only its RFC 8414 document, then only its OpenID Connect one;
    each time the client reads it and goes on to authorize."""
    for documents in (OAUTH_ONLY, OPENID_ONLY):
        authorization_server.reset()
        protected_resource.seen.clear()
        authorization_server.misbehaviour = Misbehaviour(documents=documents)
        run = oauth_run(client_launcher, revision, protected_resource)

        def check(documents: frozenset[str] = documents) -> None:
            read = [seen.path for seen in authorization_server.seen if seen.path.startswith("/.well-known/")]
            precondition(read, "the client asked for no authorization server metadata")
            authorized = authorization_server.requests_to("/authorize")
            assert authorized, f"serving only {sorted(documents)}, the client asked {read} and never authorized"

        run.judge(check)


@for_req("authorization-client-as-metadata-order-no-path", "client")
def test_for_an_issuer_without_a_path_the_client_tries_oauth_then_openid(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """Only the OpenID Connect document is served: the client asks RFC 8414's first, then OpenID's."""
    authorization_server.misbehaviour = Misbehaviour(documents=OPENID_ONLY)
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        asked = discovery_paths(authorization_server)
        expected = [OAUTH_METADATA_PATH, OPENID_METADATA_PATH]
        assert asked[:2] == expected, f"the client asked for the metadata at {asked}, not {expected} first"

    run.judge(check)


@for_req("authorization-client-as-metadata-order-with-path", "client")
def test_for_an_issuer_with_a_path_the_client_tries_the_three_documents_in_order(
    revision: str, client_launcher: Launcher, tenant: Tenant
) -> None:
    """The issuer is {origin}/tenant1 and serves only OpenID's path-appended document: the client asks RFC 8414's
    path-inserted one, OpenID's path-inserted one, then OpenID's path-appended one."""
    tenant.authorization.misbehaviour = Misbehaviour(documents=frozenset({"openid-configuration-appended"}))
    run = oauth_run(client_launcher, revision, tenant.resource)

    def check() -> None:
        asked = [seen.path for seen in tenant.authorization.seen if "/.well-known/" in seen.path]
        expected = [OAUTH_METADATA_PATH + TENANT, OPENID_METADATA_PATH + TENANT, TENANT + OPENID_METADATA_PATH]
        assert asked[:3] == expected, f"the client asked for the metadata at {asked}, not {expected} first"

    run.judge(check)


# -- client side: the 401 challenge and the scopes asked for -------------------------------------------------


@for_req("authorization-client-parse-www-authenticate", "client")
def test_the_client_reads_a_challenge_with_several_parameters(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The 401's challenge carries a realm (a quoted string holding a comma) before resource_metadata, which names
    the only place the metadata is: the client reads it there, authorizes, and its token gets through."""
    protected_resource.misbehaviour = ResourceMisbehaviour(
        challenge_extra='realm="mcp-matrix tools, resources"',
        metadata_locations=frozenset({"elsewhere"}),
        challenge_names="elsewhere",
    )
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        named = urllib.parse.urlsplit(protected_resource.metadata_url_at("elsewhere")).path
        asked = [s.path for s in protected_resource.seen if s.method == "GET" and s.path != protected_resource.path]
        assert asked[:1] == [named], f"the challenge named {named}; the client asked for the metadata at {asked}"
        assert authorized_session(protected_resource), "the client's token never got through after the challenge"

    run.judge(check)


@for_req("authorization-client-challenge-scope-authoritative", "client")
def test_the_client_asks_for_every_scope_the_challenge_names(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The 401 names two scopes, of which the metadata's scopes_supported lists one: the client asks for both."""
    challenged = {"mcp-matrix:tools", "mcp-matrix:admin"}
    protected_resource.misbehaviour = ResourceMisbehaviour(
        challenge_scope=" ".join(sorted(challenged)),
        required_scopes=tuple(sorted(challenged)),
        metadata_overrides={"scopes_supported": ["mcp-matrix:tools"]},
    )
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        first = the_one(scopes_asked(authorization_server), "authorization request")
        assert challenged <= first, f"the challenge named {sorted(challenged)}; the client asked for {sorted(first)}"

    run.judge(check)


@for_req("authorization-client-no-scope-set-assumption", "client")
def test_the_client_follows_a_challenge_whose_scopes_are_outside_scopes_supported(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The 401 names mcp-matrix:admin, the metadata's scopes_supported only mcp-matrix:tools (neither set holds
    the other): the client asks for the challenged scope and gets through with it."""
    protected_resource.misbehaviour = ResourceMisbehaviour(
        challenge_scope="mcp-matrix:admin",
        required_scopes=("mcp-matrix:admin",),
        metadata_overrides={"scopes_supported": ["mcp-matrix:tools"]},
    )
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        asked = scopes_asked(authorization_server)
        assert any("mcp-matrix:admin" in scopes for scopes in asked), (
            f"the challenge named mcp-matrix:admin (outside scopes_supported); the client asked for {asked}"
        )
        assert authorized_session(protected_resource), "the client never got through with the challenged scope"

    run.judge(check)


@for_req("authorization-client-initial-scope-fallback", "client")
def test_without_a_challenged_scope_the_client_asks_for_scopes_supported(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The 401 names no scope. Two runs: the metadata lists two scopes (the client asks for both), then lists none
    (the client's authorization request has no scope parameter)."""
    supported = ["mcp-matrix:tools", "mcp-matrix:admin"]
    for listed in (supported, None):
        authorization_server.reset()
        protected_resource.seen.clear()
        protected_resource.misbehaviour = ResourceMisbehaviour(metadata_overrides={"scopes_supported": listed})
        run = oauth_run(client_launcher, revision, protected_resource)

        def check(listed: list[str] | None = listed) -> None:
            asked = the_one(authorization_server.requests_to("/authorize"), "authorization request").query
            if listed is None:
                assert "scope" not in asked, (
                    f"the metadata lists no scopes_supported; the client asked for scope {asked['scope']}"
                )
            else:
                assert set(asked.get("scope", [""])[0].split()) == set(listed), (
                    f"the metadata lists {listed}; the client asked for scope {asked.get('scope')}"
                )

        run.judge(check)


@for_req("authorization-client-user-step-up", "client")
def test_the_client_acting_for_a_user_authorizes_again_on_a_scope_error(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """tools/list needs mcp-matrix:admin: after its 403 insufficient_scope the client sends its user through a new
    authorization request, and then lists the tools."""
    protected_resource.misbehaviour = ResourceMisbehaviour(method_scopes={"tools/list": ("mcp-matrix:admin",)})
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        refused = [s for s in protected_resource.requests_to_mcp() if s.status == 403]
        precondition(refused, "no request of the client met the insufficient-scope refusal")
        again = [s for s in authorization_server.requests_to("/authorize") if s.at >= refused[0].at]
        assert again, "after the 403 insufficient_scope the client sent no new authorization request"
        listed = [s for s in authorized_session(protected_resource) if s.at >= again[0].at]
        assert listed, "after authorizing again the client's request never got through"

    run.judge(check)


@for_req("authorization-client-reauthorization-keeps-granted-scopes", "client")
def test_the_client_keeps_its_scopes_when_it_authorizes_again(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The client holds mcp-matrix:tools; tools/list's 403 names only mcp-matrix:admin: the new authorization asks
    for both."""
    protected_resource.misbehaviour = ResourceMisbehaviour(
        method_scopes={"tools/list": ("mcp-matrix:admin",)}, insufficient_scope_names="mcp-matrix:admin"
    )
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        first, *again = scopes_asked(authorization_server) or [set()]
        precondition(again, "the client did not authorize again after the insufficient-scope refusal")
        assert {"mcp-matrix:tools", "mcp-matrix:admin"} <= again[0], (
            f"the client held {sorted(first)} and was challenged for mcp-matrix:admin; it asked for {sorted(again[0])}"
        )

    run.judge(check)


@for_req("authorization-client-offline-access-scope", "client")
def test_the_client_may_ask_for_offline_access(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization server's scopes_supported lists offline_access: the client may ask for it (not-exercised
    when it does not)."""
    scopes = ["mcp-matrix:tools", "mcp-matrix:admin", "offline_access"]
    authorization_server.misbehaviour = Misbehaviour(metadata_overrides={"scopes_supported": scopes})
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        first = the_one(scopes_asked(authorization_server), "authorization request")
        assert "offline_access" in first, f"the client asked for {sorted(first)}, without offline_access"

    run.judge(check)


# -- client side: the resource parameter ---------------------------------------------------------------------


def resources_named(authorization: AuthorizationServer) -> list[str]:
    """The resource parameters of the client's authorization and token requests."""
    return [
        *(r for s in authorization.requests_to("/authorize") for r in s.query.get("resource", [])),
        *(r for s in authorization.requests_to("/token") for r in s.form.get("resource", [])),
    ]


@for_req("authorization-client-resource-canonical-uri", "client")
def test_the_resource_parameter_is_an_absolute_uri_without_a_fragment(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        named = resources_named(authorization_server)
        precondition(named, "the client named no resource")
        wrong = [
            resource
            for resource in named
            if not (parts := urllib.parse.urlsplit(resource)).scheme or not parts.netloc or "#" in resource
        ]
        assert not wrong, f"resource parameters that are no absolute URI without a fragment: {wrong}"

    run.judge(check)


@for_req("authorization-client-resource-most-specific", "client")
def test_the_resource_parameter_names_the_endpoint_not_only_its_origin(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The MCP server is at /mcp of its origin: the resource names that path."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        named = resources_named(authorization_server)
        precondition(named, "the client named no resource")
        vaguer = [r for r in named if urllib.parse.urlsplit(r).path.rstrip("/") != protected_resource.path]
        assert not vaguer, f"the MCP server is {protected_resource.url}; the client named the resource {vaguer}"

    run.judge(check)


@for_req("authorization-client-resource-regardless-of-as-support", "client")
def test_the_client_names_the_resource_to_a_server_that_states_no_support_for_it(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The authorization server's metadata says nothing of resource indicators: the client names the resource in
    its authorization request and its token requests all the same."""
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        read = [s for s in authorization_server.seen if s.path.startswith("/.well-known/") and s.status == 200]
        precondition(read, "the client read no authorization server metadata")
        stated = [key for key in authorization_server.metadata("oauth-authorization-server") if "resource" in key]
        precondition(not stated, f"the authorization server's metadata states {stated}")
        asked = the_one(authorization_server.requests_to("/authorize"), "authorization request").query
        tokens = authorization_server.requests_to("/token")
        precondition(tokens, "the client sent no token request")
        without = ["authorization request"] * ("resource" not in asked) + [
            f"token request ({s.form.get('grant_type')})" for s in tokens if not s.form.get("resource")
        ]
        assert not without, f"requests without a resource parameter: {without}"

    run.judge(check)


@pytest.fixture
def root_resource(
    authorization_server: AuthorizationServer,
    http_server_url: str,
    authorization_trace: Trace,
    request: pytest.FixtureRequest,
) -> Iterator[ProtectedResource]:
    """A protected resource at the root of its origin, whose metadata names it without a trailing slash (the
    client is given that URL too)."""
    with ProtectedResource(http_server_url, [authorization_server], path="/") as resource:
        resource.recorder.trace = authorization_trace
        resource.recorder.fault = active_fault(request)
        resource.misbehaviour = ResourceMisbehaviour(metadata_overrides={"resource": resource.origin})
        yield resource


@for_req("authorization-canonical-uri-no-trailing-slash", "client")
def test_the_client_names_a_resource_at_the_root_without_a_trailing_slash(
    revision: str, client_launcher: Launcher, root_resource: ProtectedResource, authorization_server
) -> None:
    """The MCP server is the origin itself, given and stated as http://127.0.0.1:<port> (the slash means nothing
    there): the resource the client names has no trailing slash."""
    run = run_client_process(client_launcher, "oauth_flow", revision, [root_resource.origin])

    def check() -> None:
        named = resources_named(authorization_server)
        precondition(named, "the client named no resource")
        slashed = [resource for resource in named if resource.endswith("/")]
        assert not slashed, f"the MCP server is {root_resource.origin}; the client named the resource {slashed}"

    run.judge(check)


@for_req("authorization-accept-uppercase-scheme-host", "client")
def test_the_client_accepts_metadata_naming_its_server_in_upper_case(
    revision: str, client_launcher: Launcher, protected_resource: ProtectedResource, authorization_server
) -> None:
    """The protected-resource metadata names the MCP server with its scheme and host in upper case: the same
    resource, so the client goes on to authorize (and the resource takes the token, whichever way it is spelt)."""
    parts = urllib.parse.urlsplit(protected_resource.url)
    shouted = urllib.parse.urlunsplit(parts._replace(scheme=parts.scheme.upper(), netloc=parts.netloc.upper()))
    protected_resource.misbehaviour = ResourceMisbehaviour(metadata_overrides={"resource": shouted})
    run = oauth_run(client_launcher, revision, protected_resource)

    def check() -> None:
        read = [s for s in protected_resource.seen if s.path.startswith(PRM_PATH) and s.status == 200]
        precondition(read, "the client never read the protected-resource metadata")
        authorized = authorization_server.requests_to("/authorize")
        assert authorized, f"the metadata names the resource {shouted}; the client went no further than reading it"

    run.judge(check)
