"""``make targets``: install the real implementations that ``targets/*.yaml`` put under test into ``.cache/targets/``.

Each unit is installed from the package registries at exactly the pinned versions, into a folder of its own:

- ``npm/``: ``npm ci`` of ``targets/package.json`` + ``targets/package-lock.json`` (every package with its
  integrity hash): ``@modelcontextprotocol/server-everything`` and ``@modelcontextprotocol/server-filesystem``,
  two of the MCP Apps extension's example servers (``@modelcontextprotocol/server-basic-vanillajs`` and
  ``@modelcontextprotocol/server-map``: targets/server-basic-vanillajs.yaml, targets/server-map.yaml), the
  TypeScript SDK whose ``Client`` ``targets/clients/ts_sdk_client.mjs`` drives (target ts-sdk-client), and
  ``node`` 22 (``node_modules/.bin/node``), which that driver runs on;
- ``<name>/``: a virtualenv per Python target, ``pip install --require-hashes --no-deps`` of
  ``targets/requirements/<name>.txt`` (every distribution pinned, with its hashes);
- ``filesystem-root/``: the scratch directory server-filesystem is allowed to serve;
- ``git-repo/``: a small git repository for mcp-server-git (deterministic commits).

A unit is installed only when its stamp (``<folder>/.mcp-matrix-installed``) does not hold the digest of its
inputs (the lock or requirements file, the Python or the fixture's content), so a second run is a no-op. The
fixtures are also checked against their expected content on every run (the servers under test can write to
them) and rebuilt when they differ. Units install in parallel; every failure is reported, naming the unit,
the command and its output, and the exit status is 1.

Standard library only: it runs with the ``python3`` that runs ``make`` (3.11+), before ``.venv`` exists.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = ROOT / ".cache" / "targets"
STAMP = ".mcp-matrix-installed"
TIMEOUT_SECONDS = 900
PYTHON_TARGETS = {  # virtualenv name -> (distribution, console script it must provide, or None)
    "mcp-server-time": ("mcp-server-time", "mcp-server-time"),
    "mcp-server-git": ("mcp-server-git", "mcp-server-git"),
    "fastmcp": ("fastmcp", None),
}
FILESYSTEM_ROOT = {  # what server-filesystem may serve (targets/server-filesystem.yaml)
    "README.md": "# filesystem-root\n\nA scratch directory that @modelcontextprotocol/server-filesystem serves.\n",
    "notes/todo.txt": "write the report\nreview the matrix\n",
    "notes/ideas.txt": "a conformance matrix for every implementation\n",
    "data.json": '{"answer": 42, "items": ["a", "b", "c"]}\n',
}
GIT_COMMITS = (  # the history of the repository mcp-server-git serves (targets/mcp-server-git.yaml)
    ("Initial commit", {"README.md": "# git-repo\n\nA small repository that mcp-server-git serves.\n"}),
    ("Add a module", {"src/hello.py": 'def hello() -> str:\n    return "hello"\n'}),
    ("Say hello to someone", {"src/hello.py": 'def hello(name: str) -> str:\n    return f"hello {name}"\n'}),
)
GIT_HEAD_RECORD = "mcp-matrix-head"  # in .git/: the commit the history above ends at
GIT_ENV = {
    "GIT_AUTHOR_NAME": "mcp-matrix",
    "GIT_AUTHOR_EMAIL": "mcp-matrix@example.invalid",
    "GIT_COMMITTER_NAME": "mcp-matrix",
    "GIT_COMMITTER_EMAIL": "mcp-matrix@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


class InstallError(Exception):
    """A unit could not be installed; the message says what failed."""


@dataclass(frozen=True)
class Unit:
    name: str  # its folder under .cache/targets
    digest: Callable[[], str]  # of its inputs
    install: Callable[[Path], None]  # into an empty folder
    intact: Callable[[Path], bool] = lambda folder: True  # cheap check that an installed unit is still as made

    @property
    def folder(self) -> Path:
        return CACHE / self.name


def sha256(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def run(command: list[str], what: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Run ``command``; its output, or an InstallError naming ``what`` and the end of the output."""
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=os.environ | (env or {}),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except FileNotFoundError as exc:
        raise InstallError(f"{what}: {command[0]} is not installed ({exc})") from None
    except subprocess.TimeoutExpired:
        raise InstallError(f"{what}: `{' '.join(command)}` did not finish within {TIMEOUT_SECONDS} s") from None
    if done.returncode != 0:
        output = "\n".join(line for line in (done.stdout + done.stderr).splitlines() if "is ignored" not in line)
        lines = output.splitlines()
        shown = lines if len(lines) <= 30 else [*lines[:12], f"... ({len(lines) - 24} lines)", *lines[-12:]]
        said = "\n".join(f"    {line}" for line in shown)
        raise InstallError(f"{what}: `{' '.join(command)}` exited {done.returncode}:\n{said}")
    return done.stdout


# npm: server-everything, server-filesystem, the Apps examples, the TypeScript SDK's client and its Node 22


def npm_digest() -> str:
    return sha256(*((HERE / name).read_bytes() for name in ("package.json", "package-lock.json")))


def npm_install(folder: Path) -> None:
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(HERE / name, folder / name)
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError("npm: npm is not on PATH (it installs the npm servers)")
    run([npm, "ci", "--prefix", str(folder), "--no-audit", "--no-fund", "--loglevel=error"], "npm ci")
    wanted = json.loads((HERE / "package.json").read_text(encoding="utf-8"))["dependencies"]
    for package, version in wanted.items():
        manifest = folder / "node_modules" / package / "package.json"
        if not manifest.is_file():
            raise InstallError(f"npm: {package} is missing from {manifest.parent} after npm ci")
        installed = json.loads(manifest.read_text(encoding="utf-8"))["version"]
        if installed != version:
            raise InstallError(f"npm: {package} installed at {installed}, pinned {version}")
    node = folder / NODE
    said = run([str(node), "--version"], f"npm: {node.relative_to(folder)} --version").strip()
    if said != f"v{wanted['node']}":
        raise InstallError(f"npm: {node.relative_to(folder)} reports {said!r}, pinned node {wanted['node']}")


NODE = Path("node_modules") / ".bin" / "node"  # the Node 22 of the npm package node (ts-sdk-client runs on it)


def npm_intact(folder: Path) -> bool:
    wanted = json.loads((HERE / "package.json").read_text(encoding="utf-8"))["dependencies"]
    packages = all((folder / "node_modules" / package / "package.json").is_file() for package in wanted)
    return packages and (folder / NODE).exists()


# PyPI: one virtualenv per target


def requirements(name: str) -> Path:
    return HERE / "requirements" / f"{name}.txt"


def pinned_version(name: str, distribution: str) -> str:
    for line in requirements(name).read_text(encoding="utf-8").splitlines():
        if line.lower().startswith(f"{distribution.lower()}=="):
            return line.split("==", 1)[1].split()[0].rstrip("\\").strip()
    raise InstallError(f"{name}: {requirements(name)} pins no {distribution}")


def venv_digest(name: str) -> Callable[[], str]:
    return lambda: sha256(requirements(name).read_bytes(), sys.version.encode(), sys.executable.encode())


def venv_install(name: str) -> Callable[[Path], None]:
    distribution, script = PYTHON_TARGETS[name]

    def install(folder: Path) -> None:
        version = pinned_version(name, distribution)
        run([sys.executable, "-m", "venv", str(folder)], f"{name}: creating the virtualenv")
        python = folder / "bin" / "python"
        run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--require-hashes",
                "--only-binary=:all:",
                "--no-deps",
                "-r",
                str(requirements(name)),
            ],
            f"{name}: pip install -r {requirements(name).relative_to(ROOT)}",
        )
        run([str(python), "-m", "pip", "check"], f"{name}: pip check")
        installed = run(
            [str(python), "-c", f"import importlib.metadata as m; print(m.version({distribution!r}))"],
            f"{name}: reading the installed version of {distribution}",
        ).strip()
        if installed != version:
            raise InstallError(f"{name}: {distribution} installed at {installed}, pinned {version}")
        if script and not (folder / "bin" / script).is_file():
            raise InstallError(f"{name}: {distribution} installed no {script} command")

    return install


def venv_intact(name: str) -> Callable[[Path], bool]:
    script = PYTHON_TARGETS[name][1]
    return lambda folder: (folder / "bin" / "python").exists() and (not script or (folder / "bin" / script).is_file())


# Fixtures the servers serve


def files_of(folder: Path) -> dict[str, str]:
    found = {}
    for path in folder.rglob("*"):
        relative = path.relative_to(folder)
        if relative.parts[0] in (".git", STAMP) or not path.is_file():
            continue
        found[relative.as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    return found


def filesystem_root_install(folder: Path) -> None:
    for relative, text in FILESYSTEM_ROOT.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")


def filesystem_root_intact(folder: Path) -> bool:
    return files_of(folder) == FILESYSTEM_ROOT


def git_digest() -> str:
    return sha256(json.dumps(GIT_COMMITS, sort_keys=True).encode())


def git_install(folder: Path) -> None:
    git = shutil.which("git")
    if git is None:
        raise InstallError("git-repo: git is not on PATH (it makes the repository mcp-server-git serves)")
    run([git, "init", "--quiet", "--initial-branch=main", str(folder)], "git-repo: git init")
    for number, (message, files) in enumerate(GIT_COMMITS):
        for relative, text in files.items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_text(text, encoding="utf-8")
        date = f"2026-01-0{number + 1}T12:00:00+00:00"
        env = GIT_ENV | {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        run([git, "add", "--all"], "git-repo: git add", cwd=folder, env=env)
        run([git, "commit", "--quiet", "-m", message], f"git-repo: git commit {message!r}", cwd=folder, env=env)
    (folder / ".git" / "info" / "exclude").write_text(f"/{STAMP}\n", encoding="utf-8")
    (folder / ".git" / GIT_HEAD_RECORD).write_bytes((folder / ".git" / "refs" / "heads" / "main").read_bytes())


def git_intact(folder: Path) -> bool:
    """Still at the last commit made, on main, with a clean tree (mcp-server-git's tools can change all three)."""
    expected: dict[str, str] = {}
    for _, files in GIT_COMMITS:
        expected |= files
    if files_of(folder) != expected or (folder / ".git" / "HEAD").read_text().strip() != "ref: refs/heads/main":
        return False
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=folder,
        env=os.environ | GIT_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    heads = folder / ".git" / "refs" / "heads"
    return (
        status.returncode == 0
        and not status.stdout.strip()
        and [branch.name for branch in heads.iterdir()] == ["main"]
        and not (folder / ".git" / "packed-refs").exists()
        and (heads / "main").read_bytes() == (folder / ".git" / GIT_HEAD_RECORD).read_bytes()
    )


UNITS = (
    Unit("npm", npm_digest, npm_install, npm_intact),
    *(Unit(name, venv_digest(name), venv_install(name), venv_intact(name)) for name in PYTHON_TARGETS),
    Unit(
        "filesystem-root",
        lambda: sha256(json.dumps(FILESYSTEM_ROOT, sort_keys=True).encode()),
        filesystem_root_install,
        filesystem_root_intact,
    ),
    Unit("git-repo", git_digest, git_install, git_intact),
)


def ensure(unit: Unit) -> str:
    """Install ``unit`` unless its stamp holds the digest of its inputs and it is intact; say what was done."""
    digest = unit.digest()
    stamp = unit.folder / STAMP
    try:
        if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == digest and unit.intact(unit.folder):
            return ""
    except OSError:
        pass
    started = time.monotonic()
    if unit.folder.exists():
        shutil.rmtree(unit.folder)
    unit.folder.mkdir(parents=True)
    unit.install(unit.folder)
    stamp.write_text(digest + "\n", encoding="utf-8")
    return f"make targets: {unit.name}: installed in {time.monotonic() - started:.1f} s"


def main() -> int:
    CACHE.mkdir(parents=True, exist_ok=True)
    failures = []
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {unit.name: pool.submit(ensure, unit) for unit in UNITS}
        for name, future in futures.items():
            try:
                said = future.result()
            except InstallError as exc:
                failures.append(str(exc))
            except Exception as exc:  # any other fault of a unit is reported with its name too
                failures.append(f"{name}: {type(exc).__name__}: {exc}")
            else:
                if said:
                    print(said, flush=True)
    if failures:
        for failure in failures:
            print(f"make targets: FAILED: {failure}", file=sys.stderr)
        print(f"make targets: {len(failures)} of {len(UNITS)} target(s) failed to install", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
