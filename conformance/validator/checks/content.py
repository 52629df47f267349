"""Result shapes beyond the schema: base64 data that decodes, MIME types that are MIME types, tool inputs
that are JSON Schemas, structured content valid against its tool's output schema, roots that are files."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, REQUEST, SERVER, Message, Session

MIME_TYPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$")


def is_base64(text: Any) -> bool:
    if not isinstance(text, str):
        return False
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def results_of(session: Session, sender: str, method: str) -> Iterator[tuple[Message, dict]]:
    """Each result ``sender`` returned to a ``method`` request, with that result."""
    for response in session.results_by_method.get((sender, method), []):
        if isinstance(response.result, dict):
            yield response, response.result


def _prompt_items(session: Session, kind: str) -> Iterator[tuple[Message, dict]]:
    """Each content item of ``kind`` in the messages of a prompts/get result."""
    for response, result in results_of(session, SERVER, "prompts/get"):
        for prompt_message in result.get("messages") or []:
            content = prompt_message.get("content") if isinstance(prompt_message, dict) else None
            for item in content if isinstance(content, list) else [content]:
                if isinstance(item, dict) and item.get("type") == kind:
                    yield response, item


def _judge_items(session: Session, judgement: Judgement, kind: str, member: str, valid: Any, what: str) -> None:
    for response, item in _prompt_items(session, kind):
        judgement.examine()
        if not valid(item.get(member)):
            judgement.fail(
                response.seq, f"a prompt's {kind} content has {member} {str(item.get(member))[:60]!r}: {what}"
            )


def _is_mime_type(value: Any) -> bool:
    return isinstance(value, str) and bool(MIME_TYPE.match(value))


@check("prompts-image-content-base64")
def prompt_image_base64(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The data of an image content item of a prompt message is base64."""
    _judge_items(session, judgement, "image", "data", is_base64, "not base64")


@check("prompts-audio-content-base64")
def prompt_audio_base64(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The data of an audio content item of a prompt message is base64."""
    _judge_items(session, judgement, "audio", "data", is_base64, "not base64")


@check("prompts-image-content-mime-type")
def prompt_image_mime_type(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """An image content item of a prompt message has a MIME type (type/subtype)."""
    _judge_items(session, judgement, "image", "mimeType", _is_mime_type, "not a MIME type")


@check("prompts-audio-content-mime-type")
def prompt_audio_mime_type(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """An audio content item of a prompt message has a MIME type (type/subtype)."""
    _judge_items(session, judgement, "audio", "mimeType", _is_mime_type, "not a MIME type")


@check("prompts-embedded-resource-content")
def prompt_resource_content(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """An embedded resource of a prompt message carries text, or a blob that is base64."""
    for response, item in _prompt_items(session, "resource"):
        resource = item.get("resource") if isinstance(item.get("resource"), dict) else {}
        judgement.examine()
        if isinstance(resource.get("text"), str):
            continue
        if not is_base64(resource.get("blob")):
            judgement.fail(response.seq, "a prompt's embedded resource has neither text nor a base64 blob")


@check("resources-binary-encoding")
def resource_blobs_base64(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every blob of a resources/read result is base64."""
    for response, result in results_of(session, SERVER, "resources/read"):
        for item in result.get("contents") or []:
            if isinstance(item, dict) and "blob" in item:
                judgement.examine()
                if not is_base64(item["blob"]):
                    judgement.fail(response.seq, f"resource {item.get('uri')!r} has a blob that is not base64")


@lru_cache(maxsize=4096)
def _schema_problem(text: str) -> str | None:
    import json

    from jsonschema import exceptions, validators

    document = json.loads(text)
    if not isinstance(document, dict):
        return f"a {type(document).__name__}, not an object"
    try:
        validators.validator_for(document, default=validators.Draft202012Validator).check_schema(document)
    except exceptions.SchemaError as exc:
        return exc.message
    return None


def _tools_listed(session: Session) -> Iterator[tuple[Message, dict]]:
    for response, result in results_of(session, SERVER, "tools/list"):
        for tool in result.get("tools") or []:
            if isinstance(tool, dict):
                yield response, tool


@check("tools-input-schema-valid-object")
def tool_input_schema_valid(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every listed tool's inputSchema is a valid JSON Schema object (never null)."""
    import json

    for response, tool in _tools_listed(session):
        judgement.examine()
        problem = _schema_problem(json.dumps(tool.get("inputSchema"), sort_keys=True))
        if problem:
            judgement.fail(response.seq, f"tool {tool.get('name')!r}'s inputSchema is no valid JSON Schema: {problem}")


@check("tools-output-schema-conformance")
def structured_content_matches_output_schema(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The structuredContent of a successful tools/call result validates against the outputSchema the tool
    was listed with (the latest listing before the call). Offline only: a schema whose ``$ref`` leaves the
    document (a remote URI) leaves that call not judged, and the report says so; nothing is fetched."""
    from jsonschema import exceptions, validators
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    output_schemas: dict[str, dict] = {}
    listed_at: dict[int, dict[str, dict]] = {}
    for response, tool in _tools_listed(session):
        if isinstance(tool.get("outputSchema"), dict):
            listed_at.setdefault(response.seq, {})[tool.get("name")] = tool["outputSchema"]
    for response, result in results_of(session, SERVER, "tools/call"):
        for seq in [s for s in sorted(listed_at) if s < response.seq]:
            output_schemas.update(listed_at.pop(seq))
        request = session.request_answered(response)
        name = request.params.get("name") if request else None
        if name not in output_schemas or result.get("isError") or "structuredContent" not in result:
            continue
        document = output_schemas[name]
        # an empty registry that retrieves nothing: jsonschema's default would fetch a remote $ref over the network
        validator = validators.validator_for(document, default=validators.Draft202012Validator)(
            document, registry=Registry()
        )
        try:
            error = next(iter(validator.iter_errors(result["structuredContent"])), None)
        except (Unresolvable, exceptions.SchemaError, exceptions.UnknownType) as exc:
            judgement.cannot_judge(response.seq, f"tool {name!r}'s outputSchema cannot be used offline: {exc}")
            continue
        judgement.examine()
        if error is not None:
            judgement.fail(response.seq, f"tool {name!r}'s structuredContent breaks its outputSchema: {error.message}")


@check("roots-uri-file-scheme")
def roots_are_files(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every root the client lists has a file:// URI."""
    for response, result in results_of(session, CLIENT, "roots/list"):
        for root in result.get("roots") or []:
            if isinstance(root, dict):
                judgement.examine()
                uri = root.get("uri")
                if not (isinstance(uri, str) and uri.startswith("file://")):
                    judgement.fail(response.seq, f"the client lists root {uri!r}, not a file:// URI")


URI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+[^\s]*$")


@check("prompts-embedded-resource-uri")
def prompt_resource_uri(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """An embedded resource of a prompt message carries a URI (a scheme, then the rest)."""
    for response, item in _prompt_items(session, "resource"):
        resource = item.get("resource") if isinstance(item.get("resource"), dict) else {}
        judgement.examine()
        uri = resource.get("uri")
        if not (isinstance(uri, str) and URI_SCHEME.match(uri)):
            judgement.fail(response.seq, f"a prompt's embedded resource has uri {uri!r}, not a URI")


def _elicitations(session: Session) -> Iterator[Message]:
    return (m for m in session.sent_by(SERVER, REQUEST) if m.method == "elicitation/create")


@check("elicitation-request-message")
def elicitation_message(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every elicitation/create carries a string message saying why."""
    for request in _elicitations(session):
        judgement.examine()
        if not isinstance(request.params.get("message"), str):
            judgement.fail(request.seq, "an elicitation/create without a string message")


@check("elicitation-form-request-shape")
def elicitation_form_shape(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A form-mode elicitation (mode form or absent) carries a requestedSchema."""
    for request in _elicitations(session):
        if request.params.get("mode", "form") != "form":
            continue
        judgement.examine()
        if not isinstance(request.params.get("requestedSchema"), dict):
            judgement.fail(request.seq, "a form-mode elicitation without a requestedSchema")


@check("elicitation-url-request-fields")
def elicitation_url_fields(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """A URL-mode elicitation carries mode url, a message and a url."""
    for request in _elicitations(session):
        if request.params.get("mode") != "url":
            continue
        judgement.examine()
        missing = [m for m in ("message", "url") if not isinstance(request.params.get(m), str)]
        if missing:
            judgement.fail(request.seq, f"a URL-mode elicitation without {' and '.join(missing)}")


@check("elicitation-url-valid")
def elicitation_url_valid(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The url of a URL-mode elicitation is a URL (a scheme, //, a host)."""
    for request in _elicitations(session):
        url = request.params.get("url")
        if request.params.get("mode") != "url" or not isinstance(url, str):
            continue
        judgement.examine()
        if not URL.match(url):
            judgement.fail(request.seq, f"a URL-mode elicitation's url {url!r} is not a URL")


@check("resources-custom-uri-scheme-rfc3986")
def resource_uri_schemes(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """Every resource and template the server lists has a URI whose scheme follows RFC 3986
    (a letter, then letters, digits, +, - or .)."""
    for method, listed, member in (
        ("resources/list", "resources", "uri"),
        ("resources/templates/list", "resourceTemplates", "uriTemplate"),
    ):
        for response, result in results_of(session, SERVER, method):
            for item in result.get(listed) or []:
                if isinstance(item, dict):
                    judgement.examine()
                    uri = item.get(member)
                    if not (isinstance(uri, str) and URI_SCHEME.match(uri)):
                        judgement.fail(response.seq, f"listed {member} {uri!r} has no RFC 3986 scheme")


URL_ELICITATION_REQUIRED = -32042


def _url_elicitation_ids(session: Session) -> set[Any]:
    """The elicitation ids the server announced: URL-mode elicitation/create requests and the elicitations a
    URLElicitationRequiredError listed (in any order: over HTTP, the completion on one stream can be recorded
    before the error on another)."""
    found: set[Any] = set()
    for message in session.messages:
        if message.sender != SERVER:
            continue
        if message.method == "elicitation/create" and message.params.get("mode") == "url":
            found.add(message.params.get("elicitationId"))
        error = message.frame.get("error") if isinstance(message.frame, dict) else None
        data = error.get("data") if isinstance(error, dict) else None
        for entry in (data.get("elicitations") or []) if isinstance(data, dict) else []:
            if isinstance(entry, dict):
                found.add(entry.get("elicitationId"))
    return found


@check("elicitation-url-request-elicitation-id")
def url_elicitations_have_ids(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) A URL-mode elicitation/create carries a string elicitationId."""
    for request in _elicitations(session):
        if request.params.get("mode") != "url":
            continue
        judgement.examine()
        if not isinstance(request.params.get("elicitationId"), str):
            judgement.fail(request.seq, "a URL-mode elicitation without an elicitationId")


@check("elicitation-complete-notification-id")
def completions_name_an_elicitation(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) notifications/elicitation/complete names the elicitationId of a URL-mode elicitation the
    server announced in the session."""
    announced = _url_elicitation_ids(session)
    for notice in session.sent_by(SERVER):
        if notice.method != "notifications/elicitation/complete":
            continue
        judgement.examine()
        if notice.params.get("elicitationId") not in announced:
            judgement.fail(
                notice.seq, f"completion of elicitation {notice.params.get('elicitationId')!r}, never announced"
            )


def _url_required_errors(session: Session) -> Iterator[tuple[Message, Any]]:
    for message in session.sent_by(SERVER):
        error = message.frame.get("error") if message.kind == "error" else None
        if isinstance(error, dict) and error.get("code") == URL_ELICITATION_REQUIRED:
            data = error.get("data")
            yield message, data.get("elicitations") if isinstance(data, dict) else None


@check("elicitation-url-required-error-lists-elicitations")
def url_required_error_lists(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) A URLElicitationRequiredError lists the elicitations to complete in error.data.elicitations."""
    for message, listed in _url_required_errors(session):
        judgement.examine()
        if not (isinstance(listed, list) and listed):
            judgement.fail(message.seq, "a URLElicitationRequiredError with no error.data.elicitations list")


@check("elicitation-url-required-error-url-mode-only")
def url_required_error_entries(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """(2025-11-25) Each elicitation a URLElicitationRequiredError lists is URL-mode with an elicitationId."""
    for message, listed in _url_required_errors(session):
        for entry in listed if isinstance(listed, list) else []:
            judgement.examine()
            if not (
                isinstance(entry, dict) and entry.get("mode") == "url" and isinstance(entry.get("elicitationId"), str)
            ):
                judgement.fail(message.seq, f"a listed elicitation that is not URL-mode with an id: {str(entry)[:80]}")
