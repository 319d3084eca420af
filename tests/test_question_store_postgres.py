"""The PostgreSQL question store: the same results as the SQLite log for the same calls, its schema
made on first use (also by several processes at once), several processes writing at once without
losing a row or opening a gap issue twice, and a wrong or unreachable URL as one line.

Against a real PostgreSQL server on 127.0.0.1 (tests/fixtures/postgres.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from fixtures.postgres import fresh_database
from valid.questionlog.sqlite import QuestionLog, QuestionLogError
from valid.audit.issues import IssueDraft
from valid.cli import main

REPO = Path(__file__).resolve().parents[1]


def row(n: int, day: str = "2026-11-30", outcome: str = "answer") -> dict:
    return {
        "asked_at": f"{day}T10:00:{n % 60:02d}.000+00:00", "question": f"question {n}", "scope": ["tpu7x"],
        "matched": ["Ironwood"], "unknown": [], "release_id": "r" * 64, "outcome": outcome, "degraded": n % 2 == 0,
        "generator": "offline", "model": None, "attempts": 1, "calls": 1, "tokens_in": 3, "tokens_out": 2,
        "cost_usd": 0.001 * n, "latency_ms": 1.5, "stages": {"total": 1.5}, "retrieval": {"tpu7x": {"fused": []}},
        "sent": {}, "checks": {}, "gap_issues": [f"gap{n}"] if outcome == "refuse" else [],
        "answer": {"outcome": outcome, "refusal": {"reason": "nothing in scope"} if outcome == "refuse" else None},
    }  # fmt: skip


def fill(store) -> None:
    """The same calls on any store."""
    for n in range(1, 5):
        qid = store.log_question(row(n, outcome="refuse" if n == 3 else "answer"))
        conversation = f"c{(n + 1) // 2}"
        if store.conversation(conversation) is None:
            store.start_conversation(conversation)
        store.add_turn({"answer_id": f"{n:032x}", "conversation_id": conversation, "question_id": qid,
                        "question": f"typed {n}", "asked_as": f"question {n}", "generations": ["tpu7x"],
                        "outcome": "answer", "scope": ["tpu7x"]})
    store.record_feedback(f"{1:032x}", "down", ["inaccurate"], "first")
    store.record_feedback(f"{1:032x}", "up", [], None)
    store.record_feedback(f"{4:032x}", "down", ["wrong_version", "unclear"], "said <b>v5p</b>")


def without_times(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in ("asked_at", "started_at", "updated_at", "rated_at")}
            for r in records]


@pytest.fixture
def pg_url(postgres_url) -> str:
    return fresh_database(postgres_url)


def test_the_same_calls_give_the_same_results_on_sqlite_and_postgresql(pg_url, tmp_path):
    from valid.questionlog.postgres import PostgresStore

    with QuestionLog(tmp_path / "q.sqlite") as lite, PostgresStore(pg_url) as pg:
        fill(lite)
        fill(pg)
        assert pg.entries() == lite.entries()
        assert pg.entries("2026-11-30T10:00:02.000+00:00") == lite.entries("2026-11-30T10:00:02.000+00:00")
        assert without_times(pg.rows()) == without_times(lite.rows())
        assert without_times(pg.turns("c1")) == without_times(lite.turns("c1"))
        assert without_times([pg.conversation("c2")]) == without_times([lite.conversation("c2")])
        assert without_times([pg.feedback(f"{4:032x}")]) == without_times([lite.feedback(f"{4:032x}")])
        assert pg.answer("f" * 32) is None and pg.conversation("nope") is None


def test_the_schema_is_made_on_first_use_and_reopening_keeps_the_rows(pg_url):
    from valid.questionlog.postgres import PostgresStore

    with PostgresStore(pg_url) as first:
        first.log_question(row(1))
    with PostgresStore(pg_url) as again:
        assert [r["question"] for r in again.rows()] == ["question 1"]


def test_a_store_written_by_a_newer_valid_is_refused_in_one_line(pg_url):
    import psycopg

    from valid.questionlog.postgres import PostgresStore

    PostgresStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("UPDATE valid_schema SET version = 99")
    with pytest.raises(QuestionLogError, match="schema 99 is newer") as raised:
        PostgresStore(pg_url)
    assert "\n" not in str(raised.value)


WRITER = """
import json, sys
from valid.questionlog.postgres import PostgresStore
from valid.audit.issues import IssueDraft
sys.path.insert(0, {tests!r})
from test_question_store_postgres import row
url, worker, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
outcomes = []
with PostgresStore(url) as store:
    for n in range(count):
        store.log_question(row(worker * 1000 + n))
        store.add_turn({{"answer_id": f"{{worker:016x}}{{n:016x}}", "conversation_id": "shared", "question_id": None,
                        "question": "q", "asked_as": "q", "generations": [], "outcome": "answer", "scope": []}})
        drafts = [IssueDraft(fingerprint=f"fp{{(n + k) % 7}}", title=f"t{{n}}", body="b", source="s") for k in range(3)]
        outcomes += store.append_issues("question-gap", drafts, cap=5)
print(json.dumps(outcomes))
"""


def test_several_processes_writing_at_once_lose_no_row_and_open_each_gap_issue_once(pg_url):
    from valid.questionlog.postgres import PostgresStore

    with PostgresStore(pg_url) as store:
        store.start_conversation("shared")
    workers, count = 4, 25
    script = WRITER.format(tests=str(REPO / "tests"))
    processes = [
        subprocess.Popen([sys.executable, "-c", script, pg_url, str(w), str(count)], stdout=subprocess.PIPE, text=True)
        for w in range(workers)
    ]
    outcomes = []
    for process in processes:
        out, _ = process.communicate(timeout=120)
        assert process.returncode == 0
        outcomes += json.loads(out)
    with PostgresStore(pg_url) as store:
        assert len(store.rows()) == workers * count, "no question row lost"
        turns = store.turns("shared")
        assert [t["turn"] for t in turns] == list(range(1, workers * count + 1)), "turn numbers taken in turn"
        assert store.conversation("shared")["turns"] == workers * count
        issues = store.issues()
    assert len(issues) == 5, "the cap holds across processes"
    assert len({i.fingerprint for i in issues}) == 5 and [i.number for i in issues] == [1, 2, 3, 4, 5]
    assert outcomes.count("added") == 5
    assert set(outcomes) == {"added", "duplicate", "dropped"}


def test_schema_creation_by_several_processes_at_once_is_safe(pg_url):
    script = "import sys; from valid.questionlog.postgres import PostgresStore; PostgresStore(sys.argv[1]).close()"
    processes = [subprocess.Popen([sys.executable, "-c", script, pg_url], stderr=subprocess.PIPE, text=True)
                 for _ in range(4)]
    for process in processes:
        _, err = process.communicate(timeout=60)
        assert process.returncode == 0, err


def test_gap_issues_deduplicate_within_a_batch_and_across_stores(pg_url):
    from valid.questionlog.postgres import PostgresStore

    drafts = [IssueDraft(fingerprint=f, title=f, body="b", source="s") for f in ("a", "a", "b")]
    with PostgresStore(pg_url) as one, PostgresStore(pg_url) as two:
        assert one.append_issues("question-gap", drafts) == ["added", "duplicate", "added"]
        assert two.append_issues("question-gap", drafts) == ["duplicate", "duplicate", "duplicate"]
        assert [i.fingerprint for i in two.issues("question-gap")] == ["a", "b"]


# -- wrong URLs and servers that do not answer: one line, non-zero, no traceback --------------------


def closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def one_line_error(result, *needles: str) -> str:
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("command", [["log"], ["log", "issues"], ["ask", "How do I create a TPU VM?"]])
def test_an_unreachable_server_is_one_line_without_the_password(command, tmp_path, sample_build):
    url = f"postgresql://valid:s3cret@127.0.0.1:{closed_port()}/valid"
    state = ["--state", str(sample_build.state)]
    result = CliRunner().invoke(main, [command[0], *state, "--log-url", url, *command[1:]])
    line = one_line_error(result, "127.0.0.1", "--log-url")
    assert "s3cret" not in line


def test_a_database_that_does_not_exist_is_one_line(postgres_url):
    url = postgres_url.rsplit("/", 1)[0] + "/no_such_database"
    one_line_error(CliRunner().invoke(main, ["log", "--log-url", url]), "no_such_database", "does not exist")


@pytest.mark.parametrize("command", [["log"], ["serve"], ["ask", "q"]])
def test_a_url_that_is_not_postgresql_is_one_line(command, tmp_path):
    result = CliRunner().invoke(main, [command[0], "--log-url", "mysql://x@127.0.0.1/db", *command[1:]])
    one_line_error(result, "not a PostgreSQL URL")


def test_valid_serve_with_an_unreachable_store_exits_before_listening(sample_build, tmp_path):
    url = f"postgresql://valid@127.0.0.1:{closed_port()}/valid"
    done = subprocess.run(
        [sys.executable, "-c", "from valid.cli import main; main()", "serve", "--state", str(sample_build.state), "--port", "0",
         "--log-url", url], capture_output=True, text=True, timeout=120,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("valid: error:")]
    assert len(errors) == 1 and "cannot open the question store" in errors[0], done.stderr


# -- valid log and valid ask on the PostgreSQL store ----------------------------------------------


def test_valid_log_lists_and_filters_the_postgresql_store(pg_url):
    from valid.questionlog.postgres import PostgresStore

    with PostgresStore(pg_url) as store:
        fill(store)
    listed = CliRunner().invoke(main, ["log", "--log-url", pg_url, "--format", "json", "--feedback", "down"])
    assert listed.exit_code == 0, listed.output
    entries = json.loads(listed.output)
    assert [(e["question"], e["reasons"], e["comment"]) for e in entries] == [
        ("question 4", ["wrong_version", "unclear"], "said <b>v5p</b>")
    ]


def test_valid_ask_logs_to_the_store_named_in_valid_toml_and_a_flag_overrides_it(sample_build, postgres_url, tmp_path):
    from valid.questionlog.postgres import PostgresStore

    in_file, by_flag = fresh_database(postgres_url), fresh_database(postgres_url)
    (tmp_path / "valid.toml").write_text(f'[answer]\nlog_url = "{in_file}"\n', encoding="utf-8")
    config = ["--config", str(tmp_path / "valid.toml")]
    question = "How do I bake sourdough bread with rye flour at home?"
    state = ["--state", str(sample_build.state)]
    assert CliRunner().invoke(main, [*config, "ask", *state, question]).exit_code == 0
    assert CliRunner().invoke(main, [*config, "ask", *state, "--log-url", by_flag, question]).exit_code == 0
    for url in (in_file, by_flag):
        with PostgresStore(url) as store:
            assert [r["question"] for r in store.rows()] == [question]
            assert len(store.issues()) == 1, "the refusal's gap issue is in the same store"
    issues = CliRunner().invoke(main, [*config, "log", "issues"])
    assert issues.exit_code == 0 and "sourdough" in issues.output


def test_valid_ask_conversation_keeps_its_turns_in_the_postgresql_store(sample_build, pg_url):
    from valid.answer.conversation import named_key
    from valid.questionlog.postgres import PostgresStore

    state = ["--state", str(sample_build.state), "--log-url", pg_url, "--conversation", "portal-1"]
    priya = "I'm on Ironwood. Which --version do I pass when I create the VM?"
    first = CliRunner().invoke(main, ["ask", *state, priya])
    follow = CliRunner().invoke(main, ["ask", *state, "--json", "and on v6e?"])
    assert first.exit_code == 0 and follow.exit_code == 0, follow.output
    assert json.loads(follow.stdout)["scope"] == ["v6e"]
    with PostgresStore(pg_url) as store:
        turns = store.turns(named_key("portal-1"))  # the CLI names its own conversations apart
    assert [(t["turn"], t["question"]) for t in turns] == [(1, priya), (2, "and on v6e?")]
    assert turns[1]["generations"] == ["v6e"] and "--version" in turns[1]["asked_as"]


def test_a_connection_the_server_dropped_is_one_line_and_the_next_call_reconnects(pg_url):
    import psycopg

    from valid.questionlog.postgres import PostgresStore

    with PostgresStore(pg_url) as store:
        store.log_question(row(1))
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                          " WHERE application_name = 'valid' AND pid <> pg_backend_pid()")
        with pytest.raises(QuestionLogError) as raised:
            store.log_question(row(2))
        assert "\n" not in str(raised.value) and "question store failed" in str(raised.value)
        store.log_question(row(3))
        assert [r["question"] for r in store.rows()] == ["question 1", "question 3"]
