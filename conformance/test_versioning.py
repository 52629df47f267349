"""Versioning (2026-07-28): an unsupported protocol version is refused, saying which ones are supported."""

from __future__ import annotations

from conformance.covers import for_req
from conformance.harness.frames import modern_meta
from conformance.harness.peer import Peer
from conformance.harness.schema import violations

UNSUPPORTED = "2099-01-01"


def request_at_an_unsupported_version(server: Peer) -> dict:
    return server.rpc("tools/list", {"_meta": modern_meta(UNSUPPORTED)}, check=False)


@for_req("versioning-unsupported-version-error", "server")
def test_an_unsupported_version_gets_minus_32022_listing_the_supported_ones(revision: str, server: Peer) -> None:
    error = request_at_an_unsupported_version(server).get("error")
    assert isinstance(error, dict), "a request at an unsupported version was not refused"
    assert error.get("code") == -32022, error
    supported = (error.get("data") or {}).get("supported")
    assert isinstance(supported, list) and revision in supported, f"data.supported is {supported!r}"


@for_req("versioning-unsupported-version-error", "server")
def test_an_unsupported_version_gets_the_schemas_unsupported_version_error(revision: str, server: Peer) -> None:
    response = request_at_an_unsupported_version(server)
    assert "error" in response, f"a request at an unsupported version was answered {response}"
    problems = violations(revision, "UnsupportedProtocolVersionError", response)
    assert not problems, "\n".join(problems)
