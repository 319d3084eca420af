"""One answer when the builds agree (issue 27 item 2): answers of several generations that are the
same text from the same sources are one answer object naming them all; anything less stays apart.
Pure functions on hand-made answers, the trap-set scorer on a folded answer, the CLI's text."""

from valid.answer.fold import fold_answers, same_answer
from valid.answer.models import AnswerObject, GenerationAnswer, Run, Step
from valid.commands.answer import render
from valid.evaluate.score import score_cell
from valid.evaluate.trapset import TrapQuestion

INSTALL = "Unpack the archive and add bin to the PATH."


def answer(generation, text=INSTALL, cites=("topics/install.dita#install/steps-1",), step_text=None):
    steps = [Step(text=step_text or text, cite=c) for c in cites]
    return GenerationAnswer(generation=generation, answer=text, steps=steps)


def test_an_answer_for_one_generation_is_for_that_generation():
    assert answer("linux").generations == ["linux"]
    # An answer object read back from a log older than the field.
    old = GenerationAnswer.model_validate({"generation": "mac", "answer": "x", "steps": []})
    assert old.generations == ["mac"]


def test_the_same_text_from_the_same_source_for_three_builds_is_one_answer_naming_all_three():
    folded = fold_answers([answer("windows"), answer("mac"), answer("linux")])
    assert len(folded) == 1
    (only,) = folded
    assert only.generation == "windows" and only.generations == ["windows", "mac", "linux"]
    assert only.answer == INSTALL and [s.cite for s in only.steps] == ["topics/install.dita#install/steps-1"]


def test_answers_that_differ_in_text_stay_one_per_generation():
    folded = fold_answers([answer("windows", "Run the installer."), answer("mac"), answer("linux")])
    assert [a.generations for a in folded] == [["windows"], ["mac", "linux"]]


def test_the_same_words_from_another_source_are_not_folded():
    # A variant chunk of the same text for another build would send its reader elsewhere.
    mac = answer("mac", cites=("topics/install.dita#install/steps-1~mac",))
    folded = fold_answers([answer("windows"), mac, answer("linux")])
    assert [a.generations for a in folded] == [["windows", "linux"], ["mac"]]
    assert not same_answer(answer("windows"), mac)


def test_one_step_more_is_not_the_same_answer():
    longer = answer("mac", cites=("topics/install.dita#install/steps-1", "topics/install.dita#install/env"))
    assert not same_answer(answer("windows"), longer)
    assert len(fold_answers([answer("windows"), longer])) == 2


def test_spacing_alone_does_not_keep_agreeing_answers_apart():
    assert same_answer(answer("windows"), answer("mac", text=INSTALL.replace(" ", "  ", 2), step_text=INSTALL))


def test_the_folded_answer_keeps_the_field_old_clients_read():
    (only,) = fold_answers([answer("windows"), answer("mac")])
    data = only.model_dump(mode="json")
    assert list(data) == ["generation", "generations", "answer", "steps"]
    assert data["generation"] == "windows" and data["generations"] == ["windows", "mac"]


def test_the_cli_names_every_build_of_a_folded_answer_once():
    (only,) = fold_answers([answer("windows"), answer("mac"), answer("linux")])
    obj = AnswerObject(
        outcome="answer", scope=["windows", "mac", "linux"], matched=[], answers=[only], choices=[], refusal=None,
        not_used="", checks={}, run=Run(generator="offline", model=None, calls=1, tokens_in=0, tokens_out=0,
                                        cost_usd=0.0, latency_ms=1.0), release="r" * 64,
    )
    text = render(obj, {"windows": "Windows", "mac": "macOS", "linux": "Linux"})
    assert text.count("For Windows, macOS and Linux:") == 1
    assert text.count(INSTALL) == 2  # the answer sentence and its one step, once each
    assert "[topics/install.dita#install/steps-1]" in text


def test_the_scorer_reads_a_folded_answer_as_an_answer_for_each_of_its_generations():
    q = TrapQuestion(id="q", question="How do I install it?", stratum="shared", split="test",
                     expect={"outcome": "answer", "scope": ["windows", "mac", "linux"],
                             "values": {"windows": ["bin"], "mac": ["bin"], "linux": ["bin"]}})
    (only,) = fold_answers([answer("windows"), answer("mac"), answer("linux")])
    obj = {"outcome": "answer", "answers": [only.model_dump(mode="json")]}
    shared = {"topics/install.dita#install/steps-1": {"windows", "mac", "linux"}}
    assert score_cell(q, "valid", obj, shared).category == "right"
    # Shown for Linux too, but citing what only Windows and macOS keep: out of scope.
    partial = {"topics/install.dita#install/steps-1": {"windows", "mac"}}
    assert score_cell(q, "valid", obj, partial).category == "wrong_generation"
