"""_meta: what the reserved keys carry (docs/spec/requirements.md, meta)."""

from __future__ import annotations

from conformance.covers import for_req
from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import Peer

SERVER_INFO = "io.modelcontextprotocol/serverInfo"


@for_req("meta-server-info-every-result", "server", transports=BOTH_TRANSPORTS)
def test_every_result_names_the_server(revision: str, transport: str, peer: Peer) -> None:
    for method in ("server/discover", "tools/list", "prompts/list"):
        result = peer.rpc(method, check=False).get("result")
        assert isinstance(result, dict), f"{method} failed"
        info = (result.get("_meta") or {}).get(SERVER_INFO)
        assert isinstance(info, dict), f"{method}: no _meta {SERVER_INFO} in {result}"
        assert isinstance(info.get("name"), str) and isinstance(info.get("version"), str), info
