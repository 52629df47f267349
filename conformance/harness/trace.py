"""Session traces: one JSON event a line, the evidence of every session the harness holds.

``seq`` is the only ordering authority; ``direction`` is ``client-to-server`` or
``server-to-client``; ``transport`` is ``stdio``, ``streamable-http`` or ``sse`` (the HTTP+SSE
transport of 2024-11-05); ``kind`` is ``message`` (with ``payload`` verbatim), ``http``
(``method``, ``status`` on a response, ``headers``) or ``lifecycle`` (``event``); ``ts`` is
optional. The offline validator reads the same format (docs/trace-format.md).

What the writer keeps out of a trace, whoever records through it (the harness or ``capture``):
of the headers it writes only those a conformance check can be about (``RECORDED_HEADERS`` and
every ``Mcp-*`` header), never a credential-bearing one (``CREDENTIAL_HEADERS``), and a session id
(the ``Mcp-Session-Id`` header, a ``session`` query parameter of a 2024-11-05 endpoint URL or of a
recorded ``path``) only as a pseudonym: a keyed hash under a key drawn for this trace, the same for
the same id within the trace and unlinkable to it without the key, which is never written. The value of
an OAuth credential parameter (``CREDENTIAL_PARAMETERS``: a code, a token, a secret, a verifier) is written
as ``redacted``, its name kept, wherever the writer meets one: a URL's query (a ``path``, a ``Location``,
an ``endpoint``) and a form or non-JSON-RPC JSON ``body`` (an authorization server's token exchange, as the
harness's authorization server records it). An event
whose line would be longer than a reader takes (``LONGEST_LINE``) is written as a ``lifecycle``
``oversized`` event.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import secrets
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

DIRECTIONS = ("client-to-server", "server-to-client")
TRANSPORTS = ("stdio", "streamable-http", "sse")
KINDS = ("message", "http", "lifecycle")

CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "set-cookie", "proxy-authorization"})
# OAuth parameters whose value is a credential (RFC 6749, 7636, 7523); a trace names them, never their value
CREDENTIAL_PARAMETERS = frozenset(
    {"access_token", "refresh_token", "id_token", "code", "code_verifier", "client_secret", "client_assertion"}
)
REDACTED = "redacted"
SESSION_HEADER = "mcp-session-id"
MCP_HEADER_PREFIX = "mcp-"  # Mcp-Session-Id, MCP-Protocol-Version, and 2026-07-28's Mcp-Method, Mcp-Name, Mcp-Param-*
RECORDED_HEADERS = frozenset(
    {
        "accept",
        "allow",
        "cache-control",
        "content-encoding",
        "content-length",
        "content-type",
        "host",
        "last-event-id",
        "location",
        "origin",
        "retry-after",
        "transfer-encoding",
        "www-authenticate",
        "x-accel-buffering",  # a 2026-07-28 server turns proxy buffering off on an event stream
    }
)
PSEUDONYM_PREFIX = "pseudonym-"
NOT_VISIBLE_ASCII = " (not visible ASCII)"  # the suffix of the pseudonym of a session id outside 0x21..0x7E
LONGEST_LINE = 16 * 1024 * 1024  # the longest line a reader takes (docs/trace-format.md, "Limits")


class Trace:
    """Appends events to a JSONL file as they happen, so a crashed run still leaves its trace."""

    def __init__(self, path: Path, transport: str) -> None:
        if transport not in TRANSPORTS:
            raise ValueError(f"unknown transport {transport!r} (one of {', '.join(TRANSPORTS)})")
        self.path = path
        self.transport = transport
        self._seq = itertools.count(1)
        self._lock = threading.Lock()
        self._pseudonym_key = secrets.token_bytes(32)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO = path.open("w", encoding="utf-8")

    def record(self, direction: str, kind: str, **fields: Any) -> None:
        if direction not in DIRECTIONS or kind not in KINDS:
            raise ValueError(f"bad trace event: direction={direction!r} kind={kind!r}")
        if isinstance(fields.get("headers"), Mapping):
            fields["headers"] = self.recorded_headers(fields["headers"])
        if kind == "lifecycle" and fields.get("event") == "endpoint" and isinstance(fields.get("data"), str):
            fields["data"] = self.recorded_url(fields["data"])
        if isinstance(fields.get("path"), str):
            fields["path"] = self.recorded_url(fields["path"])
        if isinstance(fields.get("body"), str):
            fields["body"] = recorded_body(fields["body"])
        with self._lock:
            if self._file.closed:
                return
            event = {"seq": next(self._seq), "direction": direction, "transport": self.transport, "kind": kind}
            event |= fields
            event["ts"] = round(time.time(), 6)
            line = json.dumps(event, ensure_ascii=False)
            if len(line.encode("utf-8", "surrogatepass")) > LONGEST_LINE:
                line = json.dumps(_oversized(event, line), ensure_ascii=False)
            self._file.write(line + "\n")
            self._file.flush()

    def message(self, direction: str, payload: Any) -> None:
        self.record(direction, "message", payload=payload)

    def lifecycle(self, direction: str, event: str, **fields: Any) -> None:
        self.record(direction, "lifecycle", event=event, **fields)

    def pseudonym(self, session_id: str) -> str:
        """The stand-in for ``session_id`` in this trace (stable within it, keyed by its own secret). It keeps
        the one property of the id a check reads, being visible ASCII: an id that is not gets a pseudonym
        that is not either."""
        digest = hmac.new(self._pseudonym_key, session_id.encode("utf-8", "surrogateescape"), hashlib.sha256)
        visible = all("\x21" <= character <= "\x7e" for character in session_id)
        return PSEUDONYM_PREFIX + digest.hexdigest()[:16] + ("" if visible else NOT_VISIBLE_ASCII)

    def recorded_headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """The headers a trace keeps of ``headers``: names lowercased, credentials left out, the session
        id as its pseudonym."""
        kept: dict[str, str] = {}
        for name, value in headers.items():
            lowered = name.lower()
            if lowered in CREDENTIAL_HEADERS:
                continue
            if lowered == SESSION_HEADER:
                kept[lowered] = self.pseudonym(value)
            elif lowered == "location":
                kept[lowered] = self.recorded_url(value)  # a redirect back to a client carries its code
            elif lowered in RECORDED_HEADERS or lowered.startswith(MCP_HEADER_PREFIX):
                kept[lowered] = value
        return kept

    def recorded_url(self, url: str) -> str:
        """``url`` with the value of each query parameter that names a session replaced by its pseudonym
        (2024-11-05's endpoint URLs carry the session there: ``?sessionId=``, ``?session_id=``) and each
        credential's value redacted."""
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        if not any("session" in name.lower() or name in CREDENTIAL_PARAMETERS for name, _ in query):
            return url  # as it was written: re-encoding a query could change its bytes
        return urlunsplit(parts._replace(query=urlencode([(name, self._recorded_value(name, v)) for name, v in query])))

    def _recorded_value(self, name: str, value: str) -> str:
        if name in CREDENTIAL_PARAMETERS:
            return REDACTED
        return self.pseudonym(value) if "session" in name.lower() else value

    def close(self) -> None:
        with self._lock:
            self._file.close()


def recorded_body(body: str) -> str:
    """``body`` with each credential's value redacted: a form's parameters, or the top-level members of a JSON
    object that is no JSON-RPC message (a token response); anything else as it came."""
    try:
        document = json.loads(body)
    except ValueError:
        pairs = parse_qsl(body, keep_blank_values=True) if "=" in body and not body.lstrip().startswith("{") else []
        if not any(name in CREDENTIAL_PARAMETERS for name, _ in pairs):
            return body
        return urlencode([(name, REDACTED if name in CREDENTIAL_PARAMETERS else value) for name, value in pairs])
    if not isinstance(document, dict) or "jsonrpc" in document or not CREDENTIAL_PARAMETERS & document.keys():
        return body
    return json.dumps({k: REDACTED if k in CREDENTIAL_PARAMETERS else v for k, v in document.items()})


def _oversized(event: dict[str, Any], line: str) -> dict[str, Any]:
    """What stands for an event too long for a trace line: a ``lifecycle`` ``oversized`` event with the
    event's own kind, its size and the sha256 of the line it would have been."""
    kept = {name: event[name] for name in ("seq", "direction", "transport", "ts")}
    encoded = line.encode("utf-8", "surrogatepass")
    described = {"of": event["kind"], "size": len(encoded), "sha256": hashlib.sha256(encoded).hexdigest()}
    return kept | {"kind": "lifecycle", "event": "oversized"} | described
