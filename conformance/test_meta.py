"""_meta: what the reserved keys carry (docs/spec/requirements.md, meta)."""

from __future__ import annotations

import re

import pytest

from conformance.covers import for_req
from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.http import HttpPeer
from conformance.harness.peer import Peer
from conformance.harness.wire import SAMPLING_TOOL, require_tools

SERVER_INFO = "io.modelcontextprotocol/serverInfo"


@for_req("meta-server-info-every-result", "server", transports=BOTH_TRANSPORTS)
def test_every_result_names_the_server(revision: str, transport: str, peer: Peer) -> None:
    for method in ("server/discover", "tools/list", "prompts/list"):
        result = peer.rpc(method, check=False).get("result")
        assert isinstance(result, dict), f"{method} failed"
        info = (result.get("_meta") or {}).get(SERVER_INFO)
        assert isinstance(info, dict), f"{method}: no _meta {SERVER_INFO} in {result}"
        assert isinstance(info.get("name"), str) and isinstance(info.get("version"), str), info


# -- the per-request _meta envelope of 2026-07-28 ----------------------------------------------------------


def without_meta(peer: Peer) -> dict:
    """A tools/list that lacks the required ``_meta`` envelope, and its answer."""
    peer.send_request({"jsonrpc": "2.0", "id": "bare", "method": "tools/list", "params": {}})
    return peer.expect_response("bare")


@for_req("meta-missing-required-field-invalid-params", "server", transports=BOTH_TRANSPORTS)
def test_a_request_without_its_meta_envelope_gets_minus_32602(revision: str, transport: str, peer: Peer) -> None:
    error = without_meta(peer).get("error")
    assert isinstance(error, dict) and error.get("code") == -32602, f"answered {error}"


@for_req("meta-missing-required-field-http-400", "server")
def test_a_request_without_its_meta_envelope_gets_400(revision: str, http_server: HttpPeer) -> None:
    frame = {"jsonrpc": "2.0", "id": "bare", "method": "tools/list", "params": {}}
    exchange = http_server.exchange("POST", frame, http_server.headers_for(frame))
    assert exchange.status == 400, f"a request without _meta was answered {exchange.status}"


def sampling_without_the_capability(peer: Peer) -> dict:
    require_tools(peer, SAMPLING_TOOL)
    return peer.rpc("tools/call", {"name": SAMPLING_TOOL, "arguments": {"prompt": "Say hello"}}, check=False)


@for_req("meta-missing-client-capability-error", "server", transports=BOTH_TRANSPORTS)
def test_a_request_needing_an_undeclared_capability_gets_minus_32021(revision: str, transport: str, peer: Peer) -> None:
    error = sampling_without_the_capability(peer).get("error")
    assert isinstance(error, dict) and error.get("code") == -32021, f"answered {error}"


@for_req("meta-missing-client-capability-http-400", "server")
def test_a_missing_client_capability_gets_400(revision: str, http_server: HttpPeer) -> None:
    sampling_without_the_capability(http_server)
    post = http_server.exchanges[-1]
    assert post.status == 400, f"a request needing an undeclared capability was answered {post.status}"


# -- the names of the _meta keys a server writes (2025-06-18 on) ----------------------------------------------

META_KEY = re.compile(r"^(?:(?P<prefix>[^/]+)/)?(?P<name>.*)$")
LABEL = re.compile(r"^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$")
NAME_ENDS = re.compile(r"^[A-Za-z0-9](?:.*[A-Za-z0-9])?$")


def meta_keys_written(peer: Peer) -> list[str]:
    """Every key of every ``_meta`` object in the server's answers to a few requests."""
    peer.open()
    keys: list[str] = []

    def collect(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("_meta"), dict):
                keys.extend(node["_meta"])
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    for method in ("server/discover", "tools/list") if peer.stateless else ("tools/list", "prompts/list"):
        collect(peer.rpc(method, check=False))
    if not keys:
        pytest.skip("fixture-missing: the server wrote no _meta keys in these answers")
    return keys


@for_req("meta-key-prefix-labels", "server", transports=BOTH_TRANSPORTS)
def test_meta_key_prefixes_are_dot_separated_labels(revision: str, transport: str, peer: Peer) -> None:
    for key in meta_keys_written(peer):
        prefix = META_KEY.match(key)["prefix"]  # type: ignore[index]
        assert prefix is None or all(prefix.split(".")), f"_meta key {key!r}: prefix is not dot-separated labels"


@for_req("meta-key-prefix-label-characters", "server", transports=BOTH_TRANSPORTS)
def test_meta_key_prefix_labels_are_well_formed(revision: str, transport: str, peer: Peer) -> None:
    for key in meta_keys_written(peer):
        prefix = META_KEY.match(key)["prefix"]  # type: ignore[index]
        bad = [label for label in (prefix or "").split(".") if prefix and not LABEL.match(label)]
        assert not bad, f"_meta key {key!r}: labels {bad}"


@for_req("meta-key-name-alphanumeric-ends", "server", transports=BOTH_TRANSPORTS)
def test_meta_key_names_start_and_end_alphanumeric(revision: str, transport: str, peer: Peer) -> None:
    for key in meta_keys_written(peer):
        name = META_KEY.match(key)["name"]  # type: ignore[index]
        assert not name or NAME_ENDS.match(name), f"_meta key {key!r}: name {name!r}"
