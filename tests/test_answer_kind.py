"""What is asked (a number, a value, names) is read from the question's wording, and the offline
answerer weighs a unit that does not state it down (the tuning's kind_misfit) instead of dropping it
once some unit does: the unit that answers may state its value in a form the reading does not see.
Nothing in scope that states the kind asked still means no answer."""

from valid.answer.extract import OfflineExtractive
from valid.answer.models import EvidenceChunk
from valid.answer.prompt import GenerationRequest
from valid.answer.reading import read
from valid.answer.tuning import Tuning

# "the total number of pages" makes this read as a count, but what it asks for is a field's name.
QUESTION = "Which field prints the total number of pages in the page footer?"
FIELDS = EvidenceChunk(
    id="theme.md#footer/body", alias="c1", title="Footer fields", scope=["a", "b"],
    text="The following variable fields are supported in the footer content:\n"
    "- {title}: Map title\n- {page-number}: Current page number\n- {page-count}: Total number of pages",
)
# States a number, so it fits a count, and shares only one of the question's words.
AREA = EvidenceChunk(
    id="theme.md#page/body", alias="c2", title="Page", scope=["a", "b"],
    text="The body of each page starts 20 mm below its top edge.",
)


def _answer(*chunks: EvidenceChunk, tuning: Tuning = Tuning()):
    request = GenerationRequest(
        question=QUESTION, scope=["a"], labels=["A"], chunks=list(chunks), profiles=["a", "b"]
    )
    return OfflineExtractive(selector="rules", tuning=tuning).generate(request)


def test_the_question_reads_as_a_count():
    assert read(QUESTION).kind == "count"


def test_a_unit_that_states_no_number_answers_when_its_words_and_meaning_outweigh_the_misfit():
    draft = _answer(FIELDS, AREA)
    assert draft.steps[0].cite == FIELDS.id
    assert "{page-count}: Total number of pages" in draft.steps[0].text


def test_the_misfit_weighs_it_down_rather_than_out():
    # Weighed down hard enough, the unit stating a number answers first; the field list still competes.
    draft = _answer(FIELDS, AREA, tuning=Tuning(kind_misfit=0.05))
    assert draft.steps[0].cite == AREA.id


def test_nothing_in_scope_stating_the_kind_asked_is_no_answer():
    draft = _answer(FIELDS)
    assert draft.answer == "" and draft.steps == []


def test_a_further_questions_unit_is_weighed_like_the_first_questions_not_dropped():
    # The further question ("how many times ... a failed upload") is read as a count; the one unit
    # stating a count of times is already chosen (about a login), and the unit about uploads states
    # none. It still competes, weighed down, instead of leaving the further question unanswered.
    login = EvidenceChunk(id="agent.dita#agent/login", alias="c1", title="Login", scope=["a"],
                          text="The agent retries a failed login 5 times.")
    upload = EvidenceChunk(id="agent.dita#agent/upload", alias="c2", title="Upload retries", scope=["a"],
                           text="A failed upload is retried until it succeeds: the agent never gives up on an upload.")
    request = GenerationRequest(question="How many times does the agent retry a failed upload?", scope=["a"],
                                labels=["A"], chunks=[login, upload], profiles=["a", "b"])
    answerer = OfflineExtractive()
    chosen = [u for u in answerer._rank(request)[1] if u[1].chunk_id == login.id][0][1]
    further = answerer._best_unit(request, set(), [chosen])
    assert further is not None and further.chunk_id == upload.id
