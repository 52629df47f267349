"""Target profiles: which implementation is under test, how to start it, what it offers, its own gaps.

A profile is a YAML file (``targets/<name>.yaml``, or any path given to ``--target``)::

    name: server-everything                      # how reports name the target
    describes: "@modelcontextprotocol/server-everything 2026.8.31 (npm)"
    server:                                      # the server under test, by transport; omit what it lacks
      stdio: "npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio"
      streamable-http:                           # a command that prints `listening <url>`, or:
        command: "npx -y @modelcontextprotocol/server-everything@2026.8.31 streamableHttp"
        url: "http://127.0.0.1:{port}/mcp"       # the harness picks a free loopback port for {port}
        env: {PORT: "{port}"}
      # or a server already running:  streamable-http: {url: "http://127.0.0.1:3001/mcp"}
    client: "my-client --flag"                   # the client under test, by command; omit if none
    fixtures: [test_simple_text, test_sampling]  # official-suite fixture names it offers, or `all`: each
                                                 # plays the roles it plays in the official everything
                                                 # servers, and no more (conformance/harness/roles.py)
    roles:                                       # the behaviours tests need, by role, mapped to its own
      progress-tool: long_task                   # tools, prompts and resources (a resource by its URI);
      slow-tool: {name: long_task, arguments: {seconds: 3}}   # arguments replace the role's own
    revisions: 2024-11-05..2025-11-25            # optional: the revisions it implements, for both sides
                                                 # (or {server: ..., client: ...}); without it the
                                                 # server's are found by a probe (conformance/run/revisions.py)
    built-on: mcp==2.3.0                         # optional: the SDK it is built on; that SDK's findings
                                                 # (F-NNN in coverage/) label its failing cells as known upstream
    configurations:                              # optional: how to start the server configured a certain
      bearer-token:                              # way, for the cells about that configuration (CONFIGURATIONS)
        token: "s3cret"                          # what the configuration is (its values, by name)
        streamable-http:                         # the server so configured, per transport, as under server:
          command: "my-server --http --token s3cret"
          url: "http://127.0.0.1:{port}/mcp"
    gaps:                                        # cells this target is known to break
      - requirement: lifecycle-discover-implemented
        side: server
        revisions: 2026-07-28                    # optional: every revision of the row
        transports: [stdio]                      # optional: every transport the cell runs over
        ref: "upstream issue 123"                # where it is tracked
        why: "answers server/discover with -32601"

``fixture`` in place of a command means the project's own fixture (``conformance/fixtures``), started
the fast way (forked from a warm parent, one HTTP server per worker). The default profile,
``targets/sdk-python.yaml``, puts the pinned SDK under test that way; the findings gapped in
``coverage/*.py`` (``F-NNN``) were found against it (``coverage-findings: true``), so other
targets run those cells instead of inheriting the SDK's gaps.

A test that needs a transport, a client or a role that the target's profile does not map reports
``fixture-missing``, never pass or fail; a role it maps to a name the server does not list fails.
Every fault in a profile is reported at once, with its file and line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import yaml

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputError, InputErrors, parse_yaml
from conformance.catalogue.rows import parse_revisions
from conformance.catalogue.vocabulary import SIDES
from conformance.harness.roles import ROLES, Binding, bind, bindings

TARGETS_DIR = PROJECT_ROOT / "targets"
DEFAULT_TARGET = "sdk-python"
FIXTURE = "fixture"
FIXTURE_SERVER_MODULE = "conformance.fixtures.server"  # what `fixture` starts as a server
SERVER_TRANSPORTS = ("stdio", "streamable-http", "sse")
TRANSPORT_NAMES = ("stdio", "streamable-http", "http+sse")  # as test ids and gaps name them
ALL_FIXTURES = "all"
# The configurations a test may need the server started in, and the values each must state. A cell about
# one is judged only on a target whose profile says how to start it so; elsewhere it is fixture-missing.
CONFIGURATIONS: dict[str, tuple[str, ...]] = {
    "bearer-token": ("token",),  # every HTTP request must carry Authorization: Bearer <token>
    "session-idle-timeout": ("seconds",),  # the server ends a session idle for that long
    "ping-interval": ("seconds",),  # the server pings an idle session at that interval
    "without-completion": (),  # the server declares and serves no completion/complete
    "two-bearer-tokens": ("token", "other-token"),  # HTTP requests must carry either token: two principals
    "request-state-ttl": ("seconds",),  # the server's requestState (2026-07-28) lapses after that long
    # HTTP requests need an access token (with these space-separated scopes) of the harness's authorization
    # server (conformance/harness/authorization.py), which commands, options and environment name as {issuer}
    # and {jwks-uri}; the server publishes its protected-resource metadata.
    "oauth": ("scopes",),
    # the server is its own authorization server (metadata, authorization, token and registration endpoints
    # beside its MCP endpoint) and HTTP requests need an access token it issued, with these scopes
    "oauth-hosted": ("scopes",),
}
# Values a configuration may state. oauth-hosted's decided-by-the-suite: the space-separated policies (as
# refresh-token-rotation) that the target's server leaves to code the suite wrote (the fixture's provider), whose
# tests are then fixture-missing: they would judge the suite.
OPTIONAL_VALUES: dict[str, tuple[str, ...]] = {"oauth-hosted": ("decided-by-the-suite",)}
TOP_LEVEL_KEYS = {
    "name",
    "describes",
    "server",
    "client",
    "fixtures",
    "gaps",
    "coverage-findings",
    "revisions",
    "built-on",
    "configurations",
    "roles",
}
GAP_KEYS = {"requirement", "side", "revisions", "transports", "ref", "why"}
HTTP_KEYS = {"command", "url", "env"}


@dataclass(frozen=True)
class HttpServer:
    """How to reach a target's HTTP server: a running ``url``, or a ``command`` that starts one."""

    command: str | None = None
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Configuration:
    """The server started configured a certain way: its values, and how, per transport (for the
    project's fixture, ``fixture-options``: options added to its command line)."""

    name: str
    values: dict[str, str]
    stdio: str | None = None
    http: dict[str, HttpServer] = field(default_factory=dict)
    fixture_options: tuple[str, ...] = ()
    fixture_env: dict[str, str] = field(default_factory=dict)

    def filled(self, placeholders: Mapping[str, str]) -> Configuration:
        """The configuration with each placeholder (``{issuer}``) in its commands, options and environment
        replaced by its value."""

        def fill(text: str) -> str:
            for name, value in placeholders.items():
                text = text.replace(name, value)
            return text

        def fill_server(server: HttpServer) -> HttpServer:
            env = {name: fill(value) for name, value in server.env.items()}
            return HttpServer(server.command and fill(server.command), server.url and fill(server.url), env)

        return replace(
            self,
            stdio=self.stdio and fill(self.stdio),
            http={transport: fill_server(server) for transport, server in self.http.items()},
            fixture_options=tuple(map(fill, self.fixture_options)),
            fixture_env={name: fill(value) for name, value in self.fixture_env.items()},
        )


@dataclass(frozen=True)
class TargetGap:
    requirement: str
    side: str
    revisions: tuple[str, ...]  # empty: every revision of the requirement
    ref: str
    why: str
    path: str = ""
    line: int = 0
    transports: tuple[str, ...] = ()  # empty: every transport the cell runs over

    def holds(self, requirement: str, revision: str, side: str, transport: str = "") -> bool:
        return (
            requirement == self.requirement
            and side == self.side
            and (not self.revisions or revision in self.revisions)
            and (not self.transports or not transport or transport in self.transports)
        )


@dataclass(frozen=True)
class Target:
    name: str
    describes: str = ""
    stdio: str | None = None  # a command, FIXTURE, or None: no stdio server
    http: dict[str, HttpServer | str] = field(default_factory=dict)  # transport -> server, or FIXTURE
    client: str | None = None
    fixtures: frozenset[str] | str = frozenset()  # names, or ALL_FIXTURES
    gaps: tuple[TargetGap, ...] = ()
    coverage_findings: bool = False
    revisions: dict[str, tuple[str, ...]] = field(default_factory=dict)  # side -> revisions it claims
    built_on: str = ""  # a requirement specifier (``mcp==2.3.0``) naming the SDK it is built on
    configurations: dict[str, Configuration] = field(default_factory=dict)
    path: str = ""
    roles: Mapping[str, Binding] = field(default_factory=dict)  # every role it plays: roles: and fixtures:

    def offers_server(self, transport: str) -> bool:
        return self.stdio is not None if transport == "stdio" else transport in self.http

    def offers_fixture(self, name: str) -> bool:
        return self.fixtures == ALL_FIXTURES or name in self.fixtures

    def gap_of(self, requirement: str, revision: str, side: str, transport: str = "") -> TargetGap | None:
        candidates = self._gaps_by_requirement.get(requirement, ())
        return next((gap for gap in candidates if gap.holds(requirement, revision, side, transport)), None)

    @cached_property
    def _gaps_by_requirement(self) -> dict[str, list[TargetGap]]:
        """The gaps by requirement id, in order: every test item asks, and a profile has hundreds."""
        index: dict[str, list[TargetGap]] = {}
        for gap in self.gaps:
            index.setdefault(gap.requirement, []).append(gap)
        return index

    def with_command_line(
        self, server_command: str | None, server_url: str | None, client_command: str | None
    ) -> Target:
        """The profile with the pieces given on the command line put in place of its own.

        A command-line server is a different implementation: unless ``--target`` names its
        profile, the fixture's other transports and its fixture surface are not assumed for it.
        """
        if not (server_command or server_url or client_command):
            return self
        replaces_server = bool(server_command or server_url)
        stdio = (
            server_command if server_command else (None if replaces_server and self.stdio == FIXTURE else self.stdio)
        )
        http = {t: s for t, s in self.http.items() if not (replaces_server and s == FIXTURE)}
        if server_url:
            http["streamable-http"] = HttpServer(url=server_url)
        own_fixtures = replaces_server and self.name == DEFAULT_TARGET
        return Target(
            name=self.name if not own_fixtures else "command-line",
            describes=" ".join(filter(None, (server_command, server_url, client_command))) or self.describes,
            stdio=stdio,
            http=http,
            client=client_command or (None if replaces_server and self.client == FIXTURE else self.client),
            fixtures=frozenset() if own_fixtures else self.fixtures,
            gaps=() if own_fixtures else self.gaps,
            coverage_findings=self.coverage_findings and not replaces_server and not client_command,
            revisions={
                side: revisions
                for side, revisions in self.revisions.items()
                if not (side == "server" and replaces_server) and not (side == "client" and client_command)
            },
            built_on="" if own_fixtures else self.built_on,
            configurations={} if replaces_server else self.configurations,
            path=self.path,
            roles={} if own_fixtures else self.roles,
        )


def resolve(name_or_path: str | None) -> Path:
    """``--target`` names a profile in targets/ or gives a path to one."""
    if not name_or_path:
        return TARGETS_DIR / f"{DEFAULT_TARGET}.yaml"
    path = Path(name_or_path)
    return path if path.suffix in (".yaml", ".yml") or path.exists() else TARGETS_DIR / f"{name_or_path}.yaml"


def load(path: Path, requirements: dict[str, dict] | None = None) -> Target:
    """Read a profile, refusing every fault at once (file and line); ``requirements`` checks gap ids."""
    errors: list[InputError] = []
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in TARGETS_DIR.glob("*.yaml")))
        raise InputErrors([InputError(path, None, f"no such target profile (known in targets/: {known})")])
    text = path.read_text(encoding="utf-8")
    try:
        root, data = parse_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputErrors([InputError(path, mark.line + 1 if mark else None, f"not valid YAML: {exc}")]) from None
    if not isinstance(data, dict) or root is None:
        raise InputErrors([InputError(path, 1, "a target profile is a mapping (see conformance/run/targets.py)")])
    lines = {key.value: value.start_mark.line + 1 for key, value in root.value}

    def fault(key: str, message: str, line: int | None = None) -> None:
        errors.append(InputError(path, line or lines.get(key, 1), message))

    for key in sorted(set(map(str, data)) - TOP_LEVEL_KEYS):
        fault(key, f"unknown key {key!r} (known: {', '.join(sorted(TOP_LEVEL_KEYS))})")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        fault("name", "'name' must be a non-empty string")
    stdio, http = _servers(data.get("server") or {}, lambda message: fault("server", message))
    client = data.get("client")
    if client is not None and (not isinstance(client, str) or not client.strip()):
        fault("client", "'client' must be a command or 'fixture'")
    fixtures = data.get("fixtures", [])
    if fixtures != ALL_FIXTURES and not (isinstance(fixtures, list) and all(isinstance(f, str) for f in fixtures)):
        fault("fixtures", f"'fixtures' must be a list of fixture names or {ALL_FIXTURES!r}")
        fixtures = []
    coverage_findings = data.get("coverage-findings", False)
    if not isinstance(coverage_findings, bool):
        fault("coverage-findings", "'coverage-findings' must be true or false")
    gaps = _gaps(path, data.get("gaps") or [], root, requirements, errors)
    revisions = _revisions(data.get("revisions"), lambda message: fault("revisions", message))
    built_on = data.get("built-on", "")
    if not isinstance(built_on, str) or (built_on and "==" not in built_on):
        fault("built-on", "'built-on' must be a pinned requirement such as 'mcp==2.3.0'")
        built_on = ""
    configurations = _configurations(data.get("configurations") or {}, lambda message: fault("configurations", message))
    explicit = _roles(path, data.get("roles"), root, errors)
    if errors:
        raise InputErrors(errors)
    return Target(
        name=str(name),
        describes=str(data.get("describes", "")),
        stdio=stdio,
        http=http,
        client=client,
        fixtures=ALL_FIXTURES if fixtures == ALL_FIXTURES else frozenset(fixtures),
        gaps=gaps,
        coverage_findings=bool(coverage_findings),
        revisions=revisions,
        built_on=built_on,
        configurations=configurations,
        path=str(path),
        roles=bindings(ALL_FIXTURES if fixtures == ALL_FIXTURES else frozenset(fixtures), explicit),
    )


def _revisions(value: object, fault: Callable[[str], None]) -> dict[str, tuple[str, ...]]:
    """``revisions:`` as revisions (a range, a list) for both sides, or a mapping side -> revisions."""
    if value is None:
        return {}
    by_side = value if isinstance(value, dict) else dict.fromkeys(SIDES, value)
    found: dict[str, tuple[str, ...]] = {}
    for side, revisions in by_side.items():
        if side not in SIDES:
            fault(f"'revisions' names an unknown side {side!r} (known: {', '.join(SIDES)})")
            continue
        text = ", ".join(map(str, revisions)) if isinstance(revisions, list) else str(revisions)
        try:
            found[side] = parse_revisions(text)
        except ValueError as exc:
            fault(f"'revisions': {exc}")
    return found


CONFIGURATION_KEYS = {"fixture-options", "fixture-env", *SERVER_TRANSPORTS}


def _configurations(value: object, fault: Callable[[str], None]) -> dict[str, Configuration]:
    if not isinstance(value, dict):
        fault("'configurations' must map configuration names to how to start the server so")
        return {}
    found = {}
    for name, how in value.items():
        if name not in CONFIGURATIONS:
            fault(f"unknown configuration {name!r} (known: {', '.join(sorted(CONFIGURATIONS))})")
            continue
        if not isinstance(how, dict):
            fault(f"'configurations.{name}' must be a mapping")
            continue
        needed, optional = CONFIGURATIONS[name], OPTIONAL_VALUES.get(name, ())
        unknown = sorted(set(map(str, how)) - CONFIGURATION_KEYS - set(needed) - set(optional))
        missing = [key for key in needed if how.get(key) in (None, "")]
        if unknown or missing:
            fault(f"'configurations.{name}': unknown keys {unknown}, missing values {missing} (needs {list(needed)})")
            continue
        options, env = how.get("fixture-options", []), how.get("fixture-env", {})
        if not isinstance(options, list) or not isinstance(env, dict):
            fault(f"'configurations.{name}': fixture-options is a list, fixture-env a mapping")
            continue
        servers = {k: v for k, v in how.items() if k in SERVER_TRANSPORTS}
        stdio, http = _servers(servers, lambda message, name=name: fault(f"'configurations.{name}': {message}"))
        found[name] = Configuration(
            name,
            {key: str(how[key]) for key in (*needed, *optional) if key in how},
            stdio,
            {t: s for t, s in http.items() if isinstance(s, HttpServer)},
            tuple(map(str, options)),
            {str(k): str(v) for k, v in env.items()},
        )
    return found


def _servers(server: object, fault: Callable[[str], None]) -> tuple[str | None, dict[str, HttpServer | str]]:
    if not isinstance(server, dict):
        fault("'server' must map transports to commands")
        return None, {}
    stdio: str | None = None
    http: dict[str, HttpServer | str] = {}
    for transport, how in server.items():
        if transport not in SERVER_TRANSPORTS:
            fault(f"unknown server transport {transport!r} (known: {', '.join(SERVER_TRANSPORTS)})")
        elif transport == "stdio":
            if not isinstance(how, str) or not how.strip():
                fault("'server.stdio' must be a command or 'fixture'")
            stdio = how
        elif how == FIXTURE:
            http[transport] = FIXTURE
        elif not isinstance(how, dict) or set(how) - HTTP_KEYS or not (how.get("command") or how.get("url")):
            fault(f"'server.{transport}' must be 'fixture' or a mapping with 'command' and/or 'url' (and 'env')")
        else:
            env = how.get("env") or {}
            if not isinstance(env, dict):
                fault(f"'server.{transport}.env' must be a mapping")
                env = {}
            http[transport] = HttpServer(how.get("command"), how.get("url"), {str(k): str(v) for k, v in env.items()})
    return stdio, http


def _roles(path: Path, value: object, root: yaml.Node, errors: list[InputError]) -> dict[str, Binding]:
    """``roles:``: role -> the target's name for it, or {name: ..., arguments: {...}}; faults by line."""
    if value is None:
        return {}
    node = next((v for k, v in root.value if k.value == "roles"), None)
    if not isinstance(value, dict) or not isinstance(node, yaml.MappingNode):
        errors.append(InputError(path, node.start_mark.line + 1 if node else 1, "'roles' must map roles to names"))
        return {}
    lines = {str(k.value): k.start_mark.line + 1 for k, _ in node.value}
    found = {}
    for role, how in value.items():
        line = lines.get(str(role), node.start_mark.line + 1)
        if role not in ROLES:
            errors.append(InputError(path, line, f"unknown role {role!r} (known: {', '.join(sorted(ROLES))})"))
            continue
        if isinstance(how, str) and how.strip():
            found[role] = bind(role, how)
            continue
        shaped = isinstance(how, dict) and not set(map(str, how)) - {"name", "arguments"}
        name, arguments = (how.get("name"), how.get("arguments", {})) if isinstance(how, dict) else (None, None)
        if not shaped or not isinstance(name, str) or not name.strip() or not isinstance(arguments, dict):
            kind = ROLES[role].kind
            message = f"'roles.{role}' must be the target's {kind} name, or {{name: ..., arguments: {{...}}}}"
            errors.append(InputError(path, line, f"{message}, not {how!r}"))
            continue
        found[role] = bind(role, name, {str(k): v for k, v in arguments.items()})
    return found


def _gaps(
    path: Path, entries: object, root: yaml.Node, requirements: dict[str, dict] | None, errors: list[InputError]
) -> tuple[TargetGap, ...]:
    nodes = next((value.value for key, value in root.value if key.value == "gaps"), [])
    if not isinstance(entries, list):
        errors.append(InputError(path, 1, "'gaps' must be a list"))
        return ()
    gaps = []
    for entry, node in zip(entries, nodes, strict=False):
        line = node.start_mark.line + 1
        if not isinstance(entry, dict):
            errors.append(InputError(path, line, "a gap is a mapping with requirement, side, ref and why"))
            continue
        problems = [f"unknown key {k!r}" for k in sorted(set(map(str, entry)) - GAP_KEYS)]
        problems += [f"missing {k!r}" for k in ("requirement", "side", "ref", "why") if not entry.get(k)]
        requirement, side = entry.get("requirement"), entry.get("side")
        if side and side not in SIDES:
            problems.append(f"unknown side {side!r}")
        if requirements is not None and requirement and requirement not in requirements:
            problems.append(f"unknown requirement id {requirement!r}")
        try:
            revisions = parse_revisions(str(entry["revisions"])) if entry.get("revisions") else ()
        except ValueError as exc:
            problems.append(str(exc))
            revisions = ()
        transports = entry.get("transports") or []
        if not isinstance(transports, list) or any(t not in TRANSPORT_NAMES for t in transports):
            problems.append(f"'transports' must be a list of {', '.join(TRANSPORT_NAMES)}")
            transports = []
        if problems:
            errors.extend(InputError(path, line, f"gap: {p}") for p in problems)
            continue
        gaps.append(
            TargetGap(
                requirement,
                side,
                tuple(revisions),
                str(entry["ref"]),
                str(entry["why"]),
                str(path),
                line,
                tuple(transports),
            )
        )
    return tuple(gaps)
