"""The trap-set scorer, on hand-made answer objects."""

from valid.evaluate.score import failed_cell, grounded, score_cell
from valid.evaluate.stats import wilson_interval
from valid.evaluate.trapset import TrapQuestion

SCOPES = {
    "tpu7x.dita#tpu7x/vm": {"tpu7x"},
    "runtimes.dita#runtimes/tpu7x-note": {"tpu7x"},
    "runtimes.dita#runtimes/row-v6e": {"v6e"},
    "v6e.dita#v6e/arch": {"v6e"},
    "v5p.dita#v5p/arch": {"v5p"},
    "shared.dita#shared/intro": {"v5p", "v6e", "tpu7x"},
}


def question(**expect) -> TrapQuestion:
    stratum = expect.pop("stratum", "scoped")
    return TrapQuestion(id="q1", question="?", stratum=stratum, split="test", expect=expect)


def answer(generation, text, cite):
    return {"generation": generation, "answer": text, "steps": [{"text": text, "cite": cite}]}


def test_right_answer_cited_in_scope_is_right():
    q = question(outcome="answer", scope=["tpu7x"], values={"tpu7x": ["4"]}, forbidden=["8 chips"])
    obj = {"outcome": "answer", "answers": [answer("tpu7x", "Each TPU7x VM has 4 chips.", "tpu7x.dita#tpu7x/vm")]}
    cell = score_cell(q, "valid", obj, SCOPES)
    assert (cell.category, cell.correct) == ("right", True)
    assert (cell.citations, cell.citations_in_scope) == (1, 1)


def test_wrong_generation_value_is_wrong_even_when_cited():
    q = question(outcome="answer", scope=["tpu7x"], values={"tpu7x": [["Compute Engine", "GKE"]]},
                 forbidden=["v2-alpha-tpuv6e"])
    # Cited to an in-scope chunk, but carries v6e's version string.
    obj = {"outcome": "answer", "answers": [
        answer("tpu7x", "Pass --version=v2-alpha-tpuv6e; or use Compute Engine.", "runtimes.dita#runtimes/tpu7x-note")]}
    cell = score_cell(q, "valid", obj, SCOPES)
    assert cell.category == "wrong_generation" and not cell.correct
    assert any("v2-alpha-tpuv6e" in r for r in cell.reasons)


def test_out_of_scope_citation_is_wrong_generation():
    q = question(outcome="answer", scope=["tpu7x"], values={"tpu7x": ["4"]})
    obj = {"outcome": "answer", "answers": [answer("tpu7x", "4 chips", "v5p.dita#v5p/arch")]}
    cell = score_cell(q, "valid", obj, SCOPES)
    assert cell.category == "wrong_generation"
    assert cell.citations_in_scope == 0


def test_missing_required_value_is_wrong_other():
    q = question(outcome="answer", scope=["v6e"], values={"v6e": ["8"]})
    obj = {"outcome": "answer", "answers": [answer("v6e", "It has many chips.", "v6e.dita#v6e/arch")]}
    assert score_cell(q, "valid", obj, SCOPES).category == "wrong_other"


def test_ask_with_the_expected_choices_passes():
    q = question(stratum="unscoped", outcome="ask", choices=["v5p", "v6e", "tpu7x"])
    obj = {"outcome": "ask", "answers": [], "choices": [
        {"generation": g, "label": g} for g in ("v5p", "v6e", "tpu7x")]}
    cell = score_cell(q, "valid", obj, SCOPES)
    assert (cell.category, cell.correct) == ("asked", True)


def test_ask_with_the_wrong_choices_is_not_a_pass():
    q = question(stratum="unscoped", outcome="ask", choices=["v5p", "v6e", "tpu7x"])
    obj = {"outcome": "ask", "answers": [], "choices": [{"generation": "v5p", "label": "v5p"}]}
    cell = score_cell(q, "valid", obj, SCOPES)
    assert not cell.correct and cell.category == "wrong_other"


def test_answering_an_unscoped_question_with_one_generations_value_is_wrong_generation():
    q = question(stratum="unscoped", outcome="ask", choices=["v5p", "v6e", "tpu7x"],
                 values={"v5p": ["4"], "v6e": ["8"], "tpu7x": ["4"]})
    obj = {"outcome": "answer", "answers": [answer(None, "A host has 8 chips.", "v6e.dita#v6e/arch")]}
    assert score_cell(q, "baseline", obj, SCOPES).category == "wrong_generation"


def test_refusal_is_safe_but_not_right_for_a_scoped_question():
    q = question(outcome="answer", scope=["v5p"], values={"v5p": ["4"]})
    cell = score_cell(q, "valid", {"outcome": "refuse", "answers": []}, SCOPES)
    assert (cell.category, cell.correct) == ("refused", False)


def test_refusal_is_right_for_an_out_of_domain_question():
    q = question(stratum="out-of-domain", outcome="refuse")
    cell = score_cell(q, "valid", {"outcome": "refuse", "answers": []}, SCOPES)
    assert (cell.category, cell.correct) == ("refused", True)


def test_two_generation_question_needs_one_right_answer_per_generation():
    q = question(stratum="two-generation", outcome="answer", scope=["v5p", "v6e"],
                 values={"v5p": ["4"], "v6e": ["8"]})
    both = {"outcome": "answer", "answers": [
        answer("v5p", "Each v5p VM has 4 chips.", "v5p.dita#v5p/arch"),
        answer("v6e", "Each v6e VM has 8 chips.", "v6e.dita#v6e/arch")]}
    only_one = {"outcome": "answer", "answers": both["answers"][:1]}
    assert score_cell(q, "valid", both, SCOPES).category == "right"
    assert score_cell(q, "valid", only_one, SCOPES).category == "wrong_other"


def test_baseline_answer_without_generation_is_judged_against_the_question_scope():
    q = question(outcome="answer", scope=["v6e"], values={"v6e": ["8"]})
    good = {"outcome": "answer", "answers": [answer(None, "8 chips per VM", "v6e.dita#v6e/arch")]}
    bad = {"outcome": "answer", "answers": [answer(None, "8 chips per VM", "v5p.dita#v5p/arch")]}
    assert score_cell(q, "baseline", good, SCOPES).category == "right"
    assert score_cell(q, "baseline", bad, SCOPES).category == "wrong_generation"


def test_grounding_is_counted_per_step():
    q = question(outcome="answer", scope=["tpu7x"], values={"tpu7x": ["4"]})
    obj = {"outcome": "answer", "answers": [answer("tpu7x", "4 chips", "tpu7x.dita#tpu7x/vm")]}
    texts = {"tpu7x.dita#tpu7x/vm": "Each VM has 4 chips."}
    cell = score_cell(q, "valid", obj, SCOPES, texts, grounded=lambda step, chunk: "4" in chunk)
    assert (cell.steps, cell.steps_grounded) == (1, 1)
    cell = score_cell(q, "valid", obj, SCOPES, texts, grounded=lambda step, chunk: False)
    assert cell.steps_grounded == 0


def test_a_failed_run_is_kept_as_an_explicit_failure():
    q = question(outcome="answer", scope=["v5p"])
    cell = failed_cell(q, "valid", "boom")
    assert cell.outcome == "error" and not cell.correct and cell.error == "boom"


def test_wilson_interval_brackets_the_proportion():
    low, high = wilson_interval(54, 60)
    assert low < 54 / 60 < high
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0
    assert round(wilson_interval(54, 60)[0], 3) == 0.799


# -- expected and forbidden values are found with the value grammar ---------------------------------


def test_a_forbidden_value_in_words_is_wrong_generation():
    q = question(outcome="answer", scope=["v5p"], values={"v5p": ["4"]}, forbidden=["8 chips"])
    obj = {"outcome": "answer", "answers": [answer("v5p", "Each v5p VM has eight chips, not 4.", "v5p.dita#v5p/arch")]}
    cell = score_cell(q, "valid", obj, SCOPES)
    assert cell.category == "wrong_generation"
    assert any("'8 chips'" in r for r in cell.reasons)


def test_a_forbidden_row_is_found_as_its_value_in_any_shape():
    q = question(outcome="answer", scope=["v5p"], values={"v5p": ["4"]}, forbidden=["Chips per host | 8"])
    said = lambda text: score_cell(  # noqa: E731
        q, "valid", {"outcome": "answer", "answers": [answer("v5p", text, "v5p.dita#v5p/arch")]}, SCOPES
    ).category
    assert said("A v5p host has eight chips; use 4 of them.") == "wrong_generation"
    assert said("Chips per host: 8; 4 per VM") == "wrong_generation"
    assert said("Each v5p host has 4 chips.") == "right"


def test_a_forbidden_number_inside_a_longer_number_is_not_found():
    q = question(outcome="answer", scope=["v6e"], values={"v6e": ["256"]}, forbidden=["8 chips"])
    obj = {"outcome": "answer", "answers": [answer("v6e", "A v6e Pod has 256 chips, not 128 chips.", "v6e.dita#v6e/arch")]}
    assert score_cell(q, "valid", obj, SCOPES).category == "right"


def test_a_required_value_in_words_or_as_a_row_counts():
    q = question(outcome="answer", scope=["v5p"], values={"v5p": [["Chips per VM | 4", "4 chips"]]})
    for text in ("Each v5p VM has four chips.", "Chips per VM | 4", "Each TPU v5p VM has 4 TPU chips."):
        obj = {"outcome": "answer", "answers": [answer("v5p", text, "v5p.dita#v5p/arch")]}
        assert score_cell(q, "valid", obj, SCOPES).category == "right", text
    obj = {"outcome": "answer", "answers": [answer("v5p", "Use v5p-4 or v5p-8.", "v5p.dita#v5p/arch")]}
    assert score_cell(q, "valid", obj, SCOPES).category == "wrong_other"


def test_grounded_uses_the_checks_rule():
    chunk = "Key specifications\nChips per VM | 4\nHBM capacity per chip | 95 GiB"
    assert grounded("A VM has four chips and HBM per chip: 95.", chunk)
    assert not grounded("A VM has eight chips.", chunk)
    assert not grounded("HBM per chip: 4", chunk)
