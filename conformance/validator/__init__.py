"""The offline validator (issue #14): judge a recorded MCP session, requirement by requirement.

``reader`` reads a trace (docs/trace-format.md, ``trace-event.schema.json``); ``registry`` holds the
checks, each a pure function of the event list named by the catalogue ids it judges, and the
exclusions (rows no trace can show, each with its reason); ``revision`` infers the session's
revision; ``outcomes`` turns checks into per-requirement outcomes; ``reports`` renders them as text,
JSON, JUnit XML or SARIF. Nothing here imports the SDK: the judge must not share its reading of the
spec.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
TRACE_EVENT_SCHEMA = PACKAGE_DIR / "trace-event.schema.json"
