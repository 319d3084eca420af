"""The publishing-pipeline validation report: one HTML page, JSON, and JUnit XML for CI systems.

It gathers what a docs merge must prove before readers see the new index: the export summary,
the index report of the active release, the audit findings, and the trap-set scorecard with its
gate. Everything is read from the active release and files already written; nothing is recomputed
from the DITA source.
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

from pydantic import BaseModel

from valid.audit.findings import Finding, find
from valid.audit.owned import owned_values
from valid.contracts import Export, ExportHeader
from valid.evaluate.scorecard import Scorecard, render_html as render_scorecard_html, render_svg, scorecard_context
from valid.index.release import Release
from valid.templating import render


class ValidationReport(BaseModel):
    release: str
    export: ExportHeader
    index: dict | None
    findings: list[Finding]
    scorecard: Scorecard | None

    @property
    def passed(self) -> bool:
        return self.scorecard is None or self.scorecard.gate.passed


def gather(release: Release, scorecard: Scorecard | None, export: Export | None = None) -> ValidationReport:
    """The report of the active release; `export`, when given (a pipeline's fresh export), is what
    the export summary and the audit describe instead of the release's own chunks."""
    if export is None:
        export = Export(header=release.header, chunks=release.get_chunks(release.all_chunk_ids()))
    findings = find(export, owned_values(export))
    index_path = release.path / "report.json"
    index = json.loads(index_path.read_text(encoding="utf-8")) if index_path.is_file() else None
    return ValidationReport(release=release.id, export=export.header, index=index, findings=findings, scorecard=scorecard)


def junit_xml(report: ValidationReport) -> str:
    """Suites: the gate (one case per criterion), the audit (one case per finding), the trap set
    (one case per VALID question; only a wrong-generation answer is a failure there, since a refusal
    or a question back is a designed outcome that the gate counts)."""
    suites = ET.Element("testsuites", name="valid")

    def suite(name: str) -> ET.Element:
        return ET.SubElement(suites, "testsuite", name=name)

    def case(parent: ET.Element, name: str, failure: str | None = None, out: str | None = None) -> None:
        el = ET.SubElement(parent, "testcase", classname=parent.get("name"), name=name)
        if failure:
            ET.SubElement(el, "failure", message=failure).text = failure
        if out:
            ET.SubElement(el, "system-out").text = out

    audit = suite("audit")
    if report.findings:
        for finding in report.findings:
            case(audit, finding.fingerprint[:12], failure=finding.summary())
    else:
        case(audit, "no shared chunk shows a value owned by one generation")

    if report.scorecard is not None:
        gate = suite("gate")
        g = report.scorecard.gate
        case(gate, "no wrong-generation answer", f"{g.wrong_generation} wrong-generation answer(s)" if g.wrong_generation else None)
        n, d = g.citations_in_scope.split("/")
        case(gate, "every citation in scope", None if n == d else f"citations in scope {g.citations_in_scope}")
        n, d = g.values_grounded.split("/")
        case(gate, "every value grounded in its cited chunk", None if n == d else f"values grounded {g.values_grounded}")
        scoped_failures = [r for r in g.reasons if r.startswith("scoped questions")]
        case(gate, "at least 90% of scoped questions right", scoped_failures[0] if scoped_failures else None, g.scoped_correct)
        trap = suite("trapset")
        for cell in report.scorecard.cells:
            if cell.arm != "valid":
                continue
            failure = "; ".join(cell.reasons) if cell.category == "wrong_generation" or cell.error else None
            case(trap, cell.question_id, failure, f"{cell.outcome}: {cell.category}")

    for el in suites:
        el.set("tests", str(len(el.findall("testcase"))))
        el.set("failures", str(len(el.findall("testcase/failure"))))
    suites.set("tests", str(sum(int(s.get("tests")) for s in suites)))
    suites.set("failures", str(sum(int(s.get("failures")) for s in suites)))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def render_html(report: ValidationReport) -> str:
    card = report.scorecard
    verdict = "no trap set run" if card is None else ("passed" if card.gate.passed else "FAILED")
    index_rows = [
        (str(k), json.dumps(v) if isinstance(v, (dict, list)) else str(v))
        for k, v in (report.index or {}).items()
        if not isinstance(v, (dict, list)) or len(json.dumps(v)) < 400
    ]
    context = scorecard_context(card) if card is not None else {"card": None}
    return render("validation_report.html", report=report, h=report.export, verdict=verdict, index_rows=index_rows, **context)


def write_report(report: ValidationReport, out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "html": out_dir / "report.html",
        "json": out_dir / "report.json",
        "junit": out_dir / "junit.xml",
    }
    paths["html"].write_text(render_html(report), encoding="utf-8")
    paths["json"].write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    paths["junit"].write_text(junit_xml(report), encoding="utf-8")
    if report.scorecard is not None:
        paths["scorecard"] = out_dir / "scorecard.json"
        paths["scorecard"].write_text(report.scorecard.model_dump_json(indent=2) + "\n", encoding="utf-8")
        paths["scorecard_html"] = out_dir / "scorecard.html"
        paths["scorecard_html"].write_text(render_scorecard_html(report.scorecard), encoding="utf-8")
        paths["chart"] = out_dir / "scorecard.svg"
        paths["chart"].write_text(render_svg(report.scorecard), encoding="utf-8")
    return paths
