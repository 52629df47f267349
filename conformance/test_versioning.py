"""Versioning (2026-07-28): an unsupported protocol version is refused, saying which ones are supported."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator

import pytest

from conformance.harness.exchanges import converse
from conformance.harness.frames import BOTH_TRANSPORTS, CLIENT_CAPABILITIES_META, initialize_params, modern_meta
from conformance.harness.http import HttpPeer
from conformance.harness.peer import Peer
from conformance.harness.schema import violations
from conformance.harness.scripted_server import Answer, ScriptedPeer, ScriptedServer, default_results
from conformance.harness.trace import Trace
from conformance.harness.wire import params_of
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, trace_goes

RunClient = Callable[[str], ClientRun]
MODERN = "2026-07-28"

UNSUPPORTED = "2099-01-01"


def request_at_an_unsupported_version(server: Peer) -> dict:
    return server.rpc("tools/list", {"_meta": modern_meta(UNSUPPORTED)}, check=False)


@for_req("versioning-unsupported-version-error", "server")
def test_an_unsupported_version_gets_minus_32022_listing_the_supported_ones(revision: str, server: Peer) -> None:
    error = request_at_an_unsupported_version(server).get("error")
    assert isinstance(error, dict), "a request at an unsupported version was not refused"
    assert error.get("code") == -32022, error
    supported = (error.get("data") or {}).get("supported")
    assert isinstance(supported, list) and revision in supported, f"data.supported is {supported!r}"


@for_req("versioning-unsupported-version-error", "server")
def test_an_unsupported_version_gets_the_schemas_unsupported_version_error(revision: str, server: Peer) -> None:
    response = request_at_an_unsupported_version(server)
    assert "error" in response, f"a request at an unsupported version was answered {response}"
    problems = violations(revision, "UnsupportedProtocolVersionError", response)
    assert not problems, "\n".join(problems)


# -- the client: negotiating a version, and remembering the era ------------------------------------------

LEGACY = "2025-11-25"
FUTURE = "2099-01-01"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"


def version_of(frame: dict) -> str | None:
    """The protocol version a client request proposes: its ``_meta`` envelope's, or initialize's."""
    params = params_of(frame)
    if frame.get("method") == "initialize":
        return params.get("protocolVersion")
    return (params.get("_meta") or {}).get(PROTOCOL_VERSION)


def refuse_first_request(server: ScriptedServer, supported: list[str]) -> None:
    """The scripted server answers the client's first request, whatever it is, with UnsupportedProtocolVersion
    naming ``supported``; later requests get their usual answers (initialize at 2025-11-25)."""
    first = threading.Event()
    legacy = default_results(LEGACY)["initialize"]

    def wrap(method: str, answer: Answer) -> Answer:
        def answered(frame: dict) -> dict:
            if not first.is_set():
                first.set()
                requested = version_of(frame) or MODERN
                data = {"supported": supported, "requested": requested}
                return {"error": {"code": -32022, "message": "Unsupported protocol version.", "data": data}}
            return answer(frame)

        return answered

    server.answers["initialize"] = legacy
    server.answers = {method: wrap(method, answer) for method, answer in server.answers.items()}


@for_req("versioning-client-retry-supported-version", "client")
def test_the_client_retries_at_a_shared_version_or_gives_up(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Refused with -32022: when the server names a version the client also speaks (2025-11-25), the
    client's next request proposes it; when it names only one nobody speaks, the client stops with an
    error, proposing nothing the server refused."""
    refuse_first_request(scripted_server, [LEGACY])
    run_client("initialize").require_completed()
    requests = scripted_server.requests()
    assert len(requests) > 1, f"the client did not retry after -32022: {requests}"
    assert version_of(requests[1]) == LEGACY, f"the retry proposes {version_of(requests[1])!r}: {requests[1]}"

    refuse_first_request(scripted_server, [FUTURE])
    before = len(scripted_server.requests())
    run = run_client("initialize")
    later = scripted_server.requests()[before + 1 :]
    assert not run.completed, "the client carried on although it shares no version with the server"
    assert not [r for r in later if version_of(r) not in (None, FUTURE)], f"after -32022 the client sent {later}"


@for_req("versioning-discover-optional-for-client", "client")
def test_the_client_may_discover_first_or_not_at_all(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Both ways are open, in the client's default mode and pinned to 2026-07-28 (where the SDK skips the
    probe): a discovery, when the client makes one, comes before any other request, and either way the
    client's request goes through."""
    for scenario in ("initialize", "modern_only"):
        before = len(scripted_server.requests())
        run_client(scenario).require_completed()
        methods = [r["method"] for r in scripted_server.requests()[before:]]
        assert "tools/list" in methods, f"{scenario}: the client did not send its request: {methods}"
        if "server/discover" in methods:
            assert methods[0] == "server/discover", f"{scenario}: discovery came after other requests: {methods}"


@for_req("versioning-era-cache", "client")
def test_the_client_probes_an_origin_once(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Two connections, one after the other, to the same HTTP origin (whose discovery result may be cached
    for a minute): the era found on the first serves the second, which does not probe again."""
    discover = scripted_server.answers["server/discover"]
    scripted_server.answers["server/discover"] = lambda frame: discover(frame) | {"ttlMs": 60_000}
    run_client("reconnect").require_completed()
    methods = [r["method"] for r in scripted_server.requests()]
    probes = [m for m in methods if m in ("server/discover", "initialize")]
    assert methods.count("tools/list") == 2, f"the client did not connect twice: {methods}"
    assert len(probes) == 1, f"the client probed the origin {len(probes)} times: {methods}"


@for_req("versioning-era-persist-allowed", "client")
def test_a_kept_era_is_used_and_probed_again_when_it_fails(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """A client starting from a 2026-07-28 era kept from an earlier run goes straight to its request at a
    server still of that era; at the same origin turned 2025-11-25, whose answer shows the kept era no
    longer holds, it probes again (server/discover or initialize)."""
    run_client("persisted_era").require_completed()
    kept = [r["method"] for r in scripted_server.requests()]
    assert kept == ["tools/list"], f"with a kept era the client sent {kept}"

    scripted_server.revision = LEGACY
    scripted_server.answers = default_results(LEGACY)
    run_client("persisted_era")
    after = [r["method"] for r in scripted_server.requests()[len(kept) :]]
    assert after[:1] == ["tools/list"], f"the client did not start from its kept era: {after}"
    assert {"server/discover", "initialize"} & set(after[1:]), f"refused, the client did not probe again: {after}"


# -- extensions -----------------------------------------------------------------------------------------

EXTENSION_KEY = re.compile(r"^(?P<prefix>[^/]+)/(?P<name>.*)$")
LABEL = re.compile(r"^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$")
NAME = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$")
CORE_RESULT_TYPES = {"complete", "input_required"}


def check_extension_identifiers(identifiers: list[str]) -> None:
    """The _meta key grammar, with the prefix mandatory."""
    for identifier in identifiers:
        match = EXTENSION_KEY.match(identifier)
        assert match, f"extension identifier {identifier!r} has no prefix"
        bad = [label for label in match["prefix"].split(".") if not LABEL.match(label)]
        assert not bad, f"extension identifier {identifier!r}: prefix labels {bad}"
        assert NAME.match(match["name"]), f"extension identifier {identifier!r}: name {match['name']!r}"


@for_req("versioning-extension-identifier-format", "client", transports=BOTH_TRANSPORTS)
def test_the_clients_extension_identifiers_are_well_formed(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    run_peer_client("with_extension").require_completed()
    identifiers = [
        key
        for request in scripted_peer.requests()
        for key in ((params_of(request).get("_meta") or {}).get(CLIENT_CAPABILITIES_META) or {}).get("extensions") or {}
    ]
    if not identifiers:
        pytest.skip("fixture-missing: the client declared no extension")
    check_extension_identifiers(identifiers)


@for_req("versioning-extension-identifier-format", "server", transports=BOTH_TRANSPORTS)
def test_the_servers_extension_identifiers_are_well_formed(revision: str, transport: str, peer: Peer) -> None:
    capabilities = peer.rpc("server/discover", check=False).get("result", {}).get("capabilities") or {}
    identifiers = list(capabilities.get("extensions") or {})
    if not identifiers:
        pytest.skip("fixture-missing: the server declares no extension")
    check_extension_identifiers(identifiers)


@for_req("versioning-extension-unsupported-fallback", "client", transports=BOTH_TRANSPORTS)
def test_a_client_extension_the_server_lacks_leaves_core_protocol(
    revision: str, transport: str, run_peer_client: RunClient, scripted_peer: ScriptedPeer
) -> None:
    """The client advertises an extension the scripted server does not: it goes on in core protocol (every
    frame valid by the core schema) and its scenario works."""
    run_peer_client("with_extension").judge(lambda: check_core_protocol_only(scripted_peer))


def check_core_protocol_only(server: ScriptedPeer) -> None:
    methods = [r["method"] for r in server.requests()]
    assert "tools/call" in methods, f"the client did not get through its scenario: {methods}"
    assert not server.violations, "\n".join(server.violations)


@for_req("versioning-extension-unsupported-fallback", "server", transports=BOTH_TRANSPORTS)
def test_a_server_extension_the_client_lacks_leaves_core_protocol(revision: str, transport: str, peer: Peer) -> None:
    """The server supports an extension the harness never declares: every answer is core protocol, a
    result of a core resultType or an error, and nothing it sends invokes the extension."""
    capabilities = peer.rpc("server/discover", check=False).get("result", {}).get("capabilities") or {}
    extensions = list(capabilities.get("extensions") or {})
    if not extensions:
        pytest.skip("fixture-missing: the server declares no extension")
    wire = converse(peer)
    for frame in (seen.frame for seen in wire.seen):
        if (wire.sent.get(frame.get("id")) or {}).get("method") == "server/discover":
            continue  # where the server advertises what it supports
        if "result" in frame:
            assert frame["result"].get("resultType") in CORE_RESULT_TYPES, f"not a core result: {frame}"
        assert not [e for e in extensions if e in json.dumps(frame)], f"the extension shows in {frame}"


# -- the server: both eras -----------------------------------------------------------------------------------


@pytest.fixture
def legacy_http(http_server_url: str, http_server: HttpPeer, request: pytest.FixtureRequest) -> Iterator[HttpPeer]:
    """A 2025-11-25 session with the Streamable HTTP server under test, beside the test's own; its trace
    is kept only if the test fails."""
    trace = Trace(http_server.trace.path.with_suffix(".legacy.jsonl"), "streamable-http")
    with HttpPeer(http_server_url, trace, LEGACY) as peer:
        yield peer
    if trace_goes(request):
        trace.path.unlink(missing_ok=True)


@pytest.fixture
def legacy_peer(transport: str, request: pytest.FixtureRequest) -> Iterator[Peer]:
    """A 2025-11-25 session with the server under test, over the test's transport, beside its own."""
    if transport == "stdio":
        with request.getfixturevalue("open_session")(LEGACY) as session:
            yield session
    else:
        yield request.getfixturevalue("legacy_http")


def serves_legacy(peer: Peer) -> None:
    result = peer.initialize(check=False)
    assert result.get("protocolVersion") == LEGACY, f"initialize at {LEGACY} was answered {result}"
    listed = peer.rpc("tools/list", check=False)
    assert "result" in listed, f"a {LEGACY} session's tools/list was answered {listed}"


def serves_modern(peer: Peer) -> None:
    discovered = peer.rpc("server/discover", check=False)
    assert MODERN in (discovered.get("result") or {}).get("supportedVersions", []), discovered
    listed = peer.rpc("tools/list", check=False)
    assert "result" in listed, f"a {MODERN} tools/list was answered {listed}"


@for_req("versioning-dual-era-server-allowed", "server", transports=BOTH_TRANSPORTS)
def test_the_server_serves_both_eras(revision: str, transport: str, peer: Peer, legacy_peer: Peer) -> None:
    """The same server, over the same transport: a client with the initialize handshake and a client with
    the per-request envelope are each served."""
    serves_legacy(legacy_peer)
    serves_modern(peer)


@for_req("versioning-dual-era-concurrent-allowed", "server")
def test_the_server_serves_both_eras_at_once(revision: str, http_server: HttpPeer, legacy_http: HttpPeer) -> None:
    """One endpoint, one process: a 2025-11-25 session stays open while 2026-07-28 requests come and go,
    and each keeps being served in its own era."""
    serves_legacy(legacy_http)
    serves_modern(http_server)
    listed = legacy_http.rpc("tools/list", check=False)
    assert "result" in listed and "resultType" not in listed["result"], f"the legacy session got {listed}"
    modern = http_server.rpc("tools/list", check=False)
    assert (modern.get("result") or {}).get("resultType") == "complete", f"the modern request got {modern}"


@for_req("versioning-modern-only-initialize-error", "server")
def test_a_modern_only_server_names_its_versions_when_refusing_initialize(revision: str, server: Peer) -> None:
    """A stdio connection opened with a 2026-07-28 request is served at 2026-07-28 only: the server is
    modern-only there, and its refusal of a later initialize names the versions it supports."""
    opened = server.rpc("server/discover", check=False)
    supported = (opened.get("result") or {}).get("supportedVersions") or [MODERN]
    refused = server.request("initialize", initialize_params(LEGACY), check=False)
    if "result" in refused:
        pytest.skip("fixture-missing: the server took initialize on a connection opened at 2026-07-28")
    error = refused.get("error") or {}
    named = json.dumps([error.get("message"), error.get("data")])
    assert any(version in named for version in supported), f"the refusal names none of {supported}: {error}"
