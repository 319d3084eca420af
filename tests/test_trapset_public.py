"""The blind trap sets for public doc sets (tests/trapsets/): every file loads, names only profiles its
doc set's configuration declares, and a reserve (`-roundN`) is all test split, covers the blind strata,
carries its round's id prefix and asks facts no earlier file of its doc set asks."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from valid.evaluate.trapset import TrapQuestion, load_trapset

FOLDER = Path(__file__).parent / "trapsets"
SETS = sorted(FOLDER.glob("*.jsonl"))
RESERVE = re.compile(r"^(?P<doc_set>.+)-round(?P<round>\d+)$")
# A doc set's first file written blind like a reserve, with the project round it was written in.
BLIND_FIRST = {"impala-docs": 7}
# The strata a blind reserve is written over (issue 25, item 7).
BLIND_STRATA = {"scoped", "absent", "unscoped", "shared", "two-generation", "out-of-domain"}


def doc_set(path: Path) -> str:
    match = RESERVE.match(path.stem)
    return match["doc_set"] if match else path.stem


def round_of(path: Path) -> int:
    match = RESERVE.match(path.stem)
    return int(match["round"]) if match else BLIND_FIRST.get(path.stem, 1)


def profiles_of(path: Path) -> set[str]:
    config = tomllib.loads((FOLDER / f"{doc_set(path)}.toml").read_text(encoding="utf-8"))
    return set(config["labels"])


def named_profiles(question: TrapQuestion) -> set[str]:
    expect = question.expect
    return (
        set(expect.scope)
        | set(expect.choices)
        | set(expect.values)
        | set(expect.differences)
        | set(expect.wrong_side)
        | set(expect.available)
        | set(expect.versions)
        | set(expect.cited)
    )


def earlier_facts(path: Path) -> set[str]:
    """The facts the files of the same doc set from earlier rounds ask."""
    facts: set[str] = set()
    for other in SETS:
        if doc_set(other) == doc_set(path) and round_of(other) < round_of(path):
            facts |= {q.fact for q in load_trapset(other) if q.fact}
    return facts


RESERVES = [path for path in SETS if RESERVE.match(path.stem) or path.stem in BLIND_FIRST]


def test_the_folder_holds_the_main_files_and_their_reserves():
    assert {doc_set(path) for path in SETS} == {"dita-ot-docs", "oxygen-userguide", "impala-docs"}
    for name in ("dita-ot-docs", "oxygen-userguide"):
        rounds = {2, 3, 4, 5, 6, 7} | ({8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26} if name == "oxygen-userguide" else {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25})
        assert {round_of(path) for path in RESERVES if doc_set(path) == name} >= rounds, name
    assert {round_of(path) for path in RESERVES if doc_set(path) == "impala-docs"} >= {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26}


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_every_profile_a_question_names_is_a_profile_of_its_doc_set(path):
    profiles = profiles_of(path)
    unknown = {q.id: sorted(named_profiles(q) - profiles) for q in load_trapset(path) if named_profiles(q) - profiles}
    assert not unknown


@pytest.mark.parametrize("path", RESERVES, ids=lambda p: p.name)
def test_a_reserve_is_all_test_split_over_every_blind_stratum_with_at_least_forty_questions(path):
    questions = load_trapset(path)
    assert len(questions) >= 40
    assert {q.split for q in questions} == {"test"}
    assert {q.stratum for q in questions} == BLIND_STRATA


@pytest.mark.parametrize("path", RESERVES, ids=lambda p: p.name)
def test_a_reserve_carries_its_round_in_every_id(path):
    prefix = f"r{round_of(path)}-"
    assert [q.id for q in load_trapset(path) if not q.id.startswith(prefix)] == []


@pytest.mark.parametrize("path", RESERVES, ids=lambda p: p.name)
def test_a_reserve_answers_only_facts_no_earlier_file_of_its_doc_set_asks(path):
    # An absent question may reuse a fact on purpose: it asks a build that lacks what an earlier
    # question asked of a build that has it (see the README on the DITA-OT docs' round 2).
    seen = earlier_facts(path)
    reused = sorted({q.fact for q in load_trapset(path) if q.fact in seen and q.stratum != "absent"})
    assert reused == []


@pytest.mark.parametrize("path", RESERVES, ids=lambda p: p.name)
def test_a_reserve_answers_in_scope_and_asks_back_only_among_builds_that_hold_an_answer(path):
    for q in load_trapset(path):
        expect = q.expect
        if expect.outcome == "answer":
            assert expect.scope and set(expect.values) == set(expect.scope), q.id
        if expect.outcome == "ask":
            assert len(expect.choices) >= 2 and set(expect.values) == set(expect.choices), q.id
        if q.stratum == "shared":
            assert len(expect.scope) >= 2, q.id
