"""The schema tours of a run: each recorded once per worker and shared by the tests that judge it.

``server_tour_for(request, revision, transport)`` and ``client_tour_for(request, revision)`` return the
tour (see ``conformance/harness/tour.py``) of the target under test, recording it on first use in this
process: the server's over the given transport, the client driver's over stdio. A tour is recorded
without any fault; ``Judged`` gives a test the tour as its own fault (under ``--falsify``) leaves it.
The tour's trace is kept beside the run's traces: it is the evidence of every cell judged from it.
"""

from __future__ import annotations

import os
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
from conformance.run.plugin import fault_of, run_client_process
from conformance.run.targets import Target

TOURS: dict[tuple[str, str, str, str], Tour] = {}  # (target, side, revision, transport) -> its tour


def _trace(request: pytest.FixtureRequest, side: str, revision: str, transport: str) -> Path:
    name = f"schema-tour-{side}-{revision}-{transport}-{os.getpid()}.jsonl"
    return plugin._trace_path(request).with_name(name)


def _target(request: pytest.FixtureRequest) -> Target:
    return request.getfixturevalue("target")


def server_tour_for(request: pytest.FixtureRequest, revision: str, transport: str | None = None) -> Tour:
    """The server's tour at ``revision`` over ``transport`` (by default stdio, or Streamable HTTP for a
    target that offers no stdio server)."""
    target = _target(request)
    if transport is None:
        offered = [
            t for t in ("stdio", "streamable-http") if target.offers_server(t) and revision in TRANSPORT_REVISIONS[t]
        ]
        transport = offered[0] if offered else "stdio"  # none: the stdio launcher reports the target lacks it
    key = (target.name, "server", revision, transport)
    if key not in TOURS:
        trace = Trace(_trace(request, "server", revision, transport), transport)
        peer: Peer
        if transport == "stdio":
            launcher: Launcher = request.getfixturevalue("server_launcher")
            peer = StdioPeer(launcher.start(), trace, revision)
        elif transport == "streamable-http":
            peer = HttpPeer(request.getfixturevalue("http_server_url"), trace, revision)
        else:
            raise ValueError(f"no server tour over {transport!r}")
        with peer:
            peer.fixtures = target.fixtures
            peer.roles = target.roles
            TOURS[key] = server_tour(peer)
    return TOURS[key]


def client_tour_for(request: pytest.FixtureRequest, revision: str) -> Tour:
    target = _target(request)
    key = (target.name, "client", revision, "stdio")
    if key not in TOURS:
        launcher: Launcher = request.getfixturevalue("client_launcher")
        record = _trace(request, "client", revision, "stdio")

        def run(server: ScriptedStdio) -> Any:
            argv = ["--transport", "stdio", "--", *server.command()]
            return run_client_process(launcher, "schema_tour", revision, argv, settle=server.load)

        TOURS[key] = client_tour(revision, run, lambda: ScriptedStdio(revision, record))
    return TOURS[key]


class Judged:
    """A tour as the test's fault (under ``--falsify``) leaves it."""

    def __init__(self, tour: Tour, request: pytest.FixtureRequest) -> None:
        self.tour = tour
        self.fault: Fault | None = fault_of(request.node) if request.config.getoption("--falsify") else None

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
