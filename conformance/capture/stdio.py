"""``capture -o FILE -- SERVER_CMD...``: a stdio server wrapped for any client, recorded as it runs.

The client launches capture as its server command. Capture starts SERVER_CMD with pipes for its
stdin and stdout (stderr is inherited, untouched) and copies bytes both ways as they come, in the
chunks they come in, nothing added, dropped or reordered. The lines a chunk completes are recorded
before the chunk is passed on, so that what the other side sends in reaction comes later in ``seq``
(the only ordering authority). The recorder cuts each direction into lines and records each line (``recording.py``:
a ``message`` if it is one JSON value, else ``unparsable``).

Lifecycle events: ``open`` (the server started: its pid and program name, not its arguments, which
may hold secrets), ``close`` for each direction's end (the client closed the server's stdin, the
server closed its stdout), ``signal`` (one capture received and passed on), ``exit`` (``status``, or
``signal`` when a signal ended the server).

Signals: SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are passed to the server (which runs
in its own process group, so a terminal's Ctrl-C reaches it once, through capture). Capture exits
with the server's status, or dies of the signal that ended it. Nothing outlives capture, nor the
client: if the client dies, the server gets SIGTERM (``client-gone``) and, still running
``CLIENT_GONE_SECONDS`` later, SIGKILL (``kill``); the server is killed if capture itself dies
(Linux's parent-death signal, which also tells capture of the client's death); once the server has exited,
capture waits at most ``DRAIN_SECONDS`` for what is left on its stdout (a child of the server may
hold it open), then kills whatever the server left in its process group, and goes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from conformance.capture.recording import LineSplitter, record_unit
from conformance.harness.trace import Trace

PASSED_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
CHUNK = 1 << 16
DRAIN_SECONDS = 2.0
PR_SET_PDEATHSIG = 1
COMMAND_NOT_FOUND = 127
COMMAND_NOT_RUNNABLE = 126
CLIENT_GONE = signal.SIGRTMIN  # sent by the kernel when the client (capture's parent) dies
CLIENT_GONE_SECONDS = 5.0
WATCH_SECONDS = 0.5
CLIENT_IN, CLIENT_OUT = 0, 1  # capture's stdin and stdout: the client's pipes


def _signal_at_parents_death(number: int) -> None:
    """Ask the kernel to send ``number`` to this process when its parent dies (Linux; elsewhere nothing)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, number)


def _die_with_capture(parent: int) -> None:
    """In the server's process, before it runs: the kernel kills it if capture dies."""
    _signal_at_parents_death(signal.SIGKILL)
    if os.getppid() != parent:  # capture died before the request took effect
        os._exit(1)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Pump:
    """Copies one direction (``source`` to ``sink``) and records its lines after writing them."""

    def __init__(self, trace: Trace, direction: str, source: int, sink: int) -> None:
        self.trace, self.direction, self.source, self.sink = trace, direction, source, sink
        self.lines = LineSplitter()
        self.thread = threading.Thread(target=self.run, name=f"capture-{direction}", daemon=True)

    def run(self) -> None:
        while True:
            try:
                chunk = os.read(self.source, CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                break
            for line in self.lines.feed(chunk):  # recorded before passed on: an answer comes later in seq
                record_unit(self.trace, self.direction, line)
            try:
                _write_all(self.sink, chunk)
            except OSError:
                break  # the reader is gone: closing the source breaks the writer's pipe, as without capture
        rest = self.lines.rest()
        if rest:
            record_unit(self.trace, self.direction, rest, unterminated=True)
        self.trace.lifecycle(self.direction, "close")
        with contextlib.suppress(OSError):
            os.close(self.source)
        with contextlib.suppress(OSError):
            os.close(self.sink)


def run(command: list[str], output: Path) -> int:
    """Run ``command`` as the wrapped server until it exits; return its exit status (or die of its signal)."""
    capture, client = os.getpid(), os.getppid()
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a client gone is a broken write, ending that direction only
    _signal_at_parents_death(CLIENT_GONE)  # until blocked below, its default action ends capture (and so the server)
    try:
        server = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
            process_group=0,
            preexec_fn=lambda: _die_with_capture(capture),
        )
    except FileNotFoundError:
        print(f"capture: no such command: {command[0]}", file=sys.stderr)
        return COMMAND_NOT_FOUND
    except PermissionError:
        print(f"capture: cannot run {command[0]}: permission denied", file=sys.stderr)
        return COMMAND_NOT_RUNNABLE
    # from here on, signals wait for the watcher thread (every thread started later inherits the mask): a
    # handler could interrupt a thread holding the trace's lock
    signal.pthread_sigmask(signal.SIG_BLOCK, {*PASSED_SIGNALS, signal.SIGCHLD, CLIENT_GONE})
    if os.getppid() != client:  # the client died before the kernel was asked to tell
        signal.raise_signal(CLIENT_GONE)
    assert server.stdin is not None and server.stdout is not None
    trace = Trace(output, "stdio")
    trace.lifecycle("client-to-server", "open", pid=server.pid, program=Path(command[0]).name)
    to_server = Pump(trace, "client-to-server", os.dup(CLIENT_IN), os.dup(server.stdin.fileno()))
    to_client = Pump(trace, "server-to-client", os.dup(server.stdout.fileno()), os.dup(CLIENT_OUT))
    server.stdin.close()
    server.stdout.close()
    _release_client_pipes()
    to_server.thread.start()
    to_client.thread.start()
    _watch_until_exit(server, trace, client)
    to_client.thread.join(DRAIN_SECONDS)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(server.pid, signal.SIGKILL)  # what the server left running in its group goes with it
    status = server.returncode
    if status < 0:
        trace.lifecycle("server-to-client", "exit", signal=signal.Signals(-status).name)
    else:
        trace.lifecycle("server-to-client", "exit", status=status)
    trace.close()
    if status < 0:
        _die_of(-status)
    return status


def _release_client_pipes() -> None:
    """Let go of capture's own ends of the client's pipes (the pumps hold duplicates), so that once a pump
    closes its duplicate the client sees that end close as it would have with the server itself; the
    standard descriptors stay open, on /dev/null."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (CLIENT_IN, CLIENT_OUT):
        os.dup2(null, fd)
    os.close(null)


def _watch_until_exit(server: subprocess.Popen[bytes], trace: Trace, client: int) -> None:
    """Pass each signal capture receives on to the server, until the server has exited. If the client dies,
    the server is told as the client would have told it (SIGTERM), and killed if it is still running
    ``CLIENT_GONE_SECONDS`` later."""
    watched = {*PASSED_SIGNALS, signal.SIGCHLD, CLIENT_GONE}
    deadline: float | None = None
    while server.poll() is None:
        wait = WATCH_SECONDS if deadline is None else max(0.0, min(WATCH_SECONDS, deadline - time.monotonic()))
        received = signal.sigtimedwait(watched, wait)  # SIGCHLD wakes it; the timeout guards a lost one
        if deadline is not None and time.monotonic() >= deadline:
            trace.lifecycle(
                "client-to-server", "kill", reason=f"still running {CLIENT_GONE_SECONDS:g}s after the client died"
            )
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(server.pid, signal.SIGKILL)
            server.wait()
            return
        if received is None or received.si_signo == signal.SIGCHLD:
            continue
        if received.si_signo == CLIENT_GONE:
            if os.getppid() == client or deadline is not None:  # only the thread that started capture ended
                continue
            trace.lifecycle("client-to-server", "client-gone")
            deadline = time.monotonic() + CLIENT_GONE_SECONDS
            number = signal.SIGTERM
        else:
            number = received.si_signo
            trace.lifecycle("client-to-server", "signal", signal=signal.Signals(number).name)
        with contextlib.suppress(ProcessLookupError):
            server.send_signal(number)


def _die_of(number: int) -> None:
    """End capture as the server ended: by the same signal."""
    sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):  # SIGKILL's disposition cannot be set, nor need be
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {number})
    os.kill(os.getpid(), number)
    os._exit(128 + number)  # a signal whose default is not to end the process
