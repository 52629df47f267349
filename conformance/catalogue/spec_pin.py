"""The pinned specification: a lock file names the commit and the sha256 of every file we read.

``materialise()`` copies those files into a cache directory from ``$MCP_SPEC_MIRROR`` (a directory
laid out like the spec repository; ``../shared/mcp-spec`` by default when it exists) or downloads
them at the pinned commit, and refuses any file whose sha256 differs from the lock. Nothing of
the spec is committed to this repository.

The lock's ``extensions`` section pins the specification of each catalogued extension the same way
(``conformance.catalogue.vocabulary.EXTENSIONS``): its repository and, per file, the commit and sha256.
Its files come from ``$MCP_<NAME>_MIRROR`` (``../shared/mcp-<name>`` by default when it exists, laid out
like the extension's repository) or are downloaded at each file's commit, verified like the spec's, into
a cache directory of their own (``materialise_extension``): the catalogue's checks read them, a run of the
suite never needs them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputError
from conformance.catalogue.vocabulary import EXTENSIONS, REVISIONS

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


def is_pinned_extension_path(name: str, path: str) -> bool:
    """The files of an extension the project reads: every page of every revision it catalogues."""
    return any(
        path.startswith(f"specification/{revision}/") and path.endswith(".mdx")
        for revision in EXTENSIONS[name].revisions
    )


def _existing_extensions(lock_path: Path) -> dict:
    return read_lock(lock_path).get("extensions", {}) if lock_path.is_file() else {}


def write_lock(mirror: Path, lock_path: Path = LOCK_PATH) -> dict:
    """Record the mirror's commit and the sha256 of every pinned file it holds (extensions kept)."""
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
    extensions = _existing_extensions(lock_path)
    if extensions:
        lock["extensions"] = extensions
    lock_path.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return lock


def write_extension_lock(name: str, mirror: Path, lock_path: Path = LOCK_PATH) -> dict:
    """Record an extension's pinned pages (commit and sha256 of each) from its mirror's PIN.json."""
    if name not in EXTENSIONS:
        raise SpecPinError(f"unknown extension {name!r} (known: {', '.join(EXTENSIONS)})")
    pin = json.loads((mirror / "PIN.json").read_text(encoding="utf-8"))
    files = {}
    for path, entry in sorted(pin["files"].items()):
        if is_pinned_extension_path(name, path):
            actual = sha256_of((mirror / path).read_bytes())
            if actual != entry["sha256"]:
                raise SpecPinError(f"{mirror / path}: sha256 {actual} differs from the mirror's PIN.json")
            files[path] = {"commit": entry["commit"], "sha256": actual}
    lock = read_lock(lock_path)
    lock.setdefault("extensions", {})[name] = {"repository": pin["repository"], "files": files}
    lock_path.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return lock


def _mirror(variable: str = "MCP_SPEC_MIRROR", default: Path = DEFAULT_MIRROR) -> Path | None:
    configured = os.environ.get(variable)
    if configured:
        return Path(configured)
    return default if default.is_dir() else None


def mirror_variable(name: str) -> str:
    """The environment variable naming an extension's mirror: ``ext-apps`` -> ``MCP_EXT_APPS_MIRROR``."""
    return f"MCP_{name.upper().replace('-', '_')}_MIRROR"


def _extension_mirror(name: str) -> Path | None:
    return _mirror(mirror_variable(name), PROJECT_ROOT.parent / "shared" / f"mcp-{name}")


def how_to_get_extension(name: str) -> str:
    return (
        f"set {mirror_variable(name)} to a checkout of {EXTENSIONS[name].repository} at the pinned commits "
        f"(every machine here has one at ../shared/mcp-{name}), or allow downloads from GitHub"
    )


def _fetch(
    repository: str, commit: str, path: str, mirror: Path | None, how_to_get_it: str = HOW_TO_GET_IT
) -> tuple[bytes, str]:
    if mirror is not None:
        source = mirror / path
        try:
            return source.read_bytes(), str(source)
        except FileNotFoundError as exc:
            raise SpecPinError(f"{source}: pinned spec file is missing from the mirror; {how_to_get_it}") from exc
    url = RAW_URL.format(repository=repository, commit=commit, path=path)
    import urllib.error  # here: most runs read a mirror, and every scripted stdio server imports this module
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:
            return response.read(), url
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise SpecPinError(f"cannot download {url} ({exc}); {how_to_get_it}") from exc


def cache_dir(lock: dict) -> Path:
    base = Path(os.environ.get("MCP_SPEC_CACHE", DEFAULT_CACHE))
    return base / lock["commit"]


@dataclass(frozen=True)
class _PinnedFile:
    repository: str
    commit: str
    path: str
    sha256: str


def _materialise_into(
    target: Path,
    pins: object,
    files: list[_PinnedFile],
    mirror: Path | None,
    how_to_get_it: str,
    lock_path: Path,
    also_verified_by: tuple[str, ...] = (),
) -> Path:
    """Copy ``files`` into ``target``, verified, unless its stamp says a copy of exactly ``pins`` (the lock's
    entries for them) is there; ``also_verified_by``: other stamps that vouch for the same files."""
    stamp = target / ".verified"
    lock_digest = sha256_of(json.dumps(pins, sort_keys=True).encode())
    if stamp.is_file() and stamp.read_text() in (lock_digest, *also_verified_by):
        return target
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    for file in files:
        data, source = _fetch(file.repository, file.commit, file.path, mirror, how_to_get_it)
        actual = sha256_of(data)
        if actual != file.sha256:
            shutil.rmtree(staging, ignore_errors=True)
            raise SpecPinError(
                f"{source}: sha256 is {actual} but {lock_path.name} pins {file.sha256} "
                f"(commit {file.commit}); refusing a spec that is not the pinned one"
            )
        destination = staging / file.path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
    (staging / ".verified").write_text(lock_digest)
    shutil.rmtree(target, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging.rename(target)
    return target


def materialise(lock_path: Path = LOCK_PATH) -> Path:
    """Return a directory holding exactly the spec's pinned files, verified against the lock."""
    lock = read_lock(lock_path)
    files = [
        _PinnedFile(lock["repository"], lock["commit"], path, expected) for path, expected in lock["files"].items()
    ]
    files.sort(key=lambda f: f.path)
    # a copy stamped over the whole lock (made while the extensions' files lived in this directory) holds the
    # same spec files: accepted, so that a process of either layout never replaces it under a running reader
    whole_lock = sha256_of(json.dumps([lock["files"], lock.get("extensions", {})], sort_keys=True).encode())
    return _materialise_into(cache_dir(lock), lock["files"], files, _mirror(), HOW_TO_GET_IT, lock_path, (whole_lock,))


def materialise_extension(name: str, lock_path: Path = LOCK_PATH) -> Path:
    """Return a directory holding exactly an extension's pinned files, laid out like its repository.

    Apart from the spec's: a run of the suite needs only the spec's schemas, the catalogue's checks also
    these pages, so a run never waits on them."""
    pinned = read_lock(lock_path).get("extensions", {}).get(name)
    if pinned is None:
        raise SpecPinError(
            f"{lock_path.name} pins no extension {name!r}: python -m conformance spec --lock-extension {name}=MIRROR"
        )
    files = [
        _PinnedFile(pinned["repository"], pin["commit"], path, pin["sha256"]) for path, pin in pinned["files"].items()
    ]
    files.sort(key=lambda f: f.path)
    digest = sha256_of(json.dumps(pinned["files"], sort_keys=True).encode())[:16]
    target = Path(os.environ.get("MCP_SPEC_CACHE", DEFAULT_CACHE)) / "extensions" / name / digest
    return _materialise_into(
        target, pinned["files"], files, _extension_mirror(name), how_to_get_extension(name), lock_path
    )


def materialise_extensions(lock_path: Path = LOCK_PATH) -> dict[str, Path]:
    """Every catalogued extension's materialised files (``EXTENSIONS``), by name."""
    return {name: materialise_extension(name, lock_path) for name in EXTENSIONS}
