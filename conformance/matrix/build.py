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
from conformance.matrix.covers import COVERAGE_DIR, Coverage, load_coverage


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
                "coverage": sorted(COVERAGE_DIR.glob("*.py")),
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
    coverage = load_coverage()
    cells = matrix.build_cells(requirements["requirements"], coverage)
    return Build(catalogue, overrides, requirements, coverage, cells)


def stale_files(expected: dict[Path, str]) -> list[Path]:
    return [path for path, text in expected.items() if not path.is_file() or path.read_text(encoding="utf-8") != text]


def write_files(expected: dict[Path, str]) -> list[Path]:
    """Write the outputs that differ; returns those written (none on an unchanged tree)."""
    written = stale_files(expected)
    for path in written:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(expected[path], encoding="utf-8")
    return written
