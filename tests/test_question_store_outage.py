"""A question-store outage under a running server: readers keep getting answers.

With `valid serve --log-url postgresql://...` and the database stopped or hung (SIGSTOP) while
questions are in flight, every question is answered, its rows wait in the local spool and reach the
store once it is back (each exactly once), `/healthz` and `/metrics` say the store is degraded, and
what only the store can serve (an older conversation, feedback on an older answer) is a 503 with
Retry-After, never a 500. A real PostgreSQL server on 127.0.0.1 (tests/fixtures/postgres.py) and a
real `valid serve` process.
"""

from __future__ import annotations

import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from fixtures.postgres import fresh_database, running_server
from fixtures.serve_process import valid_serve

QUESTIONS = [
    "I'm on Ironwood. Which --version do I pass when I create the VM?",
    "How do I delete a TPU VM on v5p?",
    "How many chips per VM does v6e have?",
    "How do I bake sourdough bread with rye flour at home?",
    "Which --version do I pass when I create the VM?",
]


@pytest.fixture
def database():
    with running_server() as server:
        yield server, fresh_database(server.url)


@pytest.fixture
def state(sample_build, tmp_path) -> Path:
    """A copy of the sample's state directory: the spool is written beside the releases."""
    copy = tmp_path / "state"
    shutil.copytree(sample_build.state, copy)
    return copy


def ask(url: str, question: str, conversation_id: str | None = None) -> httpx.Response:
    payload = {"question": question, **({"conversation_id": conversation_id} if conversation_id else {})}
    return httpx.post(url + "/v1/ask", json=payload, timeout=60)


class Traffic:
    """Readers asking new questions from a few threads until stopped: the questions in flight."""

    def __init__(self, url: str, readers: int = 3):
        self.url = url
        self.readers = readers
        self.answered: list[tuple[str, httpx.Response, float]] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def _reader(self, number: int) -> None:
        n = number
        while not self._stop.is_set():
            question = QUESTIONS[n % len(QUESTIONS)]
            started = time.monotonic()
            response = ask(self.url, question)
            with self._lock:
                self.answered.append((question, response, time.monotonic() - started))
            n += self.readers

    @contextmanager
    def running(self):
        with ThreadPoolExecutor(self.readers) as pool:
            futures = [pool.submit(self._reader, n) for n in range(self.readers)]
            try:
                yield self
            finally:
                self._stop.set()
                for future in futures:
                    future.result()


def store_state(url: str) -> dict:
    """What /healthz says of the question store ({} when it says nothing, or is not 200)."""
    response = httpx.get(url + "/healthz", timeout=10)
    return response.json().get("question_store", {}) if response.status_code == 200 else {}


def became(predicate, timeout_s: float = 20.0) -> bool:
    """Whether `predicate()` came true within the time (polled)."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def store_rows(log_url: str) -> tuple[list[tuple], list[tuple]]:
    """(questions: id, question) and (turns: answer_id, question_id, asked_as) as the store holds them."""
    import psycopg

    with psycopg.connect(log_url, autocommit=True) as db:
        questions = db.execute("SELECT id, question FROM questions ORDER BY id").fetchall()
        turns = db.execute("SELECT answer_id, question_id, asked_as FROM turns").fetchall()
    return questions, turns


def test_a_stopped_then_hung_store_under_a_running_server_loses_no_question_and_stores_each_row_once(database, state):
    server, log_url = database
    with valid_serve("--state", str(state), "--log-url", log_url) as url:
        answered: list[tuple[str, httpx.Response, float]] = []
        seen = {"ok at start": store_state(url).get("state") == "ok"}
        degraded = lambda: store_state(url).get("state") == "degraded"  # noqa: E731
        flushed = lambda: store_state(url) == {"state": "ok", "spooled": 0}  # noqa: E731

        # The database stops while readers ask; it starts again while they still ask.
        with Traffic(url).running() as traffic:
            time.sleep(1.0)
            server.stop()
            seen["degraded while stopped"] = became(degraded)
            # A conversation started during the outage goes on: its turns are in the spool.
            opened = ask(url, QUESTIONS[0])
            follow = ask(url, "and on v6e?", opened.headers.get("x-valid-conversation-id"))
            answered += [(QUESTIONS[0], opened, 0.0), ("and on v6e?", follow, 0.0)]
            time.sleep(1.0)
            server.start()
            seen["flushed after the stop"] = became(flushed)
        answered += traffic.answered

        # The database hangs (SIGSTOP: its port accepts, nothing answers) while readers ask.
        with Traffic(url).running() as traffic:
            time.sleep(1.0)
            server.pause()
            seen["degraded while hung"] = became(degraded)
            time.sleep(3.0)
            server.resume()
            seen["flushed after the hang"] = became(flushed)
        answered += traffic.answered

    failed = [(q, r.status_code, r.text[:200]) for q, r, _ in answered if r.status_code != 200]
    assert not failed, f"{len(failed)} of {len(answered)} questions were not answered: {failed[:3]}"
    slowest = max(seconds for _, _, seconds in answered)
    assert slowest < 10, f"an ask took {slowest:.1f} s while the store hung"
    assert len(answered) > 12, "too few questions in flight to say anything"
    assert all(seen.values()), f"/healthz did not say what happened: {seen}"

    questions, turns = store_rows(log_url)
    answer_ids = [r.headers["x-valid-answer-id"] for _, r, _ in answered]
    assert sorted(t[0] for t in turns) == sorted(answer_ids), "every answer's turn is stored, once"
    assert len(questions) == len(answered), "one question row per question asked, none twice"
    by_id = dict(questions)
    assert all(by_id[question_id] == asked_as for _, question_id, asked_as in turns), \
        "every turn names its own question row"
