"""Conversations: a follow-up question read in the context of the turn before it.

The answer engine answers one self-contained question. A conversation turns a follow-up into
such a question *before* the engine sees it, from two inputs only: the follow-up's own words and
the previous turn (what it was asked as, and the generations it was scoped to). Nothing here looks
at the engine's internals, and nothing names a doc set's wording:

- **Scope.** A follow-up that names a generation (or an unknown one) is scoped by its own words;
  one that does not, and gives no explicit generation, inherits the generations of the turn before.
- **Subject.** A follow-up that says nothing but a generation ("and on v6e?", "what about the
  other one, Trillium?") is the previous question asked again for that generation: the previous
  question with its generation names removed, plus the names the follow-up gave. A follow-up with
  words of its own that leans on the previous turn keeps its own words first and gets the previous
  question's subject after them: one with a referring word ("that", "it"), and an elliptical one, a
  fragment with no question of its own ("and the timeout?", "Timeout?"). A follow-up that is a
  question of its own (an interrogative such as "which" or "how" heads it, after any "and" or "what
  about") is asked as written, in the inherited scope: its own subject wins, and the previous one
  would only compete with it. Anything else is a new question in the same scope.
- **A reply to a choice.** After a turn that asked which generation, a reply that names only some
  of the offered generations, by any of their names (a product alone, a version alone, a label, an
  id), is the question asked before the choice: answered for the one it picks, or asked again among
  only the offered ones it matches ("2.0.0" when both products have one). The offered generations
  are stored with the turn (`choices`).

Conversations are bounded: at most `max_turns` turns, and none continues past `max_age_s` after it
started. Turns are stored with the question log (`valid.questionlog.sqlite`), each naming its question row.

Two namespaces share that store. The service issues its ids (128 random bits, `new_id`) and opens
only ids of that form, so an id is a capability nobody can guess (`open_conversation`). The CLI
names its own (`valid ask --conversation vm-help`), stored under a prefix no issued id has
(`open_named_conversation`): a name chosen by hand is never reachable over HTTP, and a CLI name
that happens to look like an issued id is still the CLI's own.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from valid.answer import cues
from valid.answer.question import question_words
from valid.answer.scope import resolve_scope
from valid.answer.models import ScopeResolution
from valid.contracts import ProfileInfo
from valid.errors import ValidError

# Words that point back at the previous turn, openings that continue it, the words that head a
# question of its own and the words around a build's name that say nothing: valid.answer.cues.
REFERRING = cues.REFERRING.words | cues.POINTING_BACK.words
INTERROGATIVES = cues.INTERROGATIVES.words
FILLER = cues.FOLLOW_UP_FILLER.words
# A composed question never grows past this (a long conversation keeps its most recent subject).
MAX_QUESTION_CHARS = 1000
CONVERSATION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ISSUED_ID = re.compile(r"^[0-9a-f]{32}$")  # what new_id() gives: the only ids the service opens
NAMED_PREFIX = "cli:"  # the CLI's names are stored under it (":" is in no id the service accepts)


class ConversationLimits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_turns: int = Field(default=20, ge=1, description="Turns a conversation may have.")
    max_age_s: float = Field(default=24 * 3600.0, gt=0, description="Seconds after its start a conversation ends.")


class UnknownConversation(ValidError):
    """A conversation id the store does not hold (never started, or forgotten)."""


class ConversationEnded(ValidError):
    """A conversation that reached its turn or age bound: start a new one."""


@dataclass(frozen=True)
class PriorTurn:
    asked_as: str  # the self-contained question the engine answered
    generations: tuple[str, ...]  # the profiles that turn was scoped to by name or choice
    choices: tuple[str, ...] = ()  # the generations that turn offered to choose from (it asked)


@dataclass(frozen=True)
class FollowUp:
    question: str  # what the engine is asked
    generation: tuple[str, ...] | None  # explicit scope for the engine (None: from the question's words)
    inherited: bool  # the scope came from the previous turn
    uses_previous: bool  # the question took its subject from the previous turn
    among: tuple[str, ...] | None = None  # no generation named: choose among these only (a reply matching several)


def without_names(question: str, profiles: Sequence[ProfileInfo]) -> str:
    """The question with the words that named its generations removed."""
    resolution = resolve_scope(question, profiles)
    text = question
    for name in sorted({*resolution.matched, *resolution.unknown}, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", text)
    # A sentence left with nothing but small words ("I'm on .") is dropped.
    sentences = re.findall(r"[^.?!]+[.?!]*", text)
    kept = [s for s in sentences if question_words(s)] or sentences
    return " ".join(" ".join(kept).split())


def follow_up(
    question: str,
    previous: PriorTurn | None,
    profiles: Sequence[ProfileInfo],
    generation: str | Sequence[str] | None = None,
) -> FollowUp:
    """The self-contained question and scope for `question`, asked after `previous` (pure)."""
    explicit = (generation,) if isinstance(generation, str) else (tuple(generation) if generation else None)
    if previous is None:
        return FollowUp(question, explicit, inherited=False, uses_previous=False)
    own = resolve_scope(question, profiles)
    names_scope = bool(own.profiles or own.unknown or own.candidates)
    if explicit or names_scope:
        scope, inherited = explicit, False
    else:
        scope, inherited = (previous.generations or None), bool(previous.generations)
    names = [*own.matched, *own.unknown, *(n for p in profiles for n in (p.name, *p.labels))]
    words = [w for w in question_words(question, names) if w not in FILLER]
    tokens = set(re.findall(r"[a-z]+", question.lower()))
    subject = without_names(previous.asked_as, profiles)
    if not words and not explicit and (picked := offered_picked(own, previous)):
        # A reply to a choice, by any name of the offered generations (a product alone, a version
        # alone, a label, an id): the question asked before the choice, for the one it picks, or
        # asked again among those it matches.
        one = len(picked) == 1
        return FollowUp(_bounded(previous.asked_as), picked if one else None, inherited=False, uses_previous=True,
                        among=None if one else picked)
    if not words:
        # Only a generation (or nothing): the previous question again, for what this one names.
        asked = f"{subject} {' '.join([*own.matched, *own.unknown])}".strip() if names_scope else subject
        return FollowUp(_bounded(asked), scope, inherited, uses_previous=True)
    elliptical = (cues.OPENING.search(question) or len(words) == 1) and not asks_its_own(question)
    if tokens & REFERRING or elliptical:
        return FollowUp(_bounded(f"{question.strip()} {subject}"), scope, inherited, uses_previous=True)
    return FollowUp(question, scope, inherited, uses_previous=False)


def offered_picked(own: ScopeResolution, previous: PriorTurn) -> tuple[str, ...]:
    """The generations the previous turn offered that a reply's names pick: those it names, or,
    when its names leave several ("Agent": every release of the agent), the offered ones of them."""
    if own.unknown:
        return ()  # it also names a generation the scheme lacks: refused as such, not read as a pick
    named = set(own.profiles) or set(own.candidates)
    return tuple(p for p in previous.choices if p in named)


def asks_its_own(question: str) -> bool:
    """The follow-up is a question of its own: past the openings that only continue the
    conversation ("and", "what about"), an interrogative heads it ("and which flag do I pass?"),
    where an elliptical one is a bare fragment ("and the timeout?")."""
    text = question
    while (opening := cues.OPENING.pattern.match(text)) and opening.end():
        text = text[opening.end():]
    first = re.match(r"[a-z]+", text.lstrip().lower())
    return bool(first) and first.group(0) in INTERROGATIVES


def _bounded(text: str) -> str:
    if len(text) <= MAX_QUESTION_CHARS:
        return text
    return text[:MAX_QUESTION_CHARS].rsplit(" ", 1)[0]


def new_id() -> str:
    return uuid.uuid4().hex


@dataclass
class Turn:
    """One answered turn, as a caller reports it."""

    conversation_id: str
    answer_id: str
    turn: int
    follow: FollowUp
    result: object  # what `ask` returned


def prior_turn(store, conversation_id: str, limits: ConversationLimits, now: datetime | None = None) -> PriorTurn | None:
    """The last turn of a conversation that may go on; raises when it is unknown or has ended."""
    found = store.conversation(conversation_id)
    if found is None:
        raise UnknownConversation(f"no conversation {conversation_id[:64]!r} (it may have been forgotten); start a new one")
    started = datetime.fromisoformat(found["started_at"])
    now = now or datetime.now(timezone.utc)
    if found["turns"] >= limits.max_turns:
        raise ConversationEnded(f"conversation {conversation_id} has reached {limits.max_turns} turns; start a new one")
    if now - started > timedelta(seconds=limits.max_age_s):
        raise ConversationEnded(f"conversation {conversation_id} is older than {limits.max_age_s:g} s; start a new one")
    turns = store.turns(conversation_id)
    if not turns:
        return None
    last = turns[-1]
    return PriorTurn(asked_as=last["asked_as"], generations=tuple(last["generations"]),
                     choices=tuple(last.get("choices") or ()))


@dataclass(frozen=True)
class Opened:
    """A conversation about to get its next turn."""

    conversation_id: str
    new: bool  # not stored yet: answer_turn starts it
    previous: PriorTurn | None


def open_conversation(store, conversation_id: str | None, limits: ConversationLimits = ConversationLimits()) -> Opened:
    """The service's: no id, a new conversation with a new id; an id it issued, its last turn
    (raises if it has ended). Any other id, even one the store holds, is UnknownConversation."""
    if conversation_id is None:
        return Opened(new_id(), True, None)
    if not ISSUED_ID.match(conversation_id):
        raise UnknownConversation(f"no conversation {conversation_id[:64]!r} (it may have been forgotten); start a new one")
    return Opened(conversation_id, False, prior_turn(store, conversation_id, limits))


def open_named_conversation(store, name: str, limits: ConversationLimits = ConversationLimits()) -> Opened:
    """The CLI's: the conversation it named `name`, started when new, apart from the service's."""
    if not CONVERSATION_ID.match(name):
        raise UnknownConversation("a conversation id is 1-64 letters, digits, '-' or '_'")
    key = named_key(name)
    if store.conversation(key) is None:
        return Opened(key, True, None)
    return Opened(key, False, prior_turn(store, key, limits))


def named_key(name: str) -> str:
    """Where the CLI's conversation `name` is stored."""
    return f"{NAMED_PREFIX}{name}"


def answer_turn(
    store,
    ask: Callable[[str, tuple[str, ...] | None], object],
    profiles: Sequence,
    question: str,
    generation: str | Sequence[str] | None,
    opened: Opened,
    answer_id: str | None = None,
) -> Turn:
    """Ask `question` as the next turn of `opened` and store the turn.

    `ask(question, generation)` returns an object with `.answer` (an answer object, model or dict)
    and `.log_id` (its question-log row, or None); a reply matching several offered choices calls
    `ask(question, None, among=choices)`. `profiles` need `.name` and `.labels`.
    """
    follow = follow_up(question, opened.previous, profiles, generation)
    result = ask(follow.question, follow.generation, among=follow.among) if follow.among else ask(
        follow.question, follow.generation)
    answer = result.answer if isinstance(result.answer, dict) else result.answer.model_dump(mode="json")
    resolved = resolve_scope(follow.question, profiles, follow.generation).profiles
    if opened.new:
        store.start_conversation(opened.conversation_id)
    answer_id = answer_id or new_id()
    number = store.add_turn(
        {
            "answer_id": answer_id,
            "conversation_id": opened.conversation_id,
            "question_id": getattr(result, "log_id", None),
            "question": question,
            "asked_as": follow.question,
            "generations": list(resolved),
            "outcome": answer["outcome"],
            "scope": answer["scope"],
            "choices": [c["generation"] for c in answer.get("choices") or ()],
        }
    )
    return Turn(conversation_id=opened.conversation_id, answer_id=answer_id, turn=number, follow=follow, result=result)
