"""The HTTP service: an ASGI app (FastAPI) over one pinned release at a time.

    POST /v1/ask                 {question, generation?, conversation_id?} → the answer object of
                                 `valid ask --json` (or, for Accept: text/event-stream, progress events
                                 then it: valid.serve.events); conversation and answer ids in headers
    POST /v1/feedback            a reader's rating of one answer (valid.serve.feedback)
    GET  /v1/releases/active     the release being served and its generations (the page's picker)
    GET  /v1/sources/{path}      the chunks of one source file (JSON), for citation links
    GET  /sources/{path}         the same as an HTML page, the target of the ask page's citations
    GET  /healthz                200 once the active release is loaded and verified, else 503
    GET  /metrics                Prometheus text format (admin: a token beyond loopback)
    POST /v1/admin/reload        re-read the active pointer now (admin)
    GET  /                       the ask page (static HTML, CSS and JavaScript); ?generation= preselects

Every non-2xx response is `ErrorBody` ({"error": {"code", "message", "request_id"}}); a bug is
logged with its traceback on the server and answered as `internal` without one.
"""

import asyncio
import gc
import json
import logging
import math
import re
import time
import uuid
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from importlib import resources
from typing import Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError, ResponseValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from valid import __version__
from valid.answer.conversation import ConversationEnded, ConversationLimits, UnknownConversation, new_id, open_conversation
from valid.answer.generate import run_before
from valid.answer.models import AnswerObject
from valid.serve import admin, edge, events
from valid.serve.conversations import ANSWER_HEADER, CONVERSATION_HEADER, HEADERS_DOC, TurnRunner, conversation_store
from valid.serve.answerer import Answered, Generation, ReleaseSource, UnknownGeneration
from valid.serve.feedback import feedback_router
from valid.serve.limits import Admission, BodyLimit, BodyTooLarge, Limits, RateLimiter
from valid.serve.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from valid.serve.metrics import ServiceMetrics, resident_memory_bytes
from valid.serve.releases import Lease, ReleaseHolder
from valid.serve.schemas import (
    ErrorBody,
    GenerationInfo,
    Health,
    ReleaseInfo,
    SourceView,
    ask_request_model,
)
from valid.serve.sources import render_source_page, source_view

log = logging.getLogger("valid.serve")
EDGE_STATUSES = (400, 408, 431)

STATIC = resources.files("valid.serve") / "static"

# Sent with every response. The ask page loads only its own script and stylesheet.
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        b"base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
]


_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?$")


def check_origin(origin: str) -> str:
    """An origin as CSP and CORS want it (scheme://host[:port]); anything else could add directives."""
    if not _ORIGIN.match(origin):
        raise ValueError(f"not an origin: {origin[:80]!r} (use https://docs.example.com or http://localhost:8000)")
    return origin


def security_headers(embed_origins: tuple[str, ...]) -> list[tuple[bytes, bytes]]:
    """SECURITY_HEADERS, except that the listed origins (a docs portal) may frame the pages."""
    if not embed_origins:
        return SECURITY_HEADERS
    ancestors = " ".join(embed_origins).encode()
    return [
        (k, v.replace(b"frame-ancestors 'none'", b"frame-ancestors " + ancestors))
        for k, v in SECURITY_HEADERS
        if k != b"x-frame-options"
    ]


class ServeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    limits: Limits = Field(default_factory=Limits)
    cors_origins: tuple[str, ...] = Field(default=(), description="Origins allowed by CORS; empty: CORS off.")
    release_check_interval_s: float = Field(
        default=1.0, ge=0, description="Least time between two reads of the active-release pointer."
    )
    release_retry_failed_s: float = Field(
        default=30.0, ge=0, description="Wait before trying again to open a release that failed to open."
    )
    forwarded_allow_ips: tuple[str, ...] = Field(
        default=(), description="Proxies (addresses or networks) whose X-Forwarded-For names the client; empty: none."
    )
    admin_token: str | None = Field(default=None, description="Bearer token for the admin routes (metrics, reload).")
    admin_open: bool = Field(default=True, description="Admin routes open without a token (the service is on loopback).")
    freeze_after_load: bool = Field(
        default=False, description="gc.freeze() once the first release is loaded (a server process; not tests)."
    )
    conversations: ConversationLimits = Field(default_factory=ConversationLimits)
    embed_origins: tuple[str, ...] = Field(
        default=(), description="Origins that may show the ask page in a frame (CSP frame-ancestors); empty: none."
    )

    @field_validator("embed_origins")
    @classmethod
    def _origins(cls, origins: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(check_origin(o) for o in origins)


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, retry_after: int | None = None):
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after
        super().__init__(message)


def error_response(request_id: str, status: int, code: str, message: str, retry_after: int | None = None) -> Response:
    body = {"error": {"code": code, "message": message, "request_id": request_id}}
    headers = {"x-request-id": request_id}
    if retry_after is not None:
        headers["retry-after"] = str(retry_after)
    return JSONResponse(body, status_code=status, headers=headers)


def _request_id(request: Request) -> str:
    return request.scope.get("valid.request_id") or uuid.uuid4().hex


_ERRORS = {  # status → (code, description), for the OpenAPI responses of each route
    400: ("bad_request", "Not valid HTTP/1.1."),
    401: ("unauthorized", "An admin route without the admin token."),
    403: ("forbidden", "An admin route on a service bound beyond loopback with no admin token set."),
    404: ("not_found", "Unknown path, source, conversation or answer."),
    408: ("request_timeout", "The request's headers or body did not arrive in time."),
    409: ("conversation_ended", "The conversation reached its turn or age bound; start a new one."),
    413: ("body_too_large", "The request body is too large."),
    415: ("unsupported_media_type", "The body is not application/json."),
    422: ("invalid_request", "The request does not match the schema (also question_too_long, unknown_generation)."),
    429: ("rate_limited", "Too many asks from this client; see Retry-After."),
    431: ("headers_too_large", "The request headers are over the size or count limit."),
    500: ("internal", "A bug; details are in the server log only."),
    503: ("saturated", "Every answer slot is taken (saturated) or no release is loaded yet (not_ready); see Retry-After."),
    504: ("timeout", "The answer took longer than the request timeout."),
}


def _responses(*statuses: int, html: bool = False) -> dict[int | str, dict[str, Any]]:
    statuses = (*statuses, *EDGE_STATUSES)  # the edge answers these on any route
    if html:  # the route's own media type is text/html; its errors are still JSON
        ref = {"$ref": "#/components/schemas/ErrorBody"}
        return {s: {"description": _ERRORS[s][1], "content": {"application/json": {"schema": ref}}} for s in statuses}
    return {s: {"model": ErrorBody, "description": _ERRORS[s][1]} for s in statuses}


def _generation_infos(generations: list[Generation]) -> list[GenerationInfo]:
    return [GenerationInfo(name=g.name, label=g.label, labels=list(g.labels) or [g.label]) for g in generations]


def create_app(source: ReleaseSource, config: ServeConfig | None = None, conversations=None) -> FastAPI:
    """`conversations`: the store of conversations and feedback (default: the source's question log)."""
    config = config or ServeConfig()
    limits = config.limits
    metrics = ServiceMetrics()
    holder = ReleaseHolder(
        source,
        check_interval_s=config.release_check_interval_s,
        retry_failed_s=config.release_retry_failed_s,
    )
    admission = Admission(limits.max_inflight, limits.max_queue)
    rate = RateLimiter(limits.rate_per_s, limits.rate_burst, limits.max_clients_tracked)
    background: set[asyncio.Task] = set()
    store = conversations if conversations is not None else conversation_store(source)
    run_turn = TurnRunner(store, config.conversations)

    def spawn_check() -> None:
        task = asyncio.get_running_loop().create_task(asyncio.to_thread(holder.check))
        background.add(task)
        task.add_done_callback(background.discard)

    async def load_until_ready() -> None:
        delay = 0.05
        while not holder.status().ready:
            await asyncio.to_thread(holder.check)
            if holder.status().ready:
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
        if config.freeze_after_load:
            # What is loaded now (model, index, tables) lives as long as the process: kept out of
            # the cyclic collector, a full collection no longer walks it and stops every request
            # for hundreds of milliseconds (measured: 300-500 ms pauses under load, 1.5 ms after).
            gc.collect()
            gc.freeze()

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        loader = asyncio.get_running_loop().create_task(load_until_ready())
        try:
            yield
        finally:
            loader.cancel()
            for task in list(background):
                task.cancel()
            holder.close()
            admission.shutdown()
            if conversations is None:
                store.close()

    app = FastAPI(
        title="VALID",
        version=__version__,
        summary="Answers from DITA content profiled for the reader's generation, or asks, or refuses.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.holder = holder
    app.state.metrics = metrics
    app.state.admission = admission
    app.state.rate = rate
    app.state.config = config
    app.state.conversations = store

    metrics.add_gauge("valid_ready", "1 once a verified release is loaded.", lambda: {(): float(holder.status().ready)})
    metrics.add_gauge(
        "valid_release_info",
        "The release being served (value 1).",
        lambda: {(s.release,): 1.0} if (s := holder.status()).release else {},
        ("release",),
    )
    metrics.add_gauge(
        "valid_release_reloads_total",
        "Attempts to open a newly activated release, by result (a failure keeps the old release).",
        lambda: {("ok",): float(holder.stats.ok), ("failed",): float(holder.stats.failed)},
        ("result",),
    )
    metrics.add_gauge("valid_inflight", "Answers being computed now.", lambda: {(): float(admission.running)})
    metrics.add_gauge("valid_queued", "Answers waiting for a slot.", lambda: {(): float(admission.queued)})
    metrics.add_gauge(
        "valid_rate_limited_clients", "Clients the rate limiter remembers.", lambda: {(): float(len(rate))}
    )
    metrics.add_gauge(
        "process_resident_memory_bytes", "Resident memory of this process.", lambda: {(): resident_memory_bytes()}
    )

    # -- errors ---------------------------------------------------------------------------------

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, err: ApiError) -> Response:
        if err.code in ("rate_limited", "saturated", "not_ready", "body_too_large", "timeout"):
            metrics.rejected.inc(reason=err.code)
        return error_response(_request_id(request), err.status, err.code, err.message, err.retry_after)

    @app.exception_handler(BodyTooLarge)
    async def _body_too_large(request: Request, err: BodyTooLarge) -> Response:
        metrics.rejected.inc(reason="body_too_large")
        return error_response(_request_id(request), 413, "body_too_large", str(err))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, err: RequestValidationError) -> Response:
        errors = err.errors()
        for e in errors:
            if tuple(e.get("loc", ())) == ("body", "question") and e.get("type") == "string_too_long":
                return error_response(
                    _request_id(request), 422, "question_too_long",
                    f"the question is longer than {limits.max_question_chars} characters",
                )
        first = errors[0] if errors else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        message = f"{where}: {first.get('msg', 'invalid request')}"
        return error_response(_request_id(request), 422, "invalid_request", message[:300])

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, err: StarletteHTTPException) -> Response:
        if isinstance(err.__cause__, BodyTooLarge):  # FastAPI wraps errors raised while reading the body
            return await _body_too_large(request, err.__cause__)
        code = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large", 415: "unsupported_media_type"}
        status = err.status_code if err.status_code in code else 422
        message = {
            404: f"no such path: {request.url.path}",
            405: f"{request.method} is not allowed here",
            422: "the request body could not be read",
        }
        response = error_response(
            _request_id(request), status, code.get(status, "invalid_request"), message.get(status, str(err.detail))
        )
        if status == 405 and err.headers and "Allow" in err.headers:
            response.headers["allow"] = err.headers["Allow"]
        return response

    @app.exception_handler(ResponseValidationError)
    async def _bad_response(request: Request, err: ResponseValidationError) -> Response:
        log.error("response failed its schema (request %s): %s", _request_id(request), err)
        return error_response(_request_id(request), 500, "internal", "internal error; see the server log")

    # -- dependencies -----------------------------------------------------------------------

    def require_json(request: Request) -> None:
        content_type = request.headers.get("content-type", "")
        if content_type.split(";")[0].strip().lower() != "application/json":
            raise ApiError(415, "unsupported_media_type", "send the body as application/json")

    def rate_limited(request: Request) -> None:
        client = request.client.host if request.client else "unknown"
        wait = rate.take(client)
        if wait > 0:
            raise ApiError(429, "rate_limited", "too many questions from this client; try again later",
                           retry_after=max(1, math.ceil(wait)))

    def lease_current(request: Request):
        lease = holder.acquire()
        if lease is None:
            status = holder.status()
            why = status.last_error or "the active release is still loading"
            raise ApiError(503, "not_ready", f"not ready: {why}", retry_after=1)
        request.scope["valid.release"] = lease.release
        return lease

    def leased(request: Request):
        """A lease for a quick request, ended when the response is done."""
        lease = lease_current(request)
        try:
            yield lease
        finally:
            lease.end()

    def resolve_generation(name: str | None, generations: list[Generation]) -> str | None:
        """The profile name for an explicit generation: its name or any name readers use for it
        (as `valid ask --generation`), ignoring case, spaces and punctuation."""
        if name is None:
            return None
        key = _normal(name)
        for g in generations:
            if key and key in {_normal(n) for n in (g.name, g.label, *g.labels)}:
                return g.name
        known = ", ".join(g.name for g in generations)
        raise ApiError(422, "unknown_generation", f"unknown generation {name[:64]!r}; use one of: {known}")

    AskRequest = ask_request_model(limits.max_question_chars)

    # -- routes -------------------------------------------------------------------------------

    @app.post(
        "/v1/ask",
        response_model=AnswerObject,
        responses={
            **_responses(404, 409, 413, 415, 422, 429, 500, 503, 504),
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
        started = time.perf_counter()
        lease: Lease = lease_current(request)
        try:
            generation = resolve_generation(body.generation, lease.answerer.generations())
            # Off the event loop: the store may wait on its lock or on the disk.
            opened = await asyncio.to_thread(open_conversation, store, body.conversation_id, config.conversations)
        except (UnknownConversation, ConversationEnded) as err:
            lease.end()
            code = (404, "not_found") if isinstance(err, UnknownConversation) else (409, "conversation_ended")
            raise ApiError(*code, str(err)) from None
        except ApiError:
            lease.end()
            raise
        deadline = time.monotonic() + limits.request_timeout_s  # model calls end by then (retries included)
        answer_id = new_id()
        ids = {CONVERSATION_HEADER: opened.conversation_id, ANSWER_HEADER: answer_id}
        feed = events.Feed(asyncio.get_running_loop()) if events.wants_events(request.headers.get("accept", "")) else None
        future = admission.submit(
            lambda: _timed(
                lambda: run_before(
                    deadline, lambda: run_turn(lease.answerer, body.question, generation, opened, answer_id, feed)
                )
            ),
            on_done=lease.end,  # the lease lasts as long as the work, even past a timeout
        )
        if future is None:
            lease.end()
            raise ApiError(503, "saturated", "the service is saturated; try again shortly",
                           retry_after=admission.retry_after_s())
        if feed is None:
            return JSONResponse(await settle(future, lease, started), headers={"x-valid-release": lease.release, **ids})

        async def outcome() -> tuple[str, Any]:
            try:
                return "answer", await settle(future, lease, started)
            except ApiError as err:
                return "error", {"error": {"code": err.code, "message": err.message, "request_id": _request_id(request)}}

        return StreamingResponse(
            events.stream(feed, outcome()),
            media_type=events.MEDIA_TYPE,
            headers={"x-valid-release": lease.release, "cache-control": "no-store", **ids},
        )

    async def settle(future, lease: Lease, started: float) -> dict:
        """The checked answer object of a submitted turn, with its metrics; or an ApiError."""
        try:
            (turn, answer_s), queue_s = await asyncio.wait_for(
                asyncio.wrap_future(future), timeout=limits.request_timeout_s
            )
        except asyncio.TimeoutError:
            raise ApiError(504, "timeout", f"no answer within {limits.request_timeout_s:g} s") from None
        except UnknownGeneration as err:
            raise ApiError(422, "unknown_generation", str(err)) from None
        except ConversationEnded as err:  # another request took the last turn meanwhile
            raise ApiError(409, "conversation_ended", str(err)) from None
        answered: Answered = turn.result
        if answered.answer.get("release") != lease.release:
            # A request must finish on the release it started with; anything else is a bug.
            log.error("answer names release %r, request was pinned to %r", answered.answer.get("release"), lease.release)
            raise ApiError(500, "internal", "internal error; see the server log")
        degraded = "true" if answered.degraded else "false"
        metrics.answers.inc(outcome=str(answered.answer.get("outcome")), degraded=degraded)
        for reason in answered.degraded_reasons:
            metrics.degraded.inc(reason=degraded_label(reason))
        metrics.stage_seconds.observe(queue_s, stage="queue")
        metrics.stage_seconds.observe(answer_s, stage="answer")
        for stage, ms in sorted(answered.stages_ms.items()):
            metrics.stage_seconds.observe(ms / 1000.0, stage=stage)
        metrics.stage_seconds.observe(time.perf_counter() - started, stage="total")
        return AnswerObject.model_validate(answered.answer).model_dump(mode="json")

    app.include_router(
        feedback_router(ApiError, _responses(404, 413, 415, 422, 429, 500), [Depends(rate_limited), Depends(require_json)])
    )
    events.document(app)

    @app.get(
        "/v1/releases/active",
        response_model=ReleaseInfo,
        responses=_responses(500, 503),
        summary="The release being served and its generations.",
    )
    def active_release(lease: Lease = Depends(leased)) -> ReleaseInfo:
        loaded_at = holder.status().loaded_at or time.time()
        return ReleaseInfo(
            release=lease.release,
            loaded_at=datetime.fromtimestamp(loaded_at, timezone.utc).isoformat(timespec="seconds"),
            generations=_generation_infos(lease.answerer.generations()),
        )

    def _source(lease: Lease, path: str, generation: str | None) -> SourceView:
        profile = resolve_generation(generation, lease.answerer.generations())
        chunks = lease.answerer.source(path)
        if chunks is None:
            raise ApiError(404, "not_found", f"release {lease.release} has no source {path[:200]!r}")
        return source_view(lease.release, path, chunks, profile)

    generation_query = Query(
        default=None, max_length=64, description="Show only the chunks this generation's build keeps."
    )

    @app.get(
        "/v1/sources/{path:path}",
        response_model=SourceView,
        responses=_responses(404, 422, 500, 503),
        summary="The chunks of one source file in the served release.",
    )
    def source_json(path: str, generation: str | None = generation_query, lease: Lease = Depends(leased)) -> SourceView:
        return _source(lease, path, generation)

    @app.get(
        "/sources/{path:path}",
        response_class=HTMLResponse,
        responses={**_responses(404, 422, 500, 503, html=True), 200: {"description": "The page."}},
        summary="A source file as an HTML page: the target of citation links.",
    )
    def source_page(path: str, generation: str | None = generation_query, lease: Lease = Depends(leased)) -> HTMLResponse:
        view = _source(lease, path, generation)
        return HTMLResponse(render_source_page(view, lease.answerer.generations()))

    @app.get(
        "/healthz",
        response_model=Health,
        responses=_responses(503),
        summary="Ready once the active release is loaded and verified.",
    )
    def healthz() -> Health:
        status = holder.status()
        if not status.ready or status.release is None:
            why = status.last_error or "the active release is still loading"
            raise ApiError(503, "not_ready", f"not ready: {why}", retry_after=1)
        return Health(status="ready", release=status.release)

    admin_only = admin.admin_guard(config.admin_token, config.admin_open, ApiError)
    admin.add_admin_routes(app, holder, admin_only, _responses(401, 403, 500))

    @app.get(
        "/metrics",
        response_class=Response,
        dependencies=[Depends(admin_only)],
        responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format 0.0.4."},
                   **_responses(401, 403)},
        summary="Metrics: requests, outcomes (degraded included), stage latencies, limits.",
    )
    def metrics_text() -> Response:
        return Response(metrics.render(), media_type=METRICS_CONTENT_TYPE)

    @app.get("/", include_in_schema=False)
    def index() -> HTMLResponse:  # ?generation= is read by the page's script
        return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))

    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")

    # -- middleware (outermost last) ---------------------------------------------------------

    def reject_body(limit: int):
        async def respond(scope, receive, send):
            metrics.rejected.inc(reason="body_too_large")
            response = error_response(scope.get("valid.request_id", ""), 413, "body_too_large",
                                      f"request body is larger than {limit} bytes")
            await response(scope, receive, send)
        return respond

    app.add_middleware(BodyLimit, max_body_bytes=limits.max_body_bytes, reject=reject_body)
    if config.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(config.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["content-type"],
            expose_headers=["retry-after", "x-request-id", "x-valid-release", CONVERSATION_HEADER, ANSWER_HEADER],
        )
    headers = security_headers(config.embed_origins)
    app.add_middleware(Observe, metrics=metrics, holder=holder, spawn_check=spawn_check, headers=headers)
    edge.install(app, config.forwarded_allow_ips, headers)  # outermost: HEAD, trusted proxies
    return app


class Observe:
    """Outermost middleware: request id, security headers, request metrics, the between-requests
    check of the active pointer, and the last line of defence that turns any exception into a JSON
    500 without a traceback (the traceback goes to the server log)."""

    def __init__(self, app, metrics: ServiceMetrics, holder: ReleaseHolder, spawn_check, headers=SECURITY_HEADERS):
        self.app = app
        self.headers = headers
        self.metrics = metrics
        self.holder = holder
        self.spawn_check = spawn_check

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex
        scope["valid.request_id"] = request_id
        if self.holder.check_due():
            self.spawn_check()
        started = time.perf_counter()
        status_box = {"status": 500, "started": False}

        async def observed_send(message) -> None:
            if message["type"] == "http.response.start":
                status_box["status"] = message["status"]
                status_box["started"] = True
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in self.headers if k not in names]
                if b"x-request-id" not in names:
                    headers.append((b"x-request-id", request_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, observed_send)
        except Exception:
            log.exception("unhandled error in request %s", request_id)
            if not status_box["started"]:
                await error_response(request_id, 500, "internal", "internal error; see the server log")(
                    scope, receive, observed_send
                )
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or ("static" if scope["path"].startswith("/static/") else "unmatched")
            if getattr(route, "name", None) == "static":
                template = "/static"
            self.metrics.requests.inc(route=template, method=scope["method"], status=str(status_box["status"]))
            self.metrics.request_seconds.observe(time.perf_counter() - started, route=template)


def _normal(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


_DEGRADED_LABELS: set[str] = set()
_MAX_DEGRADED_LABELS = 32


def degraded_label(reason: str) -> str:
    """A bounded metric label for an engine's degraded reason.

    Reasons read like "tpu7x: vector channel failed (ProgrammingError: ...); BM25 only": the
    generation prefix and the parenthesised detail (error text) are dropped, so the label names the
    fallback, and at most 32 distinct labels ever exist ("other" after that).
    """
    label = re.sub(r"\([^)]*\)", "", reason)
    label = re.sub(r"^[\w.-]+: ", "", label.strip())
    label = re.sub(r"\s+([;,.])", r"\1", " ".join(label.split()))[:60] or "unspecified"
    if label not in _DEGRADED_LABELS:
        if len(_DEGRADED_LABELS) >= _MAX_DEGRADED_LABELS:
            return "other"
        _DEGRADED_LABELS.add(label)
    return label


def _timed(fn):
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started


def openapi_json(app: FastAPI) -> str:
    """The schema as published in docs/openapi.json (sorted keys: stable diffs)."""
    return json.dumps(app.openapi(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
