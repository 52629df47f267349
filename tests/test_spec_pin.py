"""The spec pin: materialised from a mirror, verified file by file, refused when it differs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conformance.catalogue import spec_pin
from conformance.catalogue.errors import InputError
from conformance.catalogue.spec_pin import SpecPinError, materialise, read_lock

FILES = {"docs/specification/2025-06-18/basic/lifecycle.mdx": b"# Lifecycle\n", "schema/2025-06-18/schema.json": b"{}"}


@pytest.fixture
def pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A mirror holding FILES and a lock pinning them; the cache in tmp_path."""
    mirror = tmp_path / "mirror"
    for path, data in FILES.items():
        (mirror / path).parent.mkdir(parents=True, exist_ok=True)
        (mirror / path).write_bytes(data)
    lock = tmp_path / "spec.lock.json"
    files = {path: hashlib.sha256(data).hexdigest() for path, data in FILES.items()}
    lock.write_text(json.dumps({"repository": "example/spec", "commit": "c0ffee", "files": files}))
    monkeypatch.setenv("MCP_SPEC_MIRROR", str(mirror))
    monkeypatch.setenv("MCP_SPEC_CACHE", str(tmp_path / "cache"))
    return mirror, lock


def test_materialise_copies_exactly_the_pinned_files(pinned: tuple[Path, Path]) -> None:
    _, lock = pinned
    root = materialise(lock)
    assert root.name == "c0ffee"
    for path, data in FILES.items():
        assert (root / path).read_bytes() == data


def test_a_file_whose_sha256_differs_is_refused_naming_it(pinned: tuple[Path, Path]) -> None:
    mirror, lock = pinned
    (mirror / "schema/2025-06-18/schema.json").write_bytes(b'{"tampered": true}')
    with pytest.raises(SpecPinError) as caught:
        materialise(lock)
    message = str(caught.value)
    assert "schema/2025-06-18/schema.json: sha256 is" in message
    assert "refusing a spec that is not the pinned one" in message
    assert not (lock.parent / "cache" / "c0ffee").exists()


def test_a_missing_spec_says_how_to_get_it(pinned: tuple[Path, Path]) -> None:
    mirror, lock = pinned
    (mirror / "docs/specification/2025-06-18/basic/lifecycle.mdx").unlink()
    with pytest.raises(SpecPinError, match="set MCP_SPEC_MIRROR to a checkout of the spec repository"):
        materialise(lock)


def test_a_verified_cache_is_reused_without_the_mirror(
    pinned: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, lock = pinned
    first = materialise(lock)
    monkeypatch.setenv("MCP_SPEC_MIRROR", str(lock.parent / "nowhere"))
    assert materialise(lock) == first


def test_a_corrupt_lock_names_its_line(tmp_path: Path) -> None:
    lock = tmp_path / "spec.lock.json"
    lock.write_text('{\n  "commit": \n}')
    with pytest.raises(InputError, match=r"spec.lock.json:3: not valid JSON"):
        read_lock(lock)


def test_the_committed_lock_pins_every_page_and_schema_of_every_revision() -> None:
    lock = read_lock()
    for revision in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"):
        assert f"schema/{revision}/schema.json" in lock["files"]
        assert any(p.startswith(f"docs/specification/{revision}/") for p in lock["files"])
    assert all(spec_pin.is_pinned_path(p) for p in lock["files"])


EXTENSION_FILES = {
    "specification/2026-01-26/apps.mdx": ("aaaa", b"# Apps\n\nHosts MUST render.\n"),
    "specification/draft/apps.mdx": ("bbbb", b"# Apps\n\nHosts MUST render. Hosts MAY cache.\n"),
}


@pytest.fixture
def pinned_extension(pinned: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """An ext-apps mirror laid out like its repository (with its PIN.json), its pages pinned in the lock."""
    _, lock = pinned
    mirror = lock.parent / "mcp-ext-apps"
    pin_files = {}
    for path, (commit, data) in EXTENSION_FILES.items():
        (mirror / path).parent.mkdir(parents=True, exist_ok=True)
        (mirror / path).write_bytes(data)
        pin_files[path] = {"commit": commit, "sha256": hashlib.sha256(data).hexdigest()}
    (mirror / "LICENSE").write_bytes(b"license")
    pin_files["LICENSE"] = {"commit": None, "sha256": hashlib.sha256(b"license").hexdigest()}
    (mirror / "PIN.json").write_text(json.dumps({"repository": "example/ext-apps", "files": pin_files}))
    monkeypatch.setenv("MCP_EXT_APPS_MIRROR", str(mirror))
    spec_pin.write_extension_lock("ext-apps", mirror, lock)
    return mirror, lock


def test_an_extension_is_locked_page_by_page_from_its_mirror(pinned_extension: tuple[Path, Path]) -> None:
    _, lock = pinned_extension
    pinned = read_lock(lock)["extensions"]["ext-apps"]
    assert pinned["repository"] == "example/ext-apps"
    assert sorted(pinned["files"]) == sorted(EXTENSION_FILES)  # its pages only: no LICENSE
    assert pinned["files"]["specification/draft/apps.mdx"]["commit"] == "bbbb"
    assert set(read_lock(lock)["files"]) == set(FILES)  # the spec's pins untouched


def test_an_extension_is_materialised_apart_from_the_spec(
    pinned_extension: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    mirror, lock = pinned_extension
    root = spec_pin.materialise_extension("ext-apps", lock)
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.mdx")) == sorted(EXTENSION_FILES)
    for path, (_, data) in EXTENSION_FILES.items():
        assert (root / path).read_bytes() == data
    monkeypatch.setenv("MCP_EXT_APPS_MIRROR", str(mirror.parent / "nowhere"))
    assert spec_pin.materialise_extension("ext-apps", lock) == root  # verified: reused without the mirror
    assert not (materialise(lock) / "specification").exists()  # a run needs the spec alone; it never waits on these


def test_an_extension_page_whose_sha256_differs_is_refused_naming_it(pinned_extension: tuple[Path, Path]) -> None:
    mirror, lock = pinned_extension
    (mirror / "specification/draft/apps.mdx").write_bytes(b"# Apps\n\nHosts SHOULD render.\n")
    with pytest.raises(SpecPinError, match=r"specification/draft/apps.mdx: sha256 is .* \(commit bbbb\)"):
        spec_pin.materialise_extension("ext-apps", lock)
    assert not any((lock.parent / "cache" / "extensions" / "ext-apps").iterdir())


def test_a_missing_extension_says_how_to_get_it(pinned_extension: tuple[Path, Path]) -> None:
    mirror, lock = pinned_extension
    (mirror / "specification/2026-01-26/apps.mdx").unlink()
    with pytest.raises(SpecPinError, match="set MCP_EXT_APPS_MIRROR to a checkout of modelcontextprotocol/ext-apps"):
        spec_pin.materialise_extension("ext-apps", lock)


def test_an_extension_the_lock_does_not_pin_says_how_to_pin_it(pinned: tuple[Path, Path]) -> None:
    _, lock = pinned
    with pytest.raises(SpecPinError, match="pins no extension 'ext-apps': python -m conformance spec --lock-extension"):
        spec_pin.materialise_extension("ext-apps", lock)


def test_rewriting_the_spec_lock_keeps_the_extension_pins(pinned_extension: tuple[Path, Path], tmp_path: Path) -> None:
    _, lock = pinned_extension
    before = read_lock(lock)["extensions"]
    spec_mirror = tmp_path / "spec-mirror"
    for path, data in FILES.items():
        (spec_mirror / path).parent.mkdir(parents=True, exist_ok=True)
        (spec_mirror / path).write_bytes(data)
    pin = {
        "source": "github.com/example/spec",
        "commit": "c0ffee",
        "files": {p: spec_pin.sha256_of(d) for p, d in FILES.items()},
    }
    (spec_mirror / "PIN.json").write_text(json.dumps(pin))
    assert spec_pin.write_lock(spec_mirror, lock)["extensions"] == before


def test_the_committed_lock_pins_every_page_of_every_revision_of_the_apps_extension() -> None:
    pinned = read_lock()["extensions"]["ext-apps"]
    assert pinned["repository"] == "modelcontextprotocol/ext-apps"
    for revision in ("2026-01-26", "draft"):
        assert f"specification/{revision}/apps.mdx" in pinned["files"]
    assert all(spec_pin.is_pinned_extension_path("ext-apps", p) for p in pinned["files"])
    assert all(len(entry["commit"]) == 40 for entry in pinned["files"].values())
