"""The pinned specification: a lock file names the commit and the sha256 of every file we read.

``materialise()`` copies those files into a cache directory from ``$MCP_SPEC_MIRROR`` (a directory
laid out like the spec repository; ``../shared/mcp-spec`` by default when it exists) or downloads
them at the pinned commit, and refuses any file whose sha256 differs from the lock. Nothing of
the spec is committed to this repository.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputError
from conformance.catalogue.vocabulary import REVISIONS

LOCK_PATH = PROJECT_ROOT / "conformance" / "spec.lock.json"
DEFAULT_MIRROR = PROJECT_ROOT.parent / "shared" / "mcp-spec"
DEFAULT_CACHE = PROJECT_ROOT / ".cache" / "mcp-spec"
RAW_URL = "https://raw.githubusercontent.com/{repository}/{commit}/{path}"
DOWNLOAD_TIMEOUT_SECONDS = 20

HOW_TO_GET_IT = (
    "set MCP_SPEC_MIRROR to a checkout of the spec repository at the pinned commit "
    "(every machine here has one at ../shared/mcp-spec), or allow downloads from GitHub"
)


class SpecPinError(Exception):
    """The pinned spec cannot be materialised; the message says which file and why."""


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_lock(lock_path: Path = LOCK_PATH) -> dict:
    try:
        lock = json.loads(lock_path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(lock_path, None, "spec lock file is missing") from exc
    except json.JSONDecodeError as exc:
        raise InputError(lock_path, exc.lineno, f"not valid JSON: {exc.msg}") from exc
    for key in ("repository", "commit", "files"):
        if key not in lock:
            raise InputError(lock_path, None, f"spec lock has no {key!r}")
    return lock


def is_pinned_path(path: str) -> bool:
    """The files the project reads: every page and the schema of every revision it judges."""
    return any(
        (path.startswith(f"docs/specification/{rev}/") and path.endswith(".mdx")) or path == f"schema/{rev}/schema.json"
        for rev in REVISIONS
    )


def write_lock(mirror: Path, lock_path: Path = LOCK_PATH) -> dict:
    """Record the mirror's commit and the sha256 of every pinned file it holds."""
    pin = json.loads((mirror / "PIN.json").read_text(encoding="utf-8"))
    files = {}
    for path in sorted(pin["files"]):
        if is_pinned_path(path):
            actual = sha256_of((mirror / path).read_bytes())
            if actual != pin["files"][path]:
                raise SpecPinError(f"{mirror / path}: sha256 {actual} differs from the mirror's PIN.json")
            files[path] = actual
    lock = {
        "repository": pin["source"].removeprefix("github.com/"),
        "commit": pin["commit"],
        "files": files,
    }
    lock_path.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return lock


def _mirror() -> Path | None:
    configured = os.environ.get("MCP_SPEC_MIRROR")
    if configured:
        return Path(configured)
    return DEFAULT_MIRROR if DEFAULT_MIRROR.is_dir() else None


def _fetch(lock: dict, path: str, mirror: Path | None) -> tuple[bytes, str]:
    if mirror is not None:
        source = mirror / path
        try:
            return source.read_bytes(), str(source)
        except FileNotFoundError as exc:
            raise SpecPinError(f"{source}: pinned spec file is missing from the mirror; {HOW_TO_GET_IT}") from exc
    url = RAW_URL.format(repository=lock["repository"], commit=lock["commit"], path=path)
    import urllib.error  # here: most runs read a mirror, and every scripted stdio server imports this module
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:
            return response.read(), url
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise SpecPinError(f"cannot download {url} ({exc}); {HOW_TO_GET_IT}") from exc


def cache_dir(lock: dict) -> Path:
    base = Path(os.environ.get("MCP_SPEC_CACHE", DEFAULT_CACHE))
    return base / lock["commit"]


def materialise(lock_path: Path = LOCK_PATH) -> Path:
    """Return a directory holding exactly the pinned files, verified against the lock."""
    lock = read_lock(lock_path)
    target = cache_dir(lock)
    stamp = target / ".verified"
    lock_digest = sha256_of(json.dumps(lock["files"], sort_keys=True).encode())
    if stamp.is_file() and stamp.read_text() == lock_digest:
        return target
    mirror = _mirror()
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    for path, expected in sorted(lock["files"].items()):
        data, source = _fetch(lock, path, mirror)
        actual = sha256_of(data)
        if actual != expected:
            shutil.rmtree(staging, ignore_errors=True)
            raise SpecPinError(
                f"{source}: sha256 is {actual} but {lock_path.name} pins {expected} "
                f"(commit {lock['commit']}); refusing a spec that is not the pinned one"
            )
        destination = staging / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
    (staging / ".verified").write_text(lock_digest)
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return target
