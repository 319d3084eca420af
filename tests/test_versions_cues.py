"""The cue table that says a question is about the versions themselves, and which kind: examples
that must match (with their kind) and ordinary questions that must not."""

from __future__ import annotations

import pytest

from valid.answer.versions_cues import CUES, subject_runs, subject_words, versions_kind

MUST = [
    ("Which versions of Acme Server are documented?", "list"),
    ("what releases does this manual cover", "list"),
    ("How many generations are covered?", "count"),
    ("What is the most recent release of the SDK?", "latest"),
    ("Which is the earliest version you know?", "oldest"),
    ("Does Acme 5.2 exist?", "exists"),
    ("Is version 7 documented?", "exists"),
    ("Since which release can I use bulk import?", "since"),
    ("Which version introduced the audit log?", "since"),
    ("When was the REST API added?", "since"),
    ("Starting with which version is SSO supported?", "since"),
    ("Until which version was the legacy exporter available?", "until"),
    ("Which release removed the --fast flag?", "until"),
    ("When was XML output deprecated?", "until"),
    ("What's new in 3.5.5?", "changed"),
    ("What changed in Acme Server 8.3.2?", "changed"),
    ("Release notes for 2.0?", "changed"),
    ("Is the default port the same in every release?", "same"),
    ("Does the login flow stay the same across all versions?", "same"),
]
MUST_NOT = [
    "How do I create a vault?",
    "What is the default value of --parallel?",
    "Which glibc is required on Linux?",
    "How large can one file be?",
    "What does corvane verify check?",
    "Which command restores a directory?",
]


@pytest.mark.parametrize(("question", "kind"), MUST)
def test_a_question_about_the_versions_is_recognised_with_its_kind(question, kind):
    assert versions_kind(question) == kind


@pytest.mark.parametrize("question", MUST_NOT)
def test_an_ordinary_question_is_not_a_versions_question(question):
    assert versions_kind(question) is None


def test_every_cue_is_one_row_of_the_declared_table_with_a_known_kind():
    kinds = {"list", "count", "latest", "oldest", "exists", "since", "until", "changed", "same"}
    assert {kind for kind, _ in CUES} == kinds


def test_the_subject_is_what_is_left_once_names_and_cue_words_are_out_and_code_words_stay_whole():
    assert subject_words("Which Acme CLI release added --dry-run?", ["Acme CLI"]) == ["--dry-run"]
    assert subject_words("Since when is ACME_HOME supported?", []) == ["ACME_HOME"]
    assert subject_words("What's the oldest version of Acme?", ["Acme"]) == []
    assert subject_words("Is the maximum file size the same in every Acme release?", ["Acme"]) == ["maximum", "file", "size"]
    assert subject_runs("Which Acme release added --keep-within to acme prune?", ["Acme"]) == [["--keep-within"], ["prune"]]
