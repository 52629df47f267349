"""The report document (outcomes.judge) rendered as text, JSON, JUnit XML or SARIF 2.1.0.

Every format renders the same document, so they cannot disagree; none holds a time or anything else
that varies between runs, so the same traces give the same bytes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any
from xml.etree import ElementTree

from conformance.validator.outcomes import EXCLUDED, FAIL, NOT_APPLICABLE, NOT_OBSERVED, OUTCOMES, PASS, WARN

TOOL_NAME = "mcp-matrix validate"
TOOL_URI = "https://github.com/modelcontextprotocol/modelcontextprotocol"  # the spec the rules come from
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

Document = dict[str, Any]


def _judged(trace: Document) -> Iterator[Document]:
    return (r for r in trace["requirements"] if r["outcome"] != EXCLUDED)


def _totals_line(totals: dict[str, int]) -> str:
    return ", ".join(f"{totals[outcome]} {outcome}" for outcome in OUTCOMES)


def render_text(document: Document) -> str:
    lines: list[str] = []
    for trace in document["traces"]:
        lines.append(f"trace {trace['source']}: {trace['events']} events")
        lines.append(f"  revision {trace['revision'] or '(none)'}, from {trace['revision_evidence']}")
        lines.extend(f"  note: {note}" for note in trace["notes"])
        by_outcome: dict[str, list[Document]] = {}
        for requirement in trace["requirements"]:
            by_outcome.setdefault(requirement["outcome"], []).append(requirement)
        for outcome in (FAIL, WARN):
            for requirement in by_outcome.get(outcome, []):
                lines.append(
                    f"  {outcome.upper()} {requirement['id']} ({requirement['level']}, {requirement['side']}), "
                    f"check {requirement['check']}, {requirement['subjects']} subject(s)"
                )
                for finding in requirement["findings"]:
                    lines.append(f"    seq {finding['seq']}: {finding['reason']}")
                lines.append(f"    clause ({requirement['source']}): {requirement['clause']}")
        for requirement in by_outcome.get(PASS, []):
            lines.append(f"  pass {requirement['id']} ({requirement['subjects']} subject(s))")
        for outcome in (NOT_APPLICABLE, NOT_OBSERVED):
            names = [r["id"] for r in by_outcome.get(outcome, [])]
            if names:
                lines.append(f"  {outcome} ({len(names)}): {', '.join(names)}")
        reasons = Counter(r["reason"] for r in by_outcome.get(EXCLUDED, []))
        for reason, count in sorted(reasons.items()):
            lines.append(f"  excluded ({count}): {reason}")
        lines.append(f"  totals: {_totals_line(trace['totals'])}")
        lines.append(f"  verdict: {trace['verdict']}")
    lines.append(f"all traces: {_totals_line(document['totals'])}")
    lines.append(f"verdict: {document['verdict']} (exit code {document['exit_code']})")
    return "\n".join(lines) + "\n"


def render_json(document: Document) -> str:
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def render_junit(document: Document) -> str:
    """One testsuite per trace, one testcase per judged requirement: fail as failure, warn as failure only
    under --strict (else a passing case with its finding in system-out), not-applicable and not-observed
    as skipped. Excluded rows are left out: they are not tests."""
    suites = ElementTree.Element("testsuites", name=TOOL_NAME)
    for trace in document["traces"]:
        cases = list(_judged(trace))
        failed = sum(1 for r in cases if r["outcome"] == FAIL or (r["outcome"] == WARN and document["strict"]))
        skipped = sum(1 for r in cases if r["outcome"] in (NOT_APPLICABLE, NOT_OBSERVED))
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=trace["source"],
            tests=str(len(cases)),
            failures=str(failed),
            errors="0",
            skipped=str(skipped),
        )
        properties = ElementTree.SubElement(suite, "properties")
        ElementTree.SubElement(properties, "property", name="revision", value=str(trace["revision"]))
        ElementTree.SubElement(properties, "property", name="verdict", value=trace["verdict"])
        for requirement in cases:
            case = ElementTree.SubElement(
                suite, "testcase", classname=f"{trace['revision']}.{requirement['level']}", name=requirement["id"]
            )
            detail = "\n".join(f"seq {f['seq']}: {f['reason']}" for f in requirement["findings"])
            if requirement["outcome"] == FAIL or (requirement["outcome"] == WARN and document["strict"]):
                failure = ElementTree.SubElement(case, "failure", message=requirement["findings"][0]["reason"])
                failure.text = f"{detail}\nclause ({requirement['source']}): {requirement['clause']}"
            elif requirement["outcome"] in (NOT_APPLICABLE, NOT_OBSERVED):
                ElementTree.SubElement(case, "skipped", message=f"{requirement['outcome']}: {requirement['reason']}")
            elif requirement["outcome"] == WARN:
                ElementTree.SubElement(case, "system-out").text = f"warn\n{detail}"
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"


SARIF_LEVEL = {FAIL: "error", WARN: "warning", PASS: "none", NOT_APPLICABLE: "none", NOT_OBSERVED: "none"}
SARIF_KIND = {FAIL: "fail", WARN: "fail", PASS: "pass", NOT_APPLICABLE: "notApplicable", NOT_OBSERVED: "open"}


def render_sarif(document: Document) -> str:
    """SARIF 2.1.0: one run, a rule per judged requirement, a result per finding (located at the trace line's
    seq as a logical location, the trace as the artifact) and one per requirement without findings."""
    rule_ids = sorted({r["id"] for t in document["traces"] for r in _judged(t)})
    levels = {r["id"]: r for t in document["traces"] for r in _judged(t)}
    rules = [
        {
            "id": rule_id,
            "shortDescription": {"text": f"{levels[rule_id]['level']} ({levels[rule_id]['side']})"},
            "helpUri": f"{TOOL_URI}#{levels[rule_id]['source']}",
            "properties": {"level": levels[rule_id]["level"], "check": levels[rule_id]["check"]},
        }
        for rule_id in rule_ids
    ]
    index = {rule_id: position for position, rule_id in enumerate(rule_ids)}
    results = []
    for trace in document["traces"]:
        location = {"physicalLocation": {"artifactLocation": {"uri": trace["source"]}}}
        for requirement in _judged(trace):
            base = {"ruleId": requirement["id"], "ruleIndex": index[requirement["id"]]}
            outcome = requirement["outcome"]
            if requirement["findings"]:
                for finding in requirement["findings"]:
                    results.append(
                        base
                        | {
                            "kind": SARIF_KIND[outcome],
                            "level": SARIF_LEVEL[outcome],
                            "message": {"text": f"seq {finding['seq']}: {finding['reason']}"},
                            "locations": [location | {"logicalLocations": [{"name": f"seq {finding['seq']}"}]}],
                            "properties": {"seq": finding["seq"], "revision": trace["revision"]},
                        }
                    )
            else:
                text = requirement["reason"] or f"{requirement['subjects']} subject(s), nothing wrong"
                results.append(
                    base
                    | {
                        "kind": SARIF_KIND[outcome],
                        "level": "none",
                        "message": {"text": f"{outcome}: {text}"},
                        "locations": [location],
                        "properties": {"subjects": requirement["subjects"], "revision": trace["revision"]},
                    }
                )
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": TOOL_NAME, "informationUri": TOOL_URI, "rules": rules}},
                "results": results,
                "properties": {"verdict": document["verdict"], "exitCode": document["exit_code"]},
            }
        ],
    }
    return json.dumps(sarif, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


RENDERERS: dict[str, Callable[[Document], str]] = {
    "text": render_text,
    "json": render_json,
    "junit": render_junit,
    "sarif": render_sarif,
}
