"""``mcp-matrix``: the suite against your own implementation, in one line, from any directory.

    mcp-matrix --server-command "python my_server.py"

runs every test of the suite (``conformance/test_<area>.py``) against the target, writes the run's
report to ``reports/<target>/`` in the current directory and exits with one of the codes below. It
is pytest in this process with the suite's own settings (``pyproject.toml``, read with ``-c``, as
in a checkout), the suite's plugin (``conformance.run.plugin``) and no other: plugins that happen to
be installed beside it are not loaded. An installed wheel lays out the checkout's files under
``site-packages/mcp_matrix/`` (see ``[tool.hatch.build.targets.wheel]``), so ``PROJECT_ROOT`` finds
them as it does in a checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import pytest

from conformance import PROJECT_ROOT
from conformance.catalogue.errors import InputError, InputErrors
from conformance.catalogue.spec_pin import SpecPinError, materialise

EXIT_OK = 0  # no MUST / MUST NOT cell failed
EXIT_FAILED = 1  # a MUST / MUST NOT cell failed (under --strict: any failed, warned or inconclusive cell)
EXIT_USAGE = 2  # bad invocation or profile, nothing selected, or the pinned spec cannot be had
EXIT_UNREACHABLE = 3  # the target could not be started or reached
EXIT_SUITE_BROKEN = 4  # the suite itself failed: an internal error, a test module that does not import
EXIT_INTERRUPTED = 130

EXIT_CODES = f"""\
exit codes:
  {EXIT_OK}    no MUST / MUST NOT cell failed (a SHOULD not followed is a warning, a harness failure is
       inconclusive: neither fails the run unless --strict)
  {EXIT_FAILED}    a MUST / MUST NOT cell failed (under --strict: any cell failed, warned or was inconclusive)
  {EXIT_USAGE}    bad invocation or target profile, nothing selected, or the pinned spec cannot be had
  {EXIT_UNREACHABLE}    the target could not be started or reached
  {EXIT_SUITE_BROKEN}    the suite itself failed (an internal error): a bug of mcp-matrix, please report it
  {EXIT_INTERRUPTED}  interrupted
"""
MEANING = {
    EXIT_OK: "no MUST failure",
    EXIT_FAILED: "MUST failures",
    EXIT_USAGE: "bad invocation or profile",
    EXIT_UNREACHABLE: "the target could not be started or reached",
    EXIT_SUITE_BROKEN: "the suite itself failed",
    EXIT_INTERRUPTED: "interrupted",
}
STRICT_MEANING = "failures, warnings or inconclusive cells under --strict"

DEFAULT_WORKERS = 6  # the tests mostly wait on their peers: 6 keep 2 cores busy (see make bench)
REPORTS_VARIABLE = "MCP_MATRIX_REPORTS"  # conformance/run/reports.py reads it
SPEC_CACHE_VARIABLE = "MCP_SPEC_CACHE"  # conformance/catalogue/spec_pin.py reads it
# The meta-test and the catalogue checks judge the checkout (its catalogue and generated files), not a
# target; a wheel leaves them out. The same names as conformance.run.plugin.META_TESTS, which cannot be
# imported before pytest is (its asserts would not be rewritten).
META_TESTS = ("test_matrix.py", "test_catalogue_complete.py")


def user_cache() -> Path:
    """Where the pinned spec is materialised: ``$XDG_CACHE_HOME/mcp-matrix`` or ``~/.cache/mcp-matrix``."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mcp-matrix"


def known_targets() -> list[str]:
    return sorted(path.stem for path in (PROJECT_ROOT / "targets").glob("*.yaml"))


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-matrix",
        description="Run the mcp-matrix conformance suite against an MCP server or client and write its report.",
        epilog=f"""\
examples:
  mcp-matrix --server-command "python my_server.py"        a stdio server
  mcp-matrix --server-url http://127.0.0.1:3001/mcp        a running Streamable HTTP server (loopback only)
  mcp-matrix --client-command "node my-client.js"          a client: gets the scripted server's URL as its
                                                           last argument, the scenario in MCP_CONFORMANCE_SCENARIO
  mcp-matrix --target my-profile.yaml -k lifecycle         a profile (format: conformance/run/targets.py), one area

profiles: {", ".join(known_targets())}
  (default sdk-python: the pinned Python SDK's fixture server and client; the others start what
  `make targets` installs into a checkout's .cache/targets, so they run from a checkout)

report: REPORTS/<target>/report.md, report.html, report.json (with its JSON Schema) and junit.xml, the
traces of failed cells and the target's server logs beside them; REPORTS is --reports, else
${REPORTS_VARIABLE}, else ./reports. A directory there that mcp-matrix did not write is never cleared.

the pinned spec (the schema every frame is checked against) is materialised into ${SPEC_CACHE_VARIABLE}, else
{user_cache() / "mcp-spec"} ($XDG_CACHE_HOME honoured), from $MCP_SPEC_MIRROR (a checkout of the spec
repository) or by download from GitHub at the pinned commit, checked file by file against its sha256.

{EXIT_CODES}""",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = parser.add_argument_group("the implementation under test (default: --target sdk-python)")
    what.add_argument("--target", metavar="NAME|PATH", help="a target profile: a name of those shipped, or a YAML file")
    what.add_argument("--server-command", metavar="CMD", help="a stdio server: a shell-quoted command")
    what.add_argument("--server-url", metavar="URL", help="a running Streamable HTTP server at a loopback URL")
    what.add_argument("--client-command", metavar="CMD", help="a client: a shell-quoted command")
    run = parser.add_argument_group("the run")
    run.add_argument("-k", metavar="EXPR", dest="keyword", help="only the tests whose ids match (pytest's -k)")
    run.add_argument(
        "--strict", action="store_true", help="warnings (SHOULD not followed) and inconclusive cells fail the run too"
    )
    run.add_argument(
        "--workers",
        type=int,
        default=DEFAULT_WORKERS,
        metavar="N",
        help=f"parallel pytest workers (default {DEFAULT_WORKERS}; 0 runs in this process)",
    )
    run.add_argument(
        "--reports", metavar="DIR", help=f"where <target>/ and its report go (default ${REPORTS_VARIABLE} or ./reports)"
    )
    run.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    run.add_argument("pytest_args", nargs="*", metavar="-- PYTEST_ARGS", help="further pytest arguments, after --")
    return parser


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("mcp-matrix")
    except PackageNotFoundError:
        return f"(not installed: {PROJECT_ROOT})"


class Outcome:
    """What pytest's exit status alone does not say: its internal errors share 3 with an unreachable
    target, its interruptions 2 with collection errors; and where the run's report went."""

    def __init__(self) -> None:
        self.started = time.time() - 1.0  # a second of slack for coarse file times
        self.internal_error = False
        self.interrupted = False
        self.report: Path | None = None
        self.headline = ""

    def pytest_internalerror(self) -> None:
        self.internal_error = True

    def pytest_keyboard_interrupt(self) -> None:
        self.interrupted = True

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        from conformance.run import reports
        from conformance.run.plugin import TARGET_KEY

        target = config.stash.get(TARGET_KEY, None)
        if target is None:
            return
        report = reports.run_directory(target) / "report.json"
        if report.is_file() and report.stat().st_mtime >= self.started:  # this run's (not one of --co)
            self.report = report
            self.headline = json.loads(report.read_text(encoding="utf-8")).get("headline", "")


def exit_code(status: int, outcome: Outcome) -> int:
    """pytest's exit status as this command's (see EXIT_CODES)."""
    if status in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return int(status)
    if outcome.interrupted:
        return EXIT_INTERRUPTED
    if outcome.internal_error:
        return EXIT_SUITE_BROKEN
    if status == EXIT_UNREACHABLE:  # set by the plugin's pytest_sessionfinish
        return EXIT_UNREACHABLE
    if status in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.NO_TESTS_COLLECTED):
        return EXIT_USAGE
    return EXIT_SUITE_BROKEN  # interrupted by errors while collecting the suite


def pytest_arguments(args: argparse.Namespace) -> list[str]:
    suite = PROJECT_ROOT / "conformance"
    arguments = [str(suite), "-c", str(PROJECT_ROOT / "pyproject.toml"), "--rootdir", str(PROJECT_ROOT)]
    arguments += [f"--ignore={suite / name}" for name in META_TESTS]
    arguments += ["-p", "xdist.plugin", "-n", str(args.workers)]  # loaded as in a checkout, even for -n 0
    for option in ("target", "server_command", "server_url", "client_command"):
        value = getattr(args, option)
        if value is not None:
            arguments.append(f"--{option.replace('_', '-')}={value}")
    if args.keyword:
        arguments += ["-k", args.keyword]
    if args.strict:
        arguments.append("--strict")
    return [*arguments, *args.pytest_args]


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.workers < 0:
        parser().error("--workers takes 0 or more")
    reports_root = Path(args.reports or os.environ.get(REPORTS_VARIABLE) or "reports").resolve()
    os.environ[REPORTS_VARIABLE] = str(reports_root)
    os.environ.setdefault(SPEC_CACHE_VARIABLE, str(user_cache() / "mcp-spec"))
    # Only the suite's plugins: one installed beside it (and autoloaded) could change what a run judges,
    # or, with filterwarnings = error, fail it for a deprecation of its own.
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        materialise()  # once, before any worker needs it
    except (SpecPinError, InputError, InputErrors) as exc:
        print(f"mcp-matrix: the pinned spec cannot be had: {exc}", file=sys.stderr)
        return EXIT_USAGE
    outcome = Outcome()
    status = pytest.main(pytest_arguments(args), plugins=[outcome])
    code = exit_code(status, outcome)
    meaning = MEANING[code]
    if code == EXIT_FAILED and args.strict:
        meaning = STRICT_MEANING
    elif status == pytest.ExitCode.NO_TESTS_COLLECTED:
        meaning = "nothing selected"
    if outcome.report is not None:
        print(f"mcp-matrix: {outcome.headline}")
        print(f"mcp-matrix: report {_shown(outcome.report.parent)}/report.md (and report.html, report.json)")
    print(f"mcp-matrix: exit {code} ({meaning})")
    return code


def _shown(path: Path) -> str:
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)


if __name__ == "__main__":
    sys.exit(main())
