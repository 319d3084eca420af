"""Readers' feedback on answers: `POST /v1/feedback`, stored in the question log.

A reader rates one answer (the id the service sent in `X-Valid-Answer-Id`) up or down, with reason
tags from a fixed list and an optional short comment. A second rating of the same answer replaces
the first, so one reader clicking twice does not count twice. The comment is stored as typed and
escaped wherever it is shown (the `valid log report` dashboard).
"""

from __future__ import annotations

from typing import Callable, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator

Rating = Literal["up", "down"]
Reason = Literal["inaccurate", "wrong_version", "irrelevant_sources", "missing_content", "unclear", "helpful", "other"]
MAX_COMMENT_CHARS = 1000


class FeedbackRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"answer_id": "0" * 32, "rating": "down", "reasons": ["wrong_version"]}]},
    )

    answer_id: str = Field(pattern=r"^[0-9a-f]{32}$", description="From the ask response's X-Valid-Answer-Id header.")
    rating: Rating
    reasons: list[Reason] = Field(default_factory=list, max_length=7, description="Why; each tag at most once.")
    comment: str | None = Field(default=None, max_length=MAX_COMMENT_CHARS, description="Optional, as the reader typed it.")

    @field_validator("reasons")
    @classmethod
    def _unique(cls, reasons: list[str]) -> list[str]:
        return list(dict.fromkeys(reasons))


class FeedbackReceipt(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer_id: str
    rating: Rating
    reasons: list[Reason]
    comment: str | None
    recorded_at: str = Field(description="When it was stored (UTC, ISO 8601).")


def feedback_router(api_error: Callable[..., Exception], responses: dict, dependencies: list) -> APIRouter:
    """The route, raising the app's own error type (so every error has the one shape)."""
    router = APIRouter()

    @router.post(
        "/v1/feedback",
        response_model=FeedbackReceipt,
        responses=responses,
        dependencies=dependencies,
        summary="Rate one answer, with reasons and an optional comment.",
    )
    def feedback(request: Request, body: FeedbackRequest) -> FeedbackReceipt:
        store = request.app.state.conversations
        if store.answer(body.answer_id) is None:
            raise api_error(404, "not_found", f"no answer {body.answer_id} (the log may have been cleared)")
        comment = body.comment.strip() if body.comment and body.comment.strip() else None
        stamp = store.record_feedback(body.answer_id, body.rating, list(body.reasons), comment)
        return FeedbackReceipt(
            answer_id=body.answer_id, rating=body.rating, reasons=list(body.reasons), comment=comment, recorded_at=stamp
        )

    return router
