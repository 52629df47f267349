"""The pytest plugin of the suite (loaded with ``-p conformance.run.plugin``, see pyproject.toml).

- options naming the implementation under test (default: the fixture server on the pinned SDK);
- the ``server`` fixture: one traced stdio session per test, its trace kept only if the test fails;
- outcome labels: ``pass``, ``fail``, ``gap``, ``fixture-missing``, ``inconclusive``, summarised
  per revision and side at the end of the run.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputError, InputErrors
from conformance.catalogue.vocabulary import REVISIONS, SIDES
from conformance.harness.faults import MUTATIONS, Fault
from conformance.harness.frames import COMPLETED, REPORT_PREFIX, REVISION_VARIABLE, SCENARIO_VARIABLE, UNSUPPORTED
from conformance.harness.http import HttpPeer, require_loopback
from conformance.harness.http_sse import HttpSsePeer
from conformance.harness.launcher import (
    CommandLauncher,
    HttpServerProcess,
    Launcher,
    ServerProcess,
    SharedLauncher,
    WarmHttpServer,
    WarmLauncher,
)
from conformance.harness.pages import PageServer
from conformance.harness.peer import HarnessError, Peer
from conformance.harness.scripted_server import ScriptedPeer, ScriptedServer
from conformance.harness.scripted_sse import ScriptedSseServer
from conformance.harness.scripted_stdio import MODULE as SCRIPTED_STDIO_MODULE
from conformance.harness.scripted_stdio import ScriptedStdio
from conformance.harness.stdio import StdioPeer
from conformance.harness.trace import Trace
from conformance.matrix.covers import registry, run_gaps
from conformance.run import reports, targets
from conformance.run.outcomes import FALSIFY_OUTCOMES, OUTCOMES, SKIP_OUTCOMES, UNCOUNTED, failure_outcome, skip_outcome
from conformance.run.revisions import Spoken, spoken_by
from conformance.run.targets import FIXTURE, FIXTURE_SERVER_MODULE, Target, TargetGap

if TYPE_CHECKING:  # imported where first needed: only the authorization tests pay for it
    from conformance.harness.authorization import AuthorizationServer
    from conformance.harness.protected_resource import ProtectedResource

# pytest rewrites the asserts of every test module each time it cannot cache the result, seconds per
# process (and per xdist worker) for this suite; where PYTHONDONTWRITEBYTECODE is set (it is on these
# machines) the suite opts back in: the caches go to __pycache__, which git ignores.
sys.dont_write_bytecode = False


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcp-matrix", "the implementation under test")
    group.addoption(
        "--falsify",
        action="store_true",
        help="run each test that declares a fault under it, and pass only if the test then fails",
    )
    group.addoption(
        "--mutate",
        default=None,
        metavar="MUTATION",
        help="run every tested cell under one generic wire mutation (harness/faults.py MUTATIONS) and record, "
        "per test, whether it failed at its own check (killed); `make mutate` runs them all",
    )
    group.addoption(
        "--not-offered-by",
        default=None,
        metavar="PROFILE",
        help="run only the cells that this profile gaps as not offered (N-NNN): with --falsify and a --target "
        "that offers them, the faults of cells its own target cannot show (make falsify: the SDK's on the "
        "TypeScript SDK's client)",
    )
    group.addoption(
        "--keep-traces",
        action="store_true",
        help="keep the session trace of every test, not only of those that fail, warn or are inconclusive "
        "(the traces the offline validator and its calibration read)",
    )
    group.addoption(
        "--target",
        default=None,
        help="the target profile: a name in targets/ or a path to a YAML file (default: sdk-python, the "
        "pinned SDK's fixture server and client; see conformance/run/targets.py)",
    )
    group.addoption(
        "--server-command",
        default=None,
        help="put this stdio server under test instead of the fixture server (a shell-quoted command)",
    )
    group.addoption(
        "--client-command",
        default=None,
        help="put this client under test instead of the SDK's (gets the peer URL as its last argument and "
        "the scenario in MCP_CONFORMANCE_SCENARIO)",
    )
    group.addoption(
        "--server-url",
        default=None,
        help="put the Streamable HTTP server at this loopback URL under test instead of the fixture server",
    )


TARGET_KEY = pytest.StashKey[Target]()


def _profile(name: str | None) -> Target:
    try:
        return targets.load(targets.resolve(name), registry()[0])
    except InputErrors as exc:
        raise pytest.UsageError(f"bad target profile:\n{exc}") from None


@pytest.hookimpl(tryfirst=True)  # before pytest's junitxml reads where to write
def pytest_configure(config: pytest.Config) -> None:
    """Read the target profile once, before collection: its gaps decide which cells are skipped. A run
    of the suite (not of the meta-test or the machinery's tests alone) gets a fresh report directory
    for its target, with pytest's JUnit in it, before any worker starts."""
    profile = _profile(config.getoption("--target"))
    target = profile.with_command_line(
        config.getoption("--server-command"), config.getoption("--server-url"), config.getoption("--client-command")
    )
    config.stash[TARGET_KEY] = target
    mutation = config.getoption("--mutate")
    if mutation and mutation not in MUTATIONS:
        raise pytest.UsageError(f"--mutate {mutation}: no such mutation (known: {', '.join(MUTATIONS)})")
    if hasattr(config, "workerinput") or not _runs_the_suite(config) or config.option.collectonly:
        return
    run = f"{datetime.now(UTC).isoformat(timespec='seconds')} pid {os.getpid()}: pytest {' '.join(config.args)}"
    try:
        directory = reports.prepare(run_directory(config), run)
    except InputError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[REPORTED_KEY] = True
    if not config.option.xmlpath:
        config.option.xmlpath = str(directory / "junit.xml")


def run_directory(config: pytest.Config) -> Path:
    """This run's directory: the target's own; a run under --falsify or --mutate has one of its own beside
    it, so that it never clears the evidence of the run it damages."""
    mutation = config.getoption("--mutate")
    kind = f"mutate-{mutation}" if mutation else "falsify" if config.getoption("--falsify") else ""
    return reports.run_directory(config.stash[TARGET_KEY], kind)


REPORTED_KEY = pytest.StashKey[bool]()  # this run prepared its report directory, so it writes a report
SUITE_DIR = PROJECT_ROOT / "conformance"
META_TESTS = ("test_matrix.py", "test_catalogue_complete.py")


def _runs_the_suite(config: pytest.Config) -> bool:
    """Whether the run's arguments take in any of the suite's test modules."""
    for arg in config.args:
        path = Path(arg.split("::", 1)[0]).resolve()
        if path == SUITE_DIR or (
            path.parent == SUITE_DIR and path.name.startswith("test_") and path.name not in META_TESTS
        ):
            return True
    return False


@pytest.fixture(scope="session")
def target(request: pytest.FixtureRequest) -> Target:
    """The implementation under test, as its profile (and the command-line options) describe it."""
    return request.config.stash[TARGET_KEY]


def _require_server(target: Target, transport: str) -> None:
    if not target.offers_server(transport):
        pytest.skip(f"fixture-missing: target {target.name} offers no {transport} server")


@pytest.fixture(scope="session")
def fixture_server_parent(request: pytest.FixtureRequest) -> Iterator[WarmLauncher | SharedLauncher]:
    """The warm parent of the project's fixture server (conformance/harness/zygote.py): its stdio sessions
    and its HTTP servers, configured or not, are all forked from it, so the SDK is imported once a run."""
    launcher = _warm_launcher(request.config, FIXTURE_SERVER_PARENT, FIXTURE_SERVER_MODULE)
    yield launcher
    launcher.close()


# The warm parents a run forks from (conformance/harness/zygote.py). Under xdist the controller starts them
# and each worker forks through their relay sockets (SharedLauncher), so that the SDK's server and client
# are imported once a run rather than once a worker; a run without workers keeps its own.
FIXTURE_SERVER_PARENT, CLIENT_PARENT, SCRIPTED_STDIO_PARENT = "fixture-server", "client", "scripted-stdio"
SHARED_PARENTS_INPUT = "mcp_matrix_warm_parents"
SHARED_PARENTS_KEY = pytest.StashKey[dict[str, WarmLauncher]]()


def _shared_parents(config: pytest.Config) -> dict[str, WarmLauncher]:
    """The controller's warm parents, started at its first worker's configuration, not waited for: each
    binds its relay socket here, so a worker can connect at once and its first order waits for the imports."""
    if SHARED_PARENTS_KEY not in config.stash:
        target = config.stash[TARGET_KEY]
        parents = {
            FIXTURE_SERVER_PARENT: WarmLauncher(FIXTURE_SERVER_MODULE, relays=True, ready_wait=False),
            SCRIPTED_STDIO_PARENT: WarmLauncher(SCRIPTED_STDIO_MODULE, relays=True, ready_wait=False),
        }
        forked = forked_client(target.client) if target.client is not None else None
        if forked is not None:
            module, python = forked
            env = client_environment(run_directory(config))
            parents[CLIENT_PARENT] = WarmLauncher(module, python=python, env=env, relays=True, ready_wait=False)
        config.stash[SHARED_PARENTS_KEY] = parents
    return config.stash[SHARED_PARENTS_KEY]


def _warm_launcher(
    config: pytest.Config, name: str, module: str, python: str = sys.executable, env: dict[str, str] | None = None
) -> WarmLauncher | SharedLauncher:
    """The run's shared warm parent ``name`` (under xdist), or a parent of this process's own."""
    shared = (getattr(config, "workerinput", None) or {}).get(SHARED_PARENTS_INPUT, {}).get(name)
    return SharedLauncher(shared, module) if shared else WarmLauncher(module, python=python, env=env)


@pytest.fixture(scope="session")
def server_launcher(target: Target, request: pytest.FixtureRequest) -> Iterator[Launcher]:
    _require_server(target, "stdio")
    if target.stdio == FIXTURE:
        yield request.getfixturevalue("fixture_server_parent")
        return
    launcher = CommandLauncher(target.stdio)
    yield launcher
    launcher.close()


def fixture_http_server(
    request: pytest.FixtureRequest, transport: str, options: tuple[str, ...], log: Path
) -> WarmHttpServer:
    """The fixture's ``transport`` server with ``options``, forked from the worker's warm parent."""
    argv = ["--transport", transport, "--port", "0", *options]
    return WarmHttpServer(request.getfixturevalue("fixture_server_parent"), argv, log)


def http_server_url_of(target: Target, transport: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of the target's ``transport`` server: given, or started once per worker (and stopped after)."""
    _require_server(target, transport)
    how = target.http[transport]
    log = run_directory(request.config) / "servers" / f"{transport}-{os.getpid()}.log"
    process: WarmHttpServer | HttpServerProcess
    if how == FIXTURE:
        process = fixture_http_server(request, transport, (), log)
    elif how.command is None:
        require_loopback(how.url)
        yield how.url
        return
    else:
        process = HttpServerProcess(how.command, log=log, url=how.url, env=how.env)
    yield process.url
    process.close()


@pytest.fixture(scope="session")
def http_server_url(target: Target, request: pytest.FixtureRequest) -> Iterator[str]:
    """The Streamable HTTP endpoint under test (for the fixture server: one per worker)."""
    yield from http_server_url_of(target, "streamable-http", request)


@dataclass(frozen=True)
class Configured:
    """The server under test started configured a certain way (conformance/run/targets.py CONFIGURATIONS):
    the configuration's values, and where to reach it (an HTTP URL) or how to start it (stdio)."""

    values: dict[str, str]
    url: str = ""
    launcher: Launcher | None = None


ConfiguredServer = Callable[..., Configured]


@pytest.fixture(scope="session")
def configured_server(target: Target, request: pytest.FixtureRequest) -> Iterator[ConfiguredServer]:
    """``start(name, transport)``: the target's server configured as ``name`` (a bearer token, a session idle
    timeout, a ping interval), started once per worker, for the cells about a configuration the shared
    server does not have. The profile says how (the default profile too, for the project's fixture); a
    target whose profile does not leaves those cells fixture-missing: its configuration is its own to choose."""
    started: dict[tuple[str, str], Configured] = {}
    processes: list[WarmHttpServer | HttpServerProcess] = []
    launchers: list[Launcher] = []

    def start(name: str, transport: str = "streamable-http") -> Configured:
        """``transport``: the profile's name of it (``sse``: HTTP+SSE, whose URL is its SSE endpoint)."""
        configuration = target.configurations.get(name)
        fixture = (target.stdio if transport == "stdio" else target.http.get(transport)) == FIXTURE
        if configuration is None or not (fixture or transport in configuration.http or configuration.stdio):
            pytest.skip(f"fixture-missing: target {target.name}'s profile says not how to start it with {name}")
        if AUTHORIZATION_PLACEHOLDER in repr(configuration):  # it trusts the worker's authorization server
            configuration = configuration.filled(request.getfixturevalue("worker_authorization_server").placeholders)
        if (name, transport) not in started:
            log = run_directory(request.config) / "servers" / f"{transport}-{name}-{os.getpid()}.log"
            if transport == "stdio":
                if fixture:  # forked from the session's warm parent, with the configuration's settings
                    base = request.getfixturevalue("server_launcher")
                    launcher: Launcher = ConfiguredLauncher(
                        base, configuration.fixture_env, configuration.fixture_options
                    )
                else:
                    launcher = CommandLauncher(configuration.stdio or "")
                    launchers.append(launcher)
                started[name, transport] = Configured(configuration.values, launcher=launcher)
            else:
                if fixture:
                    process = fixture_http_server(request, transport, configuration.fixture_options, log)
                else:
                    how = configuration.http[transport]
                    process = HttpServerProcess(how.command or "", log=log, url=how.url, env=how.env)
                processes.append(process)
                started[name, transport] = Configured(configuration.values, url=process.url)
        return started[name, transport]

    yield start
    for process in processes:
        process.close()
    for launcher in launchers:
        launcher.close()


AUTHORIZATION_PLACEHOLDER = "{issuer}"


@pytest.fixture(scope="session")
def worker_authorization_server() -> Iterator[AuthorizationServer]:
    """The worker's authorization server (conformance/harness/authorization.py), started when first needed:
    the one the ``oauth`` configuration's server trusts. Tests take it through ``authorization_server``."""
    from conformance.harness.authorization import AuthorizationServer

    with AuthorizationServer() as authorization:
        yield authorization


@pytest.fixture
def authorization_trace(request: pytest.FixtureRequest) -> Iterator[Trace]:
    """The trace of the test's exchanges with the harness's authorization server and protected resource (beside
    its session trace), kept only if the test fails; the test's trace in its report where it has no session
    trace (a client's OAuth flow: the offline validator judges it too)."""
    trace = Trace(_trace_path(request).with_suffix(".authorization.jsonl"), "streamable-http")
    request.node.stash.setdefault(TRACE_KEY, trace.path)
    yield trace
    trace.close()
    if trace_goes(request):
        trace.path.unlink(missing_ok=True)


@pytest.fixture
def authorization_server(
    worker_authorization_server: AuthorizationServer, authorization_trace: Trace, request: pytest.FixtureRequest
) -> Iterator[AuthorizationServer]:
    """The worker's authorization server, well-behaved and with nothing seen or registered when the test
    starts, its exchanges in the test's authorization trace, what it records of the client's requests under
    the test's fault (``Recorder.fault``); what the test makes it do (``misbehaviour``) ends with the test."""
    worker_authorization_server.reset()
    worker_authorization_server.recorder.trace = authorization_trace
    worker_authorization_server.recorder.fault = active_fault(request)
    yield worker_authorization_server
    worker_authorization_server.recorder.trace = None
    worker_authorization_server.recorder.fault = None
    worker_authorization_server.reset()


@pytest.fixture
def protected_resource(
    authorization_server: AuthorizationServer,
    http_server_url: str,
    authorization_trace: Trace,
    request: pytest.FixtureRequest,
) -> Iterator[ProtectedResource]:
    """A protected resource (conformance/harness/protected_resource.py) for the test's client under test:
    taking the tokens of the worker's authorization server, forwarding to the worker's fixture server; its
    exchanges in the test's authorization trace, what it records under the test's fault."""
    from conformance.harness.protected_resource import ProtectedResource

    with ProtectedResource(http_server_url, [authorization_server]) as resource:
        resource.recorder.trace = authorization_trace
        resource.recorder.fault = active_fault(request)
        yield resource


class ConfiguredLauncher:
    """Sessions forked from a warm parent with a configuration's environment and arguments added."""

    def __init__(self, base: Launcher, env: dict[str, str], argv: tuple[str, ...]) -> None:
        self.base, self.env, self.argv = base, env, list(argv)
        self.description = f"{base.description} with {env} {argv}"

    def start(self, argv: list[str] | None = None, env: dict[str, str] | None = None) -> ServerProcess:
        return self.base.start([*self.argv, *(argv or [])], self.env | (env or {}))

    def close(self) -> None:
        """The base launcher is the session's own, closed with it."""


@pytest.fixture
def http_server(
    revision: str, http_server_url: str, target: Target, request: pytest.FixtureRequest
) -> Iterator[HttpPeer]:
    """A fresh Streamable HTTP session (or stateless exchange, at 2026-07-28) with the server under test."""
    yield from _session(
        "streamable-http", target, request, lambda trace, fault: HttpPeer(http_server_url, trace, revision, fault=fault)
    )


AnyPeer = TypeVar("AnyPeer", bound=Peer)


def _session(
    transport: str,
    target: Target,
    request: pytest.FixtureRequest,
    make: Callable[[Trace, Fault | None], AnyPeer],
) -> Iterator[AnyPeer]:
    """One test's session with the server under test: traced, faulted under --falsify or --mutate, told the
    roles its profile binds; its trace kept only if the test fails."""
    trace = Trace(_trace_path(request), transport)
    request.node.stash[TRACE_KEY] = trace.path
    peer = make(trace, active_fault(request))
    peer.roles = target.roles
    yield peer
    peer.close()
    if trace_goes(request):
        trace.path.unlink(missing_ok=True)


SSE = "sse"  # 2024-11-05's HTTP+SSE in target profiles and traces; ``http+sse`` in the vocabulary and test ids


@pytest.fixture(scope="session")
def sse_server_url(target: Target, request: pytest.FixtureRequest) -> Iterator[str]:
    """The SSE endpoint of the HTTP+SSE server under test (for the fixture server: one per worker)."""
    yield from http_server_url_of(target, SSE, request)


@pytest.fixture
def sse_server(
    revision: str, sse_server_url: str, target: Target, request: pytest.FixtureRequest
) -> Iterator[HttpSsePeer]:
    """A fresh HTTP+SSE session (2024-11-05) with the server under test; its stream opens on first use."""
    yield from _session(
        "sse", target, request, lambda trace, fault: HttpSsePeer(sse_server_url, trace, revision, fault=fault)
    )


SessionFactory = Callable[[str], AbstractContextManager[Peer]]
CLIENT_DRIVER_MODULE = "conformance.fixtures.client"
CLIENT_RUN_SECONDS = 20.0


Judged = TypeVar("Judged")


@dataclass
class ClientRun:
    """One run of the client under test through a scenario, against the scripted server."""

    scenario: str
    completed: bool
    output: str
    fault: Fault | None = None  # under --falsify: the fault on the client (see ``report``)

    def require_completed(self) -> None:
        """A client that did not finish its scenario leaves nothing to judge: the harness says so."""
        if not self.completed:
            raise HarnessError(f"the client did not complete scenario {self.scenario!r}:\n{self.output[-2000:]}")

    def judge(self, check: Callable[[], Judged]) -> Judged:
        """Run ``check`` on what the client sent, then require the run to have completed. A client whose
        broken message stalled the exchange (the peer could not read it, so never answered) fails at the
        check, the stall noted beside the evidence; only a stall with nothing to blame in the record is
        the harness's (``require_completed``). Returns what ``check`` returns."""
        try:
            judged = check()
        except AssertionError as failure:
            if not self.completed:
                failure.add_note(
                    f"and the exchange stalled: the client did not complete scenario {self.scenario!r} "
                    f"within {CLIENT_RUN_SECONDS:g} s; its last output:\n{self.output[-1000:]}"
                )
            raise
        self.require_completed()
        return judged

    def report(self, name: str) -> Any:
        """What the client told its application under ``name``: the JSON of its last
        ``mcp-matrix: <name> <JSON>`` line (None if it printed none), as the fault, if any, makes it read
        (``Fault.rewrite_report``: a client that tells its application something else)."""
        prefix = f"{REPORT_PREFIX}{name} "
        said = [line.removeprefix(prefix) for line in self.output.splitlines() if line.startswith(prefix)]
        report = json.loads(said[-1]) if said else None
        return self.fault.rewrite_report(name, report) if self.fault is not None else report


@pytest.fixture(scope="session")
def client_launcher(target: Target, request: pytest.FixtureRequest) -> Iterator[Launcher]:
    if target.client is None:
        pytest.skip(f"fixture-missing: target {target.name} offers no client")
    config = request.config
    forked = forked_client(target.client)
    launcher: Launcher
    if forked is not None:
        module, python = forked
        launcher = _warm_launcher(config, CLIENT_PARENT, module, python, client_environment(run_directory(config)))
    else:
        launcher = CommandLauncher(target.client, env=client_environment(run_directory(config)))
    yield launcher
    launcher.close()


def client_environment(run: Path) -> dict[str, str]:
    """The environment of the client under test: this one, with an empty trust store. Every server the
    harness plays is plain HTTP on loopback, so no client needs CA certificates, and loading a bundle
    costs an HTTP client about 30 ms of CPU each time it is built (httpx reads SSL_CERT_FILE anew)."""
    empty = run / "empty-trust-store"
    empty.mkdir(parents=True, exist_ok=True)
    environment = {name: value for name, value in os.environ.items() if name != "SSL_CERT_FILE"}
    return environment | {"SSL_CERT_DIR": str(empty)}


def forked_client(command: str) -> tuple[str, str] | None:
    """(module, interpreter) of a client forked from a warm parent that has imported it, so that no cell pays
    for importing the client's library: the SDK's driver, or a driver script of this checkout run by another
    interpreter (``PYTHON targets/clients/<driver>.py``: its library's virtualenv). None: any other command,
    which starts afresh."""
    if command == FIXTURE:
        return CLIENT_DRIVER_MODULE, sys.executable
    argv = shlex.split(command)
    if len(argv) == 2 and argv[1].endswith(".py"):
        script = (PROJECT_ROOT / argv[1]).resolve()
        if script.is_file() and script.is_relative_to(PROJECT_ROOT):
            return ".".join(script.relative_to(PROJECT_ROOT).with_suffix("").parts), argv[0]
    return None


ScriptedHttp = TypeVar("ScriptedHttp", bound=ScriptedServer)


def _scripted_http(
    kind: type[ScriptedHttp], transport: str, revision: str, request: pytest.FixtureRequest, further: int = 0
) -> Iterator[ScriptedHttp]:
    """A scripted HTTP server of ``revision`` for one test: traced, faulted under --falsify, its own
    schema mistakes a harness error, its trace kept only if the test fails. ``further``: the number of a
    further server of the test (its trace beside the test's, ``.N.jsonl``, a further session of it)."""
    if further:
        trace = Trace(_trace_path(request).with_suffix(f".{further}.jsonl"), transport)
        request.node.stash.setdefault(FURTHER_TRACES_KEY, []).append(trace.path)
    else:
        trace = Trace(_trace_path(request), transport)
        request.node.stash[TRACE_KEY] = trace.path
    fault = active_fault(request)
    server = kind(revision, trace, fault=fault)
    yield server
    server.close()
    trace.close()
    if server.harness_errors:
        raise HarnessError(
            f"the scripted {transport} server sent answers its own schema refuses:\n" + "\n".join(server.harness_errors)
        )
    if trace_goes(request):
        trace.path.unlink(missing_ok=True)


@pytest.fixture
def scripted_server(revision: str, request: pytest.FixtureRequest) -> Iterator[ScriptedServer]:
    """The harness as a Streamable HTTP server of ``revision`` for the client under test; its record is
    the evidence."""
    yield from _scripted_http(ScriptedServer, "streamable-http", revision, request)


@pytest.fixture
def second_scripted_server(revision: str, request: pytest.FixtureRequest) -> Iterator[ScriptedServer]:
    """Another scripted Streamable HTTP server, for a client that talks to two at once (an aggregating host):
    a listener and a trace of its own, so that no trace mixes two servers' sessions."""
    yield from _scripted_http(ScriptedServer, "streamable-http", revision, request, further=2)


@pytest.fixture
def run_client(client_launcher: Launcher, scripted_server: ScriptedServer, revision: str) -> Callable[[str], ClientRun]:
    """Run the client under test through a scenario against the scripted server, bounded in time."""

    def run(scenario: str) -> ClientRun:
        argv = [scripted_server.url]
        return run_client_process(client_launcher, scenario, revision, argv, fault=scripted_server.fault)

    return run


@pytest.fixture(scope="session")
def scripted_stdio_parent(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The relay socket of the warm parent of the scripted stdio server (the run's, or this process's own):
    the servers the clients under test start are forked from it (harness/stdio_relay.py), so that none pays
    for an interpreter's imports."""
    shared = (getattr(request.config, "workerinput", None) or {}).get(SHARED_PARENTS_INPUT, {})
    if SCRIPTED_STDIO_PARENT in shared:
        yield shared[SCRIPTED_STDIO_PARENT]
        return
    launcher = WarmLauncher(SCRIPTED_STDIO_MODULE, relays=True)
    yield launcher.relay_path
    launcher.close()


@pytest.fixture
def scripted_stdio(revision: str, request: pytest.FixtureRequest) -> Iterator[ScriptedStdio]:
    """The harness as a stdio server of ``revision`` for the client under test, which launches it as
    its subprocess; each run's record (a session trace) is the evidence, kept if the test fails."""
    path = _trace_path(request)
    request.node.stash[TRACE_KEY] = path
    fault = active_fault(request)
    server = ScriptedStdio(revision, path, fault=fault, warm_parent=request.getfixturevalue("scripted_stdio_parent"))
    yield server
    server.close()
    if server.harness_errors:
        raise HarnessError(
            "the scripted stdio server sent answers its own schema refuses:\n" + "\n".join(server.harness_errors)
        )
    if trace_goes(request):
        for record in server.paths:
            record.unlink(missing_ok=True)


@pytest.fixture
def page_server(request: pytest.FixtureRequest) -> Iterator[PageServer]:
    """A loopback page server (harness/pages.py) for the test's scripted server (HTTP or stdio), which hands
    its URLs to the client: the record of what the client fetched outside the MCP endpoint, and where a
    ``fetch`` fault's request goes. Over Streamable HTTP the session's trace shows each request too."""
    scripted = next((request.getfixturevalue(n) for n in CLIENT_FIXTURE_NAMES if n in request.fixturenames), None)
    pages = PageServer(trace=getattr(scripted, "trace", None))
    if scripted is not None:
        scripted.pages_url = pages.url
    yield pages
    pages.close()


CLIENT_FIXTURE_NAMES = ("scripted_server", "scripted_stdio", "scripted_peer")


@pytest.fixture
def run_stdio_client(
    client_launcher: Launcher, scripted_stdio: ScriptedStdio, revision: str
) -> Callable[[str], ClientRun]:
    """Run the client under test through a scenario over stdio: it gets ``--transport stdio -- CMD...``
    (the scripted stdio server's command, with the options set on ``scripted_stdio``) as its last
    arguments and launches that server itself. Bounded in time; no scripted server outlives the run."""

    def run(scenario: str) -> ClientRun:
        argv = ["--transport", "stdio", "--", *scripted_stdio.command()]
        return run_client_process(
            client_launcher, scenario, revision, argv, settle=scripted_stdio.load, fault=scripted_stdio.fault
        )

    return run


@pytest.fixture
def scripted_sse_server(revision: str, request: pytest.FixtureRequest) -> Iterator[ScriptedSseServer]:
    """The harness as an HTTP+SSE server (2024-11-05) of ``revision`` for the client under test."""
    yield from _scripted_http(ScriptedSseServer, "sse", revision, request)


@pytest.fixture
def run_sse_client(
    client_launcher: Launcher, scripted_sse_server: ScriptedSseServer, revision: str
) -> Callable[[str], ClientRun]:
    """Run the client under test through a scenario over HTTP+SSE: it gets ``--transport sse URL`` (the
    scripted server's SSE endpoint) as its last arguments. Bounded in time."""

    def run(scenario: str) -> ClientRun:
        argv = ["--transport", SSE, scripted_sse_server.url]
        return run_client_process(client_launcher, scenario, revision, argv, fault=scripted_sse_server.fault)

    return run


CLIENT_FIXTURES = {
    "stdio": ("scripted_stdio", "run_stdio_client"),
    "streamable-http": ("scripted_server", "run_client"),
    "http+sse": ("scripted_sse_server", "run_sse_client"),
}


@pytest.fixture
def scripted_peer(transport: str, request: pytest.FixtureRequest) -> ScriptedPeer:
    """The scripted server of a client test that runs over several transports (``for_req(..., transports=...)``)."""
    return request.getfixturevalue(_client_fixtures(transport)[0])


@pytest.fixture
def run_peer_client(transport: str, request: pytest.FixtureRequest) -> Callable[[str], ClientRun]:
    """Run the client under test against ``scripted_peer``, over the test's transport."""
    return request.getfixturevalue(_client_fixtures(transport)[1])


def _client_fixtures(transport: str) -> tuple[str, str]:
    if transport not in CLIENT_FIXTURES:
        raise HarnessError(f"no scripted server for transport {transport!r}")
    return CLIENT_FIXTURES[transport]


def run_client_process(
    launcher: Launcher,
    scenario: str,
    revision: str,
    argv: list[str],
    settle: Callable[[], object] | None = None,
    fault: Fault | None = None,
    env: dict[str, str] | None = None,
) -> ClientRun:
    """One run of the client under test, bounded in time. Its stdout ends when it does; then the client
    is stopped if it still runs, ``settle`` waits for whatever it launched (a stdio server shares its
    stderr), and its stderr is read to the end. ``env``: what else the scenario is told (its variables)."""
    process = launcher.start(argv=argv, env={SCENARIO_VARIABLE: scenario, REVISION_VARIABLE: revision} | (env or {}))
    process.stdin.close()
    output: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda name=name, stream=stream: output.update({name: stream.read()}), daemon=True)
        for name, stream in (("stdout", process.stdout), ("stderr", process.stderr))
    ]
    for reader in readers:
        reader.start()
    readers[0].join(timeout=CLIENT_RUN_SECONDS)
    process.kill()
    if settle is not None:
        settle()
    readers[1].join(timeout=CLIENT_RUN_SECONDS)
    process.close_pipes()
    text = b"\n".join(output.get(name, b"") for name in ("stdout", "stderr")).decode("utf-8", "replace")
    exited_cleanly = process.popen is None or process.popen.returncode == 0
    unsupported = [line.removeprefix(UNSUPPORTED) for line in text.splitlines() if line.startswith(UNSUPPORTED)]
    if unsupported and exited_cleanly:  # the driver's client library lacks what the scenario needs
        pytest.skip(f"fixture-missing: the client under test cannot run scenario {scenario!r}: {unsupported[-1]}")
    return ClientRun(scenario, exited_cleanly and COMPLETED in text, text, fault)


@pytest.fixture
def open_session(server_launcher: Launcher, target: Target, request: pytest.FixtureRequest) -> Iterator[SessionFactory]:
    """Further stdio sessions with the server under test, at any revision, for tests that need several;
    their traces kept if the test fails (judged once it has ended, not when a session closes)."""
    count = itertools.count(2)
    paths: list[Path] = []
    request.node.stash[FURTHER_TRACES_KEY] = paths  # the report names them beside the test's own trace

    @contextmanager
    def open_one(revision: str) -> Iterator[Peer]:
        path = _trace_path(request).with_suffix(f".{next(count)}.jsonl")
        paths.append(path)
        with StdioPeer(server_launcher.start(), Trace(path, "stdio"), revision) as session:
            session.roles = target.roles
            yield session

    yield open_one
    if trace_goes(request):
        for path in paths:
            path.unlink(missing_ok=True)


@pytest.fixture
def peer(transport: str, request: pytest.FixtureRequest) -> Peer:
    """The session of a test that runs over several transports (``for_req(..., transports=...)``)."""
    fixture = {"stdio": "server", "streamable-http": "http_server", "http+sse": "sse_server"}.get(transport)
    if fixture is None:
        raise HarnessError(f"no peer for transport {transport!r}")
    return request.getfixturevalue(fixture)


def trace_goes(request: pytest.FixtureRequest) -> bool:
    """Whether the test's traces can go once it has ended: it passed outright and the run keeps only
    the evidence of what did not (``--keep-traces`` keeps every trace, for the offline validator)."""
    report = request.node.stash.get(CALL_REPORT_KEY, None)
    return report is not None and passed_outright(report) and not request.config.getoption("--keep-traces")


def passed_outright(report: pytest.TestReport) -> bool:
    """Whether a test passed and its trace can go: a ``warn``, which pytest counts as passed unless
    ``--strict``, keeps its trace, the evidence its report points at."""
    return report.passed and dict(report.user_properties).get("conformance-outcome") != "warn"


def _trace_path(request: pytest.FixtureRequest) -> Path:
    """Where a test's session trace goes: under its run's report directory, kept only if it fails."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid).strip("_")
    return run_directory(request.config) / "traces" / f"{name[:180]}.jsonl"


@pytest.fixture
def server(
    revision: str, server_launcher: Launcher, target: Target, request: pytest.FixtureRequest
) -> Iterator[StdioPeer]:
    """A fresh stdio session with the server under test, at ``revision``, recorded as a trace."""
    yield from _session(
        "stdio", target, request, lambda trace, fault: StdioPeer(server_launcher.start(), trace, revision, fault=fault)
    )


def collected_node_ids(config: pytest.Config, files: list[str]) -> set[str] | None:
    """The node ids this session collected, if it collected every one of ``files``; else None."""
    collected = config.stash.get(COLLECTED_KEY, frozenset())
    collected_files = {node_id.split("::", 1)[0] for node_id in collected}
    return set(collected) if set(files) <= collected_files else None


def gap_reason(item: pytest.Item, profile: Target) -> str | None:
    """Why a cell is expected to fail: the target's own gap, or the suite's (``coverage/*.py``).

    A finding (``F-NNN``) in the coverage modules was found against the default target; another
    target runs that cell and is judged on it, unless its own profile gaps it.
    """
    own = _profile_gap(item, profile)
    if own is not None:
        return f"gap: {own.ref} {own.why} (target {profile.name})"
    gapped = item.get_closest_marker("gapped")
    if gapped is None or (gapped.args[0].startswith("F-") and not profile.coverage_findings):
        return None
    return f"gap: {gapped.args[0]} {gapped.kwargs.get('why', '')}".rstrip()


def _not_offered_by(item: pytest.Item, profile: Target) -> bool:
    """Whether ``profile`` gaps the item's cell as a feature its implementation does not offer (N-NNN)."""
    gap = _profile_gap(item, profile)
    return gap is not None and gap.ref.startswith("N-")


def _profile_gap(item: pytest.Item, profile: Target) -> TargetGap | None:
    """The gap ``profile`` itself gives the item's cell (at its transport), if any."""
    requirement = item.get_closest_marker("requirement")
    if requirement is None:
        return None
    revision = item.callspec.params.get("revision")
    return profile.gap_of(requirement.args[0], revision, requirement.args[1], transport_of(item))


def active_fault(request: pytest.FixtureRequest) -> Fault | None:
    """The damage a test's session takes: its declared fault under --falsify, the mutation under --mutate."""
    mutation = request.config.getoption("--mutate")
    if mutation:
        return MUTATIONS[mutation]
    return fault_of(request.node) if request.config.getoption("--falsify") else None


def fault_of(item: pytest.Item) -> Fault | None:
    marker = item.get_closest_marker("requirement")
    return marker.kwargs.get("fault") if marker is not None else None


COLLECTED_KEY = pytest.StashKey[frozenset[str]]()


def _is_cell(item: pytest.Item) -> bool:
    return item.get_closest_marker("requirement") is not None


def _further_fault(item: pytest.Item) -> bool:
    marker = item.get_closest_marker("requirement")
    return marker is not None and bool(marker.kwargs.get("further_fault"))


@pytest.hookimpl(tryfirst=True)  # before -k / -m / --falsify deselect anything
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The meta-tests run only with the default target (they judge this checkout). A gapped cell runs as
    a strict expected failure: it must fail by assertion, and one that passes fails the run as a stale
    gap (``RUN_GAPS=1`` runs gapped cells as ordinary tests, to see why they fail). Under --falsify only
    the tested cells that declare a fault run, since the rest (gapped cells included: they fail already)
    have nothing to prove. Every collected node id is kept for the meta-test, which then need not
    collect the suite again (see collected_node_ids)."""
    config.stash[COLLECTED_KEY] = frozenset(item.nodeid for item in items)
    profile = config.stash[TARGET_KEY]
    if profile.name != targets.DEFAULT_TARGET:  # the meta-tests judge this checkout, not another target
        about_the_tree = [item for item in items if Path(str(item.path)).name in META_TESTS]
        config.hook.pytest_deselected(items=about_the_tree)
        items[:] = [item for item in items if item not in about_the_tree]
    if not config.getoption("--falsify"):  # a further fault's item is the same run as its cell's own
        further = [item for item in items if _further_fault(item)]
        config.hook.pytest_deselected(items=further)
        items[:] = [item for item in items if not _further_fault(item)]
    if config.getoption("--not-offered-by"):
        other = _profile(config.getoption("--not-offered-by"))
        offered = [item for item in items if not _not_offered_by(item, other)]
        config.hook.pytest_deselected(items=offered)
        items[:] = [item for item in items if item not in offered]
    gapped = {item: gap_reason(item, profile) for item in items}
    if config.getoption("--falsify") or config.getoption("--mutate"):
        declared = config.getoption("--falsify")
        keep = [i for i in items if (fault_of(i) is not None or not declared) and not gapped[i] and _is_cell(i)]
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep
        return
    for item, reason in gapped.items():
        if reason and not run_gaps():
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True, raises=AssertionError))


STALE_GAP_PREFIX = "[XPASS(strict)]"  # how pytest reports a strict expected failure that passed
TRACE_KEY = pytest.StashKey[Path]()
FURTHER_TRACES_KEY = pytest.StashKey[list[Path]]()  # the traces of a test's further sessions (open_session)
CALL_REPORT_KEY = pytest.StashKey[pytest.TestReport]()
# The transport a test without a ``transport`` parameter runs over, by the session fixture it uses.
TRANSPORT_OF_FIXTURE = {
    "server": "stdio",
    "open_session": "stdio",
    "scripted_stdio": "stdio",
    "http_server": "streamable-http",
    "http_server_url": "streamable-http",
    "reconfigured_http_server": "streamable-http",
    "scripted_server": "streamable-http",
    "sse_server": "http+sse",
    "sse_server_url": "http+sse",
    "scripted_sse_server": "http+sse",
}


def transport_of(item: pytest.Item) -> str:
    params = getattr(item, "callspec", None)
    if params is not None and "transport" in params.params:
        return str(params.params["transport"])
    return next((TRANSPORT_OF_FIXTURE[f] for f in getattr(item, "fixturenames", ()) if f in TRANSPORT_OF_FIXTURE), "")


def level_of(item: pytest.Item) -> str:
    marker = item.get_closest_marker("requirement")
    return registry()[0][marker.args[0]]["level"] if marker is not None else "MUST"


def known_finding(item: pytest.Item, profile: Target) -> str:
    """The pinned SDK's finding on this cell, for a target built on that SDK (``built-on: mcp==...``)."""
    gapped = item.get_closest_marker("gapped")
    if not profile.built_on or profile.coverage_findings or gapped is None or not gapped.args[0].startswith("F-"):
        return ""
    if profile.built_on.split("==")[0].strip().lower() != "mcp":
        return ""
    return f"{gapped.args[0]} (found in the pinned mcp SDK; docs/findings/)"


def judge(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport, strict: bool, falsify: bool
) -> str:
    """The cell's outcome of this report, at its row's level; the report is re-labelled so that pytest
    counts it as the outcome says (a ``warn`` passes unless ``--strict``; ``not-exercised`` and, unless
    ``--strict``, ``inconclusive`` are skips naming themselves)."""
    excinfo = call.excinfo
    if falsify and call.when == "call":  # _invert_for_falsify has judged it: at its own check, or survived
        return "falsified" if report.passed else "survived"
    if report.skipped:
        if hasattr(report, "wasxfail"):  # a gapped cell that failed, as it must
            return "gap"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        outcome = skip_outcome(reason)
        report.user_properties.append(("evidence", reason.removeprefix("Skipped: ")))
        return outcome
    if report.passed:
        return "pass"
    if excinfo is None:  # a stale gap: pytest's strict xfail that passed
        return "fail"
    assertion = excinfo.errisinstance(AssertionError) or excinfo.errisinstance(pytest.fail.Exception)
    outcome = failure_outcome(level_of(item)) if assertion else "inconclusive"
    message = f"{outcome}: {str(excinfo.value).strip()}"
    if outcome == "warn" and not strict:
        report.outcome = "passed"
    elif outcome == "not-exercised" or (outcome == "inconclusive" and not strict):
        path, line = item.location[0], (item.location[1] or 0) + 1
        report.outcome = "skipped"
        report.longrepr = (path, line, message.splitlines()[0][:300])
    report.user_properties.append(("evidence", message))
    return outcome


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report: pytest.TestReport = yield
    config = item.config
    if report.failed and isinstance(report.longrepr, str) and report.longrepr.startswith(STALE_GAP_PREFIX):
        reason = report.longrepr.removeprefix(STALE_GAP_PREFIX).strip()
        report.longrepr = f"stale gap: this cell passes, so its gap is wrong; remove it ({reason})"
    falsify = config.getoption("--falsify")
    if call.when == "call" and falsify:
        _invert_for_falsify(item, call, report)
    if call.when == "call":
        item.stash[CALL_REPORT_KEY] = report
    if config.getoption("--mutate") and (call.when == "call" or report.skipped or report.failed):
        _record_mutation(call, report)
        return report
    marker = item.get_closest_marker("requirement")
    if marker is not None and (call.when == "call" or report.skipped or report.failed):
        revision = item.callspec.params.get("revision")
        transport = transport_of(item)
        outcome = judge(item, call, report, config.getoption("strict"), falsify)
        report.user_properties += [
            ("conformance-outcome", outcome),
            ("cell", (marker.args[0], revision, marker.args[1])),
            ("transport", transport),
            ("gapped", gap_reason(item, config.stash[TARGET_KEY]) is not None),
        ]
        finding = known_finding(item, config.stash[TARGET_KEY])
        if finding and outcome in ("fail", "warn"):
            report.user_properties.append(("known-finding", finding))
        trace = item.stash.get(TRACE_KEY, None)
        # a scripted stdio server's runs after the first each have a trace (.N.jsonl): the cell's evidence too
        stdio = [v for v in getattr(item, "funcargs", {}).values() if isinstance(v, ScriptedStdio)]
        reruns = [path for server in stdio for path in server.paths[1:]]
        further = dict.fromkeys([*item.stash.get(FURTHER_TRACES_KEY, []), *reruns])
        traces = tuple(str(path) for path in (trace, *further) if path is not None)
        if outcome in ("fail", "warn", "inconclusive") and trace is not None:
            report.user_properties.append(("traces", traces))
            report.sections.append(("trace", f"session trace kept at {_shown(trace)}"))
        elif trace is not None and config.getoption("--keep-traces"):
            report.user_properties.append(("traces", traces))  # the report names every kept trace's cell
        if outcome in ("fail", "warn"):
            heading = (
                f"{marker.args[0]} ({level_of(item)}) at {revision}, {marker.args[1]} side, over {transport or '-'}"
            )
            report.sections.insert(0, ("requirement", heading + (f"; known upstream: {finding}" if finding else "")))
    return report


def _shown(path: Path) -> str:
    return str(path.relative_to(PROJECT_ROOT)) if path.is_relative_to(PROJECT_ROOT) else str(path)


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    """Counted and shown under their own names: ``3 warned, 40 fixture-missing, 2 not-exercised``."""
    outcome = dict(getattr(report, "user_properties", ())).get("conformance-outcome")
    if outcome == "warn" and report.passed:
        return "warned", "W", "WARN"
    if outcome in SKIP_OUTCOMES and report.skipped:
        return outcome, outcome[0].upper() if outcome == "inconclusive" else "s", outcome.upper()
    return None


SUITE_MODULE = re.compile(r"(^|/)conformance/test_[a-z0-9_]+\.py$")
CHECK_FUNCTION = re.compile(r"^(assert|check)_")


def failed_at_own_check(excinfo: pytest.ExceptionInfo[BaseException]) -> bool:
    """Whether an assertion failure was raised by the test's own check: an ``assert`` of a suite module
    (the test body, or a helper beside it), or a check helper of the harness (``assert_*``, ``check_*``).
    One raised inside the harness (a frame that is not JSON, a wait the peer gave up on, a precondition)
    or by pytest (``pytest.fail`` of a profile lookup) is not the test's check."""
    if not excinfo.errisinstance(AssertionError) or excinfo.errisinstance(HarnessError):
        return False
    innermost = excinfo.traceback[-1]
    return bool(SUITE_MODULE.search(str(innermost.path)) or CHECK_FUNCTION.match(innermost.name))


def _record_mutation(call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """Under a mutation a test is a measurement, not a gate: killed (it failed at its own check), survived
    (it passed), or elsewhere (it failed in the harness or a precondition, or skipped)."""
    excinfo = call.excinfo
    killed = excinfo is not None and not report.skipped and failed_at_own_check(excinfo)
    outcome = "killed" if killed else "survived" if report.passed else "elsewhere"
    report.user_properties.append(("mutation-outcome", outcome))
    report.outcome, report.longrepr = "passed", None


def _invert_for_falsify(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """Under its fault a test must fail at its own check (``failed_at_own_check``); passing, skipping,
    failing anywhere else (the harness, a precondition, a lookup) is surviving it."""
    fault = fault_of(item)
    excinfo = call.excinfo
    if excinfo is not None and failed_at_own_check(excinfo):
        report.outcome = "passed"
        report.longrepr = None
        report.sections.append(("falsified", f"failed at its own check as it must under: {fault}"))
        return
    if excinfo is None:
        why = "passed"
    elif report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        why = f"skipped ({reason})"
    else:
        where, said = excinfo.traceback[-1], (str(excinfo.value).splitlines() or [""])[0][:300]
        at = f"{where.path.name}:{where.lineno + 1} in {where.name}"
        why = f"failed elsewhere than at its check: {excinfo.typename} at {at}: {said}"
    report.outcome = "failed"
    report.longrepr = f"survived its fault ({fault}): it {why}"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A cell of a revision the target does not speak is not run (reported once per revision); with a
    target that cannot be reached, no server cell is."""
    marker = item.get_closest_marker("requirement")
    if marker is None:
        return
    side = marker.args[1]
    if side in not_offered(item.config.stash[TARGET_KEY]):
        pytest.skip(f"side-not-offered: target {item.config.stash[TARGET_KEY].name} offers no {side}")
    spoken = spoken_revisions(item.config)[side]
    if spoken.unreachable:
        pytest.skip(f"inconclusive: the target could not be started or reached: {spoken.unreachable}")
    revision = item.callspec.params.get("revision")
    if not spoken.speaks(revision):
        pytest.skip(f"revision-not-implemented: {revision} ({spoken.not_spoken.get(revision, 'per its profile')})")


SPOKEN_KEY = pytest.StashKey[dict[str, Spoken]]()
WORKER_INPUT_KEY = "mcp_matrix_spoken"


def spoken_revisions(config: pytest.Config) -> dict[str, Spoken]:
    """side -> the revisions the target speaks: a worker's from its controller, else found here once."""
    if SPOKEN_KEY not in config.stash:
        worker_input = getattr(config, "workerinput", None)
        if worker_input is not None and WORKER_INPUT_KEY in worker_input:
            found = {side: Spoken.from_json(data) for side, data in worker_input[WORKER_INPUT_KEY].items()}
        else:
            target = config.stash[TARGET_KEY]
            probes = run_directory(config) / "probe"
            found = {side: spoken_by(target, side, probes) for side in SIDES}
        config.stash[SPOKEN_KEY] = found
    return config.stash[SPOKEN_KEY]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: object) -> None:
    """xdist: the controller finds the target's revisions once and hands them to every worker (for a
    run of the suite: the meta-test and the machinery's tests need none)."""
    if not _runs_the_suite(node.config):  # type: ignore[attr-defined]
        return
    spoken = spoken_revisions(node.config)  # type: ignore[attr-defined]
    node.workerinput[WORKER_INPUT_KEY] = {side: s.as_json() for side, s in spoken.items()}  # type: ignore[attr-defined]
    parents = _shared_parents(node.config)  # type: ignore[attr-defined]
    node.workerinput[SHARED_PARENTS_INPUT] = {name: p.relay_path for name, p in parents.items()}  # type: ignore[attr-defined]


def _not_implemented(config: pytest.Config) -> dict[str, str]:
    """``"<revision> <side>"`` -> why, for every revision a side of the target does not speak."""
    return {
        f"{revision} {side}": spoken.not_spoken.get(revision, "not claimed by its profile")
        for side, spoken in spoken_revisions(config).items()
        if not spoken.unreachable
        for revision in REVISIONS
        if not spoken.speaks(revision)
    }


def not_offered(target: Target) -> tuple[str, ...]:
    """The sides the target plays no part on: no server over any transport, or no client."""
    server = target.stdio is not None or bool(target.http)
    return tuple(side for side, offered in (("server", server), ("client", target.client is not None)) if not offered)


def _results(terminalreporter: pytest.TerminalReporter) -> list[reports.TestResult]:
    results = []
    for category in terminalreporter.stats.values():
        for report in category:
            properties = dict(getattr(report, "user_properties", ()))
            outcome = properties.get("conformance-outcome")
            if "cell" not in properties or outcome is None or outcome in UNCOUNTED:
                continue
            requirement, revision, side = properties["cell"]
            results.append(
                reports.TestResult(
                    requirement,
                    revision,
                    side,
                    outcome,
                    properties.get("transport", ""),
                    properties.get("evidence", ""),
                    tuple(properties.get("traces", ())),
                    properties.get("known-finding", ""),
                    properties.get("gapped", False),
                )
            )
    return results


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    config = terminalreporter.config
    if config.getoption("--mutate"):
        if not hasattr(config, "workerinput"):
            _summarize_mutations(terminalreporter)
        return
    results = _results(terminalreporter)
    falsify = config.getoption("--falsify")
    if results:
        counts = Counter((r.revision, r.side, r.outcome) for r in results)
        outcomes = FALSIFY_OUTCOMES if falsify else OUTCOMES
        title = "falsification (each test under its fault)" if falsify else "conformance outcomes"
        terminalreporter.section(f"{title} by revision and side")
        terminalreporter.write_line(f"{'revision':12} {'side':7} " + " ".join(f"{o:>15}" for o in outcomes))
        for revision, side in sorted({(r, s) for r, s, _ in counts}):
            cells = " ".join(f"{counts[revision, side, o]:>15}" for o in outcomes)
            terminalreporter.write_line(f"{revision:12} {side:7} {cells}")
    if falsify or not config.stash.get(REPORTED_KEY, False):
        return
    warned = [r for r in results if r.outcome == "warn"]
    if warned:
        terminalreporter.section("warnings: SHOULD / SHOULD NOT not followed (fail the run under --strict)")
        for result in sorted(warned, key=lambda r: (r.requirement, r.revision, r.transport)):
            first = result.evidence.removeprefix("warn: ").splitlines()[0][:200] if result.evidence else ""
            terminalreporter.write_line(f"{result.revision} {result.requirement} @{result.transport or '-'}: {first}")
    stopped_short = Counter(
        f"{r.outcome}: {r.evidence.split(': ', 1)[-1][:150]}"
        for r in results
        if r.outcome in (*NOT_REACHED, "not-exercised") and not r.gapped
    )
    if stopped_short:
        terminalreporter.section("why tests stopped short of their check (tests, reason)")
        for reason, count in stopped_short.most_common():
            terminalreporter.write_line(f"{count:5} {reason}")
    unreached = config.stash.get(UNREACHED_KEY, [])
    if unreached:
        terminalreporter.section("tested cells that never reached their check on the default target", red=True)
        terminalreporter.write_line(
            "every test of each stopped short (fixture-missing, inconclusive): give the fixture the situation, "
            "or the cell is not tested (gap it, with why)"
        )
        for cell in unreached:
            terminalreporter.write_line(f"  {cell}")
    target = config.stash[TARGET_KEY]
    directory = run_directory(config)
    line = reports.write(directory, target, results, registry()[0], _not_implemented(config), not_offered(target))
    terminalreporter.section(f"target {target.name}")
    terminalreporter.write_line(line)
    terminalreporter.write_line(f"report: {_shown(directory / 'report.md')} (and report.html, report.json)")


def pytest_unconfigure(config: pytest.Config) -> None:
    for parent in config.stash.get(SHARED_PARENTS_KEY, {}).values():
        parent.close()
    reports.release_locks()


EXIT_UNREACHABLE = 3


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Exit 3 when the target's server could not be started or reached (see conformance/run/revisions.py);
    a run of the whole suite on the default target fails if a cell the matrix calls tested never reached
    its check (every test of it fixture-missing or inconclusive): such a cell is not tested."""
    config = session.config
    if hasattr(config, "workerinput"):
        return
    if SPOKEN_KEY in config.stash and any(s.unreachable for s in config.stash[SPOKEN_KEY].values()):
        session.exitstatus = EXIT_UNREACHABLE
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or not _runs_the_whole_suite_on_the_default_target(config):
        return
    unreached = unreached_tested_cells(_results(reporter))
    config.stash[UNREACHED_KEY] = unreached
    if unreached and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _summarize_mutations(terminalreporter: pytest.TerminalReporter) -> None:
    """Under --mutate: the run's mutation.json, node id -> killed / survived / elsewhere."""
    config = terminalreporter.config
    outcomes: dict[str, str] = {}
    for category in terminalreporter.stats.values():
        for report in category:
            outcome = dict(getattr(report, "user_properties", ())).get("mutation-outcome")
            if outcome and (outcomes.get(report.nodeid) in (None, "survived") or outcome == "killed"):
                outcomes[report.nodeid] = outcome
    path = run_directory(config) / "mutation.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(outcomes, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    counts = Counter(outcomes.values())
    terminalreporter.write_line(f"mutation {config.getoption('--mutate')}: {dict(counts)} -> {_shown(path)}")


UNREACHED_KEY = pytest.StashKey[list[str]]()
NOT_REACHED = ("fixture-missing", "inconclusive")


def unreached_tested_cells(results: list[reports.TestResult]) -> list[str]:
    """The tested (not gapped) cells whose every test stopped short of its check."""
    outcomes: dict[tuple[str, str, str], set[str]] = {}
    for result in results:
        if not result.gapped:
            outcomes.setdefault((result.requirement, result.revision, result.side), set()).add(result.outcome)
    return [f"{r} {rev} {side}" for (r, rev, side), seen in sorted(outcomes.items()) if seen <= set(NOT_REACHED)]


def _runs_the_whole_suite_on_the_default_target(config: pytest.Config) -> bool:
    whole = any(Path(arg.split("::", 1)[0]).resolve() == SUITE_DIR for arg in config.args)
    narrowed = config.option.keyword or config.option.markexpr or config.getoption("--falsify")
    return whole and not narrowed and config.stash[TARGET_KEY].name == targets.DEFAULT_TARGET
