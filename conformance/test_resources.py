"""Resources, server side: the capability, ``resources/list``, ``resources/read`` and its errors.

Each test holds the server under test to one requirement of docs/spec/requirements.md
(resources), at every revision its cover claims (see coverage/resources.py). The resources read
are the one the profile binds to ``static-text-resource`` (the official suite's ``test://static-text``)
and every resource the server lists; the list changes by the tool of ``resource-list-changer``.
"""

from __future__ import annotations

import base64
import posixpath
import re
from urllib.parse import urlsplit

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import Peer
from conformance.harness.roles import bound, require_role
from conformance.harness.surface import (
    assert_available_is_listed,
    assert_capability_declared,
    assert_list_changed_announced,
    assert_list_connection_independent,
    check_list_may_be_empty,
    check_list_may_change,
    is_base64,
    list_items,
    listed,
    offers,
)
from conformance.matrix.covers import for_req
from conformance.run.plugin import SessionFactory

UNKNOWN_RESOURCE = "test://mcp-matrix/no-such-resource"
INTERNAL_ERROR = -32603
TEMPLATE_EXPRESSION = re.compile(r"\{[^}]*\}")  # an RFC 6570 expression, whatever its operator
# Directory traversal (2026-07-28 resources#security-considerations): a path that climbs out of any
# directory to this machine's password file, plain and percent-encoded. The harness runs on the same
# machine as the server (loopback only), so a line of that file in an answer is the file itself.
TRAVERSALS = ("../" * 12 + "etc/passwd", "%2e%2e/" * 12 + "etc/passwd", "..%2f" * 12 + "etc%2fpasswd")
PASSWD = "/etc/passwd"
PASSWD_ROOT_LINE = re.compile(r"^root:[^:\n]*:0:0:", re.MULTILINE)
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


def expand(template: str, value: str = "mcp-matrix") -> str:
    """A URI of ``template``: every expression replaced by ``value`` (enough for a template's read)."""
    return TEMPLATE_EXPRESSION.sub(value, template)


@for_req("resources-internal-error-code", "server", transports=BOTH_TRANSPORTS)
def test_a_read_failing_inside_the_server_gets_minus_32603(revision: str, transport: str, peer: Peer) -> None:
    bound(peer, "failing-resource")
    peer.open()
    uri = expand(require_role(peer, "failing-resource").name)
    code = error_code(read(peer, uri))
    assert code == INTERNAL_ERROR, f"reading {uri}, which fails inside the server, was refused with code {code}"


def file_uris(peer: Peer) -> list[str]:
    """URIs under the server's ``file://`` resources and templates that climb out of their directory."""
    peer.open()
    uris = []
    for resource in list_items(peer, "resources/list") or []:
        uri = resource.get("uri")
        if isinstance(uri, str) and uri.startswith("file://"):
            base = uri.rstrip("/") + "/"
            uris += [base + climb for climb in TRAVERSALS]
            uris += [uri.rsplit("/", 1)[0] + "/" + climb for climb in TRAVERSALS]
    for template in list_items(peer, "resources/templates/list") or []:
        pattern = template.get("uriTemplate")
        if isinstance(pattern, str) and pattern.startswith("file://"):
            uris += [expand(pattern, climb) for climb in TRAVERSALS]
    if not uris:
        pytest.skip("fixture-missing: the server lists no file:// resources or templates")
    served = served_directories(peer)
    if any(directory == PASSWD or PASSWD.startswith(directory.rstrip("/") + "/") for directory in served):
        pytest.skip(f"fixture-missing: {PASSWD} lies within the directories the server serves ({sorted(served)})")
    return list(dict.fromkeys(uris))


def served_directories(peer: Peer) -> set[str]:
    """The directories of the server's listed file:// resources, and the fixed part of its file:// templates:
    reading a file within any of them is no escape (a server may serve several)."""
    paths = [str(r.get("uri")) for r in list_items(peer, "resources/list") or []]
    paths += [str(t.get("uriTemplate")).split("{", 1)[0] for t in list_items(peer, "resources/templates/list") or []]
    return {posixpath.dirname(urlsplit(p).path) or "/" for p in paths if p.startswith("file://")}


@for_req("resources-file-path-sanitized", "server", transports=BOTH_TRANSPORTS)
def test_a_file_path_cannot_climb_out_of_its_directory(revision: str, transport: str, peer: Peer) -> None:
    """Reads of the server's file:// resources with ``..`` segments climbing to /etc/passwd: an error, or
    contents of the server's own choosing, but never that file (the server runs on this machine)."""
    escaped = {}
    for uri in file_uris(peer):
        for item in read(peer, uri).get("result", {}).get("contents", []) or []:
            text = item.get("text") if isinstance(item, dict) else None
            if is_base64(item.get("blob") if isinstance(item, dict) else None):
                text = base64.b64decode(item["blob"]).decode("utf-8", "replace")
            if isinstance(text, str) and PASSWD_ROOT_LINE.search(text):
                escaped[uri] = text[:80]
    assert not escaped, f"file:// reads climbed out of their directory to /etc/passwd: {escaped}"


# -- permissions (MAY): a pass shows the server taking one; otherwise the cell is not-exercised ---------------


@for_req("resources-list-set-may-be-empty", "server", transports=BOTH_TRANSPORTS)
def test_the_resource_list_may_be_empty(revision: str, transport: str, peer: Peer) -> None:
    check_list_may_be_empty(peer, "resources", "resources/list")


@for_req("resources-list-set-may-change", "server")
def test_the_resource_list_may_change(revision: str, server: Peer) -> None:
    """The list before and after the change ``resource-list-changer`` makes."""
    check_list_may_change(server, "resources/list", "resource-list-changer")


@for_req("resources-read-multiple-contents", "server", transports=BOTH_TRANSPORTS)
def test_a_read_may_return_several_contents(revision: str, transport: str, peer: Peer) -> None:
    peer.open()
    counts = {}
    for resource in listed(peer, "resources/list"):
        contents = read(peer, resource.get("uri", "")).get("result", {}).get("contents")
        counts[resource.get("uri")] = len(contents) if isinstance(contents, list) else 0
    several = {uri: n for uri, n in counts.items() if n > 1}
    assert several, f"every listed resource reads as at most one content item: {counts}"


@for_req("resources-file-xdg-mime-type", "server", transports=BOTH_TRANSPORTS)
def test_file_resources_may_carry_an_xdg_mime_type(revision: str, transport: str, peer: Peer) -> None:
    """A permission: a ``file://`` resource (listed, or read) typed ``inode/...``, as a directory is."""
    peer.open()
    files = [r for r in list_items(peer, "resources/list") or [] if str(r.get("uri", "")).startswith("file://")]
    if not files:
        pytest.skip("fixture-missing: the server lists no file:// resources")
    types = {r.get("uri"): r.get("mimeType") for r in files}
    for resource in files:
        for item in read(peer, resource["uri"]).get("result", {}).get("contents", []) or []:
            if isinstance(item, dict) and item.get("mimeType"):
                types[item.get("uri", resource["uri"])] = item["mimeType"]
    xdg = {uri: kind for uri, kind in types.items() if isinstance(kind, str) and kind.startswith("inode/")}
    assert xdg, f"no file:// resource typed inode/...: {types}"
