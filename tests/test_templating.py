"""Every HTML page VALID writes goes through the one Jinja2 environment (valid.templating): what a
reader typed, or a doc set's text, with markup in it is shown as text on each of them."""

import sys
import tomllib
from importlib import resources
from pathlib import Path

import jinja2
import pytest

from valid.contracts import ExportCounts, ExportHeader, ProfileInfo
from valid.evaluate.report import ValidationReport, render_html as validation_report
from valid.evaluate.score import Cell
from valid.evaluate.scorecard import build_scorecard, render_html as scorecard_page, render_svg
from valid.index.report import Changes, EmbeddingCounts, IndexReport, to_html as index_report
from valid.questionlog.dashboard import render as dashboard
from valid.serve.answerer import Generation
from valid.serve.routes.page import STATIC, render_page
from valid.serve.schemas import SourceChunkView, SourceView
from valid.serve.sources import render_source_page
from valid.wording import DocSetFacts, wording_for

sys.path.insert(0, str(Path(__file__).parent))
from test_log_cli import ROWS  # noqa: E402

QUESTION = """<script>alert("x")</script> & 'why' <img src=x>"""
ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;why&#x27; &lt;img src=x&gt;"


def shows_it_as_text(page: str) -> None:
    assert "<script>alert" not in page and "<img src=x" not in page
    assert ESCAPED in page


def test_a_readers_question_with_markup_is_escaped_on_the_question_log_dashboard():
    entries = [{**row, "id": n, "question": QUESTION, "typed": None, "rating": "down", "reasons": [], "comment": QUESTION,
                "asked_at": f"2026-11-2{n}T10:00:00.000+00:00", "gap_issues": [QUESTION]} for n, row in enumerate(ROWS)]
    page = dashboard(entries, title=QUESTION, scope_note=QUESTION)
    shows_it_as_text(page)
    assert page.count(ESCAPED) >= 5  # title, heading, scope note, refused question, its gap issue, down-voted rows


def test_a_readers_question_with_markup_is_escaped_on_the_ask_page():
    words = {**wording_for(DocSetFacts()), "title": QUESTION, "question_help": QUESTION, "answer_region": QUESTION}
    page = render_page((STATIC / "index.html").read_text(encoding="utf-8"), words)
    shows_it_as_text(page)
    assert f'aria-label="{ESCAPED}"' in page, "an attribute value cannot be closed by a quote"


def test_a_source_with_markup_is_escaped_on_the_source_view():
    chunk = SourceChunkView(id="a.dita#t/s", anchor=QUESTION, title=QUESTION, text=QUESTION, breadcrumbs=[QUESTION, QUESTION],
                            line=3, scope=["v5p"])
    view = SourceView(release=QUESTION, path=QUESTION, generation="v5p", chunks=[chunk], hidden=1)
    page = render_source_page(view, [Generation(name="v5p", label=QUESTION)])
    shows_it_as_text(page)
    assert f'id="{ESCAPED}"' in page


def cell(question_id: str, arm: str, correct: bool) -> Cell:
    return Cell(question_id=question_id, arm=arm, stratum="scoped", outcome="answer", category="right" if correct else "wrong_generation",
                correct=correct, reasons=[] if correct else ["r"], citations=1, citations_in_scope=1, steps=1, steps_grounded=1)


def test_a_question_with_markup_is_escaped_on_the_scorecard_its_chart_and_the_validation_report():
    card = build_scorecard([cell("ok", "valid", True), cell(QUESTION, QUESTION, False)], QUESTION, QUESTION)
    header = ExportHeader(map=QUESTION, profiles=[ProfileInfo(name="v5p", labels=[QUESTION], ditaval_digest="0" * 64)],
                          exporter_version="0", stylesheet_digest="0" * 64,
                          counts=ExportCounts(chunks=1, kept_by_no_profile=0, per_profile={"v5p": 1}))
    report = ValidationReport(release=QUESTION, export=header, index={QUESTION: QUESTION}, findings=[], scorecard=card)
    for page in (scorecard_page(card), validation_report(report)):
        shows_it_as_text(page)
    svg = render_svg(card)
    assert "<script>alert" not in svg and ESCAPED.split(" &amp;")[0] in svg


def test_a_finding_with_markup_is_escaped_on_the_index_report():
    report = IndexReport(
        release_id="a" * 64, reused_release=False, activated=True, map=QUESTION, source_commit=None, profiles={"v5p": QUESTION},
        chunks=1, per_profile={"v5p": 1}, by_scope_origin={}, changes=Changes(previous_release=None),
        embedding=EmbeddingCounts(embedder="offline", dimension=8, inputs=1, embedded=1, reused=0),
        findings=[{"message": QUESTION}], store="s", collection=QUESTION, metadata_fields=[], bm25_rows=1,
        bm25_tokenizer="t", timings={}, built_at="now",
    )
    shows_it_as_text(index_report(report))


def test_a_word_the_page_asks_for_and_the_catalogue_lacks_is_an_error_not_a_blank():
    words = wording_for(DocSetFacts())
    del words["tagline"]
    with pytest.raises(jinja2.UndefinedError):
        render_page((STATIC / "index.html").read_text(encoding="utf-8"), words)


def test_every_template_ships_with_the_package():
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = pyproject["tool"]["setuptools"]["package-data"]["valid"]
    assert "templates/*" in shipped and "serve/static/*" in shipped
    templates = resources.files("valid") / "templates"
    assert {p.name for p in templates.iterdir()} >= {"dashboard.html", "source.html", "scorecard.html", "validation_report.html",
                                                     "index_report.html"}
    assert all(p.is_file() for p in templates.iterdir()), "templates/* ships files, no subfolders"
