"""Every cue that reads a question's wording is one entry of one table (valid.answer.cues), with
examples it must match and examples it must not: one parametrised test runs them all."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import valid
from valid.answer import cues

ENTRIES = {entry.name: entry for entry in cues.TABLE}


def test_every_cue_has_a_unique_name_a_meaning_and_an_example_it_must_match():
    assert len(ENTRIES) == len(cues.TABLE)
    for entry in cues.TABLE:
        assert entry.means and entry.matches, entry.name


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_each_cue_matches_its_examples_and_misses_its_counter_examples(name):
    entry = ENTRIES[name]
    assert [e for e in entry.matches if not entry.holds(e)] == [], f"{name}: must match"
    assert [e for e in entry.misses if entry.holds(e)] == [], f"{name}: must not match"


def test_the_versions_cues_keep_their_order_and_kinds():
    kinds = [kind for kind, _ in cues.VERSIONS]
    assert kinds[0] == "same" and kinds[-1] == "exists"
    assert set(kinds) == {"list", "count", "latest", "oldest", "exists", "since", "until", "changed", "same"}


# The modules that read a question take their cues from the table; they declare no word list of
# their own (frozenset of words): a new vocabulary goes into valid.answer.cues, with examples.
READERS = ("question.py", "reading.py", "compare.py", "versions_cues.py", "conversation.py")


@pytest.mark.parametrize("module", READERS)
def test_a_question_reader_declares_no_word_list_of_its_own(module):
    path = Path(valid.__file__).parent / "answer" / module
    lists = [
        f"{module}:{node.lineno}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "frozenset"
        and node.args and isinstance(node.args[0], ast.Call) and getattr(node.args[0].func, "attr", None) == "split"
    ]
    assert not lists, lists
