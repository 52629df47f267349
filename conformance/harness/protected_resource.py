"""A protected resource the harness plays for a client under test: an MCP endpoint on 127.0.0.1 that asks
for access tokens of the harness's authorization servers, as a test scripts it, and forwards what it takes
to an unprotected MCP server (the worker's fixture server, or a scripted server).

The client's side of authorization is about how it reacts to a resource server: the challenge of a 401
(with or without ``resource_metadata`` and ``scope``), where the protected-resource metadata is and what it
says (its ``resource``, its ``authorization_servers``, its ``scopes_supported``), a 403 asking for more
scope. ``ResourceMisbehaviour`` switches each of those; ``seen`` records every request the client sent here
(its ``Authorization`` header, its query string). A token is taken when one of the ``trusted``
authorization servers signed it under its own issuer, for this resource (``aud``), unexpired, with the
scopes the request needs; the token is never forwarded (no passthrough).

Use::

    with ProtectedResource(upstream_url, [authorization]) as resource:   # or the `protected_resource` fixture
        resource.misbehaviour = ResourceMisbehaviour(challenge_scope="mcp-matrix:tools")
        ... run the client against resource.url ...
        first, *later = resource.requests_to_mcp()
        assert all(seen.headers.get("authorization", "").startswith("Bearer ") for seen in later)
"""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx2
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from conformance.harness.authorization import (
    AuthorizationServer,
    LoopbackServer,
    Recorder,
    SeenRequest,
    loopback_client,
)

REQUIRED_SCOPES = ("mcp-matrix:tools",)
CONNECT_SECONDS = 5.0  # how long reaching the upstream MCP server may take
READ_SECONDS = 30.0  # how long an upstream answer (an SSE stream included) may stay silent
# hop-by-hop headers, and those the forwarding sets anew
NOT_FORWARDED = {"host", "authorization", "content-length", "connection", "transfer-encoding", "keep-alive"}

# /.well-known/oauth-protected-resource{path}, or without the path, or ELSEWHERE (found only through a challenge)
MetadataLocation = Literal["path", "root", "elsewhere"]
ELSEWHERE = "/mcp-matrix/resource-metadata"


@dataclass(frozen=True)
class ResourceMisbehaviour:
    """What the protected resource does, for one test; the default is a resource server that does it right."""

    metadata_locations: frozenset[MetadataLocation] = frozenset(("path", "root"))  # where its metadata is
    missing_metadata_status: int = 404  # the status where it is not
    metadata_overrides: Mapping[str, Any] = field(default_factory=dict)  # set any field; None removes it
    challenge_metadata: bool = True  # a 401's challenge names resource_metadata
    challenge_names: MetadataLocation = "path"  # the location it names
    challenge_scope: str | None = None  # the scope a 401's challenge names (None: no scope parameter)
    # further auth-params, written as they are, ahead of the others in every challenge (a realm, an extension's)
    challenge_extra: str = ""
    required_scopes: tuple[str, ...] = REQUIRED_SCOPES  # what every request needs
    method_scopes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # what a JSON-RPC method needs more
    insufficient_scope_status: int = 403  # the answer to a token short of scope
    # an authorization server migration: once it has taken a token, it trusts only this server (which its metadata
    # then names), so the client's next request meets a 401 and a metadata document naming another server
    migrate_to: AuthorizationServer | None = None
    insufficient_scope_names: str | None = None  # the scope that answer names (None: all the request needs)


WELL_BEHAVED = ResourceMisbehaviour()


class ProtectedResource:
    """The resource at ``url`` (``{origin}{path}``), taking the tokens of ``trusted`` and forwarding to
    ``upstream``. ``trusted`` may change (an authorization server migration); ``close()`` stops it.

    With ``on``, it is served from that authorization server's origin (its paths only) instead of its own: a
    2025-03-26 MCP server, whose authorization base URL is the origin of its own URL."""

    def __init__(
        self,
        upstream: str,
        trusted: Sequence[AuthorizationServer],
        path: str = "/mcp",
        on: AuthorizationServer | None = None,
    ) -> None:
        self.upstream = upstream
        self.trusted = list(trusted)
        self.path = path
        self.misbehaviour = WELL_BEHAVED
        self.seen: list[SeenRequest] = []
        self._host = on
        self._listener: LoopbackServer | None = None
        if on is None:
            self._listener = LoopbackServer("the protected resource")
            self.origin = self._listener.origin
        else:
            self.origin = on.origin
        self.url = self.origin + path
        self.metadata_url = self.origin + "/.well-known/oauth-protected-resource" + path
        self.recorder = Recorder(self._app(), self.seen)  # its `trace`: where a test wants the exchanges too
        if self._listener is not None:
            self._listener.start(self.recorder)
        elif on is not None:
            on.guest = (frozenset([path, *self._metadata_paths().values()]), self.recorder)

    def __enter__(self) -> ProtectedResource:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._host is not None:
            self._host.guest = None
        if self._listener is not None:
            self._listener.close()

    def metadata_url_at(self, location: MetadataLocation) -> str:
        return self.origin + self._metadata_paths()[location]

    def _metadata_paths(self) -> dict[MetadataLocation, str]:
        well_known = "/.well-known/oauth-protected-resource"
        return {"path": well_known + self.path, "root": well_known, "elsewhere": ELSEWHERE}

    def requests_to_mcp(self) -> list[SeenRequest]:
        return [seen for seen in list(self.seen) if seen.path == self.path]

    def metadata(self) -> dict[str, Any]:
        """The protected-resource metadata (RFC 9728) as ``misbehaviour`` has it."""
        found: dict[str, Any] = {
            "resource": self.url,
            "authorization_servers": [server.issuer for server in self.trusted],
            "scopes_supported": list(self.misbehaviour.required_scopes),
            "bearer_methods_supported": ["header"],
        }
        for name, value in self.misbehaviour.metadata_overrides.items():
            if value is None:
                found.pop(name, None)
            else:
                found[name] = value
        return found

    # ------------------------------------------------------------------------------------------

    def _challenge(self, status: int, error: str | None, scope: str | None) -> Response:
        """A refusal with its ``WWW-Authenticate: Bearer`` challenge (RFC 6750 section 3)."""
        parameters = [self.misbehaviour.challenge_extra] if self.misbehaviour.challenge_extra else []
        if error is not None:
            parameters.append(f'error="{error}"')
        if scope:
            parameters.append(f'scope="{scope}"')
        if self.misbehaviour.challenge_metadata:
            parameters.append(f'resource_metadata="{self.metadata_url_at(self.misbehaviour.challenge_names)}"')
        challenge = "Bearer " + ", ".join(parameters) if parameters else "Bearer"
        return JSONResponse(
            {"error": error or "unauthorized"}, status_code=status, headers={"WWW-Authenticate": challenge}
        )

    def _refusal(self, request: Request, body: bytes) -> Response | None:
        """The answer to a request whose token does not do (None: it does)."""
        bent = self.misbehaviour
        authorization = request.headers.get("authorization", "")
        if not authorization.lower().startswith("bearer "):
            return self._challenge(401, None, bent.challenge_scope)
        token = authorization[len("bearer ") :].strip()
        claims = next((c for server in self.trusted if (c := server.verified_claims(token)) is not None), None)
        audience = claims.get("aud") if claims else None
        audiences = audience if isinstance(audience, list) else [audience]
        if claims is None or not any(_same_resource(self.url, a) for a in audiences) or _expired(claims):
            return self._challenge(401, "invalid_token", bent.challenge_scope)
        needed = [*bent.required_scopes, *_method_scopes(body, bent.method_scopes)]
        granted = str(claims.get("scope", "")).split()
        if not set(needed) <= set(granted):
            named = bent.insufficient_scope_names
            return self._challenge(bent.insufficient_scope_status, "insufficient_scope", named or " ".join(needed))
        if bent.migrate_to is not None and self.trusted != [bent.migrate_to]:
            self.trusted = [bent.migrate_to]  # the token just taken is the last of the old servers'
        return None

    async def _mcp(self, request: Request) -> Response:
        body = await request.body()
        refusal = self._refusal(request, body)
        if refusal is not None:
            return refusal
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in NOT_FORWARDED]
        http = loopback_client(httpx2.Timeout(CONNECT_SECONDS, read=READ_SECONDS))
        try:
            answer = await http.send(
                http.build_request(request.method, self.upstream, headers=headers, content=body), stream=True
            )
        except httpx2.HTTPError:
            await http.aclose()
            return JSONResponse({"error": "upstream unreachable"}, status_code=502)

        async def close() -> None:
            await answer.aclose()
            await http.aclose()

        returned = {k: v for k, v in answer.headers.items() if k.lower() not in NOT_FORWARDED}
        return StreamingResponse(
            answer.aiter_raw(), status_code=answer.status_code, headers=returned, background=BackgroundTask(close)
        )

    def _metadata_route(self, location: MetadataLocation) -> Any:
        async def serve(_request: Request) -> Response:
            if location not in self.misbehaviour.metadata_locations:
                return JSONResponse({"error": "not_found"}, status_code=self.misbehaviour.missing_metadata_status)
            return JSONResponse(self.metadata())

        return serve

    def _app(self) -> Starlette:
        routes = [Route(self.path, self._mcp, methods=["GET", "POST", "DELETE"])]
        routes += [
            Route(path, self._metadata_route(where), methods=["GET"]) for where, path in self._metadata_paths().items()
        ]
        return Starlette(routes=routes)


def _same_resource(url: str, audience: Any) -> bool:
    """Whether a token's audience names this resource: scheme and host in any case, a trailing slash of the path
    not meaningful (as a client may write the canonical URI either way)."""
    if not isinstance(audience, str):
        return False
    ours, theirs = urllib.parse.urlsplit(url), urllib.parse.urlsplit(audience)
    return (ours.scheme.lower(), ours.netloc.lower(), ours.path.rstrip("/"), ours.query) == (
        theirs.scheme.lower(),
        theirs.netloc.lower(),
        theirs.path.rstrip("/"),
        theirs.query,
    )


def _expired(claims: Mapping[str, Any]) -> bool:
    return int(claims.get("exp", 0)) <= time.time()


def _method_scopes(body: bytes, scopes: Mapping[str, tuple[str, ...]]) -> Iterable[str]:
    """The further scopes the JSON-RPC request(s) in ``body`` need, by method."""
    if not scopes or not body:
        return ()
    try:
        frames = json.loads(body)
    except ValueError:
        return ()
    frames = frames if isinstance(frames, list) else [frames]
    return [s for f in frames if isinstance(f, dict) for s in scopes.get(str(f.get("method")), ())]
