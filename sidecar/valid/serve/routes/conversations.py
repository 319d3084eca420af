"""`GET /v1/conversations/{id}`: a conversation's thread, so the ask page can restore it after a reload.

The id is the capability, as for a follow-up: whoever holds it may read the thread and continue it.
Only ids the service issued are read (128 random bits); conversations the CLI named are not.
Only the store's `conversation()` and `turns()` are read, so every question store serves it.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from fastapi import APIRouter, Path, Request

from valid.answer.conversation import CONVERSATION_ID, ISSUED_ID, ConversationLimits, UnknownConversation
from valid.serve.errors import ApiError, responses
from valid.serve.schemas import ConversationThread, ConversationTurn
from valid.serve.service import service_of

router = APIRouter()


@router.get(
    "/v1/conversations/{conversation_id}",
    response_model=ConversationThread,
    responses=responses(404, 422, 500, 503),
    summary="A conversation's turns, oldest first: how the ask page restores its thread after a reload.",
)
def conversation(
    request: Request,
    conversation_id: str = Path(pattern=CONVERSATION_ID.pattern, description="From X-Valid-Conversation-Id."),
) -> ConversationThread:
    service = service_of(request)
    try:
        return conversation_thread(service.store, conversation_id, service.config.conversations)
    except UnknownConversation as err:
        raise ApiError(404, "not_found", str(err)) from None


def conversation_thread(store, conversation_id: str, limits: ConversationLimits,
                        now: datetime | None = None) -> ConversationThread:
    """A conversation as the ask page restores it: its latest turns, at most the turn bound. One
    past its age bound is gone for readers (UnknownConversation), as is an unknown one."""
    found = store.conversation(conversation_id) if ISSUED_ID.match(conversation_id) else None
    if found is None:
        raise UnknownConversation(f"no conversation {conversation_id[:64]!r} (it may have been forgotten)")
    expires = datetime.fromisoformat(found["started_at"]) + timedelta(seconds=limits.max_age_s)
    if (now or datetime.now(timezone.utc)) > expires:
        raise UnknownConversation(f"conversation {conversation_id} has expired (older than {limits.max_age_s:g} s)")
    turns = store.turns(conversation_id)[-limits.max_turns:]
    return ConversationThread(
        conversation_id=conversation_id,
        started_at=found["started_at"],
        updated_at=found["updated_at"],
        expires_at=expires.isoformat(timespec="milliseconds"),
        ended=found["turns"] >= limits.max_turns,
        turns=[ConversationTurn(**{k: t[k] for k in ConversationTurn.model_fields}) for t in turns],
    )
