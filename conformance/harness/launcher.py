"""Starting a stdio server for a session: a fresh process, or a fork of a warm parent.

Importing the SDK costs over a second, so a session of the fixture server must not pay for an
interpreter start. ``WarmLauncher`` keeps one parent (see ``zygote``) that has imported the
server module; each ``start()`` hands it three pipe ends over a Unix socket and it forks a child
that serves stdio on them: milliseconds a session. ``CommandLauncher`` starts a fresh process
for external servers and for the cells about process start and exit.

Nothing outlives the run: children die with their parent (``PR_SET_PDEATHSIG``), the warm
parent exits when its control socket closes, and ``close()`` kills what is left.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

PR_SET_PDEATHSIG = 1
START_TIMEOUT_SECONDS = 30.0


def die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; elsewhere a no-op)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def process_running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not), whoever its parent is."""
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (ProcessLookupError, OSError):
        return False


@dataclass
class ServerProcess:
    """A running stdio server: the peer's ends of its pipes, and how to stop it."""

    pid: int
    stdin: IO[bytes]
    stdout: IO[bytes]
    stderr: IO[bytes]
    popen: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def kill(self) -> None:
        """Stop the process; its pipes stay open so that readers see end-of-file, not a closed file."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.pid, signal.SIGKILL)
        if self.popen is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=5)

    def close_pipes(self) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            with contextlib.suppress(OSError):
                stream.close()

    def stop(self) -> None:
        self.kill()
        self.close_pipes()


class Launcher(Protocol):
    description: str

    def start(self, argv: list[str] | None = None, env: dict[str, str] | None = None) -> ServerProcess: ...

    def close(self) -> None: ...


class CommandLauncher:
    """A fresh process per session, from a command line."""

    def __init__(self, command: list[str] | str, env: dict[str, str] | None = None) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.env = env
        self.description = shlex.join(self.argv)
        self._started: list[ServerProcess] = []

    def start(self, argv: list[str] | None = None, env: dict[str, str] | None = None) -> ServerProcess:
        popen = subprocess.Popen(
            [*self.argv, *(argv or [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=(self.env or dict(os.environ)) | (env or {}) if env or self.env else None,
            preexec_fn=die_with_parent,  # a single prctl call before exec
        )
        assert popen.stdin and popen.stdout and popen.stderr
        process = ServerProcess(popen.pid, popen.stdin, popen.stdout, popen.stderr, popen)
        self._started.append(process)
        return process

    def close(self) -> None:
        for process in self._started:
            process.stop()
        self._started.clear()


class WarmLauncher:
    """Forks each session's server from a parent that has already imported ``module``."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.description = f"{sys.executable} -m {module} (forked from a warm parent)"
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._control = ours
        self._parent = subprocess.Popen(
            [sys.executable, "-m", "conformance.harness.zygote", module, str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
        )
        theirs.close()
        self._control.settimeout(START_TIMEOUT_SECONDS)
        ready = self._control.recv(16)
        if ready != b"ready":
            self.close()
            raise RuntimeError(f"warm parent for {module} did not start (said {ready!r})")
        self._children: list[ServerProcess] = []

    def start(self, argv: list[str] | None = None, env: dict[str, str] | None = None) -> ServerProcess:
        """Fork a child that runs the module's ``main()`` with ``argv`` and ``env`` added to its own."""
        order = json.dumps({"argv": argv or [], "env": env or {}}).encode()
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        stderr_read, stderr_write = os.pipe()
        try:
            socket.send_fds(self._control, [order], [stdin_read, stdout_write, stderr_write])
            reply = self._control.recv(32)
        finally:
            for fd in (stdin_read, stdout_write, stderr_write):
                os.close(fd)
        if not reply.isdigit():
            raise RuntimeError(f"warm parent could not fork a server (said {reply!r})")
        process = ServerProcess(
            int(reply),
            os.fdopen(stdin_write, "wb", buffering=0),
            os.fdopen(stdout_read, "rb", buffering=0),
            os.fdopen(stderr_read, "rb", buffering=0),
        )
        self._children.append(process)
        return process

    def close(self) -> None:
        for process in self._children:
            process.stop()
        self._children.clear()
        self._control.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._parent.wait(timeout=5)
        if self._parent.poll() is None:
            self._parent.kill()
            self._parent.wait(timeout=5)


class HttpServerProcess:
    """A long-lived HTTP server under test, started once per worker; each test opens its own session.

    The command must print ``listening <url>`` as its first line on stdout once it accepts
    connections (the fixture server does). Its stderr goes to ``log``, a file rather than a pipe,
    so that a chatty server never blocks on it.
    """

    def __init__(self, command: list[str], log: Path, start_timeout: float = START_TIMEOUT_SECONDS) -> None:
        self.description = shlex.join(command)
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("wb") as stderr:
            self._popen = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent
            )
        assert self._popen.stdout is not None
        stdout = self._popen.stdout
        said: list[str] = []
        reader = threading.Thread(target=lambda: said.append(stdout.readline().decode()), daemon=True)
        reader.start()
        reader.join(timeout=start_timeout)
        line = said[0].strip() if said else ""
        if not line.startswith("listening "):
            self.close()
            raise RuntimeError(
                f"{self.description} did not say 'listening <url>' within {start_timeout:g}s "
                f"(said {line!r}; its stderr is in {log})"
            )
        self.url = line.removeprefix("listening ").strip()

    def close(self) -> None:
        if self._popen.poll() is None:
            self._popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout=5)
        if self._popen.stdout is not None:
            self._popen.stdout.close()
