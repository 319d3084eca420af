"""log_question: one SQLite row per question, whatever its outcome (the trap-set report reads only this table).

Since schema 2 the same file also holds the conversations, their turns (one per answer the service
or `valid ask --conversation` gave, naming the question row) and readers' feedback on answers.
Opening a schema-1 log adds those tables and leaves the question rows as they are; a log written
by a newer VALID is refused with one line. Everything reads and writes through the methods below
(the `QuestionStore` protocol of `valid.questionlog.store`); `valid.questionlog.postgres` implements the same
methods on PostgreSQL, for several servers sharing one store.

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

from valid.errors import ValidError

SCHEMA_VERSION = 2

# Tables added by schema 2 (CREATE IF NOT EXISTS: opening a schema-1 log migrates it in place).
_SCHEMA_2 = [
    """CREATE TABLE IF NOT EXISTS conversations (
        id TEXT PRIMARY KEY, started_at TEXT NOT NULL, updated_at TEXT NOT NULL, turns INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS turns (
        answer_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL REFERENCES conversations(id),
        turn INTEGER NOT NULL, question_id INTEGER, asked_at TEXT NOT NULL, question TEXT NOT NULL,
        asked_as TEXT NOT NULL, generations TEXT NOT NULL, outcome TEXT NOT NULL, scope TEXT NOT NULL,
        choices TEXT NOT NULL DEFAULT '[]', UNIQUE (conversation_id, turn))""",
    "CREATE INDEX IF NOT EXISTS turns_question ON turns (question_id)",
    """CREATE TABLE IF NOT EXISTS feedback (
        answer_id TEXT PRIMARY KEY REFERENCES turns(answer_id), rated_at TEXT NOT NULL,
        rating TEXT NOT NULL, reasons TEXT NOT NULL, comment TEXT)""",
]


class QuestionLogError(ValidError):
    """The question log cannot be used (written by a newer VALID, or not a question log)."""


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")

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


def question_params(row: dict[str, Any]) -> list[Any]:
    """A question row's values in column order: JSON-valued fields as JSON text, booleans as 0/1
    (what SQLite stores for them; PostgreSQL's integer columns take no booleans)."""
    values = dict(row)
    values.setdefault("asked_at", now_iso())
    missing = [name for name, _ in _COLUMNS if name not in values]
    if missing:
        raise ValueError(f"question log row misses {missing}")
    out = []
    for value in (values[name] for name, _ in _COLUMNS):
        if isinstance(value, bool):
            value = int(value)
        out.append(value if isinstance(value, (str, int, float)) or value is None else _dumps(value))
    return out


QUESTION_NAMES = [name for name, _ in _COLUMNS]
_JSON_COLUMNS = ("scope", "matched", "unknown", "stages", "retrieval", "sent", "checks", "gap_issues", "answer")

# What `entries()` reads: one flat record per question with its turn and feedback (placeholders
# are the store's own, filled in by `entries_sql`).
_ENTRIES = (
    "SELECT q.id, q.asked_at, q.question, q.scope, q.matched, q.release_id, q.outcome, q.degraded,"
    " q.generator, q.model, q.calls, q.tokens_in, q.tokens_out, q.cost_usd, q.latency_ms, q.gap_issues,"
    " q.answer, t.conversation_id, t.turn, t.answer_id, t.question AS typed, f.rating, f.reasons, f.comment"
    " FROM questions q LEFT JOIN turns t ON t.question_id = q.id"
    " LEFT JOIN feedback f ON f.answer_id = t.answer_id"
)


def entries_sql(since: str | None, until: str | None, mark: str) -> tuple[str, tuple]:
    where, params = [], []
    if since:
        where.append(f"q.asked_at >= {mark}")
        params.append(since)
    if until:
        where.append(f"q.asked_at < {mark}")
        params.append(until)
    sql = _ENTRIES + (" WHERE " + " AND ".join(where) if where else "")
    return sql + " ORDER BY q.id", tuple(params)


def decode_row(record: dict[str, Any]) -> dict[str, Any]:
    for name in _JSON_COLUMNS:
        record[name] = json.loads(record[name])
    return record


# A column added to `turns` after schema 2 shipped, with a default, so logs of either age open in
# either VALID: the generations an ask turn offered (what a reply to it picks from).
TURN_CHOICES = "choices TEXT NOT NULL DEFAULT '[]'"


def decode_turn(turn: dict[str, Any]) -> dict[str, Any]:
    turn["generations"] = json.loads(turn["generations"])
    turn["scope"] = json.loads(turn["scope"])
    turn["choices"] = json.loads(turn.get("choices") or "[]")
    return turn


def decode_feedback(found: dict[str, Any]) -> dict[str, Any]:
    found["reasons"] = json.loads(found["reasons"])
    return found


def decode_entry(record: dict[str, Any]) -> dict[str, Any]:
    for name in ("scope", "matched", "gap_issues"):
        record[name] = json.loads(record[name])
    record["reasons"] = json.loads(record["reasons"]) if record["reasons"] else []
    answer = json.loads(record.pop("answer"))
    record["refusal"] = (answer.get("refusal") or {}).get("reason") if answer.get("outcome") == "refuse" else None
    return record


class QuestionLog:
    """The question log at `<state>/questions.sqlite` (or any path)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.where = str(self.path)
        self.in_memory = str(path) == ":memory:"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection shared by the service's worker threads, serialised by a lock.
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        try:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as err:
            self._db.close()
            raise QuestionLogError(f"{self.path}: not a question log ({err})") from None
        if version > SCHEMA_VERSION:
            self._db.close()
            raise QuestionLogError(
                f"{self.path}: question log schema {version} is newer than this VALID's ({SCHEMA_VERSION}); upgrade VALID"
            )
        columns = ", ".join(f"{name} {kind}" for name, kind in _COLUMNS)
        with self._db:
            self._db.execute(f"CREATE TABLE IF NOT EXISTS questions (id INTEGER PRIMARY KEY, {columns})")
            for statement in _SCHEMA_2:
                self._db.execute(statement)
            if "choices" not in {row[1] for row in self._db.execute("PRAGMA table_info(turns)")}:
                self._db.execute(f"ALTER TABLE turns ADD COLUMN {TURN_CHOICES}")
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def log_question(self, row: dict[str, Any]) -> int:
        """Insert one row; JSON-valued fields may be given as Python values. Returns the row id."""
        params = question_params(row)
        names = ", ".join(name for name, _ in _COLUMNS)
        marks = ", ".join("?" for _ in _COLUMNS)
        with self._lock, self._db:
            cursor = self._db.execute(f"INSERT INTO questions ({names}) VALUES ({marks})", params)
        return int(cursor.lastrowid)

    def rows(self) -> list[dict[str, Any]]:
        return [decode_row(record) for record in self._select("SELECT * FROM questions ORDER BY id")]

    def _select(self, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
        with self._lock:
            cursor = self._db.execute(sql, params)
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, values)) for values in cursor.fetchall()]

    # -- conversations and turns ---------------------------------------------------------------

    def conversation(self, conversation_id: str) -> dict[str, Any] | None:
        """{id, started_at, updated_at, turns} or None."""
        found = self._select("SELECT * FROM conversations WHERE id = ?", (conversation_id,))
        return found[0] if found else None

    def start_conversation(self, conversation_id: str) -> None:
        stamp = now_iso()
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO conversations (id, started_at, updated_at, turns) VALUES (?, ?, ?, 0)",
                (conversation_id, stamp, stamp),
            )

    def turns(self, conversation_id: str) -> list[dict[str, Any]]:
        """The conversation's turns, oldest first (generations and scope as lists)."""
        found = self._select("SELECT * FROM turns WHERE conversation_id = ? ORDER BY turn", (conversation_id,))
        return [decode_turn(turn) for turn in found]

    def add_turn(self, turn: dict[str, Any]) -> int:
        """Append a turn ({answer_id, conversation_id, question_id, question, asked_as, generations,
        outcome, scope, choices?}); returns its number (1, 2, ...). Raises when another turn took the number."""
        stamp = now_iso()
        with self._lock, self._db:
            number = self._db.execute(
                "SELECT turns FROM conversations WHERE id = ?", (turn["conversation_id"],)
            ).fetchone()[0] + 1
            self._db.execute(
                "INSERT INTO turns (answer_id, conversation_id, turn, question_id, asked_at, question, asked_as,"
                " generations, outcome, scope, choices) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (turn["answer_id"], turn["conversation_id"], number, turn.get("question_id"), stamp,
                 turn["question"], turn["asked_as"], _dumps(turn["generations"]), turn["outcome"],
                 _dumps(turn["scope"]), _dumps(turn.get("choices", []))),
            )
            self._db.execute(
                "UPDATE conversations SET turns = ?, updated_at = ? WHERE id = ?",
                (number, stamp, turn["conversation_id"]),
            )
        return number

    def forget_conversations(self, before: str) -> int:
        """Delete conversations started before `before` (ISO time) with their turns and feedback:
        for stores that must not grow (the in-memory one behind --no-log)."""
        with self._lock, self._db:
            old = "SELECT id FROM conversations WHERE started_at < ?"
            answers = f"SELECT answer_id FROM turns WHERE conversation_id IN ({old})"
            self._db.execute(f"DELETE FROM feedback WHERE answer_id IN ({answers})", (before,))
            self._db.execute(f"DELETE FROM turns WHERE conversation_id IN ({old})", (before,))
            return self._db.execute("DELETE FROM conversations WHERE started_at < ?", (before,)).rowcount

    # -- feedback ------------------------------------------------------------------------------

    def answer(self, answer_id: str) -> dict[str, Any] | None:
        """The turn that gave this answer, or None."""
        found = self._select("SELECT * FROM turns WHERE answer_id = ?", (answer_id,))
        return found[0] if found else None

    def record_feedback(self, answer_id: str, rating: str, reasons: list[str], comment: str | None) -> str:
        """Store a reader's feedback on one answer (a second one replaces the first); returns its time."""
        stamp = now_iso()
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO feedback (answer_id, rated_at, rating, reasons, comment) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (answer_id) DO UPDATE SET rated_at = excluded.rated_at, rating = excluded.rating,"
                " reasons = excluded.reasons, comment = excluded.comment",
                (answer_id, stamp, rating, _dumps(reasons), comment),
            )
        return stamp

    def feedback(self, answer_id: str) -> dict[str, Any] | None:
        found = self._select("SELECT * FROM feedback WHERE answer_id = ?", (answer_id,))
        return decode_feedback(found[0]) if found else None

    # -- reading the log ----------------------------------------------------------------------

    def entries(self, since: str | None = None, until: str | None = None) -> list[dict[str, Any]]:
        """One flat record per question, oldest first, with its turn and feedback if any: what
        `valid log` filters, exports and charts. Times are ISO 8601 UTC strings."""
        sql, params = entries_sql(since, until, "?")
        return [decode_entry(record) for record in self._select(sql, params)]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "QuestionLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
