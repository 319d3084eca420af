"""The HTTP service: an ASGI app (FastAPI) over one pinned release at a time.

    POST /v1/ask                 {question, generation?, conversation_id?} → the answer object of
                                 `valid ask --json` (or, for Accept: text/event-stream, progress events
                                 then it: valid.serve.events); conversation and answer ids in headers
    POST /v1/feedback            a reader's rating of one answer (valid.serve.feedback)
    GET  /v1/conversations/{id}  a conversation's turns, for the ask page after a reload
    GET  /v1/releases/active     the release being served and its generations (the page's picker)
    GET  /v1/sources/{path}      the chunks of one source file (JSON), for citation links
    GET  /sources/{path}         the same as an HTML page, the target of the ask page's citations
    GET  /healthz                200 once the active release is loaded and verified, else 503
    GET  /metrics                Prometheus text format (admin: a token beyond loopback)
    POST /v1/admin/reload        re-read the active pointer now (admin)
    GET  /                       the ask page (static HTML, CSS and JavaScript); ?generation= preselects

Every non-2xx response is `ErrorBody` ({"error": {"code", "message", "request_id"}}): valid.serve.errors.

Where things are: the parts one app shares (release holder, limits, metrics, the store of
conversations and feedback) are built in valid.serve.service; the routes in valid.serve.routes
(and feedback, admin); the middleware in valid.serve.middleware; the edge in valid.serve.edge.
"""

import json

from fastapi import Depends, FastAPI

from valid import __version__
from valid.serve import admin, errors, events, middleware
from valid.serve.config import ServeConfig
from valid.serve.answerer import ReleaseSource
from valid.serve.feedback import feedback_router
from valid.serve.routes import ask, health, page, releases
from valid.serve.routes import conversations as conversation_routes
from valid.serve.routes.common import rate_limited, require_json
from valid.serve.service import Service

__all__ = ["ServeConfig", "create_app", "openapi_json"]


def create_app(source: ReleaseSource, config: ServeConfig | None = None, conversations=None) -> FastAPI:
    """The service over `source`. `conversations`: the store of conversations, answers and feedback
    (default: the source's question log, closed with the app; a store passed in is its owner's to close)."""
    service = Service(source, config or ServeConfig(), conversations)
    app = FastAPI(
        title="VALID",
        version=__version__,
        summary="Answers from DITA content profiled for the reader's generation, or asks, or refuses.",
        lifespan=service.lifespan,
        docs_url=None,
        redoc_url=None,
    )
    service.publish(app)
    errors.install(app)
    app.include_router(ask.router(service.limits))
    asks = [Depends(rate_limited), Depends(require_json)]
    app.include_router(feedback_router(errors.ApiError, errors.responses(404, 413, 415, 422, 429, 500, 503), asks))
    events.document(app)
    app.include_router(conversation_routes.router)
    app.include_router(releases.router)
    app.include_router(health.router)
    admin.add_admin_routes(app, service.admin_only, errors.responses(401, 403, 500))
    page.install(app)
    middleware.install(app, service)
    return app


def openapi_json(app: FastAPI) -> str:
    """The schema as published in docs/openapi.json (sorted keys: stable diffs)."""
    return json.dumps(app.openapi(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
