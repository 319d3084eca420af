"""A question asking which topic a passage sends the reader to ("which topic does the note on X refer
to?") is answered by that passage's cross-reference, which shows the target topic's title; a build
whose writers dropped the link (a PDF edition without the HTML edition's pointers) still has the
passage and is refused, not answered with another passage's link (issue 25: the Impala pointer
questions). Pure: hand-made chunks, no index."""

from valid.answer.extract import named_titles
from valid.answer.generate import OfflineExtractive
from valid.answer.models import EvidenceChunk
from valid.answer.prompt import GenerationRequest
from valid.answer.reading import read

TITLES = frozenset({
    "Partition Pruning for Queries", "SHOW Statement", "What's New in Impala", "Overview",
    "Join Queries", "Join Queries in Depth",
})
NOTES_ID = "topics/new_features.xml#new_features_140/body"
PRUNING = (
    "- Performance improvements for partition pruning. Impala can now comfortably handle tables with tens of "
    "thousands of partitions."
)
LINK = " See Partition Pruning for Queries for information about partition pruning."
SHOW = "- In Impala 1.4 and later, the SHOW PARTITIONS statement displays each partition of a table. See SHOW Statement for details."
QUESTION = "The new-features note on tables with tens of thousands of partitions: which topic does it refer to for partition pruning?"


def notes(build: str, linked: bool) -> EvidenceChunk:
    text = PRUNING + (LINK if linked else "") + "\n" + SHOW
    return EvidenceChunk(id=f"{NOTES_ID}~{build}", alias="c1", text=text, title="What's New in Impala", scope=[build])


def draft(build: str, linked: bool, titles=TITLES):
    request = GenerationRequest(
        question=QUESTION, scope=[build], labels=[build], chunks=[notes(build, linked)], profiles=["html", "pdf"],
    )
    return OfflineExtractive(titles=titles).generate(request)


def test_a_question_about_where_a_passage_points_is_read_as_asking_for_a_topic():
    reading = read(QUESTION)
    assert reading.reference and reading.kind == "value"
    assert not read("Which partitions does SHOW PARTITIONS list?").reference


def test_the_passage_described_answers_with_the_title_its_link_shows():
    said = draft("html", linked=True)
    assert said.steps and "Partition Pruning for Queries" in said.answer, said.answer
    assert said.steps[0].cite == f"{NOTES_ID}~html"


def test_a_build_that_dropped_the_link_is_refused_not_answered_with_another_passages_link():
    # The PDF edition keeps the note without its pointer; the SHOW PARTITIONS note beside it links
    # to "SHOW Statement", which is not where the note asked about points.
    said = draft("pdf", linked=False)
    assert not said.steps and said.answer == "", said.answer


def test_titles_are_found_as_written_longest_first_at_word_ends():
    text = "See Join Queries in Depth, then Overviews of SHOW Statements."
    assert named_titles(text, TITLES) == ["Join Queries in Depth"]  # one-word "Overview" is no title here
