"""Resources, server side: the capability, ``resources/list``, ``resources/read`` and its errors.

Each test holds the server under test to one requirement of docs/spec/requirements.md
(resources), at every revision its cover claims (see coverage/resources.py). The resources read
are the one the profile binds to ``static-text-resource`` (the official suite's ``test://static-text``)
and every resource the server lists; the list changes by the tool of ``resource-list-changer``.
"""

from __future__ import annotations

import re

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import Peer
from conformance.harness.roles import bound
from conformance.harness.surface import (
    assert_available_is_listed,
    assert_capability_declared,
    assert_list_changed_announced,
    assert_list_connection_independent,
    is_base64,
    list_items,
    listed,
    offers,
)
from conformance.matrix.covers import for_req
from conformance.run.plugin import SessionFactory

UNKNOWN_RESOURCE = "test://mcp-matrix/no-such-resource"
MALFORMED_URI = "not a valid uri"  # spaces: no URI or URI reference of RFC 3986
INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002  # up to 2025-11-25
URI_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")  # RFC 3986 section 3.1, and its colon


def read(peer: Peer, uri: str) -> dict:
    return peer.rpc("resources/read", {"uri": uri}, check=False)


def read_unknown(peer: Peer) -> dict:
    """The answer to reading a resource the server does not have."""
    peer.open()
    return read(peer, UNKNOWN_RESOURCE)


def error_code(response: dict) -> object:
    error = response.get("error")
    assert isinstance(error, dict), f"answered without an error: {response}"
    return error.get("code")


@for_req("resources-capability-declared", "server", transports=BOTH_TRANSPORTS)
def test_a_server_listing_resources_declares_the_resources_capability(
    revision: str, transport: str, peer: Peer
) -> None:
    assert_capability_declared(peer, "resources", "resources/list")


@for_req("resources-list-current-set", "server", transports=BOTH_TRANSPORTS)
def test_resources_list_holds_the_resources_that_can_be_read(revision: str, transport: str, peer: Peer) -> None:
    assert_available_is_listed(peer, "resources/list", "uri", "static-text-resource", "resources/read", "uri")


@for_req("resources-list-set-connection-independent", "server")
def test_resources_list_depends_neither_on_the_connection_nor_on_earlier_requests(
    revision: str, server: Peer, open_session: SessionFactory
) -> None:
    resource = bound(server, "static-text-resource")
    assert_list_connection_independent(
        server, open_session, revision, "resources/list", lambda peer: read(peer, resource.name)
    )


@for_req("resources-list-changed-notify", "server")
def test_a_resource_list_change_is_announced(revision: str, server: Peer) -> None:
    assert_list_changed_announced(
        server,
        "resources",
        "resource-list-changer",
        "notifications/resources/list_changed",
        "resourcesListChanged",
    )


@for_req("resources-custom-uri-scheme-rfc3986", "server", transports=BOTH_TRANSPORTS)
def test_resource_uri_schemes_follow_rfc_3986(revision: str, transport: str, peer: Peer) -> None:
    peer.open()
    uris = [r.get("uri") for r in listed(peer, "resources/list")]
    uris += [t.get("uriTemplate") for t in list_items(peer, "resources/templates/list") or []]
    if not uris:
        pytest.skip("fixture-missing: the server lists no resources and no templates")
    bad = [uri for uri in uris if not isinstance(uri, str) or not URI_SCHEME.match(uri)]
    assert not bad, f"URIs whose scheme breaks RFC 3986 (ALPHA *( ALPHA / DIGIT / + / - / . ) ':'): {bad}"


@for_req("resources-not-found-error-code", "server", transports=BOTH_TRANSPORTS)
def test_an_unknown_resource_gets_minus_32002(revision: str, transport: str, peer: Peer) -> None:
    offers(peer, "resources")
    code = error_code(read_unknown(peer))
    assert code == RESOURCE_NOT_FOUND, f"reading {UNKNOWN_RESOURCE} was refused with code {code}"


@for_req("resources-read-not-found-invalid-params", "server", transports=BOTH_TRANSPORTS)
def test_an_unknown_resource_gets_minus_32602(revision: str, transport: str, peer: Peer) -> None:
    offers(peer, "resources")
    code = error_code(read_unknown(peer))
    assert code == INVALID_PARAMS, f"reading {UNKNOWN_RESOURCE} was refused with code {code}"


@for_req("resources-read-not-found-no-empty-contents", "server", transports=BOTH_TRANSPORTS)
def test_an_unknown_resource_is_not_read_as_empty_contents(revision: str, transport: str, peer: Peer) -> None:
    offers(peer, "resources")
    response = read_unknown(peer)
    contents = response.get("result", {}).get("contents", None)
    assert contents != [], f"reading {UNKNOWN_RESOURCE} was answered with empty contents: {response}"


@for_req("resources-validate-uris", "server", transports=BOTH_TRANSPORTS)
def test_a_malformed_resource_uri_is_refused(revision: str, transport: str, peer: Peer) -> None:
    peer.open()
    response = read(peer, MALFORMED_URI)
    assert "error" in response and "result" not in response, f"reading {MALFORMED_URI!r} was answered {response}"


@for_req("resources-binary-encoding", "server", transports=BOTH_TRANSPORTS)
def test_binary_resource_contents_are_base64(revision: str, transport: str, peer: Peer) -> None:
    peer.open()
    blobs: dict[str, object] = {}
    for resource in listed(peer, "resources/list"):
        response = read(peer, resource.get("uri", ""))
        for item in response.get("result", {}).get("contents", []):
            if "blob" in item:
                blobs[item.get("uri", resource.get("uri"))] = item["blob"]
    if not blobs:
        pytest.skip("fixture-missing: no listed resource reads as binary (blob) contents")
    bad = {uri: str(blob)[:60] for uri, blob in blobs.items() if not is_base64(blob)}
    assert not bad, f"blob contents that are not base64: {bad}"
