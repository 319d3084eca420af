"""Limits that keep the service up under load: sizes, a per-client rate, bounded concurrency.

- `Limits`: every number in one pydantic model (CLI options map onto it one to one).
- `RateLimiter`: a token bucket per client; memory is bounded by evicting the least recently seen.
- `Admission`: at most `max_inflight` answers run at once (a dedicated thread pool) and at most
  `max_queue` wait; anything past that is refused at once (503 + Retry-After) instead of piling up.
  A slot is freed when the work really ends, not when the client gave up waiting for it, so timed-out
  work still counts against the bound.
- `BodyLimit`: an ASGI middleware that refuses a body larger than `max_body_bytes`, whether it is
  announced by Content-Length or streamed.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from valid.answer.question import MAX_QUESTION_CHARS  # one bound for `valid ask` and `valid serve`


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_question_chars: int = Field(default=MAX_QUESTION_CHARS, ge=1, description="Longest question accepted, in characters.")
    max_body_bytes: int = Field(default=16_384, ge=64, description="Largest request body accepted, in bytes.")
    rate_per_s: float = Field(default=5.0, ge=0, description="Sustained asks per second per client; 0: no limit.")
    rate_burst: int = Field(default=20, ge=1, description="Asks a client may make at once before the rate applies.")
    max_inflight: int = Field(default=4, ge=1, description="Answers computed at the same time.")
    max_queue: int = Field(default=16, ge=0, description="Answers waiting for a slot; beyond this: 503.")
    request_timeout_s: float = Field(default=20.0, gt=0, description="Longest an ask may take, queue included.")
    max_clients_tracked: int = Field(default=10_000, ge=1, description="Clients remembered by the rate limiter.")
    max_header_bytes: int = Field(default=16_384, ge=1024, description="Largest request line plus headers; beyond: 431.")
    max_headers: int = Field(default=100, ge=8, description="Most request header lines; beyond: 431.")
    header_timeout_s: float = Field(default=10.0, gt=0, description="Time for a request's headers to arrive; then 408.")
    body_timeout_s: float = Field(default=30.0, gt=0, description="Time for a request's body to arrive after its headers; then 408.")


class RateLimiter:
    """Token bucket per client key. `take(key)` returns 0 when allowed, else seconds to wait."""

    def __init__(self, rate_per_s: float, burst: int, max_keys: int, clock: Callable[[], float] = time.monotonic):
        self._rate = rate_per_s
        self._burst = float(burst)
        self._max_keys = max_keys
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key → (tokens, at)
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        if self._rate <= 0:
            return 0.0
        now = self._clock()
        with self._lock:
            tokens, at = self._buckets.pop(key, (self._burst, now))
            tokens = min(self._burst, tokens + (now - at) * self._rate)
            if tokens >= 1.0:
                wait = 0.0
                tokens -= 1.0
            else:
                wait = (1.0 - tokens) / self._rate
            self._buckets[key] = (tokens, now)
            while len(self._buckets) > self._max_keys:
                self._buckets.popitem(last=False)
        return wait

    def __len__(self) -> int:
        return len(self._buckets)


class Admission:
    """A bounded thread pool with a bounded queue that refuses instead of waiting."""

    def __init__(self, max_inflight: int, max_queue: int):
        self.max_inflight = max_inflight
        self.capacity = max_inflight + max_queue
        self._pool = ThreadPoolExecutor(max_workers=max_inflight, thread_name_prefix="valid-ask")
        self._lock = threading.Lock()
        self._admitted = 0
        self._running = 0
        self._mean_s = 0.5  # moving average of one job's run time, for Retry-After

    @property
    def running(self) -> int:
        return self._running

    @property
    def queued(self) -> int:
        return self._admitted - self._running

    def submit(self, fn: Callable[[], Any], on_done: Callable[[], None] | None = None) -> "Future[tuple[Any, float]] | None":
        """Run `fn` in the pool; the future's result is (fn's result, seconds spent queued).

        Returns None (and never calls `on_done`) when the pool and its queue are full. `on_done` runs once when the work ends,
        or when it is cancelled before it started (a client that timed out while queued).
        """
        with self._lock:
            if self._admitted >= self.capacity:
                return None
            self._admitted += 1
        submitted = time.perf_counter()

        def job() -> tuple[Any, float]:
            started = time.perf_counter()
            with self._lock:
                self._running += 1
            try:
                return fn(), started - submitted
            finally:
                took = time.perf_counter() - started
                with self._lock:
                    self._running -= 1
                    self._mean_s = 0.9 * self._mean_s + 0.1 * took

        def done(_future: Future) -> None:
            with self._lock:
                self._admitted -= 1
            if on_done is not None:
                on_done()

        try:
            future = self._pool.submit(job)
        except RuntimeError:  # the pool is shutting down: refuse like a full pool
            with self._lock:
                self._admitted -= 1
            return None
        future.add_done_callback(done)
        return future

    def retry_after_s(self) -> int:
        """A whole number of seconds after which a slot is likely free (at least 1)."""
        with self._lock:
            waves = self._admitted / self.max_inflight
            return max(1, math.ceil(waves * self._mean_s))

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class BodyTooLarge(Exception):
    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(f"request body is larger than {limit} bytes")


class BodyLimit:
    """ASGI middleware: 413 for a declared Content-Length over the limit; a streamed body that
    grows past it raises BodyTooLarge inside the app (turned into the same 413 by its handler)."""

    def __init__(self, app: Any, max_body_bytes: int, reject: Callable[[int], Any]):
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.reject = reject  # limit → an ASGI response app for the early refusal

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = None
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = None
        if declared is not None and declared > self.max_body_bytes:
            await self.reject(self.max_body_bytes)(scope, receive, send)
            return
        seen = 0

        async def limited_receive() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body_bytes:
                    raise BodyTooLarge(self.max_body_bytes)
            return message

        await self.app(scope, limited_receive, send)
