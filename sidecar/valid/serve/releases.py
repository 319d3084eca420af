"""Which release the service answers from, and pinning each request to one release.

Rules (an answer never mixes releases; a release is served only once it is verified):
- At startup the active release is opened and verified before anything is served (not ready until then).
- Each request takes a lease on the release that is current when it starts and uses only that
  release until it ends, even if another release is activated meanwhile.
- Between requests the active pointer is re-read. A new release is opened and verified *before* it
  replaces the current one; if that fails, the current one stays (and the failure is counted).
- A replaced release is closed exactly once, when its last lease ends.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from valid.serve.answerer import Answerer, ReleaseSource

log = logging.getLogger("valid.serve")


@dataclass
class _Slot:
    answerer: Answerer
    leases: int = 0
    retired: bool = False
    closed: bool = False


class Lease:
    """A request's hold on one release. `end()` is idempotent."""

    def __init__(self, holder: "ReleaseHolder", slot: _Slot):
        self._holder = holder
        self._slot = slot
        self._ended = False

    @property
    def answerer(self) -> Answerer:
        return self._slot.answerer

    @property
    def release(self) -> str:
        return self._slot.answerer.release

    def end(self) -> None:
        if not self._ended:
            self._ended = True
            self._holder._end_lease(self._slot)


@dataclass
class ReloadStats:
    ok: int = 0
    failed: int = 0
    last_error: str | None = None
    last_failed_release: str | None = None


@dataclass
class HolderStatus:
    ready: bool
    release: str | None
    loaded_at: float | None
    last_error: str | None
    reloads: ReloadStats = field(default_factory=ReloadStats)


class ReleaseHolder:
    def __init__(
        self,
        source: ReleaseSource,
        *,
        check_interval_s: float = 1.0,
        retry_failed_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._source = source
        self._check_interval_s = check_interval_s
        self._retry_failed_s = retry_failed_s
        self._clock = clock
        self._lock = threading.Lock()
        self._check_lock = threading.Lock()  # one open at a time
        self._current: _Slot | None = None
        self._loaded_at: float | None = None
        self._last_check = float("-inf")
        self._failed_at: dict[str, float] = {}
        self.stats = ReloadStats()

    # -- requests ---------------------------------------------------------------------------

    def acquire(self) -> Lease | None:
        """A lease on the current release, or None before the first release is loaded."""
        with self._lock:
            slot = self._current
            if slot is None:
                return None
            slot.leases += 1
            return Lease(self, slot)

    def _end_lease(self, slot: _Slot) -> None:
        with self._lock:
            slot.leases -= 1
            close = slot.retired and slot.leases == 0 and not slot.closed
            if close:
                slot.closed = True
        if close:
            self._close(slot)

    # -- the active pointer -----------------------------------------------------------------

    def status(self) -> HolderStatus:
        with self._lock:
            current = self._current
        return HolderStatus(
            ready=current is not None,
            release=current.answerer.release if current else None,
            loaded_at=self._loaded_at,
            last_error=self.stats.last_error,
            reloads=self.stats,
        )

    def check_due(self) -> bool:
        """True (once per interval) when the pointer should be re-read; cheap, never blocks."""
        now = self._clock()
        with self._lock:
            if now - self._last_check < self._check_interval_s:
                return False
            self._last_check = now
            return True

    def check(self, *, retry_failed: bool = False) -> bool:
        """Re-read the active pointer; open, verify and swap in a new release. Blocking.

        Returns True when the current release changed. Never raises: a failed open keeps the old
        release and is recorded in `stats`. `retry_failed` (an operator's reload) tries a release
        that failed to open again without waiting `retry_failed_s`.
        """
        if not self._check_lock.acquire(blocking=retry_failed):
            return False  # another check is opening a release right now
        try:
            if retry_failed:
                self._failed_at.clear()
            return self._check()
        finally:
            self._check_lock.release()

    def _check(self) -> bool:
        try:
            active = self._source.active_id()
        except Exception as err:  # a broken pointer must not take down the current release
            self._failed(None, f"cannot read the active release: {err}")
            return False
        with self._lock:
            current = self._current.answerer.release if self._current else None
        if active is None:
            if current is None:
                self.stats.last_error = "no release is active: build and activate one (valid index)"
            return False
        if active == current:
            return False
        failed_at = self._failed_at.get(active)
        if failed_at is not None and self._clock() - failed_at < self._retry_failed_s:
            return False
        try:
            answerer = self._source.open(active)
            if answerer.release != active:
                answerer.close()
                raise RuntimeError(f"opened release {answerer.release}, expected {active}")
            if not answerer.generations():
                answerer.close()
                raise RuntimeError(f"release {active} has no generations")
        except Exception as err:
            self._failed(active, f"release {active} could not be opened: {err}")
            return False
        self._swap(answerer)
        return True

    def _failed(self, release: str | None, message: str) -> None:
        log.warning("%s; keeping the current release", message)
        self.stats.failed += 1
        self.stats.last_error = message
        self.stats.last_failed_release = release
        if release is not None:
            self._failed_at[release] = self._clock()

    def _swap(self, answerer: Answerer) -> None:
        with self._lock:
            old = self._current
            self._current = _Slot(answerer)
            self._loaded_at = time.time()
            close_old = False
            if old is not None:
                old.retired = True
                close_old = old.leases == 0 and not old.closed
                if close_old:
                    old.closed = True
        self.stats.ok += 1
        self.stats.last_error = None
        self._failed_at.pop(answerer.release, None)
        log.info("serving release %s", answerer.release)
        if close_old:
            self._close(old)

    def close(self) -> None:
        """At shutdown: retire the current release (closed when its last lease ends)."""
        with self._lock:
            slot = self._current
            self._current = None
            close = False
            if slot is not None:
                slot.retired = True
                close = slot.leases == 0 and not slot.closed
                if close:
                    slot.closed = True
        if close:
            self._close(slot)

    @staticmethod
    def _close(slot: _Slot) -> None:
        try:
            slot.answerer.close()
        except Exception as err:  # closing an old release must never fail a request
            log.warning("closing release %s failed: %s", slot.answerer.release, err)
