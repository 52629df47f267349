"""Fixture roles: what an official fixture name implies, the profile's roles: and their refusals by line,
the lookups tests make, and a role the profile lacks reported as fixture-missing end to end."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputErrors
from conformance.harness.roles import ROLES, bind, optional_roles, require_role, require_roles, roles_of_official
from conformance.run import targets
from tests.project_copy import pytest_in


def profile(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "target.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_every_role_is_described_with_its_kind() -> None:
    for role in ROLES.values():
        assert role.kind in ("tool", "prompt", "resource", "resource-template"), role
        assert role.behaviour and "\n" not in role.behaviour, role


def test_an_official_name_implies_only_its_roles(tmp_path: Path) -> None:
    assert roles_of_official("test_sampling") == ("sampling-tool",)  # not sampling-required-tool
    assert roles_of_official("test_missing_capability") == ("sampling-required-tool",)
    assert roles_of_official("test_timed_request") == ()  # the project's own name: no role unless mapped
    assert roles_of_official("test_cancellable_operation") == ()
    target = targets.load(profile(tmp_path, "name: other\nfixtures: [test_sampling, test_timed_request]\n"))
    assert set(target.roles) == {"sampling-tool"}
    assert target.roles["sampling-tool"].name == "test_sampling"
    assert target.roles["sampling-tool"].arguments == {"prompt": "Say hello"}


def test_roles_map_the_targets_own_names_and_win_over_official_ones(tmp_path: Path) -> None:
    path = profile(
        tmp_path,
        """name: other
fixtures: [test_sampling, test_tool_with_progress]
roles:
  progress-tool: long_task
  slow-tool: {name: long_task, arguments: {seconds: 3}}
  sampling-required-tool: {name: test_sampling, arguments: {prompt: hi}}
  static-text-resource: "file:///readme.txt"
""",
    )
    roles = targets.load(path).roles
    assert roles["progress-tool"].name == "long_task" and roles["progress-tool"].source == "roles:"
    assert roles["slow-tool"].arguments == {"seconds": 3}, "a profile's arguments replace the role's own"
    assert roles["sampling-required-tool"].name == "test_sampling"
    assert roles["sampling-tool"].source == "fixtures: test_sampling"
    assert roles["static-text-resource"].kind == "resource"


# Roles the default fixture cannot play, each because the pinned SDK offers no such behaviour on its public
# API; the cells that need them are the default profile's own gaps (targets/sdk-python.yaml).
NOT_PLAYED_BY_THE_FIXTURE = {
    "task-sampling-tool": "the SDK offers no tasks",
    "input-task-tool": "the SDK offers no tasks",
}


def test_the_default_profile_maps_every_role_its_tests_need_of_the_fixture() -> None:
    roles = targets.load(targets.resolve(None)).roles
    assert set(roles) == set(ROLES) - set(NOT_PLAYED_BY_THE_FIXTURE)
    assert roles["sampling-required-tool"].name == "test_sampling", "the fixture's test_sampling refuses"
    assert roles["slow-tool"].name == "test_cancellable_operation"


def test_a_bad_roles_entry_is_refused_with_its_line(tmp_path: Path) -> None:
    path = profile(
        tmp_path,
        """name: other
roles:
  progress-tool: long_task
  teleporter: beam
  slow-tool: [long_task]
  simple-tool: {name: echo, argumnets: {}}
  sampling-tool: {name: sample, arguments: [1]}
  simple-prompt: ""
""",
    )
    with pytest.raises(InputErrors) as caught:
        targets.load(path)
    messages = {f"{e.line}: {e.message}" for e in caught.value.errors}
    assert any(m.startswith("4: unknown role 'teleporter' (known: ") for m in messages), messages
    for line, role in ((5, "slow-tool"), (6, "simple-tool"), (7, "sampling-tool"), (8, "simple-prompt")):
        assert any(m.startswith(f"{line}: 'roles.{role}' must be the target's") for m in messages), messages
    assert len(messages) == 5 and all(str(e.path) == str(path) for e in caught.value.errors)
    with pytest.raises(InputErrors, match=r":2: 'roles' must map roles to names"):
        targets.load(profile(tmp_path, "name: other\nroles: [progress-tool]\n"))


def test_a_command_line_server_keeps_no_role_of_the_fixture() -> None:
    default = targets.load(targets.resolve(None))
    assert default.with_command_line("my-server", None, None).roles == {}


class ListingPeer:
    """A peer whose server lists ``tools``: enough for the role lookups."""

    def __init__(self, roles: dict[str, Any], tools: list[str]) -> None:
        self.roles = roles
        self.tools = tools
        self.requests: list[str] = []

    def rpc(self, method: str, params: dict | None = None, *, check: bool = True) -> dict:
        self.requests.append(method)
        key = {"tools/list": "tools", "prompts/list": "prompts"}.get(method, "resources")
        naming = "uri" if key == "resources" else "name"
        return {"result": {key: [{naming: name} for name in self.tools]}}


def test_a_role_the_profile_lacks_is_fixture_missing_before_anything_is_sent() -> None:
    peer = ListingPeer({"simple-tool": bind("simple-tool", "echo")}, ["echo"])
    with pytest.raises(pytest.skip.Exception, match=r"^fixture-missing: target's profile maps no progress-tool$"):
        require_roles(peer, "simple-tool", "progress-tool")
    assert peer.requests == [], "the profile is read before the server is asked anything"


def test_a_role_mapped_to_a_name_the_server_does_not_list_fails() -> None:
    peer = ListingPeer({"progress-tool": bind("progress-tool", "long_task")}, ["echo"])
    with pytest.raises(pytest.fail.Exception, match=r"maps progress-tool to the tool long_task .* does not list it"):
        require_role(peer, "progress-tool")
    assert optional_roles(peer, "progress-tool") == []


def test_a_listed_role_comes_with_its_list_entry_and_arguments() -> None:
    peer = ListingPeer({"sampling-tool": bind("sampling-tool", "ask")}, ["ask", "echo"])
    tool = require_role(peer, "sampling-tool")
    assert tool.name == "ask" and tool.listing == {"name": "ask"}
    assert tool.args() == {"prompt": "Say hello"} and tool.args(prompt="x") == {"prompt": "x"}


def test_a_role_the_profile_lacks_is_reported_fixture_missing_end_to_end(tmp_path: Path) -> None:
    """The fixture server with a profile that offers one official name and maps no role: the progress
    test (which needs progress-tool) is fixture-missing, naming the role; the simple tool's test runs."""
    path = profile(tmp_path, "name: no-roles\nserver: {stdio: fixture}\nfixtures: [test_simple_text]\n")
    junit = tmp_path / "junit.xml"
    result = pytest_in(
        PROJECT_ROOT,
        "-p",
        "no:xdist",
        "-p",
        "no:cacheprovider",
        "--target",
        str(path),
        f"--junitxml={junit}",
        "conformance/test_progress.py::test_progress_notifications_carry_token_progress_and_total",
        "conformance/test_tools.py::test_an_error_inside_a_tool_is_a_result_with_is_error",
        "conformance/test_cancellation.py::test_a_cancellation_that_crosses_the_response_does_no_harm",
        "-k",
        "2025-11-25 and stdio",
        MCP_MATRIX_REPORTS=str(tmp_path / "reports"),
    )
    assert result.returncode == 0, result.stdout[-3000:]
    cases = {case.get("name", ""): case for case in ET.parse(junit).getroot().iter("testcase")}
    skipped = {name: case.find("skipped") for name, case in cases.items()}
    progress = next(s for name, s in skipped.items() if name.startswith("test_progress_notifications"))
    error = next(s for name, s in skipped.items() if name.startswith("test_an_error_inside"))
    race = next(s for name, s in skipped.items() if name.startswith("test_a_cancellation_that_crosses"))
    assert progress is not None and "fixture-missing: target's profile maps no progress-tool" in progress.get("message")
    assert error is not None and "target's profile maps no error-tool" in error.get("message")
    assert race is None, "simple-tool is what test_simple_text plays: that test runs"
    assert "fixture missing 2" in result.stdout, result.stdout[-2000:]
