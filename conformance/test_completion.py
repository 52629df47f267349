"""Completion, server side: the capability and the answers to ``completion/complete``.

Each test holds the server under test to one requirement of docs/spec/requirements.md
(completion), at every revision its cover claims (see coverage/completion.py). The completion
asked for is of an argument of the first listed prompt that has arguments (the official suite's
``test_prompt_with_arguments`` on the fixture server).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.http import HttpPeer
from conformance.harness.peer import Peer, precondition
from conformance.harness.roles import bound, require_role
from conformance.harness.scripted_server import ScriptedServer, default_results
from conformance.harness.stdio import StdioPeer
from conformance.harness.surface import list_items, offers, server_capabilities
from conformance.harness.trace import Trace
from conformance.matrix.covers import for_req
from conformance.run.plugin import ClientRun, ConfiguredServer

UNKNOWN_PROMPT = "mcp-matrix-no-such-prompt"
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


def complete(peer: Peer, params: dict) -> dict:
    return peer.rpc("completion/complete", params, check=False)


def prompt_argument(peer: Peer) -> tuple[str, str]:
    """(prompt, argument): a listed prompt and the name of one of its arguments."""
    for prompt in list_items(peer, "prompts/list") or []:
        for argument in prompt.get("arguments") or []:
            return prompt["name"], argument["name"]
    pytest.skip("fixture-missing: the server lists no prompt with arguments to complete")


def offers_completion(peer: Peer) -> None:
    """The completion rows bind a server that completes: one declaring ``completions`` (2025-03-26 on), or
    at 2024-11-05, which has no such capability, one that does not refuse completion/complete as unknown."""
    if peer.revision != "2024-11-05":
        offers(peer, "completions")
        return
    peer.open()
    probe = complete(peer, {"ref": prompt_ref(UNKNOWN_PROMPT), "argument": {"name": "a", "value": ""}})
    if (probe.get("error") or {}).get("code") == METHOD_NOT_FOUND:
        pytest.skip("fixture-missing: the server does not know completion/complete (-32601): it offers no completion")


def prompt_ref(name: str) -> dict:
    return {"type": "ref/prompt", "name": name}


def refusal_code(response: dict) -> object:
    error = response.get("error")
    assert isinstance(error, dict), f"answered without an error: {response}"
    return error.get("code")


@for_req("completion-capability-declared", "server", transports=BOTH_TRANSPORTS)
def test_a_server_that_completes_declares_the_completions_capability(revision: str, transport: str, peer: Peer) -> None:
    capabilities = server_capabilities(peer)
    prompt, argument = prompt_argument(peer)
    response = complete(peer, {"ref": prompt_ref(prompt), "argument": {"name": argument, "value": ""}})
    if "result" not in response:
        pytest.skip(f"fixture-missing: the server does not complete arguments: {response.get('error')}")
    assert "completions" in capabilities, f"completion/complete is served, but capabilities are {capabilities}"


def configured_without_completion(peer: Peer, configured_server: ConfiguredServer, tmp_path: Path) -> Peer:
    """A session, over the same transport and under the same fault, with the server under test as its
    profile starts it configured without completion (``without-completion``); fixture-missing where the
    profile says not how."""
    configured = configured_server("without-completion", transport=peer.transport)
    trace = Trace(tmp_path / "without-completion.jsonl", peer.transport)
    if configured.launcher is not None:
        return StdioPeer(configured.launcher.start(), trace, peer.revision, fault=peer.fault)
    return HttpPeer(configured.url, trace, peer.revision, fault=peer.fault)


@for_req("completion-unsupported-method-not-found", "server", transports=BOTH_TRANSPORTS)
def test_a_server_without_completion_answers_minus_32601(
    revision: str, transport: str, peer: Peer, configured_server: ConfiguredServer, tmp_path: Path
) -> None:
    """The server under test if it declares no completion; else the same server configured without it."""
    with contextlib.ExitStack() as stack:
        if "completions" in server_capabilities(peer):
            peer = stack.enter_context(configured_without_completion(peer, configured_server, tmp_path))
            if "completions" in server_capabilities(peer):
                pytest.skip("fixture-missing: the server configured without completion still declares it")
        response = complete(peer, {"ref": prompt_ref(UNKNOWN_PROMPT), "argument": {"name": "a", "value": ""}})
    code = refusal_code(response)
    assert code == METHOD_NOT_FOUND, f"completion/complete was refused with code {code}"


@for_req("completion-unknown-prompt-error", "server", transports=BOTH_TRANSPORTS)
def test_completion_for_an_unknown_prompt_gets_minus_32602(revision: str, transport: str, peer: Peer) -> None:
    offers_completion(peer)
    response = complete(peer, {"ref": prompt_ref(UNKNOWN_PROMPT), "argument": {"name": "a", "value": ""}})
    code = refusal_code(response)
    assert code == INVALID_PARAMS, f"completion for {UNKNOWN_PROMPT} was refused with code {code}"


@for_req("completion-missing-arguments-error", "server", transports=BOTH_TRANSPORTS)
def test_completion_without_its_argument_gets_minus_32602(revision: str, transport: str, peer: Peer) -> None:
    offers_completion(peer)
    prompt, _ = prompt_argument(peer)
    code = refusal_code(complete(peer, {"ref": prompt_ref(prompt)}))  # `argument` is required
    assert code == INVALID_PARAMS, f"completion/complete without argument was refused with code {code}"


@for_req("completion-validate-inputs", "server", transports=BOTH_TRANSPORTS)
def test_a_completion_request_with_a_malformed_ref_is_refused(revision: str, transport: str, peer: Peer) -> None:
    peer.open()
    prompt, argument = prompt_argument(peer)
    malformed = {"type": "ref/mcp-matrix-unknown", "name": prompt}
    response = complete(peer, {"ref": malformed, "argument": {"name": argument, "value": ""}})
    assert "error" in response and "result" not in response, f"a ref of an unknown type was answered {response}"


@for_req("completion-internal-error-code", "server", transports=BOTH_TRANSPORTS)
def test_a_completion_failing_inside_the_server_gets_minus_32603(revision: str, transport: str, peer: Peer) -> None:
    bound(peer, "completion-failing-prompt")
    offers_completion(peer)
    prompt = require_role(peer, "completion-failing-prompt")
    arguments = [a.get("name") for a in (prompt.listing or {}).get("arguments") or [] if isinstance(a, dict)]
    if not arguments:
        pytest.skip(f"fixture-missing: {prompt.name} lists no argument to complete")
    response = complete(peer, {"ref": prompt_ref(prompt.name), "argument": {"name": arguments[0], "value": ""}})
    code = refusal_code(response)
    assert code == INTERNAL_ERROR, f"completing {prompt.name}'s {arguments[0]}, which fails inside, got code {code}"


# -- the client side: the completions the client asks for, and what it makes of partial ones -----------

RunClient = Callable[[str], ClientRun]
PARTIAL = {"values": ["alpha", "alpine"], "total": 40, "hasMore": True}  # two values of forty
NONE_FOUND = {"values": []}  # nothing to suggest
COMPLETIONS = {"a": PARTIAL, "ab": NONE_FOUND}  # by the value typed (the driver's COMPLETED_VALUES)


def completing(server: ScriptedServer) -> None:
    """The scripted server declares prompts and completions (2025-03-26 on: 2024-11-05 has no completions
    capability) and answers completion/complete by the value typed (COMPLETIONS)."""
    capabilities: dict = {"tools": {}, "prompts": {}} | ({} if server.revision == "2024-11-05" else {"completions": {}})
    defaults = default_results(server.revision)
    discover = defaults["server/discover"]({}) | {"capabilities": capabilities}
    initialize = defaults["initialize"]({}) | {"capabilities": capabilities}
    complete = {"resultType": "complete"} if server.revision == "2026-07-28" else {}

    def answer(frame: dict) -> dict:
        value = ((frame.get("params") or {}).get("argument") or {}).get("value")
        return {"completion": dict(COMPLETIONS.get(value, NONE_FOUND))} | complete

    server.answers |= {"initialize": lambda _: initialize, "server/discover": lambda _: discover}
    server.answers["completion/complete"] = answer


@for_req("completion-client-partial-results", "client")
def test_the_client_copes_with_partial_and_empty_completions(
    revision: str, run_client: RunClient, scripted_server: ScriptedServer
) -> None:
    """Typing ``a`` gets two values of forty (``hasMore``), typing ``ab`` gets none: the client hands each
    answer to its application as it came (the two values; none) and goes on (its next request, the
    driver's listing of the tools, is sent)."""
    completing(scripted_server)
    run = run_client("complete_prompt_argument")

    def check() -> None:
        asked = [f for f in scripted_server.requests() if f.get("method") == "completion/complete"]
        precondition(len(asked) == len(COMPLETIONS), f"the client sent {len(asked)} completion requests: {asked}")
        reported = run.report("completions")
        precondition(isinstance(reported, dict), f"the client reported no completions:\n{run.output[-1500:]}")
        expected = {typed: answer["values"] for typed, answer in COMPLETIONS.items()}
        assert reported == expected, f"the server completed {expected}; the application got {reported}"
        methods = [f.get("method") for f in scripted_server.requests()]
        last = len(methods) - 1 - methods[::-1].index("completion/complete")
        assert methods[last + 1 :], "after the empty completion the client sent no further request"

    run.judge(check)
