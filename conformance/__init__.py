"""mcp-matrix: a requirement-matrix conformance suite for the Model Context Protocol.

The machinery lives beside the tests it drives:

- ``spec_pin``: the pinned specification, materialised and checksummed.
- ``sweep``: every normative sentence of the pinned spec, with its locator and fingerprint.
- ``catalogue``: ``docs/spec/requirements.md`` parsed into requirement rows.
- ``overrides``: re-judgements of a row's applicability per side.
- ``generator``: rows + overrides -> ``conformance/requirements.json``.
- ``covers``: the ``coverage/<area>.py`` declarations and ``for_req``.
- ``matrix``: every (requirement, revision, side) cell, rendered to ``docs/spec``.
- ``meta``: the named rules the meta-test enforces.
- ``harness``: the wire peer that drives the implementation under test.
"""
