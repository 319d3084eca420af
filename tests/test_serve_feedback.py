"""Feedback over real HTTP: `POST /v1/feedback` on an answer the service gave, stored in the question
log next to the question, validated against the published docs/openapi.json. Run against each
question store (SQLite and PostgreSQL)."""

from __future__ import annotations

import httpx
import pytest

from fixtures.openapi import validate
from fixtures.question_stores import question_store  # noqa: F401 (a fixture)
from valid.index import Store
from valid.serve import Limits, ServeConfig, create_app
from valid.serve.library import LibraryReleases
from valid.serve.live import LiveServer, wait_ready

PRIYA = "I'm on Ironwood. Which --version do I pass when I create the VM?"



@pytest.fixture(scope="module")
def api(sample_build, tmp_path_factory, question_store):
    settings = question_store.settings(tmp_path_factory.mktemp("feedback"))
    app = create_app(LibraryReleases(Store(sample_build.state), settings), ServeConfig(limits=Limits(rate_per_s=0)))
    with LiveServer(app) as server:
        wait_ready(server.url)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            yield client, lambda: question_store.open(settings)


def rate(client, payload: dict) -> httpx.Response:
    validate(payload, "FeedbackRequest")
    return client.post("/v1/feedback", json=payload)


def test_feedback_round_trip_lands_next_to_the_question_in_the_log(api):
    client, open_log = api
    answered = client.post("/v1/ask", json={"question": PRIYA})
    answer_id = answered.headers["x-valid-answer-id"]
    response = rate(client, {"answer_id": answer_id, "rating": "down", "reasons": ["wrong_version", "unclear"],
                             "comment": "I run <b>v6e</b> actually"})
    assert response.status_code == 200, response.text
    receipt = response.json()
    validate(receipt, "FeedbackReceipt")
    assert receipt["reasons"] == ["wrong_version", "unclear"] and receipt["rating"] == "down"
    with open_log() as log:
        entry = next(e for e in log.entries() if e["answer_id"] == answer_id)
    assert entry["question"] == PRIYA and entry["outcome"] == "answer"
    assert (entry["rating"], entry["reasons"], entry["comment"]) == ("down", ["wrong_version", "unclear"],
                                                                     "I run <b>v6e</b> actually")


def test_a_second_rating_of_the_same_answer_replaces_the_first(api):
    client, open_log = api
    answer_id = client.post("/v1/ask", json={"question": PRIYA}).headers["x-valid-answer-id"]
    assert rate(client, {"answer_id": answer_id, "rating": "down", "reasons": ["inaccurate"]}).status_code == 200
    assert rate(client, {"answer_id": answer_id, "rating": "up"}).status_code == 200
    with open_log() as log:
        entries = [e for e in log.entries() if e["answer_id"] == answer_id]
    assert [(e["rating"], e["reasons"]) for e in entries] == [("up", [])]


def error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    validate(response.json(), "ErrorBody")
    assert response.json()["error"]["code"] == code
    return response.json()["error"]["message"]


def test_feedback_on_an_answer_never_given_is_a_404(api):
    client, _ = api
    error(client.post("/v1/feedback", json={"answer_id": "f" * 32, "rating": "up"}), 404, "not_found")


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"answer_id": "x", "rating": "up"}, "answer_id"),
        ({"answer_id": "a" * 32, "rating": "meh"}, "rating"),
        ({"answer_id": "a" * 32, "rating": "down", "reasons": ["rude"]}, "reasons"),
        ({"answer_id": "a" * 32, "rating": "down", "comment": "x" * 1001}, "comment"),
    ],
)
def test_bad_feedback_is_a_422_naming_the_field(api, payload, field):
    client, _ = api
    assert field in error(client.post("/v1/feedback", json=payload), 422, "invalid_request")


def test_valid_serve_keeps_conversations_and_feedback_in_its_question_log(sample_build, tmp_path):
    """The command, not only the app: the release opened at startup must not hide the question log
    from the service (conversations and feedback would then live in memory and be lost)."""
    import shutil

    from fixtures.serve_process import valid_serve
    from valid.answer import QuestionLog

    state = tmp_path / "state"
    shutil.copytree(sample_build.state, state, ignore=shutil.ignore_patterns("issues", "questions.sqlite*"))
    with valid_serve("--state", str(state)) as url, httpx.Client(base_url=url, timeout=60) as client:
        answer_id = client.post("/v1/ask", json={"question": PRIYA}).headers["x-valid-answer-id"]
        assert rate(client, {"answer_id": answer_id, "rating": "up"}).status_code == 200
    with QuestionLog(state / "questions.sqlite") as log:
        assert [(e["question"], e["rating"]) for e in log.entries() if e["answer_id"] == answer_id] == [(PRIYA, "up")]
