"""The authorization machinery (#13): the harness's authorization server and each of its misbehaviours, the
fixture server's protected configuration (the SDK's resource server), and the SDK client's OAuth flow through
the scripted user agent. Loopback only; the server runs in this process, the protected fixture server once
per worker.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import socket
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx2
import jwt
import pytest

from conformance.harness.authorization import (
    MOVED_ENDPOINTS,
    OAUTH_ONLY,
    OPENID_ONLY,
    OTHER_AUDIENCE,
    OWN_ISSUER,
    WRONG_ISSUER,
    AuthorizationServer,
    Misbehaviour,
)
from conformance.harness.faults import Fault
from conformance.harness.protected_resource import ProtectedResource, ResourceMisbehaviour
from conformance.run.plugin import run_client_process

REDIRECT_URI = "http://127.0.0.1:3000/callback"
RESOURCE = "http://127.0.0.1:9/mcp"  # the resource a hand-made flow asks for (nothing listens there)
SCOPE = "mcp-matrix:tools"
OAUTH_PATH = "/.well-known/oauth-authorization-server"
OPENID_PATH = "/.well-known/openid-configuration"


@pytest.fixture(scope="module")
def tenant() -> Any:
    """An authorization server whose issuer has a path, for the path-aware discovery documents."""
    with AuthorizationServer(issuer_path="tenant") as authorization:
        yield authorization


@pytest.fixture
def http() -> Any:
    with httpx2.Client(timeout=5) as client:
        yield client


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def register(http: httpx2.Client, authorization: AuthorizationServer) -> httpx2.Response:
    metadata = {
        "redirect_uris": [REDIRECT_URI],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "scope": SCOPE,
    }
    return http.post(authorization.issuer + "/register", json=metadata)


def authorize(http: httpx2.Client, authorization: AuthorizationServer, client_id: str, challenge: str) -> dict:
    """The authorization request, as a user agent sends it; the redirect's query."""
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "state": "mcp-matrix-state",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": RESOURCE,
        "scope": SCOPE,
    }
    response = http.get(authorization.issuer + "/authorize", params=query)
    assert response.status_code == 302, response.text
    return {name: values[0] for name, values in parse_qs(urlparse(response.headers["location"]).query).items()}


def code_flow(http: httpx2.Client, authorization: AuthorizationServer) -> tuple[str, httpx2.Response]:
    """Register, authorize, redeem the code: the client id and the token response."""
    client_id = register(http, authorization).json()["client_id"]
    verifier, challenge = pkce()
    redirect = authorize(http, authorization, client_id, challenge)
    form = {
        "grant_type": "authorization_code",
        "code": redirect["code"],
        "redirect_uri": REDIRECT_URI,
        "client_id": client_id,
        "code_verifier": verifier,
        "resource": RESOURCE,
    }
    return client_id, http.post(authorization.issuer + "/token", data=form)


def claims(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


# -- starting and stopping ---------------------------------------------------------------------------------


def test_the_server_starts_serving_and_stops_closing_its_port() -> None:
    authorization = AuthorizationServer()
    port = urlparse(authorization.origin).port
    assert httpx2.get(authorization.jwks_uri, timeout=5).status_code == 200
    authorization.close()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port or 0), timeout=1):
        pass


# -- discovery ---------------------------------------------------------------------------------------------


def test_a_root_issuer_serves_both_documents_naming_itself(http, authorization_server) -> None:
    for path in (OAUTH_PATH, OPENID_PATH):
        document = http.get(authorization_server.origin + path).json()
        assert document["issuer"] == authorization_server.issuer
        assert document["code_challenge_methods_supported"] == ["S256"]
        assert document["registration_endpoint"] == authorization_server.issuer + "/register"
    assert "subject_types_supported" in http.get(authorization_server.origin + OPENID_PATH).json()


def test_a_path_issuer_serves_each_document_where_its_rule_puts_it(http, tenant) -> None:
    places = {
        "oauth-authorization-server": tenant.origin + OAUTH_PATH + "/tenant",
        "openid-configuration-inserted": tenant.origin + OPENID_PATH + "/tenant",
        "openid-configuration-appended": tenant.issuer + OPENID_PATH,
    }
    for url in places.values():
        assert http.get(url).json()["issuer"] == tenant.issuer
    assert http.get(tenant.origin + OAUTH_PATH).status_code == 404  # not at the root: the issuer has a path
    for kind in places:
        tenant.misbehaviour = Misbehaviour(documents=frozenset({kind}))
        served = [other for other, where in places.items() if http.get(where).status_code == 200]
        assert served == [kind]
    tenant.misbehaviour = Misbehaviour()


@pytest.mark.parametrize(
    ("documents", "oauth_status", "openid_status"),
    [(OAUTH_ONLY, 200, 404), (OPENID_ONLY, 404, 200), (frozenset(), 404, 404)],
    ids=["no-openid-fallback", "openid-only", "no-metadata"],
)
def test_the_documents_served_are_switched(http, authorization_server, documents, oauth_status, openid_status) -> None:
    authorization_server.misbehaviour = Misbehaviour(documents=documents)
    assert http.get(authorization_server.origin + OAUTH_PATH).status_code == oauth_status
    assert http.get(authorization_server.origin + OPENID_PATH).status_code == openid_status


def test_a_missing_document_can_be_a_server_error(http, authorization_server) -> None:
    authorization_server.misbehaviour = Misbehaviour(documents=frozenset(), missing_document_status=503)
    assert http.get(authorization_server.origin + OAUTH_PATH).status_code == 503


@pytest.mark.parametrize(
    ("misbehaviour", "expected"),
    [
        (Misbehaviour(metadata_issuer=WRONG_ISSUER), {"issuer": WRONG_ISSUER}),
        (Misbehaviour(code_challenge_methods=None), {"code_challenge_methods_supported": None}),
        (Misbehaviour(code_challenge_methods=("plain",)), {"code_challenge_methods_supported": ["plain"]}),
        (Misbehaviour(registration="unadvertised"), {"registration_endpoint": None}),
        (Misbehaviour(client_id_metadata_documents=True), {"client_id_metadata_document_supported": True}),
        (Misbehaviour(redirect_issuer=OWN_ISSUER), {"authorization_response_iss_parameter_supported": True}),
        (Misbehaviour(iss_parameter_supported=True), {"authorization_response_iss_parameter_supported": True}),
        (Misbehaviour(iss_parameter_supported=False), {"authorization_response_iss_parameter_supported": False}),
        (Misbehaviour(metadata_overrides={"token_endpoint": None}), {"token_endpoint": None}),
        (
            Misbehaviour(metadata_overrides={"response_types_supported": ["token"]}),
            {"response_types_supported": ["token"]},
        ),
    ],
    ids=[
        "wrong-issuer",
        "no-pkce",
        "no-s256",
        "no-registration",
        "cimd",
        "iss-sent",
        "iss-advertised",
        "iss-denied",
        "removed",
        "replaced",
    ],
)
def test_each_metadata_switch_shows_in_the_document(http, authorization_server, misbehaviour, expected) -> None:
    assert all(http.get(authorization_server.origin + OAUTH_PATH).json().get(k) != v for k, v in expected.items())
    authorization_server.misbehaviour = misbehaviour
    document = http.get(authorization_server.origin + OAUTH_PATH).json()
    assert {name: document.get(name) for name in expected} == expected


# -- registration and the code flow ------------------------------------------------------------------------


def test_registration_is_open_refused_or_absent(http, authorization_server) -> None:
    assert register(http, authorization_server).status_code == 201
    authorization_server.misbehaviour = Misbehaviour(registration="refused")
    refused = register(http, authorization_server)
    assert (refused.status_code, refused.json()["error"]) == (400, "invalid_client_metadata")
    authorization_server.misbehaviour = Misbehaviour(registration="unadvertised")
    assert register(http, authorization_server).status_code == 404


def test_the_code_flow_issues_a_signed_token_for_the_resource_asked_for(http, authorization_server) -> None:
    client_id, response = code_flow(http, authorization_server)
    assert response.status_code == 200, response.text
    tokens = response.json()
    key = jwt.PyJWKClient(authorization_server.jwks_uri).get_signing_key_from_jwt(tokens["access_token"])
    verified = jwt.decode(
        tokens["access_token"], key.key, algorithms=["ES256"], audience=RESOURCE, issuer=authorization_server.issuer
    )
    assert (verified["client_id"], verified["scope"], tokens["scope"]) == (client_id, SCOPE, SCOPE)
    assert tokens["refresh_token"]
    [token_request] = authorization_server.requests_to("/token")
    assert token_request.form["resource"] == [RESOURCE] and token_request.status == 200
    [authorization_request] = authorization_server.requests_to("/authorize")
    assert authorization_request.query["code_challenge_method"] == ["S256"]


def test_a_wrong_code_verifier_is_refused(http, authorization_server) -> None:
    client_id = register(http, authorization_server).json()["client_id"]
    _verifier, challenge = pkce()
    code = authorize(http, authorization_server, client_id, challenge)["code"]
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI, "client_id": client_id}
    refused = http.post(authorization_server.issuer + "/token", data=form | {"code_verifier": pkce()[0]})
    assert (refused.status_code, refused.json()["error"]) == (400, "invalid_grant")


@pytest.mark.parametrize(
    ("redirect_issuer", "stated"),
    [(None, None), (OWN_ISSUER, "issuer"), (WRONG_ISSUER, WRONG_ISSUER)],
    ids=["omitted", "own", "another"],
)
def test_the_redirect_states_the_issuer_as_switched(http, authorization_server, redirect_issuer, stated) -> None:
    authorization_server.misbehaviour = Misbehaviour(redirect_issuer=redirect_issuer)
    client_id = register(http, authorization_server).json()["client_id"]
    redirect = authorize(http, authorization_server, client_id, pkce()[1])
    assert redirect["state"] == "mcp-matrix-state"
    assert redirect.get("iss") == (authorization_server.issuer if stated == "issuer" else stated)


@pytest.mark.parametrize(
    ("misbehaviour", "claim", "expected"),
    [
        (Misbehaviour(token_audience=OTHER_AUDIENCE), "aud", OTHER_AUDIENCE),
        (Misbehaviour(token_issuer=WRONG_ISSUER), "iss", WRONG_ISSUER),
        (Misbehaviour(granted_scopes=()), "scope", ""),
    ],
    ids=["another-audience", "another-issuer", "insufficient-scope"],
)
def test_each_token_switch_shows_in_the_token(http, authorization_server, misbehaviour, claim, expected) -> None:
    authorization_server.misbehaviour = misbehaviour
    _client_id, response = code_flow(http, authorization_server)
    assert claims(response.json()["access_token"])[claim] == expected


def test_expired_tokens_are_issued_as_fresh(http, authorization_server) -> None:
    authorization_server.misbehaviour = Misbehaviour(expired_tokens=True)
    _client_id, response = code_flow(http, authorization_server)
    tokens = response.json()
    issued = claims(tokens["access_token"])
    assert issued["exp"] < issued["iat"] and tokens["expires_in"] > 0


def test_refresh_rotates_and_can_be_refused_or_withheld(http, authorization_server) -> None:
    client_id, response = code_flow(http, authorization_server)
    refresh = response.json()["refresh_token"]
    form = {"grant_type": "refresh_token", "client_id": client_id}
    refreshed = http.post(authorization_server.issuer + "/token", data=form | {"refresh_token": refresh})
    assert refreshed.status_code == 200 and refreshed.json()["refresh_token"] != refresh
    again = http.post(authorization_server.issuer + "/token", data=form | {"refresh_token": refresh})
    assert again.status_code == 400  # rotated: the old one is gone
    authorization_server.misbehaviour = Misbehaviour(refresh_refused=True)
    newest = refreshed.json()["refresh_token"]
    refused = http.post(authorization_server.issuer + "/token", data=form | {"refresh_token": newest})
    assert (refused.status_code, refused.json()["error"]) == (400, "invalid_grant")
    authorization_server.misbehaviour = Misbehaviour(refresh_tokens=False)
    assert "refresh_token" not in code_flow(http, authorization_server)[1].json()


def test_reset_forgets_switches_and_what_was_seen(http, authorization_server) -> None:
    authorization_server.misbehaviour = Misbehaviour(registration="refused")
    register(http, authorization_server)
    authorization_server.reset()
    assert authorization_server.seen == [] and authorization_server.misbehaviour == Misbehaviour()


# -- the protected fixture server (the SDK's resource server) ----------------------------------------------


@pytest.fixture
def protected(configured_server, authorization_server) -> str:
    """The fixture server's MCP endpoint in its oauth configuration."""
    return configured_server("oauth").url


def initialize(http: httpx2.Client, url: str, token: str | None) -> httpx2.Response:
    frame = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return http.post(url, json=frame, headers=headers)


def test_the_protected_server_challenges_and_points_at_its_metadata(http, protected, authorization_server) -> None:
    refused = initialize(http, protected, None)
    assert refused.status_code == 401
    challenge = refused.headers["www-authenticate"]
    metadata_url = protected.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    assert challenge.startswith("Bearer ") and f'resource_metadata="{metadata_url}"' in challenge
    metadata = http.get(metadata_url).json()
    assert metadata["resource"] == protected
    assert metadata["authorization_servers"] == [authorization_server.issuer]
    assert metadata["scopes_supported"] == [SCOPE]


def test_the_protected_server_takes_a_good_token(http, protected, authorization_server) -> None:
    token = authorization_server.mint(audience=protected, scopes=[SCOPE])
    assert initialize(http, protected, token).status_code == 200


@pytest.mark.parametrize(
    ("minted", "status"),
    [
        ({"audience": OTHER_AUDIENCE}, 401),
        ({"expired": True}, 401),
        ({"issuer": WRONG_ISSUER}, 401),
        ({"scopes": []}, 403),
    ],
    ids=["another-audience", "expired", "another-issuer", "insufficient-scope"],
)
def test_the_protected_server_refuses_a_bad_token(http, protected, authorization_server, minted, status) -> None:
    token = authorization_server.mint(**({"audience": protected, "scopes": [SCOPE]} | minted))
    refused = initialize(http, protected, token)
    assert refused.status_code == status
    expected_error = "insufficient_scope" if status == 403 else "invalid_token"
    assert f'error="{expected_error}"' in refused.headers["www-authenticate"]


# -- the SDK client's OAuth flow, through the scripted user agent ------------------------------------------


def test_the_sdk_client_completes_the_flow_against_the_protected_server(
    client_launcher, protected, authorization_server
) -> None:
    run = run_client_process(client_launcher, "oauth_flow", "2025-11-25", [protected])
    run.require_completed()
    assert 'oauth {"tools": ' in run.output and f'"scope": "{SCOPE}"' in run.output
    [authorization_request] = authorization_server.requests_to("/authorize")
    assert authorization_request.query["resource"] == [protected]
    assert authorization_request.query["code_challenge_method"] == ["S256"]
    assert [seen.status for seen in authorization_server.requests_to("/token")] == [200]
    assert [seen.status for seen in authorization_server.requests_to("/register")] == [201]


def test_a_token_for_another_audience_gets_the_client_nowhere(client_launcher, protected, authorization_server) -> None:
    authorization_server.misbehaviour = Misbehaviour(token_audience=OTHER_AUDIENCE)
    run = run_client_process(client_launcher, "oauth_flow", "2025-11-25", [protected])
    assert not run.completed  # the same flow with well-aimed tokens completes (the test above)
    assert [seen.status for seen in authorization_server.requests_to("/token")] == [200], "it got its token"


# -- the protected resource the harness plays for a client under test --------------------------------------


def test_the_resource_challenges_a_request_without_a_token(http, protected_resource) -> None:
    refused = initialize(http, protected_resource.url, None)
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == f'Bearer resource_metadata="{protected_resource.metadata_url}"'
    protected_resource.misbehaviour = ResourceMisbehaviour(challenge_metadata=False, challenge_scope=SCOPE)
    assert initialize(http, protected_resource.url, None).headers["www-authenticate"] == f'Bearer scope="{SCOPE}"'


def test_the_resource_metadata_is_where_and_what_it_is_switched_to_be(http, protected_resource, authorization_server):
    root = protected_resource.url.replace("/mcp", "/.well-known/oauth-protected-resource")
    for url in (protected_resource.metadata_url, root):
        metadata = http.get(url).json()
        assert metadata["resource"] == protected_resource.url
        assert metadata["authorization_servers"] == [authorization_server.issuer]
    protected_resource.misbehaviour = ResourceMisbehaviour(
        metadata_locations=frozenset({"root"}),
        metadata_overrides={"resource": OTHER_AUDIENCE, "scopes_supported": None},
    )
    assert http.get(protected_resource.metadata_url).status_code == 404
    assert http.get(root).json() == {
        "resource": OTHER_AUDIENCE,
        "authorization_servers": [authorization_server.issuer],
        "bearer_methods_supported": ["header"],
    }


def test_the_resource_takes_a_good_token_and_forwards_the_request(http, protected_resource, authorization_server):
    token = authorization_server.mint(audience=protected_resource.url, scopes=[SCOPE])
    answered = initialize(http, protected_resource.url, token)
    assert answered.status_code == 200 and answered.headers.get("mcp-session-id")
    assert "serverInfo" in answered.text


@pytest.mark.parametrize(
    ("minted", "error"),
    [
        ({"audience": OTHER_AUDIENCE}, "invalid_token"),
        ({"expired": True}, "invalid_token"),
        ({"issuer": WRONG_ISSUER}, "invalid_token"),
        ({"scopes": []}, "insufficient_scope"),
    ],
    ids=["another-audience", "expired", "another-issuer", "insufficient-scope"],
)
def test_the_resource_refuses_a_bad_token(http, protected_resource, authorization_server, minted, error) -> None:
    token = authorization_server.mint(**({"audience": protected_resource.url, "scopes": [SCOPE]} | minted))
    refused = initialize(http, protected_resource.url, token)
    assert refused.status_code == (403 if error == "insufficient_scope" else 401)
    assert f'error="{error}"' in refused.headers["www-authenticate"]


def test_the_resource_refuses_the_tokens_of_an_authorization_server_it_does_not_trust(http, protected_resource):
    with AuthorizationServer() as stranger:
        token = stranger.mint(audience=protected_resource.url, scopes=[SCOPE])
        assert initialize(http, protected_resource.url, token).status_code == 401
        protected_resource.trusted.append(stranger)
        assert initialize(http, protected_resource.url, token).status_code == 200


def test_a_method_can_need_more_scope(http, protected_resource, authorization_server) -> None:
    protected_resource.misbehaviour = ResourceMisbehaviour(method_scopes={"initialize": ("mcp-matrix:admin",)})
    token = authorization_server.mint(audience=protected_resource.url, scopes=[SCOPE])
    refused = initialize(http, protected_resource.url, token)
    assert refused.status_code == 403
    assert f'scope="{SCOPE} mcp-matrix:admin"' in refused.headers["www-authenticate"]


def test_the_sdk_client_completes_the_flow_through_the_resource(client_launcher, protected_resource) -> None:
    run = run_client_process(client_launcher, "oauth_flow", "2025-11-25", [protected_resource.url])
    run.require_completed()
    first, *later = protected_resource.requests_to_mcp()
    assert "authorization" not in first.headers and first.status == 401
    assert later and all(seen.headers["authorization"].startswith("Bearer ") for seen in later)


def test_the_sdk_client_steps_up_when_a_method_needs_more_scope(
    client_launcher, protected_resource, authorization_server
) -> None:
    protected_resource.misbehaviour = ResourceMisbehaviour(method_scopes={"tools/list": ("mcp-matrix:admin",)})
    run = run_client_process(client_launcher, "oauth_flow", "2025-11-25", [protected_resource.url])
    run.require_completed()
    asked = [seen.query["scope"] for seen in authorization_server.requests_to("/authorize")]
    assert asked == [[SCOPE], [f"{SCOPE} mcp-matrix:admin"]]
    assert 403 in [seen.status for seen in protected_resource.requests_to_mcp()]


def test_the_exchanges_are_in_the_tests_authorization_trace(http, protected_resource, authorization_trace) -> None:
    initialize(http, protected_resource.url, None)
    http.get(protected_resource.metadata_url)
    events = [json.loads(line) for line in authorization_trace.path.read_text().splitlines()]
    assert [(event["direction"], event["kind"], event.get("status")) for event in events] == [
        ("client-to-server", "http", None),
        ("server-to-client", "http", 401),
        ("client-to-server", "http", None),
        ("server-to-client", "http", 200),
    ]
    assert json.loads(events[0]["body"])["method"] == "initialize"
    assert json.loads(events[3]["body"])["resource"] == protected_resource.url


def test_the_sdk_client_refreshes_a_token_it_outlived(client_launcher, protected_resource, authorization_server):
    """A one-second token: on a loaded machine it may lapse before the client's first listing too (the client
    dates it from the token response, the server from issuing it), so only the refresh is required."""
    authorization_server.misbehaviour = Misbehaviour(access_token_seconds=1)
    run = run_client_process(client_launcher, "oauth_refresh", "2025-11-25", [protected_resource.url])
    run.require_completed()
    grants = [seen.form["grant_type"][0] for seen in authorization_server.requests_to("/token")]
    assert grants[0] == "authorization_code" and "refresh_token" in grants, grants
    assert '"lifetime": 1}' in run.output


def test_a_fault_rewrites_the_record_of_a_request_not_the_request(http, authorization_server) -> None:
    """Under a test's fault (``Recorder.fault``) a request to the path it targets is recorded as rewritten, while
    the server answers the request as it came; other paths are recorded as they came."""
    authorization_server.recorder.fault = Fault("set", "/register", "form.client_name", ["rewritten"])
    form = {"client_name": "as-sent", "redirect_uris": REDIRECT_URI}
    http.post(authorization_server.issuer + "/token", data=form)
    authorization_server.recorder.fault = Fault("drop", "/token", "form.client_name")
    http.post(authorization_server.issuer + "/token", data=form)
    authorization_server.recorder.fault = Fault("set", "/token", "path", "/elsewhere")
    answered = http.post(authorization_server.issuer + "/token", data=form)
    authorization_server.recorder.fault = None
    assert answered.status_code == 401  # the token endpoint refused the unknown client, whatever the record says
    kept, dropped, moved = authorization_server.seen
    assert (kept.form["client_name"], "client_name" in dropped.form, moved.path) == (["as-sent"], False, "/elsewhere")


def test_the_challenge_can_name_metadata_off_the_well_known_paths(http, protected_resource) -> None:
    protected_resource.misbehaviour = ResourceMisbehaviour(
        metadata_locations=frozenset({"elsewhere"}), challenge_names="elsewhere"
    )
    elsewhere = protected_resource.metadata_url_at("elsewhere")
    challenge = initialize(http, protected_resource.url, None).headers["www-authenticate"]
    assert challenge == f'Bearer resource_metadata="{elsewhere}"'
    assert http.get(elsewhere).json()["resource"] == protected_resource.url
    assert http.get(protected_resource.metadata_url).status_code == 404


def test_registration_can_refuse_the_redirect_uris(http, authorization_server) -> None:
    """As an OpenID server whose rules for the application_type the redirect URIs break; an open registration's
    client ID is listed."""
    client_id = register(http, authorization_server).json()["client_id"]
    assert authorization_server.registered_client_ids == [client_id]
    authorization_server.misbehaviour = Misbehaviour(registration="redirect-refused")
    refused = register(http, authorization_server)
    assert (refused.status_code, refused.json()["error"]) == (400, "invalid_redirect_uri")
    assert authorization_server.registered_client_ids == [client_id]


def test_known_clients_are_preregistered_or_metadata_documents(http, authorization_server) -> None:
    """A known client ID authorizes without a registration; a URL one (its metadata document) only while client ID
    metadata documents are on."""
    document_url = "https://client.mcp-matrix.example/client.json"
    known = {"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"}
    clients = {"mcp-matrix-known": known, document_url: known | {"client_id": document_url, "client_name": "x"}}
    authorization_server.misbehaviour = Misbehaviour(known_clients=clients)
    assert authorize(http, authorization_server, "mcp-matrix-known", pkce()[1])["code"]
    query = {"response_type": "code", "client_id": document_url, "redirect_uri": REDIRECT_URI, "state": "s"}
    unknown = http.get(authorization_server.issuer + "/authorize", params=query | {"code_challenge": pkce()[1]})
    assert unknown.status_code == 400
    authorization_server.misbehaviour = Misbehaviour(known_clients=clients, client_id_metadata_documents=True)
    assert authorize(http, authorization_server, document_url, pkce()[1])["code"]
    assert authorization_server.registered_client_ids == []


def test_the_refresh_tokens_issued_are_listed(http, authorization_server) -> None:
    _client_id, response = code_flow(http, authorization_server)
    assert authorization_server.issued_refresh_tokens == [response.json()["refresh_token"]]


def test_a_fault_rewrites_the_record_of_a_json_body(http, authorization_server) -> None:
    authorization_server.recorder.fault = Fault("set", "/register", "json.application_type", "web")
    registered = register(http, authorization_server).json()
    authorization_server.recorder.fault = None
    [seen] = authorization_server.requests_to("/register")
    assert seen.json()["application_type"] == "web" and registered.get("application_type") != "web"


def test_a_fault_records_a_body_that_is_not_json_as_it_came(http, authorization_server) -> None:
    """A request naming a JSON content type without a JSON body (a GET, a DELETE) is answered as without a fault."""
    authorization_server.recorder.fault = Fault("set", "/register", "json.application_type", "web")
    answered = http.get(authorization_server.issuer + "/jwks", headers={"Content-Type": "application/json"})
    authorization_server.recorder.fault = None
    assert answered.status_code == 200 and [seen.path for seen in authorization_server.seen] == ["/jwks"]


def test_the_resource_moves_to_another_authorization_server_once_it_took_a_token(
    http, protected_resource, authorization_server
) -> None:
    with AuthorizationServer() as other:
        protected_resource.misbehaviour = ResourceMisbehaviour(migrate_to=other)
        token = authorization_server.mint(audience=protected_resource.url, scopes=[SCOPE])
        assert initialize(http, protected_resource.url, token).status_code == 200
        assert initialize(http, protected_resource.url, token).status_code == 401
        assert http.get(protected_resource.metadata_url).json()["authorization_servers"] == [other.issuer]
        moved = other.mint(audience=protected_resource.url, scopes=[SCOPE])
        assert initialize(http, protected_resource.url, moved).status_code == 200


def test_moved_endpoints_are_named_by_the_metadata_and_served(http, authorization_server) -> None:
    authorization_server.misbehaviour = Misbehaviour(moved_endpoints=True)
    metadata = http.get(authorization_server.origin + OAUTH_PATH).json()
    moved = authorization_server.issuer + MOVED_ENDPOINTS
    assert [metadata[f"{name}_endpoint"] for name in ("authorization", "token", "registration")] == [
        moved + "/authorize",
        moved + "/token",
        moved + "/register",
    ]
    assert http.post(moved + "/register", json={"redirect_uris": [REDIRECT_URI]}).status_code == 201
    assert authorization_server.requests_to(MOVED_ENDPOINTS + "/register")[0].status == 201


def test_a_resource_can_be_served_from_the_authorization_servers_origin(
    http, authorization_server, http_server_url
) -> None:
    """A 2025-03-26 MCP server: its endpoint and metadata paths on the authorization server's origin, the rest
    still the authorization server's; gone with the resource."""
    with ProtectedResource(http_server_url, [authorization_server], path="/v1/mcp", on=authorization_server) as hosted:
        assert hosted.url == authorization_server.origin + "/v1/mcp"
        assert initialize(http, hosted.url, None).status_code == 401
        assert http.get(authorization_server.origin + OAUTH_PATH).json()["issuer"] == authorization_server.issuer
        assert [seen.path for seen in hosted.seen] == ["/v1/mcp"]
        assert [seen.path for seen in authorization_server.seen] == [OAUTH_PATH]
    assert http.post(hosted.url, json={}).status_code == 404


def test_the_challenge_can_carry_further_parameters(http, protected_resource) -> None:
    protected_resource.misbehaviour = ResourceMisbehaviour(challenge_extra='realm="a, b"', challenge_scope=SCOPE)
    challenge = initialize(http, protected_resource.url, None).headers["www-authenticate"]
    assert challenge == f'Bearer realm="a, b", scope="{SCOPE}", resource_metadata="{protected_resource.metadata_url}"'


def test_the_insufficient_scope_answer_can_name_only_some_scopes(http, protected_resource, authorization_server):
    protected_resource.misbehaviour = ResourceMisbehaviour(
        method_scopes={"initialize": ("mcp-matrix:admin",)}, insufficient_scope_names="mcp-matrix:admin"
    )
    token = authorization_server.mint(audience=protected_resource.url, scopes=[SCOPE])
    refused = initialize(http, protected_resource.url, token)
    assert refused.status_code == 403 and 'scope="mcp-matrix:admin"' in refused.headers["www-authenticate"]


def test_the_resource_takes_its_uri_spelt_in_upper_case_or_with_a_trailing_slash(
    http, protected_resource, authorization_server
) -> None:
    shouted = protected_resource.url.replace("http://127.0.0.1", "HTTP://127.0.0.1")
    for audience in (shouted, protected_resource.url + "/"):
        token = authorization_server.mint(audience=audience, scopes=[SCOPE])
        assert initialize(http, protected_resource.url, token).status_code == 200, audience
    other_path = authorization_server.mint(audience=protected_resource.url + "/other", scopes=[SCOPE])
    assert initialize(http, protected_resource.url, other_path).status_code == 401
