"""Operations: `GET /healthz` (a probe, open to a load balancer) and `GET /metrics` (admin)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from valid.serve.errors import ApiError, responses
from valid.serve.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from valid.serve.schemas import Health, QuestionStoreHealth
from valid.serve.service import service_of

router = APIRouter()


def admin_only(request: Request) -> None:
    """The service's admin guard (valid.serve.admin): a token beyond loopback."""
    service_of(request).admin_only(request)


@router.get(
    "/healthz",
    response_model=Health,
    responses=responses(503),
    summary="Ready once the active release is loaded and verified; says whether the question store is degraded.",
)
def healthz(request: Request) -> Health:
    service = service_of(request)
    status = service.holder.status()
    if not status.ready or status.release is None:
        why = status.last_error or "the active release is still loading"
        raise ApiError(503, "not_ready", f"not ready: {why}", retry_after=1)
    store = service.store_health()
    if store.state == "degraded" and service.config.ready_needs_question_store:
        raise ApiError(503, "not_ready", f"not ready: the question store is degraded ({store.spooled} writes spooled)",
                       retry_after=1)
    return Health(status="ready", release=status.release,
                  question_store=QuestionStoreHealth(state=store.state, spooled=store.spooled))


@router.get(
    "/metrics",
    response_class=Response,
    dependencies=[Depends(admin_only)],
    responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format (prometheus_client's exposition)."},
               **responses(401, 403)},
    summary="Metrics: requests, outcomes (degraded included), stage latencies, limits.",
)
def metrics_text(request: Request) -> Response:
    return Response(service_of(request).metrics.exposition(), media_type=METRICS_CONTENT_TYPE)
