"""The client driver of target fastmcp-client: fastmcp's ``Client`` (PyPI ``fastmcp``, pinned in
targets/requirements/fastmcp.txt; ``make targets`` installs it into .cache/targets/fastmcp), driven through one
scenario.

The contract is the one conformance/fixtures/client.py keeps (the official suite's way of running clients)::

    python fastmcp_client.py URL                          Streamable HTTP
    python fastmcp_client.py --transport sse URL          2024-11-05's HTTP+SSE (URL: the SSE endpoint)
    python fastmcp_client.py --transport stdio -- CMD...  stdio: the client launches CMD as its server

with the scenario's name in ``MCP_CONFORMANCE_SCENARIO`` and the revision the peer speaks in
``MCP_MATRIX_REVISION``. The scenarios are those of conformance/fixtures/client.py, written on fastmcp's public
``Client`` API only (never the SDK session underneath it); what the application is told is printed as
``mcp-matrix: <name> <JSON>``, and ``mcp-matrix: scenario completed`` ends a run that reached its end. A
scenario fastmcp's ``Client`` cannot run (it lacks the feature) prints ``mcp-matrix: scenario unsupported
<why>`` and exits 0: the suite reads it as fixture-missing.

It runs in fastmcp's own virtualenv and imports nothing of this project (the suite's values it needs are
repeated here, and the tests read them as the driver's).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import sys
import threading
import time
import webbrowser
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types
from fastmcp import Client
from fastmcp.client.transports import SSETransport, StdioTransport, StreamableHttpTransport

# The project's own host behaviour (what the user answers an elicitation with) is shared with the SDK's driver;
# it is standard library only, so this script, run in fastmcp's environment, imports it from the checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from conformance.fixtures.host import broken_answer, form_answer, trace_context

SCENARIO_VARIABLE = "MCP_CONFORMANCE_SCENARIO"
REVISION_VARIABLE = "MCP_MATRIX_REVISION"
SECOND_SERVER_VARIABLE = "MCP_MATRIX_SECOND_SERVER"  # aggregate_two_servers: the second server's URL
MODERN = "2026-07-28"
TIMEOUT_SECONDS = 10
# The values of conformance/fixtures/client.py, which the tests read as the driver's.
GIVE_UP_SECONDS = 0.5
SHORT_TIMEOUT_SECONDS = 0.5
SESSION_TIMEOUT_SECONDS = 1.5
PER_REQUEST_TIMEOUTS = (0.2, 0.8)
IDLE_SECONDS = 1.0
RETRIES = 3
RETRY_PAUSE_SECONDS = 0.2
TOUR_CANCEL_SECONDS = 0.15
LISTEN_WAIT_SECONDS = 1.0
MISSING_RESOURCE = "test://mcp-matrix/no-such-resource"
EXTENSION = "com.example.mcp-matrix/probe"
NON_ASCII_TEXT = "caf\u00e9 \u65e5\u672c\u8a9e \U0001f642 \U0001d11e"
HELLO = {"text": "hello"}


def say(line: str) -> None:
    print(f"mcp-matrix: {line}", flush=True)


async def quietly(request: Awaitable[object]) -> None:
    with contextlib.suppress(Exception):  # what the client does about it is on the wire and in its own logs
        await request


async def first_tool(client: Client) -> str:
    return (await client.list_tools())[0].name


async def initialize(client: Client) -> None:
    await client.list_tools()


async def tools_call(client: Client) -> None:
    await client.call_tool(await first_tool(client), HELLO, raise_on_error=False)


async def ping(client: Client) -> None:
    await client.ping()


async def cancel(client: Client) -> None:
    """Call a tool, and abandon the call when no answer has come soon (a cancelled scope)."""
    name = await first_tool(client)
    with anyio.move_on_after(GIVE_UP_SECONDS):
        await client.call_tool(name, HELLO, raise_on_error=False)


async def call_listed_tools(client: Client) -> None:
    for tool in await client.list_tools():
        for arguments in tool.input_schema.get("examples") or [{}]:
            try:
                await client.call_tool(tool.name, arguments, raise_on_error=False)
            except Exception as exc:
                say(f"tools/call {tool.name!r} failed: {exc!r}")


async def name_bearing_requests(client: Client) -> None:
    for tool in await client.list_tools():
        await client.call_tool(tool.name, {}, raise_on_error=False)
    for resource in await client.list_resources():
        await client.read_resource(str(resource.uri))
    for prompt in await client.list_prompts():
        await client.get_prompt(prompt.name)


async def read_then_list(client: Client) -> None:
    try:
        await client.read_resource(MISSING_RESOURCE)
    except Exception as exc:
        say(f"resources/read failed: {exc!r}")
    await client.list_tools()


async def concurrent_requests(client: Client) -> None:
    name = await first_tool(client)
    async with anyio.create_task_group() as group:
        group.start_soon(client.list_prompts)
        group.start_soon(client.list_resources)
        for _ in range(3):
            group.start_soon(lambda: client.call_tool(name, HELLO, raise_on_error=False))


async def rich(client: Client) -> None:
    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        pass

    name = await first_tool(client)
    await client.call_tool(name, HELLO, progress_handler=on_progress, raise_on_error=False)
    await client.list_prompts()
    await client.list_resources()


async def traced(client: Client) -> None:
    """``rich`` inside a W3C trace context (a sampled span, and baggage): fastmcp propagates it into ``_meta``."""
    with trace_context():
        await rich(client)


async def instructions(client: Client) -> None:
    say(f"instructions: {json.dumps(client.instructions)}")


async def unnegotiated_features(client: Client) -> None:
    await quietly(client.list_prompts())
    await quietly(client.list_resources())
    await quietly(client.set_logging_level("info"))


async def abandoned_call(client: Client, timeout: float | None = None, progress: bool = False) -> None:
    progress_seen: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress_seen.append(value)

    name = await first_tool(client)
    try:
        await client.call_tool(
            name, HELLO, timeout=timeout, progress_handler=on_progress if progress else None, raise_on_error=False
        )
        say("call answered")
    except Exception as exc:
        say(f"call failed: {type(exc).__name__}")
    if progress:
        say(f"progress notifications: {len(progress_seen)}")
    await client.list_prompts()


async def per_request_timeouts(client: Client) -> None:
    name = await first_tool(client)
    for timeout in PER_REQUEST_TIMEOUTS:
        await quietly(client.call_tool(name, HELLO, timeout=timeout, raise_on_error=False))
    await client.list_prompts()


async def ping_timeout(client: Client) -> None:
    """One ping that may go unanswered (the client's timeout is SHORT_TIMEOUT_SECONDS: CLIENT_OPTIONS), then
    the prompts. fastmcp's ``ping`` takes no timeout of its own: the client's applies."""
    await quietly(client.ping())
    await client.list_prompts()


async def ping_failures(client: Client) -> None:
    await quietly(client.ping())
    await quietly(client.ping())
    await client.list_prompts()


async def idle(client: Client) -> None:
    await client.list_tools()
    await anyio.sleep(IDLE_SECONDS)


async def non_ascii_call(client: Client) -> None:
    await client.call_tool(await first_tool(client), {"text": NON_ASCII_TEXT}, raise_on_error=False)


async def progress_then_result(client: Client) -> None:
    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        say(f"progress {progress:g}")

    result = await client.call_tool(await first_tool(client), HELLO, progress_handler=on_progress, raise_on_error=False)
    texts = [item.text for item in result.content if getattr(item, "type", None) == "text"]
    say(f"result {' '.join(texts)}")


async def outlive_crash(client: Client) -> None:
    await client.list_tools()
    for _ in range(RETRIES):
        await anyio.sleep(RETRY_PAUSE_SECONDS)
        try:
            await client.list_tools()
        except Exception as exc:
            say(f"tools/list after the crash failed: {exc!r}")
        else:
            say("tools/list after the crash answered")
            return


async def schema_tour(client: Client) -> None:
    """What fastmcp's ``Client`` writes that the peer provokes (it has no resource subscriptions, no
    subscriptions/listen); the answers to the peer's requests come from the handlers of ``tour_options``."""
    modern = client.protocol_version == MODERN

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        pass

    name = await first_tool(client)
    steps: list[Callable[[], Awaitable[object]]] = [
        lambda: client.call_tool(name, HELLO, progress_handler=on_progress, raise_on_error=False),
        client.list_resources,
        client.list_resource_templates,
        lambda: client.read_resource("test://static-text"),
        client.list_prompts,
        lambda: client.get_prompt("greeting"),
    ]
    if not modern:
        steps += [client.ping, lambda: client.set_logging_level("debug"), client.send_roots_list_changed]
    for step in steps:
        await quietly(step())
    with anyio.move_on_after(TOUR_CANCEL_SECONDS):  # the peer never answers: the client cancels it
        await quietly(
            client.complete(mcp_types.PromptReference(type="ref/prompt", name="greeting"), {"name": "who", "value": ""})
        )
    await anyio.sleep(0.05)  # the cancellation leaves before the connection closes


def tour_options() -> dict[str, Any]:
    async def sample(messages: Any, params: Any, context: Any) -> str:
        return "Hello"

    async def elicit(message: str, response_type: Any, params: Any, context: Any) -> dict[str, Any]:
        return {"name": "mcp-matrix"}

    return {
        "sampling_handler": sample,
        "roots": [mcp_types.Root(uri="file:///tmp/mcp-matrix", name="tour")],
        "elicitation_handler": elicit,
    }


def with_extension() -> dict[str, Any]:
    from mcp.client.extension import advertise  # the extension type fastmcp's Client takes (extensions=)

    return {"extensions": [advertise(EXTENSION, {})]}


def persisted_era() -> dict[str, Any]:
    capabilities = mcp_types.ServerCapabilities(tools=mcp_types.ToolsCapability())
    return {
        "prior_discover": mcp_types.DiscoverResult(supported_versions=[MODERN], capabilities=capabilities, ttl_ms=0)
    }


Scenario = Callable[[Client], Awaitable[None]]
SCENARIOS: dict[str, Scenario | str] = {  # a string: fastmcp's Client cannot run the scenario, and why
    "initialize": initialize,
    "tools_call": tools_call,
    "ping": ping,
    "cancel": cancel,
    "call_listed_tools": call_listed_tools,
    "name_bearing_requests": name_bearing_requests,
    "modern_only": initialize,  # by a client that speaks only 2026-07-28 (mode=MODERN: CONNECT_MODES)
    "read_then_list": read_then_list,
    "concurrent_requests": concurrent_requests,
    "rich": rich,
    "traced": traced,
    "with_extension": tools_call,  # by a client that advertises EXTENSION
    "persisted_era": initialize,  # by a client that starts from a kept 2026-07-28 era (prior_discover)
    "reconnect": initialize,  # twice: two connections one after the other
    "modern_tools_call": tools_call,  # by a client that speaks only 2026-07-28
    "instructions": instructions,
    "unnegotiated_features": unnegotiated_features,
    "session_timeout": abandoned_call,  # under the client's own timeout (SESSION_TIMEOUT_SECONDS)
    "request_timeout": lambda client: abandoned_call(client, SHORT_TIMEOUT_SECONDS),
    "per_request_timeouts": per_request_timeouts,
    "progress_timeout": lambda client: abandoned_call(client, SHORT_TIMEOUT_SECONDS, progress=True),
    "ping_timeout": ping_timeout,
    "ping_failures": ping_failures,
    "ping_slow_network": "fastmcp's Client.ping takes no timeout of its own (only the client's, one for every request)",
    "idle": idle,
    # fastmcp's Client takes no ping interval and sends no ping of its own: as in conformance/fixtures/client.py
    # (whose SDK has none either) the scenario cannot pass the setting on and idles as "idle" does.
    "keepalive": idle,
    "schema_tour": schema_tour,
    "non_ascii_call": non_ascii_call,
    "progress_then_result": progress_then_result,
    "two_subscriptions": "fastmcp's Client has no subscriptions/listen (2026-07-28's subscriptions)",
    "outlive_crash": outlive_crash,
}
CONNECT_MODES = {"modern_only": MODERN, "persisted_era": MODERN, "modern_tools_call": MODERN}
CLIENT_OPTIONS: dict[str, Callable[[], dict[str, Any]]] = {
    "with_extension": with_extension,
    "persisted_era": persisted_era,
    "session_timeout": lambda: {"timeout": SESSION_TIMEOUT_SECONDS},
    "ping_timeout": lambda: {"timeout": SHORT_TIMEOUT_SECONDS},
    "ping_failures": lambda: {"timeout": SHORT_TIMEOUT_SECONDS},
    "schema_tour": tour_options,
}
CONNECTIONS = {"reconnect": 2}


# -- the scenarios the other areas of issue #12 added to conformance/fixtures/client.py, on fastmcp's API -------

COMPLETED_VALUES = ("a", "ab")
PROGRESS_WAIT_SECONDS = 3.0
CONCURRENT_CALLS = 3
SAMPLING_HOLD_SECONDS = 2.0
SAMPLE_TEXT = "mcp-matrix sample"
SAMPLE_MODEL = "mcp-matrix-model"
TOOL_USE_ID = "mcp-matrix-use-1"
ROOTS = ["file:///tmp/mcp-matrix/project"]
CHANGED_ROOTS = ["file:///tmp/mcp-matrix/other-project"]
TRAVERSING_ROOT = "file:///tmp/mcp-matrix/project/../../../etc"
UNREACHABLE_ROOT = "file:///tmp/mcp-matrix/no-such-directory/gone"
STALE_AFTER_SECONDS = 0.05
CACHE_IDLE_SECONDS = 0.6
CACHED_RESOURCES = ("test://mcp-matrix/a", "test://mcp-matrix/b")
_held: dict[str, Any] = {}
_elicited: list[dict[str, Any]] = []
_roots = {"uris": list(ROOTS)}
_opened = {"connections": 0}


async def call_each_tool(client: Client) -> None:
    results: dict[str, str] = {}
    try:
        tools = await client.list_tools()
    except Exception as exc:
        say(f"tool-results {json.dumps({'tools/list': f'refused: {type(exc).__name__}: {exc}'})}")
        return
    for tool in tools:
        try:
            result = await client.call_tool(tool.name, {}, raise_on_error=False)
        except Exception as exc:
            results[tool.name] = f"refused: {type(exc).__name__}: {exc}"
        else:
            results[tool.name] = "error result" if result.is_error else "accepted"
    say(f"tool-results {json.dumps(results)}")


async def complete_prompt_argument(client: Client) -> None:
    completions: dict[str, Any] = {}
    for value in COMPLETED_VALUES:
        try:
            completion = await client.complete(
                mcp_types.PromptReference(type="ref/prompt", name="greeting"), {"name": "name", "value": value}
            )
        except Exception as exc:
            completions[value] = f"refused: {type(exc).__name__}: {exc}"
        else:
            completions[value] = list(completion.values)
    say(f"completions {json.dumps(completions)}")
    await client.list_tools()


async def paginated_lists(client: Client) -> None:
    """Every tool and prompt, as fastmcp gathers them (list_tools and list_prompts follow every nextCursor)."""
    tools = [tool.name for tool in await client.list_tools()]
    prompts = [prompt.name for prompt in await client.list_prompts()]
    say(f"listed {json.dumps({'tools': tools, 'prompts': prompts})}")


async def paginated_lists_reconnect(client: Client) -> None:
    _opened["connections"] += 1
    if _opened["connections"] == 1:
        await client.list_tools_mcp()
        say("listed the first page")
        return
    await paginated_lists(client)


UNLISTED_TOOL = "tool-4"


async def call_tool_by_name(client: Client) -> None:
    """Call a tool the application knows by name, without listing the tools first."""
    try:
        result = await client.call_tool(UNLISTED_TOOL, {}, raise_on_error=False)
    except Exception as exc:
        say(f"failed {json.dumps(type(exc).__name__)}")
        return
    say(f"result {json.dumps([getattr(item, 'text', None) for item in result.content])}")


async def logging_set_level(client: Client) -> None:
    await client.set_logging_level("warning")
    await client.list_tools()


async def call_then_list(client: Client) -> None:
    await tools_call(client)
    await client.list_tools()


async def url_elicitation_required(client: Client) -> None:
    from mcp.shared.exceptions import MCPError

    name = await first_tool(client)
    try:
        await client.call_tool(name, HELLO, raise_on_error=False)
        say("refused null")
    except MCPError as exc:
        data = exc.error.data if isinstance(exc.error.data, dict) else {}
        say(f"refused {json.dumps({'code': exc.error.code, 'elicitations': data.get('elicitations')})}")
    await client.list_tools()


async def roots_change(client: Client) -> None:
    name = await first_tool(client)
    await client.call_tool(name, HELLO, raise_on_error=False)
    _roots["uris"] = list(CHANGED_ROOTS)
    await client.send_roots_list_changed()
    await client.call_tool(name, {"text": "again"}, raise_on_error=False)


async def sampling_call(client: Client) -> None:
    name = await first_tool(client)
    try:
        await client.call_tool(name, HELLO, raise_on_error=False)
    except Exception as exc:
        say(f"call {json.dumps(f'failed: {type(exc).__name__}')}")
        return
    say('call "answered"')


def sampled() -> Any:
    content = mcp_types.TextContent(type="text", text=SAMPLE_TEXT)
    return mcp_types.CreateMessageResult(role="assistant", content=content, model=SAMPLE_MODEL, stop_reason="endTurn")


async def text_model(messages: Any, params: Any, context: Any) -> Any:
    return sampled()


async def tool_using_model(messages: Any, params: Any, context: Any) -> Any:
    tools = params.tools or []
    if not tools or (params.tool_choice is not None and params.tool_choice.mode == "none"):
        return sampled()
    required = (tools[0].input_schema or {}).get("required") or []
    use = mcp_types.ToolUseContent(
        type="tool_use", id=TOOL_USE_ID, name=tools[0].name, input=dict.fromkeys(required, "Paris")
    )
    return mcp_types.CreateMessageResultWithTools(
        role="assistant", content=[use], model=SAMPLE_MODEL, stop_reason="toolUse"
    )


async def rejecting_user(messages: Any, params: Any, context: Any) -> Any:
    """The user rejects: fastmcp's handler can only raise (an MCPError with the code of a user's rejection, -1)."""
    from mcp.shared.exceptions import MCPError

    raise MCPError(-1, "User rejected sampling request")


async def failing_model(messages: Any, params: Any, context: Any) -> Any:
    raise RuntimeError("mcp-matrix: the model is unavailable")


def sampling_options(model: Callable[..., Awaitable[Any]], tools: bool = False) -> Callable[[], dict[str, Any]]:
    def options() -> dict[str, Any]:
        declared = mcp_types.SamplingCapability(tools=mcp_types.SamplingToolsCapability() if tools else None)
        return {"sampling_handler": model, "sampling_capabilities": declared}

    return options


def elicitation_options(
    action: str, answer: Callable[[dict[str, Any] | None], dict[str, Any]] = form_answer
) -> Callable[[], dict[str, Any]]:
    from fastmcp.client.elicitation import ElicitResult

    async def elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
        seen = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        _elicited.append({key: value for key, value in seen.items() if key != "_meta"})
        say(f"elicited {json.dumps(_elicited)}")
        ids = {e["message"]: e["elicitationId"] for e in _elicited if "elicitationId" in e}
        if ids:
            say(f"elicitation-ids {json.dumps(ids)}")
        schema = getattr(params, "requested_schema", None)
        if action == "accept" and schema is not None:
            return ElicitResult(action="accept", content=answer(schema))
        return ElicitResult(action=action)

    return lambda: {"elicitation_handler": elicit}


def roots_options(uris: Callable[[], list[str]]) -> Callable[[], dict[str, Any]]:
    async def roots(context: Any) -> list[mcp_types.Root]:
        return [mcp_types.Root(uri=uri, name=uri.rsplit("/", 1)[-1]) for uri in uris()]

    def options() -> dict[str, Any]:
        for uri in ROOTS + CHANGED_ROOTS:
            os.makedirs(uri.removeprefix("file://"), exist_ok=True)
        return {"roots": roots}

    return options


def failing_roots_options() -> dict[str, Any]:
    async def roots(context: Any) -> list[mcp_types.Root]:
        raise RuntimeError("mcp-matrix: the host's roots store is unreachable")

    return {"roots": roots}


async def abandon_at_first_progress(client: Client, name: str, seen: anyio.Event | None = None) -> str:
    progressed = anyio.Event()
    outcome = "abandoned"

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        progressed.set()

    async def call(group: Any) -> None:
        nonlocal outcome
        try:
            await client.call_tool(name, HELLO, progress_handler=on_progress, raise_on_error=False)
            outcome = "answered"
        except Exception as exc:
            outcome = f"failed: {type(exc).__name__}"
        group.cancel_scope.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(call, group)
        with anyio.move_on_after(PROGRESS_WAIT_SECONDS):
            await progressed.wait()
            if seen is not None:
                seen.set()
                await anyio.sleep_forever()
        group.cancel_scope.cancel()
    return outcome


async def cancel_on_progress(client: Client) -> None:
    outcome = await abandon_at_first_progress(client, await first_tool(client))
    after = [tool.name for tool in await client.list_tools()]
    say(f"calls {json.dumps({'abandoned': outcome, 'after': after})}")


async def concurrent_progress(client: Client) -> None:
    name = await first_tool(client)
    events = [anyio.Event() for _ in range(CONCURRENT_CALLS)]
    async with anyio.create_task_group() as group:
        for event in events:
            group.start_soon(abandon_at_first_progress, client, name, event)
        with anyio.move_on_after(PROGRESS_WAIT_SECONDS):
            for event in events:
                await event.wait()
        group.cancel_scope.cancel()
    await client.list_tools()


def held_sampling_options() -> dict[str, Any]:
    import logging

    logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, force=True)
    _held.update(outcome="never asked", settled=anyio.Event())

    async def sample(messages: Any, params: Any, context: Any) -> str:
        _held["outcome"] = "started"
        try:
            with anyio.move_on_after(SAMPLING_HOLD_SECONDS):
                await anyio.sleep_forever()
            _held["outcome"] = "answered"
            return "Hello"
        except anyio.get_cancelled_exc_class():
            _held["outcome"] = "cancelled"
            raise
        finally:
            _held["settled"].set()

    return {"sampling_handler": sample}


async def cancelled_sampling(client: Client) -> None:
    await client.call_tool(await first_tool(client), HELLO, raise_on_error=False)
    await anyio.sleep(0)
    if _held["outcome"] == "started":
        with anyio.move_on_after(SAMPLING_HOLD_SECONDS + 1):
            await _held["settled"].wait()
    say(f"sampling {json.dumps(_held['outcome'])}")
    await client.list_tools()


async def abandoned_handshake(transport: Any, mode: str, options: dict[str, Any]) -> None:
    outcome = "completed"
    with anyio.move_on_after(GIVE_UP_SECONDS) as scope:
        async with Client(transport, mode=mode, **options):
            pass
    if scope.cancelled_caught:
        outcome = "abandoned"
    say(f"handshake {json.dumps(outcome)}")


async def listed_or_failed(client: Client) -> Any:
    try:
        return [tool.name for tool in await client.list_tools()]
    except Exception as exc:
        return f"failed: {type(exc).__name__}"


async def list_twice(client: Client) -> None:
    say(f"listed {json.dumps([await listed_or_failed(client), await listed_or_failed(client)])}")


async def list_after_expiry(client: Client) -> None:
    first = await listed_or_failed(client)
    await anyio.sleep(STALE_AFTER_SECONDS)
    say(f"listed {json.dumps([first, await listed_or_failed(client)])}")


async def read_resources(client: Client) -> None:
    read: dict[str, list[Any]] = {uri: [] for uri in CACHED_RESOURCES}
    for uri in (*CACHED_RESOURCES, CACHED_RESOURCES[0]):
        try:
            contents = await client.read_resource(uri)
            read[uri].append([getattr(item, "text", None) for item in contents])
        except Exception as exc:
            read[uri].append(f"failed: {type(exc).__name__}")
    say(f"read {json.dumps(read)}")


async def idle_after_list(client: Client) -> None:
    await client.list_tools()
    await anyio.sleep(CACHE_IDLE_SECONDS)


async def list_call_list(client: Client) -> None:
    name = await first_tool(client)
    await quietly(client.call_tool(name, HELLO, raise_on_error=False))
    await client.list_tools()


async def paged_lists_thrice(client: Client) -> None:
    traversals: list[Any] = [await listed_or_failed(client) for _ in range(3)]
    say(f"traversals {json.dumps(traversals)}")


SAMPLING = {
    "sampling": (text_model, False),
    "sampling_with_tools": (tool_using_model, True),
    "sampling_user_rejects": (rejecting_user, False),
    "sampling_model_fails": (failing_model, False),
}
SCENARIOS.update(
    {
        "call_each_tool": call_each_tool,
        "complete_prompt_argument": complete_prompt_argument,
        "paginated_lists": paginated_lists,
        "paginated_lists_reconnect": paginated_lists_reconnect,
        "logging_set_level": logging_set_level,
        "call_tool_by_name": call_tool_by_name,
        "elicitation_accept": call_then_list,
        "elicitation_decline": call_then_list,
        "elicitation_invalid_answer": call_then_list,
        "elicitation_form_only": "fastmcp's Client declares elicitation in both modes whenever it has a handler",
        "url_elicitation_required": url_elicitation_required,
        "roots_list": call_then_list,
        "roots_change": roots_change,
        "roots_traversal": call_then_list,
        "roots_unreachable": call_then_list,
        "roots_failing": call_then_list,
        **dict.fromkeys(SAMPLING, sampling_call),
        "cancel_on_progress": cancel_on_progress,
        "concurrent_progress": concurrent_progress,
        "cancelled_sampling": cancelled_sampling,
        "abandoned_handshake": initialize,  # run by OWN_CONNECTION: the handshake is all there is
        "report_progress": "fastmcp's sampling handler has no way to report progress of its own",
        "cancelled_subscription": "fastmcp's Client has no subscriptions/listen (2026-07-28's subscriptions)",
        "listen_partly_honoured": "fastmcp's Client has no subscriptions/listen (2026-07-28's subscriptions)",
        "listen_through_crash": "fastmcp's Client has no subscriptions/listen (2026-07-28's subscriptions)",
        "list_twice": list_twice,
        "list_after_expiry": list_after_expiry,
        "read_resources": read_resources,
        "idle_after_list": idle_after_list,
        "list_call_list": list_call_list,
        "paged_lists_thrice": paged_lists_thrice,
    }
)
CLIENT_OPTIONS.update(
    {
        **{name: sampling_options(*model) for name, model in SAMPLING.items()},
        "elicitation_accept": elicitation_options("accept"),
        "elicitation_decline": elicitation_options("decline"),
        "elicitation_invalid_answer": elicitation_options("accept", broken_answer),
        "url_elicitation_required": elicitation_options("accept"),
        "roots_list": roots_options(lambda: list(ROOTS)),
        "roots_change": roots_options(lambda: list(_roots["uris"])),
        "roots_traversal": roots_options(lambda: [TRAVERSING_ROOT]),
        "roots_unreachable": roots_options(lambda: [*ROOTS, UNREACHABLE_ROOT]),
        "roots_failing": failing_roots_options,
        "cancelled_sampling": held_sampling_options,
    }
)
CONNECTIONS["paginated_lists_reconnect"] = 2


# -- multi round-trip requests, the core patterns, caching across contexts, aggregation, tasks (issue #12) ------

MRTR_TOOL = "ask"
MRTR_OTHER_TOOL = "echo"
MRTR_WAIT_SECONDS = 3.0
CONTEXT_TOKENS = {"alice": "mcp-matrix-token-alice", "bob": "mcp-matrix-token-bob"}
# fastmcp's ClientGroup names each server as the host configured it (an MCPConfig key): these are the host's.
AGGREGATED_SERVERS = ("first", "second")
NO_TASKS = (
    "fastmcp's Client (4.2.3) offers no 2025-11-25 tasks: no task-augmented tools/call, no tasks/get, tasks/result,"
    " tasks/list or tasks/cancel (its tasks are the io.modelcontextprotocol/tasks extension of fastmcp-tasks)"
)
_mrtr: dict[str, Any] = {}


def mrtr_options() -> dict[str, Any]:
    """The handlers of ``tour_options`` answer the input requests an input_required result embeds (fastmcp's
    Client drives the retries); in ``mrtr_parallel_request`` the elicitation answer waits until the scenario's
    other request is answered."""
    options = tour_options()
    answer = options["elicitation_handler"]

    async def elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
        if "asked" in _mrtr:
            _mrtr["asked"].set()
            with anyio.move_on_after(MRTR_WAIT_SECONDS):
                await _mrtr["released"].wait()
        return await answer(message, response_type, params, context)

    return options | {"elicitation_handler": elicit}


def parallel_options() -> dict[str, Any]:
    _mrtr.update(asked=anyio.Event(), released=anyio.Event())
    return mrtr_options()


def texts_of(content: Any) -> list[Any]:
    return [getattr(item, "text", None) for item in content]


async def mrtr_tool_call(client: Client) -> None:
    try:
        result = await client.call_tool(MRTR_TOOL, HELLO, raise_on_error=False)
    except Exception as exc:
        say(f"failed {json.dumps(type(exc).__name__)}")
        return
    say(f"result {json.dumps(texts_of(result.content))}")


async def mrtr_parallel_request(client: Client) -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(mrtr_tool_call, client)
        with anyio.move_on_after(MRTR_WAIT_SECONDS):
            await _mrtr["asked"].wait()
        try:
            await client.call_tool(MRTR_OTHER_TOOL, {"text": "in parallel"}, raise_on_error=False)
        finally:
            _mrtr["released"].set()


async def read_after_input(client: Client) -> None:
    texts: list[Any] = []
    for _ in range(2):
        try:
            texts.append(texts_of(await client.read_resource(CACHED_RESOURCES[0])))
        except Exception as exc:
            texts.append(f"failed: {type(exc).__name__}")
    say(f"read {json.dumps(texts)}")


async def core_patterns(client: Client) -> None:
    """A request and its response, then a multi round-trip request; fastmcp's Client has no
    subscriptions/listen, so the application has no way to subscribe: nothing is delivered."""
    tools = [tool.name for tool in await client.list_tools()]
    result = await client.call_tool(MRTR_TOOL, HELLO, raise_on_error=False)
    say(f"patterns {json.dumps({'tools': tools, 'result': texts_of(result.content), 'delivered': None})}")


def http_url(transport: Any, scenario: str) -> str:
    if not isinstance(transport, StreamableHttpTransport):
        sys.exit(f"{scenario} runs over Streamable HTTP only")
    return transport.url


async def lists_in_two_contexts(transport: Any, mode: str, options: dict[str, Any]) -> None:
    """Two users, each with a bearer token of its own, their clients sharing fastmcp's response cache store
    (a partition per user, public results shared): alice lists the tools, then bob does."""
    from fastmcp.client.caching import KeyValueResponseCacheStore
    from mcp.client.caching import CacheConfig

    url = http_url(transport, "lists_in_two_contexts")
    store = KeyValueResponseCacheStore()
    listed: dict[str, Any] = {}
    for user, token in CONTEXT_TOKENS.items():
        cache = CacheConfig(store=store, partition=user, target_id=url, share_public=True)
        async with Client(StreamableHttpTransport(url, auth=token), mode=mode, cache=cache, **options) as own:
            listed[user] = await listed_or_failed(own)
    say(f"listed {json.dumps(listed)}")


async def aggregate_two_servers(transport: Any, mode: str, options: dict[str, Any]) -> None:
    """Connections to the peer and to the second server aggregated by fastmcp's ClientGroup; every tool it offers
    called once."""
    from fastmcp import ClientGroup

    first = http_url(transport, "aggregate_two_servers")
    urls = (first, os.environ.get(SECOND_SERVER_VARIABLE, first))  # the second server's URL, given beside the first
    clients = {
        name: Client(StreamableHttpTransport(url), mode=mode, **options)
        for name, url in zip(AGGREGATED_SERVERS, urls, strict=True)
    }
    async with ClientGroup(clients) as group:
        try:
            tools = [tool.name for tool in await group.list_tools()]
        except Exception as exc:
            say(f"aggregated {json.dumps({'refused': f'{type(exc).__name__}: {exc}'})}")
            return
        calls: dict[str, str] = {}
        for name in tools:
            try:
                await group.call_tool(name, {}, raise_on_error=False)
                calls[name] = "answered"
            except Exception as exc:
                calls[name] = f"failed: {type(exc).__name__}: {exc}"
        say(f"aggregated {json.dumps({'tools': tools, 'calls': calls})}")


# -- authorization: fastmcp's OAuth provider, the user's browser a scripted one -----------------------------------

TOKEN_WAIT_SECONDS = 2.0  # the longest access-token lifetime ``oauth_refresh`` waits out
TOKEN_MARGIN_SECONDS = 0.2  # waited beyond it
CALLBACK_POLL_SECONDS = 0.05


class ScriptedBrowser(webbrowser.BaseBrowser):
    """The user's browser, registered with the standard library's ``webbrowser`` that fastmcp's OAuth opens: it
    fetches the authorization URL (the harness's authorization server approves at once) and takes the redirect
    it answers with to fastmcp's own callback listener, as a browser would."""

    def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
        threading.Thread(target=self.follow, args=(url,), daemon=True).start()
        return True

    def follow(self, url: str) -> None:
        import httpx2

        with httpx2.Client(timeout=TIMEOUT_SECONDS) as http:
            location = http.get(url).headers.get("location")
            if location is None:
                say(f"the authorization endpoint did not redirect: {url}")
                return
            deadline = time.monotonic() + TIMEOUT_SECONDS
            while True:
                try:
                    http.get(location)
                    return
                except httpx2.ConnectError:
                    if time.monotonic() > deadline:
                        raise
                    # fastmcp opens its callback listener once the browser is opened: no event says when
                    time.sleep(CALLBACK_POLL_SECONDS)


async def oauth_flow(transport: Any, mode: str, options: dict[str, Any], outlive_token: bool = False) -> None:
    """Connect through fastmcp's OAuth (discovery, dynamic registration, authorization code with PKCE, the
    browser approving), list the tools, and tell what was granted; with ``outlive_token`` (``oauth_refresh``)
    wait out the access token's lifetime as ``expires_in`` states it (at most TOKEN_WAIT_SECONDS) and list
    the tools again."""
    from fastmcp.client.auth import OAuth
    from key_value.aio.stores.memory import MemoryStore

    if not isinstance(transport, StreamableHttpTransport):
        say("scenario unsupported this driver plays authorization over Streamable HTTP only")
        return
    webbrowser.register("mcp-matrix", None, ScriptedBrowser(), preferred=True)
    oauth = OAuth(
        client_name="mcp-matrix client driver",
        token_storage=MemoryStore(),
        callback_host="127.0.0.1",
        callback_timeout=TIMEOUT_SECONDS,
    )
    async with Client(StreamableHttpTransport(transport.url, auth=oauth), mode=mode, **options) as client:
        tools = await client.list_tools()
        tokens = await oauth.token_storage_adapter.get_tokens()
        lifetime = tokens.expires_in if tokens else None
        if outlive_token and lifetime is not None and lifetime <= TOKEN_WAIT_SECONDS:
            await anyio.sleep(lifetime + TOKEN_MARGIN_SECONDS)
            tools = await client.list_tools()
        tokens = await oauth.token_storage_adapter.get_tokens()
    scope = tokens.scope if tokens else None
    say(f"oauth {json.dumps({'tools': len(tools), 'scope': scope, 'lifetime': lifetime})}")


SCENARIOS.update(
    {
        "mrtr_tool_call": mrtr_tool_call,
        "mrtr_parallel_request": mrtr_parallel_request,
        "read_after_input": read_after_input,
        "core_patterns": core_patterns,
        "lists_in_two_contexts": initialize,  # run by OWN_CONNECTION: two clients of their own
        "aggregate_two_servers": initialize,  # run by OWN_CONNECTION: two connections, one group
        "oauth_flow": initialize,  # run by OWN_CONNECTION, as is oauth_refresh: the client authorizes itself
        "oauth_refresh": initialize,
        **dict.fromkeys(("task_tool_calls", "task_list", "cancel_task"), NO_TASKS),
        **dict.fromkeys(
            ("sampling_task_receiver", "sampling_task_receiver_model_fails"),
            "fastmcp's Client declares no tasks capability: it takes no task-augmented sampling",
        ),
    }
)
CLIENT_OPTIONS.update(
    {
        "mrtr_tool_call": mrtr_options,
        "mrtr_parallel_request": parallel_options,
        "read_after_input": mrtr_options,
        "core_patterns": mrtr_options,
    }
)
OWN_CONNECTION = {
    "abandoned_handshake": abandoned_handshake,
    "lists_in_two_contexts": lists_in_two_contexts,
    "aggregate_two_servers": aggregate_two_servers,
    "oauth_flow": oauth_flow,
    "oauth_refresh": functools.partial(oauth_flow, outlive_token=True),
}


def transport_for(argv: list[str]) -> Callable[[], Any]:
    parser = argparse.ArgumentParser(prog="fastmcp_client.py")
    parser.add_argument("--transport", choices=("streamable-http", "stdio", "sse"), default="streamable-http")
    parser.add_argument("target", nargs="+", help="the peer's URL, or the command that starts it")
    options = parser.parse_args(argv)
    if options.transport == "stdio":
        command, *args = options.target
        return lambda: StdioTransport(command, args)
    if len(options.target) != 1:
        parser.error("Streamable HTTP and HTTP+SSE take exactly one URL")
    url = options.target[0]
    return (lambda: SSETransport(url)) if options.transport == "sse" else (lambda: StreamableHttpTransport(url))


async def run(transport: Callable[[], Any], scenario: Scenario, name: str, revision: str) -> None:
    with anyio.fail_after(TIMEOUT_SECONDS):
        mode = CONNECT_MODES.get(name) or ("auto" if revision == MODERN else "legacy")
        for _ in range(CONNECTIONS.get(name, 1)):
            options = {"timeout": TIMEOUT_SECONDS} | (CLIENT_OPTIONS[name]() if name in CLIENT_OPTIONS else {})
            if name in OWN_CONNECTION:
                await OWN_CONNECTION[name](transport(), mode, options)
                continue
            async with Client(transport(), mode=mode, **options) as client:
                await scenario(client)


def main() -> None:
    transport = transport_for(sys.argv[1:])
    name = os.environ.get(SCENARIO_VARIABLE, "initialize")
    scenario = SCENARIOS.get(name, f"fastmcp_client.py implements no scenario {name!r} (yet)")
    if isinstance(scenario, str):
        say(f"scenario unsupported {scenario}")
        return
    anyio.run(run, transport, scenario, name, os.environ.get(REVISION_VARIABLE, "2025-11-25"))
    say("scenario completed")


if __name__ == "__main__":
    main()
