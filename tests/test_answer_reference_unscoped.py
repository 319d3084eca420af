"""A question naming no build that asks where a passage points (issue 25): a build whose output drops
the link (the Impala docs' PDF edition keeps a release note's sentence, not its "See ... for details")
is never answered from text every build shares, which says nothing of where that build's passage
points. Each build's own content is read: the build keeping the link answers, or the reader chooses.
Real release: the small Cloud TPU-shaped export, embedded Chroma, FTS5."""

import pytest
from fixtures.answer.index import engine_over

NOTE = "Java UDFs written for Hive can now take primitive types as arguments and return values"
CHUNKS = [
    ("notes.dita#notes/udf~v5p+v6e", "New features", "section", ["v5p", "v6e"],
     NOTE + "; see Hive UDF support for details."),
    ("notes.dita#notes/udf~tpu7x", "New features", "section", ["tpu7x"], NOTE + "."),
    ("udf.dita#udf/body", "Hive UDF support", "body", ["v5p", "v6e", "tpu7x"],
     "Impala runs Java UDFs written for Hive with no changes when their arguments and return values use "
     "primitive types, as the CREATE FUNCTION statement declares them."),
    ("create.dita#create/body", "CREATE FUNCTION statement", "body", ["v5p", "v6e", "tpu7x"],
     "The CREATE FUNCTION statement registers a Java UDF written for Hive; its arguments and return value "
     "must be primitive types."),
]
QUESTION = "Where does the release note saying Java UDFs written for Hive can take primitive types send me?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    with engine_over(tmp_path_factory.mktemp("reference-unscoped"), CHUNKS) as opened:
        yield opened


def test_the_build_that_dropped_the_link_is_never_answered_where_the_passage_points(engine):
    answer = engine.ask(QUESTION).answer
    answered = {g for a in answer.answers for g in (a.generations or [a.generation])}
    assert "tpu7x" not in answered, (answer.outcome, [a.answer for a in answer.answers])


def test_named_the_build_keeping_the_link_answers_with_its_title_and_the_other_is_refused(engine):
    assert "Hive UDF support" in engine.ask(QUESTION, "v5p").answer.answers[0].answer
    assert engine.ask(QUESTION, "tpu7x").answer.outcome == "refuse"
