"""The scripted stdio server: the harness playing an MCP server of one revision over stdio.

The client under test launches it as its subprocess::

    python -m conformance.harness.scripted_stdio --revision R --record FILE [options]

It reads newline-delimited JSON-RPC on stdin and answers on stdout from the same default results
as the scripted Streamable HTTP server (``scripted_server.default_results``, limited to the
methods the revision defines: a legacy server knows no ``server/discover``). Everything it
observes goes to FILE as a session trace (``trace.py``, transport ``stdio``), one event a line:

- ``lifecycle`` ``start`` (its pid and its parent's), ``line`` (each line read from stdin,
  verbatim, in ``data``), ``unparsable-frame``, ``answer`` (the id and method of a request
  answered from the script), ``held`` (a request left unanswered on purpose), ``stdin-closed``,
  ``signal`` (with its sender), ``exit``, ``timeout``;
- ``message`` for each frame read and each answer written (an answer is recorded before it is
  written, so whatever the client sends in reaction comes later in ``seq``).

The schema checks (the client's frames, and our scripted answers) run in the tests' process when
it loads the record: a scripted server starts without importing a validator, which matters since
the client under test starts one for every stdio test.

Each ``stdin-closed``, ``signal`` and ``exit`` event says whether the client (the process that
launched the server) was still alive then: that is how a record shows the shutdown sequence.

``ScriptedStdio`` is the tests' side: it builds the command for the client driver, and reads a
record back once the client is done (``load``).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import queue
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from conformance.catalogue.spec_pin import materialise
from conformance.harness import stdio_relay
from conformance.harness.faults import Fault
from conformance.harness.peer import method_definitions
from conformance.harness.scripted_server import (
    ASK_SECONDS,
    PACE_BOUND_SECONDS,
    Answer,
    ClientAnswers,
    Pace,
    answer_problems,
    cancellation,
    default_results,
    judge,
    listing_tools,
    paged_answer,
    progress_notification,
    progress_token,
    raw_response,
    response_to,
)
from conformance.harness.trace import Trace

MODULE = "conformance.harness.scripted_stdio"
MAX_SECONDS = 30.0  # a scripted server never lives longer, whatever its client does
SETTLE_SECONDS = 5.0  # how long the tests wait for a scripted server to end once its client has
NOT_SEEN = object()
PUSH_WAIT_SECONDS = 1.0  # how long a pushed request's response is awaited before the answer goes anyway
STDERR_CHATTER = "mcp-matrix scripted server: ERROR (a log line on stderr, not a failure)"


# -- the program ---------------------------------------------------------------------------------


class ParentWatch:
    """Whether the process that launched us (the client) is still alive, asked at any moment."""

    def __init__(self) -> None:
        self.pid = int(os.environ.get(stdio_relay.CLIENT_VARIABLE) or os.getppid())
        self._fd: int | None = None
        with contextlib.suppress(OSError, AttributeError):
            self._fd = os.pidfd_open(self.pid)

    def alive(self) -> bool:
        if self._fd is not None:  # a pidfd turns readable once the process has ended
            return not select.select([self._fd], [], [], 0)[0]
        return os.getppid() == self.pid


class ScriptedStdioServer:
    """The program's session: the main thread reads and records stdin, a responder thread answers.

    Reading goes on while an answer is being made, so a frame the client sends without waiting for
    that answer reaches the record before it (``sent_before_answer``)."""

    def __init__(self, options: argparse.Namespace, trace: Trace) -> None:
        self.revision: str = options.revision
        self.trace = trace
        self.fault = fault_from_json(options.fault) if options.fault else None
        self.page_server: str = options.page_server  # where a fetch fault's request goes (harness/pages.py)
        self.hold = set(options.hold)
        self.raw: dict[str, Any] = {m: json.loads(t) for m, t in (item.split("=", 1) for item in options.raw)}
        self.push: dict[str, Any] = {m: json.loads(t) for m, t in (item.split("=", 1) for item in options.push)}
        self.ask: dict[str, Any] = {m: json.loads(t) for m, t in (item.split("=", 1) for item in options.ask)}
        self._client_answered: set[str] = set()  # the ids (as JSON) of the client's responses so far
        self._client_cancelled: set[str] = set()  # the ids (as JSON) its notifications/cancelled named so far
        self._progress_ended: set[str] = set()  # the tokens (as JSON) the client's progress reached the total of
        self._owed: set[str] = set()  # ids (JSON) held until cancelled (Pace.answer_on_cancel), not yet answered
        self._answered = threading.Condition()
        self.linger: bool = options.linger
        self.wind_down: float = options.wind_down
        self.chatter: bool = options.stderr_chatter
        self.listen_stamp: int = options.listen
        self.listen_honour: set[str] | None = set(options.listen_honour) if options.listen_honour else None
        self.task_followups: list[str] = options.task_followup  # asked about each task the client creates
        self.cancel_listen: str | None = getattr(options, "cancel_listen", None)  # the reason, or None
        self.listens: list[Any] = []  # the ids of the subscriptions/listen requests acknowledged so far
        self.crash_after: str | None = options.crash_after
        self.stderr_flood: int = options.stderr_flood
        defined = method_definitions(self.revision)
        self.answers: dict[str, Answer] = {m: a for m, a in default_results(self.revision).items() if m in defined}
        for method, code in (item.rsplit("=", 1) for item in options.error):
            self.answers[method] = error_answer(int(code))
        connection = getattr(options, "connection", 1)  # which server of its command line this is (main)
        for method, spec in (item.split("=", 1) for item in getattr(options, "pages", [])):
            paged = json.loads(spec)  # {"key": ..., "pages": [...]}: see scripted_server.paged_answer
            self.answers[method] = paged_answer(self.answers[method], paged["key"], paged["pages"], lambda: connection)
        if options.tools is not None:
            self.answers["tools/list"] = listing_tools(self.answers["tools/list"], json.loads(options.tools))
        for method, result in (item.split("=", 1) for item in options.result):
            self.answers[method] = fixed_answer(json.loads(result))
        for method, results in (item.split("=", 1) for item in options.rounds):
            self.answers[method] = rounds_answer(json.loads(results))
        self.paces = {method: Pace.from_json(pace) for method, pace in (item.split("=", 1) for item in options.pace)}
        self.client_answers = ClientAnswers()  # the client's answers to our own requests (Pace.ask)
        self._unread = b""  # what we have read of a line not yet ended
        self._held: list[bytes] = []  # the fault's store (a reordered frame) and its count (one occurrence)
        self._counts: dict[str, int] = {}
        self.parent = ParentWatch()
        self.requests: queue.Queue[dict | None] = queue.Queue()
        self._recording = threading.Lock()  # a line's events, or an answer's, go into the record whole
        self.stdout: BinaryIO = sys.stdout.buffer

    def run(self, stdin: BinaryIO) -> None:
        relay = os.environ.get(stdio_relay.RELAY_VARIABLE)
        self.trace.lifecycle(
            "server-to-client",
            "start",
            pid=os.getpid(),
            parent=self.parent.pid,
            revision=self.revision,
            **({"relay": int(relay)} if relay else {}),
        )
        self.log()
        self.flood()
        responder = threading.Thread(target=self._respond, daemon=True)
        responder.start()
        for line in iter(stdin.readline, b""):
            self._receive(line)
        if self._unread:  # the last line, without its newline
            self._serve(self._unread)
        self.trace.lifecycle("client-to-server", "stdin-closed", client_alive=self.parent.alive())
        self.requests.put(None)
        if self.linger:  # a server that does not exit on end-of-file: only a signal (or our bound) ends it
            threading.Event().wait(MAX_SECONDS)
            return
        responder.join(timeout=1.0)
        if self.wind_down:  # a server that takes a moment to shut down, as real ones do
            time.sleep(self.wind_down)
        self.trace.lifecycle("server-to-client", "exit", client_alive=self.parent.alive())

    def log(self) -> None:
        if self.chatter:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write(STDERR_CHATTER + "\n")
                sys.stderr.flush()

    def flood(self) -> None:
        """Write ``stderr_flood`` bytes of log lines on stderr (more than a pipe holds, when it is large):
        a client that never drains its server's stderr leaves it blocked here."""
        line = STDERR_CHATTER.encode() + b"\n"
        with contextlib.suppress(OSError, ValueError):
            for _ in range(-(-self.stderr_flood // len(line))):
                sys.stderr.buffer.write(line)
            sys.stderr.buffer.flush()
        if self.stderr_flood:
            self.trace.lifecycle("server-to-client", "stderr-flood", size=self.stderr_flood)

    def _listen(self, request: dict) -> None:
        """Acknowledge a subscriptions/listen request (the filter it asked for, stamped with its id) and
        hold it open; once the ``listen_stamp``-th is acknowledged, send one change notification on it."""
        stamp = {"io.modelcontextprotocol/subscriptionId": request["id"]}
        asked = (request.get("params") or {}).get("notifications") or {}
        if self.listen_honour is not None:  # only these of the filter's members are honoured
            asked = {flag: value for flag, value in asked.items() if flag in self.listen_honour}
        self._write(
            {
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {"notifications": asked, "_meta": stamp},
            }
        )
        self.trace.lifecycle("server-to-client", "held", id=request["id"], method=request["method"])
        self.listens.append(request["id"])
        if self.cancel_listen is not None:  # the subscription torn down at once, by a cancellation with a reason
            self._write(cancellation(request["id"], self.cancel_listen))
            return
        if len(self.listens) == self.listen_stamp:
            self._write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": stamp}})

    def _receive(self, line: bytes) -> None:
        """A line as the client wrote it. The fault, if any, stands between the client and us: what it
        lets through is what we read, line by line (a line it leaves without its newline runs into the
        next one, as on a real pipe), record and answer."""
        sent = (
            self.fault.mutate(line, self.client_answers.method_answered, self._held, self._counts, self.page_server)
            if self.fault
            else [line]
        )
        for piece in sent:
            self._unread += piece
            while b"\n" in self._unread:
                read, self._unread = self._unread.split(b"\n", 1)
                self._serve(read + b"\n")

    def _serve(self, line: bytes) -> None:
        """Record a line we read and answer it: a parse error for a line that is not JSON."""
        with self._recording:
            self._record(line)
        try:
            sent = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):  # not JSON, or not UTF-8
            self.requests.put({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            return
        for frame in sent if isinstance(sent, list) else [sent]:
            if isinstance(frame, dict) and "method" in frame and "id" in frame:
                self.requests.put(frame)
            else:
                self.client_answers.take(frame)

    def _record(self, line: bytes) -> None:
        self.trace.lifecycle("client-to-server", "line", data=line.decode("utf-8", "replace"))
        try:
            frame = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:  # not JSON, or not UTF-8
            detail = exc.msg if isinstance(exc, json.JSONDecodeError) else f"not UTF-8: {exc.reason}"
            self.trace.lifecycle("client-to-server", "unparsable-frame", detail=detail)
            return
        self.trace.message("client-to-server", frame)  # judged by the tests' process (ScriptedStdio.load)
        items = frame if isinstance(frame, list) else [frame]
        responses = [f for f in items if isinstance(f, dict) and "method" not in f]
        if responses:
            with self._answered:
                self._client_answered.update(json.dumps(f.get("id")) for f in responses)
                self._answered.notify_all()
        ended = [
            json.dumps(f["params"].get("progressToken"))
            for f in items
            if isinstance(f, dict)
            and f.get("method") == "notifications/progress"
            and isinstance(f.get("params"), dict)
            and f["params"].get("total") is not None
            and f["params"].get("progress") == f["params"].get("total")
        ]
        if ended:
            with self._answered:
                self._progress_ended.update(ended)
                self._answered.notify_all()
        cancelled = [
            json.dumps(f["params"].get("requestId"))
            for f in items
            if isinstance(f, dict)
            and f.get("method") == "notifications/cancelled"
            and isinstance(f.get("params"), dict)
        ]
        if cancelled:
            with self._answered:
                self._client_cancelled.update(cancelled)
                self._answered.notify_all()

    def _respond(self) -> None:
        while (request := self.requests.get()) is not None:
            if "method" not in request:  # an error of ours to send as it is
                self._write(request)
                continue
            with self._answered:  # a late answer owed to a request the client cancelled goes out first
                self._answered.wait_for(lambda: not self._owed & self._client_cancelled, timeout=PUSH_WAIT_SECONDS)
            pushed = self.push.pop(request["method"], None)
            if pushed is not None:
                self._push(pushed)
            asked = self.ask.pop(request["method"], None)
            if asked is not None:
                self._ask(asked)
            if request["method"] in self.hold:
                self.trace.lifecycle("server-to-client", "held", id=request["id"], method=request["method"])
                continue
            if request["method"] == "subscriptions/listen" and self.listen_stamp:
                self._listen(request)
                if request["method"] == self.crash_after:  # the connection dies with the subscription open
                    self.trace.lifecycle("server-to-client", "crash", detail="exits after acknowledging a listen")
                    self.trace.close()
                    os._exit(1)
                continue
            if request["method"] in self.raw:
                self._write(raw_response(request, self.raw[request["method"]]))
                continue
            if request["method"] in self.paces:
                pace = self.paces[request["method"]]
                threading.Thread(target=self._paced, args=(request, pace), daemon=True).start()
                continue
            self.log()
            self._answer(request)
            if request["method"] == self.crash_after:  # a server that dies unexpectedly
                self.trace.lifecycle("server-to-client", "crash", detail=f"exits after answering {self.crash_after}")
                self.trace.close()
                os._exit(1)

    def _push(self, lines: list[Any], wait: float = PUSH_WAIT_SECONDS) -> None:
        """Send the client lines of our own before an answer, each a frame (a request, a notification) or
        a list of frames (a batch), and wait, bounded, for its responses to the requests among them:
        what it sends in reaction then comes before the answer, in the record and on the wire. Each request
        is taken as ours, so that a fault on the answers to its method reaches the client's answer."""
        asked: set[str] = set()
        for line in lines:
            frames = line if isinstance(line, list) else [line]
            for frame in frames:
                if isinstance(frame, dict) and "id" in frame and "method" in frame:
                    self.client_answers.asked[frame["id"]] = frame["method"]
            self._write(line)
            asked |= {json.dumps(f["id"]) for f in frames if "id" in f}
        with self._answered:
            self._answered.wait_for(lambda: asked <= self._client_answered, timeout=wait)

    def _ask(self, requests: list[dict]) -> None:
        """Send the client requests of our own before an answer, as ``_push`` does but awaiting their answers
        as long as any request of ours (ASK_SECONDS); then, for each task the client created in answer
        (a CreateTaskResult), the requests ``task_followups`` names, about that task (``followup``), one at a
        time: each is sent once the one before it is answered (or its wait is over), so that a tasks/cancel
        after a tasks/result finds the task ended."""
        self._push(requests, ASK_SECONDS)
        created = 0
        for request in requests if self.task_followups else ():
            answer = self.client_answers.wait(request.get("id"), 0) if "id" in request else None
            task = ((answer or {}).get("result") or {}).get("task") if isinstance(answer, dict) else None
            if isinstance(task, dict) and "taskId" in task:
                created += 1
                for spec in self.task_followups:
                    asked, _, only = spec.partition("@")
                    if only and int(only) != created:
                        continue
                    if asked == PROGRESS_ENDED:
                        self._await_progress_end(progress_token(request))
                        continue
                    ordinal = "" if created == 1 else f"@{created}"
                    self._push([followup(asked, task["taskId"], ordinal)], ASK_SECONDS)

    def _await_progress_end(self, token: Any) -> None:
        """Wait, bounded by ASK_SECONDS, for the client's notifications/progress that reaches its total for
        ``token``: the end of the work that reports it."""
        key = json.dumps(token)
        with self._answered:
            self._answered.wait_for(lambda: key in self._progress_ended, timeout=ASK_SECONDS)

    def _paced(self, request: dict, pace: Pace) -> None:
        """Answer ``request`` as ``pace`` says (see scripted_server.Pace), on a thread of its own."""
        for notification in pace.notify_first:
            self._write(notification)
        for method in pace.ask:
            asked = self.client_answers.request(method, pace.ask_params.get(method))
            self._write(asked)
            if pace.cancel_asks is not None:  # sent, then cancelled at once (Pace.cancel_asks)
                self._write(cancellation(asked["id"], pace.cancel_asks))
                continue
            if self.client_answers.wait(asked["id"]) is None:
                break
        start = time.monotonic()
        end = start + min(PACE_BOUND_SECONDS, PACE_BOUND_SECONDS if pace.delay is None else pace.delay)
        token, sent_progress = progress_token(request), 0
        cancelled = self._cancellation(request["id"]) if pace.answer_on_cancel else None
        if cancelled is not None:
            with self._answered:
                self._owed.add(json.dumps(request["id"]))
        while pace.progress_every and token is not None:
            due = start + pace.progress_every * (sent_progress + 1)
            if due >= end:
                break
            if cancelled is not None:  # held until cancelled: woken by the cancellation, else paced
                if cancelled(max(0.0, due - time.monotonic())):
                    break
            else:
                time.sleep(max(0.0, due - time.monotonic()))  # the scripted server's pace, not a wait for anything
            sent_progress += 1
            self._write(progress_notification(token, sent_progress))
        if cancelled is not None and cancelled(max(0.0, end - time.monotonic())):
            self._answer(request)  # the answer after the cancellation (Pace.answer_on_cancel)
            with self._answered:
                self._owed.discard(json.dumps(request["id"]))
                self._answered.notify_all()
            return
        time.sleep(max(0.0, end - time.monotonic()))
        if pace.delay is None:
            self.trace.lifecycle("server-to-client", "held", id=request["id"], method=request["method"])
            return
        self._answer(request)

    def _cancellation(self, request_id: Any) -> Callable[[float], bool]:
        """A wait, bounded by its argument, for the client's notifications/cancelled naming ``request_id``:
        whether it has come."""
        key = json.dumps(request_id)

        def wait(seconds: float) -> bool:
            with self._answered:
                return self._answered.wait_for(lambda: key in self._client_cancelled, timeout=seconds)

        return wait

    def _answer(self, request: dict) -> None:
        """Answer from ``answers``; the tests' process checks the answer against the schema, since
        validating here would cost every scripted server the import of a validator."""
        self._write(response_to(self.answers, request), answering=request)

    def _write(self, frame: dict, answering: dict | None = None) -> None:
        """Record ``frame`` (with the ``answer`` event announcing it, for an answer from the script), then send it."""
        with self._recording:
            if answering is not None:
                self.trace.lifecycle("server-to-client", "answer", id=answering["id"], method=answering["method"])
            self.trace.message("server-to-client", frame)
        with contextlib.suppress(OSError, ValueError):  # the client stopped reading: nothing to do
            self.stdout.write(json.dumps(frame, separators=(",", ":")).encode() + b"\n")
            self.stdout.flush()

    def watch_signals(self) -> None:
        """Record each SIGTERM (who sent it, whether the client was alive), then end as a server would."""
        while True:
            info = signal.sigwaitinfo({signal.SIGTERM, signal.SIGINT})
            name = signal.Signals(info.si_signo).name
            self.trace.lifecycle(
                "client-to-server", "signal", name=name, sender=info.si_pid, client_alive=self.parent.alive()
            )
            self.trace.close()
            os._exit(128 + info.si_signo)


def error_answer(code: int) -> Answer:
    return lambda _: {"error": {"code": code, "message": f"scripted error {code}"}}


def fixed_answer(result: dict) -> Answer:
    return lambda _: dict(result)


def rounds_answer(results: list[dict]) -> Answer:
    """The requests of a method answered with ``results`` in turn, the last one for every later request (a
    multi round-trip: an input_required result first, then the complete one)."""
    served = itertools.count()
    return lambda _: dict(results[min(next(served), len(results) - 1)])


def fault_to_json(fault: Fault) -> str:
    fields = {"kind": fault.kind, "target": fault.target, "path": fault.path, "value": fault.value}
    return json.dumps(fields | {"occurrence": fault.occurrence})


FOLLOWUP_ID = "mcp-matrix-followup-"  # + the followup (+ "@N" about the N-th task from the second on): its id
MISLED = "#misled"  # a followup so marked carries a related-task _meta naming a task the client never created
MISLEADING_TASK = "mcp-matrix-other-task"
PROGRESS_ENDED = "progress-ended"  # no request: wait (bounded) until the task's progress reaches its total


def followup(spec: str, task_id: Any, ordinal: str = "") -> dict:
    """Our request about the client's task ``task_id``: ``spec`` is its method (tasks/list: the first page),
    marked MISLED or not."""
    method = spec.partition("#")[0]  # a mark other than MISLED only tells two followups of a method apart
    params: dict[str, Any] = {} if method == "tasks/list" else {"taskId": task_id}
    if spec.endswith(MISLED):
        params["_meta"] = {"io.modelcontextprotocol/related-task": {"taskId": MISLEADING_TASK}}
    return {"jsonrpc": "2.0", "id": f"{FOLLOWUP_ID}{spec}{ordinal}", "method": method, "params": params}


def fault_from_json(text: str) -> Fault:
    fields = json.loads(text)
    target = fields["target"]
    target = tuple(target) if isinstance(target, list) else target
    return Fault(fields["kind"], target, fields["path"], fields["value"], occurrence=fields["occurrence"])


def restart_record(record: Path, start: int) -> Path:
    """Where the ``start``-th server launched with the same command line (a restart) keeps its record."""
    return record.with_suffix(f".restart-{start}.jsonl")


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=f"python -m {MODULE}", description=__doc__.split("\n\n")[0])
    parser.add_argument("--revision", required=True)
    parser.add_argument("--record", required=True, type=Path, help="the session trace to write (JSONL)")
    parser.add_argument("--spec-cache", help="the pinned spec's cache directory (MCP_SPEC_CACHE)")
    parser.add_argument("--fault", help="a fault (JSON) on what the client sends, before we read it")
    parser.add_argument("--page-server", default="", help="the base URL of the session's page server (fetch faults)")
    parser.add_argument("--hold", action="append", default=[], help="leave requests of this method unanswered")
    parser.add_argument("--error", action="append", default=[], help="METHOD=CODE: answer METHOD with that error")
    parser.add_argument("--result", action="append", default=[], help="METHOD=JSON: answer METHOD with that result")
    parser.add_argument("--pace", action="append", default=[], help="METHOD=JSON: answer METHOD as that Pace says")
    parser.add_argument("--linger", action="store_true", help="keep running after stdin closes")
    parser.add_argument("--raw", action="append", default=[], help="METHOD=JSON: answer METHOD with this, unchecked")
    parser.add_argument("--push", action="append", default=[], help="METHOD=JSON: send this before answering METHOD")
    parser.add_argument(
        "--ask",
        action="append",
        default=[],
        help="METHOD=JSON: send these requests of ours (a list) before answering METHOD, taken as ours (faults)",
    )
    parser.add_argument(
        "--rounds", action="append", default=[], help="METHOD=JSON: answer METHOD with these results (a list) in turn"
    )
    parser.add_argument("--tools", help="the tools (a JSON list) tools/list answers with")
    parser.add_argument(
        "--pages",
        action="append",
        default=[],
        help='METHOD={"key": K, "pages": [...]}: answer METHOD page by page (scripted_server.paged_answer)',
    )
    parser.add_argument("--wind-down", type=float, default=0.0, help="seconds between end-of-file and exit")
    parser.add_argument("--stderr-chatter", action="store_true", help="write log lines on stderr")
    parser.add_argument("--max-seconds", type=float, default=MAX_SECONDS)
    parser.add_argument(
        "--listen",
        type=int,
        default=0,
        help="N: acknowledge subscriptions/listen requests and hold them; once the "
        "Nth is acknowledged, send one notifications/tools/list_changed stamped with its id",
    )
    parser.add_argument(
        "--listen-honour",
        action="append",
        default=[],
        help="FLAG: acknowledge only these members of a listen filter (each that was asked for); default: all",
    )
    parser.add_argument(
        "--task-followup",
        action="append",
        default=[],
        help="METHOD[#misled][@N]: once the client answers one of our requests with a CreateTaskResult, ask it "
        "METHOD about that task (tasks/get, tasks/result, tasks/list, tasks/cancel), in the order given, one at a "
        "time; #misled adds a related-task _meta naming another task; @N: about the N-th task created only; "
        "progress-ended waits for the task's progress to reach its total instead",
    )
    parser.add_argument("--crash-after", help="METHOD: exit abruptly (status 1) once the first METHOD is answered")
    parser.add_argument(
        "--cancel-listen",
        help="REASON: with --listen, cancel each subscriptions/listen once acknowledged, with this reason",
    )
    parser.add_argument("--stderr-flood", type=int, default=0, help="BYTES: write that much log text on stderr first")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    options = parse_arguments(argv)
    if options.spec_cache:
        os.environ["MCP_SPEC_CACHE"] = options.spec_cache
    # SIGTERM and SIGINT wait for the watcher thread (every thread inherits the mask): a handler
    # could interrupt the trace while it holds its lock.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    record, starts = options.record, 1
    while record.exists():  # the client restarted us with the same command: keep the first record
        starts += 1
        record = restart_record(options.record, starts)
    trace = Trace(record, "stdio")
    options.connection = starts  # the first server of this command line, or a restart: paged cursors differ
    server = ScriptedStdioServer(options, trace)
    threading.Thread(target=server.watch_signals, daemon=True).start()

    def give_up() -> None:
        trace.lifecycle("server-to-client", "timeout", seconds=options.max_seconds)
        trace.close()
        os._exit(3)

    bound = threading.Timer(options.max_seconds, give_up)
    bound.daemon = True
    bound.start()
    try:
        server.run(sys.stdin.buffer)
    except BaseException as exc:  # the record is the only place anyone will look
        trace.lifecycle("server-to-client", "crash", detail=repr(exc))
        raise
    finally:
        trace.close()
    os._exit(0)  # daemon threads (the responder, the watchers) end with us


# -- the tests' side -----------------------------------------------------------------------------


class StdioRecord:
    """One scripted stdio session as its record tells it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.events: list[dict] = []
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(json.JSONDecodeError):  # a last line cut short by a kill
                    self.events.append(json.loads(line))

    def lifecycle(self, event: str) -> list[dict]:
        return [e for e in self.events if e["kind"] == "lifecycle" and e["event"] == event]

    def messages(self, direction: str) -> list[dict]:
        return [e for e in self.events if e["kind"] == "message" and e["direction"] == direction]

    def frames(self) -> list[Any]:
        return [e["payload"] for e in self.messages("client-to-server")]

    def lines(self) -> list[str]:
        return [e["data"] for e in self.lifecycle("line")]

    def answer_problems(self, revision: str) -> list[str]:
        """Every way the answers the server made from its script break the revision's schema. Each
        ``answer`` event is followed by the answer it announces (both are recorded together), which is
        judged as the result of that event's method: ids alone would pair wrongly when a client reuses one."""
        problems: list[str] = []
        announced: str | None = None
        for event in self.events:
            if event["kind"] == "lifecycle" and event["event"] == "answer":
                announced = event["method"]
            elif event["kind"] == "message" and event["direction"] == "server-to-client" and announced is not None:
                if isinstance(event["payload"], dict):
                    problems += answer_problems(revision, announced, event["payload"])
                announced = None
        return problems

    def server_processes(self, record: str) -> list[tuple[int, str]]:
        """Each server's processes, with what their command lines name: the process the client started (it
        names the record), and the fork a relay stood in for (it names this module: see stdio_relay)."""
        found = []
        for start in self.lifecycle("start"):
            if "relay" in start:
                found.append((start["relay"], record))
                found.append((start["pid"], "conformance.harness.zygote\0" + MODULE))
            else:
                found.append((start["pid"], record))
        return found

    def sent_before_answer(self, method: str) -> list[Any]:
        before: list[Any] = []
        request_id: Any = NOT_SEEN
        for event in self.events:
            if event["kind"] != "message":
                continue
            frame = event["payload"]
            if event["direction"] == "client-to-server":
                is_it = isinstance(frame, dict) and frame.get("method") == method and "id" in frame
                if is_it and request_id is NOT_SEEN:
                    request_id = frame["id"]
                else:
                    before.append(frame)
            elif request_id is not NOT_SEEN and isinstance(frame, dict) and frame.get("id") == request_id:
                return before  # our answer (we send no requests of our own)
        return before


class ScriptedStdio:
    """The scripted stdio server as the tests configure it and read it back.

    Set the options (``revision``, ``hold``, ``errors``, ``linger``, ``wind_down``,
    ``stderr_chatter``, ``tools``, ``raw``, ``push``), hand ``command()`` to the client under test, and
    once the client is done call ``load()``: ``record`` is then that session's. Each run writes a record
    of its own.
    """

    def __init__(self, revision: str, record: Path, fault: Fault | None = None, warm_parent: str | None = None) -> None:
        """``warm_parent``: the relay socket of a warm parent of this module (``WarmLauncher(MODULE,
        relays=True)``), which then forks the server that the client starts (stdio_relay)."""
        self.revision = revision
        self.warm_parent = warm_parent
        self.fault = fault
        self.hold: set[str] = set()
        self.errors: dict[str, int] = {}
        self.raw: dict[str, Any] = {}  # method -> a deliberately wrong answer, sent unchecked (``raw_response``)
        self.push: dict[str, list[Any]] = {}  # method -> lines (a frame, or a batch) sent before answering it
        self.ask: dict[str, list[dict]] = {}  # method -> requests of ours sent before answering it (``_ask``)
        self.rounds: dict[str, list[dict]] = {}  # method -> the results its requests get in turn (the last: after)
        self.linger = False
        self.wind_down = 0.0
        self.stderr_chatter = False
        self.tools: list[dict] | None = None  # what tools/list answers with (None: the default tool)
        self.pages: dict[str, dict] = {}  # method -> {"key": ..., "pages": [...]}: answered page by page
        self.results: dict[str, dict] = {}  # method -> the fixed result it is answered with
        self.paces: dict[str, Pace] = {}  # methods answered slowly, with progress, or not at all (Pace)
        self.listen = 0  # acknowledge subscriptions/listen; after the Nth, a notification stamped with its id
        self.listen_honour: list[str] = []  # the filter members acknowledged (those asked for); empty: all
        # asked, one at a time, about each task the client creates for us: METHOD[#mark][@N] (see --task-followup)
        self.task_followups: list[str] = []
        self.cancel_listen: str | None = None  # with listen: each listen cancelled once acknowledged, with this reason
        self.crash_after: str | None = None  # the method after whose first answer the server dies
        self.stderr_flood = 0  # bytes of log text the server writes on stderr before anything else
        self.pages_url = ""  # the base URL of the session's page server (harness/pages.py), if it has one
        self.paths: list[Path] = []
        self._base = record
        self._spec_cache = materialise().parent
        self.record = StdioRecord(record)
        self.violations: list[str] = []
        self.harness_errors: list[str] = []

    def command(self) -> list[str]:
        """The command line of a fresh scripted server with the current options (a new record)."""
        path = self._base if not self.paths else self._base.with_suffix(f".{len(self.paths) + 1}.jsonl")
        self.paths.append(path)
        path.unlink(missing_ok=True)
        argv = [*self._program(), "--revision", self.revision, "--record", str(path)]
        argv += ["--spec-cache", str(self._spec_cache)]
        if self.fault is not None:
            argv += ["--fault", fault_to_json(self.fault)]
        if self.pages_url:
            argv += ["--page-server", self.pages_url]
        for method in sorted(self.hold):
            argv += ["--hold", method]
        for method, code in sorted(self.errors.items()):
            argv += ["--error", f"{method}={code}"]
        for method, template in sorted(self.raw.items()):
            argv += ["--raw", f"{method}={json.dumps(template)}"]
        for method, frames in sorted(self.push.items()):
            argv += ["--push", f"{method}={json.dumps(frames)}"]
        for method, frames in sorted(self.ask.items()):
            argv += ["--ask", f"{method}={json.dumps(frames)}"]
        for method, results in sorted(self.rounds.items()):
            argv += ["--rounds", f"{method}={json.dumps(results)}"]
        if self.linger:
            argv.append("--linger")
        if self.wind_down:
            argv += ["--wind-down", str(self.wind_down)]
        if self.stderr_chatter:
            argv.append("--stderr-chatter")
        for method, paged in sorted(self.pages.items()):
            argv += ["--pages", f"{method}={json.dumps(paged)}"]
        if self.tools is not None:
            argv += ["--tools", json.dumps(self.tools)]
        for method, result in sorted(self.results.items()):
            argv += ["--result", f"{method}={json.dumps(result)}"]
        for method, pace in sorted(self.paces.items()):
            argv += ["--pace", f"{method}={pace.to_json()}"]
        if self.listen:
            argv += ["--listen", str(self.listen)]
        for flag in self.listen_honour:
            argv += ["--listen-honour", flag]
        for method in self.task_followups:
            argv += ["--task-followup", method]
        if self.cancel_listen is not None:
            argv += ["--cancel-listen", self.cancel_listen]
        if self.crash_after:
            argv += ["--crash-after", self.crash_after]
        if self.stderr_flood:
            argv += ["--stderr-flood", str(self.stderr_flood)]
        return argv

    def _program(self) -> list[str]:
        """How the client starts the server: through a relay to the warm parent, unless the session is about
        the server's own process (its exit, or the signals it gets), which only a process of its own shows."""
        if self.warm_parent is None or self.linger or self.wind_down:
            return [sys.executable, "-m", MODULE]
        return [sys.executable, "-S", "-I", stdio_relay.__file__, self.warm_parent]

    def load(self) -> StdioRecord:
        """Read the latest run's record, once every server of that run has ended (bounded: one
        still running then is killed, by its pid, after checking it is ours)."""
        path = self.paths[-1] if self.paths else self._base
        for pid, marker in StdioRecord(path).server_processes(str(path)):
            end(pid, marker)
        self.record = StdioRecord(path)
        self.violations += [problem for frame in self.record.frames() for problem in judge(self.revision, frame)]
        self.harness_errors += self.record.answer_problems(self.revision)
        return self.record

    def restarts(self) -> list[StdioRecord]:
        """The records of the servers the client launched again with the latest run's command line (its
        restarts), in order; each still running is ended (bounded), as ``load`` ends the first."""
        path = self.paths[-1] if self.paths else self._base
        found = []
        while (record := restart_record(path, len(found) + 2)).exists():
            for pid, marker in StdioRecord(record).server_processes(str(path)):
                end(pid, marker)
            found.append(StdioRecord(record))
        return found

    def close(self) -> None:
        for path in self.paths:
            restarts = sorted(path.parent.glob(f"{path.stem}.restart-*.jsonl"))  # see restart_record
            for record in [path, *restarts]:
                for pid, marker in StdioRecord(record).server_processes(str(path)):
                    end(pid, marker, wait=0.0)

    # -- ScriptedPeer --------------------------------------------------------------------------------

    def frames(self) -> list[Any]:
        return self.record.frames()

    def requests(self) -> list[dict]:
        return [f for f in self.frames() if isinstance(f, dict) and "method" in f and "id" in f]

    def sent_before_answer(self, method: str) -> list[Any]:
        return self.record.sent_before_answer(method)


def end(pid: int, marker: str, wait: float = SETTLE_SECONDS) -> None:
    """Wait up to ``wait`` seconds for a scripted server to exit, then kill it; only a process whose
    command line names ``marker`` (its record, or its warm parent's module) is touched, so a reused pid is
    left alone."""
    try:
        fd = os.pidfd_open(pid)
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            named = cmdline.read()
    except OSError:
        return  # gone already
    try:
        if named and marker.encode() not in named:
            return
        # an empty command line: the process is exiting (its memory is gone), so only waited for
        if not select.select([fd], [], [], wait)[0] and named:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
    finally:
        os.close(fd)


if __name__ == "__main__":
    main()
