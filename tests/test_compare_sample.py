"""Comparisons on the bundled samples: computed from the export's variants and scopes, every cell
cited on its own side.

The Cloud TPU sample is exported with `valid export` and indexed into a real release (offline
embedder); each question goes through `valid.answer` as readers ask it.
"""

import json

import pytest

from valid.answer.wiring import open_engine
from valid.contracts import Chunk


@pytest.fixture(scope="module")
def engine(sample_build, tmp_path_factory):
    work = tmp_path_factory.mktemp("compare")
    with open_engine(sample_build.state, issues_dir=work / "issues", log_path=work / "q.sqlite") as running:
        yield running


@pytest.fixture(scope="module")
def scopes(sample_build):
    lines = sample_build.export.read_text(encoding="utf-8").splitlines()[1:]
    return {c.id: set(c.in_scope()) for c in (Chunk.model_validate_json(line) for line in lines)}


def rows(answer, kind=None):
    return [r for r in answer.comparison.rows if kind is None or r.kind == kind]


def cell(row, generation):
    return next(c for c in row.cells if c.generation == generation)


def every_cell_is_cited_in_its_own_scope(answer, scopes):
    for row in answer.comparison.rows:
        for c in row.cells:
            assert c.cite is not None and c.generation in scopes[c.cite], (row.topic, c)


def test_a_variant_pair_shows_each_generations_software_version_on_its_own_side(engine, scopes):
    answer = engine.ask("Which software version replaced v2-alpha-tpuv5 on v6e?").answer
    assert answer.outcome == "compare" and answer.scope == ["v5p", "v6e"]
    versions = next(r for r in rows(answer, "differs") if "v2-alpha-tpuv5" in cell(r, "v5p").values)
    assert cell(versions, "v5p").values == ["v2-alpha-tpuv5"] and cell(versions, "v6e").values == ["v2-alpha-tpuv6e"]
    assert cell(versions, "v5p").cite == "runtimes.dita#runtimes/versions~v5p"
    assert cell(versions, "v6e").cite == "runtimes.dita#runtimes/versions~v6e"
    for row in answer.comparison.rows:  # no value crosses to the other side
        assert "v2-alpha-tpuv6e" not in cell(row, "v5p").text and "v2-alpha-tpuv5" not in cell(row, "v6e").text
    every_cell_is_cited_in_its_own_scope(answer, scopes)
    assert answer.checks["passed"] is True and answer.checks["out_of_scope_values"] == 0


def test_the_tpu7x_capacity_procedure_exists_for_tpu7x_only_and_the_other_side_cites_its_nearest_content(engine, scopes):
    answer = engine.ask("What is new for TPU7x compared to v6e when you create capacity?").answer
    only = [r for r in rows(answer, "only") if "create-tpu7x-capacity" in (cell(r, "tpu7x").cite or "")]
    assert only, [r.topic for r in answer.comparison.rows]
    tpu7x, v6e = cell(only[0], "tpu7x"), cell(only[0], "v6e")
    assert tpu7x.present and not v6e.present
    assert v6e.text.startswith("Not in the TPU v6e (Trillium) documentation.")
    assert scopes[v6e.cite] >= {"v6e"}  # the absence is shown with v6e's own nearest content
    every_cell_is_cited_in_its_own_scope(answer, scopes)


def test_a_shared_procedure_is_reported_as_shared_and_nothing_differs_with_citations(engine, scopes):
    answer = engine.ask("Did the startup script procedure change between TPU v5p and TPU v6e?").answer
    assert answer.outcome == "compare"
    assert rows(answer, "differs") == [] and rows(answer, "only") == []
    shared = rows(answer, "shared")
    assert any(cell(r, "v5p").cite.startswith("create-tpu-vm.dita#create-with-startup-script/") for r in shared)
    for row in shared:  # one chunk both sides keep, cited on both
        assert cell(row, "v5p").cite == cell(row, "v6e").cite and scopes[cell(row, "v5p").cite] >= {"v5p", "v6e"}
    assert answer.comparison.summary.startswith("Nothing differs between TPU v5p and TPU v6e (Trillium)")


def test_a_generation_the_docs_do_not_cover_is_refused_and_the_other_side_stays(engine):
    answer = engine.ask("What changed from TPU v4 to TPU v6e?").answer
    assert answer.outcome == "compare" and answer.scope == ["v6e"]
    assert answer.refusal is not None and "TPU v4" in answer.refusal.reason and answer.refusal.gap_issue
    assert answer.comparison.generations == ["v6e"]
    assert all(c.generation == "v6e" for r in answer.comparison.rows for c in r.cells)


def test_with_one_documented_side_the_summary_says_there_is_nothing_to_compare_and_names_what_was_left_out(engine):
    answer = engine.ask("What changed from TPU v4 to TPU v6e?").answer
    assert answer.comparison.summary == "Only TPU v6e (Trillium) is documented here, so there is nothing to compare it with."
    assert answer.not_used == "Content profiled only for TPU v5p and TPU7x (Ironwood): not compared, excluded on purpose."


def test_availability_answers_yes_or_no_per_generation_with_its_own_evidence(engine, scopes):
    answer = engine.ask("Is TensorFlow still supported on Ironwood, as it is on v5p?").answer
    assert answer.outcome == "compare" and answer.comparison.kind == "availability"
    (row,) = answer.comparison.rows
    assert cell(row, "v5p").available is True and cell(row, "tpu7x").available is False
    assert "TensorFlow is not supported" in cell(row, "tpu7x").text
    every_cell_is_cited_in_its_own_scope(answer, scopes)


def test_a_procedure_one_generation_has_is_available_there(engine):
    answer = engine.ask("Is the startup-script procedure available on TPU7x?").answer
    (row,) = answer.comparison.rows
    assert cell(row, "tpu7x").available is True
    assert cell(row, "tpu7x").cite.startswith("create-tpu-vm.dita#create-with-startup-script/")


def test_the_log_row_records_each_sides_chunks_and_no_chunk_text(engine):
    result = engine.ask("How does HBM capacity per chip differ between v6e and TPU7x?")
    row = engine.log.rows()[-1]
    assert row["outcome"] == "compare" and set(row["sent"]) == {"v6e", "tpu7x"}
    for side, attempts in row["sent"].items():
        assert all(side in c["scope"] for attempt in attempts for c in attempt)
    assert "192 GiB of high-bandwidth memory" not in json.dumps({k: row[k] for k in ("retrieval", "sent", "checks")})
    assert result.answer.comparison is not None


def test_a_comparison_is_deterministic(engine):
    question = "What changed in creating a VM from v5p to v6e?"
    first = engine.ask(question).answer.comparison.model_dump_json()
    assert engine.ask(question).answer.comparison.model_dump_json() == first


def test_corvane_release_differences_and_removals(corvane_build, tmp_path):
    with open_engine(corvane_build.state, issues_dir=tmp_path / "issues", log=False) as corvane:
        answer = corvane.ask("Maximum file size: Corvane CLI 2.3.0 vs Corvane CLI 2.4.1?").answer
        limits = next(r for r in rows(answer, "differs") if "50 GiB" in cell(r, "cli-2.3.0").values)
        assert cell(limits, "cli-2.4.1").values == ["200 GiB"]
        removed = corvane.ask("Is corvane login available in Corvane CLI 1.0.0 and in Corvane CLI 2.4.1?").answer
        (row,) = removed.comparison.rows
        assert cell(row, "cli-1.0.0").available is True and cell(row, "cli-2.4.1").available is False
        assert "Removed" in cell(row, "cli-2.4.1").text


def test_a_value_asked_of_two_builds_side_by_side_that_they_state_alike_is_answered_not_compared(corvane_build, tmp_path):
    # "A vs B: which file …?" asks each build's value; where no row of the comparison differs, a
    # comparison would show only the titles of the topics both share.
    with open_engine(corvane_build.state, issues_dir=tmp_path / "issues", log=False) as corvane:
        answer = corvane.ask("Corvane CLI 2.3.0 vs Corvane CLI 2.4.1: which file holds the configuration?").answer
    assert answer.outcome == "answer" and set(answer.scope) == {"cli-2.3.0", "cli-2.4.1"}
    assert all("config.toml" in a.answer for a in answer.answers), [a.answer for a in answer.answers]


def test_whether_something_changed_is_still_compared_when_nothing_differs(corvane_build, tmp_path):
    with open_engine(corvane_build.state, issues_dir=tmp_path / "issues", log=False) as corvane:
        answer = corvane.ask("Did the configuration file change between Corvane CLI 2.3.0 and Corvane CLI 2.4.1?").answer
    assert answer.outcome == "compare"
    assert rows(answer) and not rows(answer, "differs") and not rows(answer, "only")
