"""The answer loop and refuse_or_ask over a real release (Chroma + FTS5, offline embedder)."""

import json

import pytest
from fixtures.answer.export import NAMES, build_export
from fixtures.answer.index import build_state, offline_embedder, offline_engine, scopes

from valid.answer.wiring import open_engine
from valid.answer.generate import OfflineExtractive
from valid.answer.models import AnswerObject, Draft, DraftStep
from valid.audit.issues import IssueStore

DELETE = [
    ("delete-tpu-vm.dita#delete-tpu-vm/body", "Delete a TPU VM", "body", NAMES,
     "Delete a TPU VM when you no longer need it, so that you stop paying for it. Deleting a VM also deletes its boot disk."),
    ("delete-tpu-vm.dita#delete-tpu-vm/steps", "Delete a TPU VM", "steps", NAMES,
     "1. Delete the TPU VM.\n   gcloud compute tpus tpu-vm delete ${TPU_NAME} --zone=${ZONE}\n"
     "2. Check that the VM is gone.\n   gcloud compute tpus tpu-vm list --zone=${ZONE}"),
]


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return build_state(tmp_path_factory.mktemp("loop"), build_export(extra=DELETE))


@pytest.fixture
def engine(state, tmp_path):
    with offline_engine(state, tmp_path) as e:
        yield e


def test_priya_gets_a_tpu7x_answer_cited_only_from_tpu7x_scope(engine):
    result = engine.ask("I'm on Ironwood. Which --version do I pass when I create the VM?")
    answer = result.answer
    assert answer.outcome == "answer"
    assert answer.scope == ["tpu7x"] and answer.matched == ["Ironwood"]
    (only,) = answer.answers
    assert only.generation == "tpu7x"
    cited = {step.cite for step in only.steps}
    assert "runtimes.dita#runtimes/tpu7x-note" in cited
    assert all("tpu7x" in scopes(engine)[c] for c in cited)
    text = only.answer + " ".join(s.text for s in only.steps)
    assert "v2-alpha-tpuv6e" not in text and "v2-alpha-tpuv5" not in text
    assert "TPU v5p" in answer.not_used and "TPU v6e (Trillium)" in answer.not_used
    assert answer.checks["out_of_scope_values"] == 0 and answer.checks["passed"] is True
    assert answer.run.generator == "offline" and answer.run.cost_usd == 0.0


def test_no_generation_and_answers_that_differ_by_generation_ask_with_choices(engine):
    answer = engine.ask("How many chips per host?").answer
    assert answer.outcome == "ask" and answer.answers == [] and answer.scope == []
    assert [(c.generation, c.label) for c in answer.choices] == [
        ("v5p", "TPU v5p"),
        ("v6e", "TPU v6e (Trillium)"),
        ("tpu7x", "TPU7x (Ironwood)"),
    ]
    assert answer.run.calls == 0


def test_no_generation_and_only_shared_content_answers_once_for_every_generation(engine):
    answer = engine.ask("How do I delete a TPU VM?").answer
    assert answer.outcome == "answer" and answer.scope == NAMES
    (only,) = answer.answers  # the same text from the same source: one answer naming them all
    assert only.generation == NAMES[0] and only.generations == NAMES
    assert all(scopes(engine)[s.cite] == NAMES for s in only.steps)
    assert all(s.title_path and s.title_path[-1] for s in only.steps)  # the cited topic's titles
    assert answer.run.calls == 1  # one draft, shown for every generation


def test_a_shared_chunk_holding_one_generations_value_is_not_taken_as_shared_content(engine):
    # The startup-script steps are shared but hard-code v2-alpha-tpuv6e: the question must be asked back.
    assert engine.ask("Which --version do I pass when I create a TPU VM?").answer.outcome == "ask"


def test_two_generations_get_one_cited_answer_each(engine):
    answer = engine.ask("How many chips are in a v5p VM and in a TPU7x VM?").answer
    assert answer.outcome == "answer" and answer.scope == ["v5p", "tpu7x"]
    assert [a.generation for a in answer.answers] == ["v5p", "tpu7x"]
    for item in answer.answers:
        assert item.steps and all(item.generation in scopes(engine)[s.cite] for s in item.steps)
    v5p = answer.answers[0].answer + " ".join(s.text for s in answer.answers[0].steps)
    assert "4 chips" in v5p or "Chips per VM | 4" in v5p


def test_unknown_generation_is_refused_with_a_gap_issue(engine, tmp_path):
    answer = engine.ask("How many chips does a TPU v4 VM have?").answer
    assert answer.outcome == "refuse" and answer.answers == []
    assert "TPU v4" in answer.refusal.reason and "TPU v4" in answer.refusal.missing
    issue = IssueStore(tmp_path / "issues").get(answer.refusal.gap_issue)
    assert issue is not None and issue.kind == "unknown-generation" and issue.state == "open"


def test_nothing_relevant_in_scope_is_refused_with_a_gap_issue_never_answered_from_elsewhere(engine, tmp_path):
    answer = engine.ask("What is the price of Trillium per chip-hour?").answer
    assert answer.outcome == "refuse" and answer.scope == ["v6e"]
    assert "TPU v6e (Trillium)" in answer.refusal.reason
    issue = IssueStore(tmp_path / "issues").get(answer.refusal.gap_issue)
    assert issue.kind == "no-content" and "chip-hour" in issue.title
    # Asking again does not open a second issue.
    again = engine.ask("What is the price of Trillium per chip-hour?").answer
    assert again.refusal.gap_issue == answer.refusal.gap_issue
    assert len(IssueStore(tmp_path / "issues").issues(kind="no-content")) == 1


class Stubborn:
    """A generator that keeps inventing a flag: the checks must stop it, twice, then refuse."""

    name = "offline"
    model = None
    deterministic = True

    def __init__(self):
        self.requests = []

    def generate(self, request):
        self.requests.append(request)
        cite = request.chunks[0].id
        return Draft(scope=list(request.scope), answer="Pass --version=tpu7x-latest.", steps=[DraftStep(text="Run it with --version=tpu7x-latest.", cite=cite)], calls=1)


def test_checks_still_failing_after_two_revisions_refuse_with_the_same_chunks_every_time(state, tmp_path):
    stubborn = Stubborn()
    with open_engine(state, generator=stubborn, embedder=offline_embedder(), issues_dir=tmp_path / "i", log=False) as engine:
        searches = []
        original = engine.release.search_vector
        engine.release.search_vector = lambda *a, **k: searches.append(a[1]) or original(*a, **k)
        answer = engine.ask("I'm on Ironwood. Which --version do I pass when I create the VM?").answer
    assert answer.outcome == "refuse"
    assert "still failed its checks after 2 revisions" in answer.refusal.reason
    assert "--version=tpu7x-latest" in answer.refusal.reason
    assert answer.refusal.gap_issue
    assert len(stubborn.requests) == 3 and answer.run.calls == 3 and answer.checks["revisions"] == 2
    first = [c.id for c in stubborn.requests[0].chunks]
    assert all([c.id for c in r.chunks] == first for r in stubborn.requests)
    assert [len(r.failures) > 0 for r in stubborn.requests] == [False, True, True]
    assert searches == ["tpu7x"]  # one search, before the first draft; revisions never search


def test_offline_revision_drops_the_step_that_failed(engine):
    # The shared startup-script step (v2-alpha-tpuv6e) is in scope for TPU7x; the owned-value check
    # stops it and the revision answers without it.
    result = engine.ask("I'm on Ironwood. Which --version do I pass when I create the VM?")
    row = engine.log.rows()[-1]
    reports = row["checks"]["tpu7x"]
    assert reports[-1]["passed"]
    if len(reports) > 1:
        assert any(f["check"] == "out_of_scope_values" for f in reports[0]["failures"])
        assert result.answer.checks["revisions"] == len(reports) - 1


def test_one_log_row_per_question_with_scope_ranks_checks_and_cost(engine):
    engine.ask("How many chips are in one TPU v6e VM?")
    engine.ask("How many chips per host?")
    rows = engine.log.rows()
    assert [r["outcome"] for r in rows] == ["answer", "ask"]
    row = rows[0]
    assert row["question"] == "How many chips are in one TPU v6e VM?"
    assert row["scope"] == ["v6e"] and row["matched"] == ["TPU v6e"]
    assert row["release_id"] == engine.release.id
    retrieval = row["retrieval"]["v6e"]
    assert set(retrieval["channels"]) == {"vector", "bm25"} and retrieval["fused"]
    # The offline answerer reads the top fused chunks and the next few (same scope, same ranking).
    depth = OfflineExtractive.evidence_depth
    assert [c["id"] for c in row["sent"]["v6e"][0]] == [h[0] for h in retrieval["fused"][:depth]]
    assert all("v6e" in c["scope"] for c in row["sent"]["v6e"][0])
    assert row["checks"]["v6e"][0]["passed"] is True
    assert row["attempts"] == 1 and row["calls"] == 1
    assert row["cost_usd"] == 0.0 and row["tokens_in"] == 0 and row["generator"] == "offline"
    assert {"scope", "retrieve", "generate", "check", "total"} <= set(row["stages"])
    assert AnswerObject.model_validate(row["answer"]).outcome == "answer"
    assert rows[1]["retrieval"].keys() == set(NAMES)  # no scope: every generation searched, each in its own


def test_answers_are_deterministic(engine):
    a = engine.ask("Which frameworks are supported on TPU7x?").answer.model_dump()
    b = engine.ask("Which frameworks are supported on TPU7x?").answer.model_dump()
    for obj in (a, b):
        obj["run"]["latency_ms"] = 0
    assert a == b


def test_an_explicit_generation_sets_the_scope(engine):
    answer = engine.ask("How many chips per VM?", generation="Trillium").answer
    assert answer.outcome == "answer" and answer.scope == ["v6e"] and answer.matched == []
    assert "8 chips" in json.dumps(answer.model_dump())
