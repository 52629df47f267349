"""The SARIF 2.1.0 JSON schema the tests validate the SARIF report against, taken from a pinned npm package.

Not vendored and never fetched at test time: ``make setup`` (``python -m conformance.validator.sarif_schema``)
packs the pinned package with npm, checks the tarball's and the schema's sha256, and keeps the schema under
.cache/sarif/. A file whose digest differs is refused.
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from conformance import PROJECT_ROOT

PACKAGE = "@microsoft/jest-sarif@1.0.0-beta.0"  # MIT; ships the OASIS schema as lib/schemas/
TARBALL_SHA256 = "748e2c3d1a842e7bb258416685c7ea3a0da40005b72267b2052c2856d48ad102"
MEMBER = "package/lib/schemas/sarif-2.1.0-rtm.5.json"
SCHEMA_SHA256 = "2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8"
CACHED = PROJECT_ROOT / ".cache" / "sarif" / "sarif-2.1.0-rtm.5.json"


class SarifSchemaError(RuntimeError):
    pass


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def cached_schema() -> Path | None:
    """The kept schema, if it is there and its digest is the pinned one."""
    if CACHED.is_file() and _sha256(CACHED.read_bytes()) == SCHEMA_SHA256:
        return CACHED
    return None


def materialise() -> Path:
    if cached_schema():
        return CACHED
    with tempfile.TemporaryDirectory() as folder:
        packed = subprocess.run(
            ["npm", "pack", PACKAGE, "--silent"], cwd=folder, capture_output=True, text=True, timeout=300
        )
        if packed.returncode != 0:
            raise SarifSchemaError(f"npm pack {PACKAGE} failed: {packed.stderr.strip()[-500:]}")
        tarball = Path(folder) / packed.stdout.strip().splitlines()[-1]
        data = tarball.read_bytes()
    if _sha256(data) != TARBALL_SHA256:
        raise SarifSchemaError(f"{PACKAGE}: tarball sha256 {_sha256(data)} is not the pinned {TARBALL_SHA256}")
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        member = archive.extractfile(MEMBER)
        if member is None:
            raise SarifSchemaError(f"{PACKAGE} holds no {MEMBER}")
        schema = member.read()
    if _sha256(schema) != SCHEMA_SHA256:
        raise SarifSchemaError(f"{MEMBER}: sha256 {_sha256(schema)} is not the pinned {SCHEMA_SHA256}")
    CACHED.parent.mkdir(parents=True, exist_ok=True)
    CACHED.write_bytes(schema)
    return CACHED


if __name__ == "__main__":
    try:
        print(materialise().relative_to(PROJECT_ROOT))
    except FileNotFoundError:
        # set-up needs nothing but python3: without npm, only the SARIF report's test lacks its schema (and says so)
        print("npm not found: the SARIF schema is not set up (tests/test_validator_reports.py will say so)")
    except SarifSchemaError as exc:
        sys.exit(f"error: {exc}")
