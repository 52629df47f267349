"""Starting a stdio server for a session: a fresh process, or a fork of a warm parent.

Importing the SDK costs over a second, so a session of the fixture server must not pay for an
interpreter start. ``WarmLauncher`` keeps one parent (see ``zygote``) that has imported the
server module; each ``start()`` hands it three pipe ends over a Unix socket and it forks a child
that serves stdio on them: milliseconds a session. ``CommandLauncher`` starts a fresh process
for external servers and for the cells about process start and exit.

Nothing outlives the run: children die with their parent (``PR_SET_PDEATHSIG``), the warm
parent exits when its control socket closes, and ``close()`` kills what is left. An external
command runs in a process group of its own (``spawn``), so that what it starts (a shell's or
npx's children) is stopped with it; a janitor process kills those groups if the run itself dies
(Ctrl-C, a crash, SIGKILL), since nothing else would.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol
from urllib.parse import urlsplit

PR_SET_PDEATHSIG = 1
START_TIMEOUT_SECONDS = 30.0


def die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; elsewhere a no-op)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


# Reads group ids ("+pgid" to watch, "-pgid" to forget) until its stdin closes, which happens when
# the process that started it ends in any way; then kills every group still watched.
JANITOR = """
import os, signal, sys
groups = set()
for line in sys.stdin:
    (groups.add if line[0] == "+" else groups.discard)(int(line[1:]))
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""
_janitor: subprocess.Popen[bytes] | None = None
_janitor_lock = threading.Lock()


def _tell_janitor(line: str) -> None:
    global _janitor
    with _janitor_lock:
        if _janitor is None or _janitor.poll() is not None:
            # A session of its own: the Ctrl-C that stops the run must not stop the janitor first.
            _janitor = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", JANITOR], stdin=subprocess.PIPE, start_new_session=True
            )
        assert _janitor.stdin is not None
        _janitor.stdin.write(f"{line}\n".encode())
        _janitor.stdin.flush()


def spawn(argv: list[str], **options: object) -> subprocess.Popen[bytes]:
    """Start an external command as the leader of a new process group, watched by the janitor."""
    popen = subprocess.Popen(argv, start_new_session=True, preexec_fn=die_with_parent, **options)
    _tell_janitor(f"+{popen.pid}")
    return popen


def kill_group(popen: subprocess.Popen[bytes]) -> None:
    """Kill a ``spawn``ed command and everything in its group, and reap it (bounded)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(popen.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        popen.wait(timeout=5)
    _tell_janitor(f"-{popen.pid}")


def free_loopback_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now (for a server that must be told its port)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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
    # A forked child is reaped by the kernel as soon as it exits, so its pid may soon name another
    # process: it is killed through a pidfd, which names this process only (None: already gone).
    pidfd: int | None = field(default=None, repr=False)
    # A child of a shared warm parent (SharedLauncher): the connection that ordered it, which it dies with.
    connection: socket.socket | None = field(default=None, repr=False)

    def kill(self) -> None:
        """Stop the process; its pipes stay open so that readers see end-of-file, not a closed file."""
        if self.popen is not None:
            kill_group(self.popen)
            return
        if self.pidfd is not None:
            with contextlib.suppress(ProcessLookupError, OSError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            os.close(self.pidfd)
            self.pidfd = None
        if self.connection is not None:
            self.connection.close()
            self.connection = None

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
        popen = spawn(
            [*self.argv, *(argv or [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=(self.env or dict(os.environ)) | (env or {}) if env or self.env else None,
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
    """Forks each session's server from a parent that has already imported ``module`` (in the interpreter
    ``python``: another virtualenv's, for a client driver run on its library's own)."""

    def __init__(
        self,
        module: str,
        python: str = sys.executable,
        env: dict[str, str] | None = None,
        relays: bool = False,
        ready_wait: bool = True,
    ) -> None:
        """``env``: the warm parent's environment, hence every child's (default: this process's). ``relays``:
        the parent also takes orders on a socket, ``relay_path``, bound here before it starts (so that a
        connection never finds it missing): from ``stdio_relay`` processes and ``SharedLauncher``s.
        ``ready_wait=False``: return at once; the first ``start()`` waits for the parent's imports."""
        self.module = module
        self.description = f"{python} -m {module} (forked from a warm parent)"
        self._socket_dir = Path(tempfile.mkdtemp(prefix="mcp-matrix-warm-")) if relays else None
        self.relay_path = str(self._socket_dir / "relay.sock") if self._socket_dir else None
        self._children: list[ServerProcess] = []
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        passed = [theirs]
        if self.relay_path is not None:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            listener.bind(self.relay_path)
            listener.listen(64)
            passed.append(listener)
        self._control = ours
        self._parent = subprocess.Popen(
            [python, "-m", "conformance.harness.zygote", module, *(str(s.fileno()) for s in passed)],
            pass_fds=[s.fileno() for s in passed],
            stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
            env=env,
        )
        for passed_socket in passed:
            passed_socket.close()
        self._control.settimeout(START_TIMEOUT_SECONDS)
        self._ready = False
        if ready_wait:
            self._await_ready()

    def _await_ready(self) -> None:
        if self._ready:
            return
        ready = self._control.recv(16)
        if ready != b"ready":
            self.close()
            raise RuntimeError(f"warm parent for {self.module} did not start (said {ready!r})")
        self._ready = True

    def start(self, argv: list[str] | None = None, env: dict[str, str] | None = None) -> ServerProcess:
        """Fork a child that runs the module's ``main()`` with ``argv`` and ``env`` added to its own."""
        self._await_ready()
        process = _fork_through(self._control, argv, env)
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
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)


class SharedLauncher:
    """Forks each session's server from a warm parent another process keeps (``WarmLauncher(relays=True)``:
    the run's, shared by its test workers), through the parent's relay socket. Each server has a connection
    of its own, and closing it (``stop``, or this process ending) kills the server."""

    def __init__(self, relay_path: str, module: str) -> None:
        self.relay_path = relay_path
        self.module = module
        self.description = f"{module} (forked from the run's warm parent)"
        self._children: list[ServerProcess] = []

    def start(self, argv: list[str] | None = None, env: dict[str, str] | None = None) -> ServerProcess:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        connection.settimeout(START_TIMEOUT_SECONDS)
        try:
            connection.connect(self.relay_path)
            process = _fork_through(connection, argv, env)
        except BaseException:
            connection.close()
            raise
        process.connection = connection
        self._children.append(process)
        return process

    def close(self) -> None:
        for process in self._children:
            process.stop()
        self._children.clear()


def _fork_through(channel: socket.socket, argv: list[str] | None, env: dict[str, str] | None) -> ServerProcess:
    """Have the warm parent at the other end of ``channel`` fork a server on three new pipes (see zygote)."""
    order = json.dumps({"argv": argv or [], "env": env or {}}).encode()
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    stderr_read, stderr_write = os.pipe()
    try:
        socket.send_fds(channel, [order], [stdin_read, stdout_write, stderr_write])
        reply = channel.recv(32)
    finally:
        for fd in (stdin_read, stdout_write, stderr_write):
            os.close(fd)
    if not reply.isdigit():
        raise RuntimeError(f"warm parent could not fork a server (said {reply!r})")
    pid = int(reply)
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except ProcessLookupError:  # it has already ended
        pidfd = None
    return ServerProcess(
        pid,
        os.fdopen(stdin_write, "wb", buffering=0),
        os.fdopen(stdout_read, "rb", buffering=0),
        os.fdopen(stderr_read, "rb", buffering=0),
        pidfd=pidfd,
    )


def announced_url(stdout: IO[bytes], start_timeout: float, description: str, log: Path) -> str:
    """The url of a server whose first line on ``stdout`` is ``listening <url>``, said within the bound."""
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.append(stdout.readline().decode()), daemon=True)
    reader.start()
    reader.join(timeout=start_timeout)
    line = said[0].strip() if said else ""
    if not line.startswith("listening "):
        raise RuntimeError(
            f"{description} did not say 'listening <url>' within {start_timeout:g}s "
            f"(said {line!r}; its stderr is in {log})"
        )
    return line.removeprefix("listening ").strip()


class WarmHttpServer:
    """The fixture's HTTP server forked from the warm parent, as its stdio sessions are, so that
    neither it nor any configuration of it pays for importing the SDK again. Like ``HttpServerProcess``
    with a fixture command: it says ``listening <url>`` once it accepts connections; the rest of its
    output goes to ``log``."""

    def __init__(
        self,
        launcher: WarmLauncher | SharedLauncher,
        argv: list[str],
        log: Path,
        start_timeout: float = START_TIMEOUT_SECONDS,
    ) -> None:
        self.description = f"{launcher.description} {shlex.join(argv)}"
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        self._process = launcher.start(argv)
        self._log = log.open("wb")
        self._drain(self._process.stderr)
        try:
            self.url = announced_url(self._process.stdout, start_timeout, self.description, log)
        except RuntimeError:
            self.close()
            raise
        self._drain(self._process.stdout)

    def _drain(self, stream: IO[bytes]) -> None:
        """What the server writes goes to the log until it ends: a pipe nobody reads would block it."""

        def copy() -> None:
            with contextlib.suppress(ValueError, OSError):  # the log closed with the server
                for chunk in iter(lambda: stream.read(65536), b""):
                    self._log.write(chunk)

        threading.Thread(target=copy, daemon=True).start()

    def close(self) -> None:
        self._process.stop()
        self._log.close()


class HttpServerProcess:
    """A long-lived HTTP server under test, started once per worker; each test opens its own session.

    Either the command prints ``listening <url>`` as its first line on stdout once it accepts
    connections (the fixture server does), or ``url`` says where it will listen: ``{port}`` in the
    url, the command and ``env`` is a free loopback port picked here, and the server is ready when
    that port accepts a connection. Its stderr goes to ``log``, a file rather than a pipe, so that a
    chatty server never blocks on it.
    """

    def __init__(
        self,
        command: list[str] | str,
        log: Path,
        start_timeout: float = START_TIMEOUT_SECONDS,
        url: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        port = str(free_loopback_port()) if url and "{port}" in url else ""
        argv = [
            part.replace("{port}", port) for part in (shlex.split(command) if isinstance(command, str) else command)
        ]
        self.description = shlex.join(argv)
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("wb") as stderr:
            self._popen = spawn(
                argv,
                stdout=subprocess.PIPE if url is None else stderr,
                stderr=stderr,
                stdin=subprocess.DEVNULL,
                env=os.environ | {k: v.replace("{port}", port) for k, v in (env or {}).items()},
            )
        self.url = (
            self._announced_url(start_timeout)
            if url is None
            else self._await_port(url.replace("{port}", port), start_timeout)
        )

    def _announced_url(self, start_timeout: float) -> str:
        assert self._popen.stdout is not None
        try:
            return announced_url(self._popen.stdout, start_timeout, self.description, self.log)
        except RuntimeError:
            self.close()
            raise

    def _await_port(self, url: str, start_timeout: float) -> str:
        """Wait, bounded, until the url's loopback port accepts a connection."""
        parsed = urlsplit(url)
        deadline = time.monotonic() + start_timeout
        while time.monotonic() < deadline and self._popen.poll() is None:
            with contextlib.suppress(OSError), socket.create_connection((parsed.hostname, parsed.port), timeout=0.5):
                return url
            time.sleep(0.05)  # polling a port that is not open yet: there is nothing to wait on
        status = self._popen.poll()
        self.close()
        if status is not None:
            raise RuntimeError(
                f"{self.description} exited ({status}) before accepting connections at {url} "
                f"(its output is in {self.log})"
            )
        raise RuntimeError(
            f"{self.description} did not accept connections at {url} within {start_timeout:g}s "
            f"(its output is in {self.log})"
        )

    def close(self) -> None:
        kill_group(self._popen)
        if self._popen.stdout is not None:
            self._popen.stdout.close()
