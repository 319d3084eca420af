"""log_question: one SQLite row per question (design US-1; the trap-set report reads only this table).

A row holds what is needed to diagnose a miss without calling any provider again: the question, the
resolved scope and matched words, the release, per-channel ranks and scores and the fused list per
profile, the chunk ids and scopes sent to the generator on every attempt, each check's result, the
outcome, attempts, stage latencies, tokens and cost. Chunk texts are not logged (the answer object,
which only holds in-scope text, is).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

_COLUMNS = [
    ("asked_at", "TEXT NOT NULL"),
    ("question", "TEXT NOT NULL"),
    ("scope", "TEXT NOT NULL"),  # JSON list
    ("matched", "TEXT NOT NULL"),  # JSON list
    ("unknown", "TEXT NOT NULL"),  # JSON list
    ("release_id", "TEXT NOT NULL"),
    ("outcome", "TEXT NOT NULL"),
    ("degraded", "INTEGER NOT NULL"),
    ("generator", "TEXT NOT NULL"),
    ("model", "TEXT"),
    ("attempts", "INTEGER NOT NULL"),
    ("calls", "INTEGER NOT NULL"),
    ("tokens_in", "INTEGER NOT NULL"),
    ("tokens_out", "INTEGER NOT NULL"),
    ("cost_usd", "REAL NOT NULL"),
    ("latency_ms", "REAL NOT NULL"),
    ("stages", "TEXT NOT NULL"),  # JSON {stage: ms}
    ("retrieval", "TEXT NOT NULL"),  # JSON {profile: {status, reasons, channels, fused, ...}}
    ("sent", "TEXT NOT NULL"),  # JSON {profile: [[{id, scope}], ...per attempt]}
    ("checks", "TEXT NOT NULL"),  # JSON {profile: [report per attempt]}
    ("gap_issues", "TEXT NOT NULL"),  # JSON list of issue ids
    ("answer", "TEXT NOT NULL"),  # JSON answer object
]


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class QuestionLog:
    """The question log at `<state>/questions.sqlite` (or any path)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection shared by the service's worker threads, serialised by a lock.
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        columns = ", ".join(f"{name} {kind}" for name, kind in _COLUMNS)
        self._db.execute(f"CREATE TABLE IF NOT EXISTS questions (id INTEGER PRIMARY KEY, {columns})")
        self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self._db.commit()

    def log_question(self, row: dict[str, Any]) -> int:
        """Insert one row; JSON-valued fields may be given as Python values. Returns the row id."""
        values = dict(row)
        values.setdefault("asked_at", datetime.now(timezone.utc).isoformat(timespec="milliseconds"))
        missing = [name for name, _ in _COLUMNS if name not in values]
        if missing:
            raise ValueError(f"question log row misses {missing}")
        params = [
            v if isinstance(v, (str, int, float)) or v is None else _dumps(v)
            for v in (values[name] for name, _ in _COLUMNS)
        ]
        names = ", ".join(name for name, _ in _COLUMNS)
        marks = ", ".join("?" for _ in _COLUMNS)
        with self._lock, self._db:
            cursor = self._db.execute(f"INSERT INTO questions ({names}) VALUES ({marks})", params)
        return int(cursor.lastrowid)

    def rows(self) -> list[dict[str, Any]]:
        with self._lock:
            cursor = self._db.execute("SELECT * FROM questions ORDER BY id")
            names = [d[0] for d in cursor.description]
            fetched = cursor.fetchall()
        out = []
        for values in fetched:
            record = dict(zip(names, values))
            for name in ("scope", "matched", "unknown", "stages", "retrieval", "sent", "checks", "gap_issues", "answer"):
                record[name] = json.loads(record[name])
            out.append(record)
        return out

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "QuestionLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
