"""`POST /v1/ask`: one turn of a conversation, answered off the event loop within the limits.

A request leases the served release, opens (or starts) its conversation, and submits the turn to
the admission queue; the turn runs in a worker thread and must end by the request deadline. The
reply is the checked answer object, or, for `Accept: text/event-stream`, progress events and then
it (valid.serve.events). The conversation and answer ids go back in headers.
"""

import asyncio
import logging
import time
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse

from valid.answer.conversation import ConversationEnded, Opened, UnknownConversation, new_id, open_conversation
from valid.answer.generate import run_before
from valid.answer.models import AnswerObject
from valid.serve import events
from valid.serve.conversations import ANSWER_HEADER, CONVERSATION_HEADER, HEADERS_DOC
from valid.serve.answerer import Answered, UnknownGeneration
from valid.questionlog.postgres import StoreUnavailable
from valid.serve.errors import ApiError, request_id, responses, store_unavailable
from valid.serve.limits import Limits
from valid.serve.releases import Lease
from valid.serve.routes.common import lease_current, rate_limited, require_json, resolve_generation
from valid.serve.schemas import ask_request_model
from valid.serve.service import Service, service_of

log = logging.getLogger("valid.serve")


def router(limits: Limits) -> APIRouter:
    """The route, its body schema carrying the service's question limit."""
    AskRequest = ask_request_model(limits.max_question_chars)
    router = APIRouter()

    @router.post(
        "/v1/ask",
        response_model=AnswerObject,
        responses={
            **responses(404, 409, 413, 415, 422, 429, 500, 503, 504),
            200: {
                "description": "The answer object; with Accept: text/event-stream, progress events then it.",
                "headers": HEADERS_DOC,
                "content": {events.MEDIA_TYPE: {"schema": {"type": "string", "description": events.STREAM_DESCRIPTION}}},
            },
        },
        dependencies=[Depends(rate_limited), Depends(require_json)],
        summary="Ask a question; get an answer, a choice of generations, or a refusal.",
    )
    async def ask(request: Request, body: AskRequest) -> Any:  # type: ignore[valid-type]
        return await answer(request, body)

    return router


async def answer(request: Request, body) -> Any:
    service = service_of(request)
    started = time.perf_counter()
    lease: Lease = lease_current(request)
    generation, opened = await _open_turn(service, lease, body)
    answer_id = new_id()
    ids = {CONVERSATION_HEADER: opened.conversation_id, ANSWER_HEADER: answer_id}
    feed = events.Feed(asyncio.get_running_loop()) if events.wants_events(request.headers.get("accept", "")) else None
    future = _submit(service, lease, body.question, generation, opened, answer_id, feed)
    if feed is None:
        answer_object = await settle(service, future, lease, started)
        return JSONResponse(answer_object, headers={"x-valid-release": lease.release, **ids})

    async def outcome() -> tuple[str, Any]:
        try:
            return "answer", await settle(service, future, lease, started)
        except ApiError as err:
            return "error", err.body(request_id(request))

    return StreamingResponse(
        events.stream(feed, outcome),
        media_type=events.MEDIA_TYPE,
        headers={"x-valid-release": lease.release, "cache-control": "no-store", **ids},
    )


async def _open_turn(service: Service, lease: Lease, body) -> tuple[str | None, Opened]:
    """The explicit generation and the opened conversation; on any refusal the lease is ended."""
    try:
        generation = resolve_generation(body.generation, lease.answerer.generations())
        # Off the event loop: the store may wait on its lock or on the disk.
        opened = await asyncio.to_thread(open_conversation, service.store, body.conversation_id,
                                         service.config.conversations)
    except (UnknownConversation, ConversationEnded) as err:
        lease.end()
        code = (404, "not_found") if isinstance(err, UnknownConversation) else (409, "conversation_ended")
        raise ApiError(*code, str(err)) from None
    except StoreUnavailable as err:  # the previous turn is in a store that is down
        lease.end()
        raise store_unavailable(err) from None
    except ApiError:
        lease.end()
        raise
    return generation, opened


def _submit(service: Service, lease: Lease, question: str, generation: str | None, opened: Opened,
            answer_id: str, feed):
    """The turn, queued for a worker thread; a 503 when every slot and the queue are taken."""
    deadline = time.monotonic() + service.limits.request_timeout_s  # model calls end by then (retries included)

    def turn():
        return run_before(
            deadline, lambda: service.run_turn(lease.answerer, question, generation, opened, answer_id, feed)
        )

    future = service.admission.submit(
        lambda: _timed(turn),
        on_done=lease.end,  # the lease lasts as long as the work, even past a timeout
    )
    if future is None:
        lease.end()
        raise ApiError(503, "saturated", "the service is saturated; try again shortly",
                       retry_after=service.admission.retry_after_s())
    return future


async def settle(service: Service, future, lease: Lease, started: float) -> dict:
    """The checked answer object of a submitted turn, with its metrics; or an ApiError."""
    timeout_s = service.limits.request_timeout_s
    try:
        (turn, answer_s), queue_s = await asyncio.wait_for(asyncio.wrap_future(future), timeout=timeout_s)
    except asyncio.TimeoutError:
        raise ApiError(504, "timeout", f"no answer within {timeout_s:g} s") from None
    except UnknownGeneration as err:
        raise ApiError(422, "unknown_generation", str(err)) from None
    except ConversationEnded as err:  # another request took the last turn meanwhile
        raise ApiError(409, "conversation_ended", str(err)) from None
    except StoreUnavailable as err:
        raise store_unavailable(err) from None
    answered: Answered = turn.result
    if answered.answer.get("release") != lease.release:
        # A request must finish on the release it started with; anything else is a bug.
        log.error("answer names release %r, request was pinned to %r", answered.answer.get("release"), lease.release)
        raise ApiError(500, "internal", "internal error; see the server log")
    service.metrics.record_answer(answered, queue_s, answer_s, time.perf_counter() - started)
    return AnswerObject.model_validate(answered.answer).model_dump(mode="json")


def _timed(fn):
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started
