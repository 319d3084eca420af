"""A question that names no build, on a topic the writers profiled for some builds only, where those
builds keep one text alike (the Oxygen guide's desktop-only topics, shared by seven of its 19
products): answered once for the builds that have it, the others named as lacking it, not asked back
(issue 25 item 4). Where a build that has it also has content of its own near the question, the
reader still chooses. Real release: the small Cloud TPU-shaped export, embedded Chroma, FTS5."""

import pytest
from fixtures.answer.export import build_export
from fixtures.answer.index import build_state

from valid.answer.wiring import open_engine

QUEUED = [
    ("queued.dita#queued/body", "Queued resources", "body", ["v5p", "v6e"],
     "A queued resource request asks for TPU capacity that is allocated when it becomes available. "
     "A queued resource request waits in the queue for up to 30 days by default, then expires."),
    ("queued.dita#queued/states", "Queued resource states", "section", ["v5p", "v6e"],
     "A queued resource request is WAITING_FOR_RESOURCES while it waits in the queue, ACTIVE once its "
     "capacity is allocated, and FAILED when the request expires."),
    ("queued.dita#queued/delete", "Delete a queued resource request", "section", ["v5p", "v6e"],
     "Delete a queued resource request that waits in the queue and no longer needs capacity with "
     "gcloud compute tpus queued-resources delete."),
]
QUESTION = "How long does a queued resource request wait in the queue by default before it expires?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    state = build_state(tmp_path_factory.mktemp("shared-by-some"), build_export(extra=QUEUED))
    with open_engine(state, log=False, gap_issues=False) as opened:
        yield opened


def test_a_topic_only_some_builds_keep_alike_is_answered_once_for_them(engine):
    answer = engine.ask(QUESTION).answer
    assert answer.outcome == "answer", (answer.outcome, answer.choices)
    assert sorted(answer.scope) == ["v5p", "v6e"]
    assert all("30 days" in a.answer for a in answer.answers)
    assert {a.steps[0].cite for a in answer.answers} == {"queued.dita#queued/body"}
    # The build without it is named as lacking it, never answered from another build's text.
    assert answer.refusal is not None and "TPU7x" in answer.refusal.reason


def test_the_build_named_still_gets_its_own_scope(engine):
    assert engine.ask(QUESTION, "tpu7x").answer.outcome == "refuse"
    assert engine.ask(QUESTION, "v6e").answer.outcome == "answer"
