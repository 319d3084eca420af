"""Several servers: two `valid serve` processes (as behind one load balancer), sharing one Chroma server
(`chroma run`) and one PostgreSQL question store, act as one service.

Real processes on 127.0.0.1: a conversation started on one continues on the other with its scope,
feedback sent to one server on an answer the other gave lands beside that answer's question (as
`valid log` shows it), and a refusal asked of both opens one gap issue.
"""

from __future__ import annotations

import json
import time
from contextlib import ExitStack

import httpx
import pytest
from click.testing import CliRunner

from fixtures.index.chroma_server import chroma_server
from fixtures.openapi import validate
from fixtures.postgres import fresh_database
from fixtures.serve_process import valid_serve
from valid.cli import main

PRIYA = "I'm on Ironwood. Which --version do I pass when I create the VM?"
GAP = "How do I bake sourdough bread with rye flour at home?"


@pytest.fixture(scope="module")
def two_servers(sample_build, postgres_url, tmp_path_factory):
    """Two servers over one Chroma server, one state directory (the releases) and one PostgreSQL store."""
    from valid.embed import make_embedder
    from valid.index import Store, build_release

    root = tmp_path_factory.mktemp("several")
    log_url = fresh_database(postgres_url)
    with ExitStack() as stack:
        chroma_url = stack.enter_context(chroma_server(root / "chroma"))
        state = root / "state"
        build_release(sample_build.export, make_embedder("offline"), Store(state, chroma_url=chroma_url))
        shared = ["--state", str(state), "--chroma-url", chroma_url, "--log-url", log_url]
        first = stack.enter_context(valid_serve(*shared))
        second = stack.enter_context(valid_serve(*shared))
        yield first, second, log_url, state


def ask(url: str, question: str, conversation_id: str | None = None) -> httpx.Response:
    payload = {"question": question, **({"conversation_id": conversation_id} if conversation_id else {})}
    response = httpx.post(url + "/v1/ask", json=payload, timeout=60)
    assert response.status_code == 200, response.text
    validate(response.json(), "AnswerObject")
    return response


def test_a_conversation_started_on_one_server_continues_on_the_other(two_servers):
    first, second, _, _ = two_servers
    opened = ask(first, PRIYA)
    conversation = opened.headers["x-valid-conversation-id"]
    assert opened.json()["scope"] == ["tpu7x"]
    follow = ask(second, "How do I delete a TPU VM?", conversation)
    assert follow.headers["x-valid-conversation-id"] == conversation
    assert follow.json()["scope"] == ["tpu7x"], "the other server kept the conversation's generation"
    switched = ask(first, "and on v6e?", conversation)
    assert switched.json()["scope"] == ["v6e"]
    alone = ask(second, "Which --version do I pass when I create the VM?").json()
    assert alone["scope"] != ["v6e"], "without the conversation the same words are not scoped to v6e"


def test_feedback_sent_to_one_server_is_seen_beside_the_answer_the_other_gave(two_servers):
    first, second, log_url, _ = two_servers
    answered = ask(second, PRIYA)
    answer_id = answered.headers["x-valid-answer-id"]
    receipt = httpx.post(first + "/v1/feedback", timeout=30,
                         json={"answer_id": answer_id, "rating": "down", "reasons": ["wrong_version"]})
    assert receipt.status_code == 200, receipt.text
    listed = CliRunner().invoke(main, ["log", "--log-url", log_url, "--format", "json", "--feedback", "down"])
    assert listed.exit_code == 0, listed.output
    entry = next(e for e in json.loads(listed.output) if e["answer_id"] == answer_id)
    assert (entry["question"], entry["rating"], entry["reasons"]) == (PRIYA, "down", ["wrong_version"])


def test_a_refusal_asked_of_both_servers_opens_one_gap_issue(two_servers):
    from valid.questionlog.postgres import PostgresStore

    first, second, log_url, state = two_servers
    refusals = [ask(url, GAP).json() for url in (first, second, first)]
    assert all(r["outcome"] == "refuse" for r in refusals)
    assert len({r["refusal"]["gap_issue"] for r in refusals}) == 1, "both servers name the same issue"
    deadline = time.monotonic() + 20
    with PostgresStore(log_url) as store:
        while not (found := [i for i in store.issues() if "sourdough" in i.title]):
            assert time.monotonic() < deadline, "the gap issue was never written"
            time.sleep(0.2)
        time.sleep(1.0)  # both servers' writer threads have had their turn
        assert len([i for i in store.issues() if "sourdough" in i.title]) == 1
        questions = [r["question"] for r in store.rows()]
    assert questions.count(GAP) == 3, "every question is logged, whichever server answered it"
    assert not (state / "questions.sqlite").exists() and not (state / "issues").exists(), "nothing kept per process"
