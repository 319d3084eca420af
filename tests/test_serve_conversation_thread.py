"""A conversation read back over real HTTP (`GET /v1/conversations/{id}`), as the ask page does after a
reload: its turns in order with what each was asked as, its outcome, generations and answer id;
unknown and expired conversations are a 404 in the one error shape; the thread is bounded.

The real sample, the real offline engine, uvicorn on 127.0.0.1; every body validated against the
published docs/openapi.json. The expected turns come from the same service's ask responses.
"""

from __future__ import annotations

import re
import shutil
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from fixtures.openapi import validate
from fixtures.serving import serving as serve
from valid.answer import QuestionLog
from valid.answer.conversation import ConversationLimits, new_id
from valid.cli import main
from valid.serve.library import EngineSettings

PRIYA = "I'm on Ironwood. Which --version do I pass when I create the VM?"


@contextmanager
def serving(state: Path, log: Path, **config):
    with serve(state, EngineSettings(question_log=log, issues_dir=log.parent / "issues"), **config) as client:
        yield client


@pytest.fixture(scope="module")
def client(sample_build, tmp_path_factory):
    with serving(sample_build.state, tmp_path_factory.mktemp("thread") / "questions.sqlite") as client:
        yield client


def ask(client, question, conversation_id=None) -> httpx.Response:
    payload = {"question": question, **({"conversation_id": conversation_id} if conversation_id else {})}
    response = client.post("/v1/ask", json=payload)
    assert response.status_code in (200, 409), response.text
    return response


def thread(client, conversation_id: str) -> httpx.Response:
    response = client.get(f"/v1/conversations/{conversation_id}")
    if response.status_code == 200:
        validate(response.json(), "ConversationThread")
    return response


def error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    validate(response.json(), "ErrorBody")
    assert response.json()["error"]["code"] == code


def test_a_conversation_reads_back_as_its_turns_in_order(client):
    first = ask(client, PRIYA)
    conversation = first.headers["x-valid-conversation-id"]
    follow = ask(client, "and on v6e?", conversation)
    read = thread(client, conversation)
    assert read.status_code == 200, read.text
    body = read.json()
    assert body["conversation_id"] == conversation and body["ended"] is False
    turns = body["turns"]
    assert [t["turn"] for t in turns] == [1, 2]
    assert [t["question"] for t in turns] == [PRIYA, "and on v6e?"]
    assert [t["answer_id"] for t in turns] == [first.headers["x-valid-answer-id"], follow.headers["x-valid-answer-id"]]
    assert [t["outcome"] for t in turns] == [first.json()["outcome"], follow.json()["outcome"]]
    assert [t["generations"] for t in turns] == [["tpu7x"], ["v6e"]]
    assert [t["scope"] for t in turns] == [first.json()["scope"], follow.json()["scope"]]
    assert turns[1]["asked_as"] != "and on v6e?", "the thread shows what the follow-up was answered as"


def test_reading_an_unknown_conversation_is_a_404_in_the_error_shape(client):
    error(thread(client, "0123456789abcdef0123456789abcdef"), 404, "not_found")
    error(thread(client, "not.an.id"), 422, "invalid_request")


def test_reading_an_expired_conversation_is_a_404(sample_build, tmp_path):
    limits = ConversationLimits(max_age_s=0.001)
    with serving(sample_build.state, tmp_path / "questions.sqlite", conversations=limits) as client:
        conversation = ask(client, PRIYA).headers["x-valid-conversation-id"]
        response = thread(client, conversation)
        error(response, 404, "not_found")
        assert "expired" in response.json()["error"]["message"]


def test_a_thread_read_back_is_bounded_by_the_turn_bound(sample_build, tmp_path):
    # Five turns stored by an earlier service with a higher bound; this one allows three.
    log = tmp_path / "questions.sqlite"
    earlier = new_id()
    with QuestionLog(log) as store:
        store.start_conversation(earlier)
        for n in range(1, 6):
            store.add_turn({"answer_id": f"{n:032x}", "conversation_id": earlier, "question": f"question {n}",
                            "asked_as": f"question {n}", "generations": ["v5p"], "outcome": "answer",
                            "scope": ["v5p"]})
    with serving(sample_build.state, log, conversations=ConversationLimits(max_turns=3)) as client:
        body = thread(client, earlier).json()
        assert [t["turn"] for t in body["turns"]] == [3, 4, 5], "the latest turns, at most the bound"
        assert body["ended"] is True
        error(ask(client, "and on v6e?", earlier), 409, "conversation_ended")


def cli_ask(state: Path, question: str, conversation: str):
    result = CliRunner().invoke(main, ["ask", question, "--state", str(state), "--conversation", conversation])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def shared_state(sample_build, tmp_path) -> Path:
    """A copy of the sample's state whose question log the CLI and the service share."""
    return Path(shutil.copytree(sample_build.state, tmp_path / "state"))


def test_the_service_continues_only_ids_it_issued_and_the_cli_names_its_own_apart(shared_state):
    log = shared_state / "questions.sqlite"
    with serving(shared_state, log) as client:
        issued = ask(client, PRIYA).headers["x-valid-conversation-id"]
        assert re.fullmatch(r"[0-9a-f]{32}", issued), "a server-issued id is 128 random bits, not a name"
        assert ask(client, "and on v6e?", issued).status_code == 200
        # Stored in the same store, but never issued by the service: neither read nor continued.
        with QuestionLog(log) as store:
            store.start_conversation("guessable")
        error(client.post("/v1/ask", json={"question": PRIYA, "conversation_id": "guessable"}), 404, "not_found")
        error(thread(client, "guessable"), 404, "not_found")
        # The CLI naming the service's id starts a conversation of its own, apart from the service's.
        assert "turn 1," in cli_ask(shared_state, "and on v5p?", issued).stderr
        read = thread(client, issued).json()
        assert [t["question"] for t in read["turns"]] == [PRIYA, "and on v6e?"], "the service's thread is untouched"


def test_a_conversation_the_cli_named_is_not_reachable_over_http(shared_state):
    cli_ask(shared_state, PRIYA, "vm-help")
    with serving(shared_state, shared_state / "questions.sqlite") as client:
        error(thread(client, "vm-help"), 404, "not_found")
        response = client.post("/v1/ask", json={"question": "and on v6e?", "conversation_id": "vm-help"})
        error(response, 404, "not_found")
    assert "turn 2," in cli_ask(shared_state, "and on v6e?", "vm-help").stderr, "the CLI still continues it"
