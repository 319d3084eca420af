"""The question log: one SQLite row per question, JSON fields round-trip, safe across threads."""

import threading

import pytest

from valid.questionlog.sqlite import QuestionLog


def row(n):
    return {
        "question": f"q{n}", "scope": ["tpu7x"], "matched": ["Ironwood"], "unknown": [], "release_id": "r" * 64,
        "outcome": "answer", "degraded": 0, "generator": "offline", "model": None, "attempts": 1, "calls": 1,
        "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0, "latency_ms": 1.5, "stages": {"total": 1.5},
        "retrieval": {"tpu7x": {"fused": [["a#b/c", 1, 0.03]]}}, "sent": {"tpu7x": [[{"id": "a#b/c", "scope": ["tpu7x"]}]]},
        "checks": {"tpu7x": [{"passed": True}]}, "gap_issues": [], "answer": {"outcome": "answer"},
    }  # fmt: skip


def test_rows_round_trip_with_json_fields(tmp_path):
    with QuestionLog(tmp_path / "q.sqlite") as log:
        assert log.log_question(row(1)) == 1
        (stored,) = log.rows()
    assert stored["scope"] == ["tpu7x"] and stored["retrieval"]["tpu7x"]["fused"] == [["a#b/c", 1, 0.03]]
    assert stored["model"] is None and stored["cost_usd"] == 0.0 and stored["asked_at"]


def test_a_row_missing_a_field_is_rejected(tmp_path):
    bad = row(1)
    del bad["cost_usd"]
    with QuestionLog(tmp_path / "q.sqlite") as log, pytest.raises(ValueError, match="cost_usd"):
        log.log_question(bad)


def test_rows_persist_and_threads_can_share_one_log(tmp_path):
    log = QuestionLog(tmp_path / "q.sqlite")
    threads = [threading.Thread(target=lambda n=n: log.log_question(row(n))) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log.close()
    with QuestionLog(tmp_path / "q.sqlite") as reopened:
        assert sorted(r["question"] for r in reopened.rows()) == [f"q{n}" for n in range(8)]


def test_a_schema_1_log_opens_with_its_rows_and_gains_the_conversation_tables(tmp_path):
    import json
    import sqlite3

    from valid.questionlog.sqlite import _COLUMNS, SCHEMA_VERSION

    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path)  # what a schema-1 VALID wrote: the questions table only
    old.execute(f"CREATE TABLE questions (id INTEGER PRIMARY KEY, {', '.join(f'{n} {k}' for n, k in _COLUMNS)})")
    values = {"asked_at": "2026-11-30T10:00:00.000+00:00", **row(7)}
    old.execute(
        f"INSERT INTO questions ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
        [json.dumps(v) if isinstance(v, (list, dict)) else v for v in values.values()],
    )
    old.execute("PRAGMA user_version = 1")
    old.commit()
    old.close()
    with QuestionLog(path) as log:
        (stored,) = log.rows()
        assert stored["question"] == "q7" and stored["asked_at"] == "2026-11-30T10:00:00.000+00:00"
        (entry,) = log.entries()
        assert entry["answer_id"] is None and entry["rating"] is None, "an old row has no turn and no feedback"
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"questions", "conversations", "turns", "feedback"} <= tables


def test_a_log_from_a_newer_valid_is_refused_in_one_line(tmp_path):
    import sqlite3

    from valid.questionlog.sqlite import QuestionLogError

    path = tmp_path / "new.sqlite"
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA user_version = 99")
    with pytest.raises(QuestionLogError, match="schema 99 is newer") as caught:
        QuestionLog(path)
    assert "\n" not in str(caught.value)


def test_feedback_is_kept_per_answer_and_joins_its_question(tmp_path):
    with QuestionLog(tmp_path / "q.sqlite") as log:
        question_id = log.log_question(row(1))
        log.start_conversation("c")
        log.add_turn({"answer_id": "a" * 32, "conversation_id": "c", "question_id": question_id, "question": "typed",
                      "asked_as": "q1", "generations": ["tpu7x"], "outcome": "answer", "scope": ["tpu7x"]})
        log.record_feedback("a" * 32, "down", ["wrong_version"], "no")
        log.record_feedback("a" * 32, "up", [], None)
        (entry,) = log.entries()
    assert (entry["typed"], entry["turn"], entry["rating"], entry["reasons"], entry["comment"]) == (
        "typed", 1, "up", [], None)
