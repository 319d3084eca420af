"""The versions stratum's scorer: a versions answer is right when it is the expected kind, names
exactly the expected versions, says the expected yes / no, mentions what it must and cites evidence
in scope for each expected side; a text answer (the baseline) is read from its text."""

from __future__ import annotations

from valid.evaluate.score import score_cell
from valid.evaluate.trapset import TrapQuestion

SCOPES = {"a": {"cli-2.0.0"}, "b": {"cli-2.3.0", "cli-2.4.1"}, "agent": {"agent-2.0.0"}}


def _question(**expect) -> TrapQuestion:
    return TrapQuestion.model_validate(
        {"id": "q", "question": "Since which release is corvane prune available?", "stratum": "versions",
         "split": "dev", "expect": {"outcome": "versions", **expect}}
    )


SINCE = dict(kind="since", versions=["cli-2.0.0", "cli-2.3.0"], mentions=["2.3.0"], cited=["cli-2.0.0", "cli-2.3.0"])


def _versions(kind="since", versions=("cli-2.0.0", "cli-2.3.0"), evidence=None, verdict=None, summary="Since Corvane CLI 2.3.0."):
    evidence = evidence if evidence is not None else [
        {"generation": "cli-2.0.0", "text": "Commands of 2.0.0", "cite": "a"},
        {"generation": "cli-2.3.0", "text": "corvane prune deletes old snapshots", "cite": "b"},
    ]
    return {"outcome": "versions", "versions": {"kind": kind, "versions": list(versions), "verdict": verdict,
                                                 "summary": summary, "evidence": evidence}}


def test_a_since_answer_naming_both_sides_of_the_boundary_with_evidence_is_right():
    cell = score_cell(_question(**SINCE), "valid", _versions(), SCOPES)
    assert (cell.category, cell.reasons) == ("right", [])
    assert cell.citations == cell.citations_in_scope == 2


def test_a_versions_answer_of_another_kind_is_wrong():
    cell = score_cell(_question(**SINCE), "valid", _versions(kind="until"), SCOPES)
    assert cell.category == "wrong_other" and "expected 'since'" in cell.reasons[0]


def test_a_versions_answer_naming_other_versions_is_wrong():
    cell = score_cell(_question(**SINCE), "valid", _versions(versions=["cli-2.3.0"]), SCOPES)
    assert cell.category == "wrong_other"


def test_evidence_cited_out_of_its_versions_scope_is_a_wrong_generation():
    evidence = [{"generation": "cli-2.0.0", "text": "x", "cite": "agent"}, {"generation": "cli-2.3.0", "text": "y", "cite": "b"}]
    cell = score_cell(_question(**SINCE), "valid", _versions(evidence=evidence), SCOPES)
    assert cell.category == "wrong_generation"


def test_a_side_without_cited_evidence_is_not_right():
    cell = score_cell(_question(**SINCE), "valid", _versions(evidence=[{"generation": "cli-2.3.0", "text": "y", "cite": "b"}]), SCOPES)
    assert cell.category == "wrong_other" and cell.reasons == ["no evidence cited for cli-2.0.0"]


def test_a_wrong_yes_or_no_is_wrong():
    question = _question(kind="exists", versions=["cli-2.3.0"], verdict=True)
    assert score_cell(question, "valid", _versions("exists", ["cli-2.3.0"], [], True), SCOPES).category == "right"
    assert score_cell(question, "valid", _versions("exists", ["cli-2.3.0"], [], False), SCOPES).category == "wrong_other"


def test_a_text_answer_is_read_from_its_text_first_word_and_citations():
    question = _question(kind="exists", versions=["cli-2.3.0"], verdict=False, mentions=["2.3.0"])
    said = {"outcome": "answer", "answers": [{"answer": "No: the nearest is 2.3.0.", "steps": [{"text": "t", "cite": "b"}]}]}
    assert score_cell(question, "baseline", said, SCOPES).category == "right"
    unsaid = {"outcome": "answer", "answers": [{"answer": "Corvane 2.3.0 adds prune.", "steps": [{"text": "t", "cite": "b"}]}]}
    assert score_cell(question, "baseline", unsaid, SCOPES).category == "wrong_other"


def test_a_text_answer_citing_another_products_content_is_a_wrong_generation():
    question = _question(kind="latest", versions=["cli-2.4.1"], mentions=["2.4.1"])
    said = {"outcome": "answer", "answers": [{"answer": "2.4.1", "steps": [{"text": "t", "cite": "agent"}]}]}
    assert score_cell(question, "baseline", said, SCOPES).category == "wrong_generation"


def test_a_question_back_where_a_versions_answer_was_expected_is_not_correct():
    cell = score_cell(_question(**SINCE), "valid", {"outcome": "ask", "choices": [{"generation": "cli-2.3.0"}]}, SCOPES)
    assert cell.category == "asked" and not cell.correct


def test_a_versions_answer_where_an_answer_was_expected_is_read_as_its_cited_evidence_per_generation():
    question = TrapQuestion.model_validate(
        {"id": "q", "question": "What's new in 2.4.1?", "stratum": "scoped", "split": "dev",
         "expect": {"outcome": "answer", "scope": ["cli-2.4.1"], "values": {"cli-2.4.1": ["corvane watch"]}}}
    )
    obj = _versions("changed", ["cli-2.3.0", "cli-2.4.1"], [
        {"generation": "cli-2.4.1", "text": "New (preview): corvane watch.", "cite": "b", "role": "release-notes"},
        {"generation": "cli-2.3.0", "text": "Only in the version before", "cite": "a", "role": "lacks"},
    ])
    cell = score_cell(question, "valid", obj, SCOPES)
    assert (cell.category, cell.reasons) == ("right", [])
