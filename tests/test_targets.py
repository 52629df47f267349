"""Target profiles: loading, refusals by file and line, and which gaps skip a cell for which target."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from conformance.catalogue.errors import InputErrors
from conformance.run import targets
from conformance.run.plugin import gap_reason, known_finding
from conformance.run.targets import FIXTURE, HttpServer, Target

REQUIREMENTS = {"lifecycle-initialize-first": {}, "ping-response": {}}


def profile(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "target.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_committed_profiles_load() -> None:
    for path in sorted(targets.TARGETS_DIR.glob("*.yaml")):
        assert targets.load(path).name == path.stem
    default = targets.load(targets.resolve(None))
    assert default.stdio == FIXTURE and default.offers_fixture("test_simple_text") and default.coverage_findings


def test_a_profile_with_everything(tmp_path: Path) -> None:
    path = profile(
        tmp_path,
        """name: other
server:
  stdio: "other-server --stdio"
  streamable-http: {command: "other-server --port {port}", url: "http://127.0.0.1:{port}/mcp", env: {A: "{port}"}}
client: "other-client"
fixtures: [test_simple_text]
gaps:
  - {requirement: ping-response, side: server, revisions: "2025-06-18..", ref: "upstream#7", why: "never answers"}
""",
    )
    target = targets.load(path, REQUIREMENTS)
    assert target.stdio == "other-server --stdio" and target.client == "other-client"
    assert target.http["streamable-http"] == HttpServer(
        "other-server --port {port}", "http://127.0.0.1:{port}/mcp", {"A": "{port}"}
    )
    assert target.offers_fixture("test_simple_text") and not target.offers_fixture("test_sampling")
    assert target.gap_of("ping-response", "2025-11-25", "server").ref == "upstream#7"
    assert target.gap_of("ping-response", "2025-03-26", "server") is None
    assert not target.offers_server("sse") and not target.coverage_findings


def test_every_fault_of_a_profile_is_refused_with_its_line(tmp_path: Path) -> None:
    path = profile(
        tmp_path,
        """name: ""
colour: blue
server:
  carrier-pigeon: "x"
  streamable-http: {port: 3}
fixtures: some
gaps:
  - {requirement: no-such-row, side: both, ref: "x", why: "y"}
  - {requirement: ping-response, side: server, revisions: "2030-01-01", why: "y"}
""",
    )
    with pytest.raises(InputErrors) as caught:
        targets.load(path, REQUIREMENTS)
    messages = [f"{e.line}: {e.message}" for e in caught.value.errors]
    assert "1: 'name' must be a non-empty string" in messages
    assert any(m.startswith("2: unknown key 'colour'") for m in messages)
    assert any(m.startswith("4: unknown server transport 'carrier-pigeon'") for m in messages)
    assert any(m.startswith("4: 'server.streamable-http' must be 'fixture' or a mapping") for m in messages)
    assert any(m.startswith("6: 'fixtures' must be a list") for m in messages)
    assert "8: gap: unknown side 'both'" in messages and "8: gap: unknown requirement id 'no-such-row'" in messages
    assert "9: gap: missing 'ref'" in messages and any(
        m.startswith("9: gap: unknown revision '2030-01-01'") for m in messages
    )
    assert all(str(e.path) == str(path) for e in caught.value.errors)


def test_an_unknown_profile_name_lists_the_known_ones() -> None:
    with pytest.raises(InputErrors, match=r"no such target profile .*sdk-python"):
        targets.load(targets.resolve("no-such-target"))


def test_command_line_servers_replace_the_fixture_and_assume_nothing_of_it() -> None:
    default = targets.load(targets.resolve(None))
    assert default.with_command_line(None, None, None) is default
    stdio_only = default.with_command_line("my-server", None, None)
    assert stdio_only.stdio == "my-server" and not stdio_only.offers_server("streamable-http")
    assert stdio_only.client is None and not stdio_only.offers_fixture("test_simple_text")
    assert not stdio_only.coverage_findings
    client_only = default.with_command_line(None, None, "my-client")
    assert client_only.client == "my-client" and client_only.stdio == FIXTURE and not client_only.coverage_findings


def item(requirement: str, revision: str, side: str, gapped: str | None = None, why: str = "") -> SimpleNamespace:
    marks = {"requirement": SimpleNamespace(args=(requirement, side), kwargs={})}
    if gapped:
        marks["gapped"] = SimpleNamespace(args=(gapped,), kwargs={"why": why})
    return SimpleNamespace(get_closest_marker=marks.get, callspec=SimpleNamespace(params={"revision": revision}))


def test_the_sdk_findings_skip_only_the_default_target_and_a_target_skips_its_own_gaps() -> None:
    default = targets.load(targets.resolve(None))
    other = Target(name="other", gaps=(targets.TargetGap("ping-response", "server", (), "up#1", "hangs"),))
    sdk_finding = item("lifecycle-initialize-first", "2024-11-05", "server", "F-001", "broken")
    assert gap_reason(sdk_finding, default) == "gap: F-001 broken"
    assert gap_reason(sdk_finding, other) is None
    untested = item("lifecycle-initialize-first", "2024-11-05", "server", "#3", "not yet")
    assert gap_reason(untested, other) == "gap: #3 not yet"
    assert gap_reason(item("ping-response", "2025-06-18", "server"), other) == "gap: up#1 hangs (target other)"
    assert gap_reason(item("ping-response", "2025-06-18", "server"), default) is None


def test_revisions_built_on_and_configurations(tmp_path: Path) -> None:
    path = profile(
        tmp_path,
        """name: other
server: {stdio: "other --stdio"}
revisions: {server: 2025-03-26..2025-11-25, client: [2025-11-25]}
built-on: mcp==2.3.0
configurations:
  bearer-token:
    token: abc
    streamable-http: {command: "other --token abc --port {port}", url: "http://127.0.0.1:{port}/mcp"}
""",
    )
    target = targets.load(path)
    assert target.revisions == {"server": ("2025-03-26", "2025-06-18", "2025-11-25"), "client": ("2025-11-25",)}
    assert target.built_on == "mcp==2.3.0"
    configured = target.configurations["bearer-token"]
    assert configured.values == {"token": "abc"} and configured.http["streamable-http"].url.endswith("{port}/mcp")


def test_a_configuration_may_state_its_optional_values_and_no_other(tmp_path: Path) -> None:
    """oauth-hosted's decided-by-the-suite is optional and kept with the values; no other configuration has it."""
    path = profile(
        tmp_path,
        """name: other
server: {stdio: "other --stdio"}
configurations:
  oauth-hosted:
    scopes: read
    decided-by-the-suite: refresh-token-rotation
    streamable-http: {url: "http://127.0.0.1:1/mcp"}
  oauth:
    scopes: read
    streamable-http: {url: "http://127.0.0.1:2/mcp"}
""",
    )
    configured = targets.load(path).configurations
    assert configured["oauth-hosted"].values == {"scopes": "read", "decided-by-the-suite": "refresh-token-rotation"}
    assert configured["oauth"].values == {"scopes": "read"}
    refused = profile(
        tmp_path,
        """name: other
configurations:
  oauth: {scopes: read, decided-by-the-suite: x, streamable-http: {url: "http://127.0.0.1:2/mcp"}}
""",
    )
    with pytest.raises(InputErrors, match=r"unknown keys \['decided-by-the-suite'\]"):
        targets.load(refused)


def test_bad_revisions_built_on_and_configurations_are_refused_with_their_lines(tmp_path: Path) -> None:
    path = profile(
        tmp_path,
        """name: other
revisions: {server: 2030-01-01, peer: 2025-11-25}
built-on: mcp
configurations:
  bearer-token: {streamable-http: {url: "http://127.0.0.1:1/mcp"}}
  warp-drive: {}
""",
    )
    with pytest.raises(InputErrors) as caught:
        targets.load(path)
    message = str(caught.value)
    assert f"{path}:2: 'revisions': unknown revision '2030-01-01'" in message
    assert f"{path}:2: 'revisions' names an unknown side 'peer'" in message
    assert f"{path}:3: 'built-on' must be a pinned requirement" in message
    assert f"{path}:5: 'configurations.bearer-token': unknown keys [], missing values ['token']" in message
    assert f"{path}:5: unknown configuration 'warp-drive'" in message


def test_a_target_built_on_the_sdk_shows_the_sdks_findings_as_known_upstream() -> None:
    finding = item("lifecycle-initialize-first", "2024-11-05", "server", "F-001", "broken")
    built_on_it = Target(name="app", built_on="mcp==2.3.0")
    assert known_finding(finding, built_on_it).startswith("F-001")
    assert gap_reason(finding, built_on_it) is None, "still judged: a known upstream finding fails all the same"
    assert known_finding(finding, Target(name="other", built_on="fastmcp==4.1.6")) == ""
    assert known_finding(finding, targets.load(targets.resolve(None))) == "", "the SDK's own cells are its gaps"
    untested = item("lifecycle-initialize-first", "2024-11-05", "server", "#3", "not yet")
    assert known_finding(untested, built_on_it) == ""


def test_a_gap_may_hold_for_some_transports_only(tmp_path: Path) -> None:
    path = profile(
        tmp_path,
        """name: other
gaps:
  - {requirement: ping-response, side: server, transports: [stdio], ref: F-1, why: w}
  - {requirement: ping-response, side: client, transports: [carrier-pigeon], ref: F-1, why: w}
""",
    )
    with pytest.raises(InputErrors, match=r"target.yaml:4: gap: 'transports' must be a list of stdio"):
        targets.load(path)
    path.write_text(path.read_text().splitlines(keepends=True)[0] + "".join(path.read_text().splitlines(True)[1:3]))
    gap = targets.load(path).gaps[0]
    assert gap.holds("ping-response", "2025-06-18", "server", "stdio")
    assert not gap.holds("ping-response", "2025-06-18", "server", "streamable-http")
