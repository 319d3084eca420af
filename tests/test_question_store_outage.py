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


def became(predicate, timeout_s: float = 60.0) -> bool:
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


def test_rows_spooled_before_a_restart_of_valid_serve_are_flushed_after_it(database, state):
    server, log_url = database
    with valid_serve("--state", str(state), "--log-url", log_url) as url:
        server.stop()
        answered = [ask(url, question) for question in QUESTIONS[:3]]
        assert [r.status_code for r in answered] == [200, 200, 200], answered[-1].text
        assert store_state(url) == {"state": "degraded", "spooled": 9}, "a question row, a start and a turn each"
    assert (state / "question-spool.sqlite").exists(), "the spool is a file of the state directory"
    server.start()
    with valid_serve("--state", str(state), "--log-url", log_url) as url:
        assert became(lambda: store_state(url) == {"state": "ok", "spooled": 0}), store_state(url)
    questions, turns = store_rows(log_url)
    assert sorted(t[0] for t in turns) == sorted(r.headers["x-valid-answer-id"] for r in answered)
    assert sorted(q for _, q in questions) == sorted(QUESTIONS[:3])


def test_a_store_call_on_a_hung_server_ends_within_its_bound(database):
    from test_question_store_postgres import row
    from valid.questionlog.postgres import PostgresStore, StoreUnavailable

    server, log_url = database
    with PostgresStore(log_url, 1.0) as store:
        store.log_question(row(1))
        server.pause()
        try:
            # The first call waits on an open connection (cut by the watchdog at 1 s); the next ones
            # open a new connection, which libpq bounds in whole seconds, 2 at least.
            for call in (lambda: store.log_question(row(2)), lambda: store.conversation("c1"), store.ping):
                started = time.monotonic()
                with pytest.raises(StoreUnavailable):
                    call()
                assert time.monotonic() - started < 2.5
        finally:
            server.resume()
        store.ping()  # answers again: the broken connection is replaced
        # The cut INSERT may still land once the server runs again (its reply was lost, not the
        # statement): why every write the spool repeats is idempotent.
        assert [r["question"] for r in store.rows()][0] == "question 1"


def test_a_write_repeated_from_the_spool_is_stored_once(database):
    from test_question_store_postgres import row
    from valid.questionlog.postgres import PostgresStore

    _, log_url = database
    turn = {"answer_id": "a" * 32, "conversation_id": "c1", "question": "typed", "asked_as": "question 1",
            "generations": ["tpu7x"], "outcome": "answer", "scope": ["tpu7x"]}
    with PostgresStore(log_url) as store:
        first = store.log_question(row(1), "key-1")
        store.start_conversation("c1", "2026-12-01T10:00:00.000+00:00")
        number = store.add_turn({**turn, "question_id": first}, "2026-12-01T10:00:01.000+00:00")
        store.record_feedback("a" * 32, "up", [], None, "2026-12-01T10:00:03.000+00:00")
        # The same writes again, as the spool repeats a write whose reply was lost; an older rating last.
        assert store.log_question(row(1), "key-1") == first
        store.start_conversation("c1", "2026-12-01T11:00:00.000+00:00")
        assert store.add_turn({**turn, "question_id": first}, "2026-12-01T11:00:01.000+00:00") == number == 1
        store.record_feedback("a" * 32, "down", ["inaccurate"], None, "2026-12-01T10:00:02.000+00:00")
        assert len(store.rows()) == 1 and len(store.turns("c1")) == 1
        assert store.conversation("c1")["started_at"] == "2026-12-01T10:00:00.000+00:00"
        assert store.conversation("c1")["turns"] == 1
        assert store.feedback("a" * 32)["rating"] == "up", "an older rating does not replace a newer one"


def test_a_gap_issue_that_could_not_be_written_during_an_outage_is_opened_when_asked_again(database):
    from valid.questionlog.postgres import PostgresStore
    from valid.serve.gaps import GapIssueWriter

    server, log_url = database
    writer = GapIssueWriter(PostgresStore(log_url, 1.0), cap=10)
    try:
        server.stop()
        writer.open_issue("question-gap", "fp1", "No content answers: rye bread", "body", "question")
        assert writer.flush() and writer.counts["failed"] == 1
        server.start()
        writer.open_issue("question-gap", "fp1", "No content answers: rye bread", "body", "question")
        assert writer.flush() and writer.counts["added"] == 1
        assert [issue.fingerprint for issue in writer.store.issues()] == ["fp1"]
    finally:
        writer.close()


# -- the service during an outage: what only the store holds, /healthz and /metrics ---------------------

@pytest.fixture(scope="module")
def served(sample_build, tmp_path_factory):
    """An app serving the sample with a PostgreSQL store that the tests stop, and readiness tied to it."""
    from fixtures.postgres import running_server
    from valid.index import Store
    from valid.serve import Limits, ServeConfig, create_app
    from valid.serve.library import EngineSettings, LibraryReleases
    from valid.serve.live import LiveServer, wait_ready

    root = tmp_path_factory.mktemp("outage")
    with running_server() as server:
        settings = EngineSettings(log_url=fresh_database(server.url), log_timeout_s=1.0, log_spool=root / "spool.sqlite")
        config = ServeConfig(limits=Limits(rate_per_s=0), ready_needs_question_store=True)
        with LiveServer(create_app(LibraryReleases(Store(sample_build.state), settings), config)) as live:
            wait_ready(live.url)
            yield live.url, server


@contextmanager
def stopped(server, url: str):
    """The database stopped for the block, then started again and the spool flushed."""
    server.stop()
    try:
        yield
    finally:
        server.start()
        assert became(lambda: httpx.get(url + "/healthz", timeout=10).status_code == 200), "ready again"


def metric(url: str, name: str) -> float:
    text = httpx.get(url + "/metrics", timeout=10).text
    return next(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name + " "))


def test_conversations_and_feedback_only_the_store_holds_are_503_with_retry_after_during_an_outage(served):
    url, server = served
    before = ask(url, QUESTIONS[0])
    conversation, answer = before.headers["x-valid-conversation-id"], before.headers["x-valid-answer-id"]
    with stopped(server, url):
        assert ask(url, QUESTIONS[1]).status_code == 200, "a new question is answered"
        replies = [
            httpx.get(f"{url}/v1/conversations/{conversation}", timeout=10),
            httpx.post(url + "/v1/feedback", json={"answer_id": answer, "rating": "up"}, timeout=10),
            ask(url, "and on v6e?", conversation),
        ]
        for reply in replies:
            assert reply.status_code == 503, reply.text
            assert reply.json()["error"]["code"] == "store_unavailable"
            assert int(reply.headers["retry-after"]) > 0
    # Once it is back, the same calls are served.
    assert httpx.get(f"{url}/v1/conversations/{conversation}", timeout=10).status_code == 200
    assert httpx.post(url + "/v1/feedback", json={"answer_id": answer, "rating": "up"}, timeout=10).status_code == 200


def test_a_conversation_started_during_an_outage_goes_on_and_takes_feedback(served):
    url, server = served
    with stopped(server, url):
        opened = ask(url, QUESTIONS[0])
        conversation, answer = opened.headers["x-valid-conversation-id"], opened.headers["x-valid-answer-id"]
        assert ask(url, "and on v6e?", conversation).json()["scope"] == ["v6e"]
        thread = httpx.get(f"{url}/v1/conversations/{conversation}", timeout=10).json()
        assert [t["turn"] for t in thread["turns"]] == [1, 2]
        rated = httpx.post(url + "/v1/feedback", json={"answer_id": answer, "rating": "down"}, timeout=10)
        assert rated.status_code == 200, rated.text
    assert became(lambda: store_state_any(url) == {"state": "ok", "spooled": 0})
    after = httpx.get(f"{url}/v1/conversations/{conversation}", timeout=10).json()
    assert [(t["turn"], t["answer_id"]) for t in after["turns"]] == [(t["turn"], t["answer_id"]) for t in thread["turns"]]


def store_state_any(url: str) -> dict:
    """The question store's state from /healthz, whether it answers 200 or 503."""
    body = httpx.get(url + "/healthz", timeout=10).json()
    return body.get("question_store", {"state": "degraded"} if "error" in body else {})


def test_metrics_and_readiness_show_a_degraded_store_and_the_writes_waiting(served):
    url, server = served
    assert metric(url, "valid_question_store_up") == 1
    failures = metric(url, "valid_question_store_failures_total")
    with stopped(server, url):
        assert ask(url, QUESTIONS[2]).status_code == 200
        assert metric(url, "valid_question_store_up") == 0
        assert metric(url, "valid_question_store_spooled") >= 3
        assert metric(url, "valid_question_store_failures_total") > failures
        health = httpx.get(url + "/healthz", timeout=10)
        assert health.status_code == 503 and "question store is degraded" in health.json()["error"]["message"]
    assert metric(url, "valid_question_store_up") == 1 and metric(url, "valid_question_store_spooled") == 0
    assert metric(url, "valid_question_store_flushed_total") >= 3
