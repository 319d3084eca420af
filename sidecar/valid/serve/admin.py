"""Admin routes: `/metrics` and `POST /v1/admin/reload`, behind a token when bound beyond loopback.

- With `admin_token` set, every admin route needs `Authorization: Bearer <token>` (401 without it,
  compared in constant time).
- Without a token, admin routes are open only when the service listens on loopback
  (`admin_open=True`, what `valid serve` sets for 127.0.0.1, ::1 or localhost); bound beyond
  loopback they answer 403 until a token is configured (`--admin-token` or VALID_ADMIN_TOKEN).

Probes (`/healthz`) are not admin routes: a load balancer needs them without a secret.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
from typing import Callable

from fastapi import Depends, FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field


class ReloadResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    changed: bool = Field(description="True when another release is being served now.")
    release: str | None = Field(description="The release being served after the reload.")
    error: str | None = Field(description="Why the active release could not be opened (the old one keeps serving).")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def admin_guard(token: str | None, open_without_token: bool, error: Callable[..., Exception]):
    """A FastAPI dependency that lets a request through to an admin route, or raises `error(...)`."""
    expected = token.encode() if token else None

    def guard(request: Request) -> None:
        if expected is None:
            if open_without_token:
                return
            raise error(403, "forbidden", "admin routes need a token when the service is bound beyond loopback: "
                                          "start it with --admin-token (or VALID_ADMIN_TOKEN)")
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected):
            raise error(401, "unauthorized", "this admin route needs Authorization: Bearer <admin token>")

    return guard


def add_admin_routes(app: FastAPI, guard, responses: dict) -> None:
    # The route reads the release holder from the app, not from a closure: FastAPI keeps every
    # endpoint it has classified in a process-wide cache (fastapi.dependencies.models), so a
    # closure over the holder kept each app's releases and embedder alive after the app stopped.
    @app.post(
        "/v1/admin/reload",
        response_model=ReloadResult,
        responses=responses,
        dependencies=[Depends(guard)],
        summary="Re-read the active pointer now; open and verify a newly activated release before serving it.",
    )
    async def reload(request: Request) -> ReloadResult:
        holder = request.app.state.holder
        changed = await asyncio.to_thread(holder.check, retry_failed=True)
        status = holder.status()
        return ReloadResult(changed=changed, release=status.release, error=None if changed else status.last_error)
