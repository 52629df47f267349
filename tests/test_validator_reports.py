"""The validator's reports and command line: exit codes 0/1/2/3, byte-identical output, the JSON report
valid against its schema, SARIF valid against the SARIF 2.1.0 schema, JUnit XML that parses."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from jsonschema import Draft4Validator, Draft202012Validator

from conformance import PROJECT_ROOT
from conformance.cli.main import main
from conformance.validator import PACKAGE_DIR
from conformance.validator.sarif_schema import cached_schema
from tests.validator import corpus

PASSING = corpus.CONFORMING / "schema-tour-server-2025-06-18-stdio.jsonl"
FAILING = corpus.VIOLATIONS / "messages-response-not-both.jsonl"  # a MUST NOT
WARNING = corpus.VIOLATIONS / "lifecycle-server-no-requests-before-initialized.jsonl"  # a SHOULD NOT
FORMATS = ("text", "json", "junit", "sarif")
LIFECYCLE_ONLY = (
    b'{"seq": 1, "direction": "client-to-server", "transport": "stdio", "kind": "lifecycle", "event": "spawn"}\n'
)


def validate(*arguments: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["validate", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_conforming_trace_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = validate(str(PASSING), capsys=capsys)
    assert code == 0 and "verdict: pass (exit code 0)" in out


def test_a_must_failure_exits_1_and_names_seq_reason_and_clause(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = validate(str(FAILING), capsys=capsys)
    assert code == 1
    block = out[out.index("FAIL messages-response-not-both") :]
    assert "seq " in block.splitlines()[1] and "both result and error" in block.splitlines()[1]
    clause = block.splitlines()[2]
    assert clause.startswith("    clause (") and "MUST NOT" in clause


def test_a_should_failure_warns_and_fails_only_under_strict(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = validate(str(WARNING), capsys=capsys)
    assert code == 0 and "WARN lifecycle-server-no-requests-before-initialized" in out
    assert validate("--strict", str(WARNING), capsys=capsys)[0] == 1


def test_a_malformed_trace_exits_3_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "bad.jsonl"
    trace.write_bytes(PASSING.read_bytes().split(b"\n", 3)[0] + b"\n" + b"\xff\n")
    code, _, err = validate(str(trace), capsys=capsys)
    assert code == 3 and f"{trace}:2: not UTF-8" in err


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"", id="no-event"),
        pytest.param(LIFECYCLE_ONLY, id="nothing-to-judge"),
    ],
)
def test_a_trace_that_judges_nothing_exits_2(
    content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "empty.jsonl"
    trace.write_bytes(content)
    code, _, err = validate(str(trace), capsys=capsys)
    assert code == 2 and "judges nothing" in err
    # with a revision to judge at, a trace without messages still has no subject for any check
    assert validate("--revision", "2025-06-18", str(trace), capsys=capsys)[0] == 2


def test_a_missing_file_is_a_bad_invocation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert validate(str(tmp_path / "absent.jsonl"), capsys=capsys)[0] == 2


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["validate", "--format", "yaml", str(PASSING)])
    assert exited.value.code == 2


def test_the_trace_revision_wins_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = validate("--revision", "2024-11-05", str(PASSING), capsys=capsys)
    assert code == 0
    assert "note: --revision 2024-11-05 was asked for, but the trace speaks 2025-06-18" in out


def test_standard_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(FAILING.read_bytes())))
    code, out, _ = validate("-", capsys=capsys)
    assert code == 1 and "trace <stdin>" not in out and "trace -:" in out


@pytest.mark.parametrize("report_format", FORMATS)
def test_reports_are_byte_identical_for_the_same_input(
    report_format: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = []
    for attempt in range(2):
        target = tmp_path / f"report-{attempt}"
        validate("--format", report_format, "-o", str(target), str(FAILING), str(PASSING), capsys=capsys)
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0]


def _document(report_format: str, capsys: pytest.CaptureFixture[str], *traces: Path) -> str:
    return validate("--format", report_format, *map(str, traces), capsys=capsys)[1]


def test_the_json_report_is_valid_against_its_schema(capsys: pytest.CaptureFixture[str]) -> None:
    schema = json.loads((PACKAGE_DIR / "report.schema.json").read_text(encoding="utf-8"))
    document = json.loads(_document("json", capsys, FAILING, WARNING, PASSING))
    Draft202012Validator(schema).validate(document)
    assert document["exit_code"] == 1 and [t["verdict"] for t in document["traces"]] == ["fail", "pass", "pass"]


def test_the_sarif_report_is_valid_sarif_2_1_0(capsys: pytest.CaptureFixture[str]) -> None:
    schema_path = cached_schema()
    assert schema_path is not None, "the SARIF schema is not set up: run `make sarif-schema`"
    sarif = json.loads(_document("sarif", capsys, FAILING, WARNING))
    Draft4Validator(json.loads(schema_path.read_text(encoding="utf-8"))).validate(sarif)
    errors = [r for r in sarif["runs"][0]["results"] if r["level"] == "error"]
    assert errors and all(r["ruleId"] == "messages-response-not-both" for r in errors)
    assert any(r["level"] == "warning" for r in sarif["runs"][0]["results"])


def test_the_junit_report_counts_failures(capsys: pytest.CaptureFixture[str]) -> None:
    suites = ElementTree.fromstring(_document("junit", capsys, FAILING, PASSING))
    failing, passing = suites.findall("testsuite")
    assert failing.get("failures") == "1" and passing.get("failures") == "0"
    assert failing.find("testcase[@name='messages-response-not-both']/failure") is not None
    assert int(passing.get("tests")) > int(passing.get("skipped"))


def test_the_command_runs_as_a_module() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "conformance", "validate", "--format", "json", str(FAILING)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1 and json.loads(result.stdout)["verdict"] == "fail"


def test_acts_marked_deliberate_are_noted_and_still_judged(capsys: pytest.CaptureFixture[str]) -> None:
    """The server's provocations in this session are marked deliberate: judged for both sides, the report
    says so and how to judge the client alone, and still fails them (a trace cannot excuse itself)."""
    provoked = corpus.CONFORMING / "client-refusals-2025-11-25-stdio.jsonl"
    note = "the recorder marks acts of the server as deliberate (seq 4, 7, 10, 13, 16): --side client judges"
    code, out, _ = validate(str(provoked), capsys=capsys)
    assert code == 1 and note in out
    code, out, _ = validate("--side", "server", str(provoked), capsys=capsys)
    assert code == 1 and note in out
    code, out, _ = validate("--side", "client", str(provoked), capsys=capsys)
    assert code == 0 and "deliberate" not in out
