"""The app's middleware, outermost last: the body limit, CORS, `Observe` (request id, security
headers, request metrics, the between-requests release check, the last-resort 500), and the edge's
HEAD and trusted-proxy handling (valid.serve.edge)."""

from __future__ import annotations

import logging
import time
import uuid

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from valid.serve import edge
from valid.serve.conversations import ANSWER_HEADER, CONVERSATION_HEADER
from valid.serve.errors import error_response
from valid.serve.limits import BodyLimit
from valid.serve.metrics import ServiceMetrics
from valid.serve.releases import ReleaseHolder

log = logging.getLogger("valid.serve")

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


def install(app: FastAPI, service) -> None:
    """Add the middleware in order (each added one runs outside the ones before it)."""
    config, metrics = service.config, service.metrics
    app.add_middleware(BodyLimit, max_body_bytes=config.limits.max_body_bytes, reject=_reject_body(metrics))
    if config.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(config.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["content-type"],
            expose_headers=["retry-after", "x-request-id", "x-valid-release", CONVERSATION_HEADER, ANSWER_HEADER],
        )
    headers = security_headers(config.embed_origins)
    app.add_middleware(Observe, metrics=metrics, holder=service.holder, spawn_check=service.spawn_check, headers=headers)
    edge.install(app, config.forwarded_allow_ips, headers)  # outermost: HEAD, trusted proxies


def _reject_body(metrics: ServiceMetrics):
    """BodyLimit's answer to a body over `limit` bytes: a counted 413 in the one error shape."""
    def reject(limit: int):
        async def respond(scope, receive, send):
            metrics.rejected.labels(reason="body_too_large").inc()
            response = error_response(scope.get("valid.request_id", ""), 413, "body_too_large",
                                      f"request body is larger than {limit} bytes")
            await response(scope, receive, send)
        return respond
    return reject


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
                message = {**message, "headers": self._with_headers(message.get("headers", []), request_id)}
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
            self._count(scope, status_box["status"], time.perf_counter() - started)

    def _with_headers(self, headers, request_id: str) -> list:
        headers = list(headers)
        names = {name.lower() for name, _ in headers}
        headers += [(k, v) for k, v in self.headers if k not in names]
        if b"x-request-id" not in names:
            headers.append((b"x-request-id", request_id.encode()))
        return headers

    def _count(self, scope, status: int, seconds: float) -> None:
        route = scope.get("route")
        template = getattr(route, "path", None) or ("static" if scope["path"].startswith("/static/") else "unmatched")
        if getattr(route, "name", None) == "static":
            template = "/static"
        self.metrics.requests.labels(route=template, method=scope["method"], status=str(status)).inc()
        self.metrics.request_seconds.labels(route=template).observe(seconds)
