"""The HTTP contract (pydantic): requests, responses and the one error shape.

The answer object itself is the answer engine's `AnswerObject`; this module adds only what the
service needs around it. `docs/openapi.json` is generated from the app built on these models.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from valid.answer.models import Outcome

ErrorCode = Literal[
    "bad_request",  # 400: not valid HTTP/1.1 (answered by the service's edge)
    "unauthorized",  # 401: an admin route without the right bearer token
    "forbidden",  # 403: an admin route on a service bound beyond loopback with no admin token set
    "request_timeout",  # 408: the request's headers or body did not arrive in time
    "headers_too_large",  # 431: request headers over the size or count limit
    "invalid_request",  # 422: the body is not JSON or does not match AskRequest
    "question_too_long",  # 422: the question is longer than the service's limit
    "unknown_generation",  # 422: a generation the release's subject scheme does not define
    "body_too_large",  # 413
    "unsupported_media_type",  # 415: the body is not application/json
    "not_found",  # 404
    "method_not_allowed",  # 405
    "rate_limited",  # 429, with Retry-After
    "saturated",  # 503, with Retry-After: every answer slot and queue place is taken
    "not_ready",  # 503, with Retry-After: no verified release is loaded yet
    "timeout",  # 504: the answer took longer than the request timeout
    "internal",  # 500: a bug; details are in the server log, never in the response
    "conversation_ended",  # 409: the conversation reached its turn or age bound; start a new one
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(_Model):
    code: ErrorCode
    message: str = Field(description="One line a person can act on. Never a stack trace.")
    request_id: str = Field(description="Also in the X-Request-Id header and the server log.")


class ErrorBody(_Model):
    error: ErrorDetail


class _AskRequestBase(_Model):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"question": "I'm on Ironwood. Which --version do I pass when I create the VM?"}]
        },
    )

    @field_validator("question", check_fields=False)
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the question is empty")
        return value


def ask_request_model(max_question_chars: int) -> type[BaseModel]:
    """AskRequest with the service's question limit in its schema (so clients can see it)."""
    return create_model(
        "AskRequest",
        __base__=_AskRequestBase,
        question=(str, Field(min_length=1, max_length=max_question_chars, description="The reader's question.")),
        generation=(
            str | None,
            Field(
                default=None,
                max_length=64,
                description="A generation from the subject scheme: its profile name (tpu7x) or any name "
                "readers use for it (Ironwood). Given: added to the scope the question names. Omitted: the "
                "scope comes from the question alone.",
            ),
        ),
        conversation_id=(
            str | None,
            Field(
                default=None,
                pattern=r"^[A-Za-z0-9_-]{1,64}$",
                description="Continue this conversation (from X-Valid-Conversation-Id): the question may refer to "
                "the previous one and keeps its generation unless it names another. Omitted: a new conversation.",
            ),
        ),
    )


class GenerationInfo(_Model):
    name: str = Field(description="Profile name, the value to send as `generation`.")
    label: str = Field(description="Display name from the subject scheme.")
    labels: list[str] = Field(description="Every name readers use for it, display name first.")


class ReleaseInfo(_Model):
    release: str = Field(description="The release this service answers from now.")
    loaded_at: str = Field(description="When this service opened and verified it (UTC, ISO 8601).")
    generations: list[GenerationInfo]
    wording: dict[str, str] = Field(
        default_factory=dict,
        description="Every string the ask page shows, in the doc set's own words (valid.wording): the title and "
        "tagline from the map's title, the noun for a build, the hint and examples from the builds' names. "
        "Placeholders such as {names} are the page's to fill.",
    )


class QuestionStoreHealth(_Model):
    state: Literal["ok", "degraded"] = Field(
        description="degraded: the question store does not answer, or writes still wait in the local spool.")
    spooled: int = Field(description="Writes (questions, turns, feedback) waiting in the local spool for the store.")


class Health(_Model):
    status: Literal["ready"]
    release: str
    question_store: QuestionStoreHealth


class SourceChunkView(_Model):
    id: str
    anchor: str = Field(description="The part of the chunk id after '#': the element id on the source page.")
    title: str
    text: str
    breadcrumbs: list[str]
    line: int
    scope: list[str]


class SourceView(_Model):
    release: str
    path: str
    generation: str | None
    chunks: list[SourceChunkView] = Field(description="Chunks in document order (only the generation's, if given).")
    hidden: int = Field(description="Chunks of this source not shown because they are for other generations.")


class ConversationTurn(_Model):
    turn: int = Field(description="1, 2, ... in the order the turns were asked.")
    answer_id: str = Field(description="The answer's id (its X-Valid-Answer-Id): what feedback refers to.")
    asked_at: str = Field(description="When it was answered (UTC, ISO 8601).")
    question: str = Field(description="The words the reader typed.")
    asked_as: str = Field(description="The self-contained question the engine answered (a follow-up completed "
                                      "from the turn before it).")
    outcome: Outcome
    generations: list[str] = Field(description="The generations the turn was scoped to by name or choice: what "
                                               "the next turn inherits.")
    scope: list[str] = Field(description="The scope of the turn's answer object.")


class ConversationThread(_Model):
    conversation_id: str
    started_at: str = Field(description="When the first turn was asked (UTC, ISO 8601).")
    updated_at: str = Field(description="When the last turn was asked (UTC, ISO 8601).")
    expires_at: str = Field(description="The end of its age bound (UTC, ISO 8601): after it, reading the "
                                        "conversation is a 404 and a follow-up a 409.")
    ended: bool = Field(description="It reached its turn bound: a follow-up gets 409 conversation_ended.")
    turns: list[ConversationTurn] = Field(description="Oldest first; at most the service's turn bound (the latest).")
