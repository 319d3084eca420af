"""What one service is configured with: `ServeConfig` (`valid serve` builds it from its flags and valid.toml)."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

from valid.answer.conversation import ConversationLimits
from valid.serve.limits import Limits
from valid.wording import WordingSettings

_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?$")


def check_origin(origin: str) -> str:
    """An origin as CSP and CORS want it (scheme://host[:port]); anything else could add directives."""
    if not _ORIGIN.match(origin):
        raise ValueError(f"not an origin: {origin[:80]!r} (use https://docs.example.com or http://localhost:8000)")
    return origin


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
    ready_needs_question_store: bool = Field(
        default=False, description="/healthz answers 503 while the question store is degraded (answers go on)."
    )
    embed_origins: tuple[str, ...] = Field(
        default=(), description="Origins that may show the ask page in a frame (CSP frame-ancestors); empty: none."
    )
    wording: WordingSettings = Field(
        default_factory=WordingSettings, description="The team's title, tagline and noun instead of the derived ones."
    )

    @field_validator("embed_origins")
    @classmethod
    def _origins(cls, origins: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(check_origin(o) for o in origins)
