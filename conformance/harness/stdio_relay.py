"""The process a client under test starts as its scripted stdio server, when a warm parent serves it.

A scripted stdio server is started by the client, once a test or more; an interpreter that imports the
harness costs tens of milliseconds of CPU each time. This program costs a bare interpreter (run it with
``python -S -I``, it imports the standard library only): it hands its stdin, stdout and stderr, its
arguments, environment and working directory to the warm parent (``zygote``, listening on the socket
named first), which forks the scripted server on them. Then it stands in for that server: it
forwards SIGTERM, SIGINT and SIGHUP to it and ends as it ends, with its exit status or its signal.
If this process is killed, the warm parent kills the server.

The server learns the client's pid and this one's from the environment (``CLIENT_VARIABLE``,
``RELAY_VARIABLE``): its record names the client as its parent, and the tests wait for this process
(whose command line, unlike the fork's, names the record).

The cells about process start, exit and signals keep a server of their own (``ScriptedStdio``
starts one afresh for them): a forwarded signal's sender is this process, not the client.
"""

import contextlib
import json
import os
import signal
import socket
import sys

CLIENT_VARIABLE = "MCP_MATRIX_STDIO_CLIENT"
RELAY_VARIABLE = "MCP_MATRIX_STDIO_RELAY"
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
UNREACHABLE_STATUS = 70  # EX_SOFTWARE: the harness, not the client, failed


def main() -> None:
    warm_parent, *argv = sys.argv[1:]
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)  # until there is a server to forward them to
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        connection.connect(warm_parent)
        environ = dict(os.environ) | {CLIENT_VARIABLE: str(os.getppid()), RELAY_VARIABLE: str(os.getpid())}
        order = {"argv": argv, "environ": environ, "cwd": os.getcwd()}
        socket.send_fds(connection, [json.dumps(order).encode()], [0, 1, 2])
    except OSError as error:
        print(f"mcp-matrix stdio relay: no warm parent at {warm_parent}: {error}", file=sys.stderr)
        sys.exit(UNREACHABLE_STATUS)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the server's pipes are its own now: the client sees their end when it ends
        os.dup2(null, fd)
    reply = connection.recv(32)
    if not reply.isdigit():
        sys.exit(UNREACHABLE_STATUS)
    server = int(reply)

    def forward(signo: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server, signo)

    for signo in FORWARDED:
        signal.signal(signo, forward)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
    status = connection.recv(32)
    code = int(status) if status else -signal.SIGKILL  # no status: the warm parent died, and its fork with it
    if code < 0:  # end by the same signal
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


if __name__ == "__main__":
    main()
