"""The spool: writes for the question store kept durably on local disk until the store takes them.

    spool = Spool(state / "question-spool.sqlite")
    seq = spool.append("question", {"key": ..., "row": ...})
    for write in spool.oldest(100): ...      # then spool.done([(write.seq, store_id), ...])

One SQLite file (WAL, synchronous=FULL: a write is on disk when `append` returns, and survives a
crash or a restart of `valid serve`). Writes come out in the order they went in, so a conversation
is started before its turns and a question row is written before the turn that names it. A question
row written here has no store id yet: the caller gets `-seq` as its id, and once the row reaches the
store `store_id(-seq)` gives the real one (kept after the write leaves the spool, because a turn
that names the question may be written after that).

Until they reach the store, the conversations, turns and feedback written here are read from here
(`conversation`, `turns`, `answer`, `feedback`): a conversation started while the store was down
can go on. The file is created on the first write only; several processes may share it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS writes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, conversation_id TEXT, answer_id TEXT,
        payload TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS writes_conversation ON writes (conversation_id)",
    "CREATE INDEX IF NOT EXISTS writes_answer ON writes (answer_id)",
    "CREATE TABLE IF NOT EXISTS question_ids (seq INTEGER PRIMARY KEY, id INTEGER NOT NULL)",
]
KINDS = ("question", "start", "turn", "feedback")


@dataclass(frozen=True)
class SpooledWrite:
    seq: int
    kind: str  # question | start | turn | feedback
    payload: dict[str, Any]


class Spool:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if self.path.exists():  # writes left by an earlier run: they are flushed first
            self._open()

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=10, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            for statement in _SCHEMA:
                db.execute(statement)
            self._db = db
        return self._db

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            if self._db is None:
                return []
            return self._db.execute(sql, params).fetchall()

    # -- writing and draining -----------------------------------------------------------------------
    def append(self, kind: str, payload: dict[str, Any], conversation_id: str | None = None,
               answer_id: str | None = None) -> int:
        """Keep one write; returns its sequence number once it is on disk."""
        if kind not in KINDS:
            raise ValueError(f"unknown spooled write {kind!r}")
        text = json.dumps(payload, ensure_ascii=False, sort_keys=True)
        with self._lock:
            cursor = self._open().execute(
                "INSERT INTO writes (kind, conversation_id, answer_id, payload) VALUES (?, ?, ?, ?)",
                (kind, conversation_id, answer_id, text),
            )
            return int(cursor.lastrowid)

    def pending(self) -> int:
        found = self._query("SELECT count(*) FROM writes")
        return int(found[0][0]) if found else 0

    def oldest(self, limit: int) -> list[SpooledWrite]:
        rows = self._query("SELECT seq, kind, payload FROM writes ORDER BY seq LIMIT ?", (limit,))
        return [SpooledWrite(seq, kind, json.loads(payload)) for seq, kind, payload in rows]

    def done(self, written: list[tuple[int, int | None]]) -> None:
        """These writes (seq, and a question row's store id or None) reached the store: they leave
        the spool, in one transaction (lost, they would only be written again: each is idempotent)."""
        if not written:
            return
        with self._lock:
            db = self._open()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT OR REPLACE INTO question_ids (seq, id) VALUES (?, ?)",
                               [(seq, found) for seq, found in written if found is not None])
                db.executemany("DELETE FROM writes WHERE seq = ?", [(seq,) for seq, _ in written])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def store_id(self, question_id: int | None) -> int | None:
        """The store's id of a question row: a spooled one's (`-seq`) once it reached the store
        (None before), any other as it is."""
        if question_id is None or question_id >= 0:
            return question_id
        found = self._query("SELECT id FROM question_ids WHERE seq = ?", (-question_id,))
        return int(found[0][0]) if found else None

    # -- reading what is still here -----------------------------------------------------------------
    def holds(self, conversation_id: str | None = None, answer_id: str | None = None) -> bool:
        """Whether any write for this conversation or answer still waits here."""
        column, value = ("conversation_id", conversation_id) if conversation_id is not None else ("answer_id", answer_id)
        return bool(self._query(f"SELECT 1 FROM writes WHERE {column} = ? LIMIT 1", (value,)))

    def _payloads(self, kind: str, column: str, value: str) -> list[dict[str, Any]]:
        rows = self._query(f"SELECT payload FROM writes WHERE kind = ? AND {column} = ? ORDER BY seq", (kind, value))
        return [json.loads(payload) for (payload,) in rows]

    def conversation(self, conversation_id: str) -> dict[str, Any] | None:
        """A conversation started here and not yet in the store, as the store would show it."""
        started = self._payloads("start", "conversation_id", conversation_id)
        if not started:
            return None
        turns = self._payloads("turn", "conversation_id", conversation_id)
        stamp = started[0]["at"]
        return {"id": conversation_id, "started_at": stamp, "updated_at": turns[-1]["at"] if turns else stamp,
                "turns": len(turns)}

    def turns(self, conversation_id: str) -> list[dict[str, Any]]:
        """The turns of a conversation started here, numbered as the store will number them."""
        return [_turn(p, number) for number, p in enumerate(self._payloads("turn", "conversation_id", conversation_id), 1)]

    def answer(self, answer_id: str) -> dict[str, Any] | None:
        found = self._payloads("turn", "answer_id", answer_id)
        return _turn(found[0], None) if found else None

    def feedback(self, answer_id: str) -> dict[str, Any] | None:
        found = self._payloads("feedback", "answer_id", answer_id)
        if not found:
            return None
        last = found[-1]
        return {"answer_id": answer_id, "rated_at": last["at"], "rating": last["rating"], "reasons": last["reasons"],
                "comment": last["comment"]}

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _turn(payload: dict[str, Any], number: int | None) -> dict[str, Any]:
    turn = dict(payload["turn"])
    return {**turn, "turn": number, "asked_at": payload["at"]}
