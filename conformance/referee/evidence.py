"""A referee run's raw results: the per-scenario ``checks.json`` tree, and each check's fingerprint.

The referee writes one folder per scenario, ``<scenario>-<ISO time>/checks.json`` (``server-`` in
front on the server leg; a ``/`` in a scenario name nests the folder). ``checks.json`` is a bare
list of checks and names neither its scenario nor its run, so the scenario comes from the folder.

A check's fingerprint is the sha256 of its normalised evidence: the whole check without its
timestamp, with what differs from run to run replaced by placeholders (ports, times, durations,
session and event ids, generated credentials). The normalised form is kept in the report next to
its hash, so that a changed fingerprint can be diffed rather than guessed at.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STATUSES = ("SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO")
NON_SUCCESS = ("FAILURE", "WARNING", "SKIPPED")
VERDICTS = ("SUCCESS", "FAILURE", "WARNING", "SKIPPED")  # INFO checks are trace lines, not verdicts

#: What the referee puts before a scenario's name in its result folder, per leg.
LEG_FOLDER_PREFIXES = {"server": "server-", "authorization": "authorization-server-"}
FOLDER = re.compile(r"^(?P<name>.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$")

# Harness errors and transport exceptions: they block the gate in any scenario, scored or not.
SCENARIO_TIMEOUT = "scenario-timeout"
HARNESS_ERROR_IDS = ("wire-schema-harness-error",)
SCENARIO_THREW = "Failed to run scenario"
TRANSPORT_EXCEPTION = re.compile(
    r"fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|socket hang up|other side closed"
    r"|Request timed out|operation was aborted|network error|Connection closed",
    re.IGNORECASE,
)


@dataclass
class ScenarioResult:
    """One scenario's folder: its checks, or why there are none."""

    scenario: str
    folder: str
    checks: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None  # no checks.json, or one that is not a list of checks


def scenario_of(relative_folder: str, leg: str) -> str | None:
    """The scenario a result folder belongs to, or None for a folder that is not a result folder."""
    match = FOLDER.match(relative_folder)
    if match is None:
        return None
    name = match.group("name")
    prefix = LEG_FOLDER_PREFIXES.get(leg, "")
    if not name.startswith(prefix):
        return None
    return name.removeprefix(prefix)


def read_results(raw_dir: Path, leg: str) -> list[ScenarioResult]:
    """Every result folder under ``raw_dir``, in folder order."""
    results = []
    for folder in sorted(_result_folders(raw_dir, leg)):
        relative = folder.relative_to(raw_dir).as_posix()
        scenario = scenario_of(relative, leg)
        assert scenario is not None
        result = ScenarioResult(scenario=scenario, folder=relative)
        path = folder / "checks.json"
        if not path.is_file():
            result.error = "no checks.json: the scenario did not finish (harness error)"
        else:
            try:
                checks = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                result.error = f"checks.json does not parse: {exc}"
            else:
                if not isinstance(checks, list) or not all(isinstance(c, dict) for c in checks):
                    result.error = "checks.json is not a list of checks"
                else:
                    result.checks = checks
        results.append(result)
    return results


def _result_folders(raw_dir: Path, leg: str) -> Iterator[Path]:
    if not raw_dir.is_dir():
        return
    for path in raw_dir.rglob("*"):
        if path.is_dir() and scenario_of(path.relative_to(raw_dir).as_posix(), leg) is not None:
            yield path


# ---------------------------------------------------------------------------------------------
# Normalisation and fingerprints
# ---------------------------------------------------------------------------------------------

_VOLATILE_KEYS = re.compile(r"^(timestamp|time|date|startedAt|endedAt)$", re.IGNORECASE)
_TIMING_KEYS = re.compile(r"(ms|millis|seconds|duration|elapsed|delay|latency)$", re.IGNORECASE)
_SESSION_KEYS = re.compile(r"^(mcp-session-id|sessionId|session_id|last-event-id|eventId|date|etag)$", re.IGNORECASE)
_SECRET_KEYS = re.compile(
    r"^(access_token|refresh_token|id_token|code|code_verifier|code_challenge|state|nonce|client_secret|"
    r"client_id|authorization|assertion|client_assertion|jti|dpop|token|subject_token)$",
    re.IGNORECASE,
)
_EPOCH_KEYS = re.compile(r"^(iat|exp|nbf|expires_at|client_id_issued_at|client_secret_expires_at)$", re.IGNORECASE)
_STRING_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0):\d+"), r"\1:<port>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?"), "<time>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE), "<uuid>"),
    (re.compile(r"\beyJ[\w-]*\.[\w-]*\.[\w-]*"), "<jwt>"),
    (re.compile(r"\b[0-9a-f]{16,}\b", re.IGNORECASE), "<hex>"),
    (re.compile(r"\b\d{10,}\b"), "<n>"),  # epoch times and the like
    (re.compile(r"\b\d+(\.\d+)?\s?ms\b"), "<n>ms"),
    (re.compile(r"\b(id|event): ?\d+\b"), r"\1: <n>"),
)
PLACEHOLDER = "<volatile>"


def normalise(check: dict[str, Any]) -> dict[str, Any]:
    """A check without what changes from run to run: the input of its fingerprint."""
    return _normalise_value({k: v for k, v in check.items() if k != "timestamp"}, None)


def _normalise_value(value: Any, key: str | None) -> Any:
    if isinstance(value, dict):
        return {
            k: (PLACEHOLDER if _VOLATILE_KEYS.match(k) or _SESSION_KEYS.match(k) else _normalise_value(v, k))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_normalise_value(v, key) for v in value]
    if key is not None and _SECRET_KEYS.match(key) and isinstance(value, str) and value != "":
        return PLACEHOLDER  # generated per run: credentials, codes, OAuth state
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if numeric and key and (_TIMING_KEYS.search(key) or _EPOCH_KEYS.match(key)):
        return "<n>"
    if isinstance(value, str):
        for pattern, replacement in _STRING_RULES:
            value = pattern.sub(replacement, value)
    return value


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fingerprint(check: dict[str, Any]) -> str:
    return hashlib.sha256(canonical(normalise(check)).encode("utf-8")).hexdigest()
