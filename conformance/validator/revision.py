"""The revision a trace speaks: from the initialize exchange, the per-request ``_meta`` envelope
(2026-07-28), or the MCP-Protocol-Version header, in that order of authority."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from conformance.validator.reader import Event
from conformance.validator.session import CLIENT, META_PROTOCOL_VERSION, PROTOCOL_VERSION_HEADER, SERVER, header


@dataclass(frozen=True)
class Inference:
    revision: str | None  # the revision the trace is judged at, None if none could be settled
    evidence: str  # where it came from
    notes: tuple[str, ...] = field(default=())


def _message_versions(events: list[Event]) -> tuple[str | None, str | None, Counter]:
    """(the version the client asked for in initialize, the one the server answered, the _meta versions)."""
    asked = answered = None
    initialize_ids: set[str] = set()
    meta: Counter = Counter()
    for event in events:
        if event["kind"] != "message":
            continue
        payload = event["payload"]
        for frame in payload if isinstance(payload, list) else [payload]:
            if not isinstance(frame, dict):
                continue
            params = frame.get("params") if isinstance(frame.get("params"), dict) else {}
            sender = CLIENT if event["direction"] == "client-to-server" else SERVER
            if sender == CLIENT and frame.get("method") == "initialize" and asked is None:
                asked = params.get("protocolVersion") if isinstance(params.get("protocolVersion"), str) else None
                initialize_ids.add(repr(frame.get("id")))
            elif sender == SERVER and answered is None and repr(frame.get("id")) in initialize_ids:
                result = frame.get("result")
                version = result.get("protocolVersion") if isinstance(result, dict) else None
                answered = version if isinstance(version, str) else None
            meta_block = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
            if sender == CLIENT and isinstance(meta_block.get(META_PROTOCOL_VERSION), str):
                meta[meta_block[META_PROTOCOL_VERSION]] += 1
    return asked, answered, meta


def infer(events: list[Event], known: list[str], asked_for: str | None) -> Inference:
    """The revision to judge ``events`` at. The trace's own revision wins over ``asked_for``: judging a
    session at a revision it does not speak would report the revisions' differences as violations; the
    difference is noted instead. ``asked_for`` decides only when the trace names no known revision."""
    asked, answered, meta = _message_versions(events)
    requests = [e for e in events if e["kind"] == "http" and e["direction"] == "client-to-server"]
    posted_to = {e.get("path") for e in requests if e.get("method") == "POST"}
    headers = Counter(
        value
        for event in requests
        if event.get("path") in posted_to  # the endpoint's: a metadata GET's names the OAuth code's choice (F-311)
        for value in [header(event, PROTOCOL_VERSION_HEADER)]
        if value is not None
    )
    candidates: list[tuple[str, str]] = []
    if answered:
        candidates.append((answered, "the initialize result's protocolVersion"))
    if meta:
        candidates.append((meta.most_common(1)[0][0], "the requests' _meta protocol version"))
    if headers:
        candidates.append((headers.most_common(1)[0][0], "the MCP-Protocol-Version header"))
    if asked and not answered:
        candidates.append((asked, "the initialize request's protocolVersion (unanswered)"))
    notes = []
    found = next(((version, source) for version, source in candidates if version in known), None)
    unknown = [f"{version!r} ({source})" for version, source in candidates if version not in known]
    if unknown:
        notes.append(f"the trace names versions no revision has: {', '.join(unknown)}")
    agreed = {version for version, _ in candidates if version in known}
    if len(agreed) > 1:
        notes.append(f"the trace names several revisions ({', '.join(sorted(agreed))}); the first source decides")
    if found is None:
        if asked_for is None:
            return Inference(None, "nothing in the trace names a known revision; pass --revision", tuple(notes))
        return Inference(asked_for, "--revision (the trace names no known revision)", tuple(notes))
    revision, source = found
    if asked_for is not None and asked_for != revision:
        notes.append(
            f"--revision {asked_for} was asked for, but the trace speaks {revision} ({source}): judged at {revision}"
        )
    return Inference(revision, source, tuple(notes))
