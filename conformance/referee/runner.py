"""One profile of the referee, end to end, with its evidence in ``reports/referee/<profile>/``.

Server profiles: start the fixture server over Streamable HTTP on 127.0.0.1, probe what it
advertises (``server/discover`` at 2026-07-28, ``initialize`` at 2025-11-25), run
``server --requirements <rev>`` against it, stop it. Authorization profiles: start the fixture server as its
own authorization server (its ``oauth-hosted`` configuration, with the referee's client registered beforehand),
read its metadata, run ``authorization --spec-version <rev>`` against its issuer, playing the browser the
referee asks for (``ScriptedBrowser``: the authorization URL it prints is fetched, and its redirect handed to the
referee's callback), stop it. Client profiles: run ``warm`` inside a fresh
network namespace (``unshare --net``; ``--map-root-user`` when not root), which runs
``client --requirements <rev>`` with the SDK client driver as the client command.

Every wait is bounded; every process is started in its own process group and the group is killed
on every way out (Ctrl-C and SIGTERM included); each also dies with this process (``PR_SET_PDEATHSIG``),
so not even a SIGKILL of the runner leaves one behind. The evidence folder holds ``raw/`` (the referee's
checks.json tree), ``referee.log``, ``fixture.log`` or ``launches.jsonl``, and ``metadata.json``;
the gate adds ``gate.json``, ``gate.txt`` and ``fingerprints.jsonl``.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conformance.harness.launcher import die_with_parent
from conformance.referee import REPORTS, ROOT
from conformance.referee.gate import load_requirement_set
from conformance.referee.install import Referee

FIXTURE_START_SECONDS = 60
PROBE_SECONDS = 10
SCENARIO_TIMEOUT_MS = 30000  # the referee's per-scenario bound on the server leg (its default)
CLIENT_TIMEOUT_MS = 120000  # the referee's bound per client run, queueing for a driver slot included
CLIENT_PARALLEL = 6  # drivers running at once on the client leg
DRIVER_SECONDS = 50  # the warm parent's bound per driver run, from its fork (the driver gives up after 45 s)
SERVER_LEG_SECONDS = 600
AUTHORIZATION_LEG_SECONDS = 60  # the referee waits 5 minutes for a browser that never comes: a failed run ends sooner
BROWSER_SECONDS = 10  # the browser's bound per request
REFEREE_CLIENT_ID = "mcp-matrix-referee"  # the client the fixture registers beforehand for the referee
CLIENT_LEG_SECONDS = 300
KILL_GRACE_SECONDS = 5


class RunError(Exception):
    """The profile could not be run (the fixture did not start, the namespace cannot be made...)."""


@contextlib.contextmanager
def terminating_signals() -> Iterator[None]:
    """Turn SIGTERM (and SIGHUP) into an exception, as Ctrl-C is, so that every cleanup runs."""

    def interrupt(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def kill_group(process: subprocess.Popen[Any]) -> None:
    """Stop a process started with ``start_new_session=True`` and everything in its group."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=KILL_GRACE_SECONDS)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # stragglers of the group, even when the leader is gone
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=KILL_GRACE_SECONDS)


def project_commit() -> str | None:
    """The checked-out commit, read from .git's files (no git command is run)."""
    git = ROOT / ".git"
    try:
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref: "):
            return head
        ref = head.removeprefix("ref: ")
        if (git / ref).is_file():
            return (git / ref).read_text(encoding="utf-8").strip()
        for line in (git / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    except OSError:
        return None
    return None


# ---------------------------------------------------------------------------------------------
# The fixture server and its capability advertisement
# ---------------------------------------------------------------------------------------------


def start_fixture(log_path: Path, options: tuple[str, ...] = ()) -> tuple[subprocess.Popen[bytes], str]:
    command = [
        sys.executable,
        "-m",
        "conformance.fixtures.server",
        "--transport",
        "streamable-http",
        "--port",
        "0",
        *options,
    ]
    log = log_path.open("wb")
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=log,
        start_new_session=True,
        preexec_fn=die_with_parent,
    )
    log.close()
    assert process.stdout is not None
    try:
        line = _read_line(process.stdout, FIXTURE_START_SECONDS)
    except BaseException:
        kill_group(process)
        raise
    if not line.startswith("listening http://127.0.0.1:"):
        kill_group(process)
        raise RunError(f"the fixture server did not announce a loopback URL within {FIXTURE_START_SECONDS} s: {line!r}")
    return process, line.split(" ", 1)[1]


def _read_line(stream: Any, seconds: float) -> str:
    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)
    deadline = time.monotonic() + seconds
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0 or not selector.select(timeout=left):
            break
        chunk = os.read(stream.fileno(), 4096)
        if not chunk:
            break
        data += chunk
    selector.close()
    return data.decode("utf-8", "replace").split("\n", 1)[0].strip()


def _post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
    )
    with urllib.request.urlopen(request, timeout=PROBE_SECONDS) as response:
        text = response.read().decode("utf-8")
        answer_headers = {k.lower(): v for k, v in response.headers.items()}
    if answer_headers.get("content-type", "").startswith("text/event-stream"):
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                return json.loads(line[5:]), answer_headers
        raise RunError(f"no data in the SSE answer to {body['method']}")
    return json.loads(text), answer_headers


def probe_capabilities(url: str, revision: str) -> dict[str, Any]:
    """What the fixture advertises at ``revision``: its capabilities and the versions it offers."""
    client_info = {"name": "mcp-matrix-referee-probe", "version": "0.1.0"}
    if revision >= "2026-07-28":
        meta = {
            "io.modelcontextprotocol/protocolVersion": revision,
            "io.modelcontextprotocol/clientInfo": client_info,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        body = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}
        answer, _ = _post(url, body, {"MCP-Protocol-Version": revision, "MCP-Method": "server/discover"})
        result = answer.get("result") or {}
        return {
            "method": "server/discover",
            "capabilities": result.get("capabilities"),
            "supportedVersions": result.get("supportedVersions"),
        }
    params = {"protocolVersion": revision, "capabilities": {}, "clientInfo": client_info}
    answer, headers = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}, {})
    result = answer.get("result") or {}
    session = headers.get("mcp-session-id")
    if session:  # end the probe's session
        request = urllib.request.Request(
            url, method="DELETE", headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": revision}
        )
        with contextlib.suppress(OSError), urllib.request.urlopen(request, timeout=PROBE_SECONDS):
            pass
    return {
        "method": "initialize",
        "capabilities": result.get("capabilities"),
        "protocolVersion": result.get("protocolVersion"),
    }


# ---------------------------------------------------------------------------------------------
# Profiles
# ---------------------------------------------------------------------------------------------


def prepare(profile: str, reports: Path = REPORTS) -> Path:
    out = reports / profile
    if out.exists():
        shutil.rmtree(out)
    (out / "raw").mkdir(parents=True)
    return out


def run_profile(profile: str, settings: dict[str, Any], referee: Referee, reports: Path = REPORTS) -> Path:
    """Run one profile; return its evidence folder (with ``metadata.json`` written however it ended)."""
    out = prepare(profile, reports)
    metadata: dict[str, Any] = {
        "profile": profile,
        "leg": settings["leg"],
        "requirements": settings["requirements"],
        "project_commit": project_commit(),
        "referee_version": referee.version,
        "node_version": referee.node_version,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        # the scenario lists of the referee's frozen requirement set (the gate checks them against the baseline)
        "scenarios": load_requirement_set(referee.requirements_dir, settings["requirements"], settings["leg"]),
    }
    started = time.monotonic()
    try:
        with terminating_signals():
            if settings["leg"] == "server":
                _run_server(out, settings, referee, metadata)
            elif settings["leg"] == "authorization":
                _run_authorization(out, settings, referee, metadata)
            else:
                _run_client(out, settings, referee, metadata)
    except RunError as exc:
        metadata["run_error"] = str(exc)
    finally:
        metadata["wall_seconds"] = round(time.monotonic() - started, 2)
        (out / "metadata.json").write_text(json.dumps(metadata, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out


def _run_server(out: Path, settings: dict[str, Any], referee: Referee, metadata: dict[str, Any]) -> None:
    fixture, url = start_fixture(out / "fixture.log")
    try:
        metadata["target"] = url
        try:
            metadata["capabilities"] = probe_capabilities(url, settings["requirements"])
        except (OSError, ValueError) as exc:
            raise RunError(f"the capability probe of {url} failed: {exc}") from exc
        command = referee.command(
            "server",
            "--url",
            url,
            "--requirements",
            settings["requirements"],
            "-o",
            str(out / "raw"),
            "--timeout",
            str(SCENARIO_TIMEOUT_MS),
        )
        metadata["command"] = command
        metadata["exit_code"], metadata["timed_out"] = _run_bounded(command, out / "referee.log", SERVER_LEG_SECONDS)
    finally:
        kill_group(fixture)


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def advertised_metadata(issuer: str) -> dict[str, Any]:
    """The authorization server's RFC 8414 metadata, each URL cut to its path (the port changes every run)."""
    with urllib.request.urlopen(f"{issuer}/.well-known/oauth-authorization-server", timeout=PROBE_SECONDS) as answer:
        document = json.loads(answer.read())
    return {
        name: urllib.parse.urlsplit(value).path if isinstance(value, str) and value.startswith(issuer) else value
        for name, value in document.items()
    }


class ScriptedBrowser:
    """The browser the referee's authorization-code-grant asks a person to open: the authorization request URL the
    referee prints is fetched (its redirect read, not followed) once the referee says its callback server listens,
    and a redirect to that callback is fetched in turn, as a browser would; every line goes on to the log."""

    CALLBACK_READY = "Callback server started: "  # what the referee prints once its callback server listens

    def __init__(self, authorization_endpoint: str, callback: str, log: Any) -> None:
        self.authorization_endpoint, self.callback, self.log = authorization_endpoint, callback, log
        self.visits: list[dict[str, Any]] = []

    def read(self, stream: Any) -> None:
        pending, listening = "", False
        origin = self.callback.removesuffix(urllib.parse.urlsplit(self.callback).path)
        for raw in iter(stream.readline, b""):
            self.log.write(raw)
            self.log.flush()
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith(f"{self.authorization_endpoint}?"):
                pending = line
            elif line == f"{self.CALLBACK_READY}{origin}":
                listening = True
            if pending and listening:
                self.visit(pending)
                pending, listening = "", False

    def visit(self, url: str) -> None:
        visit: dict[str, Any] = {"authorization_request": url}
        try:
            status, location = _get_without_following(url)
            visit |= {"status": status, "location": location}
            if location.startswith(f"{self.callback}?"):
                visit["callback_status"] = _get_without_following(location)[0]
        except OSError as exc:
            visit["error"] = str(exc)
        self.visits.append(visit)


def _get_without_following(url: str) -> tuple[int, str]:
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=BROWSER_SECONDS)
    try:
        connection.request("GET", urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, "")))
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("location") or ""
    finally:
        connection.close()


def _run_authorization(out: Path, settings: dict[str, Any], referee: Referee, metadata: dict[str, Any]) -> None:
    port = free_loopback_port()
    callback = f"http://127.0.0.1:{port}/callback"  # the referee's callback server listens there
    options = (
        "--oauth-hosted",
        "--oauth-scopes",
        "mcp-matrix:tools",
        "--oauth-client",
        f"{REFEREE_CLIENT_ID}={callback}",
    )
    fixture, url = start_fixture(out / "fixture.log", options)
    try:
        issuer = url.removesuffix("/mcp")
        metadata["target"] = issuer
        try:
            metadata["capabilities"] = advertised_metadata(issuer)
        except (OSError, ValueError) as exc:
            raise RunError(f"the metadata of {issuer} could not be read: {exc}") from exc
        command = referee.command(
            "authorization",
            "--url",
            issuer,
            "--client-id",
            REFEREE_CLIENT_ID,
            "--resource",
            url,
            "--port",
            str(port),
            "--spec-version",
            settings["requirements"],
            "-o",
            str(out / "raw"),
        )
        metadata["command"] = command
        browser = ScriptedBrowser(f"{issuer}{metadata['capabilities']['authorization_endpoint']}", callback, None)
        rc, timed_out = _run_bounded(command, out / "referee.log", AUTHORIZATION_LEG_SECONDS, browser)
        metadata["exit_code"], metadata["timed_out"], metadata["browser"] = rc, timed_out, browser.visits
    finally:
        kill_group(fixture)


def _run_client(out: Path, settings: dict[str, Any], referee: Referee, metadata: dict[str, Any]) -> None:
    unshare = shutil.which("unshare")
    if unshare is None:
        raise RunError("`unshare` (util-linux) is needed to run the client leg in a loopback-only network namespace")
    namespace = [unshare, "--net"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
    command = [
        *namespace,
        "--",
        sys.executable,
        "-m",
        "conformance.referee.warm",
        "--out",
        str(out),
        "--revision",
        settings["requirements"],
        "--node",
        str(referee.node),
        "--cli",
        str(referee.cli),
        "--client-timeout-ms",
        str(CLIENT_TIMEOUT_MS),
        "--parallel",
        str(CLIENT_PARALLEL),
        "--driver-seconds",
        str(DRIVER_SECONDS),
        "--deadline",
        str(CLIENT_LEG_SECONDS),
    ]
    metadata["command"] = command
    rc, timed_out = _run_bounded(command, out / "referee.log", CLIENT_LEG_SECONDS + 30)
    leg_path = out / "leg.json"
    if not leg_path.is_file():
        tail = (out / "referee.log").read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
        raise RunError(
            f"the client leg did not start or did not finish (exit {rc}, no leg.json); the end of "
            f"{out / 'referee.log'}: {' | '.join(tail) or '(empty)'}"
        )
    leg = json.loads(leg_path.read_text(encoding="utf-8"))
    metadata["exit_code"] = leg.get("exit_code")
    metadata["timed_out"] = bool(timed_out or leg.get("timed_out"))
    metadata["interfaces"] = leg.get("interfaces")
    metadata["referee_command"] = leg.get("command")
    metadata["capabilities"] = leg.get("driver")  # what the driver offers, recorded before the referee started
    if leg.get("interfaces") != ["lo"]:
        raise RunError(f"the client leg's namespace has interfaces {leg.get('interfaces')}, not just lo")


def _run_bounded(
    command: list[str], log_path: Path, seconds: float, browser: ScriptedBrowser | None = None
) -> tuple[int | None, bool]:
    """Run ``command`` for at most ``seconds``, its output in ``log_path`` (read by ``browser`` on the way)."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if browser else log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent,  # even a SIGKILL of this process leaves nothing behind
        )
        reader = None
        if browser is not None:
            browser.log = log
            reader = threading.Thread(target=browser.read, args=(process.stdout,), daemon=True)
            reader.start()
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None, True
        finally:
            kill_group(process)
            if reader is not None:
                reader.join(timeout=KILL_GRACE_SECONDS)
    return process.returncode, False
