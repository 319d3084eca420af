"""Request dependencies the routes share: JSON bodies only, the per-client rate limit, the lease on
the served release, and a generation named the way readers name it."""

from __future__ import annotations

import math
import re
from typing import Iterator

from fastapi import Request

from valid.serve.answerer import Generation
from valid.serve.errors import ApiError
from valid.serve.releases import Lease
from valid.serve.service import service_of


def require_json(request: Request) -> None:
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        raise ApiError(415, "unsupported_media_type", "send the body as application/json")


def rate_limited(request: Request) -> None:
    """Keyed on the client address (a trusted proxy's X-Forwarded-For already applied by the edge)."""
    client = request.client.host if request.client else "unknown"
    wait = service_of(request).rate.take(client)
    if wait > 0:
        raise ApiError(429, "rate_limited", "too many questions from this client; try again later",
                       retry_after=max(1, math.ceil(wait)))


def lease_current(request: Request) -> Lease:
    """A lease on the release being served now; the caller ends it."""
    holder = service_of(request).holder
    lease = holder.acquire()
    if lease is None:
        status = holder.status()
        why = status.last_error or "the active release is still loading"
        raise ApiError(503, "not_ready", f"not ready: {why}", retry_after=1)
    request.scope["valid.release"] = lease.release
    return lease


def leased(request: Request) -> Iterator[Lease]:
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


def _normal(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())
