"""Out of domain: a question with a word no build's content writes (not even one edit away), and not
near any content in meaning, is refused, however many ordinary words it shares with the doc set
(issue 25 item 3). The Cloud TPU sample, exported and indexed for real (tests/conftest.py)."""

from __future__ import annotations

import pytest
from fixtures.answer.index import offline_embedder

from valid.answer.domain import doc_terms, foreign_terms
from valid.answer.wiring import open_engine


@pytest.fixture(scope="module")
def sample(sample_build, tmp_path_factory):
    issues = tmp_path_factory.mktemp("issues")
    with open_engine(sample_build.state, embedder=offline_embedder(), issues_dir=issues, log=False) as engine:
        yield engine


def test_a_word_no_chunk_writes_is_foreign_but_not_its_typo_a_form_of_a_written_word_or_a_build_name():
    known = doc_terms(["The", "chips", "slice", "v6e-8", "logs", "sent", "send", "VM", "TPU"])
    assert foreign_terms("Can a TPU VM send its logs by fax?", known) == {"fax"}
    assert foreign_terms("How many chpis does a slice have?", known) == frozenset()  # a typo of "chips"
    assert foreign_terms("Which slices send logs?", known) == frozenset()  # forms of written words
    assert foreign_terms("Which chip is used?", doc_terms(["use", "chips"])) == frozenset()  # "used": "use"
    assert foreign_terms("Does Trillium send logs?", known, names=["Trillium"]) == frozenset()
    assert foreign_terms("Does it send logs?", frozenset()) == frozenset()  # no vocabulary: decides nothing


def test_a_question_about_something_no_build_mentions_is_refused_though_it_shares_ordinary_words(sample):
    # "run", "VM" and "zone" pass the coverage floor; no build writes "pizza" or "oven".
    answer = sample.ask("Can I run the VM on a pizza oven in my zone?").answer
    assert answer.outcome == "refuse", (answer.outcome, [c.generation for c in answer.choices])


def test_a_misspelt_question_is_still_answered(sample):
    answer = sample.ask("Which TPU software verison do I pass for a Cloud TPU v6e VM?").answer
    assert answer.outcome == "answer", (answer.outcome, answer.refusal)


def test_a_name_or_abbreviation_no_build_writes_makes_the_question_unanswerable_however_near_in_meaning(sample):
    # Near the content in meaning (creating and connecting to VMs), about a thing it never names.
    for question in ("How do I create a TPU v5p VM over NFS?", "How do I create a TPU VM with the CLI over FTP?"):
        answer = sample.ask(question).answer
        assert answer.outcome == "refuse", (question, answer.outcome, [c.generation for c in answer.choices])
    # A name the content writes is no such word: the question is answered as before.
    assert sample.ask("How do I create a TPU v5p VM?").answer.outcome == "answer"
