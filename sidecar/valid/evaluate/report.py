"""The publishing-pipeline validation report: one HTML page, JSON, and JUnit XML for CI systems.

It gathers what a docs merge must prove before readers see the new index: the export summary,
the index report of the active release, the audit findings, and the trap-set scorecard with its
gate. Everything is read from the active release and files already written; nothing is recomputed
from the DITA source.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from xml.etree import ElementTree as ET

from pydantic import BaseModel

from valid.audit.findings import Finding, find
from valid.audit.owned import owned_values
from valid.contracts import Export, ExportHeader
from valid.evaluate.scorecard import Scorecard, render_html as render_scorecard_html, render_svg
from valid.index.release import Release


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
    e = html.escape
    h = report.export
    profiles = "".join(
        f"<tr><th scope='row'>{e(p.name)}</th><td>{e(', '.join(p.labels))}</td><td>{h.counts.per_profile.get(p.name, 0)}</td></tr>"
        for p in h.profiles
    )
    findings = "".join(
        f"<li><code>{e(f.path)}:{f.line}</code> {e(f.chunk_id)} shows <code>{e(f.value)}</code>, owned by {e(', '.join(f.owners))} ({e(f.rule)})</li>"
        for f in report.findings
    ) or "<li>none</li>"
    index = report.index or {}
    index_rows = "".join(
        f"<tr><th scope='row'>{e(str(k))}</th><td>{e(json.dumps(v) if isinstance(v, (dict, list)) else str(v))}</td></tr>"
        for k, v in index.items()
        if not isinstance(v, (dict, list)) or len(json.dumps(v)) < 400
    )
    card = report.scorecard
    verdict = "no trap set run" if card is None else ("passed" if card.gate.passed else "FAILED")
    card_html = ""
    if card is not None:
        inner = render_scorecard_html(card)
        card_html = inner[inner.index("<h2>Gate") : inner.index("</body>")]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>VALID validation report</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:4px 8px;text-align:left}}
.pass{{color:#2e7d32}}.fail{{color:#c62828}}</style></head><body>
<h1>VALID validation report</h1>
<p>Release <code>{e(report.release)}</code>: <strong class="{'pass' if report.passed else 'fail'}">{verdict}</strong></p>
<h2>Export</h2>
<p>Map <code>{e(h.map)}</code>, {h.counts.chunks} chunks, {h.counts.kept_by_no_profile} elements kept by no profile,
source commit <code>{e(h.source_commit or '-')}</code>, exporter {e(h.exporter_version)}, stylesheets <code>{e(h.stylesheet_digest[:12])}</code>.</p>
<table><caption>Profiles</caption><tr><th scope="col">profile</th><th scope="col">names</th><th scope="col">chunks in scope</th></tr>{profiles}</table>
<h2>Audit findings ({len(report.findings)})</h2><ul>{findings}</ul>
<h2>Index</h2><table>{index_rows}</table>
{card_html}
</body></html>
"""


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
