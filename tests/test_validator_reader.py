"""The validator's trace reader: malformed lines named by number, the limits, and the JSON Schema of an event."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from conformance import PROJECT_ROOT
from conformance.harness.trace import Trace as TraceWriter
from conformance.validator import TRACE_EVENT_SCHEMA, reader
from conformance.validator.reader import MAX_EVENTS, MAX_LINE_BYTES, TraceError, event_problem, read_stream

EVENT_SCHEMA = Draft202012Validator(json.loads(TRACE_EVENT_SCHEMA.read_text(encoding="utf-8")))
GOOD = {"seq": 1, "direction": "client-to-server", "transport": "stdio", "kind": "message", "payload": {}}


def lines(*events: object) -> bytes:
    return b"".join((e if isinstance(e, bytes) else json.dumps(e).encode()) + b"\n" for e in events)


def read(data: bytes) -> list[dict]:
    return list(read_stream(io.BytesIO(data), "t.jsonl"))


def refused_at(data: bytes) -> TraceError:
    with pytest.raises(TraceError) as caught:
        read(data)
    return caught.value


def test_a_good_trace_reads_in_order() -> None:
    second = GOOD | {"seq": 5, "kind": "http", "method": "POST", "headers": {}, "direction": "client-to-server"}
    assert [e["seq"] for e in read(lines(GOOD, b"", second))] == [1, 5]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        pytest.param(b"\xff\xfe{}", "not UTF-8", id="not-utf8"),
        pytest.param(b"{not json", "not JSON", id="bad-json"),
        pytest.param(b"[1, 2]", "a JSON object", id="not-an-object"),
        pytest.param(b'{"seq": NaN}', "not JSON", id="nan"),
        pytest.param(
            json.dumps({k: v for k, v in GOOD.items() if k != "kind"}).encode(), "missing member 'kind'", id="no-kind"
        ),
        pytest.param(json.dumps(GOOD | {"direction": "sideways"}).encode(), "bad direction", id="bad-direction"),
        pytest.param(json.dumps(GOOD | {"transport": "http+sse"}).encode(), "bad transport", id="old-transport-name"),
        pytest.param(json.dumps(GOOD | {"seq": "1"}).encode(), "seq must be an integer", id="seq-string"),
        pytest.param(
            json.dumps({k: v for k, v in GOOD.items() if k != "payload"}).encode(), "payload", id="no-payload"
        ),
        pytest.param(
            json.dumps(GOOD | {"kind": "http", "method": "GET", "headers": {}, "status": 200}).encode(),
            "has no 'status'",
            id="request-with-status",
        ),
        pytest.param(json.dumps(GOOD | {"kind": "lifecycle"}).encode(), "'event'", id="lifecycle-without-event"),
    ],
)
def test_a_malformed_line_is_named(line: bytes, reason: str) -> None:
    error = refused_at(lines(GOOD | {"seq": 0}, line))
    assert error.line == 2 and reason in error.reason, str(error)
    assert str(error).startswith("t.jsonl:2: ")


def test_a_seq_that_does_not_increase_is_refused() -> None:
    error = refused_at(lines(GOOD | {"seq": 3}, GOOD | {"seq": 3}))
    assert (error.line, "does not increase" in error.reason) == (2, True)


def test_a_line_over_the_limit_is_refused_at_that_line() -> None:
    long_line = json.dumps(GOOD | {"payload": "x" * (MAX_LINE_BYTES + 1)}).encode()
    error = refused_at(lines(GOOD, long_line))
    assert error.line == 2 and "longer than" in error.reason


def test_more_events_than_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_EVENTS", 3)
    error = refused_at(lines(*(GOOD | {"seq": n} for n in range(1, 5))))
    assert error.line == 4 and "more than 3 events" in error.reason


def test_the_documented_limits_are_the_readers() -> None:
    document = (PROJECT_ROOT / "docs" / "trace-format.md").read_text(encoding="utf-8")
    assert f"{MAX_LINE_BYTES:,} bytes" in document and f"{MAX_EVENTS:,}" in document


def test_standard_input_is_read_for_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(lines(GOOD)))
    monkeypatch.setattr("sys.stdin", stdin)
    assert reader.read_trace("-") == [GOOD]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_any_bytes_give_events_or_a_numbered_error(data: bytes) -> None:
    try:
        events = read(data)
    except TraceError as error:
        assert 1 <= error.line <= data.count(b"\n") + 1
    else:
        assert all(event_problem(e) is None for e in events)


JSON_SCALARS = st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.text(max_size=8)
VALUES = st.recursive(
    JSON_SCALARS | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
EVENT_LIKE = st.fixed_dictionaries(
    {},
    optional={
        "seq": st.integers(-2, 2**54) | JSON_SCALARS,
        "direction": st.sampled_from(["client-to-server", "server-to-client", "up"]),
        "transport": st.sampled_from(["stdio", "streamable-http", "sse", "http+sse"]),
        "kind": st.sampled_from(["message", "http", "lifecycle", "other"]),
        "payload": VALUES,
        "method": st.sampled_from(["POST", "GET", ""]) | JSON_SCALARS,
        "status": st.integers(0, 700) | JSON_SCALARS,
        "headers": st.dictionaries(st.text(max_size=4), st.text(max_size=4) | st.integers(), max_size=2) | JSON_SCALARS,
        "event": st.sampled_from(["spawn", ""]) | JSON_SCALARS,
        "ts": st.floats(allow_nan=False, allow_infinity=False) | JSON_SCALARS,
        "path": st.text(max_size=4) | JSON_SCALARS,
    },
)


@settings(max_examples=600, deadline=None)
@given(EVENT_LIKE)
def test_the_reader_and_the_json_schema_agree(event: dict) -> None:
    """The hand-written event checks and trace-event.schema.json accept exactly the same events (integers
    written as integers: the schema would also take 1.0 as an integer, the reader takes integers only)."""
    assert (event_problem(event) is None) == EVENT_SCHEMA.is_valid(event), event_problem(event)


def test_the_harness_trace_writer_writes_valid_events(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    writer = TraceWriter(path, "stdio")
    writer.lifecycle("client-to-server", "spawn", pid=1)
    writer.message("client-to-server", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    writer.record("server-to-client", "http", method="POST", status=200, headers={"content-type": "text/event-stream"})
    writer.close()
    events = reader.read_trace(str(path))
    assert len(events) == 3 and all(EVENT_SCHEMA.is_valid(e) for e in events)


def test_every_kept_trace_of_the_corpus_is_valid_against_the_schema() -> None:
    corpus = sorted((PROJECT_ROOT / "tests" / "validator" / "traces").rglob("*.jsonl"))
    assert corpus
    for path in corpus:
        for event in reader.read_trace(str(path)):
            assert EVENT_SCHEMA.is_valid(event), (path.name, event["seq"])
