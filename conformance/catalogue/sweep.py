"""The sweep: every sentence of the pinned spec, and which of them are normative.

Pages are parsed with markdown-it-py; the typedoc HTML of a revision's ``schema.mdx`` with the
standard library's HTML parser; every ``description`` of a revision's ``schema.json`` as markdown.
Each paragraph, list item, table cell and heading is split into sentences; a sentence that carries
an uppercase RFC 2119 keyword is normative. Every sentence, normative or not, can be named by a
locator (see ``conformance.catalogue.locator``), so a catalogue row may also point at a plain sentence.

A keyword lead-in ("Servers MUST:", "Clients SHOULD return errors for these cases:": the last
sentence of a block, ending in a colon, carrying a keyword) binds each item of the list that follows
it, while the items carry no keyword of their own. Each such item is a normative unit of its own, of
kind ``list-item``: one unit per item, at the item's page, anchor and line, whose text is the lead-in
followed by the item (so the same item under another lead-in is another unit) and whose
``lead_in`` names the sentence it inherits its keywords from. The lead-in stays a sentence of its
own; a row citing it accounts for it alone, never for its items. An item with a keyword of its own
is swept as ordinary sentences. Items of a list nested inside such a list inherit the same lead-in,
unless a nested lead-in of their own opens it.

The schema's structure is normative too: each message definition of a revision (a request, result
or notification that one side sends: a member of the schema's ``ClientRequest``, ``ServerRequest``,
``ClientNotification``, ``ServerNotification``, ``ClientResult`` and ``ServerResult`` unions) is a
unit of kind ``definition`` whose text is the definition's canonical JSON, and which a catalogue
row must account for like a sentence ("what a side sends of this type validates against it").

The pages of each catalogued extension's pinned specification (``EXTENSIONS``) are swept the same way,
every revision of them (drafts included), their sentences marked with the extension's name and its
own revision.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from html.parser import HTMLParser
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from conformance.catalogue.locator import (
    Locator,
    canonical_json,
    definition_fingerprint,
    fingerprint,
    normalise_sentence,
)
from conformance.catalogue.vocabulary import EXTENSIONS, KEYWORD_PATTERN, REVISIONS, qualified_revision

SCHEMA_PAGE = "schema.json"
DEFINITION = "definition"
LIST_ITEM = "list-item"
# The unions of a revision's schema that name what each side sends; a revision that has one member
# writes the union as a reference to it, or (typedoc's inlining) as a copy of it.
MESSAGE_UNIONS: dict[str, str] = {
    "ClientRequest": "client",
    "ClientNotification": "client",
    "ClientResult": "client",
    "ServerRequest": "server",
    "ServerNotification": "server",
    "ServerResult": "server",
}

_markdown = MarkdownIt("commonmark").enable("table")

# A line that is only a JSX/HTML tag (<Note>, </Warning>, <div id=... />): MDX wrappers whose
# content is ordinary markdown. Blanking the line keeps line numbers and lets the content parse.
_TAG_ONLY_LINE = re.compile(r"^\s*</?[A-Za-z][^<>]*>\s*$")
_FRONTMATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
# A break after ., ! or ? (and any closing quote or bracket, which stays with its sentence).
_SENTENCE_BREAK = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[A-Z0-9\"'`(\[*_])")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "Fig.", "approx.")
_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)
# TypeDoc's inline links in schema descriptions, rendered on the reference page as their text.
_TSDOC_LINK = re.compile(r"\{@link\s+([^}|\s]+)\s*(?:\|\s*([^}]+?)\s*)?\}")


@dataclass(frozen=True)
class Sentence:
    revision: str
    page: str
    anchor: str
    line: int
    text: str
    fingerprint: str
    keywords: tuple[str, ...]
    # or "definition": a message definition of the schema (text: its canonical JSON); or "list-item":
    # an item of a list under a keyword lead-in (text: the lead-in, then the item)
    kind: str = "sentence"
    lead_in: str = ""  # for a list item: the lead-in sentence whose keywords bind it
    extension: str = ""  # the extension whose specification it is in (its revision is the extension's); "" for MCP

    @property
    def qualified_revision(self) -> str:
        """The revision, prefixed with its extension's name for an extension's (``ext-apps:2026-01-26``)."""
        return qualified_revision(self.extension, self.revision)

    @property
    def normative(self) -> bool:
        return bool(self.keywords) or self.kind in (DEFINITION, LIST_ITEM)

    @property
    def inherited_keywords(self) -> tuple[str, ...]:
        """The keywords a list item takes from its lead-in (its own ``keywords`` are empty)."""
        return tuple(KEYWORD_PATTERN.findall(self.lead_in))

    @property
    def locator(self) -> Locator:
        return Locator(self.revision, self.page, self.anchor, self.fingerprint, self.extension)


def slugify(heading: str) -> str:
    """The anchor the spec site gives a heading: lower case, punctuation dropped, spaces to '-'."""
    return _SLUG_DROP.sub("", heading.strip().lower()).replace(" ", "-")


def split_sentences(text: str) -> list[str]:
    pieces = _SENTENCE_BREAK.split(normalise_sentence(text))
    sentences: list[str] = []
    for piece in pieces:
        if sentences and sentences[-1].endswith(_ABBREVIATIONS):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return [s for s in sentences if s]


def keyword_lead_in(text: str) -> str:
    """The lead-in a block of text ends with (its last sentence, ending in a colon and carrying a
    keyword), or ""."""
    sentences = split_sentences(text)
    last = sentences[-1] if sentences else ""
    return last if last.endswith(":") and KEYWORD_PATTERN.search(last) else ""


def inline_text(token: Token) -> str:
    """The plain text of an inline token: markup stripped, code spans kept, breaks as spaces."""
    parts: list[str] = []
    for child in token.children or ():
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak") or (
            child.type == "html_inline" and child.content.lower().startswith("<br")
        ):
            parts.append(" ")
    return "".join(parts)


class _TypedocText(HTMLParser):
    """Collects (anchor, text) for each <p> and <li> of typedoc's comment HTML."""

    _UNITS = ("p", "li")
    _SKIPPED = ("aside", "svg", "script", "style")

    def __init__(self, anchor: str) -> None:
        super().__init__(convert_charrefs=True)
        self.anchor = anchor
        self.units: list[tuple[str, str, str]] = []  # (anchor, text, lead-in)
        self._buffer: list[str] | None = None
        self._skip_depth = 0
        self._signature_depth = 0
        self._leads: list[str] = []  # per open list: the lead-in its items inherit ("" for none)
        self._last_lead = ""  # the lead-in the last unit ended with, while nothing else followed it

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag in self._SKIPPED:
            self._skip_depth += 1
        if "tsd-signature" in (attributes.get("class") or "").split() or (self._signature_depth and tag == "div"):
            self._signature_depth += 1
        if attributes.get("id") and "tsd-anchor-link" in (attributes.get("class") or ""):
            self.anchor = str(attributes["id"])
        if tag in self._UNITS:
            self._flush()
            self._buffer = []
        elif tag in ("ul", "ol"):
            self._flush()
            self._leads.append(self._last_lead or (self._leads[-1] if self._leads else ""))
            self._last_lead = ""
        elif tag == "br" and self._buffer is not None:
            self._buffer.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIPPED and self._skip_depth:
            self._skip_depth -= 1
        if tag == "div" and self._signature_depth:
            self._signature_depth -= 1
        if tag in self._UNITS or tag in ("ul", "ol"):
            self._flush()
        if tag in ("ul", "ol") and self._leads:
            self._leads.pop()
            self._last_lead = ""

    def handle_data(self, data: str) -> None:
        if self._buffer is not None and not self._skip_depth and not self._signature_depth:
            self._buffer.append(data)

    def _flush(self) -> None:
        if self._buffer:
            text = normalise_sentence("".join(self._buffer))
            if text:
                self.units.append((self.anchor, text, self._leads[-1] if self._leads else ""))
                self._last_lead = keyword_lead_in(text)
        self._buffer = None

    def close(self) -> None:
        super().close()
        self._flush()


def _prepare_mdx(source: str) -> str:
    source = _FRONTMATTER.sub(lambda m: "\n" * m.group(0).count("\n"), source)
    return "\n".join("" if _TAG_ONLY_LINE.match(line) else line for line in source.split("\n"))


def _with_lead_ins(tokens: list[Token]) -> Iterator[tuple[int, Token, str]]:
    """(index, token, lead-in) for every token: the lead-in a token inside a list inherits (the keyword
    lead-in that opened the list, or an enclosing list's), else ""."""
    leads: list[str] = []
    last_lead = ""  # the lead-in the last inline ended with, while only its block's closing tag followed
    for index, token in enumerate(tokens):
        if token.type in ("bullet_list_open", "ordered_list_open"):
            leads.append(last_lead or (leads[-1] if leads else ""))
        elif token.type in ("bullet_list_close", "ordered_list_close") and leads:
            leads.pop()
        yield index, token, leads[-1] if leads else ""
        if token.type == "inline":
            last_lead = keyword_lead_in(inline_text(token))
        elif token.type != "paragraph_close":
            last_lead = ""


def _mdx_units(source: str) -> Iterator[tuple[str, int, str, str]]:
    """(anchor, line, text, lead-in) for every block of prose on a page."""
    anchor = ""
    tokens = _markdown.parse(_prepare_mdx(source))
    for index, token, lead_in in _with_lead_ins(tokens):
        line = token.map[0] + 1 if token.map else 0
        if token.type == "inline":
            if index and tokens[index - 1].type == "heading_open":
                anchor = slugify(inline_text(token))
            yield anchor, line, inline_text(token), lead_in
        elif token.type == "html_block":
            parser = _TypedocText(anchor)
            parser.feed(token.content)
            parser.close()
            anchor = parser.anchor
            for unit_anchor, text, unit_lead_in in parser.units:
                yield unit_anchor, line, text, unit_lead_in


def _schema_descriptions(node: object, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        description = node.get("description")
        if isinstance(description, str):
            yield path, description
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, child in value.items():
                    yield from _schema_descriptions(child, f"{path}.{name}")
            elif key == "items":
                yield from _schema_descriptions(value, f"{path}[]")
            elif key != "description":
                yield from _schema_descriptions(value, path)
    elif isinstance(node, list):
        for item in node:
            yield from _schema_descriptions(item, path)


def _schema_units(schema: dict) -> Iterator[tuple[str, int, str, str]]:
    for name, definition in sorted(schema_definitions(schema).items()):
        for path, description in _schema_descriptions(definition, name):
            description = _TSDOC_LINK.sub(lambda m: m.group(2) or m.group(1), description)
            for _, token, lead_in in _with_lead_ins(_markdown.parse(description)):
                if token.type == "inline":
                    yield path, 0, inline_text(token), lead_in


def schema_definitions(schema: dict) -> dict:
    return schema.get("definitions", schema.get("$defs", {}))


def _union_members(definitions: dict, union: str) -> list[str]:
    node = definitions[union]
    alternatives = node.get("anyOf", node.get("oneOf"))
    if alternatives is not None:
        return [alternative["$ref"].rsplit("/", 1)[1] for alternative in alternatives]
    if "$ref" in node:
        return [node["$ref"].rsplit("/", 1)[1]]
    return [name for name, other in definitions.items() if other == node and name not in MESSAGE_UNIONS]


def message_definitions(schema: dict) -> dict[str, tuple[str, ...]]:
    """Each message definition of a schema (request, result or notification), and the sides that send
    it (``server``, ``client`` or both), as the schema's unions say."""
    definitions = schema_definitions(schema)
    senders: dict[str, list[str]] = {}
    for union, side in MESSAGE_UNIONS.items():
        if union in definitions:
            for name in _union_members(definitions, union):
                if side not in senders.setdefault(name, []):
                    senders[name].append(side)
    return {name: tuple(sorted(sides, reverse=True)) for name, sides in sorted(senders.items())}


def _definition_units(revision: str, schema: dict) -> Iterator[Sentence]:
    definitions = schema_definitions(schema)
    for name in message_definitions(schema):
        yield Sentence(
            revision=revision,
            page=SCHEMA_PAGE,
            anchor=name,
            line=0,
            text=canonical_json(definitions[name]),
            fingerprint=definition_fingerprint(definitions[name]),
            keywords=(),
            kind=DEFINITION,
        )


def _sentences(
    revision: str, page: str, units: Iterator[tuple[str, int, str, str]], extension: str = ""
) -> Iterator[Sentence]:
    for anchor, line, text, lead_in in units:
        if lead_in and not KEYWORD_PATTERN.search(text) and normalise_sentence(text):
            item = normalise_sentence(f"{lead_in} {text}")
            yield Sentence(
                revision=revision,
                page=page,
                anchor=anchor,
                line=line,
                text=item,
                fingerprint=fingerprint(item),
                keywords=(),
                kind=LIST_ITEM,
                lead_in=lead_in,
                extension=extension,
            )
            continue
        for sentence in split_sentences(text):
            yield Sentence(
                revision=revision,
                page=page,
                anchor=anchor,
                line=line,
                text=sentence,
                fingerprint=fingerprint(sentence),
                keywords=tuple(KEYWORD_PATTERN.findall(sentence)),
                extension=extension,
            )


def sweep_revision(spec_root: Path, revision: str) -> list[Sentence]:
    """Every sentence of one revision's pages and schema, in page order."""
    found: list[Sentence] = []
    pages_root = spec_root / "docs" / "specification" / revision
    for path in sorted(pages_root.rglob("*.mdx")):
        page = path.relative_to(pages_root).with_suffix("").as_posix()
        found.extend(_sentences(revision, page, _mdx_units(path.read_text(encoding="utf-8"))))
    schema = json.loads((spec_root / "schema" / revision / "schema.json").read_text(encoding="utf-8"))
    found.extend(_sentences(revision, SCHEMA_PAGE, _schema_units(schema)))
    found.extend(_definition_units(revision, schema))
    return found


def sweep_extension(root: Path, name: str) -> list[Sentence]:
    """Every sentence of every revision of an extension's pages (``root``: laid out like its repository)."""
    found: list[Sentence] = []
    for revision in EXTENSIONS[name].revisions:
        pages_root = root / "specification" / revision
        for path in sorted(pages_root.rglob("*.mdx")):
            page = path.relative_to(pages_root).with_suffix("").as_posix()
            found.extend(_sentences(revision, page, _mdx_units(path.read_text(encoding="utf-8")), name))
    return found


def sweep(
    spec_root: Path, revisions: tuple[str, ...] = REVISIONS, extension_roots: Mapping[str, Path] | None = None
) -> list[Sentence]:
    """The spec's revisions, then each extension's pages (name -> its materialised root)."""
    found = [s for revision in revisions for s in sweep_revision(spec_root, revision)]
    return found + [s for name, root in (extension_roots or {}).items() for s in sweep_extension(root, name)]


def to_json(sentences: list[Sentence]) -> list[dict]:
    return [asdict(s) | {"locator": str(s.locator)} for s in sentences]
