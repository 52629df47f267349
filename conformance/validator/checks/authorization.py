"""Authorization, as far as a trace's ``http`` events show it: the MCP server's 401 and 403 answers and their
``WWW-Authenticate`` challenges, the client's request URIs, and its metadata requests to the MCP server's own
origin (2025-03-26). Credentials (the ``Authorization`` header) are never recorded, so nothing here reads a token.

Only the MCP endpoint's answers are the MCP server's (``http.at_endpoint``): an authorization server's
endpoints (``/token``, ``/register``) and the well-known metadata documents are not, even on the same origin.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from conformance.validator.checks.http import at_endpoint, exchanges, path_of
from conformance.validator.judgement import Judgement, check
from conformance.validator.reader import Event
from conformance.validator.session import PROTOCOL_VERSION_HEADER, Session, header

BEARER = "bearer"
# RFC 7235's auth-param: a token, "=", then a token or a quoted string (backslash escapes inside)
AUTH_PARAM = re.compile(r'([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')
# where a challenge begins: its auth-scheme, then a parameter or nothing (read with quoted strings blanked out)
CHALLENGE_START = re.compile(r"(?:^|,)\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)(?=\s+[^\s=,]+\s*=|\s*(?:,|$))")
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
PROTECTED_RESOURCE_METADATA = "/.well-known/oauth-protected-resource"
AUTHORIZATION_SERVER_METADATA = "/.well-known/oauth-authorization-server"
# the authorization endpoints a 2025-03-26 client falls back to below the authorization base URL
DEFAULT_ENDPOINTS = ("/authorize", "/token", "/register")


def endpoint_answers(session: Session, *statuses: int) -> Iterator[Event]:
    """The MCP endpoint's answers of the given statuses."""
    for event in session.http_responses():
        if event["status"] in statuses and at_endpoint(session, event):
            yield event


def bearer_challenge(event: Event) -> dict[str, str] | None:
    """The parameters (names lower case, quoted values unescaped) of the Bearer challenge of an answer's
    WWW-Authenticate header; None where it has none."""
    value = header(event, "www-authenticate") or ""
    blanked = QUOTED.sub(lambda quoted: '"' + "x" * (len(quoted[0]) - 2) + '"', value)  # same offsets
    starts = list(CHALLENGE_START.finditer(blanked))
    for number, start in enumerate(starts):
        if start[1].lower() != BEARER:
            continue
        end = starts[number + 1].start() if number + 1 < len(starts) else len(value)
        return {
            match[1].lower(): re.sub(r"\\(.)", r"\1", match[2]) if match[2] is not None else match[3]
            for match in AUTH_PARAM.finditer(value[start.end() : end])
        }
    return None


def _challenges(session: Session) -> Iterator[tuple[Event, dict[str, str]]]:
    """(answer, its Bearer challenge's parameters) of every MCP endpoint answer that carries one."""
    for event in session.http_responses():
        params = bearer_challenge(event)
        if params is not None and at_endpoint(session, event):
            yield event, params


@check("authorization-server-validation-failure-response")
def unauthorized_answers_carry_a_bearer_challenge(
    session: Session, judgement: Judgement, sides: frozenset[str]
) -> None:
    """A 401 of the MCP endpoint carries a WWW-Authenticate header with a Bearer challenge (OAuth 2.1 section
    5.3), and a challenge naming error="invalid_token" comes with a 401 (the error codes' statuses, section
    5.3.2; insufficient_scope and its 403 are judged by authorization-server-403-insufficient-permissions)."""
    for event in endpoint_answers(session, 401):
        judgement.examine()
        if bearer_challenge(event) is None:
            judgement.fail(
                event["seq"],
                f"a 401 without a Bearer challenge: WWW-Authenticate {header(event, 'www-authenticate')!r}",
            )
    for event, params in _challenges(session):
        if params.get("error") == "invalid_token" and event["status"] != 401:
            judgement.examine()
            judgement.fail(event["seq"], f'error="invalid_token" answered {event["status"]}, not 401')


@check("authorization-server-401-www-authenticate")
def unauthorized_answers_name_the_metadata(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-06-18) Every 401 of the MCP endpoint names the URL of its protected resource metadata: the
    resource_metadata parameter of its WWW-Authenticate header."""
    for event in endpoint_answers(session, 401):
        judgement.examine()
        if not (bearer_challenge(event) or {}).get("resource_metadata"):
            judgement.fail(
                event["seq"],
                f"a 401 whose WWW-Authenticate {header(event, 'www-authenticate')!r} names no resource_metadata",
            )


def _well_known_answers(session: Session, endpoint: str) -> dict[str, int]:
    """RFC 9728's well-known locations of ``endpoint``'s protected resource metadata (with the endpoint's
    path, and at the root) -> the status of the client's GET of it, where the trace holds one."""
    locations = {PROTECTED_RESOURCE_METADATA + endpoint.rstrip("/"), PROTECTED_RESOURCE_METADATA}
    found = dict.fromkeys(locations, 0)  # 0: not asked for in the trace
    for request, response in exchanges(session, anywhere=True):
        path = path_of(request)
        if request["method"] == "GET" and path in locations:
            found[path] = response["status"]
    return found


@check("authorization-server-prm-discovery-mechanism")
def protected_resource_metadata_findable(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) The MCP server's protected resource metadata can be found: a 401's challenge names it
    (resource_metadata), or a well-known location serves it (a 2xx answer in the trace). A 401 naming none
    fails only where the trace shows both well-known locations asked for and refused; else it is not judged."""
    for event in endpoint_answers(session, 401):
        endpoint = path_of(event)
        answers = _well_known_answers(session, endpoint) if endpoint is not None else {}
        named = (bearer_challenge(event) or {}).get("resource_metadata")
        if named or any(200 <= status < 300 for status in answers.values()):
            judgement.examine()
        elif answers and all(answers.values()):
            judgement.examine()
            judgement.fail(
                event["seq"], f"a 401 names no resource_metadata and the well-known locations answered {answers}"
            )
        else:
            judgement.cannot_judge(
                event["seq"],
                "a 401 names no resource_metadata; whether a well-known location serves it is not in the trace",
            )


@check("authorization-server-challenge-scope")
def unauthorized_challenges_name_scopes(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) The WWW-Authenticate challenge of a 401 of the MCP endpoint names the scopes needed: a
    scope parameter."""
    for event in endpoint_answers(session, 401):
        judgement.examine()
        if not (bearer_challenge(event) or {}).get("scope"):
            judgement.fail(
                event["seq"], f"a 401 whose WWW-Authenticate {header(event, 'www-authenticate')!r} names no scope"
            )


def _insufficient_scope_status(session: Session, judgement: Judgement) -> None:
    for event, params in _challenges(session):
        if params.get("error") != "insufficient_scope":
            continue
        judgement.examine()
        if event["status"] != 403:
            judgement.fail(event["seq"], f'error="insufficient_scope" answered {event["status"]}, not 403')


@check("authorization-server-403-insufficient-permissions")
def insufficient_scope_answered_403(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A refusal for want of scope (a Bearer challenge naming error="insufficient_scope") is a 403."""
    _insufficient_scope_status(session, judgement)


@check("authorization-server-insufficient-scope-403")
def runtime_insufficient_scope_answered_403(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) A refusal for want of scope at runtime (a Bearer challenge naming error="insufficient_scope")
    is a 403 Forbidden."""
    _insufficient_scope_status(session, judgement)


@check("authorization-server-insufficient-scope-challenge")
def insufficient_scope_challenge_complete(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) A Bearer challenge naming error="insufficient_scope" also names the scope needed and the
    resource_metadata URL."""
    for event, params in _challenges(session):
        if params.get("error") != "insufficient_scope":
            continue
        judgement.examine()
        missing = [name for name in ("scope", "resource_metadata") if not params.get(name)]
        if missing:
            judgement.fail(event["seq"], f"an insufficient_scope challenge without {' and '.join(missing)}")


@check("authorization-server-no-offline-access-scope")
def offline_access_not_challenged(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2026-07-28) No challenge's scope names offline_access (the protected resource metadata's
    scopes_supported, the row's other half, is a document a trace does not pair with its request)."""
    for event, params in _challenges(session):
        if "scope" not in params:
            continue
        judgement.examine()
        if "offline_access" in params["scope"].split():
            judgement.fail(event["seq"], f"a challenge asks for offline_access: scope={params['scope']!r}")


@check("authorization-client-no-token-in-query")
def no_access_token_in_query(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No request of the client carries an access token in its URI's query (RFC 6750's access_token
    parameter): judged wherever the recorder wrote the request's path with its query."""
    for event in session.http_requests():
        path = event.get("path")
        if not isinstance(path, str):
            continue
        judgement.examine()
        query = path.partition("?")[2].partition("#")[0]
        if "access_token" in {field.partition("=")[0] for field in query.split("&")}:
            judgement.fail(event["seq"], f"a {event['method']} of {path_of(event)} carries access_token in its query")


def _endpoint_hosts(session: Session) -> set[str]:
    """The Host of the requests to the MCP endpoint: the MCP server's origin as the client addressed it."""
    return {
        host.lower()
        for event in session.http_requests()
        if path_of(event) is not None and at_endpoint(session, event) and (host := header(event, "host"))
    }


def _metadata_requests(session: Session) -> Iterator[Event]:
    """The client's GETs of authorization server metadata (RFC 8414's well-known name, anywhere in the path)."""
    for event in session.http_requests():
        if event["method"] == "GET" and AUTHORIZATION_SERVER_METADATA in (path_of(event) or ""):
            yield event


@check("authorization-client-discovery-protocol-version-header")
def metadata_request_names_the_version(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-03-26) The client's request for authorization server metadata carries MCP-Protocol-Version, the
    version it speaks: where the trace holds its initialize, the version that proposes."""
    initialize = session.initialize
    proposed = initialize.params.get("protocolVersion") if initialize is not None else None
    for event in _metadata_requests(session):
        judgement.examine()
        sent = header(event, PROTOCOL_VERSION_HEADER)
        if sent is None:
            judgement.fail(event["seq"], "a metadata request without an MCP-Protocol-Version header")
        elif isinstance(proposed, str) and sent != proposed:
            judgement.fail(
                event["seq"],
                f"a metadata request names MCP-Protocol-Version {sent!r}; initialize proposed {proposed!r}",
            )


@check("authorization-client-metadata-at-base-url")
def metadata_asked_at_the_origin(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-03-26) The client asks the MCP server's origin (the Host its MCP requests name) for authorization
    server metadata at /.well-known/oauth-authorization-server itself: no path before or after it."""
    hosts = _endpoint_hosts(session)
    for event in _metadata_requests(session):
        if (header(event, "host") or "").lower() not in hosts:
            continue  # another origin's metadata, or no Host recorded
        judgement.examine()
        if path_of(event) != AUTHORIZATION_SERVER_METADATA:
            judgement.fail(
                event["seq"],
                f"authorization server metadata asked at {path_of(event)}, not {AUTHORIZATION_SERVER_METADATA}",
            )


@check("authorization-client-metadata-before-defaults")
def metadata_before_default_endpoints(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-03-26) Before the client uses a default endpoint (/authorize, /token, /register) of the MCP
    server's origin, it has asked that origin for its authorization server metadata (at whatever path)."""
    hosts = _endpoint_hosts(session)
    asked: set[str] = set()
    for event in session.http_requests():
        host = (header(event, "host") or "").lower()
        if host not in hosts:
            continue
        if AUTHORIZATION_SERVER_METADATA in (path_of(event) or ""):
            asked.add(host)  # where it asked is authorization-client-metadata-at-base-url's business
        elif path_of(event) in DEFAULT_ENDPOINTS:
            judgement.examine()
            if host not in asked:
                judgement.fail(event["seq"], f"{path_of(event)} used before any request for the metadata")


def _next_metadata_request(session: Session, after: Event, named_path: str | None) -> Event | None:
    """The client's first GET after ``after`` of the named path or of a well-known protected resource metadata
    location: where it went for the metadata."""
    for event in session.http_requests():
        if event["seq"] <= after["seq"] or event["method"] != "GET":
            continue
        path = path_of(event) or ""
        if path == named_path or path.startswith(PROTECTED_RESOURCE_METADATA):
            return event
    return None


@check("authorization-client-prm-from-header")
def metadata_fetched_where_the_challenge_says(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) After a 401 whose challenge names a resource_metadata URL on the MCP server's own origin, the
    client asks for the metadata there, not at a well-known location of its own making (a URL on another origin
    is not in the trace; a client that asks nothing after the 401 leaves it not judged)."""
    hosts = _endpoint_hosts(session)
    for event in endpoint_answers(session, 401):
        named = (bearer_challenge(event) or {}).get("resource_metadata")
        host, _, rest = (named or "").partition("://")[2].partition("/")
        if not named or host.lower() not in hosts:
            continue
        named_path = "/" + rest.split("?", 1)[0].split("#", 1)[0]
        request = _next_metadata_request(session, event, named_path)
        if request is None:
            judgement.cannot_judge(event["seq"], "no request for the metadata follows the 401 in the trace")
            continue
        judgement.examine()
        if path_of(request) != named_path:
            judgement.fail(request["seq"], f"the challenge named {named_path}; the client asked at {path_of(request)}")


@check("authorization-client-prm-well-known-fallback")
def well_known_metadata_in_order(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) After a 401 naming no resource_metadata, the client asks first for the well-known location
    with the MCP endpoint's path (/.well-known/oauth-protected-resource/<path>), then at the root (an endpoint
    at the root has the one location; a client that asks nothing after the 401 leaves it not judged)."""
    for event in endpoint_answers(session, 401):
        endpoint = path_of(event)
        if endpoint is None or (bearer_challenge(event) or {}).get("resource_metadata"):
            continue
        request = _next_metadata_request(session, event, None)
        if request is None:
            judgement.cannot_judge(event["seq"], "no request for the metadata follows the 401 in the trace")
            continue
        judgement.examine()
        first = PROTECTED_RESOURCE_METADATA + endpoint.rstrip("/")
        if path_of(request) != first:
            judgement.fail(request["seq"], f"the client asked first at {path_of(request)}, not {first}")
