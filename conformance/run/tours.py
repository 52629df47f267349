"""The schema tours of a run: each recorded once and shared by the tests that judge it.

``server_tour_for(request, revision, transport)`` and ``client_tour_for(request, revision)`` return the
tour (see ``conformance/harness/tour.py``) of the target under test, recording it on first use: the
server's over the given transport, the client driver's over stdio. Under pytest-xdist the first worker
that needs a tour records it and leaves it (JSON, under a lock) in the run's traces folder for the
other workers, which read it instead of recording their own. A tour is recorded
without any fault; ``Judged`` gives a test the tour as its own fault (under ``--falsify``) leaves it.
The tour's trace is kept beside the run's traces: it is the evidence of every cell judged from it.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.catalogue.vocabulary import TRANSPORT_REVISIONS
from conformance.harness.faults import Fault
from conformance.harness.http import HttpPeer
from conformance.harness.launcher import Launcher
from conformance.harness.peer import Peer
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.stdio import StdioPeer
from conformance.harness.tour import Message, Tour, client_tour, server_tour
from conformance.harness.trace import Trace
from conformance.run import plugin
from conformance.run.plugin import active_fault, run_client_process
from conformance.run.targets import Target

TOURS: dict[tuple[str, str, str, str], Tour] = {}  # (target, side, revision, transport) -> its tour
TOUR_TRACES: dict[tuple[str, str, str, str], Path] = {}  # the same key -> the trace its session left


def _trace(request: pytest.FixtureRequest, side: str, revision: str, transport: str) -> Path:
    name = f"schema-tour-{side}-{revision}-{transport}-{os.getpid()}.jsonl"
    return plugin.run_directory(request.config) / "traces" / name


def _target(request: pytest.FixtureRequest) -> Target:
    return request.getfixturevalue("target")


def _shared(request: pytest.FixtureRequest, key: tuple[str, str, str, str], record: Callable[[], Tour]) -> Tour:
    """The tour of ``key``: this process's, another worker's of the same run, or ``record()``'s; its trace is
    the test's evidence (the trace its report names)."""
    tour = _shared_tour(request, key, record)
    if key in TOUR_TRACES:
        request.node.stash[plugin.TRACE_KEY] = TOUR_TRACES[key]
    return tour


def _shared_tour(request: pytest.FixtureRequest, key: tuple[str, str, str, str], record: Callable[[], Tour]) -> Tour:
    if key in TOURS:
        return TOURS[key]
    run = getattr(request.config, "workerinput", {}).get("testrunuid")
    if run is None:  # one process: nothing to share
        TOURS[key], TOUR_TRACES[key] = record(), _trace(request, *key[1:])
        return TOURS[key]
    folder = plugin.run_directory(request.config) / "traces" / f"schema-tours-{run}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ("-".join(re.sub(r"[^A-Za-z0-9.]+", "_", part) for part in key) + ".json")
    with path.with_suffix(".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the lock file closes
        if path.is_file():
            TOURS[key] = Tour(**json.loads(path.read_text(encoding="utf-8")))
            TOUR_TRACES[key] = Path(path.with_suffix(".trace").read_text(encoding="utf-8"))
        else:
            TOURS[key], TOUR_TRACES[key] = record(), _trace(request, *key[1:])
            path.with_suffix(".trace").write_text(str(TOUR_TRACES[key]), encoding="utf-8")
            path.write_text(json.dumps(dataclasses.asdict(TOURS[key])), encoding="utf-8")
    return TOURS[key]


def server_tour_for(request: pytest.FixtureRequest, revision: str, transport: str | None = None) -> Tour:
    """The server's tour at ``revision`` over ``transport`` (by default stdio, or Streamable HTTP for a
    target that offers no stdio server)."""
    target = _target(request)
    if transport is None:
        offered = [
            t for t in ("stdio", "streamable-http") if target.offers_server(t) and revision in TRANSPORT_REVISIONS[t]
        ]
        transport = offered[0] if offered else "stdio"  # none: the stdio launcher reports the target lacks it
    chosen = transport

    def record() -> Tour:
        # The server is reached first: a transport the target lacks skips (fixture-missing) before a
        # trace is opened, so no trace file is left open for the garbage collector to complain about
        # in some later test.
        peer: Peer
        if chosen == "stdio":
            launcher: Launcher = request.getfixturevalue("server_launcher")
            process = launcher.start()
            peer = StdioPeer(process, Trace(_trace(request, "server", revision, chosen), chosen), revision)
        elif chosen == "streamable-http":
            url = request.getfixturevalue("http_server_url")
            peer = HttpPeer(url, Trace(_trace(request, "server", revision, chosen), chosen), revision)
        else:
            raise ValueError(f"no server tour over {chosen!r}")
        with peer:
            peer.roles = target.roles
            return server_tour(peer)

    return _shared(request, (target.name, "server", revision, transport), record)


def client_tour_for(request: pytest.FixtureRequest, revision: str) -> Tour:
    target = _target(request)

    def record() -> Tour:
        launcher: Launcher = request.getfixturevalue("client_launcher")
        trace = _trace(request, "client", revision, "stdio")

        def run(server: ScriptedStdio) -> Any:
            argv = ["--transport", "stdio", "--", *server.command()]
            return run_client_process(launcher, "schema_tour", revision, argv, settle=server.load)

        warm_parent = request.getfixturevalue("scripted_stdio_parent")
        return client_tour(revision, run, lambda: ScriptedStdio(revision, trace, warm_parent=warm_parent))

    return _shared(request, (target.name, "client", revision, "stdio"), record)


class Judged:
    """A tour as the test's fault (under ``--falsify``), or the mutation (under ``--mutate``), leaves it."""

    def __init__(self, tour: Tour, request: pytest.FixtureRequest) -> None:
        self.tour = tour
        self.fault: Fault | None = active_fault(request)  # its own fault under --falsify, the mutation under --mutate

    @property
    def revision(self) -> str:
        return self.tour.revision

    def messages(self, definition: str | None = None) -> list[Message]:
        found = self.tour.messages(self.fault)
        return [m for m in found if definition is None or m.definition == definition]

    def missing(self, what: str) -> None:
        """The tour carried nothing to judge: fixture-missing, with what the tour could not do."""
        notes = "; ".join(self.tour.notes)[:600]
        pytest.skip(
            f"fixture-missing: the {self.tour.sender} sent no {what} in the tour" + (f": {notes}" if notes else "")
        )
