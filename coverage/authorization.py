"""Coverage of the authorization area: the cells its tests hold, and every other cell gapped by name.

Loaded by path (this folder is not a package); see conformance/matrix/covers.py. When a test arrives,
add its Cover and take its id off the lists below.
"""

import json

from conformance.harness.faults import Fault, http_body, http_header, http_status, misreport
from conformance.matrix.covers import Cover, Gap, gaps

TESTS = "conformance/test_authorization.py"
#: The answer to the opening request the server-side tests send (initialize; server/discover at 2026-07-28).
OPENING = ("initialize", "server/discover")
#: A challenge naming a scope no test configuration needs.
OTHER_SCOPE_CHALLENGE = 'Bearer error="insufficient_scope", scope="mcp-matrix:unknown"'
#: A client test's check that no registration request was sent.
NO_REGISTRATION = Fault("set", "/register", "path", "/mcp-matrix/not-registration", "no registration request sent")
#: A client test's check that no code was redeemed: a request of the client recorded as sent to the token endpoint.
CODE_REDEEMED = Fault("set", "/register", "path", "/token", "a request of the client's sent to the token endpoint")

COVERS: list[Cover] = [
    # -- server side: the MCP server as resource server (the target's oauth configuration) --
    Cover(
        "authorization-server-401-authorization-required",
        "server",
        f"{TESTS}::test_a_request_without_a_token_is_answered_401",
        fault=http_status(OPENING, 200),
    ),
    Cover(
        "authorization-server-401-invalid-token",
        "server",
        f"{TESTS}::test_a_request_with_an_invalid_or_expired_token_is_answered_401",
        fault=http_status(OPENING, 200),
    ),
    Cover(
        "authorization-server-validate-token",
        "server",
        f"{TESTS}::test_the_server_validates_the_tokens_origin",
        fault=http_status(OPENING, 200),
    ),
    Cover(
        "authorization-server-validate-audience",
        "server",
        f"{TESTS}::test_the_server_refuses_a_token_issued_for_another_resource",
        fault=http_status(OPENING, 200),
    ),
    Cover(
        "authorization-server-validation-failure-response",
        "server",
        f"{TESTS}::test_a_failed_validation_is_answered_with_a_bearer_error",
        fault=http_header(OPENING, "WWW-Authenticate", None),
    ),
    Cover(
        "authorization-server-403-insufficient-permissions",
        "server",
        f"{TESTS}::test_a_token_without_the_needed_scope_is_answered_403",
        fault=http_status(OPENING, 200),
    ),
    Cover(
        "authorization-server-validate-before-processing",
        "server",
        f"{TESTS}::test_a_request_with_a_refused_token_is_not_processed",
        fault=http_body(OPENING, json.dumps({"jsonrpc": "2.0", "id": "opening", "result": {}})),
    ),
    Cover(
        "authorization-server-protected-resource-metadata",
        "server",
        f"{TESTS}::test_the_server_serves_its_protected_resource_metadata",
        fault=http_status("GET", 404),
    ),
    Cover(
        "authorization-server-prm-authorization-servers",
        "server",
        f"{TESTS}::test_the_metadata_lists_the_authorization_servers",
        fault=http_body("GET", json.dumps({"authorization_servers": []})),
    ),
    Cover(
        "authorization-server-401-www-authenticate",
        "server",
        f"{TESTS}::test_every_401_points_at_the_metadata",
        fault=http_header(OPENING, "WWW-Authenticate", 'Bearer error="invalid_token"'),
    ),
    Cover(
        "authorization-server-prm-discovery-mechanism",
        "server",
        f"{TESTS}::test_the_metadata_can_be_found",
        fault=http_status("GET", 404),
    ),
    Cover(
        "authorization-server-enforce-token-expiry",
        "server",
        f"{TESTS}::test_an_expired_token_is_refused",
        fault=http_status(OPENING, 200),
    ),
    Cover(
        "authorization-server-insufficient-scope-403",
        "server",
        f"{TESTS}::test_a_token_lacking_the_needed_scope_is_answered_403",
        fault=http_status(OPENING, 200),
    ),
    Cover(
        "authorization-server-insufficient-scope-challenge",
        "server",
        f"{TESTS}::test_the_insufficient_scope_challenge_says_what_to_ask_for",
        fault=http_header(OPENING, "WWW-Authenticate", 'Bearer error="invalid_token"'),
    ),
    Cover(
        "authorization-server-insufficient-scope-required-scopes",
        "server",
        f"{TESTS}::test_the_insufficient_scope_challenge_names_the_needed_scopes",
        fault=http_header(OPENING, "WWW-Authenticate", OTHER_SCOPE_CHALLENGE),
    ),
    Cover(
        "authorization-server-all-required-scopes-in-one-challenge",
        "server",
        f"{TESTS}::test_one_challenge_names_every_needed_scope",
        fault=http_header(OPENING, "WWW-Authenticate", OTHER_SCOPE_CHALLENGE),
    ),
    Cover(
        "authorization-server-challenge-scope",
        "server",
        f"{TESTS}::test_the_401_challenge_names_the_needed_scopes",
        fault=http_header(OPENING, "WWW-Authenticate", OTHER_SCOPE_CHALLENGE),
    ),
    Cover(
        "authorization-server-no-offline-access-scope",
        "server",
        f"{TESTS}::test_offline_access_is_not_asked_for",
        fault=http_header(OPENING, "WWW-Authenticate", 'Bearer scope="mcp-matrix:tools offline_access"'),
    ),
    Cover(
        "authorization-canonical-uri-no-trailing-slash",
        "server",
        f"{TESTS}::test_the_metadata_names_the_resource_without_a_trailing_slash",
        fault=http_body("GET", json.dumps({"resource": "http://127.0.0.1/mcp/", "authorization_servers": []})),
    ),
    # a fault on the answer to the uppercased token would hit the good token's answer first (the precondition)
    Cover(
        "authorization-accept-uppercase-scheme-host",
        "server",
        f"{TESTS}::test_a_token_for_the_uppercased_server_uri_is_accepted",
    ),
    # -- server side: the MCP server as its own authorization server (the target's oauth-hosted configuration). On
    # the default target the routes and handlers are the SDK's, storage and policy the fixture's provider's
    # (conformance/fixtures/authorization_host.py): refresh rotation, the success response's iss and delegation are
    # that provider's (the deployment's), each test says which; the profile names rotation and the success redirect
    # in decided-by-the-suite (L-190), and their tests leave them out there. GET faults hit the judged metadata and
    # authorization requests, POST faults the judged registration and token requests; the steps on the way are never
    # faulted.
    Cover(
        "authorization-server-as-metadata",
        "server",
        f"{TESTS}::test_the_server_publishes_its_authorization_server_metadata",
        fault=http_body("GET", json.dumps({"issuer": "http://127.0.0.1"})),
    ),
    Cover(
        "authorization-server-metadata-at-base-url",
        "server",
        f"{TESTS}::test_the_metadata_is_at_the_authorization_base_url",
        fault=http_status("GET", 404),
    ),
    Cover(
        "authorization-server-fallback-default-endpoints",
        "server",
        f"{TESTS}::test_without_metadata_the_default_endpoints_serve",
        fault=http_status(("GET", "POST"), 404),
    ),
    Cover(
        "authorization-as-rfc8414-metadata",
        "server",
        f"{TESTS}::test_the_authorization_server_publishes_rfc8414_metadata",
        fault=http_status("GET", 404),
    ),
    Cover(
        "authorization-as-discovery-mechanism",
        "server",
        f"{TESTS}::test_the_authorization_server_offers_a_discovery_document",
        fault=http_status("GET", 404),
    ),
    Cover(
        "authorization-as-oidc-code-challenge-methods",
        "server",
        f"{TESTS}::test_the_authorization_servers_openid_discovery_lists_code_challenge_methods",
        fault=http_body("GET", json.dumps({"issuer": "http://127.0.0.1"})),
    ),
    Cover(
        "authorization-as-dynamic-registration",
        "server",
        f"{TESTS}::test_the_server_registers_clients_dynamically",
        fault=http_status("POST", 400),
    ),
    Cover(
        "authorization-as-dynamic-registration-optional",
        "server",
        f"{TESTS}::test_the_server_may_register_clients_dynamically",
    ),
    Cover(
        "authorization-server-validate-redirect-uri",
        "server",
        f"{TESTS}::test_the_server_redirects_to_no_unregistered_uri",
        fault=http_status("GET", 302),
    ),
    Cover(
        "authorization-as-exact-redirect-uri",
        "server",
        f"{TESTS}::test_the_authorization_server_matches_redirect_uris_exactly",
        fault=http_status("GET", 302),
    ),
    Cover(
        "authorization-as-redirect-uri-localhost-or-https",
        "server",
        f"{TESTS}::test_the_authorization_server_takes_only_localhost_or_https_redirect_uris",
        fault=http_status("POST", 201),
    ),
    Cover(
        "authorization-server-400-malformed-request",
        "server",
        f"{TESTS}::test_a_malformed_authorization_request_is_answered_400",
        fault=http_status("GET", 200),
    ),
    Cover(
        "authorization-as-refresh-token-rotation",
        "server",
        f"{TESTS}::test_the_authorization_server_rotates_a_public_clients_refresh_token",
        fault=http_status("POST", 200),
    ),
    Cover(
        "authorization-as-token-rotation",
        "server",
        f"{TESTS}::test_the_server_rotates_tokens",
        fault=http_status("POST", 200),
    ),
    Cover(
        "authorization-as-accept-own-resource-tokens",
        "server",
        f"{TESTS}::test_a_token_the_server_issued_for_another_resource_is_refused",
        fault=http_status(OPENING, 200),
    ),
    Cover(
        "authorization-as-iss-in-authorization-responses",
        "server",
        f"{TESTS}::test_the_authorization_servers_responses_carry_its_issuer",
        fault=http_header("GET", "Location", "http://127.0.0.1:9/callback?code=mcp-matrix&state=mcp-matrix-state"),
    ),
    Cover(
        "authorization-as-advertises-iss-support",
        "server",
        f"{TESTS}::test_the_authorization_server_advertises_the_issuer_it_returns",
        fault=http_body("GET", json.dumps({"issuer": "http://127.0.0.1"})),
    ),
    Cover(
        "authorization-as-cimd",
        "server",
        f"{TESTS}::test_the_authorization_server_supports_client_id_metadata_documents",
        fault=http_body("GET", json.dumps({"issuer": "http://127.0.0.1"})),
    ),
    Cover(
        "authorization-server-third-party-delegation",
        "server",
        f"{TESTS}::test_the_server_may_delegate_to_a_third_party_authorization_server",
    ),
    # -- client side: the client under test's OAuth flow against the harness's authorization server and protected
    # resource; each fault rewrites what those record of the client's requests to one path (Fault.rewrite_request)
    Cover(
        "authorization-client-pkce",
        "client",
        f"{TESTS}::test_the_client_binds_its_code_to_a_pkce_verifier",
        fault=Fault(
            "set",
            "/token",
            "form.code_verifier",
            ["mcp-matrix-not-the-verifier"],
            "the code redeemed with a code_verifier that does not give the challenge",
        ),
    ),
    Cover(
        "authorization-client-pkce-s256",
        "client",
        f"{TESTS}::test_the_client_asks_for_the_s256_challenge_method",
        fault=Fault("set", "/authorize", "query.code_challenge_method", ["plain"], "the plain method asked for"),
    ),
    Cover(
        "authorization-client-verify-pkce-support",
        "client",
        f"{TESTS}::test_the_client_refuses_an_authorization_server_that_states_no_pkce",
        fault=Fault(
            "set",
            ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"),
            "path",
            "/authorize",
            "the client's read of the authorization server's metadata followed by an authorization request",
        ),
    ),
    Cover(
        "authorization-client-as-metadata-issuer-must-match",
        "client",
        f"{TESTS}::test_the_client_discards_metadata_naming_another_issuer",
        fault=Fault(
            "set",
            ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"),
            "path",
            "/authorize",
            "the client's read of the authorization server's metadata followed by an authorization request",
        ),
    ),
    Cover(
        "authorization-client-iss-matches-recorded-issuer",
        "client",
        f"{TESTS}::test_the_client_redeems_no_code_of_a_response_from_another_issuer",
        fault=Fault("set", "/register", "path", "/token", "a request of the client's sent to the token endpoint"),
    ),
    Cover(
        "authorization-client-protected-resource-metadata",
        "client",
        f"{TESTS}::test_the_client_finds_its_authorization_server_through_the_resource_metadata",
        fault=Fault(
            "set",
            ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"),
            "path",
            "/mcp-matrix/not-the-metadata",
            "no protected-resource metadata read",
        ),
    ),
    Cover(
        "authorization-client-resource-parameter",
        "client",
        f"{TESTS}::test_the_client_names_a_resource_in_every_authorization_and_token_request",
        fault=Fault("drop", "/token", "form.resource", description="the token request without its resource"),
    ),
    Cover(
        "authorization-client-resource-identifies-server",
        "client",
        f"{TESTS}::test_the_resource_parameter_names_the_mcp_server",
        fault=Fault(
            "set", "/authorize", "query.resource", ["http://127.0.0.1:9/another-resource"], "another resource asked for"
        ),
    ),
    Cover(
        "authorization-client-state-parameter",
        "client",
        f"{TESTS}::test_the_client_sends_a_state_and_drops_a_response_with_another",
        fault=Fault("drop", "/authorize", "query.state", description="the authorization request without a state"),
    ),
    Cover(
        "authorization-client-bearer-header",
        "client",
        f"{TESTS}::test_the_client_sends_its_token_as_a_bearer_authorization_header",
        fault=Fault(
            "set", "/mcp", "headers.authorization", "Basic bWNwLW1hdHJpeDp0b2tlbg==", "the token sent as Basic"
        ),
    ),
    Cover(
        "authorization-client-token-every-request",
        "client",
        f"{TESTS}::test_the_client_sends_its_token_on_every_request",
        fault=Fault("drop", "/mcp", "headers.authorization", description="the MCP requests without the token"),
    ),
    Cover(
        "authorization-client-no-token-in-query",
        "client",
        f"{TESTS}::test_the_client_puts_no_token_in_a_query_string",
        fault=Fault(
            "set", "/mcp", "query.access_token", ["mcp-matrix-token"], "an access_token in the MCP requests' query"
        ),
    ),
    Cover(
        "authorization-client-only-as-issued-tokens",
        "client",
        f"{TESTS}::test_the_client_sends_only_tokens_its_authorization_server_issued",
        fault=Fault(
            "set",
            "/mcp",
            "headers.authorization",
            "Bearer mcp-matrix-token-of-another-issuer",
            "a token its authorization server never issued sent to the MCP server",
        ),
    ),
    Cover(
        "authorization-client-prm-from-header",
        "client",
        f"{TESTS}::test_the_client_reads_the_metadata_the_challenge_names",
        fault=Fault(
            "set",
            "/mcp-matrix/resource-metadata",
            "path",
            "/.well-known/oauth-protected-resource/mcp",
            "the well-known metadata URI asked instead of the one the challenge named",
        ),
    ),
    Cover(
        "authorization-client-initial-scope-from-challenge",
        "client",
        f"{TESTS}::test_the_client_first_asks_for_the_scope_the_challenge_names",
        fault=Fault("set", "/authorize", "query.scope", ["mcp-matrix:tools"], "another scope asked for"),
    ),
    Cover(
        "authorization-client-step-up-on-scope-error",
        "client",
        f"{TESTS}::test_the_client_steps_up_on_an_insufficient_scope_error",
        fault=Fault("set", "/authorize", "query.scope", ["mcp-matrix:tools"], "no larger scope asked for"),
    ),
    Cover(
        "authorization-client-prm-well-known-fallback",
        "client",
        f"{TESTS}::test_without_a_metadata_url_the_client_tries_the_well_known_paths_in_order",
        fault=Fault(
            "set",
            "/.well-known/oauth-protected-resource/mcp",
            "path",
            "/.well-known/oauth-protected-resource",
            "the root metadata URI asked first",
        ),
    ),
    # -- client side: discovery of the authorization server (2025-03-26: under the MCP server's own origin, served
    # by own_origin_resource), the 401 challenge, the scopes asked for, and the resource parameter --
    Cover(
        "authorization-client-as-metadata",
        "client",
        f"{TESTS}::test_the_client_takes_the_endpoints_from_the_authorization_server_metadata",
        fault=Fault("set", "/mcp-matrix/moved/authorize", "path", "/authorize", "the default authorization endpoint"),
    ),
    Cover(
        "authorization-client-metadata-at-base-url",
        "client",
        f"{TESTS}::test_the_client_asks_for_the_metadata_at_the_authorization_base_url",
        fault=Fault(
            "set",
            "/.well-known/oauth-authorization-server",
            "path",
            "/.well-known/oauth-authorization-server/v1/mcp",
            "the metadata asked for below the MCP server's path",
        ),
    ),
    Cover(
        "authorization-client-base-url-strip-path",
        "client",
        f"{TESTS}::test_the_authorization_base_url_is_the_origin_of_the_mcp_server",
        fault=Fault("set", "/authorize", "path", "/v1/authorize", "the authorization endpoint under the MCP path"),
    ),
    Cover(
        "authorization-client-fallback-default-endpoints",
        "client",
        f"{TESTS}::test_without_metadata_the_client_uses_the_default_endpoints",
        fault=Fault("set", "/token", "path", "/mcp-matrix/not-the-token-endpoint", "the code redeemed elsewhere"),
    ),
    Cover(
        "authorization-client-metadata-before-defaults",
        "client",
        f"{TESTS}::test_the_client_asks_for_the_metadata_before_using_the_default_endpoints",
        fault=Fault(
            "set",
            "/.well-known/oauth-authorization-server",
            "path",
            "/mcp-matrix/not-the-metadata",
            "no metadata asked for before the default endpoints",
        ),
    ),
    Cover(
        "authorization-client-discovery-protocol-version-header",
        "client",
        f"{TESTS}::test_the_metadata_request_carries_the_protocol_version",
        fault=Fault(
            "set",
            "/.well-known/oauth-authorization-server",
            "headers.mcp-protocol-version",
            "1999-01-01",
            "the metadata request naming a version the client does not use",
        ),
    ),
    Cover(
        "authorization-client-as-discovery-both",
        "client",
        f"{TESTS}::test_the_client_discovers_by_rfc8414_and_by_openid_connect",
        fault=Fault("set", "/authorize", "path", "/mcp-matrix/not-authorize", "no authorization after discovery"),
    ),
    Cover(
        "authorization-client-as-metadata-order-no-path",
        "client",
        f"{TESTS}::test_for_an_issuer_without_a_path_the_client_tries_oauth_then_openid",
        fault=Fault(
            "set",
            "/.well-known/oauth-authorization-server",
            "path",
            "/.well-known/openid-configuration",
            "the OpenID document asked for first",
        ),
    ),
    Cover(
        "authorization-client-as-metadata-order-with-path",
        "client",
        f"{TESTS}::test_for_an_issuer_with_a_path_the_client_tries_the_three_documents_in_order",
        fault=Fault(
            "set",
            "/.well-known/openid-configuration/tenant1",
            "path",
            "/tenant1/.well-known/openid-configuration",
            "OpenID's path-appended document asked for before its path-inserted one",
        ),
    ),
    Cover(
        "authorization-client-parse-www-authenticate",
        "client",
        f"{TESTS}::test_the_client_reads_a_challenge_with_several_parameters",
        fault=Fault(
            "set",
            "/mcp-matrix/resource-metadata",
            "path",
            "/.well-known/oauth-protected-resource/mcp",
            "the well-known metadata URI asked instead of the one the challenge named",
        ),
    ),
    Cover(
        "authorization-client-challenge-scope-authoritative",
        "client",
        f"{TESTS}::test_the_client_asks_for_every_scope_the_challenge_names",
        fault=Fault("set", "/authorize", "query.scope", ["mcp-matrix:tools"], "only the scope scopes_supported lists"),
    ),
    Cover(
        "authorization-client-no-scope-set-assumption",
        "client",
        f"{TESTS}::test_the_client_follows_a_challenge_whose_scopes_are_outside_scopes_supported",
        fault=Fault("set", "/authorize", "query.scope", ["mcp-matrix:tools"], "scopes_supported's scope instead"),
    ),
    Cover(
        "authorization-client-initial-scope-fallback",
        "client",
        f"{TESTS}::test_without_a_challenged_scope_the_client_asks_for_scopes_supported",
        fault=Fault("set", "/authorize", "query.scope", ["mcp-matrix:tools"], "one of the two listed scopes"),
    ),
    Cover(
        "authorization-client-user-step-up",
        "client",
        f"{TESTS}::test_the_client_acting_for_a_user_authorizes_again_on_a_scope_error",
        fault=Fault("set", "/authorize", "path", "/mcp-matrix/not-authorize", "no authorization request"),
    ),
    Cover(
        "authorization-client-reauthorization-keeps-granted-scopes",
        "client",
        f"{TESTS}::test_the_client_keeps_its_scopes_when_it_authorizes_again",
        fault=Fault("set", "/authorize", "query.scope", ["mcp-matrix:admin"], "only the challenged scope"),
    ),
    # a permission: a client that does not ask for offline_access is not-exercised, never failed
    Cover(
        "authorization-client-offline-access-scope",
        "client",
        f"{TESTS}::test_the_client_may_ask_for_offline_access",
    ),
    Cover(
        "authorization-client-resource-canonical-uri",
        "client",
        f"{TESTS}::test_the_resource_parameter_is_an_absolute_uri_without_a_fragment",
        fault=Fault("set", "/authorize", "query.resource", ["127.0.0.1/mcp"], "a resource without a scheme"),
    ),
    Cover(
        "authorization-client-resource-most-specific",
        "client",
        f"{TESTS}::test_the_resource_parameter_names_the_endpoint_not_only_its_origin",
        fault=Fault("set", "/authorize", "query.resource", ["http://127.0.0.1"], "only an origin named"),
    ),
    Cover(
        "authorization-client-resource-regardless-of-as-support",
        "client",
        f"{TESTS}::test_the_client_names_the_resource_to_a_server_that_states_no_support_for_it",
        fault=Fault("drop", "/token", "form.resource", description="the token request without its resource"),
    ),
    Cover(
        "authorization-canonical-uri-no-trailing-slash",
        "client",
        f"{TESTS}::test_the_client_names_a_resource_at_the_root_without_a_trailing_slash",
        fault=Fault("set", "/authorize", "query.resource", ["http://127.0.0.1/"], "a resource with a trailing slash"),
    ),
    Cover(
        "authorization-accept-uppercase-scheme-host",
        "client",
        f"{TESTS}::test_the_client_accepts_metadata_naming_its_server_in_upper_case",
        fault=Fault("set", "/authorize", "path", "/mcp-matrix/not-authorize", "no authorization after the metadata"),
    ),
    # -- client side: registration, redirect URIs, RFC 9207 iss, refresh tokens, credentials across servers --
    Cover(
        "authorization-client-dynamic-registration",
        "client",
        f"{TESTS}::test_the_client_registers_itself_dynamically",
        fault=NO_REGISTRATION,
    ),
    Cover(
        "authorization-client-dynamic-registration-optional",
        "client",
        f"{TESTS}::test_the_client_may_register_itself_dynamically",
    ),
    Cover(
        "authorization-client-has-client-id-before-flow",
        "client",
        f"{TESTS}::test_the_client_holds_a_client_id_before_it_asks_for_authorization",
        fault=Fault("drop", "/authorize", "query.client_id", description="the authorization request without client_id"),
    ),
    Cover(
        "authorization-client-registered-redirect-uris",
        "client",
        f"{TESTS}::test_the_client_uses_only_redirect_uris_it_registered",
        fault=Fault(
            "set",
            "/authorize",
            "query.redirect_uri",
            ["http://127.0.0.1:3000/mcp-matrix-unregistered"],
            "a redirect URI it never registered",
        ),
    ),
    Cover(
        "authorization-client-redirect-uri-localhost-or-https",
        "client",
        f"{TESTS}::test_every_redirect_uri_is_on_localhost_or_https",
        fault=Fault(
            "set", "/authorize", "query.redirect_uri", ["http://mcp-matrix.example/callback"], "a plain-http remote one"
        ),
    ),
    Cover(
        "authorization-client-dcr-sets-application-type",
        "client",
        f"{TESTS}::test_the_registration_states_an_application_type",
        fault=Fault("drop", "/register", "json.application_type", description="a registration without one"),
    ),
    Cover(
        "authorization-client-dcr-native-application-type",
        "client",
        f"{TESTS}::test_a_client_with_loopback_redirects_registers_as_native",
        fault=Fault("set", "/register", "json.application_type", "web", "the loopback client registered as web"),
    ),
    Cover(
        "authorization-client-dcr-handles-redirect-uri-rejection",
        "client",
        f"{TESTS}::test_a_refused_registration_ends_the_flow_without_a_hang",
        fault=Fault("set", "/register", "path", "/authorize", "an authorization request after the refusal"),
    ),
    Cover(
        "authorization-client-dcr-rejection-reported",
        "client",
        f"{TESTS}::test_a_refused_registration_is_reported_with_its_reason",
        fault=misreport("oauth-failed", ["OAuthFlowError: failed"]),
    ),
    Cover(
        "authorization-client-dcr-retry-adjusted",
        "client",
        f"{TESTS}::test_a_refused_client_may_register_again_adjusted",
    ),
    Cover(
        "authorization-client-cimd",
        "client",
        f"{TESTS}::test_the_client_uses_its_metadata_document_url_as_client_id",
        fault=Fault("set", "/authorize", "query.client_id", ["mcp-matrix-registered"], "a registered client ID used"),
    ),
    Cover(
        "authorization-client-cimd-check-support",
        "client",
        f"{TESTS}::test_the_client_uses_no_metadata_document_the_server_does_not_take",
        fault=Fault(
            "set",
            "/authorize",
            "query.client_id",
            ["https://client.mcp-matrix.example/oauth/client-metadata.json"],
            "the metadata document URL used as client ID though unsupported",
        ),
    ),
    Cover(
        "authorization-client-cimd-fallback",
        "client",
        f"{TESTS}::test_without_metadata_document_support_the_client_may_register",
    ),
    Cover(
        "authorization-client-cimd-client-id-url",
        "client",
        f"{TESTS}::test_the_metadata_document_client_id_is_an_https_url_with_a_path",
        fault=Fault(
            "set", "/authorize", "query.client_id", ["http://client.mcp-matrix.example/"], "an http URL without a path"
        ),
    ),
    Cover(
        "authorization-client-cimd-private-key-jwt",
        "client",
        f"{TESTS}::test_a_metadata_document_client_may_authenticate_with_a_signed_assertion",
    ),
    Cover(
        "authorization-client-registration-priority",
        "client",
        f"{TESTS}::test_the_client_prefers_what_it_has_then_metadata_documents_then_registration",
        fault=Fault(
            "set", "/authorize", "query.client_id", ["mcp-matrix-dynamically-registered"], "another client ID used"
        ),
    ),
    Cover(
        "authorization-client-iss-required-when-advertised",
        "client",
        f"{TESTS}::test_the_client_rejects_a_response_without_the_advertised_iss",
        fault=CODE_REDEEMED,
    ),
    Cover(
        "authorization-client-iss-absent-unadvertised-proceeds",
        "client",
        f"{TESTS}::test_without_iss_support_a_response_without_iss_is_taken",
        fault=Fault("set", "/token", "path", "/mcp-matrix/not-the-token-endpoint", "no code redeemed"),
    ),
    Cover(
        "authorization-client-iss-compared-unnormalized",
        "client",
        f"{TESTS}::test_the_client_compares_iss_as_a_plain_string",
        fault=CODE_REDEEMED,
    ),
    Cover(
        "authorization-client-refresh-token-confidential",
        "client",
        f"{TESTS}::test_the_client_sends_its_refresh_token_only_to_the_token_endpoint",
        fault=Fault("set", "/mcp", "query.refresh_token", ["mcp-matrix-leaked"], "a refresh token in a query string"),
    ),
    Cover(
        "authorization-client-refresh-token-grant-type",
        "client",
        f"{TESTS}::test_a_client_that_refreshes_registers_the_refresh_token_grant",
        fault=Fault("set", "/register", "json.grant_types", ["authorization_code"], "registered without it"),
    ),
    Cover(
        "authorization-client-refresh-token-not-assumed",
        "client",
        f"{TESTS}::test_the_client_keeps_working_without_refresh_tokens",
        fault=Fault("set", "/token", "form.grant_type", ["refresh_token"], "refresh grants sent without a token"),
    ),
    Cover(
        "authorization-client-reregisters-on-as-change",
        "client",
        f"{TESTS}::test_the_client_registers_with_the_new_authorization_server",
        fault=NO_REGISTRATION,
    ),
    Cover(
        "authorization-client-no-credential-reuse-across-as",
        "client",
        f"{TESTS}::test_the_client_presents_no_other_servers_client_id",
        fault=Fault(
            "set", "/authorize", "query.client_id", ["mcp-matrix-other-servers-client"], "a client ID it never issued"
        ),
    ),
    Cover(
        "authorization-client-preregistered-as-mismatch-error",
        "client",
        f"{TESTS}::test_the_client_does_not_try_preregistered_credentials_on_another_server",
        fault=Fault(
            "set",
            "/authorize",
            "query.client_id",
            ["mcp-matrix-preregistered-client"],
            "the pre-registered client ID tried on every authorization server",
        ),
    ),
]

GAPS: list[Gap] = [
    *gaps(
        "L-095",
        "the authorization server's consent and warning pages are for a person to read: what they show, and "
        "whether it was seen, is on no wire a test can judge",
        {
            "authorization-as-display-redirect-hostname": "server",
            "authorization-as-localhost-redirect-warning": "server",
            "authorization-as-untrusted-redirect-inform-user": "server",
        },
    ),
    *gaps(
        "L-096",
        "how a client or server stores and indexes tokens, credentials, registration state and per-flow records is "
        "internal; what they lead to on the wire (the iss check, no reuse across authorization servers, "
        "re-registration) are rows of their own",
        {
            "authorization-client-credentials-keyed-by-issuer": "client",
            "authorization-client-per-as-registration-state": "client",
            "authorization-client-records-expected-issuer": "client",
            "authorization-client-secure-token-storage": "client",
            "authorization-client-step-up-track-attempts": "client",
            "authorization-server-secure-token-storage": "server",
            "authorization-server-third-party-credential-storage": "server",
            "authorization-server-third-party-token-mapping": "server",
        },
    ),
    *gaps(
        "L-097",
        "the rest of a whole external document (OAuth 2.1, its sections 1.5, 5 and 7, the CIMD draft, the "
        "authorization specification as a whole) or a duty measured by 'appropriate', 'properly', 'consider', "
        "'trusted', 'consistent' or the server's own scope model: no criterion a frame could fail",
        {
            "authorization-as-auto-redirect-trusted-only": "server",
            "authorization-as-cimd-consider-security": "server",
            "authorization-as-cimd-security-section": "server",
            "authorization-as-cimd-ssrf": "server",
            "authorization-as-oauth21": "server",
            "authorization-as-untrusted-redirect-precautions": "server",
            "authorization-client-cimd-follow-draft": "both",
            "authorization-client-least-privilege-scopes": "client",
            "authorization-client-oauth21": "client",
            "authorization-communication-security": "both",
            "authorization-http-transport-conform": "both",
            "authorization-oauth21-security-practices": "both",
            "authorization-server-consistent-scope-inclusion": "server",
            "authorization-server-consistent-scope-sets": "server",
            "authorization-server-grant-types-fit-audience": "server",
            "authorization-server-honours-scope-hierarchy": "server",
            "authorization-server-no-data-to-unauthorized": "server",
            "authorization-server-scope-ux-impact": "server",
            "authorization-server-third-party-error-handling": "server",
            "authorization-server-third-party-session-timeout": "server",
            "authorization-server-third-party-token-chaining": "server",
            "authorization-server-third-party-token-lifecycle": "server",
            "authorization-token-use-oauth21-section5": "both",
        },
    ),
    *gaps(
        "L-098",
        "an access-token lifetime or a step-up retry bound with no number: any threshold a test picked would be the "
        "suite's",
        {
            "authorization-as-short-lived-tokens": "server",
            "authorization-client-step-up-retry-limit": "client",
        },
    ),
    *gaps(
        "L-099",
        "configuration (static client credentials, credentials from the environment over stdio, where no OAuth flow "
        "has a wire) and an authorization server's admission policy for client IDs, under which every choice is "
        "allowed",
        {
            "authorization-as-domain-trust-policies": "server",
            "authorization-as-localhost-attestation": "server",
            "authorization-client-static-credentials": "client",
            "authorization-stdio-env-credentials": "both",
            "authorization-stdio-environment-credentials": "both",
        },
    ),
    Gap(
        "authorization-client-credentials-step-up-optional",
        "client",
        "L-151",
        "a client_credentials client may step up or abort, the only two courses: no run breaks it; which it takes "
        "could be reported, but no driver scenario runs a client_credentials client and the harness's "
        "authorization server has no such grant (not built)",
    ),
    Gap(
        "authorization-server-no-token-passthrough",
        "server",
        "L-150",
        "the breach is on the server's own connection to an upstream API, which the suite is not party to; the "
        "fixture server calls nothing upstream",
    ),
    *gaps(
        "L-160",
        "a client ID metadata document is the client deployment's, served from its own HTTPS host: whether it is "
        "served over HTTPS, which properties it has and whether its client_id is its URL are on no wire a "
        "loopback-only suite can reach (the client under test never sends the document)",
        {
            "authorization-client-cimd-https-hosting": "client",
            "authorization-client-cimd-required-properties": "client",
            "authorization-client-cimd-client-id-matches-url": "client",
        },
    ),
    Gap(
        "authorization-client-dcr-web-application-type",
        "client",
        "L-161",
        "binds a browser-based client served from a remote host; the clients under test are programs on this "
        "machine with loopback redirects, and what kind of application a client is shows on no wire",
    ),
    Gap(
        "authorization-client-iss-mismatch-error-ignored",
        "client",
        "L-162",
        "what a client shows a person, and what it does with an error response it has rejected, has no wire: the "
        "response reaches the host's redirect listener, and a client that ignores it and one that acts on it "
        "send the same nothing",
    ),
    Gap(
        "authorization-as-endpoints-https",
        "server",
        "L-170",
        "the suite serves and reaches loopback only, over plain HTTP (the SDK lets an issuer be HTTP only there): "
        "whether a deployment serves its authorization endpoints over HTTPS alone is outside what it can reach",
    ),
    *gaps(
        "L-171",
        "a client ID metadata document's URL is an HTTPS URL, and the suite has no HTTPS on loopback: no "
        "authorization server can be handed a client_id document to fetch, check, cache or match redirect URIs "
        "against (whether it supports CIMD at all is authorization-as-cimd, tested)",
        {
            "authorization-as-cimd-fetch": "server",
            "authorization-as-cimd-client-id-match": "server",
            "authorization-as-cimd-document-valid": "server",
            "authorization-as-cimd-redirect-uri-check": "server",
            "authorization-as-cimd-cache": "server",
        },
    ),
    Gap(
        "authorization-server-challenge-scope-any-relation",
        "server",
        "L-172",
        "a permission under which every relation between the challenge's scope and scopes_supported is allowed: "
        "no answer can break it (the suite's own checks honour it: none compares the two)",
    ),
    Gap(
        "authorization-server-proxy-consent-per-client",
        "server",
        "L-173",
        "binds an MCP proxy under a static client ID at a third-party authorization server, and the consent it "
        "asks is a page for a person; the fixture is no such proxy, and no wire shows whether consent was asked",
    ),
    *gaps(
        "L-174",
        "the session binding between an MCP server and a third-party authorization server (the third-party "
        "token's status, expiry and renewal) is on the server's own connection to that server, which the suite is "
        "not party to",
        {
            "authorization-server-third-party-token-status": "server",
            "authorization-server-third-party-token-expiry": "server",
        },
    ),
]
