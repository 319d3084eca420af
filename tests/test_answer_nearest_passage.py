"""A question that names no build, on a topic the writers profiled for some builds only, while another
build has content of its own that also answers the question's words (the Oxygen guide's WebHelp and
license-server topics, kept by eight or nine of its 19 products, beside other products' own search
and server pages): the builds that keep the passage nearest the question in meaning, clearly nearer
than anything the others keep, are answered once, the others named as lacking it, not asked back
(issue 25 item 4). Where another build keeps a passage about as near (its own copy of the topic,
another value), the reader still chooses. Real release: the small Cloud TPU-shaped export, embedded
Chroma, FTS5."""

import pytest
from fixtures.answer.index import engine_over

SNAPSHOTS = [
    ("snapshot.dita#snapshot/body", "Disk snapshots", "body", ["v5p", "v6e"],
     "A snapshot of a TPU VM boot disk is kept for 14 days by default and then deleted automatically. "
     "Set a longer retention when you create the snapshot."),
    ("snapshot.dita#snapshot/create", "Create a disk snapshot", "section", ["v5p", "v6e"],
     "Create a snapshot of a TPU VM boot disk with gcloud compute snapshots create before you delete the VM."),
    ("snapshot.dita#snapshot/restore", "Restore a disk snapshot", "section", ["v5p", "v6e"],
     "Restore a TPU VM boot disk from a snapshot when you recreate the VM."),
]
# The third build's own page shares the question's words (kept, days, default, deleted, snapshot),
# so its content counts as relevant; in meaning it is about buckets, far from the question.
BUCKETS = [
    ("storage.dita#storage/body", "Storage options", "body", ["tpu7x"],
     "TPU7x VMs keep training data in Cloud Storage buckets. A deleted object of a bucket is kept "
     "for 7 days by default before it is deleted for good; a TPU7x boot disk has no snapshot and is "
     "deleted with its VM."),
]
# The third build's own copy of the topic, with another value: about as near as the others' passage.
OWN_COPY = [
    ("snapshot7x.dita#snapshot7x/body", "Disk snapshots", "body", ["tpu7x"],
     "A snapshot of a TPU VM boot disk is kept for 30 days by default and then deleted automatically. "
     "Set a shorter retention when you create the snapshot."),
]
QUESTION = "How many days is a snapshot of a TPU VM boot disk kept by default before it is deleted?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    with engine_over(tmp_path_factory.mktemp("nearest-passage"), SNAPSHOTS + BUCKETS) as opened:
        yield opened


@pytest.fixture(scope="module")
def own_copy_engine(tmp_path_factory):
    with engine_over(tmp_path_factory.mktemp("nearest-passage-own-copy"), SNAPSHOTS + OWN_COPY) as opened:
        yield opened


def test_the_builds_keeping_the_nearest_passage_are_answered_once(engine):
    answer = engine.ask(QUESTION).answer
    assert answer.outcome == "answer", (answer.outcome, [c.generation for c in answer.choices])
    assert sorted(answer.scope) == ["v5p", "v6e"]
    assert all("14 days" in a.answer for a in answer.answers)
    assert {a.steps[0].cite for a in answer.answers} == {"snapshot.dita#snapshot/body"}


def test_the_build_without_the_passage_is_named_as_lacking_it_never_given_its_text(engine):
    answer = engine.ask(QUESTION).answer
    assert answer.refusal is not None and "TPU7x" in answer.refusal.reason
    assert not any("7 days" in a.answer for a in answer.answers)


def test_the_build_named_still_gets_its_own_scope(engine):
    assert "7 days" in engine.ask(QUESTION, "tpu7x").answer.answers[0].answer
    assert "14 days" in engine.ask(QUESTION, "v5p").answer.answers[0].answer


def test_a_build_with_its_own_copy_of_the_topic_keeps_the_choice_with_the_reader(own_copy_engine):
    answer = own_copy_engine.ask(QUESTION).answer
    assert answer.outcome == "ask", (answer.outcome, answer.scope)
    assert sorted(c.generation for c in answer.choices) == ["tpu7x", "v5p", "v6e"]
