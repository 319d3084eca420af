"""Questions about the versions themselves on the Corvane sample (five CLI releases, three agent
releases), through `valid.answer` as readers ask them: one test per kind, each claim cited.

The sample is exported and indexed once per session (offline embedder, real Chroma and FTS5)."""

from __future__ import annotations

import pytest

from valid.answer.wiring import open_engine
from valid.contracts import Chunk

CLI = ["cli-1.0.0", "cli-1.1.0", "cli-2.0.0", "cli-2.3.0", "cli-2.4.1"]
AGENT = ["agent-1.4.0", "agent-2.0.0", "agent-2.1.0"]


@pytest.fixture(scope="module")
def engine(corvane_build, tmp_path_factory):
    work = tmp_path_factory.mktemp("versions")
    with open_engine(corvane_build.state, issues_dir=work / "issues", log_path=work / "q.sqlite") as running:
        yield running


@pytest.fixture(scope="module")
def scopes(corvane_build):
    lines = corvane_build.export.read_text(encoding="utf-8").splitlines()[1:]
    return {c.id: set(c.in_scope()) for c in (Chunk.model_validate_json(line) for line in lines)}


def versions_of(engine, question):
    answer = engine.ask(question).answer
    assert answer.outcome == "versions", (answer.outcome, answer.refusal)
    assert answer.checks["passed"] is True
    return answer.versions


def cited_in_own_scope(versions, scopes):
    for piece in versions.evidence:
        if piece.cite is not None:
            assert piece.generation in scopes[piece.cite], piece


def test_the_documented_versions_of_one_product_are_listed_in_version_order_from_the_scheme(engine):
    v = versions_of(engine, "Which versions of Corvane Agent do you have documentation for?")
    assert (v.kind, v.product, v.versions) == ("list", "Corvane Agent", AGENT)
    assert all(piece.role == "scheme" and piece.cite is None for piece in v.evidence)


def test_a_count_names_the_number_and_every_version(engine):
    v = versions_of(engine, "How many releases of the Corvane CLI are there?")
    assert v.kind == "count" and v.versions == CLI and "5 Corvane CLI versions" in v.summary


def test_the_latest_and_the_oldest_follow_the_version_strings(engine):
    assert versions_of(engine, "What is the newest Corvane CLI release?").versions == ["cli-2.4.1"]
    assert versions_of(engine, "Which is the earliest Corvane Agent release?").versions == ["agent-1.4.0"]


def test_a_catalog_question_naming_no_product_asks_which_product(engine):
    answer = engine.ask("Which is the latest version?").answer
    assert answer.outcome == "ask"
    assert [c.generation for c in answer.choices] == ["cli-2.4.1", "agent-2.1.0"]
    assert [c.label for c in answer.choices] == ["Corvane CLI", "Corvane Agent"]


def test_a_documented_version_exists_and_an_undocumented_one_names_its_nearest(engine):
    yes = versions_of(engine, "Is Corvane CLI 2.0.0 documented?")
    assert (yes.verdict, yes.versions) == (True, ["cli-2.0.0"])
    no = versions_of(engine, "Does Corvane CLI 2.1 exist?")
    assert no.verdict is False and no.versions == ["cli-2.0.0", "cli-2.3.0"]
    assert "nearest" in no.summary and "Corvane CLI 2.3.0" in no.summary


def test_since_when_cites_the_first_build_with_it_and_the_last_one_without(engine, scopes):
    v = versions_of(engine, "Since which release can I use corvane prune?")
    assert (v.kind, v.versions) == ("since", ["cli-2.0.0", "cli-2.3.0"])
    roles = {piece.generation: piece.role for piece in v.evidence}
    assert roles == {"cli-2.0.0": "lacks", "cli-2.3.0": "has"}
    assert all(piece.cite for piece in v.evidence)
    cited_in_own_scope(v, scopes)


def test_until_when_cites_the_last_build_with_it_and_the_removal_notice_of_the_next(engine, scopes):
    v = versions_of(engine, "Which release removed corvane mirror?")
    assert (v.kind, v.versions) == ("until", ["cli-1.1.0", "cli-2.0.0"])
    notice = next(p for p in v.evidence if p.generation == "cli-2.0.0")
    assert notice.role == "notice" and "Removed" in notice.text
    # The deprecation notice of the build that still has it is shown as evidence too.
    assert any(p.generation == "cli-1.1.0" and "eprecated" in p.text for p in v.evidence)
    cited_in_own_scope(v, scopes)


def test_a_thing_in_a_middle_range_only_has_both_edges(engine, scopes):
    since = versions_of(engine, "Which Corvane Agent release introduced corvane-agent convert-config?")
    until = versions_of(engine, "Which Corvane Agent release removed corvane-agent convert-config?")
    assert since.versions == ["agent-1.4.0", "agent-2.0.0"] and until.versions == ["agent-2.0.0", "agent-2.1.0"]
    cited_in_own_scope(since, scopes)
    cited_in_own_scope(until, scopes)


def test_what_changed_in_a_release_puts_its_own_release_notes_first_then_the_parts_that_differ(engine, scopes):
    v = versions_of(engine, "What changed in Corvane CLI 2.3.0?")
    assert (v.kind, v.versions) == ("changed", ["cli-2.0.0", "cli-2.3.0"])
    assert v.evidence[0].role == "release-notes" and "corvane prune" in v.evidence[0].text
    assert any(piece.role == "change" for piece in v.evidence)
    cited_in_own_scope(v, scopes)


def test_the_same_in_every_version_is_one_answer_naming_the_builds_or_each_differing_value(engine, scopes):
    same = versions_of(engine, "Are the rules for vault names the same in every Corvane CLI release?")
    assert same.kind == "same" and same.verdict is True and same.versions == CLI
    differs = versions_of(engine, "Is the maximum file size the same in every Corvane CLI release?")
    assert differs.verdict is False
    said = {piece.generation: piece.text for piece in differs.evidence}
    assert "5 GiB" in said["cli-1.0.0"] and "50 GiB" in said["cli-2.3.0"] and "200 GiB" in said["cli-2.4.1"]
    cited_in_own_scope(differs, scopes)


def test_an_ordinary_question_still_gets_an_ordinary_answer(engine):
    answer = engine.ask("In Corvane CLI 2.4.1, what does --parallel default to?").answer
    assert answer.outcome == "answer" and answer.versions is None


def test_valid_ask_prints_the_kind_the_versions_and_every_citation(corvane_build):
    import json

    from click.testing import CliRunner

    from valid.cli import main

    question = "Which Corvane Agent release removed corvane-agent reload?"
    state = str(corvane_build.state)
    shown = CliRunner().invoke(main, ["ask", question, "--state", state, "--no-log"])
    assert shown.exit_code == 0, shown.output
    assert "About the versions (Corvane Agent): until which version" in shown.output
    assert "Versions: Corvane Agent 1.4.0, Corvane Agent 2.0.0" in shown.output
    assert "[agent/release-notes.dita#agent-release-notes/agent-notes-2.0.0]" in shown.output
    printed = CliRunner().invoke(main, ["ask", question, "--state", state, "--no-log", "--json"])
    body = json.loads(printed.output)
    assert body["outcome"] == "versions" and body["versions"]["kind"] == "until"


def test_a_version_chosen_outside_the_question_only_says_which_product_a_since_question_is_about(engine):
    answer = engine.ask("Since which release is the access token documented?", generation="agent-2.0.0").answer
    assert answer.outcome == "versions" and answer.versions.product == "Corvane Agent"
    asked = engine.ask("Since which release is the access token documented?").answer
    assert asked.outcome == "ask" and [c.generation for c in asked.choices] == ["cli-2.4.1", "agent-2.1.0"]
