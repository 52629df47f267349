"""A server on fastmcp's public API (the version pinned in targets/requirements/fastmcp.txt), put under test
by targets/fastmcp.yaml. It is written as a fastmcp user would write one, under its own names, and exposes
a reasonably rich surface: tools (one that reports progress, a slow one, one that changes the tool list, one
that logs, one with structured output), resources (text, binary, a template), prompts, argument completion
and logging. Lists are paged (fastmcp's ``list_page_size``) so that cursors are exercised.

Runs in the fastmcp virtualenv that ``make targets`` creates (``.cache/targets/fastmcp``)::

    .cache/targets/fastmcp/bin/python targets/servers/fastmcp_everything.py              # stdio
    .cache/targets/fastmcp/bin/python targets/servers/fastmcp_everything.py --transport http --port 8000

Over HTTP it binds 127.0.0.1 only; the port comes from ``--port`` or ``$PORT``; the endpoint is ``/mcp``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from dataclasses import dataclass

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.prompts import Message

LOOPBACK = "127.0.0.1"
PAGE_SIZE = 4
NOTES = {"groceries": "eggs, milk, bread", "todo": "write the report", "ideas": "a conformance matrix"}
LOGO_PNG = bytes.fromhex(  # a 1x1 transparent PNG
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082"
)

mcp = FastMCP(
    "fastmcp-everything",
    instructions="A demonstration server: notes, arithmetic, slow work and a tool that unlocks another.",
    version="1.0.0",
    list_page_size=PAGE_SIZE,
)


# Tools


@mcp.tool
def echo(text: str) -> str:
    """Say the text back."""
    return text


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@dataclass
class Weather:
    city: str
    celsius: float
    conditions: str


@mcp.tool
def weather(city: str) -> Weather:
    """Made-up weather for a city (structured output)."""
    return Weather(city=city, celsius=21.5, conditions="sunny")


@mcp.tool
async def count_down(steps: int = 5, ctx: Context | None = None) -> str:
    """Count down, reporting progress at each step."""
    assert ctx is not None
    for done in range(1, steps + 1):
        await ctx.report_progress(progress=done, total=steps, message=f"step {done} of {steps}")
        await asyncio.sleep(0.05)
    return f"counted down {steps} steps"


@mcp.tool
async def sleep(seconds: float = 30.0) -> str:
    """Wait, doing nothing, for the given number of seconds (cancel it to stop early)."""
    await asyncio.sleep(seconds)
    return f"slept {seconds} seconds"


@mcp.tool
async def chatty(ctx: Context | None = None) -> str:
    """Send log messages at several levels to the client, then answer."""
    assert ctx is not None
    await ctx.debug("chatty: a debug message")
    await ctx.info("chatty: an info message")
    await ctx.warning("chatty: a warning")
    await ctx.error("chatty: an error")
    return "logged four messages"


@mcp.tool
def fail(reason: str = "asked to fail") -> str:
    """Always fails, as a tool error."""
    raise ValueError(reason)


@mcp.tool
def secret_handshake() -> str:
    """Only listed after unlock_secret_handshake was called in the session."""
    return "🤝"


mcp.disable(names={"secret_handshake"})


@mcp.tool
async def unlock_secret_handshake(ctx: Context | None = None) -> str:
    """Add secret_handshake to this session's tools (the server announces the changed tool list)."""
    assert ctx is not None
    await ctx.enable_components(names={"secret_handshake"}, components={"tool"})
    return "secret_handshake is now available"


# Resources


@mcp.resource("notes://readme", name="readme", mime_type="text/plain")
def readme() -> str:
    """What this server is."""
    return "A demonstration server built on fastmcp."


@mcp.resource("notes://logo.png", name="logo", mime_type="image/png")
def logo() -> bytes:
    """A tiny image (binary contents)."""
    return LOGO_PNG


@mcp.resource("notes://settings", name="settings", mime_type="application/json")
def settings() -> dict:
    """The server's settings as JSON."""
    return {"page_size": PAGE_SIZE, "notes": sorted(NOTES)}


@mcp.resource("notes://notes/{topic}", name="note", mime_type="text/plain")
def note(topic: str) -> str:
    """One note by topic."""
    if topic not in NOTES:
        raise ValueError(f"no note about {topic!r}")
    return NOTES[topic]


# Prompts


@mcp.prompt
def greeting() -> str:
    """A friendly opener."""
    return "Say hello to the user."


@mcp.prompt
def summarize(text: str, style: str = "short") -> str:
    """Ask for a summary of the text."""
    return f"Summarise this in a {style} style:\n\n{text}"


@mcp.prompt
def review_note(topic: str) -> list[Message]:
    """A conversation about one note."""
    return [
        Message(f"Here is my note about {topic}: {NOTES.get(topic, '(none)')}"),
        Message("What should I change?", role="assistant"),
    ]


# Completion of prompt arguments and template parameters


@mcp.completion
def complete(
    ref: mcp_types.PromptReference | mcp_types.ResourceTemplateReference,
    argument: mcp_types.CompletionArgument,
    context: mcp_types.CompletionContext | None,
) -> list[str] | None:
    if argument.name == "topic":
        return [topic for topic in sorted(NOTES) if topic.startswith(argument.value)]
    if argument.name == "style":
        return [style for style in ("short", "detailed", "bullet points") if style.startswith(argument.value)]
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    args = parser.parse_args()
    if args.transport == "stdio":
        mcp.run("stdio", show_banner=False)
    else:
        mcp.run("http", host=LOOPBACK, port=args.port, path="/mcp", show_banner=False)


if __name__ == "__main__":
    main()
