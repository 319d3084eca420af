"""The scorecard's gate and the JUnit XML, on hand-made cells."""

from xml.etree import ElementTree as ET

from valid.contracts import ExportCounts, ExportHeader, ProfileInfo
from valid.evaluate.report import ValidationReport, junit_xml
from valid.evaluate.score import Cell
from valid.evaluate.scorecard import build_scorecard, render_svg

HEADER = ExportHeader(
    map="m.ditamap",
    profiles=[ProfileInfo(name="v5p", labels=["TPU v5p"], ditaval_digest="0" * 64)],
    exporter_version="0",
    stylesheet_digest="0" * 64,
    counts=ExportCounts(chunks=1, kept_by_no_profile=0, per_profile={"v5p": 1}),
)


def cell(qid, category, correct, stratum="scoped", arm="valid", citations=1, in_scope=1):
    return Cell(question_id=qid, arm=arm, stratum=stratum, outcome="answer", category=category, correct=correct,
                reasons=["r"] if not correct else [], citations=citations, citations_in_scope=in_scope,
                steps=1, steps_grounded=1)


def test_gate_fails_on_one_wrong_generation_answer_whatever_else_is_right():
    cells = [cell(f"q{i}", "right", True) for i in range(59)] + [cell("q59", "wrong_generation", False)]
    card = build_scorecard(cells, "t", None)
    assert not card.gate.passed
    assert card.gate.wrong_generation == 1


def test_gate_fails_below_54_of_60_even_without_wrong_answers():
    cells = [cell(f"q{i}", "right", True) for i in range(53)] + [cell(f"r{i}", "refused", False) for i in range(7)]
    card = build_scorecard(cells, "t", None)
    assert not card.gate.passed and "53/60" in card.gate.scoped_correct


def test_gate_fails_when_a_citation_is_out_of_scope():
    cells = [cell(f"q{i}", "right", True) for i in range(60)]
    cells[0] = cell("q0", "right", True, citations=2, in_scope=1)
    assert not build_scorecard(cells, "t", None).gate.passed


def test_gate_passes_with_safe_misses_only():
    cells = [cell(f"q{i}", "right", True) for i in range(54)] + [cell(f"r{i}", "refused", False) for i in range(6)]
    card = build_scorecard(cells, "t", None)
    assert card.gate.passed, card.gate.reasons


def test_junit_fails_only_wrong_generation_cells_and_failed_gates():
    cells = [cell("ok", "right", True), cell("safe", "refused", False), cell("bad", "wrong_generation", False)]
    card = build_scorecard(cells, "t", None)
    report = ValidationReport(release="r", export=HEADER, index=None, findings=[], scorecard=card)
    root = ET.fromstring(junit_xml(report).split("\n", 1)[1])
    trap = root.find("testsuite[@name='trapset']")
    failed = {case.get("name") for case in trap.findall("testcase") if case.find("failure") is not None}
    assert failed == {"bad"}
    gate = root.find("testsuite[@name='gate']")
    assert gate.find("testcase[@name='no wrong-generation answer']/failure") is not None
    assert int(root.get("failures")) >= 2


def test_chart_has_one_bar_group_per_arm_and_stratum():
    cells = [cell("a", "right", True), cell("a", "wrong_generation", False, arm="baseline")]
    svg = render_svg(build_scorecard(cells, "t", None))
    assert "valid · scoped" in svg and "baseline · scoped" in svg
