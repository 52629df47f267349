"""Fixture roles: the behaviours a test needs from the implementation under test.

A test never calls a tool, prompt or resource by a name of its own choosing: it asks for a *role*
(``require_role(peer, "progress-tool")``) and calls what the target's profile binds to it. A
profile binds roles two ways (conformance/run/targets.py):

- ``roles:`` maps a role to the target's own name (``progress-tool: long_task``), or to
  ``{name: ..., arguments: {...}}`` when it must be called with other arguments than the role's;
- ``fixtures:`` lists the official conformance suite's fixture names the target offers (or ``all``).
  Each official name plays the roles ``ROLES`` gives it, and no more: only where the official
  suite (``@modelcontextprotocol/conformance``, its scenario descriptions and checks) demands that
  behaviour of an "everything" server. ``test_sampling`` asks the client to sample, but an
  official everything server may answer it with a plain result when the client cannot sample, so
  it does not play ``sampling-required-tool``; ``test_missing_capability`` does.

Names that are only the project's own fixture's (``test_timed_request``, ``test_cancellable_operation``,
...) play their roles only where a profile maps them under ``roles:``, as the default profile does.

A role the profile does not bind leaves the test ``fixture-missing``; one it binds to a name the
server does not list fails the test (the target lost it, or the profile is wrong).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conformance.harness.peer import Peer

KINDS = ("tool", "prompt", "resource", "resource-template")
LIST_OF_KIND = {  # the list request that names what a role of each kind is bound to, and the naming key
    "tool": ("tools/list", "tools", "name"),
    "prompt": ("prompts/list", "prompts", "name"),
    "resource": ("resources/list", "resources", "uri"),
    "resource-template": ("resources/templates/list", "resourceTemplates", "uriTemplate"),
}


@dataclass(frozen=True)
class Role:
    name: str
    kind: str  # one of KINDS
    behaviour: str  # what the implementation does, in one line
    arguments: Mapping[str, Any] = field(default_factory=dict)  # to call it with, unless the profile says
    official: str | None = None  # the official fixture name that plays it in the official everything servers


def _roles(*roles: Role) -> Mapping[str, Role]:
    return MappingProxyType({role.name: role for role in roles})


ROLES: Mapping[str, Role] = _roles(
    # -- tools: content and errors
    Role("simple-tool", "tool", "answers with text content, and nothing else happens", official="test_simple_text"),
    Role(
        "error-tool",
        "tool",
        "fails the way a tool fails: a result with isError true and a message, not a JSON-RPC error",
        official="test_error_handling",
    ),
    Role(
        "embedded-resource-tool",
        "tool",
        "answers with an embedded resource among its content",
        official="test_embedded_resource",
    ),
    Role("image-tool", "tool", "answers with image content", official="test_image_content"),
    Role("audio-tool", "tool", "answers with audio content", official="test_audio_content"),
    Role(
        "mixed-content-tool",
        "tool",
        "answers with content of several types (text, image, an embedded resource)",
        official="test_multiple_content_types",
    ),
    Role(
        "structured-tool",
        "tool",
        "declares an outputSchema and answers these arguments with structuredContent that conforms to it",
        {"a": 2, "b": 3},
    ),
    Role(
        "invalid-arguments-tool",
        "tool",
        "declares an inputSchema that these arguments break (so a server that validates inputs refuses the call)",
        {"a": "not a number"},
    ),
    Role(
        "header-params-tool",
        "tool",
        "declares inputs a 2026-07-28 client mirrors into Mcp-Param headers (x-mcp-header): region (a string, "
        "header Region), priority (an integer, header Priority) and options (an object, no header)",
    ),
    Role(
        "resource-link-tool",
        "tool",
        "answers with resource_link content pointing at a resource the server serves",
    ),
    Role(
        "dialect-2020-12-tool",
        "tool",
        "declares an inputSchema without $schema (so JSON Schema 2020-12) that these arguments break only by a "
        "keyword of 2020-12's own (prefixItems), which a draft-07 reading would pass over",
        {"pair": ["two", 2]},
    ),
    Role(
        "declared-dialect-tool",
        "tool",
        "declares an inputSchema with a $schema naming its dialect, which these arguments break under that "
        "dialect (the official fixture's: a property its additionalProperties: false forbids)",
        {"name": "mcp-matrix", "unexpected": True},
        official="json_schema_2020_12_tool",
    ),
    # -- tools: what a tool sends while it runs
    Role(
        "progress-tool",
        "tool",
        "reports progress while it runs when the request carries a progress token",
        official="test_tool_with_progress",
    ),
    Role(
        "logging-tool",
        "tool",
        "sends log messages (notifications/message) while it runs",
        official="test_tool_with_logging",
    ),
    Role(
        "leveled-logging-tool",
        "tool",
        "sends one log message (notifications/message) at each of the eight levels, debug to emergency, while it "
        "runs, leaving out those below the level the client asked for",
    ),
    Role(
        "slow-tool",
        "tool",
        "runs for a couple of seconds in steps, reporting progress at each when the request carries a token; "
        "a run_id argument names the run for cancellation-outcome-tool, steps how many",
        {"steps": 40},
    ),
    Role(
        "cancellation-outcome-tool",
        "tool",
        "tells how the slow-tool run named by run_id ended ('cancelled ...', 'completed ...'), once it has",
    ),
    Role(
        "reconnection-tool",
        "tool",
        "over Streamable HTTP closes its request's SSE stream before answering (SEP-1699), then answers",
        official="test_reconnection",
    ),
    Role(
        "get-stream-closer",
        "tool",
        "over Streamable HTTP closes the session's standalone GET stream without ending the session",
    ),
    # -- tools: requests to the client
    Role(
        "sampling-tool",
        "tool",
        "asks the client to sample (sampling/createMessage) when the client declared sampling",
        {"prompt": "Say hello"},
        official="test_sampling",
    ),
    Role(
        "task-sampling-tool",
        "tool",
        "at 2025-11-25 asks a client that declared tasks for sampling/createMessage (tasks.requests.sampling."
        "createMessage) with a sampling request augmented as a task, then follows the client's task",
        {"prompt": "Say hello"},
    ),
    Role(
        "input-task-tool",
        "tool",
        "at 2025-11-25 offers task execution (execution.taskSupport) and, called as a task by a client that "
        "declared elicitation, needs the client's answer (an elicitation/create of the task) before it can finish",
    ),
    Role(
        "sampling-required-tool",
        "tool",
        "cannot be served without the client's sampling capability, and is refused without it "
        "(at 2026-07-28 with -32021)",
        official="test_missing_capability",
    ),
    Role(
        "elicitation-tool",
        "tool",
        "asks the client for input (elicitation/create) when the client declared elicitation",
        {"message": "Who are you?"},
        official="test_elicitation",
    ),
    Role(
        "elicitation-defaults-tool",
        "tool",
        "asks the client for a form (elicitation/create) whose primitive fields carry defaults (SEP-1034) when "
        "the client declared elicitation",
        official="test_elicitation_sep1034_defaults",
    ),
    Role(
        "elicitation-enums-tool",
        "tool",
        "asks the client for a form (elicitation/create) with the enum shapes of SEP-1330 (single and multi "
        "select, titled and untitled, legacy enumNames) when the client declared elicitation",
        official="test_elicitation_sep1330_enums",
    ),
    Role(
        "url-elicitation-tool",
        "tool",
        "asks the user to open a page (a URL-mode elicitation/create, 2025-11-25 on) when the client declared "
        "url-mode elicitation; may announce the interaction's completion (notifications/elicitation/complete)",
    ),
    Role(
        "url-elicitation-required-tool",
        "tool",
        "cannot be served before a URL-mode elicitation completes, when the client declared url mode: at "
        "2025-11-25 refused with URLElicitationRequiredError (-32042) listing it",
    ),
    Role("roots-tool", "tool", "asks the client for its roots (roots/list) when the client declared roots"),
    Role(
        "roots-bounded-file-tool",
        "tool",
        "reads the text file its path argument names (an absolute path), and only one that lies under the client's "
        "roots; it asks for the roots (when the client declared roots) or takes them as the client gave them",
    ),
    Role(
        "sampling-tool-loop-tool",
        "tool",
        "runs a sampling tool loop when the client declared sampling.tools: offers a tool in sampling/createMessage, "
        "runs it each time the model asks, and sends its result back (the conversation so far) in the next request",
    ),
    Role(
        "request-state-tool",
        "tool",
        "at 2026-07-28 asks the client for input in an input_required result whose requestState its retry needs: "
        "the retry with the answers and that state completes, one without the state does not",
        official="test_input_required_result_request_state",
    ),
    Role(
        "single-use-state-tool",
        "tool",
        "at 2026-07-28 asks for a confirmation with a requestState that may be redeemed once (a one-time voucher): "
        "the retry with the answer and that state completes the first time, and only then",
    ),
    Role(
        "multi-round-tool",
        "tool",
        "at 2026-07-28 asks the client for input in two rounds, the second question depending on the first answer",
        official="test_input_required_result_multi_round",
    ),
    Role(
        "timed-request-tool",
        "tool",
        "sends the client the request named by its method argument (ping or roots/list) with a timeout of "
        "timeout seconds, and says how it ended",
    ),
    # -- tools: the server acting on its own
    Role(
        "tool-list-changer",
        "tool",
        "changes the tool list and announces it (notifications/tools/list_changed)",
        official="test_trigger_tool_change",
    ),
    Role(
        "prompt-list-changer",
        "tool",
        "changes the prompt list and announces it (notifications/prompts/list_changed)",
        official="test_trigger_prompt_change",
    ),
    Role(
        "resource-list-changer",
        "tool",
        "changes the resource list and announces it (notifications/resources/list_changed)",
    ),
    Role(
        "resource-updater",
        "tool",
        "announces an update of the updating-resource to the sessions and streams subscribed to it "
        "(notifications/resources/updated)",
    ),
    Role(
        "subscription-ender",
        "tool",
        "at 2026-07-28 tears down the subscriptions/listen streams open on the server",
    ),
    Role(
        "session-ender",
        "tool",
        "over stdio ends the session from the server's side just after answering (the server exits)",
    ),
    # -- MCP Apps (io.modelcontextprotocol/ui)
    Role(
        "app-tool",
        "tool",
        "renders an MCP App: listed, to a client that declared the Apps extension, with _meta.ui.resourceUri "
        "naming a ui:// resource the server serves (its Apps surface: a target that binds it has one)",
    ),
    # -- prompts
    Role("simple-prompt", "prompt", "a prompt taking no arguments", official="test_simple_prompt"),
    Role(
        "arguments-prompt",
        "prompt",
        "a prompt with two required arguments whose text quotes both",
        {"arg1": "alpha", "arg2": "beta"},
        official="test_prompt_with_arguments",
    ),
    Role(
        "embedded-resource-prompt",
        "prompt",
        "a prompt whose messages embed the resource its argument names",
        {"resourceUri": "test://static-text"},
        official="test_prompt_with_embedded_resource",
    ),
    Role(
        "image-prompt",
        "prompt",
        "a prompt taking no arguments whose messages hold image content",
        official="test_prompt_with_image",
    ),
    Role("audio-prompt", "prompt", "a prompt taking no arguments whose messages hold audio content"),
    Role(
        "input-required-prompt",
        "prompt",
        "a prompt that first asks the client for input (2026-07-28's input-required result) before answering",
        official="test_input_required_result_prompt",
    ),
    Role(
        "failing-prompt",
        "prompt",
        "a prompt whose get, with these arguments, fails inside the server (an internal error, not the client's)",
        {"reason": "mcp-matrix"},
    ),
    Role(
        "completion-failing-prompt",
        "prompt",
        "a prompt whose completion of its first argument fails inside the server (an internal error)",
    ),
    # -- resources
    Role(
        "updating-resource",
        "resource",
        "a resource a client may subscribe to, whose updates the resource-updater announces",
    ),
    Role(
        "static-text-resource",
        "resource",
        "a text resource that reads the same every time",
        official="test://static-text",
    ),
    Role(
        "failing-resource",
        "resource-template",
        "a resource template whose every read (any expansion of it) fails inside the server (an internal error)",
    ),
)

OFFICIAL_ROLES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        official: tuple(role.name for role in ROLES.values() if role.official == official)
        for official in {role.official for role in ROLES.values() if role.official}
    }
)


def roles_of_official(name: str) -> tuple[str, ...]:
    """The roles an official fixture name plays in the official everything servers (none: unknown name)."""
    return OFFICIAL_ROLES.get(name, ())


@dataclass(frozen=True)
class Binding:
    """A role as a target plays it: the name (a resource's URI) to call and the arguments to call it with."""

    role: str
    kind: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""  # where the binding comes from: "roles:" of the profile, or "fixtures: <official name>"
    listing: Mapping[str, Any] | None = None  # the server's list entry, once require_role has seen it

    def args(self, **extra: Any) -> dict[str, Any]:
        """The arguments to call it with, ``extra`` added or replacing."""
        return {**self.arguments, **extra}


def bind(role: str, name: str, arguments: Mapping[str, Any] | None = None, source: str = "roles:") -> Binding:
    """``role`` played by ``name``; the role's own arguments unless ``arguments`` are given."""
    known = ROLES[role]
    return Binding(role, known.kind, name, dict(known.arguments if arguments is None else arguments), source)


def bindings(fixtures: frozenset[str] | str, explicit: Mapping[str, Binding]) -> Mapping[str, Binding]:
    """Every role a profile binds: those its ``roles:`` name, and those its official fixture names play
    (``fixtures``: names, or ``"all"``); an explicit binding wins."""
    found: dict[str, Binding] = {}
    for role in ROLES.values():
        if role.official and (fixtures == "all" or role.official in fixtures):
            found[role.name] = bind(role.name, role.official, source=f"fixtures: {role.official}")
    found.update(explicit)
    return MappingProxyType(found)


# -- the lookups tests make ------------------------------------------------------------------------------


def bound(peer: Peer, role: str) -> Binding:
    """The profile's binding of ``role``; fixture-missing when the profile binds none. The server's
    list is not consulted: for a test whose requirement is itself about that list."""
    if role not in ROLES:
        raise KeyError(f"no role {role!r} (known: {', '.join(ROLES)})")
    binding = peer.roles.get(role)
    if binding is None:
        pytest.skip(f"fixture-missing: target's profile maps no {role}")
    return binding


def require_role(peer: Peer, role: str) -> Binding:
    """The profile's binding of ``role``, which the server lists (with its list entry): fixture-missing
    when the profile binds none, a failure when the server does not list the name it binds."""
    return require_roles(peer, role)[0]


def require_roles(peer: Peer, *roles: str) -> list[Binding]:
    """Every role of ``roles`` (see require_role); all are looked up before any is checked against the
    server's lists, so that a role the profile lacks is fixture-missing whatever else fails."""
    found = [bound(peer, role) for role in roles]
    return [_listed(peer, binding) for binding in found]


def optional_roles(peer: Peer, *roles: str) -> list[Binding]:
    """Those of ``roles`` the profile binds and the server lists to this session, for a test that uses
    whichever it finds (a server may offer a tool only to a client that declared what the tool needs)."""
    found = [_with_listing(peer, peer.roles[role]) for role in roles if role in peer.roles]
    return [binding for binding in found if binding.listing is not None]


def _listed(peer: Peer, binding: Binding) -> Binding:
    found = _with_listing(peer, binding)
    if found.listing is None:
        pytest.fail(
            f"the target's profile maps {binding.role} to the {binding.kind} {binding.name} ({binding.source}), "
            f"but the server does not list it in {LIST_OF_KIND[binding.kind][0]}"
        )
    return found


def _with_listing(peer: Peer, binding: Binding) -> Binding:
    """``binding`` with the server's list entry for its name (None: the server does not list it)."""
    method, key, naming = LIST_OF_KIND[binding.kind]
    listing = _list_entries(peer, method, key, naming).get(binding.name)
    return Binding(binding.role, binding.kind, binding.name, binding.arguments, binding.source, listing)


def _list_entries(peer: Peer, method: str, key: str, naming: str) -> dict[Any, dict]:
    """The entries of every page of ``method``, by name (one request per page; cursors followed)."""
    entries: dict[Any, dict] = {}
    params: dict[str, Any] | None = None
    for _ in range(50):
        result = peer.rpc(method, params, check=False).get("result") or {}
        for item in result.get(key) or []:
            if isinstance(item, dict):
                entries.setdefault(item.get(naming), item)
        cursor = result.get("nextCursor")
        if not cursor:
            break
        params = {"cursor": cursor}
    return entries
