"""The question log: one SQLite row per question, JSON fields round-trip, safe across threads."""

import threading

import pytest

from valid.answer.log import QuestionLog


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
