"""One pass from inputs to outputs: catalogue + overrides -> requirements.json -> matrix docs.

The meta-test compares ``expected_files()`` with the committed files; ``MATRIX_UPDATE=1`` (or
``python -m conformance generate``) writes them instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conformance.catalogue import generator
from conformance.catalogue.overrides import OVERRIDES_DIR, Overrides, load_overrides
from conformance.catalogue.rows import CATALOGUE_PATH, Catalogue, load_catalogue
from conformance.catalogue.spec_pin import LOCK_PATH
from conformance.matrix import cells as matrix
from conformance.matrix.covers import COVERAGE_DIR, Coverage, Gap, load_coverage
from conformance.run import targets

DEFAULT_PROFILE = targets.resolve(None)


@dataclass(frozen=True)
class Build:
    catalogue: Catalogue
    overrides: Overrides
    requirements: dict
    coverage: Coverage
    cells: list[matrix.Cell]

    def expected_files(self) -> dict[Path, str]:
        digests = matrix.input_digests(
            {
                "catalogue": [CATALOGUE_PATH],
                "overrides": sorted(OVERRIDES_DIR.glob("*.yaml")),
                "coverage": [*sorted(COVERAGE_DIR.glob("*.py")), DEFAULT_PROFILE],
                "spec lock": [LOCK_PATH],
            }
        )
        rows = self.requirements["requirements"]
        return {
            generator.REQUIREMENTS_PATH: generator.render_json(self.requirements),
            matrix.MATRIX_MD_PATH: matrix.render_markdown(rows, self.cells, digests),
            matrix.MATRIX_JSON_PATH: matrix.render_json(self.cells, digests),
        }


def build() -> Build:
    catalogue = load_catalogue()
    overrides = load_overrides(catalogue)
    requirements = generator.generate(catalogue, overrides)
    coverage = with_default_target_gaps(load_coverage(), requirements)
    cells = matrix.build_cells(requirements["requirements"], coverage)
    return Build(catalogue, overrides, requirements, coverage, cells)


def with_default_target_gaps(coverage: Coverage, requirements: dict) -> Coverage:
    """The matrix states the default target's cells: its profile's own gaps (cells whose tests it gives no
    situation to run, so they are not tested there) count like the coverage modules' gaps."""
    by_id = {r["id"]: r for r in requirements["requirements"]}
    profile = targets.load(DEFAULT_PROFILE, by_id)
    own = tuple(
        Gap(g.requirement, g.side, g.ref, g.why, g.revisions or None, path=g.path, line=g.line) for g in profile.gaps
    )
    return Coverage(coverage.covers, coverage.gaps + own) if own else coverage


def stale_files(expected: dict[Path, str]) -> list[Path]:
    return [path for path, text in expected.items() if not path.is_file() or path.read_text(encoding="utf-8") != text]


def write_files(expected: dict[Path, str]) -> list[Path]:
    """Write the outputs that differ; returns those written (none on an unchanged tree)."""
    written = stale_files(expected)
    for path in written:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(expected[path], encoding="utf-8")
    return written
