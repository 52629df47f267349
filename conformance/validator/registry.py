"""The registry: every catalogue row, at every revision, is judged by a named check or excluded with a reason.

The catalogue is conformance/requirements.json (ids, levels, sides, revisions). The checks live in
``conformance/validator/checks/`` (the schema rows get one generated check each); a row no check
judges is excluded, by the first rule below whose test it meets, with that rule's reason. The rules
read the row's level, area and wording; ``EXCLUDED_BY_ID`` places the rows those words would misplace.
A row none of the rules places is excluded as "no trace check yet": the validator's own to-do list,
reported as such, never passed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from conformance import PROJECT_ROOT
from conformance.validator.checks import (
    apps,
    authorization,
    caching,
    cancellation,
    capabilities,
    completion,
    content,
    elicitation,
    envelope,
    features,
    headers,
    http,
    json_schema,
    lifecycle,
    logging,
    messages,
    meta,
    mrtr,
    pagination,
    progress,
    roots,
    sampling,
    sse,
    subscriptions,
    tasks,
)
from conformance.validator.checks.schema import schema_check
from conformance.validator.judgement import CHECKS, Check

CATALOGUE = PROJECT_ROOT / "conformance" / "requirements.json"
CHECK_MODULES = (
    apps,
    authorization,
    caching,
    cancellation,
    capabilities,
    completion,
    content,
    elicitation,
    envelope,
    features,
    headers,
    http,
    json_schema,
    lifecycle,
    logging,
    messages,
    meta,
    mrtr,
    pagination,
    progress,
    roots,
    sampling,
    sse,
    subscriptions,
    tasks,
)  # each registers its checks

PERMISSION = "a permission (MAY): nothing on the wire can break it"
USER_INTERFACE = "a user-interface obligation: what a person is shown, asked or allowed to do"
INTERNAL_STATE = "needs the implementation's internal state: what it stores, checks, trusts, logs or decides"
AUTHORIZATION_SERVER = "binds the authorization server: its endpoints are not the MCP server's session"
OAUTH_EXCHANGE = (
    "the client's exchange with the authorization server (its metadata, registration, authorization and token "
    "requests): not the MCP server's traffic, and a capture keeps none of its bodies (they carry credentials)"
)
CREDENTIAL = "a credential's value or origin: credentials (the Authorization header, tokens) are never recorded"
METADATA_DOCUMENT = "what a metadata document says: a trace records its fetch, not the document as the answer to it"
OTHER_SPECIFICATION = (
    "another specification as a whole (OAuth 2.1, the Client ID Metadata Document draft): the parts of it a trace "
    "shows are rows of their own"
)
DOCUMENTATION = "about the implementation's design, documentation or configuration, not one session"
NOT_ON_THE_WIRE = "not visible in a trace: framing bytes, SSE event fields, process handling, timing"
NO_CHECK_YET = "no trace check yet: the validator's to-do list"
OVER_TIME = (
    "conduct over time or across sessions: a trace ends where its recording stopped, so 'not yet' and 'never' "
    "look alike, and another session is not in it"
)
OUTSIDE_THE_SESSION = (
    "happens outside the MCP session: fetching and rendering icons, the user's browser, other clients' sessions"
)
JUDGEMENT = "a matter of judgement (relevance, helpfulness, consistency): no rule a check could apply to a message"
RESTATES_OTHER_ROWS = "restates the rules of other rows, which their own checks judge on the same trace"
VERSIONS_IMPLEMENTED = (
    "needs the set of protocol versions the implementation implements: a session names only the one it speaks"
)
ONE_VANTAGE_POINT = (
    "a trace is recorded at one point of the transport: it shows what was sent there, not that the other end got it"
)
CUSTOM_TRANSPORT = "about a custom transport: a trace records stdio, Streamable HTTP or HTTP+SSE only"
FOR_SPEC_AUTHORS = "a rule for the specification's authors (which codes it defines), not for an implementation"
APPS_HOST_AND_VIEW = (
    "an MCP Apps host or view obligation: rendering, sandboxing, the host-view channel; not in a client-server trace"
)

EXCLUSION_REASONS = (
    PERMISSION,
    AUTHORIZATION_SERVER,
    OAUTH_EXCHANGE,
    CREDENTIAL,
    METADATA_DOCUMENT,
    OTHER_SPECIFICATION,
    APPS_HOST_AND_VIEW,
    USER_INTERFACE,
    DOCUMENTATION,
    NOT_ON_THE_WIRE,
    INTERNAL_STATE,
    OVER_TIME,
    OUTSIDE_THE_SESSION,
    JUDGEMENT,
    RESTATES_OTHER_ROWS,
    VERSIONS_IMPLEMENTED,
    ONE_VANTAGE_POINT,
    CUSTOM_TRANSPORT,
    FOR_SPEC_AUTHORS,
    NO_CHECK_YET,
)


def _words(pattern: str) -> Callable[[dict], bool]:
    compiled = re.compile(pattern, re.IGNORECASE)
    return lambda row: bool(compiled.search(row["requirement"]))


# (reason, test): the first rule a row meets places it.
EXCLUSION_RULES: tuple[tuple[str, Callable[[dict], bool]], ...] = (
    (PERMISSION, lambda row: row["level"] == "MAY"),
    (APPS_HOST_AND_VIEW, lambda row: row["id"].startswith(("apps-host-", "apps-view-"))),
    (
        USER_INTERFACE,
        _words(
            r"\b(UI|user interface|display\w*|shows?|shown|consent\w*|approv\w*|confirm\w*|visible|review|human|"
            r"the user (can|may|is|to|sees|decides|grants|agrees)|asks? the user|lets the user)\b"
        ),
    ),
    (
        DOCUMENTATION,
        _words(r"\b(SDKs?|document\w*|configurable|specification of an extension|new implementation|platform)\b"),
    ),
    (
        NOT_ON_THE_WIRE,
        _words(
            r"\b(newline|stderr|stdout|stdin|the process|server process|kill|exit|exits|restart|reconnect|"
            r"`retry` field|event ID|Last-Event-ID|timeout|times out|promptly|delay|interval|rate|priming|"
            r"stream|connection|bind|launch)\b"
        ),
    ),
    (
        INTERNAL_STATE,
        _words(
            r"\b(validat\w*|sanitiz\w*|access control|secur\w*|credential\w*|secret\w*|personal\w*|sensitive|"
            r"store\w*|stored|persist\w*|keeps? track|tracks?|trusts?|untrusted|treats?|interpret\w*|assum\w*|"
            r"infers?|relies|rely|handles?|copes?|ignores?|cache\w*|logs?|verif\w*|protect\w*|limits?|decid\w*|"
            r"model|LLM|audit\w*|isolat\w*|permission\w*|recogni[sz]\w*)\b"
        ),
    ),
)

# Rows the wording rules would place under a reason that is not theirs.
EXCLUDED_BY_ID: dict[str, str] = {
    "stdio-newline-delimited": NOT_ON_THE_WIRE,
    "stdio-no-embedded-newlines": NOT_ON_THE_WIRE,
    "transports-jsonrpc-utf8": NOT_ON_THE_WIRE,  # the trace holds the parsed payload, not its bytes
    "elicitation-state-bound-to-user": INTERNAL_STATE,
    "security-document-implications": DOCUMENTATION,
    "sampling-tool-result-message-exclusive": NO_CHECK_YET,  # a "user-role message" is on the wire
    # a host may have read the UI and cached it in an earlier session (apps-host-prefetch-ui-resources, MAY) or
    # read it after the recording stopped: a tool call with no read of its UI in the trace is no evidence
    "apps-host-read-ui-resource": OVER_TIME,
    "elicitation-no-sensitive-info": INTERNAL_STATE,  # what counts as sensitive is the server's knowledge
    # tasks (2025-11-25)
    "tasks-audit-monitor-suspicious": INTERNAL_STATE,
    "tasks-bind-auth-context": INTERNAL_STATE,  # authorization contexts are never recorded
    "tasks-cancel-stop-execution": INTERNAL_STATE,
    "tasks-create-task-result-promptly": NOT_ON_THE_WIRE,  # timing
    "tasks-error-internal": INTERNAL_STATE,  # whether a failure was internal
    "tasks-error-messages-informative": JUDGEMENT,
    "tasks-honour-poll-interval": NOT_ON_THE_WIRE,  # timing
    "tasks-input-required-when-needed": INTERNAL_STATE,  # whether the task needs input
    "tasks-leave-input-required": INTERNAL_STATE,  # whether it has all the input it asked for
    "tasks-limit-concurrent": INTERNAL_STATE,
    "tasks-max-ttl": INTERNAL_STATE,
    "tasks-monitor-resources": INTERNAL_STATE,
    "tasks-list-covers-gettable": INTERNAL_STATE,  # a task missing from a list may have expired: retention is its own
    "tasks-list-next-cursor": INTERNAL_STATE,  # whether further tasks remain
    "tasks-list-own-context-only": INTERNAL_STATE,
    "tasks-list-paginate": INTERNAL_STATE,  # whether a list is long enough to page is the receiver's decision
    "tasks-no-list-without-identity": INTERNAL_STATE,
    "tasks-no-reliance-on-cancelled-retention": INTERNAL_STATE,
    "tasks-no-reliance-on-status-notification": INTERNAL_STATE,
    "tasks-poll-alongside-result": OVER_TIME,
    "tasks-poll-until-terminal": OVER_TIME,
    "tasks-reject-foreign-context": INTERNAL_STATE,
    "tasks-related-task-meta": INTERNAL_STATE,  # which messages a task's work produced (tasks/result: judged)
    "tasks-requestor-result-on-input-required": OVER_TIME,
    "tasks-result-terminal-verbatim": INTERNAL_STATE,  # what the underlying request would have produced
    "tasks-streamable-http-rules-still-apply": RESTATES_OTHER_ROWS,
    # cancellation
    "cancellation-client-ignore-late-response": INTERNAL_STATE,
    # what the sender believes: a response recorded before its cancellation may not have reached it yet
    "cancellation-target-in-flight-cancellednotification": INTERNAL_STATE,
    "cancellation-sender-ignore-late-response": INTERNAL_STATE,
    "cancellation-client-signals-cancel": INTERNAL_STATE,  # whether it wanted a request abandoned
    "cancellation-receiver-stop-processing": INTERNAL_STATE,
    "cancellation-server-stop-processing": INTERNAL_STATE,
    # completion
    "completion-client-debounce": NOT_ON_THE_WIRE,  # timing
    "completion-fuzzy-matching": JUDGEMENT,
    "completion-sorted-by-relevance": JUDGEMENT,
    "completion-internal-error-code": INTERNAL_STATE,
    "completion-no-information-disclosure": INTERNAL_STATE,  # what the requester is entitled to
    "completion-unknown-prompt-error": INTERNAL_STATE,  # which prompts exist (a list may be paged or changed)
    # logging
    "logging-consistent-logger-names": JUDGEMENT,
    "logging-meta-level-internal-error-code": INTERNAL_STATE,
    "logging-set-level-configuration-error": INTERNAL_STATE,
    # roots
    "roots-error-internal": INTERNAL_STATE,
    "roots-list-changed-notification": INTERNAL_STATE,  # when its roots changed
    "roots-management-ui": USER_INTERFACE,
    "roots-server-handle-list-changes": INTERNAL_STATE,
    "roots-server-respect-boundaries": INTERNAL_STATE,  # which paths its operations touch
    "roots-server-validate-paths": INTERNAL_STATE,
    "roots-watch-changes": INTERNAL_STATE,
    # sampling
    "sampling-error-on-failure": INTERNAL_STATE,  # whether it could complete the request
    "sampling-error-user-rejected": USER_INTERFACE,  # the user's refusal is not in the trace
    "sampling-hints-before-priorities-hints": INTERNAL_STATE,  # which model it chose and why
    "sampling-hints-first-match-hints": INTERNAL_STATE,
    "sampling-max-tokens-respect": INTERNAL_STATE,  # tokens are the model's count, not the text's length
    "sampling-messages-not-retained": OVER_TIME,
    "sampling-review-ui": USER_INTERFACE,
    "sampling-tool-loop-iteration-limit": INTERNAL_STATE,
    # elicitation
    "elicitation-complete-manual-fallback": USER_INTERFACE,
    "elicitation-complete-notification-target": OUTSIDE_THE_SESSION,  # other clients' sessions
    "elicitation-error-url-required-code": INTERNAL_STATE,  # whether it could process the request
    "elicitation-form-defaults-prefill": USER_INTERFACE,
    "elicitation-no-clickable-urls": USER_INTERFACE,
    "elicitation-server-bind-identity": INTERNAL_STATE,
    "elicitation-server-no-assume-success": INTERNAL_STATE,
    "elicitation-server-validate-response": INTERNAL_STATE,
    "elicitation-state-not-session-only": INTERNAL_STATE,
    "elicitation-url-consent-before-open": USER_INTERFACE,
    "elicitation-url-highlight-domain": USER_INTERFACE,
    "elicitation-url-identity-tamper-resistant": INTERNAL_STATE,
    "elicitation-url-manual-controls": USER_INTERFACE,
    "elicitation-url-no-prefetch": OUTSIDE_THE_SESSION,  # a fetch of the URL is not an MCP message
    "elicitation-url-not-for-mcp-authorization": INTERNAL_STATE,  # what the page it links to is for
    "elicitation-url-required-error-only-when-needed": INTERNAL_STATE,
    "elicitation-url-same-user": OUTSIDE_THE_SESSION,  # the out-of-band flow in the user's browser
    "elicitation-url-warn-suspicious": USER_INTERFACE,
    # icons: what a consumer does with an icon
    "icons-executable-content-caution": OUTSIDE_THE_SESSION,
    "icons-https-or-data-uri": OUTSIDE_THE_SESSION,
    "icons-image-type-allowlist": OUTSIDE_THE_SESSION,
    "icons-no-cross-origin-redirect": OUTSIDE_THE_SESSION,
    "icons-reject-unsafe-schemes": OUTSIDE_THE_SESSION,
    "icons-resource-exhaustion": OUTSIDE_THE_SESSION,
    "icons-same-origin-as-server": OUTSIDE_THE_SESSION,
    # json-schema
    "json-schema-no-network-ref": OUTSIDE_THE_SESSION,  # a $ref fetch is not an MCP message
    "json-schema-remote-ref-host-restrictions": OUTSIDE_THE_SESSION,
    "json-schema-remote-ref-off-by-default": DOCUMENTATION,  # a setting's default
    "json-schema-support-2020-12": INTERNAL_STATE,  # how it applies a schema it received
    "json-schema-unsupported-dialect-error": INTERNAL_STATE,  # an error raised in the implementation, not sent
    # meta (2026-07-28)
    "meta-info-not-behavioral": INTERNAL_STATE,
    "meta-no-undeclared-client-capabilities": INTERNAL_STATE,  # what serving a request depends on
    # mrtr (2026-07-28)
    "mrtr-input-requests-unique-keys": NOT_ON_THE_WIRE,  # the trace holds the parsed payload: a repeated key is gone
    "mrtr-protocol-errors-jsonrpc": INTERNAL_STATE,  # which failures are protocol errors
    "mrtr-request-state-single-use": INTERNAL_STATE,
    "mrtr-rerequest-missing-input": INTERNAL_STATE,  # whether it needs the input
    "mrtr-server-no-assumed-retry": INTERNAL_STATE,
    "mrtr-server-validate-input-responses": INTERNAL_STATE,
    # pagination
    "pagination-cursor-not-persisted": OVER_TIME,  # a later session is not in the trace
    "pagination-server-stable-cursors": INTERNAL_STATE,
    # caching (2026-07-28): what a client does with a ttlMs
    "caching-poll-jitter-backoff": NOT_ON_THE_WIRE,  # timing
    "caching-snapshot-from-start": INTERNAL_STATE,  # whether it needs a consistent view
    "caching-ttl-not-poll-interval": NOT_ON_THE_WIRE,  # timing
    "caching-ttl-positive-fresh": INTERNAL_STATE,
}


# The transport, lifecycle, versioning, message, error and server-feature rows no check judges, each read
# against its clause (python -m conformance show ID).
TRANSPORT_AND_FEATURE_ROWS: dict[str, str] = {
    "architecture-base-protocol-required": DOCUMENTATION,  # what an implementation implements, not one session
    "architecture-core-components-required": DOCUMENTATION,
    "errors-legacy-range-no-assumed-meaning": INTERNAL_STATE,  # the meaning a receiver attaches to a code
    "errors-legacy-range-no-new-codes": FOR_SPEC_AUTHORS,
    "errors-message-one-sentence-message": JUDGEMENT,  # "brief", "one sentence": no rule for free text
    "errors-server-message-one-sentence": JUDGEMENT,
    "errors-new-codes-outside-jsonrpc-range": INTERNAL_STATE,  # which codes it introduced for its own purposes
    "errors-reserved-range-defined-meaning": INTERNAL_STATE,  # the condition a code was used for
    "http-sse-bind-localhost": DOCUMENTATION,  # the address it listens on: configuration, not in a trace
    "streamable-http-bind-localhost": DOCUMENTATION,
    "http-sse-migrate": DOCUMENTATION,
    "versioning-deprecated-migrate": DOCUMENTATION,
    "lifecycle-client-disconnect-unsupported-protocolversion": VERSIONS_IMPLEMENTED,
    "lifecycle-client-version-latest": VERSIONS_IMPLEMENTED,
    "lifecycle-client-version-supported": VERSIONS_IMPLEMENTED,
    "lifecycle-server-version-alternative": VERSIONS_IMPLEMENTED,
    "lifecycle-server-version-echo": VERSIONS_IMPLEMENTED,
    "lifecycle-server-version-latest": VERSIONS_IMPLEMENTED,
    # a response names its request by id and a notification has none: an answer to a notification reads as a
    # response to no request, which messages-response-matches-request judges
    "messages-notification-no-response": RESTATES_OTHER_ROWS,
    "prompts-client-handles-pagination": OVER_TIME,  # the next page may come after the recording stopped
    "prompts-embedded-resource-mime-type": JUDGEMENT,  # which type "fits" the resource
    "prompts-internal-error-code": INTERNAL_STATE,  # whether a failure was internal
    "resources-internal-error-code": INTERNAL_STATE,
    "prompts-list-changed-notify": INTERNAL_STATE,  # whether its set of prompts changed
    "resources-list-changed-notify": INTERNAL_STATE,
    "tools-list-changed-notify": INTERNAL_STATE,
    "prompts-list-current-set": INTERNAL_STATE,  # what is presently available to that client
    "resources-list-current-set": INTERNAL_STATE,
    "tools-list-current-set": INTERNAL_STATE,
    "prompts-respect-capability-negotiation": RESTATES_OTHER_ROWS,  # lifecycle-negotiated-capabilities-only-*
    "prompts-validate-arguments": INTERNAL_STATE,
    "prompts-validate-inputs-outputs": INTERNAL_STATE,
    "resources-https-otherwise-other-scheme": OUTSIDE_THE_SESSION,  # whether the client can fetch it from the web
    "resources-https-scheme-only-if-client-fetchable": OUTSIDE_THE_SESSION,
    "resources-not-found-error-code": INTERNAL_STATE,  # whether a resource exists (templates, unlisted ones)
    "resources-read-not-found-invalid-params": INTERNAL_STATE,
    "resources-read-not-found-no-empty-contents": INTERNAL_STATE,
    "security-privacy-in-design": DOCUMENTATION,
    "stdio-client-cancel-notification": INTERNAL_STATE,  # whether it abandoned a request; a cancel it sends is
    # judged by the cancellation rows
    "stdio-client-correlate-subscription-notifications": INTERNAL_STATE,
    "stdio-server-silent-after-cancel": NOT_ON_THE_WIRE,  # an answer already on its way when the cancel came
    "streamable-http-server-silent-after-cancel": NOT_ON_THE_WIRE,  # reads the same in a trace: timing
    "streamable-http-client-cancel-notification": INTERNAL_STATE,
    "streamable-http-client-delete-session": OVER_TIME,  # "done with a session": the recording may stop first
    "streamable-http-client-refresh-tools-on-header-mismatch": OVER_TIME,
    "streamable-http-mcp-name-base64": RESTATES_OTHER_ROWS,  # streamable-http-client-base64-unsafe-values
    "streamable-http-modern-server-ignore-session-id": INTERNAL_STATE,  # why it refused a request, if it did
    "streamable-http-client-new-post-per-message": NOT_ON_THE_WIRE,  # which POST carried a message: docs/validator.md
    "streamable-http-client-reject-invalid-x-mcp-header": INTERNAL_STATE,  # the tool list it gives its application
    "streamable-http-header-names-case-insensitive": INTERNAL_STATE,  # how it matches names it receives
    "streamable-http-intermediary-reject-unvalidated": OUTSIDE_THE_SESSION,  # an intermediary, not a peer
    "streamable-http-no-broadcast": NOT_ON_THE_WIRE,  # which stream carried a message
    "streamable-http-origin-invalid-403": INTERNAL_STATE,  # which origins it judges invalid
    "streamable-http-rejected-no-request-error-status": INTERNAL_STATE,  # which messages it cannot accept
    "streamable-http-session-id-unique": OVER_TIME,  # across sessions; ids are written as per-trace pseudonyms
    "streamable-http-single-endpoint": DOCUMENTATION,  # the paths it serves, beyond those a client used
    "tools-aggregator-disambiguate-names": OUTSIDE_THE_SESSION,  # several servers' sessions
    "tools-aggregator-not-rely-on-server-name": OUTSIDE_THE_SESSION,
    "tools-client-ref-resolution": INTERNAL_STATE,
    "tools-human-can-deny-invocation": USER_INTERFACE,
    "tools-name-case-sensitive": INTERNAL_STATE,  # how it compares names
    "tools-name-no-special-characters": RESTATES_OTHER_ROWS,  # tools-name-allowed-characters
    "tools-output-schema-client-validates": INTERNAL_STATE,
    "tools-tool-errors-in-result-iserror": INTERNAL_STATE,  # whether an error arose inside the tool
    "transports-binding-delivers-client-messages": ONE_VANTAGE_POINT,
    "transports-binding-delivers-server-messages": ONE_VANTAGE_POINT,
    "transports-custom-preserve-jsonrpc-format": CUSTOM_TRANSPORT,
    "transports-custom-preserve-lifecycle": CUSTOM_TRANSPORT,
    "transports-custom-preserve-message-patterns": CUSTOM_TRANSPORT,
    "transports-custom-preserve-request-metadata": CUSTOM_TRANSPORT,
    "versioning-extension-unsupported-fallback": INTERNAL_STATE,  # which extensions each side supports
}
EXCLUDED_BY_ID.update(TRANSPORT_AND_FEATURE_ROWS)


# The authorization rows no check judges (checks/authorization.py judges the MCP endpoint's 401 and 403
# challenges and the client's request URIs), each read against its clause.
AUTHORIZATION_ROWS: dict[str, str] = {
    # the authorization server's own obligations (at 2025-03-26, the MCP server acting as one)
    "authorization-as-oauth21": AUTHORIZATION_SERVER,
    "authorization-as-dynamic-registration": AUTHORIZATION_SERVER,
    "authorization-server-as-metadata": AUTHORIZATION_SERVER,
    "authorization-server-fallback-default-endpoints": AUTHORIZATION_SERVER,
    "authorization-as-rfc8414-metadata": AUTHORIZATION_SERVER,
    "authorization-as-discovery-mechanism": AUTHORIZATION_SERVER,
    "authorization-server-grant-types-fit-audience": AUTHORIZATION_SERVER,
    "authorization-server-metadata-at-base-url": AUTHORIZATION_SERVER,
    "authorization-as-cimd": AUTHORIZATION_SERVER,
    "authorization-as-cimd-fetch": AUTHORIZATION_SERVER,
    "authorization-as-cimd-client-id-match": AUTHORIZATION_SERVER,
    "authorization-as-cimd-cache": AUTHORIZATION_SERVER,
    "authorization-as-cimd-redirect-uri-check": AUTHORIZATION_SERVER,
    "authorization-as-cimd-document-valid": AUTHORIZATION_SERVER,
    "authorization-as-cimd-security-section": AUTHORIZATION_SERVER,
    "authorization-as-cimd-consider-security": AUTHORIZATION_SERVER,
    "authorization-as-cimd-ssrf": AUTHORIZATION_SERVER,
    "authorization-as-accept-own-resource-tokens": AUTHORIZATION_SERVER,
    "authorization-as-token-rotation": AUTHORIZATION_SERVER,
    "authorization-as-short-lived-tokens": AUTHORIZATION_SERVER,
    "authorization-as-refresh-token-rotation": AUTHORIZATION_SERVER,
    "authorization-as-endpoints-https": AUTHORIZATION_SERVER,
    "authorization-as-redirect-uri-localhost-or-https": AUTHORIZATION_SERVER,
    "authorization-as-oidc-code-challenge-methods": AUTHORIZATION_SERVER,
    "authorization-server-validate-redirect-uri": AUTHORIZATION_SERVER,
    "authorization-as-exact-redirect-uri": AUTHORIZATION_SERVER,
    "authorization-as-untrusted-redirect-precautions": AUTHORIZATION_SERVER,
    "authorization-as-auto-redirect-trusted-only": AUTHORIZATION_SERVER,
    "authorization-as-localhost-redirect-warning": AUTHORIZATION_SERVER,
    "authorization-as-display-redirect-hostname": AUTHORIZATION_SERVER,
    "authorization-as-iss-in-authorization-responses": AUTHORIZATION_SERVER,
    "authorization-as-advertises-iss-support": AUTHORIZATION_SERVER,
    # the client's OAuth flow with the authorization server
    "authorization-client-dynamic-registration": OAUTH_EXCHANGE,
    "authorization-client-as-metadata": OAUTH_EXCHANGE,
    "authorization-client-as-discovery-both": OAUTH_EXCHANGE,
    "authorization-client-fallback-default-endpoints": OAUTH_EXCHANGE,  # which request is its token request
    "authorization-client-protected-resource-metadata": OAUTH_EXCHANGE,  # where the document sent it next
    "authorization-client-challenge-scope-authoritative": OAUTH_EXCHANGE,  # the scope it asks for
    "authorization-client-as-metadata-order-with-path": OAUTH_EXCHANGE,
    "authorization-client-as-metadata-order-no-path": OAUTH_EXCHANGE,
    "authorization-client-registration-priority": OAUTH_EXCHANGE,
    "authorization-client-cimd": OAUTH_EXCHANGE,
    "authorization-client-cimd-client-id-url": OAUTH_EXCHANGE,
    "authorization-client-cimd-check-support": OAUTH_EXCHANGE,
    "authorization-client-initial-scope-from-challenge": OAUTH_EXCHANGE,
    "authorization-client-initial-scope-fallback": OAUTH_EXCHANGE,
    "authorization-client-resource-parameter": OAUTH_EXCHANGE,
    "authorization-client-resource-identifies-server": OAUTH_EXCHANGE,
    "authorization-client-resource-canonical-uri": OAUTH_EXCHANGE,
    "authorization-client-resource-most-specific": OAUTH_EXCHANGE,
    "authorization-client-resource-regardless-of-as-support": OAUTH_EXCHANGE,
    # written in the resource parameter (the client) and in the metadata document (the server)
    "authorization-canonical-uri-no-trailing-slash": OAUTH_EXCHANGE,
    "authorization-client-step-up-on-scope-error": OAUTH_EXCHANGE,
    "authorization-client-user-step-up": OAUTH_EXCHANGE,
    "authorization-client-redirect-uri-localhost-or-https": OAUTH_EXCHANGE,
    "authorization-client-pkce": OAUTH_EXCHANGE,
    "authorization-client-pkce-s256": OAUTH_EXCHANGE,
    "authorization-client-verify-pkce-support": OAUTH_EXCHANGE,
    "authorization-client-registered-redirect-uris": OAUTH_EXCHANGE,
    "authorization-client-state-parameter": OAUTH_EXCHANGE,
    "authorization-client-has-client-id-before-flow": OAUTH_EXCHANGE,
    "authorization-client-reauthorization-keeps-granted-scopes": OAUTH_EXCHANGE,
    "authorization-client-iss-matches-recorded-issuer": OAUTH_EXCHANGE,
    "authorization-client-iss-required-when-advertised": OAUTH_EXCHANGE,
    "authorization-client-iss-absent-unadvertised-proceeds": OAUTH_EXCHANGE,
    "authorization-client-refresh-token-grant-type": OAUTH_EXCHANGE,
    "authorization-client-as-metadata-issuer-must-match": OAUTH_EXCHANGE,
    "authorization-client-dcr-sets-application-type": OAUTH_EXCHANGE,
    "authorization-client-dcr-native-application-type": OAUTH_EXCHANGE,
    "authorization-client-dcr-web-application-type": OAUTH_EXCHANGE,
    "authorization-client-dcr-handles-redirect-uri-rejection": OAUTH_EXCHANGE,
    "authorization-client-reregisters-on-as-change": OAUTH_EXCHANGE,
    # a token's presence, value, issuer, audience or expiry
    "authorization-stdio-environment-credentials": CREDENTIAL,
    "authorization-stdio-env-credentials": CREDENTIAL,
    "authorization-client-bearer-header": CREDENTIAL,
    "authorization-client-token-every-request": CREDENTIAL,
    "authorization-server-validate-token": CREDENTIAL,
    "authorization-server-validate-audience": CREDENTIAL,
    "authorization-server-401-invalid-token": CREDENTIAL,
    "authorization-client-only-as-issued-tokens": CREDENTIAL,
    "authorization-server-401-authorization-required": CREDENTIAL,  # whether the request carried a token
    "authorization-server-enforce-token-expiry": CREDENTIAL,
    "authorization-client-refresh-token-confidential": CREDENTIAL,
    "authorization-client-no-credential-reuse-across-as": CREDENTIAL,
    # the protected resource metadata document's contents
    "authorization-server-protected-resource-metadata": METADATA_DOCUMENT,
    "authorization-server-prm-authorization-servers": METADATA_DOCUMENT,
    # umbrella rows over other specifications
    "authorization-client-oauth21": OTHER_SPECIFICATION,
    "authorization-client-cimd-follow-draft": OTHER_SPECIFICATION,
    "authorization-token-use-oauth21-section5": OTHER_SPECIFICATION,
    "authorization-oauth21-security-practices": OTHER_SPECIFICATION,
    "authorization-communication-security": OTHER_SPECIFICATION,
    "authorization-http-transport-conform": RESTATES_OTHER_ROWS,  # the authorization rows, each its own
    "authorization-client-base-url-strip-path": RESTATES_OTHER_ROWS,  # authorization-client-metadata-at-base-url
    "authorization-other-transport-best-practice": CUSTOM_TRANSPORT,
    # the client's document, served elsewhere than the MCP session
    "authorization-client-cimd-https-hosting": OUTSIDE_THE_SESSION,
    "authorization-client-cimd-required-properties": OUTSIDE_THE_SESSION,
    "authorization-client-cimd-client-id-matches-url": OUTSIDE_THE_SESSION,
    "authorization-server-no-token-passthrough": OUTSIDE_THE_SESSION,  # the server's calls to upstream APIs
    "authorization-client-static-credentials": DOCUMENTATION,  # a configuration it offers
    "authorization-server-third-party-token-chaining": DOCUMENTATION,  # an assessment of risks
    "authorization-server-proxy-consent-per-client": USER_INTERFACE,
    "authorization-client-dcr-rejection-reported": USER_INTERFACE,
    "authorization-server-consistent-scope-sets": JUDGEMENT,
    "authorization-server-consistent-scope-inclusion": JUDGEMENT,
    "authorization-server-scope-ux-impact": JUDGEMENT,
    "authorization-client-step-up-retry-limit": OVER_TIME,
    # what it stores, compares, needs or decides
    "authorization-client-parse-www-authenticate": INTERNAL_STATE,  # how it reads a challenge
    "authorization-client-no-scope-set-assumption": INTERNAL_STATE,
    "authorization-client-least-privilege-scopes": INTERNAL_STATE,  # what its operations need
    "authorization-accept-uppercase-scheme-host": INTERNAL_STATE,  # how it compares URIs
    "authorization-server-400-malformed-request": INTERNAL_STATE,  # which requests it takes as malformed
    "authorization-server-insufficient-scope-required-scopes": INTERNAL_STATE,  # which scopes would do
    "authorization-server-all-required-scopes-in-one-challenge": INTERNAL_STATE,  # which scopes an operation needs
    "authorization-server-honours-scope-hierarchy": INTERNAL_STATE,
    "authorization-client-step-up-track-attempts": INTERNAL_STATE,
    "authorization-client-secure-token-storage": INTERNAL_STATE,
    "authorization-server-secure-token-storage": INTERNAL_STATE,
    "authorization-server-validate-before-processing": INTERNAL_STATE,
    "authorization-server-no-data-to-unauthorized": INTERNAL_STATE,  # who is authorized for what
    "authorization-server-third-party-token-mapping": INTERNAL_STATE,
    "authorization-server-third-party-token-status": INTERNAL_STATE,
    "authorization-server-third-party-token-lifecycle": INTERNAL_STATE,
    "authorization-server-third-party-token-expiry": INTERNAL_STATE,
    "authorization-server-third-party-credential-storage": INTERNAL_STATE,
    "authorization-server-third-party-session-timeout": INTERNAL_STATE,
    "authorization-server-third-party-error-handling": INTERNAL_STATE,
    "authorization-client-records-expected-issuer": INTERNAL_STATE,
    "authorization-client-iss-compared-unnormalized": INTERNAL_STATE,
    "authorization-client-iss-mismatch-error-ignored": INTERNAL_STATE,
    "authorization-client-refresh-token-not-assumed": INTERNAL_STATE,
    "authorization-client-per-as-registration-state": INTERNAL_STATE,
    "authorization-client-credentials-keyed-by-issuer": INTERNAL_STATE,
    "authorization-client-preregistered-as-mismatch-error": INTERNAL_STATE,
}
EXCLUDED_BY_ID.update(AUTHORIZATION_ROWS)


@dataclass(frozen=True)
class Exclusion:
    requirement: str
    reason: str


@cache
def catalogue() -> dict[str, Any]:
    return json.loads(CATALOGUE.read_text(encoding="utf-8"))


def rows() -> dict[str, dict]:
    return {row["id"]: row for row in catalogue()["requirements"]}


def revisions() -> list[str]:
    return list(catalogue()["revisions"])


@cache
def checks() -> tuple[Check, ...]:
    """Every check: the hand-written ones, then one per schema row."""
    generated = [schema_check(row) for row in rows().values() if row["area"] == "schema"]
    return (*CHECKS, *generated)


@cache
def judged_by() -> dict[str, Check]:
    """requirement id -> the check that judges it."""
    found: dict[str, Check] = {}
    for check in checks():
        for requirement in check.requirements:
            found[requirement] = check
    return found


def exclusion_reason(row: dict) -> str:
    if row["id"] in EXCLUDED_BY_ID:
        return EXCLUDED_BY_ID[row["id"]]
    for reason, test in EXCLUSION_RULES:
        if test(row):
            return reason
    return NO_CHECK_YET


@cache
def exclusions() -> dict[str, Exclusion]:
    """requirement id -> its exclusion, for every row no check judges."""
    judged = judged_by()
    return {
        requirement: Exclusion(requirement, exclusion_reason(row))
        for requirement, row in rows().items()
        if requirement not in judged
    }


def sides_of(row: dict) -> frozenset[str]:
    return frozenset({"client", "server"}) if row["side"] == "both" else frozenset({row["side"]})


@dataclass(frozen=True)
class Accounting:
    """The registry's account of the catalogue, cell by (requirement, revision)."""

    judged: int  # (row, revision) pairs a check judges
    excluded: Counter  # reason -> (row, revision) pairs
    unaccounted: list[tuple[str, str]]
    unknown: list[str]  # ids a check names that the catalogue does not have
    rows_judged: int
    rows_excluded: Counter  # reason -> rows


def account() -> Accounting:
    catalogue_rows = rows()
    judged, excluded, unaccounted = 0, Counter(), []
    rows_excluded: Counter = Counter()
    for requirement, row in catalogue_rows.items():
        exclusion = exclusions().get(requirement)
        if exclusion is not None:
            rows_excluded[exclusion.reason] += 1
        for revision in row["revisions"]:
            if requirement in judged_by():
                judged += 1
            elif exclusion is not None:
                excluded[exclusion.reason] += 1
            else:
                unaccounted.append((requirement, revision))
    unknown = sorted({r for check in checks() for r in check.requirements if r not in catalogue_rows})
    rows_judged = sum(1 for requirement in catalogue_rows if requirement in judged_by())
    return Accounting(judged, excluded, unaccounted, unknown, rows_judged, rows_excluded)


def describe() -> str:
    """The registry as a reader checks it: totals, then every row with the check that judges it or the
    reason it is excluded (``python -m conformance.validator.registry``)."""
    accounting = account()
    lines = [
        f"{len(checks())} checks judge {accounting.rows_judged} rows ({accounting.judged} row-revision cells); "
        f"{sum(accounting.rows_excluded.values())} rows ({sum(accounting.excluded.values())} cells) excluded; "
        f"{len(accounting.unaccounted)} unaccounted",
    ]
    for reason, count in accounting.rows_excluded.most_common():
        lines.append(f"  excluded {count:4d} rows, {accounting.excluded[reason]:4d} cells: {reason}")
    for requirement, row in sorted(rows().items()):
        check = judged_by().get(requirement)
        verdict = f"check {check.name}" if check else f"excluded: {exclusions()[requirement].reason}"
        lines.append(
            f"{requirement}  [{row['level']}, {row['side']}, {row['revisions'][0]}..{row['revisions'][-1]}]  {verdict}"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(describe(), end="")
