"""Pinning requests to releases: the service's holder of the active release (an answer never mixes releases).

The release source here is a small in-test double of the `ReleaseSource` seam, so each law can be
driven step by step; the same laws over real HTTP and real releases are in test_serve_http.py.
"""

from __future__ import annotations

from valid.serve.answerer import Answered, Generation
from valid.serve.releases import ReleaseHolder


class _Answerer:
    def __init__(self, release: str, generations=("v5p",)):
        self.release = release
        self._generations = [Generation(g, g.upper(), (g.upper(),)) for g in generations]
        self.closed = 0

    def generations(self):
        return self._generations

    def ask(self, question, generation):
        return Answered({"release": self.release})

    def source(self, path):
        return None

    def close(self):
        self.closed += 1


class _Source:
    def __init__(self, active: str | None):
        self.active = active
        self.broken: set[str] = set()
        self.opened: dict[str, _Answerer] = {}
        self.opens = 0

    def active_id(self):
        return self.active

    def open(self, release_id):
        self.opens += 1
        if release_id in self.broken:
            raise RuntimeError("collection is missing")
        answerer = _Answerer(release_id)
        self.opened[release_id] = answerer
        return answerer


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_not_ready_until_a_release_is_opened_and_verified():
    source = _Source(active=None)
    holder = ReleaseHolder(source, check_interval_s=0)
    assert holder.acquire() is None
    holder.check()
    assert not holder.status().ready
    assert "no release is active" in holder.status().last_error
    source.active = "r1"
    assert holder.check() is True
    lease = holder.acquire()
    assert lease.release == "r1" and holder.status().ready


def test_request_keeps_its_release_when_another_is_activated():
    source = _Source(active="r1")
    holder = ReleaseHolder(source, check_interval_s=0)
    holder.check()
    pinned = holder.acquire()
    source.active = "r2"
    assert holder.check() is True
    assert pinned.answerer.ask("q", None).answer["release"] == "r1"
    assert source.opened["r1"].closed == 0, "closed while a request still used it"
    fresh = holder.acquire()
    assert fresh.release == "r2"
    pinned.end()
    pinned.end()  # idempotent
    assert source.opened["r1"].closed == 1
    fresh.end()
    assert source.opened["r2"].closed == 0


def test_failed_reload_keeps_the_old_release_and_is_counted():
    clock = _Clock()
    source = _Source(active="r1")
    holder = ReleaseHolder(source, check_interval_s=0, retry_failed_s=30, clock=clock)
    holder.check()
    source.active = "r2"
    source.broken.add("r2")
    assert holder.check() is False
    assert holder.acquire().release == "r1"
    assert holder.stats.failed == 1 and "r2" in holder.status().last_error
    opens = source.opens
    holder.check()  # within retry_failed_s: the broken release is not reopened on every request
    assert source.opens == opens
    clock.now = 31
    source.broken.clear()
    assert holder.check() is True
    assert holder.acquire().release == "r2"
    assert holder.status().last_error is None


def test_a_release_that_opens_as_another_id_is_refused():
    class Liar(_Source):
        def open(self, release_id):
            return _Answerer("someone-else")

    holder = ReleaseHolder(Liar(active="r1"), check_interval_s=0)
    holder.check()
    assert not holder.status().ready
    assert "expected r1" in holder.status().last_error


def test_an_unreadable_pointer_keeps_serving():
    source = _Source(active="r1")
    holder = ReleaseHolder(source, check_interval_s=0)
    holder.check()

    def broken():
        raise OSError("active.json: permission denied")

    source.active_id = broken
    assert holder.check() is False
    assert holder.acquire().release == "r1"
    assert holder.stats.failed == 1


def test_pointer_is_reread_at_most_once_per_interval():
    clock = _Clock()
    holder = ReleaseHolder(_Source(active="r1"), check_interval_s=1.0, clock=clock)
    assert holder.check_due() is True
    assert holder.check_due() is False
    clock.now = 0.5
    assert holder.check_due() is False
    clock.now = 1.0
    assert holder.check_due() is True


def test_shutdown_closes_the_current_release_after_its_last_request():
    source = _Source(active="r1")
    holder = ReleaseHolder(source, check_interval_s=0)
    holder.check()
    lease = holder.acquire()
    holder.close()
    assert holder.acquire() is None
    assert source.opened["r1"].closed == 0
    lease.end()
    assert source.opened["r1"].closed == 1
