"""`GET /v1/conversations/{id}`: a conversation's thread, so the ask page can restore it after a reload.

The id is the capability, as for a follow-up: whoever holds it may read the thread and continue it.
"""

from __future__ import annotations

from fastapi import APIRouter, Path, Request

from valid.answer.conversation import UnknownConversation
from valid.serve.conversations import conversation_thread
from valid.serve.errors import ApiError, responses
from valid.serve.schemas import ConversationThread
from valid.serve.service import service_of

router = APIRouter()


@router.get(
    "/v1/conversations/{conversation_id}",
    response_model=ConversationThread,
    responses=responses(404, 422, 500),
    summary="A conversation's turns, oldest first: how the ask page restores its thread after a reload.",
)
def conversation(
    request: Request,
    conversation_id: str = Path(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="From X-Valid-Conversation-Id."),
) -> ConversationThread:
    service = service_of(request)
    try:
        return conversation_thread(service.store, conversation_id, service.config.conversations)
    except UnknownConversation as err:
        raise ApiError(404, "not_found", str(err)) from None
