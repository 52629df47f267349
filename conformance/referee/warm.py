"""The client leg, inside its own network namespace: a warm driver parent and the referee.

Run by ``runner`` as ``unshare --net [--map-root-user] -- python -m conformance.referee.warm ...``.
The namespace has nothing but loopback, which this process brings up: the referee's client-mode
peers listen on every interface, and here every interface is loopback.

The process imports the client driver (and so the SDK) once, listens on a Unix socket, and starts
the referee's client leg with ``launch.py`` as the client command. Each launch hands over its argv,
environment and standard streams; this process forks a child that runs the driver's ``main()`` on
them and answers with its exit status. The referee starts every scenario's client at once; here at
most ``--parallel`` drivers run at a time and the rest wait their turn (the machine has few cores,
and a driver starved of CPU would time out for nothing). Every child is bounded; a child whose
launcher went away (the referee's own client timeout kills it) is killed. The record of every launch (scenario, exit,
duration, how it ended) goes to ``launches.jsonl``: the referee's checks.json says nothing of a
client that timed out or failed, so the gate reads this record.

Single-threaded on purpose: it forks, and a fork of a threaded process may inherit held locks.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import importlib
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.referee import ROOT

LAUNCHER = ROOT / "conformance" / "referee" / "launch.py"
DRIVER_MODULE = "conformance.fixtures.client"
SCENARIO_VARIABLE = "MCP_CONFORMANCE_SCENARIO"
MAX_ORDER = 1 << 20
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def loopback_up() -> None:
    """Bring ``lo`` up in this (fresh) network namespace, as ``ip link set lo up`` would."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(probe, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | IFF_UP))


def only_loopback() -> list[str]:
    """The interfaces this namespace has (must be just ``lo``)."""
    return sorted(name for _, name in socket.if_nameindex())


@dataclass
class Launch:
    """One client run the referee asked for: queued until a slot is free, then a forked driver."""

    connection: socket.socket
    order: dict[str, Any]
    fds: list[int]
    scenario: str
    accepted: float
    pid: int | None = None
    forked: float | None = None
    record: dict[str, Any] = field(default_factory=dict)


def _child(module: Any, order: dict[str, Any], fds: list[int], closing: list[socket.socket]) -> None:
    """In the forked child: become the driver on the launcher's streams and exit with its status."""
    code = 1
    try:
        from conformance.harness.launcher import die_with_parent

        die_with_parent()
        for sock in closing:
            sock.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own streams
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        os.chdir(order.get("cwd") or ROOT)
        os.environ.clear()
        os.environ.update(order.get("env", {}))
        sys.argv = [DRIVER_MODULE, *order.get("argv", [])]
        try:
            module.main()
            code = 0
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def serve(args: argparse.Namespace) -> int:
    out = Path(args.out)
    raw = out / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    loopback_up()
    interfaces = only_loopback()
    module = importlib.import_module(DRIVER_MODULE)
    advertisement = importlib.import_module("conformance.fixtures.referee_client").advertisement()
    socket_dir = tempfile.mkdtemp(prefix="mcp-matrix-referee-")
    socket_path = os.path.join(socket_dir, "driver.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(socket_path)
    listener.listen(128)
    listener.setblocking(False)
    leg: dict[str, Any] = {"interfaces": interfaces, "driver": advertisement, "exit_code": None}
    launches: list[Launch] = []
    records: list[dict[str, Any]] = []
    command = f"exec {sys.executable} -I -S {LAUNCHER} {socket_path}"
    referee_command = [
        args.node,
        args.cli,
        "client",
        "--command",
        command,
        *(["--scenario", args.scenario, "--spec-version", args.revision] if args.scenario else []),
        *([] if args.scenario else ["--requirements", args.revision]),
        "-o",
        str(raw),
        "--timeout",
        str(args.client_timeout_ms),
    ]
    leg["command"] = referee_command
    t0 = time.monotonic()
    from conformance.harness.launcher import die_with_parent

    referee = subprocess.Popen(referee_command, cwd=ROOT, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, None)
    child_limit = args.driver_seconds
    deadline = t0 + args.deadline
    try:
        while True:
            if referee.poll() is not None:
                leg["exit_code"] = referee.returncode
                break
            if time.monotonic() > deadline:
                leg["timed_out"] = True
                break
            for key, _ in selector.select(timeout=0.05):
                if key.fileobj is listener:
                    _accept(listener, selector, launches, t0)
                    continue
                launch: Launch = key.data
                with contextlib.suppress(OSError):
                    if launch.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                        _finish(launch, selector, records, "launcher-gone", kill=True)
                        launches.remove(launch)
            for launch in list(launches):
                if launch.pid is None:
                    continue
                done, status, usage = os.wait4(launch.pid, os.WNOHANG)
                if done:
                    launch.record["cpu"] = round(usage.ru_utime + usage.ru_stime, 2)
                    _finish(launch, selector, records, "exited", status=status)
                    launches.remove(launch)
                elif launch.forked is not None and time.monotonic() - launch.forked > child_limit:
                    _finish(launch, selector, records, "timeout", kill=True)
                    launches.remove(launch)
            running = sum(1 for launch in launches if launch.pid is not None)
            for launch in launches:
                if running >= args.parallel:
                    break
                if launch.pid is None:
                    _fork(launch, module, selector)
                    running += 1
    finally:
        for launch in launches:
            _finish(launch, selector, records, "abandoned", kill=True)
        if referee.poll() is None:
            referee.kill()
            referee.wait()
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(socket_path)
            os.rmdir(socket_dir)
        leg["wall_seconds"] = round(time.monotonic() - t0, 2)
        (out / "launches.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
        (out / "leg.json").write_text(json.dumps(leg, indent=1, sort_keys=True) + "\n")
    return 0


def _accept(listener: socket.socket, selector: selectors.BaseSelector, launches: list[Launch], t0: float) -> None:
    """Take a launcher's order (argv, environment, streams) and queue it."""
    try:
        connection, _ = listener.accept()
    except BlockingIOError:
        return
    connection.setblocking(True)
    connection.settimeout(5)
    try:
        message, fds, _flags, _address = socket.recv_fds(connection, MAX_ORDER, 3)
        order = json.loads(message)
    except (OSError, ValueError):
        connection.close()
        return
    scenario = order.get("env", {}).get(SCENARIO_VARIABLE, "")
    launch = Launch(connection=connection, order=order, fds=fds, scenario=scenario, accepted=time.monotonic())
    launch.record = {"scenario": scenario, "started": round(launch.accepted - t0, 2), "argv": order.get("argv", [])}
    selector.register(connection, selectors.EVENT_READ, launch)
    launches.append(launch)


def _fork(launch: Launch, module: Any, selector: selectors.BaseSelector) -> None:
    open_sockets = [key.fileobj for key in selector.get_map().values() if isinstance(key.fileobj, socket.socket)]
    launch.forked = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(module, launch.order, launch.fds, open_sockets)
    launch.pid = pid
    launch.record["queued"] = round(launch.forked - launch.accepted, 2)
    _close_fds(launch)


def _close_fds(launch: Launch) -> None:
    for fd in launch.fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    launch.fds = []


def _finish(
    launch: Launch,
    selector: selectors.BaseSelector,
    records: list[dict[str, Any]],
    outcome: str,
    status: int | None = None,
    kill: bool = False,
) -> None:
    if kill and launch.pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(launch.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            _, status = os.waitpid(launch.pid, 0)
    _close_fds(launch)
    code: int | None = None
    if status is not None and outcome == "exited":
        if os.WIFSIGNALED(status):
            outcome, code = "signalled", 128 + os.WTERMSIG(status)
        else:
            code = os.WEXITSTATUS(status)
    if launch.pid is None:
        outcome += " (before it ran)"
    began = launch.forked if launch.forked is not None else launch.accepted
    record = dict(launch.record, outcome=outcome, exit=code, duration=round(time.monotonic() - began, 2))
    records.append(record)
    with contextlib.suppress(OSError, ValueError, KeyError):
        if code is not None:
            launch.connection.sendall(str(code).encode())
        selector.unregister(launch.connection)
    launch.connection.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.referee.warm")
    parser.add_argument("--out", required=True)
    parser.add_argument("--revision", required=True)
    parser.add_argument("--node", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--scenario", help="one scenario instead of the requirement set (for investigation)")
    parser.add_argument("--client-timeout-ms", type=int, default=60000)
    parser.add_argument("--driver-seconds", type=float, default=50, help="bound of one driver run, from its fork")
    parser.add_argument("--parallel", type=int, default=4, help="drivers running at once (the rest wait their turn)")
    parser.add_argument("--deadline", type=float, default=300, help="seconds before the referee is killed")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
