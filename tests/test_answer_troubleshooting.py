"""A troubleshooting topic's condition states the problem a reader describes; its cause and remedy
are what they ask. The question restates the problem, so the condition's words match it best: the
DITA element the chunk was made from (the export's source path) weighs its units down, and the
remedy beside it answers. Pure: hand-made in-scope chunks, no index."""

from valid.answer.generate import OfflineExtractive
from valid.answer.models import EvidenceChunk
from valid.answer.prompt import GenerationRequest
from valid.answer.retrieve import element_of
from valid.contracts import Chunk

PROBLEM = "On Linux the gateway console does not scale high-resolution icons when the desktop scaling is set."
REMEDY = ("To make the console scale its icons on a high-resolution display, create the file custom.vmoptions "
          "in the installation folder and add -Dui.scale=2.")
QUESTION = "The gateway console does not scale its icons on my high-resolution Linux desktop. How do I fix the scaling?"


def evidence(text: str, cid: str, element: str) -> EvidenceChunk:
    return EvidenceChunk(id=cid, alias="c1", text=text, title="Scaling issues on Linux", scope=["linux"], element=element)


def answer(*chunks: EvidenceChunk):
    request = GenerationRequest(
        question=QUESTION, scope=["linux"], labels=["Linux"], chunks=list(chunks), profiles=["windows", "linux"]
    )
    return OfflineExtractive().generate(request)


def test_the_remedy_answers_a_question_that_restates_the_condition():
    said = answer(
        evidence(PROBLEM, "t/scaling.dita#scaling/problem", "condition"),
        evidence(REMEDY, "t/scaling.dita#scaling/troubleSolution-1", "troubleSolution"),
    )
    assert said.steps[0].cite.endswith("troubleSolution-1"), said
    assert "-Dui.scale=2" in said.steps[0].text


def test_the_same_problem_text_outside_a_condition_still_ranks_as_before():
    # The weight is the element's, not the words': a plain section saying the same is not moved down.
    said = answer(
        evidence(PROBLEM, "t/scaling.dita#scaling/problem", "section"),
        evidence(REMEDY, "t/scaling.dita#scaling/troubleSolution-1", "troubleSolution"),
    )
    assert said.steps[0].cite.endswith("/problem"), said


def test_the_element_is_the_last_step_of_the_chunks_source_path():
    chunk = Chunk.model_validate({
        "kind": "chunk", "id": "t/s.dita#s/problem", "text": "x", "title": "Problem", "breadcrumbs": [],
        "type": "section", "topic_id": "s", "scope": {"linux": True}, "scope_origin": "shared", "code": [],
        "digest": "0" * 64,
        "source": {"path": "t/s.dita", "line": 6, "xpath": "/troubleshooting[1]/troublebody[1]/condition[1]"},
    })
    assert element_of(chunk) == "condition"
    assert element_of(chunk.model_copy(update={"source": None})) == ""
