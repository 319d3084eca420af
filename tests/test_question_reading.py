"""One reading of the question (valid.answer.reading): what is asked, what it is about and its
conditions, read once after scope resolution and given to every stage."""

from __future__ import annotations

import pytest

from valid.answer import reading as reading_module
from valid.answer.reading import read
from valid.answer.wiring import open_engine


def test_a_reading_says_what_is_asked_what_it_is_about_and_its_conditions():
    reading = read(
        "I'm on an old CentOS server with Corvane 2.4.1. How many parallel uploads run unless I change it?",
        names=["Corvane 2.4.1"],
    )
    assert reading.kind == "count"
    assert reading.counted == "uploads"
    assert reading.asks_default and "by default" in reading.said
    assert reading.context == "I'm on an old CentOS server with Corvane 2.4.1."
    assert "uploads" in reading.words and "corvane" not in reading.words


def test_a_reading_splits_joined_questions_and_a_later_one_that_refers_back_carries_the_subject():
    reading = read("Where is the agent's config file, and what format is it in?")
    assert reading.kind == "value" and reading.location
    assert len(reading.sub_questions) == 2
    assert "config file" in reading.sub_questions[1]


def test_a_reading_knows_a_comparison_an_availability_and_a_versions_question():
    assert read("What changed between 2.0.0 and 2.4.1?").compares
    assert read("I upgraded. Is corvane mirror still available in 2.4.1?").availability
    assert read("Which release introduced --dry-run?").versions_kind == "since"
    plain = read("How do I create a vault?")
    assert (plain.kind, plain.compares, plain.availability, plain.versions_kind) == ("procedure", False, False, None)


def test_the_reading_against_other_scope_names_is_the_same_object_when_the_names_are_the_same():
    reading = read("How many chips does a Trillium VM have?", names=["Trillium"])
    assert reading.for_names(["Trillium"]) is reading
    assert "trillium" not in reading.words
    assert "trillium" in reading.for_names([]).words  # without the name that chose the scope, a word again


@pytest.mark.parametrize(
    "question, generation",
    [
        ("How many chips are in one TPU v5p VM?", None),  # scoped by its words
        ("How do I create a TPU VM?", None),  # no generation: routed, agreement tried, asked back
        ("What is the HBM per chip?", "v6e"),  # scoped by the reader's choice
    ],
)
def test_the_engine_reads_a_question_once_however_many_stages_use_it(sample_build, monkeypatch, question, generation):
    kinds = []
    real = reading_module.question_kind
    monkeypatch.setattr(reading_module, "question_kind", lambda text: kinds.append(text) or real(text))
    with open_engine(sample_build.state, log=False, gap_issues=False) as engine:
        result = engine.ask(question, generation)
    assert result.answer.outcome in ("answer", "ask")
    assert len(kinds) == 1, kinds


def test_a_path_the_reader_types_and_a_windows_variable_reference_are_code_anchors():
    # As written they are what the content must hold: a build whose steps run gradlew.bat, or set
    # ANT_OPTS with $ANT_OPTS, does not have "./gradlew" or "%ANT_OPTS%".
    from valid.answer.question import anchor_in

    said = {(a.kind, a.text) for a in read("On Windows, how do I run ./gradlew to rebuild the docs?", ["Windows"]).anchors}
    assert ("code", "./gradlew") in said
    said = {(a.kind, a.text) for a in read("Linux: what's the set ANT_OPTS=%ANT_OPTS% form?", ["Linux"]).anchors}
    assert ("code", "%ANT_OPTS%") in said
    assert {a.text for a in read("How do I run ../bin/dita or edit ~/.bashrc?").anchors} == {"../bin/dita", "~/.bashrc"}
    assert read("Is 50% of the memory enough, or 10%-20%?").anchors == ()
    (gradlew,) = [a for a in read("How do I run ./gradlew?").anchors]
    assert anchor_in(gradlew, "Run ./gradlew html") and not anchor_in(gradlew, "Run gradlew.bat html")


def test_a_flag_typed_with_plain_hyphens_is_found_where_the_writers_set_typographic_ones():
    # Writers keep an option on one line with non-breaking hyphens (&#8209;&#8209;max_log_files); the
    # reader types --max_log_files. Still not inside a longer token.
    from valid.answer.question import anchor_in, defining_row

    (flag,) = read("How many log files are kept if I don't set --max_log_files?").anchors
    assert anchor_in(flag, "the \u2011\u2011max_log_files option specifies how many log files to keep")
    assert anchor_in(flag, "the --max_log_files option") and not anchor_in(flag, "the \u2011\u2011max_log_files_x option")
    assert defining_row("--max_log_files").search("\u2011\u2011max_log_files N | 10 | log files kept")
    (code,) = read("What does `impala-shell -B` do?").anchors
    assert anchor_in(code, "Run impala\u2010shell -B to print plain text") and not anchor_in(code, "Run impala shell")
