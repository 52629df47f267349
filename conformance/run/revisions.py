"""The revisions a target speaks: taken from its profile (``revisions:``), or found once per run.

A revision the target does not implement is reported once, as such; its cells are neither passed
nor failed. A target that claims a revision (in its profile, or by agreeing to it in the probe)
is judged on it in full.

The probe asks the way each revision's own version negotiation asks:

- before 2026-07-28, an ``initialize`` offering the revision: a server that speaks it answers with
  the same ``protocolVersion`` (one that answers with another is negotiating it away);
- at 2026-07-28, ``server/discover`` with the revision in the request's ``_meta``: a server that
  speaks it answers with a result listing it among ``supportedVersions``.

Each probe runs on a fresh session over the first transport the target's server offers (stdio,
else Streamable HTTP), bounded in time. A target whose server cannot be started or reached is
``UNREACHABLE``: every server cell of the run is inconclusive, and the run exits 3.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from conformance.catalogue.vocabulary import REVISIONS
from conformance.harness.frames import initialize_params
from conformance.harness.http import HttpPeer, require_loopback
from conformance.harness.launcher import CommandLauncher, HttpServerProcess
from conformance.harness.peer import MODERN_REVISION, HarnessError, Peer
from conformance.harness.stdio import StdioPeer
from conformance.harness.trace import Trace
from conformance.run.targets import FIXTURE, FIXTURE_SERVER_MODULE, HttpServer, Target

PROBE_TIMEOUT_SECONDS = 5.0
NO_ANSWER = "no usable answer to the probe"


@dataclass(frozen=True)
class Spoken:
    """Which revisions one side of a target implements, and why each other one reads as not."""

    declared: bool  # from the profile (True) or found by the probe (False)
    revisions: tuple[str, ...]
    not_spoken: dict[str, str] = field(default_factory=dict)  # revision -> what the probe saw
    unreachable: str = ""  # why the target's server could not be started or reached

    def speaks(self, revision: str) -> bool:
        return revision in self.revisions

    def as_json(self) -> dict:
        return {
            "declared": self.declared,
            "revisions": list(self.revisions),
            "not_spoken": self.not_spoken,
            "unreachable": self.unreachable,
        }

    @classmethod
    def from_json(cls, data: dict) -> Spoken:
        return cls(data["declared"], tuple(data["revisions"]), dict(data["not_spoken"]), data["unreachable"])


def spoken_by(target: Target, side: str, trace_dir: Path) -> Spoken:
    """The revisions ``side`` of ``target`` speaks: its profile's word, else (servers) the probe's."""
    declared = target.revisions.get(side)
    if declared is not None:
        return Spoken(True, declared)
    if side == "client" or not (target.stdio or "streamable-http" in target.http):
        return Spoken(True, REVISIONS)  # nothing to probe: the tests report what they cannot reach
    try:
        with _server(target, trace_dir) as open_peer:
            not_spoken = {revision: why for revision in REVISIONS if (why := _refuses(open_peer, revision))}
    except (OSError, RuntimeError, HarnessError) as exc:
        return Spoken(False, (), unreachable=f"{type(exc).__name__}: {exc}")
    if len(not_spoken) == len(REVISIONS) and all(why.startswith(NO_ANSWER) for why in not_spoken.values()):
        # Not one answer at any revision (a command that exits at once, a refused connection): nothing of
        # the target can be judged, which is not the same as a target declining every revision.
        return Spoken(False, (), unreachable=not_spoken[REVISIONS[-1]])
    return Spoken(False, tuple(r for r in REVISIONS if r not in not_spoken), not_spoken)


OpenPeer = Callable[[str], Peer]  # a fresh probe session at a revision


@contextmanager
def _server(target: Target, trace_dir: Path) -> Iterator[OpenPeer]:
    """A function opening a fresh probe session at a revision, over the target's first transport."""
    if target.stdio is not None:
        command = [sys.executable, "-m", FIXTURE_SERVER_MODULE] if target.stdio == FIXTURE else target.stdio
        launcher = CommandLauncher(command)

        def open_stdio(revision: str) -> Peer:
            trace = Trace(trace_dir / f"probe-{revision}.jsonl", "stdio")
            return StdioPeer(launcher.start(), trace, revision, timeout=PROBE_TIMEOUT_SECONDS)

        try:
            yield open_stdio
        finally:
            launcher.close()
        return
    how = target.http["streamable-http"]
    process: HttpServerProcess | None = None
    if how == FIXTURE:
        command = [sys.executable, "-m", FIXTURE_SERVER_MODULE, "--transport", "streamable-http", "--port", "0"]
        process = HttpServerProcess(command, log=trace_dir / "probe-server.log")
        url = process.url
    elif isinstance(how, HttpServer) and how.command is not None:
        process = HttpServerProcess(how.command, log=trace_dir / "probe-server.log", url=how.url, env=how.env)
        url = process.url
    else:
        assert isinstance(how, HttpServer) and how.url is not None
        require_loopback(how.url)
        url = how.url

    def open_http(revision: str) -> Peer:
        trace = Trace(trace_dir / f"probe-{revision}.jsonl", "streamable-http")
        return HttpPeer(url, trace, revision, timeout=PROBE_TIMEOUT_SECONDS)

    try:
        yield open_http
    finally:
        if process is not None:
            process.close()


def _refuses(open_peer: OpenPeer, revision: str) -> str:
    """Why the target does not speak ``revision`` (empty: it does)."""
    with open_peer(revision) as peer:
        try:
            if revision == MODERN_REVISION:
                response = peer.rpc("server/discover", check=False)
                supported = response.get("result", {}).get("supportedVersions")
                if isinstance(supported, list) and revision in supported:
                    return ""
                return f"server/discover at {revision} was answered {_short(response)}"
            response = peer.request("initialize", initialize_params(revision), check=False)
        except AssertionError as exc:  # no answer, a closed channel, a frame that is not JSON
            return f"{NO_ANSWER} at {revision}: {str(exc).splitlines()[0]}"
        agreed = response.get("result", {}).get("protocolVersion")
        if agreed == revision:
            return ""
        return f"initialize offering {revision} was answered {_short(response)}"


def _short(response: object) -> str:
    if isinstance(response, dict) and "error" in response:
        error = response["error"]
        return f"with error {error.get('code')} ({str(error.get('message'))[:120]})"
    if isinstance(response, dict) and "result" in response:
        result = response["result"]
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        return f"with protocolVersion {version}" if version else f"with {str(result)[:160]}"
    return str(response)[:160]
