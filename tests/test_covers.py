"""Coverage modules and for_req: the run is built from the covers, so the two cannot drift."""

from __future__ import annotations

import types
from pathlib import Path

import pytest
from conftest import make_build, row

from conformance.catalogue.errors import InputErrors
from conformance.harness.faults import http_status, set_field
from conformance.matrix import covers
from conformance.matrix.covers import Cover, Gap, for_req, load_coverage

TEST = "tests/test_covers.py::sample"


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text)
    return path


def test_a_coverage_module_that_fails_to_load_is_named_with_its_line(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tools.py",
        "from conformance.matrix.covers import Gap\n\n"
        "GAPS = [Gap('tools-x', 'server', '#3', 'w', revisions='2030-01-01')]\n",
    )
    with pytest.raises(InputErrors) as caught:
        load_coverage(tmp_path)
    assert f"{tmp_path / 'tools.py'}:3: cannot load coverage module: unknown revision '2030-01-01'" in str(caught.value)


def test_a_coverage_module_declaring_nothing_or_the_wrong_thing_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "empty.py", "X = 1\n")
    write(tmp_path, "wrong.py", "COVERS = ['tools-x']\n")
    with pytest.raises(InputErrors) as caught:
        load_coverage(tmp_path)
    assert "defines neither COVERS nor GAPS" in str(caught.value)
    assert "COVERS holds 'tools-x', which is not a Cover" in str(caught.value)


def test_declarations_record_where_they_were_written() -> None:
    cover = Cover("lifecycle-initialize-first", "server", TEST)
    assert cover.path == __file__ and cover.line > 0


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch, clean_environment: None):
    """Point for_req at an in-memory catalogue and coverage instead of the committed ones."""

    def install(*declarations: Cover | Gap, side: str = "both") -> None:
        build = make_build(row(side=side), covers=(), gaps=())
        coverage = covers.Coverage(
            tuple(d for d in declarations if isinstance(d, Cover)), tuple(d for d in declarations if isinstance(d, Gap))
        )
        requirements = {r["id"]: r for r in build.requirements["requirements"]}
        monkeypatch.setattr(covers, "registry", lambda: (requirements, coverage))

    return install


def sample(revision: str) -> None:
    """A stand-in test function; its node id is ``TEST``."""


def parametrised(requirement: str, side: str) -> list:
    """The params for_req gives a fresh copy of ``sample`` (marks accumulate on a function)."""
    fresh = types.FunctionType(sample.__code__, sample.__globals__, "sample")
    fresh.__qualname__ = "sample"
    (mark,) = [m for m in for_req(requirement, side)(fresh).pytestmark if m.name == "parametrize"]
    return mark.args[1]


def test_for_req_runs_every_catalogue_revision_with_readable_ids(registry) -> None:
    registry(Cover("lifecycle-initialize-first", "server", TEST))
    params = parametrised("lifecycle-initialize-first", "server")
    assert [p.id for p in params] == [
        f"{rev}/lifecycle/lifecycle-initialize-first"
        for rev in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
    ]


def test_for_req_runs_only_the_revisions_its_cover_claims(registry) -> None:
    registry(Cover("lifecycle-initialize-first", "server", TEST, revisions="2025-06-18.."))
    params = parametrised("lifecycle-initialize-first", "server")
    assert [p.values[0] for p in params] == ["2025-06-18", "2025-11-25"]


def test_a_gapped_cell_is_marked_with_its_reference_and_reason(registry) -> None:
    registry(
        Cover("lifecycle-initialize-first", "server", TEST),
        Gap("lifecycle-initialize-first", "server", "F-001", "broken", revisions="2024-11-05"),
    )
    first, second = parametrised("lifecycle-initialize-first", "server")[:2]
    assert [(m.args, m.kwargs) for m in first.marks if m.name == "gapped"] == [(("F-001",), {"why": "broken"})]
    assert not [m for m in second.marks if m.name == "gapped"]


def test_each_further_fault_of_a_cell_is_an_item_of_its_own_that_only_falsify_runs(registry) -> None:
    """Two covers of one test, each with its fault (the status half and the body half of a check): the
    cell's own item carries the first; the second is an item of its own, marked so that only --falsify
    collects it."""
    status, body = http_status("ping", 200), set_field("ping", "error.code", -32600)
    registry(
        Cover("lifecycle-initialize-first", "server", TEST, revisions="2025-11-25", fault=status),
        Cover("lifecycle-initialize-first", "server", TEST, revisions="2025-11-25", fault=body),
    )
    params = parametrised("lifecycle-initialize-first", "server")
    assert [p.id for p in params] == [
        "2025-11-25/lifecycle/lifecycle-initialize-first",
        "2025-11-25/lifecycle/lifecycle-initialize-first+fault2",
    ]
    markers = [next(m for m in p.marks if m.name == "requirement").kwargs for p in params]
    assert markers == [{"fault": status, "further_fault": False}, {"fault": body, "further_fault": True}]


def test_for_req_refuses_a_side_the_requirement_does_not_bind(registry) -> None:
    registry(side="server")
    with pytest.raises(ValueError, match="does not bind the client"):
        for_req("lifecycle-initialize-first", "client")


def test_for_req_refuses_an_unknown_requirement(registry) -> None:
    registry()
    with pytest.raises(LookupError, match="unknown requirement id 'lifecycle-nope'"):
        for_req("lifecycle-nope", "server")


def test_for_req_over_transports_runs_each_cell_on_each(registry) -> None:
    registry(Cover("lifecycle-initialize-first", "server", TEST, revisions="2025-11-25"))
    fresh = types.FunctionType(sample.__code__, sample.__globals__, "sample")
    fresh.__qualname__ = "sample"
    decorated = for_req("lifecycle-initialize-first", "server", transports=("stdio", "streamable-http"))(fresh)
    (mark,) = [m for m in decorated.pytestmark if m.name == "parametrize"]
    assert mark.args[0] == ("revision", "transport")
    assert [p.id for p in mark.args[1]] == [
        "2025-11-25/lifecycle/lifecycle-initialize-first@stdio",
        "2025-11-25/lifecycle/lifecycle-initialize-first@streamable-http",
    ]
