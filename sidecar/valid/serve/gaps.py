"""Gap issues off the request's path: refusals queue an issue, one background thread writes them.

The answer engine opens a gap issue when nothing in scope answers a question. In the service that
must not cost the request anything: `GapIssueWriter.open_issue` returns at once (the issue's
fingerprint is known before it is written), a question already seen by this process is not queued
again, the queue is bounded (a full queue drops and counts), and one thread appends batches to the
store through its `append_issues` (the directory `IssueStore`, or the PostgreSQL question store):
append-only, deduplicated against the record, capped.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
import time
from collections import Counter, OrderedDict

from valid.audit.issues import IssueDraft

log = logging.getLogger("valid.serve")

_BATCH = 100
_SEEN = 10_000  # fingerprints remembered in memory (the record deduplicates the rest)


class GapIssueWriter:
    def __init__(self, store, cap: int, max_pending: int = 1024):
        self.store = store
        self.cap = cap
        self.counts: Counter[str] = Counter()  # added, duplicate, dropped (cap), backlog (queue full), failed
        self._queue: queue.Queue = queue.Queue(max_pending)
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._warned_cap = False

    # -- the engine's side (request threads): never blocks, never touches a file ------------------
    def open_issue(self, kind: str, fingerprint: str, title: str, body: str, source: str) -> IssueDraft:
        draft = IssueDraft(fingerprint=fingerprint, title=title, body=body, source=source)
        with self._lock:
            if fingerprint in self._seen:
                self._seen.move_to_end(fingerprint)
                self.counts["duplicate"] += 1
                return draft
            try:
                self._queue.put_nowait((kind, draft))
            except queue.Full:
                self.counts["backlog"] += 1
                return draft
            self._seen[fingerprint] = None
            while len(self._seen) > _SEEN:
                self._seen.popitem(last=False)
            self._start()
        return draft

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="valid-gap-issues", daemon=True)
            self._thread.start()
            atexit.register(self.close)

    # -- the writer thread --------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            item = self._queue.get()
            batch = [item]
            while item is not None and len(batch) < _BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self._write([b for b in batch if b is not None])
            finally:
                for _ in batch:
                    self._queue.task_done()
            if any(b is None for b in batch):
                return

    def _write(self, batch: list[tuple[str, IssueDraft]]) -> None:
        by_kind: dict[str, list[IssueDraft]] = {}
        for kind, draft in batch:
            by_kind.setdefault(kind, []).append(draft)
        for kind, drafts in by_kind.items():
            try:
                outcomes = self.store.append_issues(kind, drafts, self.cap)
            except Exception as err:  # a broken store must never reach a request
                self.counts["failed"] += len(drafts)
                log.warning("gap issues could not be written to %s: %s", self.store.where, err)
                self._forget(drafts)  # the same refusal later (the store back) queues them again
                continue
            self.counts.update(outcomes)
            if "dropped" in outcomes and not self._warned_cap:
                self._warned_cap = True
                log.warning("gap-issue store %s holds %d issues from questions (the cap); new ones are dropped",
                            self.store.where, self.cap)

    def _forget(self, drafts: list[IssueDraft]) -> None:
        with self._lock:
            for draft in drafts:
                self._seen.pop(draft.fingerprint, None)

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until every queued issue is written (tests, shutdown). True when done in time."""
        deadline = time.monotonic() + timeout_s
        while self._queue.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def close(self) -> None:
        with self._lock:
            thread = self._thread
        if thread is not None and thread.is_alive():
            self._queue.put(None)
            thread.join(10)
        getattr(self.store, "close", lambda: None)()  # a database store's connection
