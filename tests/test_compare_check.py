"""check_comparison: every cell against its own generation's chunk (pure)."""

from valid.answer.compare import Side, build_comparison, check_comparison, difference_rows
from valid.answer.models import ComparisonCell, EvidenceChunk
from valid.index.groups import Groups

V5P = EvidenceChunk(id="r#r/versions~v5p", alias="", title="Software versions", text="TPU generation | Software version\nTPU v5p | v2-alpha-tpuv5", scope=["v5p"])
V6E = EvidenceChunk(id="r#r/versions~v6e", alias="", title="Software versions", text="TPU generation | Software version\nTPU v6e | v2-alpha-tpuv6e", scope=["v6e"])
CHUNKS = {c.id: c for c in (V5P, V6E)}
GROUPS = Groups(
    group_of={V5P.id: "r#r/versions", V6E.id: "r#r/versions"},
    members={"r#r/versions": [V5P.id, V6E.id]},
    scopes={V5P.id: ["v5p"], V6E.id: ["v6e"]},
)
SIDES = [Side("v5p", "TPU v5p", ("TPU v5p", "v5p")), Side("v6e", "TPU v6e", ("TPU v6e", "v6e"))]
OWNED = {"v2-alpha-tpuv5": ["v5p"], "v2-alpha-tpuv6e": ["v6e"]}


def computed():
    rows = difference_rows(SIDES, {"v5p": [V5P], "v6e": [V6E]}, GROUPS, CHUNKS, query="software version")
    return build_comparison("difference", SIDES, rows)


def test_the_computed_difference_passes_and_picks_out_each_sides_value():
    comparison = computed()
    (row,) = comparison.rows
    assert row.kind == "differs"
    assert [c.values for c in row.cells] == [["v2-alpha-tpuv5"], ["v2-alpha-tpuv6e"]]
    # Names alone do not differ: the "TPU generation | Software version" header is shared.
    assert [c.text for c in row.cells] == ["TPU v5p | v2-alpha-tpuv5", "TPU v6e | v2-alpha-tpuv6e"]
    assert check_comparison(comparison, CHUNKS, OWNED).passed


def test_a_value_shown_on_the_wrong_side_fails():
    comparison = computed()
    row = comparison.rows[0]
    swapped = [row.cells[0].model_copy(update={"text": "TPU v5p | v2-alpha-tpuv6e"}), row.cells[1]]
    report = check_comparison(comparison.model_copy(update={"rows": [row.model_copy(update={"cells": swapped})]}), CHUNKS, OWNED)
    assert not report.passed and report.out_of_scope_values == 1
    assert any(f.check == "values_grounded" for f in report.failures)


def test_a_cell_citing_another_generations_chunk_fails():
    comparison = computed()
    row = comparison.rows[0]
    wrong = [row.cells[0].model_copy(update={"cite": V6E.id}), row.cells[1]]
    report = check_comparison(comparison.model_copy(update={"rows": [row.model_copy(update={"cells": wrong})]}), CHUNKS, OWNED)
    assert report.failures[0].check == "citations_in_scope" and report.citations_in_scope == 1


def test_a_statement_is_held_to_its_own_side_like_a_cell():
    statement = ComparisonCell(generation="v6e", text="Pass v2-alpha-tpuv5.", cite=V6E.id)
    report = check_comparison(computed().model_copy(update={"statements": [statement]}), CHUNKS, OWNED)
    assert not report.passed and report.out_of_scope_values == 1


def test_a_summary_value_no_cited_chunk_states_fails():
    report = check_comparison(computed().model_copy(update={"summary": "v6e uses v2-alpha-tpuv7."}), CHUNKS, OWNED)
    assert [f.check for f in report.failures] == ["values_grounded"]
