"""Recognising comparison and availability questions (pure: words and the subject scheme only)."""

import pytest
from fixtures.answer.profiles import PROFILES

from valid.answer.compare import comparison_kind, subject_words
from valid.answer.reading import read
from valid.answer.scope import resolve_scope

OWNED = {"v2-alpha-tpuv5": ["v5p"], "v2-alpha-tpuv6e": ["v6e"]}


def kind(question):
    return comparison_kind(read(question), resolve_scope(question, PROFILES), OWNED)


@pytest.mark.parametrize(
    "question",
    [
        "What changed in creating a VM from v5p to v6e?",
        "What is the difference between TPU v5p and Trillium?",
        "Chips per VM: v5p vs v6e?",
        "HBM per chip: TPU v5p versus TPU v6e?",
        "What is new in TPU7x compared to v6e?",
        "Which software version replaced v2-alpha-tpuv5 on v6e?",  # v5p named by its own version
        "What changed from TPU v4 to TPU v6e?",  # one side unknown: refused in the comparison
    ],
)
def test_two_generations_and_a_comparing_word_make_a_comparison(question):
    assert kind(question) == "difference"


@pytest.mark.parametrize(
    "question",
    [
        "Is the startup-script procedure available on TPU7x?",
        "Does TPU7x support TensorFlow?",
        "Can I still use the Cloud TPU API on Ironwood?",
        "Is TensorFlow supported on v5p and on TPU7x?",
    ],
)
def test_yes_no_questions_about_availability_are_availability_questions(question):
    assert kind(question) == "availability"


@pytest.mark.parametrize(
    "question",
    [
        "Which frameworks are supported on TPU v5p?",  # asks for a list, not yes/no
        "How many chips are in one TPU v6e VM?",
        "Which frameworks are supported on TPU v5p and TPU7x?",  # two generations, no comparing word
        "Does TensorFlow work on v6e and on TPU7x?",
        "Is the startup script available?",  # no generation named: routed as before
    ],
)
def test_other_questions_keep_their_usual_path(question):
    assert kind(question) is None


def test_the_subject_of_an_availability_question_is_its_longest_run_of_words():
    assert subject_words("Is the corvane login command available in version 2.4.1 of the CLI?", ["version 2.4.1"], []) == [
        "corvane",
        "login",
    ]
    assert subject_words("Is the startup-script procedure available on TPU7x?", ["TPU7x"], ["TPU7x"]) == ["startup", "script"]
