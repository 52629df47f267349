"""The fixed words of the matrix: revisions, sides, levels and areas (DESIGN.md "Vocabulary")."""

from __future__ import annotations

import re
from dataclasses import dataclass

REVISIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
SIDES: tuple[str, ...] = ("server", "client")
LEVELS: tuple[str, ...] = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")

# RFC 2119 / RFC 8174 synonyms, normalised to the five levels above.
LEVEL_SYNONYMS: dict[str, str] = {
    "MUST": "MUST",
    "REQUIRED": "MUST",
    "SHALL": "MUST",
    "MUST NOT": "MUST NOT",
    "SHALL NOT": "MUST NOT",
    "SHOULD": "SHOULD",
    "RECOMMENDED": "SHOULD",
    "SHOULD NOT": "SHOULD NOT",
    "NOT RECOMMENDED": "SHOULD NOT",
    "MAY": "MAY",
    "OPTIONAL": "MAY",
}

# Longest alternatives first so that "MUST NOT" is one keyword, not "MUST".
KEYWORD_PATTERN = re.compile(
    r"\b(MUST NOT|SHALL NOT|SHOULD NOT|NOT RECOMMENDED|MUST|REQUIRED|SHALL|SHOULD|RECOMMENDED|MAY|OPTIONAL)\b"
)

# One section of docs/spec/requirements.md per area; a requirement id starts with its area.
AREAS: tuple[str, ...] = (
    "architecture",
    "security",
    "messages",
    "errors",
    "meta",
    "schema",
    "json-schema",
    "icons",
    "versioning",
    "lifecycle",
    "transports",
    "stdio",
    "streamable-http",
    "http-sse",
    "authorization",
    "ping",
    "cancellation",
    "progress",
    "pagination",
    "logging",
    "completion",
    "tasks",
    "caching",
    "mrtr",
    "subscriptions",
    "tools",
    "resources",
    "prompts",
    "roots",
    "sampling",
    "elicitation",
    "apps",
)


@dataclass(frozen=True)
class Extension:
    """An MCP extension catalogued in its own area from its own pinned specification.

    ``name`` prefixes its locators (``ext-apps:2026-01-26/apps#...``) and names its lock section, its
    mirror (``../shared/mcp-<name>``) and its cache folder. ``applies_at`` maps each of its revisions
    (oldest first) to the MCP revisions, the matrix's revision axis, at which that revision's rows
    apply; a revision mapped to none (a draft) is swept but kept out of the matrix.
    """

    name: str
    area: str
    repository: str
    applies_at: dict[str, tuple[str, ...]]

    @property
    def revisions(self) -> tuple[str, ...]:
        return tuple(self.applies_at)

    def page_url(self, revision: str, page: str, anchor: str) -> str:
        fragment = f"#{anchor}" if anchor else ""
        return f"https://github.com/{self.repository}/blob/main/specification/{revision}/{page}.mdx{fragment}"


# MCP Apps: its stable revision uses `_meta` on Tool, Resource and resource contents (to link a tool to its
# UI and to carry the UI's security metadata), which the MCP schema defines from 2025-06-18 on; the draft
# is kept out of the matrix (docs/spec/requirements.md, section apps).
EXTENSIONS: dict[str, Extension] = {
    "ext-apps": Extension(
        name="ext-apps",
        area="apps",
        repository="modelcontextprotocol/ext-apps",
        applies_at={"2026-01-26": REVISIONS[2:], "draft": ()},
    ),
}


def qualified_revision(extension: str, revision: str) -> str:
    """A revision named with its specification: an MCP revision as it is, an extension's as ``ext-apps:draft``."""
    return f"{extension}:{revision}" if extension else revision


SIDE_CHOICES: dict[str, tuple[str, ...]] = {"server": ("server",), "client": ("client",), "both": SIDES}

REQUIREMENT_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)+$")


def revision_index(revision: str) -> int:
    return REVISIONS.index(revision)


def area_of(requirement_id: str) -> str | None:
    """The area a requirement id belongs to: the longest area name that prefixes it."""
    matches = [a for a in AREAS if requirement_id.startswith(a + "-")]
    return max(matches, key=len) if matches else None


# The standard transports, and the revisions that define each.
TRANSPORT_REVISIONS: dict[str, tuple[str, ...]] = {
    "stdio": REVISIONS,
    "streamable-http": REVISIONS[1:],  # from 2025-03-26
    "http+sse": REVISIONS[:1],  # 2024-11-05 (later revisions keep it only for backwards compatibility)
}
