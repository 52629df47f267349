"""The warm parent of ``WarmLauncher``: imports a server module once, then forks a server a session.

The module may name, in ``WARM_IMPORTS``, the modules its ``main()`` imports lazily; the parent imports
them too, so that no session pays for them.

Protocol on the control socket (one datagram a message): the launcher sends a JSON object
``{"argv": [...], "env": {...}}`` with three file descriptors (the child's stdin, stdout,
stderr); the parent forks, the child takes them as its own, sets ``sys.argv`` and the environment,
calls the module's ``main()``, and the parent answers with the child's pid. When the socket closes (the
launcher is done or died) the parent kills its children and exits.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import socket
import sys
import traceback

from conformance.harness.launcher import die_with_parent

MAX_MESSAGE = 1 << 16


def serve(module_name: str, control_fd: int) -> None:
    module = importlib.import_module(module_name)
    for name in getattr(module, "WARM_IMPORTS", ()):
        importlib.import_module(name)
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=control_fd)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    children: list[int] = []
    control.sendall(b"ready")
    while True:
        message, fds, _flags, _address = socket.recv_fds(control, MAX_MESSAGE, 3)
        if not message:
            break
        order = json.loads(message)
        pid = os.fork()
        if pid == 0:
            control.close()
            die_with_parent()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            sys.argv = [module_name, *order.get("argv", [])]  # none of the parent's own arguments
            os.environ.update(order.get("env", {}))
            try:
                module.main()
            except SystemExit as stop:
                if stop.code not in (None, 0):
                    print(stop.code, file=sys.stderr)
            except BaseException:  # as an interpreter would: the run's output says why it ended early
                traceback.print_exc()
            finally:
                with contextlib.suppress(OSError, ValueError):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(0)
        for fd in fds:
            os.close(fd)
        children.append(pid)
        control.sendall(str(pid).encode())
    for pid in children:
        if _is_our_child(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _is_our_child(pid: int) -> bool:
    """Guards against killing a reused pid: the process must still be this parent's child."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1]) == os.getpid()
    except (OSError, ValueError, IndexError):
        return False


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]))
