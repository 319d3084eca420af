"""The service's side of conversations: where they are stored, and one turn run for a request.

Every answer the service gives is a turn of a conversation: a request without `conversation_id`
starts one. The ids go back in headers (`X-Valid-Conversation-Id`, `X-Valid-Answer-Id`), so the
body stays the answer object of `valid ask --json`. Conversations live in the question log; with
question logging off they live in memory only, and are forgotten after their age bound.
"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

from valid.answer.conversation import ConversationLimits, Opened, Turn, answer_turn
from valid.questionlog.sqlite import QuestionLog
from valid.questionlog.store import QuestionStore

CONVERSATION_HEADER = "x-valid-conversation-id"
ANSWER_HEADER = "x-valid-answer-id"
HEADERS_DOC = {
    "X-Valid-Conversation-Id": {
        "description": "The conversation this answer belongs to: send it as `conversation_id` to follow up.",
        "schema": {"type": "string"},
    },
    "X-Valid-Answer-Id": {
        "description": "This answer's id: send it to POST /v1/feedback.",
        "schema": {"type": "string"},
    },
}
_FORGET_EVERY = 100  # new conversations between two clean-ups of an in-memory store


def conversation_store(source) -> QuestionStore:
    """The release source's store (the question log, SQLite or PostgreSQL), or memory when it has none."""
    opener = getattr(source, "conversation_log", None)
    return opener() if opener is not None else QuestionLog(":memory:")


class TurnRunner:
    """Runs one turn in a worker thread: the follow-up reading, the answer, the stored turn."""

    def __init__(self, store: QuestionStore, limits: ConversationLimits):
        self.store = store
        self.limits = limits
        self._in_memory = store.in_memory
        self._started = itertools.count(1)

    def __call__(self, answerer, question: str, generation: str | None, opened: Opened, answer_id: str,
                 progress=None) -> Turn:
        if opened.new and self._in_memory and next(self._started) % _FORGET_EVERY == 0:
            cutoff = datetime.now(timezone.utc) - timedelta(seconds=self.limits.max_age_s)
            self.store.forget_conversations(cutoff.isoformat(timespec="milliseconds"))

        def ask(q, g, **among):
            return answerer.ask(q, g, **among, **({"progress": progress} if progress is not None else {}))

        return answer_turn(self.store, ask, answerer.generations(), question, generation, opened, answer_id)
