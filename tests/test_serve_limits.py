"""Limits of the service: per-client rate, bounded concurrency, bounded queue (pure parts).

The same limits over real HTTP (429, 503 + Retry-After, 504, 413) are in test_serve_http.py.
"""

from __future__ import annotations

import threading

from valid.serve.limits import Admission, RateLimiter


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_rate_limit_allows_a_burst_then_refills_at_the_rate():
    clock = _Clock()
    limiter = RateLimiter(rate_per_s=2.0, burst=3, max_keys=10, clock=clock)
    assert [limiter.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = limiter.take("a")
    assert wait == 0.5  # one token at 2/s
    assert limiter.take("b") == 0.0, "one client's burst must not limit another"
    clock.now += 0.5
    assert limiter.take("a") == 0.0


def test_rate_limit_zero_means_no_limit():
    limiter = RateLimiter(rate_per_s=0, burst=1, max_keys=10)
    assert all(limiter.take("a") == 0.0 for _ in range(1000))


def test_rate_limiter_memory_is_bounded_by_evicting_the_oldest_client():
    limiter = RateLimiter(rate_per_s=1.0, burst=1, max_keys=3, clock=_Clock())
    for key in "abcde":
        limiter.take(key)
    assert len(limiter) == 3


def test_admission_refuses_past_slots_plus_queue_and_frees_slots_when_work_ends():
    admission = Admission(max_inflight=1, max_queue=1)
    release = threading.Event()
    done = []
    first = admission.submit(release.wait, on_done=lambda: done.append(1))
    second = admission.submit(lambda: "queued", on_done=lambda: done.append(2))
    assert first is not None and second is not None
    assert admission.submit(lambda: "third", on_done=lambda: done.append(3)) is None
    assert 3 not in done, "a refused job must not run its cleanup"
    assert admission.retry_after_s() >= 1
    release.set()
    assert second.result(timeout=5)[0] == "queued"
    first.result(timeout=5)
    assert sorted(done) == [1, 2]
    assert admission.submit(lambda: "again").result(timeout=5)[0] == "again"
    admission.shutdown()


def test_a_queued_job_cancelled_by_its_timeout_frees_its_place_and_cleans_up():
    admission = Admission(max_inflight=1, max_queue=1)
    release = threading.Event()
    done = []
    running = admission.submit(release.wait)
    queued = admission.submit(lambda: "never", on_done=lambda: done.append("cleanup"))
    assert queued.cancel()
    assert done == ["cleanup"]
    assert admission.submit(lambda: "fits again") is not None
    release.set()
    running.result(timeout=5)
    admission.shutdown()
