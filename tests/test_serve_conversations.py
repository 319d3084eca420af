"""Conversations over real HTTP: a follow-up keeps the conversation's scope, may switch generation,
and takes its missing subject from the previous question; conversations are bounded.

The real sample, the real offline engine, uvicorn on 127.0.0.1. Every response is validated against
the published docs/openapi.json. The expected answers are never written here: a follow-up's answer
is compared with the answer the same service gives to the self-contained question. Run against
each question store (SQLite and PostgreSQL).
"""

from __future__ import annotations


import httpx
import pytest

from fixtures.openapi import OPENAPI, validate
from fixtures.serving import serving
from fixtures.question_stores import question_store  # noqa: F401 (a fixture)
from valid.answer.conversation import ConversationLimits
from valid.index import Store
from valid.serve import Limits, ServeConfig, create_app
from valid.serve.library import LibraryReleases
from valid.serve.live import LiveServer, wait_ready

PRIYA = "I'm on Ironwood. Which --version do I pass when I create the VM?"



def validate_request(payload: dict) -> None:
    validate(payload, "AskRequest")


@pytest.fixture(scope="module")
def api(sample_build, tmp_path_factory, question_store):
    settings = question_store.settings(tmp_path_factory.mktemp("conversations"))
    with serving(sample_build.state, settings) as client:
        yield client, lambda: question_store.open(settings)


def ask(client, question, conversation_id=None, generation=None) -> httpx.Response:
    payload = {"question": question}
    if conversation_id:
        payload["conversation_id"] = conversation_id
    if generation:
        payload["generation"] = generation
    validate_request(payload)
    response = client.post("/v1/ask", json=payload)
    if response.status_code == 200:
        validate(response.json(), "AnswerObject")
        for header in OPENAPI["paths"]["/v1/ask"]["post"]["responses"]["200"]["headers"]:
            assert response.headers[header], f"the published {header} header is sent"
    return response


def test_every_answer_starts_a_conversation_and_has_an_answer_id(api):
    client, _ = api
    first, second = ask(client, PRIYA), ask(client, PRIYA)
    assert first.status_code == second.status_code == 200
    assert first.headers["x-valid-conversation-id"] != second.headers["x-valid-conversation-id"]
    assert first.headers["x-valid-answer-id"] != second.headers["x-valid-answer-id"]


def test_a_follow_up_without_a_generation_keeps_the_conversations_scope(api):
    client, _ = api
    first = ask(client, PRIYA)
    conversation = first.headers["x-valid-conversation-id"]
    assert first.json()["scope"] == ["tpu7x"]
    follow = ask(client, "How do I delete a TPU VM?", conversation)
    assert follow.status_code == 200, follow.text
    assert follow.json()["scope"] == ["tpu7x"], "the follow-up kept the conversation's generation"
    assert follow.headers["x-valid-conversation-id"] == conversation
    alone = ask(client, "How do I delete a TPU VM?")
    assert alone.json()["scope"] != ["tpu7x"], "without the conversation the same words are not scoped to tpu7x"


def test_an_elliptical_follow_up_is_the_previous_question_for_the_generation_it_names(api):
    client, _ = api
    conversation = ask(client, PRIYA).headers["x-valid-conversation-id"]
    follow = ask(client, "and on v6e?", conversation)
    assert follow.status_code == 200, follow.text
    body = follow.json()
    assert body["scope"] == ["v6e"] and body["outcome"] == "answer"
    standalone = ask(client, "Which --version do I pass when I create the VM?", generation="v6e").json()
    assert [a["answer"] for a in body["answers"]] == [a["answer"] for a in standalone["answers"]]
    assert [s["cite"] for a in body["answers"] for s in a["steps"]] == [
        s["cite"] for a in standalone["answers"] for s in a["steps"]
    ]


def test_a_follow_up_that_refers_to_the_previous_answer_gets_its_subject(api):
    client, open_log = api
    conversation = ask(client, PRIYA).headers["x-valid-conversation-id"]
    follow = ask(client, "which zone for that?", conversation)
    assert follow.status_code == 200, follow.text
    assert follow.json()["scope"] == ["tpu7x"]
    with open_log() as log:
        turns = log.turns(conversation)
        asked = {r["id"]: r["question"] for r in log.rows()}
    assert [t["turn"] for t in turns] == [1, 2]
    assert turns[1]["question"] == "which zone for that?"
    assert "--version" in turns[1]["asked_as"] and "create the VM" in turns[1]["asked_as"]
    assert asked[turns[1]["question_id"]] == turns[1]["asked_as"], "the question log row is the turn's question"


def test_a_follow_up_that_asks_about_its_own_subject_keeps_the_scope_not_the_previous_subject(api):
    client, open_log = api
    first = ask(client, "I'm on v5p. How many chips per VM?")
    conversation = first.headers["x-valid-conversation-id"]
    follow = ask(client, "and which --version do I pass?", conversation)
    assert follow.status_code == 200, follow.text
    body = follow.json()
    assert body["scope"] == ["v5p"] and body["outcome"] == "answer", "the conversation's generation is kept"
    standalone = ask(client, "Which --version do I pass?", generation="v5p").json()
    assert [a["answer"] for a in body["answers"]] == [a["answer"] for a in standalone["answers"]]
    assert [a["answer"] for a in body["answers"]] != [a["answer"] for a in first.json()["answers"]], (
        "not the previous question's answer again")
    with open_log() as log:
        assert log.turns(conversation)[1]["asked_as"] == "and which --version do I pass?"


def test_switching_generation_mid_conversation_by_name_or_by_the_generation_field(api):
    client, _ = api
    conversation = ask(client, PRIYA).headers["x-valid-conversation-id"]
    by_field = ask(client, "How do I delete a TPU VM?", conversation, generation="v5p")
    assert by_field.json()["scope"] == ["v5p"]
    after = ask(client, "How do I delete a TPU VM?", conversation)
    assert after.json()["scope"] == ["v5p"], "the switched generation is the conversation's from then on"
    by_name = ask(client, "What about Trillium?", conversation)
    assert by_name.json()["scope"] == ["v6e"]
    standalone = ask(client, "How do I delete a TPU VM?", generation="v6e").json()
    assert by_name.json()["answers"][0]["answer"] == standalone["answers"][0]["answer"]


def test_an_unknown_generation_in_a_follow_up_is_refused_not_inherited(api):
    client, _ = api
    conversation = ask(client, PRIYA).headers["x-valid-conversation-id"]
    body = ask(client, "and on TPU v4?", conversation).json()
    assert body["outcome"] == "refuse"
    assert "v4" in body["refusal"]["reason"]


@pytest.fixture(scope="module")
def corvane(corvane_build, tmp_path_factory, question_store):
    """The Corvane sample (a CLI and an agent, each in several releases) served the same way."""
    with serving(corvane_build.state, question_store.settings(tmp_path_factory.mktemp("corvane"))) as client:
        yield client


def choices(response: httpx.Response) -> list[str]:
    body = response.json()
    assert body["outcome"] == "ask", body
    return [c["generation"] for c in body["choices"]]


def test_a_reply_naming_only_the_product_of_an_offered_choice_answers_the_question(corvane):
    question = "In 2.0.0, how do I sign in?"
    first = ask(corvane, question)
    offered = choices(first)
    assert len(offered) == 2 and "agent-2.0.0" in offered, "both products have a 2.0.0: VALID asks which"
    reply = ask(corvane, "Agent", first.headers["x-valid-conversation-id"])
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["outcome"] == "answer" and body["scope"] == ["agent-2.0.0"]
    standalone = ask(corvane, question, generation="agent-2.0.0").json()
    assert [a["answer"] for a in body["answers"]] == [a["answer"] for a in standalone["answers"]]


def test_a_reply_matching_several_offered_choices_asks_again_among_those_only(corvane):
    question = "How do I sign in?"
    first = ask(corvane, question)
    conversation = first.headers["x-valid-conversation-id"]
    assert len(choices(first)) > 2
    again = ask(corvane, "2.0.0", conversation)
    assert again.status_code == 200, again.text
    narrowed = choices(again)
    assert narrowed and set(narrowed) <= {"cli-2.0.0", "agent-2.0.0"} and set(narrowed) < set(choices(first))
    picked = ask(corvane, "the agent", conversation).json()
    assert picked["outcome"] == "answer" and picked["scope"] == ["agent-2.0.0"], "the question was kept"
    standalone = ask(corvane, question, generation="agent-2.0.0").json()
    assert [a["answer"] for a in picked["answers"]] == [a["answer"] for a in standalone["answers"]]


def error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    validate(response.json(), "ErrorBody")
    assert response.json()["error"]["code"] == code


def test_an_unknown_conversation_is_a_404(api):
    client, _ = api
    error(ask(client, PRIYA, "0123456789abcdef0123456789abcdef"), 404, "not_found")


def test_a_conversation_ends_after_its_turn_bound(sample_build, tmp_path, question_store):
    with serving(sample_build.state, question_store.settings(tmp_path), conversations=ConversationLimits(max_turns=2)) as client:
        conversation = ask(client, PRIYA).headers["x-valid-conversation-id"]
        assert ask(client, "and on v6e?", conversation).status_code == 200
        error(ask(client, "and on v5p?", conversation), 409, "conversation_ended")
        assert ask(client, "and on v5p?").status_code == 200, "a new conversation is always possible"


def test_a_conversation_ends_after_its_age_bound(sample_build, tmp_path, question_store):
    with serving(sample_build.state, question_store.settings(tmp_path), conversations=ConversationLimits(max_age_s=0.001)) as client:
        conversation = ask(client, PRIYA).headers["x-valid-conversation-id"]
        error(ask(client, "and on v6e?", conversation), 409, "conversation_ended")


def test_without_a_question_log_conversations_live_in_memory_only(sample_build, tmp_path, question_store):
    settings = question_store.settings(tmp_path, log_questions=False)
    app = create_app(LibraryReleases(Store(sample_build.state), settings), ServeConfig(limits=Limits(rate_per_s=0)))
    before = {p.name for p in sample_build.state.iterdir()}
    with LiveServer(app) as server:
        wait_ready(server.url)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            conversation = ask(client, PRIYA).headers["x-valid-conversation-id"]
            assert ask(client, "and on v6e?", conversation).json()["scope"] == ["v6e"]
    assert {p.name for p in sample_build.state.iterdir()} == before
    assert not list(tmp_path.rglob("*.sqlite"))
    assert question_store.stored_text(settings) == "", "nothing reached the configured store"
