"""mcp-matrix: a requirement-matrix conformance suite for the Model Context Protocol.

This package's root is the suite: ``test_<area>.py``, one or two modules per area, and the
generated ``requirements.json``. The machinery lives in subpackages beside it:

- ``catalogue``: the pinned spec (``spec_pin``), its normative sentences (``sweep``,
  ``accounting``, ``locator``), ``docs/spec/requirements.md`` parsed into rows (``rows``), the
  ``overrides`` and the ``generator`` of ``requirements.json``; the vocabulary and the input error.
- ``matrix``: the ``coverage/<area>.py`` declarations and ``for_req`` (``covers``), every cell
  (``cells``), the meta-test's named ``rules`` and the one-pass ``build`` of the generated files.
- ``run``: a run against a target: the pytest ``plugin``, the target profiles (``targets``).
- ``harness``: the independent wire peer that drives the implementation under test.
- ``fixtures``: the fixture server and the client driver, on the pinned SDK's public API.
- ``referee``: the pinned official suite: install, run, gate, cross-check.
- ``cli``: ``python -m conformance``, ``make bench`` and ``mcp-matrix``, the console script (``run``).
"""

from pathlib import Path

# A checkout, or site-packages/mcp_matrix, where the wheel lays out the same files (see pyproject.toml).
PROJECT_ROOT = Path(__file__).resolve().parent.parent
