"""Ping: a ping is answered promptly with an empty result (docs/spec/requirements.md, ping)."""

from __future__ import annotations

import time

from conformance.covers import for_req
from conformance.harness.peer import Peer

PROMPT_SECONDS = 1.0  # "promptly": well inside the harness's own bound, far above a healthy answer


@for_req("ping-respond-promptly-empty", "server")
def test_a_ping_is_answered_promptly_with_an_empty_result(revision: str, server: Peer) -> None:
    server.open()
    start = time.monotonic()
    response = server.rpc("ping", check=False)
    elapsed = time.monotonic() - start
    assert response.get("result") == {}, f"ping was answered with {response}"
    assert elapsed < PROMPT_SECONDS, f"ping took {elapsed:.2f}s"
