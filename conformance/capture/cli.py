"""``python -m conformance capture``: its command line (see ``conformance/capture/__init__.py``)."""

from __future__ import annotations

import argparse
import sys

from conformance.capture.recording import DEFAULT_OUTPUT, recording_path

DESCRIPTION = """\
Record a session between any MCP client and server as a trace (docs/trace-format.md), changing
nothing of what passes.

stdio: give capture to the client as its server command, the real server after `--`:
    python -m conformance capture -o 'recordings/{session}.jsonl' -- npx -y @modelcontextprotocol/server-everything
  Exits with the server's status (or dies of its signal); passes SIGTERM, SIGINT, SIGHUP, SIGQUIT,
  SIGUSR1 and SIGUSR2 on to it; if the client dies, stops the server (SIGTERM, then SIGKILL).

Streamable HTTP (or 2024-11-05's HTTP+SSE with --transport sse): a recording proxy on 127.0.0.1:
    python -m conformance capture --listen 8931 --upstream http://127.0.0.1:3001/mcp
  then point the client at http://127.0.0.1:8931/mcp (a request goes to the same path and query on the
  upstream's host). Runs until interrupted. Only loopback upstreams are accepted.

Each recording goes to the file -o names, `{session}` replaced by a name of its own (UTC time and a
random suffix): a new file per stdio run, per HTTP session. Credential headers (Authorization,
Cookie, Set-Cookie, Proxy-Authorization) are never written; a session id only as a pseudonym.
Exit status 2: a bad invocation (no command, a non-loopback address).
"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    capture = commands.add_parser(
        "capture",
        help="record a session of any client and server as a trace (stdio wrapper or HTTP proxy)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    capture.add_argument(
        "-o",
        "--output",
        default=DEFAULT_OUTPUT,
        help=f"where each recording goes; {{session}} becomes a name of its own (default: {DEFAULT_OUTPUT})",
    )
    capture.add_argument(
        "--listen",
        metavar="[HOST:]PORT",
        help="proxy HTTP on this loopback address (default host 127.0.0.1; port 0: any)",
    )
    capture.add_argument("--upstream", metavar="URL", help="the loopback URL of the HTTP server to proxy")
    capture.add_argument(
        "--transport",
        choices=("streamable-http", "sse"),
        default="streamable-http",
        help="what the HTTP upstream speaks: Streamable HTTP (default) or 2024-11-05's HTTP+SSE",
    )
    capture.add_argument("server", nargs=argparse.REMAINDER, help="-- SERVER_CMD...: the stdio server to wrap")
    capture.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    command = args.server[1:] if args.server[:1] == ["--"] else args.server
    if args.listen is not None or args.upstream is not None:
        if command or args.listen is None or args.upstream is None:
            return _usage("the HTTP proxy takes --listen PORT and --upstream URL together, and no server command")
        from conformance.capture import http

        try:
            return http.serve(args.listen, args.upstream, args.output, args.transport)
        except http.NotLoopback as exc:
            return _usage(str(exc))
    if not command:
        return _usage("give the stdio server's command after `--`, or --listen PORT --upstream URL")
    from conformance.capture import stdio

    return stdio.run(command, recording_path(args.output))


def _usage(message: str) -> int:
    print(f"capture: {message} (python -m conformance capture --help)", file=sys.stderr)
    return 2
