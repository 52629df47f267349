"""The client command the referee runs: a thin launcher that asks the warm parent to fork the driver.

Run by path with ``python -I -S``, it imports nothing but the standard library (tens of
milliseconds, where importing the SDK takes over a second). It hands its argv, environment and
standard streams to the warm parent (``conformance/referee/warm.py``) over a Unix socket, waits for
the driver's exit status and exits with it. If the referee kills it on a timeout, the socket closes
and the warm parent kills the driver and records the timeout.

Usage (as the referee's ``--command``): ``exec PYTHON -I -S launch.py SOCKET`` (the referee appends
the URL).
"""

import json
import os
import socket
import sys

CONNECT_SECONDS = 10
WAIT_SECONDS = 600  # the warm parent bounds the driver far sooner; this only keeps the wait finite
GONE = 125  # the warm parent did not answer


def main() -> int:
    if len(sys.argv) < 2:
        sys.stderr.write("usage: launch.py SOCKET [ARG...]\n")
        return 2
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    control.settimeout(CONNECT_SECONDS)
    try:
        control.connect(sys.argv[1])
        order = {"argv": sys.argv[2:], "env": dict(os.environ), "cwd": os.getcwd()}
        socket.send_fds(control, [json.dumps(order).encode()], [0, 1, 2])
        control.settimeout(WAIT_SECONDS)
        reply = control.recv(64)
    except OSError as exc:
        sys.stderr.write(f"launch.py: the warm driver parent did not answer: {exc}\n")
        return GONE
    if not reply:
        sys.stderr.write("launch.py: the warm driver parent closed the connection\n")
        return GONE
    return int(reply)


if __name__ == "__main__":
    sys.exit(main())
