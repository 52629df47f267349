"""A capture of a real client and server no one here wrote, validated offline (issue #14's proof).

``python -m conformance.capture.real [DIR] [--client T] [--server T] [--scenario S]`` (``make
capture-real``; needs ``make targets``): by default the TypeScript SDK's client (the ts-sdk-client
target's driver, running scenario ``rich``) against the npm "everything" server (the server-everything
target); any client and server target, launched as their profiles say; recorded

- over stdio, the client launching ``capture -- <the server's stdio command>`` as its server;
- over Streamable HTTP (if the server's profile offers it), the client pointed at ``capture --listen 0
  --upstream <the server's URL>``;

then ``python -m conformance validate`` on the recordings. It prints each report's headline; the exit
status is the validator's. Every wait is bounded; every process it starts is stopped before it returns.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import shlex
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from conformance.catalogue.spec_pin import PROJECT_ROOT
from conformance.harness.launcher import HttpServerProcess

CLIENT_TARGET, SERVER_TARGET = "ts-sdk-client", "server-everything"
SCENARIO, REVISION = "rich", "2025-11-25"
STREAMABLE_HTTP = "streamable-http"
COMPLETED = "mcp-matrix: scenario completed"
BOUND = 60.0  # seconds for any one step: a start, a client run, a stop
CAPTURE = [sys.executable, "-m", "conformance", "capture"]


class NotInstalled(RuntimeError):
    """The targets' packages are not installed (``make targets``)."""


def profile(name: str) -> dict[str, Any]:
    return yaml.safe_load((PROJECT_ROOT / "targets" / f"{name}.yaml").read_text(encoding="utf-8"))


def _installed(command: list[str]) -> list[str]:
    if "/" in command[0] and not (PROJECT_ROOT / command[0]).exists():
        raise NotInstalled(f"{command[0]} is missing: run `make targets`")
    return command


def _environment(scenario: str = SCENARIO) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")]))
    return os.environ | {"MCP_CONFORMANCE_SCENARIO": scenario, "MCP_MATRIX_REVISION": REVISION, "PYTHONPATH": path}


def _run_client(client: str, scenario: str, argv: list[str]) -> None:
    command = _installed(shlex.split(profile(client)["client"]))
    run = subprocess.run(
        [*command, *argv], cwd=PROJECT_ROOT, env=_environment(scenario), capture_output=True, text=True, timeout=BOUND
    )
    if COMPLETED not in run.stdout:
        raise RuntimeError(
            f"the client did not complete scenario {scenario}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
        )


def capture_stdio(
    directory: Path, client: str = CLIENT_TARGET, server: str = SERVER_TARGET, scenario: str = SCENARIO
) -> Path:
    """The client launching capture, which launches the server: the recording."""
    command = _installed(shlex.split(profile(server)["server"]["stdio"]))
    output = str(directory / "stdio-{session}.jsonl")
    _run_client(client, scenario, ["--transport", "stdio", "--", *CAPTURE, "-o", output, "--", *command])
    return _only(directory, "stdio-*.jsonl")


def capture_streamable_http(
    directory: Path, client: str = CLIENT_TARGET, server: str = SERVER_TARGET, scenario: str = SCENARIO
) -> Path:
    """The server on a free port, capture's proxy before it, the client at the proxy: the recording."""
    served = profile(server)["server"][STREAMABLE_HTTP]
    upstream = HttpServerProcess(served["command"], directory / "server.log", url=served["url"], env=served.get("env"))
    try:
        proxy_command = [*CAPTURE, "--listen", "0", "--upstream", upstream.url]
        proxy_command += ["-o", str(directory / "http-{session}.jsonl")]
        proxy = subprocess.Popen(proxy_command, cwd=PROJECT_ROOT, env=_environment(), stderr=subprocess.PIPE)
        with _stopped(proxy):
            announced = _await_line(proxy.stderr, "capture: proxying")
            proxy_port = int(announced.split("http://127.0.0.1:")[1].split()[0])
            upstream_port = urlsplit(upstream.url).port
            _run_client(client, scenario, [upstream.url.replace(f":{upstream_port}/", f":{proxy_port}/", 1)])
    finally:
        upstream.close()
    return _only(directory, "http-*.jsonl")


def _await_line(stream: Any, text: str) -> str:
    """The first line of ``stream`` that contains ``text``, waiting at most ``BOUND`` seconds in all."""
    seen = b""
    while text.encode() not in seen:
        if not select.select([stream], [], [], BOUND)[0]:
            raise TimeoutError(f"no {text!r} within {BOUND:.0f}s; so far: {seen[-500:]!r}")
        chunk = os.read(stream.fileno(), 4096)
        if not chunk:
            raise RuntimeError(f"the process ended before saying {text!r}: {seen[-500:]!r}")
        seen += chunk
    return next(line for line in seen.decode(errors="replace").splitlines() if text in line)


@contextlib.contextmanager
def _stopped(process: subprocess.Popen[bytes]) -> Iterator[None]:
    """Stop ``process`` on the way out: SIGTERM, then SIGKILL if it has not ended within the bound."""
    with process:
        try:
            yield
        finally:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(BOUND / 4)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(BOUND)


def _only(directory: Path, pattern: str) -> Path:
    found = sorted(directory.glob(pattern))
    if len(found) != 1:
        raise RuntimeError(f"expected one recording {pattern} in {directory}, found {[p.name for p in found]}")
    return found[0]


def validate(recording: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "conformance", "validate", str(recording)]
    return subprocess.run(command, cwd=PROJECT_ROOT, env=_environment(), capture_output=True, text=True, timeout=BOUND)


def headline(report: str) -> str:
    """The report's last two lines: the totals and the verdict."""
    return "\n".join(report.rstrip().splitlines()[-2:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.capture.real", description=__doc__.split("\n")[0])
    parser.add_argument("directory", nargs="?", help="where the recordings go (default: a temporary directory)")
    parser.add_argument(
        "--client", default=CLIENT_TARGET, help=f"the client's target profile (default {CLIENT_TARGET})"
    )
    parser.add_argument(
        "--server", default=SERVER_TARGET, help=f"the server's target profile (default {SERVER_TARGET})"
    )
    parser.add_argument("--scenario", default=SCENARIO, help=f"the client driver's scenario (default {SCENARIO})")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        directory = Path(args.directory or stack.enter_context(tempfile.TemporaryDirectory(prefix="capture-real-")))
        directory.mkdir(parents=True, exist_ok=True)
        worst = 0
        served = profile(args.server)["server"]
        for transport, record in (("stdio", capture_stdio), (STREAMABLE_HTTP, capture_streamable_http)):
            if transport not in served:
                continue
            recording = record(directory, args.client, args.server, args.scenario)
            report = validate(recording)
            print(f"{args.client} -> {args.server} over {transport}, scenario {args.scenario}: {recording}")
            print(headline(report.stdout) if report.stdout else report.stderr.strip())
            worst = max(worst, report.returncode)
        return worst


if __name__ == "__main__":
    sys.exit(main())
