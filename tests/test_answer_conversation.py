"""Reading a follow-up in its conversation (valid.answer.conversation): pure functions over an
invented subject scheme, so nothing here depends on one doc set's names or wording."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from valid.answer.conversation import (
    MAX_QUESTION_CHARS,
    ConversationEnded,
    ConversationLimits,
    PriorTurn,
    UnknownConversation,
    follow_up,
    named_key,
    new_id,
    open_conversation,
    open_named_conversation,
    prior_turn,
    without_names,
)
from valid.questionlog.sqlite import QuestionLog
from valid.contracts import ProfileInfo

PROFILES = [
    ProfileInfo(name="atlas", labels=["Widget Atlas", "Atlas"], ditaval_digest="0" * 64),
    ProfileInfo(name="borealis", labels=["Widget Borealis", "Borealis"], ditaval_digest="1" * 64),
    ProfileInfo(name="cirrus", labels=["Widget Cirrus", "Cirrus"], ditaval_digest="2" * 64),
]
FIRST = PriorTurn(asked_as="I run Atlas. Which port does the sync daemon listen on?", generations=("atlas",))


def test_a_first_question_is_asked_as_it_is():
    asked = follow_up("Which port does the sync daemon listen on?", None, PROFILES, "atlas")
    assert (asked.question, asked.generation, asked.inherited, asked.uses_previous) == (
        "Which port does the sync daemon listen on?", ("atlas",), False, False)


@pytest.mark.parametrize("said", ["and on Borealis?", "What about Borealis?", "Borealis", "same for borealis please"])
def test_a_follow_up_that_only_names_a_generation_is_the_previous_question_for_it(said):
    asked = follow_up(said, FIRST, PROFILES)
    assert asked.question.startswith("Which port does the sync daemon listen on?")
    assert "Atlas" not in asked.question, "the previous generation's name is not carried over"
    assert asked.question.lower().endswith("borealis")
    assert asked.generation is None, "the new name decides the scope"
    assert asked.uses_previous and not asked.inherited


def test_a_follow_up_that_names_no_generation_inherits_the_previous_ones():
    asked = follow_up("How do I restart the sync daemon?", FIRST, PROFILES)
    assert asked.question == "How do I restart the sync daemon?"
    assert asked.generation == ("atlas",) and asked.inherited and not asked.uses_previous


def test_an_explicit_generation_replaces_the_inherited_one():
    asked = follow_up("How do I restart the sync daemon?", FIRST, PROFILES, "cirrus")
    assert asked.generation == ("cirrus",) and not asked.inherited


@pytest.mark.parametrize("said", ["which protocol for that?", "Is it encrypted?", "and the timeout?", "Timeout?"])
def test_a_follow_up_leaning_on_the_previous_question_gets_its_subject_after_its_own_words(said):
    asked = follow_up(said, FIRST, PROFILES)
    assert asked.question.startswith(said)
    assert "sync daemon" in asked.question and "Atlas" not in asked.question
    assert asked.generation == ("atlas",) and asked.uses_previous


@pytest.mark.parametrize(
    "said", ["and which log level does the installer use?", "which certificate?", "And how many retries are allowed?"]
)
def test_a_follow_up_asking_about_its_own_subject_inherits_the_scope_only(said):
    # A question of its own (an interrogative with its own words, no word pointing back) is asked
    # as written, in the conversation's generation: the previous subject would only compete with it.
    asked = follow_up(said, FIRST, PROFILES)
    assert asked.question == said, "the previous question's subject is not added"
    assert asked.generation == ("atlas",) and asked.inherited and not asked.uses_previous


def test_a_previous_turn_without_a_generation_gives_none_to_inherit():
    choice = PriorTurn(asked_as="Which port does the sync daemon listen on?", generations=())
    asked = follow_up("How do I restart it?", choice, PROFILES)
    assert asked.generation is None and not asked.inherited


def test_names_are_removed_with_the_sentences_they_leave_empty():
    assert without_names(FIRST.asked_as, PROFILES) == "Which port does the sync daemon listen on?"
    assert without_names("Does Widget Borealis sync?", PROFILES) == "Does sync?"


def test_a_long_conversation_never_composes_a_question_past_the_bound():
    turn = FIRST
    for _ in range(40):
        asked = follow_up("and what about that part of it?", turn, PROFILES)
        turn = PriorTurn(asked.question, turn.generations)
    assert len(turn.asked_as) <= MAX_QUESTION_CHARS


def started(store: QuestionLog, conversation_id: str, turns: int) -> None:
    store.start_conversation(conversation_id)
    for n in range(turns):
        store.add_turn({"answer_id": f"{conversation_id}-{n}", "conversation_id": conversation_id, "question_id": None,
                        "question": "q", "asked_as": f"q{n}", "generations": ["atlas"], "outcome": "answer",
                        "scope": ["atlas"]})


def test_open_conversation_gives_the_last_turn_and_enforces_the_bounds():
    with QuestionLog(":memory:") as store:
        issued = new_id()
        started(store, issued, 2)
        assert open_conversation(store, issued).previous == PriorTurn("q1", ("atlas",))
        with pytest.raises(ConversationEnded, match="2 turns"):
            open_conversation(store, issued, ConversationLimits(max_turns=2))
        later = datetime.now(timezone.utc) + timedelta(hours=2)
        with pytest.raises(ConversationEnded, match="older"):
            prior_turn(store, issued, ConversationLimits(max_age_s=3600), now=later)
        with pytest.raises(UnknownConversation):
            open_conversation(store, new_id())
        fresh = open_conversation(store, None)
        assert fresh.new and fresh.previous is None and len(fresh.conversation_id) == 32


def test_the_service_opens_only_ids_it_issues_and_named_conversations_live_apart():
    with QuestionLog(":memory:") as store:
        started(store, "c1", 1)  # in the store, but no id the service issued
        with pytest.raises(UnknownConversation):
            open_conversation(store, "c1")
        named = open_named_conversation(store, "c1")
        assert named.new and named.conversation_id == named_key("c1") != "c1"
        started(store, named.conversation_id, 1)
        assert open_named_conversation(store, "c1").previous == PriorTurn("q0", ("atlas",))
        with pytest.raises(UnknownConversation):
            open_conversation(store, named.conversation_id)
        with pytest.raises(UnknownConversation, match="a conversation id is"):
            open_named_conversation(store, "not an id")
