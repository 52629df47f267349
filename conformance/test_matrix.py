"""The meta-test: the matrix's claims hold, one named rule a test (see conformance/matrix/rules.py).

``MATRIX_UPDATE=1`` regenerates requirements.json and the matrix docs first, so the rules then
judge the regenerated files; ``MATRIX_AREAS=a,b`` narrows the rules to those areas.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from conformance.matrix.build import build, write_files
from conformance.matrix.covers import load_coverage
from conformance.matrix.rules import RULES, MetaContext, areas_from_environment, collect_in_background, cover_files
from conformance.run.plugin import collected_node_ids


@pytest.fixture(scope="module")
def context(request: pytest.FixtureRequest) -> MetaContext:
    files = cover_files(load_coverage())
    # A whole run has already collected every covering test; only a narrower run collects again.
    collected = collected_node_ids(request.config, files)
    collector = collect_in_background(files) if collected is None else (lambda wanted: collected)
    context = MetaContext(build(), areas=areas_from_environment(), collector=collector)
    if os.environ.get("MATRIX_UPDATE", "") not in ("", "0"):
        write_files(context.expected)
    return context


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.__name__.removeprefix("rule_"))
def test_matrix_rule_holds(rule: Callable[[MetaContext], list[str]], context: MetaContext) -> None:
    problems = rule(context)
    assert not problems, f"{rule.__doc__}\n" + "\n".join(problems)
