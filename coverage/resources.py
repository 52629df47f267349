"""Coverage of the resources area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "#3",
        "catalogued, not yet tested",
        {
            "resources-capability-declared": "server",
            "resources-list-current-set": "server",
            "resources-list-set-may-be-empty": "server",
            "resources-list-set-may-change": "server",
            "resources-list-set-connection-independent": "server",
            "resources-list-set-may-vary-by-authorization": "server",
            "resources-read-multiple-contents": "server",
            "resources-list-changed-notify": "server",
            "resources-https-scheme-only-if-client-fetchable": "server",
            "resources-https-otherwise-other-scheme": "server",
            "resources-file-xdg-mime-type": "server",
            "resources-custom-uri-scheme-rfc3986": "server",
            "resources-not-found-error-code": "server",
            "resources-read-not-found-invalid-params": "server",
            "resources-internal-error-code": "server",
            "resources-read-not-found-no-empty-contents": "server",
            "resources-validate-uris": "server",
            "resources-access-control": "server",
            "resources-binary-encoding": "server",
            "resources-permission-check": "server",
            "resources-file-path-sanitized": "server",
        },
    ),
]
