"""Coverage of the schema area: what each side sends of each message type is valid against the
revision's published definition (conformance/test_schema.py).

Loaded by path (this folder is not a package); see conformance/matrix/covers.py.
"""

from conformance.matrix.covers import Cover, Gap, gaps
from conformance.catalogue.rows import load_catalogue

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "#9",
        "catalogued; the per-message-type tests arrive with issue 9 item 5",
        {r.id: r.side for r in load_catalogue().requirements if r.area == "schema"},
    ),
]
