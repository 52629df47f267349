"""The validator's speed: a generated session of 100,000 events read and judged, in events per second.

``make bench`` prints it among the machinery's stages; ``python -m conformance.validator.bench`` prints it alone.
The session is a 2025-06-18 stdio session of many tool calls with progress, listings and pings, its request
ids all different (as a long real session's are), so every check has subjects throughout.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator

from conformance.validator.outcomes import Trace, judge
from conformance.validator.reader import read_stream

BENCH_EVENTS = 100_000
REVISION = "2025-06-18"


def _session() -> Iterator[tuple[str, dict]]:
    yield (
        "client-to-server",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": REVISION,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        },
    )
    yield (
        "server-to-client",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "result": {
                "protocolVersion": REVISION,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "bench", "version": "1"},
            },
        },
    )
    yield "client-to-server", {"jsonrpc": "2.0", "method": "notifications/initialized"}
    request_id = 0
    while True:
        request_id += 1
        token = f"progress-{request_id}"
        yield (
            "client-to-server",
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {
                    "name": "echo",
                    "arguments": {"text": f"call {request_id}"},
                    "_meta": {"progressToken": token},
                },
            },
        )
        for step in (1, 2):
            yield (
                "server-to-client",
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": step, "total": 2},
                },
            )
        yield (
            "server-to-client",
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"content": [{"type": "text", "text": f"call {request_id}"}], "isError": False},
            },
        )
        request_id += 1
        method = "tools/list" if request_id % 4 else "ping"
        yield "client-to-server", {"jsonrpc": "2.0", "id": request_id, "method": method}
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]} if method == "tools/list" else {}
        yield "server-to-client", {"jsonrpc": "2.0", "id": request_id, "result": result}


def generated_trace(events: int = BENCH_EVENTS) -> bytes:
    lines = []
    for seq, (direction, payload) in zip(range(1, events + 1), _session(), strict=False):
        event = {"seq": seq, "direction": direction, "transport": "stdio", "kind": "message", "payload": payload}
        lines.append(json.dumps(event))
    return ("\n".join(lines) + "\n").encode()


def measure(events: int = BENCH_EVENTS) -> tuple[int, float, float, dict]:
    """(events, wall seconds and CPU seconds to read and judge them, the trace's totals). CPU time is shown
    beside the wall time: on a shared machine the wall time measures the neighbours too."""
    data = generated_trace(events)
    start, cpu_start = time.perf_counter(), time.process_time()
    read = list(read_stream(io.BytesIO(data), "bench.jsonl"))
    report = judge([Trace("bench.jsonl", read)])
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return len(read), wall, cpu, report["traces"][0]["totals"]


def main() -> None:
    count, wall, cpu, totals = measure()
    print(f"{'validate a generated trace (read and judge)':48} {count:8d} events")
    per_cpu = f"{count / cpu:,.0f} per CPU second, {cpu:.2f} s"
    print(f"{'    events per second (wall; CPU)':48} {count / wall:8,.0f}    ({wall:.2f} s wall; {per_cpu})")
    print(f"{'    its outcomes':48} {totals}")


if __name__ == "__main__":
    main()
