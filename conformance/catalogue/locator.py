"""Source locators: where in the pinned spec a requirement comes from, and how to tell it moved.

A locator reads ``<revision>/<page>#<anchor>@<fingerprint>``, for example
``2025-06-18/basic/lifecycle#initialization@3f2a9c0d1b7e``. ``page`` is the page's path below
``docs/specification/<revision>/`` without ``.mdx``, or ``schema.json`` for a description in the
revision's JSON schema (its anchor is then the dotted path of the described definition or
property); the anchor is empty for text before a page's first heading. The fingerprint is the
first 12 hex digits of the sha256 of the normalised sentence, so a row points at its clause
without quoting it, and a reworded clause no longer resolves.

A message definition of a revision's JSON schema (a member of its request, result and notification
unions, see ``conformance.catalogue.sweep.message_definitions``) is located the same way:
``<revision>/schema.json#<Definition>@<fingerprint>``, the fingerprint taken over the definition's
canonical JSON (keys sorted, compact separators, UTF-8): a definition that changes in any way,
description included, no longer resolves and its row is reviewed.

A sentence of an extension's specification (``conformance.catalogue.vocabulary.EXTENSIONS``) is located
in that specification: ``<extension>:<revision>/<page>#<anchor>@<fingerprint>``, for example
``ext-apps:2026-01-26/apps#content-requirements@ec9bd7cae09e``, where the revision is the extension's
own (a date, or ``draft``) and the page is its path below the extension's ``specification/<revision>/``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from conformance.catalogue.vocabulary import EXTENSIONS

FINGERPRINT_LENGTH = 12

LOCATOR_PATTERN = re.compile(
    r"^(?:(?P<extension>[a-z][a-z0-9-]*):)?(?P<revision>\d{4}-\d{2}-\d{2}|draft)/(?P<page>[a-z0-9][a-z0-9_./-]*)"
    r"#(?P<anchor>(?:[A-Za-z0-9_][A-Za-z0-9_./\[\]-]*)?)@(?P<fingerprint>[0-9a-f]{12})$"
)

_WHITESPACE = re.compile(r"\s+")


def normalise_sentence(text: str) -> str:
    """Collapse whitespace; the text given has already lost its markup."""
    return _WHITESPACE.sub(" ", text).strip()


def fingerprint(text: str) -> str:
    return hashlib.sha256(normalise_sentence(text).encode("utf-8")).hexdigest()[:FINGERPRINT_LENGTH]


def canonical_json(value: object) -> str:
    """JSON with sorted keys and compact separators: the same value always reads the same."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def definition_fingerprint(definition: object) -> str:
    """The fingerprint of a schema definition: over its canonical JSON, taken as it is (no whitespace
    folding, which would hide a change inside a description)."""
    return hashlib.sha256(canonical_json(definition).encode("utf-8")).hexdigest()[:FINGERPRINT_LENGTH]


@dataclass(frozen=True, order=True)
class Locator:
    revision: str
    page: str
    anchor: str
    fingerprint: str
    extension: str = ""  # the extension whose specification holds the clause; "" for MCP's own

    @classmethod
    def parse(cls, text: str) -> Locator:
        """Parse a locator; raises ValueError saying what is wrong."""
        match = LOCATOR_PATTERN.match(text)
        if match is None:
            raise ValueError(f"bad locator {text!r}: expected [<extension>:]<revision>/<page>#<anchor>@<12 hex digits>")
        fields = match.groupdict()
        extension = fields.pop("extension") or ""
        if extension and extension not in EXTENSIONS:
            raise ValueError(f"bad locator {text!r}: unknown extension {extension!r} (known: {', '.join(EXTENSIONS)})")
        if extension and fields["revision"] not in EXTENSIONS[extension].revisions:
            known = ", ".join(EXTENSIONS[extension].revisions)
            raise ValueError(
                f"bad locator {text!r}: {extension} has no revision {fields['revision']!r} (known: {known})"
            )
        if not extension and fields["revision"] == "draft":
            raise ValueError(f"bad locator {text!r}: only an extension's locator names a draft")
        return cls(**fields, extension=extension)

    def __str__(self) -> str:
        prefix = f"{self.extension}:" if self.extension else ""
        return f"{prefix}{self.revision}/{self.page}#{self.anchor}@{self.fingerprint}"

    @property
    def url(self) -> str:
        """The public page of the clause's section (the schema's reference page for schema.json)."""
        if self.extension:
            return EXTENSIONS[self.extension].page_url(self.revision, self.page, self.anchor)
        page = "schema" if self.page == "schema.json" else self.page
        anchor = self.anchor.lower().replace(".", "-") if self.page == "schema.json" else self.anchor
        fragment = f"#{anchor}" if anchor else ""
        return f"https://modelcontextprotocol.io/specification/{self.revision}/{page}{fragment}"
