"""The authorization server fixture: an OAuth 2.1 authorization server on 127.0.0.1 that a test can make
misbehave on demand, and that records every request it gets.

It runs in the test process (a uvicorn server on its own thread), so a test sets its switches and reads
what it saw directly, with no control protocol. The endpoints are the SDK's own authorization-server
handlers (``mcp.server.auth.handlers``: authorization with PKCE ``S256``, token with the
``authorization_code`` and ``refresh_token`` grants, dynamic client registration) over an in-memory
provider of this module; access tokens are JWTs signed ES256 with PyJWT (the key made by
``cryptography``), published as a JWKS. The discovery documents (RFC 8414 and OpenID Connect, at
the paths each gives for the issuer), the JWKS and the misbehaviours are this module's.

Where it sits: in ``conformance/harness`` beside the scripted servers, because it is a peer the harness
plays and scripts, never the implementation under test. Under test is the resource server (the fixture
server's ``oauth`` configuration, ``conformance/fixtures/resource_server.py``, which trusts this server's
issuer and JWKS) or the client (which this server authorizes).

Use::

    with AuthorizationServer() as authorization:              # or the `authorization_server` fixture
        authorization.misbehaviour = Misbehaviour(code_challenge_methods=None)
        ... run the client against a resource server that names authorization.issuer ...
        [seen] = authorization.requests_to("/authorize")
        assert seen.query["code_challenge_method"] == ["S256"]
        token = authorization.mint(audience=resource, scopes=("mcp-matrix:tools",), expired=True)

``Misbehaviour`` is the switchboard; ``docs/authorization-fixture.md`` maps the authorization
requirements to its switches.
"""

from __future__ import annotations

import json
import math
import secrets
import socket
import ssl
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs, urlencode

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm
from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.middleware.client_auth import ClientAuthenticator
from mcp.server.auth.provider import (
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    RegistrationError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import ClientRegistrationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from conformance.fixtures.authorization_host import new_authorization_code
from conformance.harness.faults import Fault
from conformance.harness.peer import HarnessError
from conformance.harness.trace import Trace

if TYPE_CHECKING:
    import httpx2

START_SECONDS = 5.0  # how long the server may take to start serving
STOP_SECONDS = 5.0  # how long it may take to stop
TRACED_BODY_BYTES = 65536  # how much of a body a trace event keeps
FETCH_SECONDS = 5.0  # how long fetching a client ID metadata document may take
ALGORITHM = "ES256"
SCOPES = ("mcp-matrix:tools", "mcp-matrix:admin")  # the scopes it knows, and grants when asked
SUBJECT = "mcp-matrix-user"  # the resource owner every grant is for (authorization is auto-approved)
OTHER_AUDIENCE = "http://127.0.0.1:9/another-resource"  # a resource no test server is
WRONG_ISSUER = "http://127.0.0.1:9/another-issuer"  # an issuer this server is not
REDIRECT_REFUSAL = "these redirect URIs do not fit the application_type"  # registration "redirect-refused"
OWN_ISSUER = "{issuer}"  # in a switch that states an issuer: this server's own
ACCESS_TOKEN_SECONDS = 3600
# where the `moved_endpoints` switch places the authorization, token and registration endpoints, under the issuer
MOVED_ENDPOINTS = "/mcp-matrix/moved"
CODE_SECONDS = 300

# The discovery documents, each at the path its specification gives for the issuer (path P, maybe empty):
# RFC 8414's /.well-known/oauth-authorization-server{P}; OpenID Connect's /.well-known/openid-configuration
# inserted before P (RFC 8414's rule applied to it) or appended after P (OpenID Discovery 1.0's own rule).
# For an issuer without a path the two OpenID paths are the same, served if either is on.
DiscoveryDocument = Literal[
    "oauth-authorization-server", "openid-configuration-inserted", "openid-configuration-appended"
]
ALL_DOCUMENTS: frozenset[DiscoveryDocument] = frozenset(
    ("oauth-authorization-server", "openid-configuration-inserted", "openid-configuration-appended")
)
OAUTH_ONLY: frozenset[DiscoveryDocument] = frozenset(("oauth-authorization-server",))
OPENID_ONLY: frozenset[DiscoveryDocument] = ALL_DOCUMENTS - OAUTH_ONLY


@dataclass(frozen=True)
class Misbehaviour:
    """What the authorization server does wrong (or differently) for one test; the default is a server that
    does everything right. Each switch is independent; ``docs/authorization-fixture.md`` says which
    requirements each one provokes."""

    # discovery
    documents: frozenset[DiscoveryDocument] = ALL_DOCUMENTS  # which discovery documents it serves
    missing_document_status: int = 404  # the status of a document it does not serve (5xx: a failing server)
    metadata_issuer: str | None = None  # the issuer its metadata states (None: its own)
    code_challenge_methods: tuple[str, ...] | None = ("S256",)  # None: the field is left out (no PKCE stated)
    # the metadata names the authorization, token and registration endpoints under MOVED_ENDPOINTS, off the
    # default paths (served too): a client that reaches them read the metadata
    moved_endpoints: bool = False
    client_id_metadata_documents: bool = False  # advertise (and accept) client ID metadata documents
    # clients it knows without a registration, by client_id: their metadata (redirect_uris, ...). A URL
    # client_id's entry is its client ID metadata document, taken as fetched from that URL (an HTTPS URL off
    # this machine, which loopback cannot serve), used only when client_id_metadata_documents is on; any
    # other entry is a pre-registration
    known_clients: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    metadata_overrides: Mapping[str, Any] = field(default_factory=dict)  # set any field; None removes it
    # registration: "open" (RFC 7591), "refused" (400 invalid_client_metadata), "redirect-refused" (400
    # invalid_redirect_uri, as an OpenID server refusing redirect URIs for the application_type), "unadvertised"
    # (no endpoint)
    registration: Literal["open", "refused", "redirect-refused", "unadvertised"] = "open"
    # the authorization response's RFC 9207 `iss`: None leaves it out, OWN_ISSUER states this server's issuer,
    # any other string is stated as it is (another issuer, or this one spelled otherwise)
    redirect_issuer: str | None = None
    # the metadata's authorization_response_iss_parameter_supported: true, false, or (None) true when it sends iss
    iss_parameter_supported: bool | None = None
    redirect_state: str | None = None  # the `state` the authorization response carries (None: the one asked with)
    # tokens
    token_audience: str | None = None  # the `aud` of the access tokens (None: the `resource` the client asked for)
    token_issuer: str | None = None  # the `iss` of the access tokens (None: this server's issuer)
    expired_tokens: bool = False  # tokens that expired a minute ago (`expires_in` still says they are fresh)
    granted_scopes: tuple[str, ...] | None = None  # the scopes tokens carry (None: those asked for)
    access_token_seconds: int = ACCESS_TOKEN_SECONDS  # the lifetime tokens have and `expires_in` states
    refresh_tokens: bool = True  # issue refresh tokens
    refresh_refused: bool = False  # refuse every refresh_token grant (invalid_grant)


WELL_BEHAVED = Misbehaviour()


@dataclass
class SeenRequest:
    """One HTTP request a harness server (the authorization server, a protected resource) got, as it came
    (``status``: what it answered; ``at``: when, on the clock both servers share)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # names lower-cased
    body: bytes
    status: int = 0
    at: float = field(default_factory=time.monotonic)

    @property
    def form(self) -> dict[str, list[str]]:
        """The body as a form (a token request); empty when it is not one."""
        if not self.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            return {}
        return parse_qs(self.body.decode(errors="replace"), keep_blank_values=True)

    def json(self) -> Any:
        """The body as JSON (a registration request)."""
        return json.loads(self.body)


class AuthorizationServer:
    """An authorization server on 127.0.0.1:0 (``issuer_path`` gives its issuer a path, as a tenant's).

    ``misbehaviour`` may be replaced at any time and holds from the next request on; ``seen`` lists the
    requests in the order they came; ``reset()`` restores good behaviour and forgets what was seen,
    registered and issued. ``close()`` (or leaving the ``with``) stops it within STOP_SECONDS."""

    def __init__(self, issuer_path: str = "", scopes: Iterable[str] = SCOPES) -> None:
        self.issuer_path = "/" + issuer_path.strip("/") if issuer_path.strip("/") else ""
        self.scopes = tuple(scopes)
        self.misbehaviour = WELL_BEHAVED
        self.seen: list[SeenRequest] = []
        self.issued_refresh_tokens: list[str] = []  # every refresh token it issued, in order
        self._key = ec.generate_private_key(ec.SECP256R1())
        self._key_id = secrets.token_urlsafe(8)
        self._provider = _Provider(self)
        self._listener = LoopbackServer("the authorization server")
        self.origin = self._listener.origin
        self.issuer = self.origin + self.issuer_path
        self.jwks_uri = self.issuer + "/jwks"
        self.recorder = Recorder(self._app(), self.seen)  # its `trace`: where a test wants the exchanges too
        # another application served from this origin at its own paths (a 2025-03-26 MCP server, whose
        # authorization base URL is its own origin): ProtectedResource(..., on=this server)
        self.guest: tuple[frozenset[str], ASGIApp] | None = None
        self._listener.start(self._serve)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        guest = self.guest
        if guest is not None and scope["type"] == "http" and scope["path"] in guest[0]:
            await guest[1](scope, receive, send)
        else:
            await self.recorder(scope, receive, send)

    def __enter__(self) -> AuthorizationServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._listener.close()

    def reset(self) -> None:
        self.misbehaviour = WELL_BEHAVED
        self.seen.clear()
        self.issued_refresh_tokens.clear()
        self._provider.forget()

    def requests_to(self, endpoint: str) -> list[SeenRequest]:
        """The requests seen at ``endpoint``: a path under the issuer (``/token``) or from the origin
        (``/.well-known/...``, which RFC 8414 places before the issuer's path)."""
        paths = {endpoint} if endpoint.startswith("/.well-known/") else {self.issuer_path + endpoint}
        return [seen for seen in list(self.seen) if seen.path in paths]

    @property
    def registered_client_ids(self) -> list[str]:
        """The client IDs its registration endpoint issued, in order."""
        return list(self._provider.clients)

    @property
    def placeholders(self) -> dict[str, str]:
        """What a configuration's command or options name as ``{issuer}`` and ``{jwks-uri}``."""
        return {"{issuer}": self.issuer, "{jwks-uri}": self.jwks_uri}

    # ------------------------------------------------------------------------------------------
    # tokens

    def mint(
        self,
        *,
        audience: str | list[str],
        scopes: Iterable[str] = SCOPES,
        client_id: str = "mcp-matrix-minted",
        seconds: int = ACCESS_TOKEN_SECONDS,
        expired: bool = False,
        issuer: str | None = None,
    ) -> str:
        """An access token signed with this server's key, as a test orders it (no flow needed): for the
        resource server's side, which must take a good one and refuse the others."""
        now = time.time()
        claims = {
            "iss": issuer or self.issuer,
            "sub": SUBJECT,
            "aud": audience,
            "client_id": client_id,
            "scope": " ".join(scopes),
            "iat": int(now),
            # rounded up: a whole-second exp never cuts the lifetime short (a 1 s token lives at least 1 s)
            "exp": int(now) - 60 if expired else math.ceil(now + seconds),
            "jti": secrets.token_urlsafe(12),
        }
        return jwt.encode(claims, self._key, algorithm=ALGORITHM, headers={"kid": self._key_id})

    def verified_claims(self, token: str) -> dict[str, Any] | None:
        """The claims of a token this server signed under its own issuer; None for any other token. Audience,
        expiry and scope are left to the caller to judge."""
        try:
            return jwt.decode(
                token,
                self._key.public_key(),
                algorithms=[ALGORITHM],
                issuer=self.issuer,
                options={"verify_exp": False, "verify_aud": False},
            )
        except jwt.PyJWTError:
            return None

    def jwks(self) -> dict[str, Any]:
        key = ECAlgorithm.to_jwk(self._key.public_key(), as_dict=True)
        return {"keys": [key | {"kid": self._key_id, "use": "sig", "alg": ALGORITHM}]}

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        """The tokens a grant earns, as ``misbehaviour`` bends them."""
        bent = self.misbehaviour
        granted = list(bent.granted_scopes) if bent.granted_scopes is not None else scopes
        access = self.mint(
            audience=bent.token_audience or resource or self.issuer,
            scopes=granted,
            client_id=client_id,
            seconds=bent.access_token_seconds,
            expired=bent.expired_tokens,
            issuer=bent.token_issuer,
        )
        refresh = None
        if bent.refresh_tokens:
            refresh = secrets.token_urlsafe(32)
            self.issued_refresh_tokens.append(refresh)
            self._provider.refresh_tokens[refresh] = RefreshToken(
                token=refresh, client_id=client_id, scopes=scopes, resource=resource, subject=SUBJECT
            )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=bent.access_token_seconds,
            scope=" ".join(granted),
            refresh_token=refresh,
        )

    # ------------------------------------------------------------------------------------------
    # discovery

    def metadata(self, document: DiscoveryDocument) -> dict[str, Any]:
        """The metadata document as ``misbehaviour`` has it (the OpenID ones with OpenID's own fields)."""
        bent = self.misbehaviour
        endpoints = self.issuer + (MOVED_ENDPOINTS if bent.moved_endpoints else "")
        found: dict[str, Any] = {
            "issuer": bent.metadata_issuer or self.issuer,
            "authorization_endpoint": endpoints + "/authorize",
            "token_endpoint": endpoints + "/token",
            "registration_endpoint": endpoints + "/register",
            "jwks_uri": self.jwks_uri,
            "scopes_supported": list(self.scopes),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
        }
        if bent.code_challenge_methods is not None:
            found["code_challenge_methods_supported"] = list(bent.code_challenge_methods)
        if bent.registration == "unadvertised":
            del found["registration_endpoint"]
        if bent.client_id_metadata_documents:
            found["client_id_metadata_document_supported"] = True
        iss_supported = (
            bent.redirect_issuer is not None if bent.iss_parameter_supported is None else bent.iss_parameter_supported
        )
        if iss_supported or bent.iss_parameter_supported is False:
            found["authorization_response_iss_parameter_supported"] = iss_supported
        if document != "oauth-authorization-server":
            found |= {"subject_types_supported": ["public"], "id_token_signing_alg_values_supported": [ALGORITHM]}
        for name, value in bent.metadata_overrides.items():
            if value is None:
                found.pop(name, None)
            else:
                found[name] = value
        return found

    def _document(self, kinds: frozenset[DiscoveryDocument]) -> Callable[[Request], Awaitable[Response]]:
        """A discovery route serving whichever of ``kinds`` (one path may be two documents) is on."""

        async def serve(_request: Request) -> Response:
            served = sorted(kinds & self.misbehaviour.documents)
            if not served:
                return JSONResponse({"error": "not_found"}, status_code=self.misbehaviour.missing_document_status)
            return JSONResponse(self.metadata(served[0]))

        return serve

    # ------------------------------------------------------------------------------------------
    # the application

    def _app(self) -> ASGIApp:
        provider = self._provider
        prefix = self.issuer_path
        authorize = AuthorizationHandler(provider)
        token = TokenHandler(provider, ClientAuthenticator(provider))
        register = RegistrationHandler(provider, ClientRegistrationOptions(enabled=True))

        async def registration(request: Request) -> Response:
            if self.misbehaviour.registration == "unadvertised":
                return JSONResponse({"error": "not_found"}, status_code=404)
            return await register.handle(request)

        async def jwks(_request: Request) -> Response:
            return JSONResponse(self.jwks())

        documents: dict[str, set[DiscoveryDocument]] = {}
        for path, kind in (
            (f"/.well-known/oauth-authorization-server{prefix}", "oauth-authorization-server"),
            (f"/.well-known/openid-configuration{prefix}", "openid-configuration-inserted"),
            (f"{prefix}/.well-known/openid-configuration", "openid-configuration-appended"),
        ):
            documents.setdefault(path, set()).add(kind)  # type: ignore[arg-type]
        routes = [Route(path, self._document(frozenset(kinds)), methods=["GET"]) for path, kinds in documents.items()]
        for endpoints in (prefix, prefix + MOVED_ENDPOINTS):
            routes += [
                Route(endpoints + "/authorize", authorize.handle, methods=["GET", "POST"]),
                Route(endpoints + "/token", token.handle, methods=["POST"]),
                Route(endpoints + "/register", registration, methods=["POST"]),
            ]
        routes.append(Route(prefix + "/jwks", jwks, methods=["GET"]))
        return Starlette(routes=routes)


class _Provider:
    """The SDK handlers' storage and policy (``OAuthAuthorizationServerProvider``): clients, codes and
    refresh tokens in memory, authorization auto-approved for SUBJECT, tokens from the server's
    ``_issue``. A registered client may ask for any scope the server knows (so a step-up can widen it)."""

    def __init__(self, server: AuthorizationServer) -> None:
        self.server = server
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}

    def forget(self) -> None:
        self.clients.clear()
        self.codes.clear()
        self.refresh_tokens.clear()

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id in self.clients:
            return self.clients[client_id]
        bent = self.server.misbehaviour
        is_url = client_id.startswith(("https://", "http://"))
        known = bent.known_clients.get(client_id)
        if known is not None and (bent.client_id_metadata_documents or not is_url):
            # it may ask for any scope the server knows, as a registered client may
            metadata = OAuthClientMetadata.model_validate({"scope": " ".join(self.server.scopes)} | dict(known))
            return OAuthClientInformationFull(**metadata.model_dump(), client_id=client_id)
        if bent.client_id_metadata_documents and is_url:
            return await self._client_from_document(client_id)
        return None

    async def _client_from_document(self, url: str) -> OAuthClientInformationFull | None:
        """A client whose id is the URL of its metadata document (fetched, bounded; none if it fails)."""
        import httpx2

        try:
            async with loopback_client(FETCH_SECONDS) as http:
                response = await http.get(url)
            metadata = OAuthClientMetadata.model_validate_json(response.content)
        except (httpx2.HTTPError, ValueError):
            return None
        return OAuthClientInformationFull(**metadata.model_dump(), client_id=url)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        if self.server.misbehaviour.registration == "refused":
            raise RegistrationError("invalid_client_metadata", "this authorization server registers no clients")
        if self.server.misbehaviour.registration == "redirect-refused":
            raise RegistrationError("invalid_redirect_uri", REDIRECT_REFUSAL)
        asked = (client_info.scope or "").split()
        client_info.scope = " ".join(dict.fromkeys([*asked, *self.server.scopes]))
        self.clients[client_info.client_id or ""] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        grant = new_authorization_code(client, params, CODE_SECONDS)
        self.codes[grant.code] = grant
        stated = self.server.misbehaviour.redirect_issuer
        iss = self.server.issuer if stated == OWN_ISSUER else stated
        state = self.server.misbehaviour.redirect_state or params.state
        return construct_redirect_uri(str(params.redirect_uri), code=grant.code, state=state, iss=iss)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        found = self.codes.get(code)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]  # a code is good once
        return self.server._issue(client.client_id or "", authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh_tokens.get(refresh_token)
        if found is None or found.client_id != client.client_id or self.server.misbehaviour.refresh_refused:
            return None  # the SDK's handler answers invalid_grant
        return found

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh_tokens[refresh_token.token]  # rotated
        return self.server._issue(client.client_id or "", scopes, refresh_token.resource)


class LoopbackServer:
    """An ASGI application served by uvicorn on 127.0.0.1:0 from a thread of this process. The port is bound
    at once (``origin``; a client may connect before it serves: the connection waits in the backlog), the
    application given to ``start`` once it is built, ready within START_SECONDS; ``close`` stops it within
    STOP_SECONDS. ``name`` says which server a timeout is about."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        host, port = self._socket.getsockname()[:2]
        self.origin = f"http://{host}:{port}"
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self, app: ASGIApp) -> None:
        started = threading.Event()
        config = uvicorn.Config(
            _Ready(app, started), log_config=None, access_log=False, lifespan="on", timeout_graceful_shutdown=1
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True)
        self._thread.start()
        if not started.wait(START_SECONDS):
            self.close()
            raise HarnessError(f"{self.name} did not start within {START_SECONDS:g}s")

    def close(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(STOP_SECONDS)
        self._socket.close()
        if self._thread is not None and self._thread.is_alive():
            raise HarnessError(f"{self.name} did not stop within {STOP_SECONDS:g}s")


class _Ready:
    """Plays the ASGI lifespan for ``app``: uvicorn starts it once it serves, which sets ``started``."""

    def __init__(self, app: ASGIApp, started: threading.Event) -> None:
        self.app, self.started = app, started

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        while (await receive())["type"] == "lifespan.startup":
            self.started.set()
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})  # the only other lifespan message is the shutdown


class Recorder:
    """Appends each HTTP request to ``seen`` as it arrives (body included), and its status as it is answered;
    the application gets the body as it came. With a ``trace``, each request and answer is an ``http`` event
    there too (``path`` with its query, headers, and the body up to TRACED_BODY_BYTES; an answer's body
    only when it is JSON, not a stream). With a ``fault`` (a test's, under --falsify), a request to the path it
    targets is recorded as the fault rewrites it (``Fault.rewrite_request``), as the client under test
    would have sent it; the application still gets the request as it came."""

    def __init__(self, app: ASGIApp, seen: list[SeenRequest]) -> None:
        self.app, self.seen = app, seen
        self.trace: Trace | None = None
        self.fault: Fault | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        query = scope["query_string"].decode(errors="replace")
        seen = SeenRequest(
            method=scope["method"],
            path=scope["path"],
            query=parse_qs(query, keep_blank_values=True),
            headers=_header_map(scope["headers"]),
            body=body,
        )
        if self.fault is not None:
            _rewrite(seen, self.fault)
        self.seen.append(seen)
        trace, target = self.trace, scope["path"] + (f"?{query}" if query else "")
        if trace is not None:
            trace.record(
                "client-to-server", "http", method=seen.method, path=target, headers=seen.headers, body=_text(body)
            )
        answer_headers: dict[str, str] = {}
        answer_body = bytearray()

        async def answer(message: Message) -> None:
            if message["type"] == "http.response.start":
                seen.status = message["status"]
                answer_headers.update(_header_map(message["headers"]))
            elif answer_headers.get("content-type", "").startswith("application/json"):
                answer_body.extend(message.get("body", b""))  # a stream's body stays out of the trace
            if trace is not None and message["type"] == "http.response.body" and not message.get("more_body"):
                fields = {"status": seen.status, "headers": answer_headers, "body": _text(bytes(answer_body))}
                trace.record("server-to-client", "http", method=seen.method, path=target, **fields)
            await send(message)

        await self.app(scope, _replaying(body, receive), answer)


def loopback_client(timeout: float | httpx2.Timeout) -> httpx2.AsyncClient:
    """An HTTP client of the harness's. httpx builds a default TLS context for every client (20 ms of CPU: it
    loads the CA bundle), even one that only ever speaks plain HTTP to loopback; these share one."""
    import httpx2

    return httpx2.AsyncClient(timeout=timeout, verify=_default_tls_context())


@cache
def _default_tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()


def _rewrite(seen: SeenRequest, fault: Fault) -> None:
    """``seen`` as ``fault`` makes it read (its path, query, headers, form, JSON body). A body that is not JSON
    (the empty body of a GET or DELETE naming a JSON content type) is recorded as it came: a recorder that raised
    there would answer the client 500, a change of the run that is no part of the fault."""
    try:
        as_json = seen.json() if seen.headers.get("content-type", "").startswith("application/json") else None
    except ValueError:
        as_json = None
    recorded = {"path": seen.path, "query": seen.query, "headers": seen.headers, "form": seen.form, "json": as_json}
    rewritten = fault.rewrite_request(seen.path, recorded)
    seen.path, seen.query, seen.headers = rewritten["path"], rewritten["query"], rewritten["headers"]
    if rewritten["form"] != recorded["form"]:
        seen.body = urlencode(rewritten["form"], doseq=True).encode()
    if rewritten["json"] != recorded["json"]:
        seen.body = json.dumps(rewritten["json"]).encode()


def _header_map(headers: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    return {name.decode().lower(): value.decode(errors="replace") for name, value in headers}


def _text(body: bytes) -> str:
    return body[:TRACED_BODY_BYTES].decode(errors="replace")


def _replaying(body: bytes, receive: Receive) -> Receive:
    """``receive`` with the body, already read, given again first."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
