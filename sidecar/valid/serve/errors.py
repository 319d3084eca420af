"""The one error shape: every non-2xx response is `ErrorBody` ({"error": {"code", "message", "request_id"}}).

Routes raise `ApiError`; the handlers here turn it, and every error FastAPI or Starlette raise on
their own (validation, unknown path, wrong method, a body over the limit), into that shape. A bug is
logged with its traceback on the server and answered as `internal` without one. `responses()` is
what each route publishes in the OpenAPI for its failures.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError, ResponseValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from valid.questionlog.postgres import StoreUnavailable
from valid.serve.limits import BodyTooLarge
from valid.serve.schemas import ErrorBody

log = logging.getLogger("valid.serve")

EDGE_STATUSES = (400, 408, 431)  # answered by the edge (valid.serve.edge) on any route

ERRORS = {  # status → (code, description), for the OpenAPI responses of each route
    400: ("bad_request", "Not valid HTTP/1.1."),
    401: ("unauthorized", "An admin route without the admin token."),
    403: ("forbidden", "An admin route on a service bound beyond loopback with no admin token set."),
    404: ("not_found", "Unknown path, source or answer, or a conversation never started, forgotten or past its "
                       "age bound."),
    408: ("request_timeout", "The request's headers or body did not arrive in time."),
    409: ("conversation_ended", "The conversation reached its turn or age bound; start a new one."),
    413: ("body_too_large", "The request body is too large."),
    415: ("unsupported_media_type", "The body is not application/json."),
    422: ("invalid_request", "The request does not match the schema (also question_too_long, unknown_generation)."),
    429: ("rate_limited", "Too many asks from this client; see Retry-After."),
    431: ("headers_too_large", "The request headers are over the size or count limit."),
    500: ("internal", "A bug; details are in the server log only."),
    503: ("saturated", "Every answer slot is taken (saturated), no release is loaded yet (not_ready), or the question "
                       "store that holds this conversation or answer is down (store_unavailable); see Retry-After."),
    504: ("timeout", "The answer took longer than the request timeout."),
}

# Refusals counted in valid_rejected_total: a limit said no, not the request.
_LIMIT_CODES = ("rate_limited", "saturated", "not_ready", "body_too_large", "timeout", "store_unavailable")
STORE_RETRY_AFTER_S = 5  # what a reader is told to wait while the question store is down


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, retry_after: int | None = None):
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after
        super().__init__(message)

    def body(self, request_id: str) -> dict:
        return {"error": {"code": self.code, "message": self.message, "request_id": request_id}}


def store_unavailable(err: StoreUnavailable) -> ApiError:
    """What only the question store can serve, while it is down: 503 with Retry-After."""
    return ApiError(503, "store_unavailable", "the question store is unavailable; this conversation or answer "
                    "can be read once it is back", retry_after=STORE_RETRY_AFTER_S)


def error_response(request_id: str, status: int, code: str, message: str, retry_after: int | None = None) -> Response:
    body = {"error": {"code": code, "message": message, "request_id": request_id}}
    headers = {"x-request-id": request_id}
    if retry_after is not None:
        headers["retry-after"] = str(retry_after)
    return JSONResponse(body, status_code=status, headers=headers)


def request_id(request: Request) -> str:
    """The id the outermost middleware gave this request (valid.serve.middleware.Observe)."""
    return request.scope.get("valid.request_id") or uuid.uuid4().hex


def responses(*statuses: int, html: bool = False) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI `responses` of a route that fails with `statuses` (and the edge's own)."""
    statuses = (*statuses, *EDGE_STATUSES)
    if html:  # the route's own media type is text/html; its errors are still JSON
        ref = {"$ref": "#/components/schemas/ErrorBody"}
        return {s: {"description": ERRORS[s][1], "content": {"application/json": {"schema": ref}}} for s in statuses}
    return {s: {"model": ErrorBody, "description": ERRORS[s][1]} for s in statuses}


async def _api_error(request: Request, err: ApiError) -> Response:
    if err.code in _LIMIT_CODES:
        request.app.state.metrics.rejected.labels(reason=err.code).inc()
    return error_response(request_id(request), err.status, err.code, err.message, err.retry_after)


async def _store_unavailable(request: Request, err: StoreUnavailable) -> Response:
    log.warning("request %s: %s", request_id(request), err)
    return await _api_error(request, store_unavailable(err))


async def _body_too_large(request: Request, err: BodyTooLarge) -> Response:
    request.app.state.metrics.rejected.labels(reason="body_too_large").inc()
    return error_response(request_id(request), 413, "body_too_large", str(err))


async def _invalid(request: Request, err: RequestValidationError) -> Response:
    errors = err.errors()
    for e in errors:
        if tuple(e.get("loc", ())) == ("body", "question") and e.get("type") == "string_too_long":
            limit = request.app.state.config.limits.max_question_chars
            return error_response(
                request_id(request), 422, "question_too_long", f"the question is longer than {limit} characters"
            )
    first = errors[0] if errors else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    message = f"{where}: {first.get('msg', 'invalid request')}"
    return error_response(request_id(request), 422, "invalid_request", message[:300])


_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large", 415: "unsupported_media_type"}


async def _http(request: Request, err: StarletteHTTPException) -> Response:
    if isinstance(err.__cause__, BodyTooLarge):  # FastAPI wraps errors raised while reading the body
        return await _body_too_large(request, err.__cause__)
    status = err.status_code if err.status_code in _HTTP_CODES else 422
    message = {
        404: f"no such path: {request.url.path}",
        405: f"{request.method} is not allowed here",
        422: "the request body could not be read",
    }
    response = error_response(
        request_id(request), status, _HTTP_CODES.get(status, "invalid_request"), message.get(status, str(err.detail))
    )
    if status == 405 and err.headers and "Allow" in err.headers:
        response.headers["allow"] = err.headers["Allow"]
    return response


async def _bad_response(request: Request, err: ResponseValidationError) -> Response:
    log.error("response failed its schema (request %s): %s", request_id(request), err)
    return error_response(request_id(request), 500, "internal", "internal error; see the server log")


def install(app: FastAPI) -> None:
    """Answer every error the app raises in the one shape."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(StoreUnavailable, _store_unavailable)
    app.add_exception_handler(BodyTooLarge, _body_too_large)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(ResponseValidationError, _bad_response)
