"""A question store that keeps answering when its database does not: PostgreSQL behind a local spool.

    store = SpooledStore(PostgresStore(url, timeout_s=2), Spool(state / "question-spool.sqlite"))

A reader's answer never waits on the question log. A write (a question row, a conversation's start,
a turn, feedback) goes to the store directly while the store answers; when the store fails or
overruns its bound, the write goes to the spool (valid.questionlog.spool), and so does every write
while the store is down. Once it answers again, new writes go to it directly unless they depend on
a write still in the spool (a turn of a conversation started there, or naming a question row kept
there; feedback on an answer kept there): those follow it into the spool, so nothing reaches the
store before what it refers to. One background thread writes the spool to the store, oldest first;
every write can be repeated without a second row (valid.questionlog.postgres), so a write that
reached the store before its reply was lost is not stored twice, and an older rating never replaces
a newer one. A spool left by an earlier run is flushed the same way after a restart.

Reads are served from the spool for what only the spool holds (a conversation started during the
outage, its turns, its answers' feedback); anything else needs the store, and while the store is
down or the spool still holds writes they raise `StoreUnavailable` (the service answers 503 with
Retry-After), rather than answer from a partial view.

`health()` says whether the store is degraded (down, or writes still spooled) and how many writes
wait; the service reports it in /healthz and /metrics.
"""

from __future__ import annotations

import logging
import threading
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Literal

from valid.audit.issues import DEFAULT_QUESTION_ISSUE_CAP, Issue, IssueDraft
from valid.questionlog.postgres import PostgresStore, StoreUnavailable
from valid.questionlog.spool import Spool, SpooledWrite
from valid.questionlog.sqlite import now_iso

log = logging.getLogger("valid.questionlog")

_BATCH = 100  # spooled writes read at a time


@dataclass(frozen=True)
class StoreHealth:
    state: Literal["ok", "degraded"]
    spooled: int  # writes waiting in the spool
    failures: int  # store calls that failed or overran their bound, since start
    flushed: int  # spooled writes that reached the store, since start
    error: str | None  # the last failure, while degraded


class SpooledStore:
    """The `QuestionStore` protocol over `primary`, falling back to `spool`."""

    in_memory = False

    def __init__(self, primary: PostgresStore, spool: Spool, retry_s: float = 1.0):
        self.primary = primary
        self.spool = spool
        self.where = primary.where
        self.retry_s = retry_s  # how often a down store is tried again
        self._up = True
        self._error: str | None = None
        self._failures = 0
        self._flushed = 0
        self._state_lock = threading.Lock()
        self._direct_lock = threading.Lock()
        self._wake = threading.Event()
        self._closing = threading.Event()
        self._flusher = threading.Thread(target=self._run, name="valid-question-spool", daemon=True)
        self._flusher.start()
        if spool.pending():
            log.warning("question store %s: %d writes left in %s by an earlier run; writing them to the store",
                        self.where, spool.pending(), spool.path)
            self._wake.set()

    # -- state ---------------------------------------------------------------------------------------
    def health(self) -> StoreHealth:
        spooled = self.spool.pending()
        with self._state_lock:
            degraded = not self._up or spooled > 0
            return StoreHealth("degraded" if degraded else "ok", spooled, self._failures, self._flushed,
                               self._error if degraded else None)

    def _down(self, err: Exception) -> None:
        with self._state_lock:
            self._failures += 1
            was_up, self._up, self._error = self._up, False, str(err)
        if was_up:
            log.warning("question store %s is unavailable (%s): answering on, writes kept in %s until it is back",
                        self.where, err, self.spool.path)
        self._wake.set()

    def _back(self) -> None:
        with self._state_lock:
            was_up, self._up, self._error = self._up, True, None
        if not was_up:
            log.warning("question store %s answers again; %d spooled writes to write", self.where, self.spool.pending())

    # -- writes: the store, else the spool ------------------------------------------------------------
    def _write(self, kind: str, payload: dict[str, Any], direct: Callable[[], Any], conversation_id=None,
               answer_id=None, waits_on_spool: bool = False) -> tuple[bool, Any]:
        """(True, what the store returned), or (False, the spool's sequence number)."""
        # One direct write at a time (the store has one connection anyway): when the store fails,
        # the writes that waited behind it see that and go to the spool at once.
        with self._direct_lock:
            if self._is_up() and not waits_on_spool:
                try:
                    return True, direct()
                except StoreUnavailable as err:
                    self._down(err)
        seq = self.spool.append(kind, payload, conversation_id, answer_id)
        self._wake.set()
        return False, seq

    def log_question(self, row: dict[str, Any]) -> int:
        row = {**row, "asked_at": row.get("asked_at") or now_iso()}
        key = uuid.uuid4().hex  # the same row written twice (direct, then again from the spool) is one row
        stored, value = self._write("question", {"key": key, "row": row}, lambda: self.primary.log_question(row, key))
        return value if stored else -value  # a spooled row's id is -seq (valid.questionlog.spool)

    def start_conversation(self, conversation_id: str) -> None:
        at = now_iso()
        self._write("start", {"id": conversation_id, "at": at},
                    lambda: self.primary.start_conversation(conversation_id, at), conversation_id=conversation_id)

    def add_turn(self, turn: dict[str, Any]) -> int:
        """The turn's number; for a spooled turn of a conversation the store holds, 0: the store
        numbers it when it arrives."""
        at = now_iso()
        local = self.spool.conversation(turn["conversation_id"])
        question_id = self.spool.store_id(turn.get("question_id"))

        def direct() -> int:
            return self.primary.add_turn({**turn, "question_id": question_id}, at)

        # After any write of its conversation, or of its question row, that still waits in the spool.
        waits = self.spool.holds(conversation_id=turn["conversation_id"]) or (
            turn.get("question_id") is not None and question_id is None)
        stored, value = self._write("turn", {"turn": turn, "at": at}, direct, turn["conversation_id"], turn["answer_id"],
                                    waits_on_spool=waits)
        if stored:
            return value
        return local["turns"] + 1 if local is not None else 0

    def record_feedback(self, answer_id: str, rating: str, reasons: list[str], comment: str | None) -> str:
        at = now_iso()
        payload = {"answer_id": answer_id, "rating": rating, "reasons": list(reasons), "comment": comment, "at": at}
        self._write("feedback", payload, lambda: self.primary.record_feedback(answer_id, rating, reasons, comment, at),
                    answer_id=answer_id, waits_on_spool=self.spool.answer(answer_id) is not None)
        return at

    # -- reads: the spool's own, else the store while it is whole ------------------------------------
    def _read(self, call: Callable[[], Any], partial: bool = False) -> Any:
        """`call()` on the store; raises StoreUnavailable while the store is down or while what it
        would answer is `partial` (writes it needs still wait in the spool)."""
        with self._state_lock:
            up, error = self._up, self._error
        if not up or partial:
            why = error or "writes it needs are still on their way to it"
            raise StoreUnavailable(f"{self.where}: the question store is unavailable ({why})")
        try:
            return call()
        except StoreUnavailable as err:
            self._down(err)
            raise

    def conversation(self, conversation_id: str) -> dict[str, Any] | None:
        return self.spool.conversation(conversation_id) or self._read(
            lambda: self.primary.conversation(conversation_id), self.spool.holds(conversation_id=conversation_id))

    def turns(self, conversation_id: str) -> list[dict[str, Any]]:
        if self.spool.conversation(conversation_id) is not None:
            return self.spool.turns(conversation_id)
        return self._read(lambda: self.primary.turns(conversation_id), self.spool.holds(conversation_id=conversation_id))

    def answer(self, answer_id: str) -> dict[str, Any] | None:
        return self.spool.answer(answer_id) or self._read(lambda: self.primary.answer(answer_id))

    def feedback(self, answer_id: str) -> dict[str, Any] | None:
        return self.spool.feedback(answer_id) or self._read(lambda: self.primary.feedback(answer_id))

    def rows(self) -> list[dict[str, Any]]:
        return self._read(self.primary.rows, self.spool.pending() > 0)

    def entries(self, since: str | None = None, until: str | None = None) -> list[dict[str, Any]]:
        return self._read(lambda: self.primary.entries(since, until), self.spool.pending() > 0)

    def forget_conversations(self, before: str) -> int:
        return self._read(lambda: self.primary.forget_conversations(before), self.spool.pending() > 0)

    # -- gap issues pass through (the gap-issue writer counts its own failures) -----------------------
    def append_issues(self, kind: str, drafts: Iterable[IssueDraft], cap: int = DEFAULT_QUESTION_ISSUE_CAP) -> list[str]:
        return self.primary.append_issues(kind, drafts, cap)

    def issues(self, kind: str | None = None) -> list[Issue]:
        return self.primary.issues(kind)

    # -- the flusher -----------------------------------------------------------------------------------
    def flush_once(self) -> bool:
        """Write what the spool holds to the store, oldest first, or see whether a down store answers
        again. True when the store took everything (or there was nothing)."""
        writes = self.spool.oldest(_BATCH)
        written: list[tuple[int, int | None]] = []
        try:
            if not writes:
                if not self._is_up():
                    self.primary.ping()
                    self._back()
                return True
            for write in writes:
                written.append((write.seq, self._replay(write, dict(written))))
                self._back()  # from the first write it takes, new writes go to the store again
        except StoreUnavailable as err:
            self._down(err)
            return False
        finally:
            self.spool.done(written)
            with self._state_lock:
                self._flushed += len(written)
        return not self.spool.pending()

    def _is_up(self) -> bool:
        with self._state_lock:
            return self._up

    def _replay(self, write: SpooledWrite, batch_ids: dict[int, int | None]) -> int | None:
        """Write one spooled write to the store (again, maybe: every write is idempotent).
        `batch_ids`: the store ids of question rows written earlier in this batch, by seq."""
        p = write.payload
        if write.kind == "question":
            return self.primary.log_question(p["row"], p["key"])
        if write.kind == "start":
            self.primary.start_conversation(p["id"], p["at"])
        elif write.kind == "turn":
            question_id = p["turn"].get("question_id")
            if question_id is not None and question_id < 0 and -question_id in batch_ids:
                question_id = batch_ids[-question_id]
            else:
                question_id = self.spool.store_id(question_id)
            self.primary.add_turn({**p["turn"], "question_id": question_id}, p["at"])
        else:
            self.primary.record_feedback(p["answer_id"], p["rating"], p["reasons"], p["comment"], p["at"])
        return None

    def _run(self) -> None:
        while not self._closing.is_set():
            self._wake.clear()  # before flushing: a write spooled meanwhile wakes the next round
            try:
                done = self.flush_once()
            except Exception as err:  # a bug or a broken spool must not end the thread silently
                log.error("question store %s: the spool could not be written to the store: %s", self.where, err)
                done = False
            if not self._is_up():
                self._closing.wait(self.retry_s)  # the store is down: try again after a pause
            elif done:
                self._wake.wait(60.0)  # idle until a write is spooled
            # else: the store answers and writes still wait (readers keep adding them): go on at once

    def close(self) -> None:
        self._closing.set()
        self._wake.set()
        self._flusher.join(self.primary.timeout_s * 3 + 5)
        self.spool.close()
        self.primary.close()

    def __enter__(self) -> "SpooledStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
