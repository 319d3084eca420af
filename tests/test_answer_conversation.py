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


# Two products of one vendor, each released in several versions (as a versioned doc set names them).
RELEASES = [
    ProfileInfo(name="app-1.0.0", labels=["Widget App 1.0.0", "Widget 1.0.0"], ditaval_digest="3" * 64),
    ProfileInfo(name="app-2.0.0", labels=["Widget App 2.0.0", "Widget 2.0.0", "Harbor"], ditaval_digest="4" * 64),
    ProfileInfo(name="daemon-1.0.0", labels=["Widget Daemon 1.0.0"], ditaval_digest="5" * 64),
    ProfileInfo(name="daemon-2.0.0", labels=["Widget Daemon 2.0.0"], ditaval_digest="6" * 64),
]
ASKED = PriorTurn(asked_as="How do I sign in?", generations=(), choices=("app-2.0.0", "daemon-2.0.0"))


@pytest.mark.parametrize(
    "reply, picked",
    [
        ("Daemon", "daemon-2.0.0"),  # the product alone
        ("the daemon", "daemon-2.0.0"),
        ("App", "app-2.0.0"),
        ("Widget Daemon 2.0.0", "daemon-2.0.0"),  # the label
        ("daemon-2.0.0", "daemon-2.0.0"),  # the id
        ("Harbor", "app-2.0.0"),  # another name of it
    ],
)
def test_a_reply_that_picks_an_offered_choice_by_any_of_its_names_answers_the_question(reply, picked):
    asked = follow_up(reply, ASKED, RELEASES)
    assert asked.question == "How do I sign in?", "the question asked before the choice is kept"
    assert asked.generation == (picked,) and asked.uses_previous and asked.among is None


def test_a_reply_that_picks_by_version_alone_answers_for_the_offered_choice_with_that_version():
    offered = PriorTurn(asked_as="How do I sign in?", generations=(), choices=("app-1.0.0", "app-2.0.0"))
    asked = follow_up("2.0.0", offered, RELEASES)
    assert asked.question == "How do I sign in?" and asked.generation == ("app-2.0.0",), (
        "the daemon has a 2.0.0 too, but it was not offered")


def test_a_reply_naming_no_offered_choice_is_not_read_as_a_pick():
    for reply in ["Widget Daemon 1.0.0", "Daemon 9.0.0"]:  # one not offered; a version none has
        asked = follow_up(reply, ASKED, RELEASES)
        assert asked.generation is None and asked.among is None


def test_a_reply_that_matches_several_offered_choices_asks_again_among_those_only():
    offered = PriorTurn(asked_as="How do I sign in?", generations=(), choices=tuple(p.name for p in RELEASES))
    for reply, among in [("2.0.0", ("app-2.0.0", "daemon-2.0.0")), ("the App", ("app-1.0.0", "app-2.0.0"))]:
        asked = follow_up(reply, offered, RELEASES)
        assert asked.question == "How do I sign in?", "the question is kept"
        assert asked.generation is None and asked.among == among


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


def test_a_log_written_before_turns_kept_their_choices_opens_and_keeps_them_from_then_on(tmp_path):
    import sqlite3

    path = tmp_path / "questions.sqlite"
    with sqlite3.connect(path) as db:  # the turns table as schema 2 first shipped it
        db.execute("CREATE TABLE conversations (id TEXT PRIMARY KEY, started_at TEXT NOT NULL, "
                   "updated_at TEXT NOT NULL, turns INTEGER NOT NULL)")
        db.execute("CREATE TABLE turns (answer_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, "
                   "turn INTEGER NOT NULL, question_id INTEGER, asked_at TEXT NOT NULL, question TEXT NOT NULL, "
                   "asked_as TEXT NOT NULL, generations TEXT NOT NULL, outcome TEXT NOT NULL, scope TEXT NOT NULL, "
                   "UNIQUE (conversation_id, turn))")
        db.execute("INSERT INTO conversations VALUES ('c', '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00', 1)")
        db.execute("INSERT INTO turns VALUES ('a', 'c', 1, NULL, 't', 'q', 'q', '[]', 'ask', '[]')")
        db.execute("PRAGMA user_version = 2")
    with QuestionLog(path) as store:
        assert store.turns("c")[0]["choices"] == [], "an older turn offered nothing known"
        store.add_turn({"answer_id": "b", "conversation_id": "c", "question": "q", "asked_as": "q", "generations": [],
                        "outcome": "ask", "scope": [], "choices": ["atlas", "cirrus"]})
        assert prior_turn(store, "c", ConversationLimits(max_age_s=1e12)).choices == ("atlas", "cirrus")
