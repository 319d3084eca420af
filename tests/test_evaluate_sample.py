"""The trap set on the bundled sample: VALID against the unfiltered baseline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from valid.cli import main
from valid.evaluate.report import gather, junit_xml, write_report
from valid.evaluate.run import evaluate
from valid.index import Store, open_active

ROOT = Path(__file__).resolve().parents[1]
TRAPSET = ROOT / "sidecar" / "valid" / "data" / "trapset-cloud-tpu.jsonl"


@pytest.fixture(scope="module")
def evaluated(sample_build, tmp_path_factory):
    # The evaluation writes a baseline release and gap issues into its state: work on a copy.
    base = tmp_path_factory.mktemp("trapset")
    shutil.copytree(sample_build.state, base / "state")
    card, raw = evaluate(TRAPSET, base / "state")
    return base, card, raw


def cells(card, arm, stratum=None):
    return [c for c in card.cells if c.arm == arm and (stratum is None or c.stratum == stratum)]


def test_every_cell_is_present_for_both_arms(evaluated):
    _, card, _ = evaluated
    questions = [json.loads(line)["id"] for line in TRAPSET.read_text().splitlines() if line.strip()]
    for arm in ("valid", "baseline"):
        assert [c.question_id for c in cells(card, arm)] == questions
    assert all(set(pair) == {"question", "valid", "baseline"} and "missing" not in pair.values() for pair in card.paired)


def test_no_wrong_generation_answer_reaches_a_reader(evaluated):
    _, card, _ = evaluated
    assert card.arms["valid"].total.counts["wrong_generation"] == 0


def test_at_least_90_percent_of_the_scoped_questions_are_right(evaluated):
    _, card, _ = evaluated
    scoped = cells(card, "valid", "scoped")
    assert len(scoped) >= 60
    assert sum(c.correct for c in scoped) >= 0.9 * len(scoped)


def test_unscoped_questions_are_asked_with_the_expected_choices(evaluated):
    # A regression guard over both halves, none answered wrongly (the 90% bar is read on
    # the test half, in docs/scorecard.md; the later blind dev questions hold one fact on which
    # VALID also offers TPU7x, ten times; 83% on Cloud TPU and 86% on Corvane at this writing).
    _, card, _ = evaluated
    unscoped = cells(card, "valid", "unscoped")
    assert len(unscoped) >= 10
    assert sum(c.category == "asked" and c.correct for c in unscoped) >= 0.8 * len(unscoped)
    assert not any(c.category == "wrong_generation" for c in unscoped)


def test_each_two_generation_question_gets_one_answer_or_one_column_per_generation(evaluated):
    _, card, raw = evaluated
    answers = {item["question"]: item["answer"] for item in raw["valid"]}
    two = cells(card, "valid", "two-generation")
    assert len(two) >= 10
    for cell in two:
        obj = answers[cell.question_id]
        assert len(obj["scope"]) == 2
        if obj["outcome"] == "compare":  # "Chips per VM: Trillium vs Ironwood" compares (docs/compare.md)
            assert obj["comparison"]["generations"] == obj["scope"]
            continue
        assert obj["outcome"] == "answer"
        assert sorted(g for a in obj["answers"] for g in a["generations"]) == sorted(obj["scope"])


def test_out_of_domain_questions_are_refused(evaluated):
    _, card, _ = evaluated
    assert all(c.category == "refused" for c in cells(card, "valid", "out-of-domain"))


def test_citations_in_scope_and_values_grounded_are_complete(evaluated):
    _, card, _ = evaluated
    arm = card.arms["valid"]
    assert arm.citations > 0 and arm.citations_in_scope == arm.citations
    assert arm.steps > 0 and arm.steps_grounded == arm.steps
    assert card.gate.passed, card.gate.reasons


def test_the_baseline_is_scored_on_the_same_cells_and_can_fail(evaluated):
    # The baseline has no scope: the trap set exists because it answers with other generations' values.
    _, card, _ = evaluated
    baseline = card.arms["baseline"]
    assert baseline.total.questions == card.arms["valid"].total.questions
    assert baseline.total.counts["wrong_generation"] > 0
    assert baseline.total.counts["asked"] == 0 and baseline.total.counts["refused"] == 0


def test_validation_report_has_html_json_and_junit(evaluated, tmp_path):
    base, card, _ = evaluated
    with open_active(Store(base / "state")) as release:
        report = gather(release, card)
    paths = write_report(report, tmp_path)
    assert {"html", "json", "junit", "scorecard", "chart"} <= set(paths)
    assert "create-tpu-vm.dita" in paths["html"].read_text()  # the planted trap's finding
    junit = junit_xml(report)
    assert 'name="gate"' in junit and 'name="trapset"' in junit and 'name="audit"' in junit
    assert json.loads(paths["json"].read_text())["release"] == release.id


def test_eval_command_exits_zero_when_the_gate_passes(evaluated, tmp_path):
    base, _, _ = evaluated
    result = CliRunner().invoke(
        main, ["eval", str(TRAPSET), "--state", str(base / "state"), "--no-baseline", "--report", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "gate passed" in result.output
    assert (tmp_path / "scorecard.svg").read_text().startswith("<svg")


def test_report_command_takes_the_export_a_pipeline_passes_and_can_run_the_trap_set(evaluated, tmp_path):
    # The DITA-OT plugin's post-step runs `valid report EXPORT --state S`.
    base, _, _ = evaluated
    export_path = tmp_path / "chunks.jsonl"
    export_path.write_bytes((base / "state" / "baseline" / "baseline-export.jsonl").read_bytes())
    result = CliRunner().invoke(main, ["report", str(export_path), "--state", str(base / "state"), "--trapset", str(TRAPSET)])
    assert result.exit_code == 0, result.output
    written = tmp_path / "valid-report"
    report = json.loads((written / "report.json").read_text())
    assert report["export"]["profiles"][0]["name"] == "all"  # the export given, not the release's own
    assert report["scorecard"]["gate"]["passed"] is True
    assert (written / "junit.xml").is_file()
