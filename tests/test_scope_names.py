"""Names claim a question only when they are names: a profile id spelt like ordinary words (json,
feedback, chemistry, license-server, author-x) never pulls its profile into a question's scope as a
bare or near-spelt word. Ids match as ids (exactly when they carry a digit, in code form, or through
--generation); readers' names come from the scheme or the configured labels, and only they match
with a one-letter slip."""

from __future__ import annotations

import pytest

from valid.answer.scope import resolve_scope
from valid.contracts import ProfileInfo


def profile(name: str, *labels: str) -> ProfileInfo:
    # An export gives a profile without labels its id as its only label.
    return ProfileInfo(name=name, labels=list(labels) or [name], ditaval_digest="0" * 64)


# A DITAVAL-only doc set: profile ids are the DITAVAL files' names, and nobody gave labels.
WORD_IDS = [profile("json"), profile("feedback"), profile("chemistry"), profile("license-server"), profile("author-x")]


@pytest.mark.parametrize(
    "question",
    [
        "How do I export the results as json?",
        "Where do I send feedback about a failed run?",
        "Which chemistry modules ship with the suite?",
        "Which port does the license server listen on?",
        "Which port does the license-server listen on?",
        "Can authors publish drafts?",  # one edit from "authorx"
        "Does the JSON export include comments?",
        "How do I give Feedback?",
    ],
)
def test_an_id_spelt_like_ordinary_words_does_not_claim_a_question(question):
    resolution = resolve_scope(question, WORD_IDS)
    assert resolution.profiles == [] and resolution.matched == []


@pytest.mark.parametrize(
    "question, claimed, text",
    [
        ("How do I install the `json` edition?", "json", "json"),
        ('Which port does "license-server" use?', "license-server", "license-server"),
        ("Is 'feedback' supported on Linux?", "feedback", "feedback"),
    ],
)
def test_an_id_in_code_form_claims_its_profile(question, claimed, text):
    resolution = resolve_scope(question, WORD_IDS)
    assert resolution.profiles == [claimed]
    assert resolution.matched == [text]


def test_code_form_must_spell_the_id_itself():
    assert resolve_scope("Can I read `jsonl` files?", WORD_IDS).profiles == []
    assert resolve_scope("What does `license server` mean?", WORD_IDS).profiles == []


def test_an_explicit_generation_selects_a_word_spelt_id():
    assert resolve_scope("How do I export the results as json?", WORD_IDS, generation="json").profiles == ["json"]


def test_configured_labels_are_readers_names_and_claim_questions():
    profiles = [
        profile("license-server", "Orbit License Server", "Orbit LS"),
        profile("studio", "Orbit Studio"),
    ]
    assert resolve_scope("Which port does Orbit License Server use?", profiles).profiles == ["license-server"]
    assert resolve_scope("Does orbit-studio run on Linux?", profiles).profiles == ["studio"]
    # The ids themselves still say nothing as bare words.
    assert resolve_scope("Which port does the license server use in the studio?", profiles).profiles == []


def test_only_readers_names_match_with_a_one_letter_slip():
    profiles = [profile("chemistry", "Benchtop"), profile("author-x", "Quillwright")]
    assert resolve_scope("Does Benchtap import spectra?", profiles).profiles == ["chemistry"]
    assert resolve_scope("Does Quilwright export PDF?", profiles).profiles == ["author-x"]
    assert resolve_scope("Can authors publish drafts?", profiles).profiles == []
    assert resolve_scope("Is chemestry covered?", profiles).profiles == []


def test_a_label_that_differs_from_its_id_is_a_name_even_when_it_is_one_word():
    # The scheme (or valid.toml) said readers call it "Chemistry": that is a reader's name.
    profiles = [profile("chemistry", "Chemistry"), profile("physics", "Physics")]
    assert resolve_scope("Which Chemistry modules ship?", profiles).profiles == ["chemistry"]


@pytest.mark.parametrize(
    "question, claimed",
    [
        ("How do I upgrade cli-2.4.1?", "cli-2.4.1"),
        ("How do I upgrade CLI 2.4.1 to the next release?", "cli-2.4.1"),
        ("Which flags does v5p take?", "v5p"),
        ("Create a v5p-128 slice", "v5p"),
    ],
)
def test_an_id_with_a_digit_still_matches_exactly_and_as_a_machine_type(question, claimed):
    profiles = [profile("cli-2.4.1"), profile("cli-2.3.0"), profile("v5p"), profile("v6e")]
    assert resolve_scope(question, profiles).profiles == [claimed]


def test_a_long_label_wins_over_the_shorter_label_it_starts_with():
    # A guide named by its full title (seven words) is that guide's build, not the product whose
    # name begins it, however long the title; the product set beside it is named too.
    profiles = [
        profile("server", "Orbit Server"),
        profile("server-guide", "Orbit Server Customization and Tuning Guide", "Server Tuning Guide"),
    ]
    question = "In the Orbit Server Customization and Tuning Guide, which file sets the cache size?"
    assert resolve_scope(question, profiles).profiles == ["server-guide"]
    both = "Which cache does Orbit Server use, and what does the Orbit Server Customization and Tuning Guide say?"
    assert resolve_scope(both, profiles).profiles == ["server", "server-guide"]


def test_a_build_named_only_inside_another_builds_name_is_that_builds_subject():
    # The guide documents the server: naming the server again asks the guide about it, not the
    # server's own build. Set side by side, both are named.
    profiles = [
        profile("server", "Orbit Server"),
        profile("server-guide", "Orbit Server Customization Guide", "Server Customization Guide"),
    ]
    ask = lambda q: resolve_scope(q, profiles).profiles  # noqa: E731
    assert ask("Server Customization Guide: how do I make Orbit Server open files read-only?") == ["server-guide"]
    assert ask("In the Orbit Server Customization Guide, what must two Orbit Server nodes share?") == ["server-guide"]
    assert ask("Which port does Orbit Server use, and which the Orbit Server Customization Guide?") == ["server", "server-guide"]
    assert ask("Orbit Server compared with the Server Customization Guide: which log level?") == ["server", "server-guide"]
    assert ask("Which port does Orbit Server use?") == ["server"]


def test_a_leading_label_that_names_builds_addresses_the_question_to_them():
    # "Engine: we own a Renderer license": the question is the engine's reader's, about the other
    # product's license; the renderer is what is asked about, not a scope of its own.
    profiles = [profile("engine", "Orbit Engine"), profile("renderer", "Orbit Renderer"), profile("viewer", "Orbit Viewer")]
    ask = lambda q: resolve_scope(q, profiles).profiles  # noqa: E731
    assert ask("Orbit Engine: we only own an Orbit Renderer license. Can we run the engine with it?") == ["engine"]
    assert ask("Orbit Engine and Orbit Viewer: which port does each use, and does Orbit Renderer need one?") == [
        "engine", "viewer"
    ]
    # Without a label naming a build, every build named is the question's.
    assert ask("We only own an Orbit Renderer license. Can we run Orbit Engine with it?") == ["engine", "renderer"]
    assert ask("Note: we own Orbit Renderer. Does Orbit Engine run with its license?") == ["engine", "renderer"]
    assert ask("Which port does Orbit Engine use, and which Orbit Renderer?") == ["engine", "renderer"]
