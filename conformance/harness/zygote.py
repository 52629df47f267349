"""The warm parent of ``WarmLauncher``: imports a server module once, then forks a server a session.

The module may name, in ``WARM_IMPORTS``, the modules its ``main()`` imports lazily; the parent imports
them too, so that no session pays for them.

Orders come two ways, one datagram a message, each ``{"argv": [...], "env": {...}}`` (``env`` added to
the parent's environment; or ``environ``, the child's whole environment, and ``cwd``) with three file
descriptors (the child's stdin, stdout, stderr). The parent forks, the child takes them as its own, sets
``sys.argv`` and the environment, and calls the module's ``main()``; the parent answers with the child's
pid.

- On the control socket, from the launcher in the tests' process. When it closes (the launcher is done
  or died) the parent kills its children and exits.
- On the relay socket (when the parent is given one), one connection an order: from ``stdio_relay``, the
  small program a client under test starts as its stdio server, or from a ``SharedLauncher`` in a test
  worker, when the run's workers share this parent. Once the child ends, the parent sends
  its exit status (``os.waitstatus_to_exitcode``) on that connection; if the connection closes first (the
  relay was killed), the child is killed, as the process the client started would have been.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import selectors
import signal
import socket
import sys
import traceback
from dataclasses import dataclass
from types import ModuleType

from conformance.harness.launcher import die_with_parent

MAX_MESSAGE = 1 << 16
ORDER_TIMEOUT_SECONDS = 5.0  # a relay sends its order as soon as it connects


@dataclass
class Child:
    pid: int
    pidfd: int
    relay: socket.socket | None  # the relay's connection, for a child forked on its order


def serve(module_name: str, control_fd: int, relay_fd: int | None = None) -> None:
    module = importlib.import_module(module_name)
    for name in getattr(module, "WARM_IMPORTS", ()):
        importlib.import_module(name)
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=control_fd)
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ, "control")
    if relay_fd is not None:  # bound and listening already (by the launcher)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=relay_fd)
        selector.register(listener, selectors.EVENT_READ, "listener")
    control.sendall(b"ready")
    while True:
        for key, _events in selector.select():
            if selector.get_map().get(key.fd) is not key:  # closed while this batch was handled
                continue
            if key.data == "control":
                try:
                    message, fds, _flags, _address = socket.recv_fds(control, MAX_MESSAGE, 3)
                except ConnectionResetError:  # closed with our "ready" unread: closed all the same
                    message, fds = b"", []
                if not message:
                    _kill_all(selector)
                    return
                child = _fork(module, module_name, json.loads(message), fds, selector)
                selector.register(child.pidfd, selectors.EVENT_READ, child)
                control.sendall(str(child.pid).encode())
            elif key.data == "listener":
                _take_relay_order(module, module_name, key.fileobj, selector)  # type: ignore[arg-type]
            elif isinstance(key.fileobj, socket.socket):  # a relay's connection closed: the relay died first
                child = key.data
                selector.unregister(key.fileobj)
                key.fileobj.close()
                child.relay = None
                with contextlib.suppress(ProcessLookupError, OSError):
                    signal.pidfd_send_signal(child.pidfd, signal.SIGKILL)
            else:  # a child's pidfd: it has ended
                _reap(key.data, selector)


def _take_relay_order(
    module: ModuleType, module_name: str, listener: socket.socket, selector: selectors.BaseSelector
) -> None:
    connection, _address = listener.accept()
    connection.settimeout(ORDER_TIMEOUT_SECONDS)
    try:
        message, fds, _flags, _address = socket.recv_fds(connection, MAX_MESSAGE, 3)
    except OSError:
        connection.close()
        return
    if not message or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        connection.close()
        return
    child = _fork(module, module_name, json.loads(message), fds, selector)
    child.relay = connection
    selector.register(child.pidfd, selectors.EVENT_READ, child)
    selector.register(connection, selectors.EVENT_READ, child)
    connection.sendall(str(child.pid).encode())


def _reap(child: Child, selector: selectors.BaseSelector) -> None:
    selector.unregister(child.pidfd)
    _pid, status = os.waitpid(child.pid, 0)
    os.close(child.pidfd)
    if child.relay is not None:
        selector.unregister(child.relay)
        with contextlib.suppress(OSError):
            child.relay.sendall(str(os.waitstatus_to_exitcode(status)).encode())
        child.relay.close()


def _fork(module: ModuleType, module_name: str, order: dict, fds: list[int], selector: selectors.BaseSelector) -> Child:
    pid = os.fork()
    if pid == 0:
        for key in list(selector.get_map().values()):  # the parent's sockets and pidfds are not the child's
            with contextlib.suppress(OSError):
                os.close(key.fd)
        die_with_parent()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        sys.argv = [module_name, *order.get("argv", [])]  # none of the parent's own arguments
        if "environ" in order:
            os.environ.clear()
            os.environ.update(order["environ"])
            os.chdir(order.get("cwd", os.getcwd()))
        os.environ.update(order.get("env", {}))
        code = 0
        try:
            module.main()
        except SystemExit as stop:  # as an interpreter would end
            if stop.code not in (None, 0):
                code = stop.code if isinstance(stop.code, int) else 1
                if not isinstance(stop.code, int):
                    print(stop.code, file=sys.stderr)
        except BaseException:  # as an interpreter would: the run's output says why it ended early
            traceback.print_exc()
            code = 1
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
                sys.stderr.flush()
        os._exit(code)
    for fd in fds:
        os.close(fd)
    return Child(pid, os.pidfd_open(pid), None)


def _kill_all(selector: selectors.BaseSelector) -> None:
    for key in selector.get_map().values():  # a pidfd names its process only: no reused pid is touched
        if isinstance(key.data, Child) and not isinstance(key.fileobj, socket.socket):
            with contextlib.suppress(ProcessLookupError, OSError):
                signal.pidfd_send_signal(key.data.pidfd, signal.SIGKILL)


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
