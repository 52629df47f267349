"""The referee baseline: the official conformance suite, pinned, run against the fixture server and
the SDK client driver, and gated.

- ``install``: the pinned referee and Node 22 in ``.cache/referee/`` (``npm ci`` from
  ``referee/package-lock.json``), refused unless every pin of ``referee/baseline.yaml`` holds.
- ``runner``: one profile end to end (fixture or client driver, the referee, the evidence).
- ``warm`` and ``launch``: the client driver forked from a warm parent, so that a scenario never
  pays for an interpreter start, with a record of how each client run ended.
- ``evidence``: reading a run's raw ``checks.json`` tree; normalised evidence and its fingerprint.
- ``gate``: every non-success check of a scored scenario classified exactly, or the gate fails.
- ``crosscheck``: the referee's verdicts against the matrix's, through ``referee/mapping.yaml``.
"""

from __future__ import annotations

from conformance import PROJECT_ROOT

ROOT = PROJECT_ROOT
DATA = ROOT / "referee"  # committed: baseline.yaml, mapping.yaml, package.json, package-lock.json
BASELINE = DATA / "baseline.yaml"
MAPPING = DATA / "mapping.yaml"
INSTALL_DIR = ROOT / ".cache" / "referee"  # untracked: node_modules of the pinned referee
REPORTS = ROOT / "reports" / "referee"  # untracked: evidence, one folder per profile
MATRIX_JSON = ROOT / "docs" / "spec" / "conformance-matrix.json"

PROFILES = (
    "server-2026-07-28",
    "server-2025-11-25",
    "client-2026-07-28",
    "client-2025-11-25",
    # the referee's authorization-server leg against the fixture server as its own authorization server
    # (its oauth-hosted configuration), at the revisions whose rows its checks judge
    "authorization-2025-11-25",
    "authorization-2026-07-28",
)
