"""The served release and its sources: the page's generation picker and the targets of citations.

    GET /v1/releases/active   the release being served and its generations
    GET /v1/sources/{path}    the chunks of one source file (JSON)
    GET /sources/{path}       the same as an HTML page
"""

from __future__ import annotations

import time
from datetime import datetime, timezone

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from valid.serve.answerer import Generation
from valid.serve.errors import ApiError, responses
from valid.serve.releases import Lease
from valid.serve.routes.common import leased, resolve_generation
from valid.serve.schemas import GenerationInfo, ReleaseInfo, SourceView
from valid.serve.service import service_of
from valid.serve.sources import render_source_page, source_view
from valid.wording import wording_for

router = APIRouter()

generation_query = Query(default=None, max_length=64, description="Show only the chunks this generation's build keeps.")


@router.get(
    "/v1/releases/active",
    response_model=ReleaseInfo,
    responses=responses(500, 503),
    summary="The release being served and its generations.",
)
def active_release(request: Request, lease: Lease = Depends(leased)) -> ReleaseInfo:
    service = service_of(request)
    loaded_at = service.holder.status().loaded_at or time.time()
    return ReleaseInfo(
        release=lease.release,
        loaded_at=datetime.fromtimestamp(loaded_at, timezone.utc).isoformat(timespec="seconds"),
        generations=_generation_infos(lease.answerer.generations()),
        wording=wording_for(lease.answerer.docset(), service.config.wording),
    )


@router.get(
    "/v1/sources/{path:path}",
    response_model=SourceView,
    responses=responses(404, 422, 500, 503),
    summary="The chunks of one source file in the served release.",
)
def source_json(path: str, generation: str | None = generation_query, lease: Lease = Depends(leased)) -> SourceView:
    return _source(lease, path, generation)


@router.get(
    "/sources/{path:path}",
    response_class=HTMLResponse,
    responses={**responses(404, 422, 500, 503, html=True), 200: {"description": "The page."}},
    summary="A source file as an HTML page: the target of citation links.",
)
def source_page(
    request: Request, path: str, generation: str | None = generation_query, lease: Lease = Depends(leased)
) -> HTMLResponse:
    view = _source(lease, path, generation)
    words = wording_for(lease.answerer.docset(), service_of(request).config.wording)
    return HTMLResponse(render_source_page(view, lease.answerer.generations(), words))


def _source(lease: Lease, path: str, generation: str | None) -> SourceView:
    profile = resolve_generation(generation, lease.answerer.generations())
    chunks = lease.answerer.source(path)
    if chunks is None:
        raise ApiError(404, "not_found", f"release {lease.release} has no source {path[:200]!r}")
    return source_view(lease.release, path, chunks, profile)


def _generation_infos(generations: list[Generation]) -> list[GenerationInfo]:
    return [GenerationInfo(name=g.name, label=g.label, labels=list(g.labels) or [g.label]) for g in generations]
