"""The stdio transport: newline-delimited JSON-RPC over a server process's pipes."""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any

from conformance.harness.faults import Fault
from conformance.harness.launcher import ServerProcess
from conformance.harness.peer import CLOSED, DEFAULT_TIMEOUT_SECONDS, Peer, ProtocolViolation
from conformance.harness.trace import Trace

START_ALLOWANCE_SECONDS = 5.0  # added to the first wait on a fresh process: its interpreter and framework start


class StdioPeer(Peer):
    """The client end of one stdio session: a reader thread turns stdout into lines, stderr is kept."""

    transport = "stdio"

    def __init__(
        self,
        process: ServerProcess,
        trace: Trace,
        revision: str,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        fault: Fault | None = None,
    ) -> None:
        super().__init__(trace, revision, timeout, fault)
        self.process = process
        if process.popen is not None:  # started from its command now, not forked from a warm parent
            self.start_allowance = START_ALLOWANCE_SECONDS
        self._stderr = bytearray()
        self._stderr_grew = threading.Condition()
        self.stdout_ended = threading.Event()  # the server's stdout reached end of file
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        trace.lifecycle("client-to-server", "spawn", pid=process.pid)

    def _read_stdout(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # the pipe closed under us at teardown
            for line in iter(self.process.stdout.readline, b""):
                self.inbound.put(line)
        self.stdout_ended.set()
        self.inbound.put(CLOSED)

    def _read_stderr(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            # os.read returns what the pipe holds now: a buffered reader's read(4096) would wait for a
            # whole block, and a server that wrote a line would read as having written nothing.
            fd = self.process.stderr.fileno()
            for chunk in iter(lambda: os.read(fd, 4096), b""):
                with self._stderr_grew:
                    self._stderr.extend(chunk)
                    self._stderr_grew.notify_all()

    @property
    def stderr(self) -> str:
        return self._stderr.decode("utf-8", "replace")

    def stderr_bytes(self, at_least: int = 0, timeout: float | None = None) -> bytes:
        """What the server wrote on stderr so far, byte for byte; first waits (bounded by ``timeout``)
        until that is at least ``at_least`` bytes."""
        bound = self.timeout if timeout is None else timeout
        with self._stderr_grew:
            self._stderr_grew.wait_for(lambda: len(self._stderr) >= at_least, bound)
            return bytes(self._stderr)

    def diagnostics(self) -> str:
        return self.stderr

    def _transmit(self, data: bytes, frame: Any) -> None:
        try:
            self.process.stdin.write(data if data.endswith(b"\n") and frame is None else data + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise ProtocolViolation(f"the server closed its stdin early ({exc}){self._said()}") from exc

    def _shutdown(self) -> None:
        self.process.kill()
        for thread in self._threads:
            thread.join(timeout=2)
        self.process.close_pipes()
