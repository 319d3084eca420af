"""One service's parts and how they are wired, in one place.

A `Service` holds what every route and middleware of one app shares: the configuration, the release
holder (which release is served), the admission queue and the rate limiter (the limits), the
metrics, and the store of conversations, answers and feedback. Routes reach it through
`service_of(request)`; nothing else keeps state between requests.

The store is either passed in (its owner opens and closes it) or opened from the release source's
question log (and closed with the service).
"""

from __future__ import annotations

import asyncio
import gc
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request

from valid.questionlog.spooled import StoreHealth
from valid.serve import admin
from valid.serve.config import ServeConfig
from valid.serve.conversations import TurnRunner, conversation_store
from valid.serve.answerer import ReleaseSource
from valid.serve.errors import ApiError
from valid.serve.limits import Admission, RateLimiter
from valid.serve.metrics import ServiceMetrics
from valid.serve.releases import ReleaseHolder


class Service:
    def __init__(self, source: ReleaseSource, config: ServeConfig, conversations=None):
        self.source = source
        self.config = config
        self.limits = config.limits
        self.metrics = ServiceMetrics()
        self.holder = ReleaseHolder(
            source,
            check_interval_s=config.release_check_interval_s,
            retry_failed_s=config.release_retry_failed_s,
        )
        self.admission = Admission(self.limits.max_inflight, self.limits.max_queue)
        self.rate = RateLimiter(self.limits.rate_per_s, self.limits.rate_burst, self.limits.max_clients_tracked)
        self.owns_store = conversations is None
        self.store = conversation_store(source) if self.owns_store else conversations
        self.run_turn = TurnRunner(self.store, config.conversations)
        self.admin_only = admin.admin_guard(config.admin_token, config.admin_open, ApiError)
        self.metrics.watch(self.holder, self.admission, self.rate)
        self.metrics.watch_question_store(self.store_health)
        self._background: set[asyncio.Task] = set()

    def store_health(self) -> StoreHealth:
        """The question store's state: a store that spools (PostgreSQL) says; any other is local
        (SQLite, memory) and fails with its disk, not apart from the service."""
        read = getattr(self.store, "health", None)
        return read() if read is not None else StoreHealth("ok", 0, 0, 0, None)

    def publish(self, app: FastAPI) -> None:
        """Make the parts reachable from a request (`request.app.state`)."""
        app.state.service = self
        app.state.config = self.config
        app.state.holder = self.holder
        app.state.metrics = self.metrics
        app.state.admission = self.admission
        app.state.rate = self.rate
        app.state.conversations = self.store

    def spawn_check(self) -> None:
        """Re-read the active pointer in a worker thread, off the request's path."""
        task = asyncio.get_running_loop().create_task(asyncio.to_thread(self.holder.check))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def load_until_ready(self) -> None:
        delay = 0.05
        while not self.holder.status().ready:
            await asyncio.to_thread(self.holder.check)
            if self.holder.status().ready:
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
        if self.config.freeze_after_load:
            # What is loaded now (model, index, tables) lives as long as the process: kept out of
            # the cyclic collector, a full collection no longer walks it and stops every request
            # for hundreds of milliseconds (measured: 300-500 ms pauses under load, 1.5 ms after).
            gc.collect()
            gc.freeze()

    @asynccontextmanager
    async def lifespan(self, _app: FastAPI):
        loader = asyncio.get_running_loop().create_task(self.load_until_ready())
        try:
            yield
        finally:
            loader.cancel()
            for task in list(self._background):
                task.cancel()
            self.holder.close()
            # A source that holds models (LibraryReleases: its embedders) lets go of them now.
            close_source = getattr(self.source, "close", None)
            if close_source is not None:
                close_source()
            self.admission.shutdown()
            if self.owns_store:
                self.store.close()


def service_of(request: Request) -> Service:
    return request.app.state.service
