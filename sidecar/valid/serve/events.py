"""Progress events: `POST /v1/ask` with `Accept: text/event-stream`.

The stream is server-sent events. While the answer is computed, one `stage` event per stage as it
starts (scope resolved, retrieved, generating, checking; generating and checking again for each
revision), then exactly one `answer` event with the answer object, or one `error` event with the
error shape. Stage events carry names and counts only: no answer text exists outside the final
event, which is sent only after the answer's checks have passed (or it was refused).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Awaitable, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field

MEDIA_TYPE = "text/event-stream"

Stage = Literal["scope", "retrieved", "generating", "checking"]


class ProgressEvent(BaseModel):
    """The data of one `stage` event."""

    model_config = ConfigDict(extra="forbid")

    stage: Stage
    scope: list[str] | None = Field(default=None, description="scope: the generations the question resolved to.")
    matched: list[str] | None = Field(default=None, description="scope: the words that named them.")
    generations: list[str] | None = Field(default=None, description="The generations this stage works for.")
    chunks: int | None = Field(default=None, description="retrieved: in-scope chunks found.")
    attempt: int | None = Field(default=None, description="generating, checking: 1, then 2... for revisions.")


STREAM_DESCRIPTION = (
    "Server-sent events, when the request accepts text/event-stream: `event: stage` (data: ProgressEvent) "
    "for each stage as it starts, then one `event: answer` (data: AnswerObject) or one `event: error` "
    "(data: ErrorBody). No answer text is sent before the checks pass."
)


def wants_events(accept: str) -> bool:
    return any(part.split(";")[0].strip().lower() == MEDIA_TYPE for part in accept.split(","))


def frame(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


class Feed:
    """Stage events from the worker thread to the response, in order."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self._loop = loop
        self.queue: asyncio.Queue = asyncio.Queue()

    def __call__(self, stage: str, data: dict) -> None:  # runs in the worker thread
        event = ProgressEvent(stage=stage, **data).model_dump(mode="json", exclude_none=True)
        self._loop.call_soon_threadsafe(self.queue.put_nowait, event)


async def stream(feed: Feed, outcome: Callable[[], Awaitable[tuple[str, Any]]]) -> AsyncIterator[bytes]:
    """Stage events until `outcome()` (→ ("answer", body) or ("error", body)) is known, then it.

    One task computes the outcome and is cancelled when the stream ends early (the client went
    away); nothing else is left waiting. The outcome is started by the first read, so a stream
    never read starts nothing (the turn still ends its lease by itself)."""
    final = asyncio.ensure_future(outcome())
    # The outcome is known only after the worker's last stage event was queued (both reach the
    # loop through call_soon_threadsafe, in order): its marker comes after every stage event.
    final.add_done_callback(lambda _: feed.queue.put_nowait(None))
    try:
        while (event := await feed.queue.get()) is not None:
            yield frame("stage", event)
        kind, body = final.result()
        yield frame(kind, body)
    finally:
        final.cancel()


def document(app, *, path: str = "/v1/ask", method: str = "post") -> None:
    """Publish ProgressEvent in the app's OpenAPI components (the stream's schema refers to it)."""
    build: Callable[[], dict] = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            schema = build()
            defs = ProgressEvent.model_json_schema(ref_template="#/components/schemas/{model}")
            schema.setdefault("components", {}).setdefault("schemas", {})["ProgressEvent"] = defs
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi
