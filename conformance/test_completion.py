"""Completion, server side: the capability and the answers to ``completion/complete``.

Each test holds the server under test to one requirement of docs/spec/requirements.md
(completion), at every revision its cover claims (see coverage/completion.py). The completion
asked for is of an argument of the first listed prompt that has arguments (the official suite's
``test_prompt_with_arguments`` on the fixture server).
"""

from __future__ import annotations

import pytest

from conformance.harness.frames import BOTH_TRANSPORTS
from conformance.harness.peer import Peer
from conformance.harness.surface import list_items, offers, server_capabilities
from conformance.matrix.covers import for_req

UNKNOWN_PROMPT = "mcp-matrix-no-such-prompt"
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


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


@for_req("completion-unsupported-method-not-found", "server", transports=BOTH_TRANSPORTS)
def test_a_server_without_completion_answers_minus_32601(revision: str, transport: str, peer: Peer) -> None:
    if "completions" in server_capabilities(peer):
        pytest.skip("fixture-missing: the server supports completion")
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
