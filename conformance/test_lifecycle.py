"""Lifecycle: the initialize handshake, version negotiation, and 2026-07-28's ``server/discover``.

Each test holds the server under test to one requirement of docs/spec/requirements.md, at every
revision its cover claims (see coverage/lifecycle.py).
"""

from __future__ import annotations

from conformance.covers import for_req
from conformance.harness import schema
from conformance.harness.frames import UNKNOWN_VERSION, initialize_params, modern_meta
from conformance.harness.peer import Peer
from conformance.vocabulary import REVISIONS


@for_req("lifecycle-server-initialize-result", "server")
def test_initialize_result_is_the_revisions_initialize_result(revision: str, server: Peer) -> None:
    """The answer to initialize is an InitializeResult of the revision: version, capabilities, serverInfo."""
    response = server.request("initialize", initialize_params(revision), check=False)
    assert "result" in response, f"initialize at {revision} was refused: {response}"
    assert {"protocolVersion", "capabilities", "serverInfo"} <= response["result"].keys()
    problems = schema.violations(revision, "InitializeResult", response["result"])
    assert not problems, "\n".join(problems)


@for_req("lifecycle-server-version-echo", "server")
def test_initialize_echoes_a_supported_requested_version(revision: str, server: Peer) -> None:
    response = server.request("initialize", initialize_params(revision), check=False)
    assert response.get("result", {}).get("protocolVersion") == revision, response


@for_req("lifecycle-server-version-alternative", "server")
def test_initialize_with_an_unknown_version_proposes_a_supported_one(revision: str, server: Peer) -> None:
    response = server.request("initialize", initialize_params(UNKNOWN_VERSION), check=False)
    assert "result" in response, f"the server refused instead of proposing a version: {response}"
    proposed = response["result"].get("protocolVersion")
    assert proposed != UNKNOWN_VERSION and proposed in REVISIONS, f"proposed {proposed!r}"


@for_req("lifecycle-discover-implemented", "server")
def test_discover_answers_with_a_discover_result(revision: str, server: Peer) -> None:
    response = server.request("server/discover", {"_meta": modern_meta(revision)}, check=False)
    assert "result" in response, f"server/discover failed: {response}"
    problems = schema.violations(revision, "DiscoverResult", response["result"])
    assert not problems, "\n".join(problems)
    assert revision in response["result"]["supportedVersions"]


@for_req("lifecycle-discover-server-info", "server")
def test_discover_result_names_the_server(revision: str, server: Peer) -> None:
    response = server.request("server/discover", {"_meta": modern_meta(revision)}, check=False)
    info = response.get("result", {}).get("_meta", {}).get("io.modelcontextprotocol/serverInfo")
    assert isinstance(info, dict), f"no _meta serverInfo in {response}"
    assert isinstance(info.get("name"), str) and isinstance(info.get("version"), str), info
