"""A build asked about a thing only another build's content has a topic on is refused (issue 25 item 3).

Each word of "Large File Viewer" is common; only together do they name a thing, and only the v6e
content has a topic on it. A v5p reader who asks about it must be told that the v5p content does not
say it (and which builds' content does), not be answered from v5p sentences about large jobs and log
files. A real release (Chroma + FTS5, offline embedder) over the small Cloud TPU-shaped fixture."""

import pytest
from fixtures.answer.export import build_export
from fixtures.answer.index import build_state, offline_engine

from valid.answer.question import question_phrases

VIEWER = [
    ("v6e/viewer.dita#v6e-viewer/body", "Large File Viewer", "body", ["v6e"],
     "The Large File Viewer opens a log of up to 10 GB without loading it all: choose Tools > Large File Viewer."),
    # v5p has every word, never together.
    ("v5p/logs.dita#v5p-logs/large", "Logs of long jobs", "section", ["v5p"],
     "Large jobs write their logs to one file per host. To read a log, open it in the log viewer of the console."),
]


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return build_state(tmp_path_factory.mktemp("phrases"), build_export(extra=VIEWER))


@pytest.fixture
def engine(state, tmp_path):
    with offline_engine(state, tmp_path) as e:
        yield e


def test_a_question_reads_the_words_that_stand_together_without_stopwords_names_or_punctuation():
    assert question_phrases("How do I open a 5 GB log in the Large File Viewer on v5p?", ["v5p"]) == [
        ("large", "file"), ("file", "viewer"),
    ]
    assert question_phrases("Which file, and which viewer?") == []
    assert question_phrases("Open the viewer for v5p logs", ["v5p"]) == []


def test_a_hyphenated_words_parts_stand_together_only_with_each_other():
    # "spell-check" is written "spell checker", "spell checking" too: the word beside the compound in
    # the question says nothing about the word beside it in the content.
    pairs = question_phrases("How do I add custom spell-check term lists?")
    assert ("spell", "check") in pairs and ("term", "lists") in pairs
    assert ("custom", "spell") not in pairs and ("check", "term") not in pairs


def test_a_thing_only_another_builds_topic_names_is_refused_naming_where_it_is(engine):
    answer = engine.ask("How do I open a 5 GB log in the Large File Viewer on v5p?").answer
    assert answer.outcome == "refuse" and answer.answers == []
    assert "file viewer" in answer.refusal.reason and "v6e" in answer.refusal.reason


def test_the_build_whose_topic_it_is_answers(engine):
    answer = engine.ask("How do I open a 5 GB log in the Large File Viewer on v6e?").answer
    assert answer.outcome == "answer"
    assert "Tools > Large File Viewer" in answer.answers[0].steps[0].text


def test_words_together_that_no_other_builds_title_has_decide_nothing(engine):
    # (job, log) is not together in v5p's content, nor in any build's title: a reader's wording,
    # left to the answerer; (large, job) is together in v5p ("Large jobs").
    answer = engine.ask("How do I read a large job's log on v5p?").answer
    assert answer.outcome == "answer"
    assert "log viewer of the console" in answer.answers[0].steps[0].text
