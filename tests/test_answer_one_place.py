"""A question that names no build, where what the builds' content says depends on one place the writers
profiled (issue 25 item 4: one answer where the builds agree, a question back only where the reader
has a real choice):

- the builds that answer all quote one chunk of a topic the writers profiled for them alone: answered
  once for them; where another build keeps its own version of that topic, the reader still chooses;
- one build's selection quotes a line from a place the export split by build (a link one output drops),
  and every other build read its own variant of that place, which does not say that line: answered for
  the one build alone.

Real release: the small Cloud TPU-shaped export, embedded Chroma, FTS5, the offline answerer."""

import pytest
from fixtures.answer.index import engine_over

QUOTA = [
    ("quota.dita#quota/body", "Request TPU quota", "body", ["v5p", "v6e"],
     "Request TPU quota in the console under IAM and Admin, Quotas. Approval of a quota request takes up to "
     "2 business days."),
    ("v5pquota.dita#v5pquota/body", "TPU v5p quota", "body", ["v5p"],
     "TPU v5p quota is counted in chips per region; a quota request names the region and the chip count."),
    ("v6equota.dita#v6equota/body", "TPU v6e quota", "body", ["v6e"],
     "TPU v6e quota is counted in chips per zone; a quota request names the zone and the chip count."),
]
# The third build's own section of the same topic, which says otherwise.
QUOTA_OWN_SECTION = [
    ("quota.dita#quota/tpu7x", "Request TPU7x quota", "section", ["tpu7x"],
     "TPU7x quota requests go to your account team; approval of such a quota request takes up to 5 business days."),
]

NOTES = [
    ("notes.dita#notes/retention~v5p", "Release notes", "section", ["v5p"],
     "Boot disk snapshots are now kept longer by default (see Snapshot retention for details)."),
    ("notes.dita#notes/retention~v6e+tpu7x", "Release notes", "section", ["v6e", "tpu7x"],
     "Boot disk snapshots are now kept longer by default."),
    ("notes.dita#notes/spot", "Release notes", "section", ["v5p", "v6e", "tpu7x"],
     "Preempted Spot VMs can now be recreated on the same boot disk (see Spot recovery for details)."),
    ("spot.dita#spot/body", "Spot recovery", "body", ["v5p", "v6e", "tpu7x"],
     "A preempted Spot VM is recreated on its boot disk when capacity returns."),
    ("retention.dita#retention/body", "Snapshot retention", "body", ["v5p", "v6e", "tpu7x"],
     "A boot disk snapshot is kept for 14 days unless you set a retention period."),
]


def opened(factory, name, chunks):
    return engine_over(factory.mktemp(name), chunks)


@pytest.fixture(scope="module")
def quota(tmp_path_factory):
    with opened(tmp_path_factory, "quota", QUOTA) as engine:
        yield engine


@pytest.fixture(scope="module")
def quota_own_section(tmp_path_factory):
    with opened(tmp_path_factory, "quota-own-section", QUOTA + QUOTA_OWN_SECTION) as engine:
        yield engine


@pytest.fixture(scope="module")
def notes(tmp_path_factory):
    with opened(tmp_path_factory, "notes", NOTES) as engine:
        yield engine


def test_builds_quoting_one_chunk_of_a_topic_profiled_for_them_alone_are_answered_once(quota):
    answer = quota.ask("How long does approval of a TPU quota request take?").answer
    assert answer.outcome == "answer", (answer.outcome, [c.generation for c in answer.choices])
    assert sorted(answer.scope) == ["v5p", "v6e"]
    assert all("2 business days" in a.answer for a in answer.answers)
    assert "TPU7x" in answer.refusal.reason


def test_a_build_keeping_its_own_version_of_that_topic_leaves_the_choice_to_the_reader(quota_own_section):
    answer = quota_own_section.ask("How long does approval of a TPU quota request take?").answer
    assert answer.outcome == "ask", (answer.outcome, answer.scope)
    assert not answer.answers


def test_the_build_whose_variant_of_the_place_says_the_line_is_answered_alone(notes):
    question = "The release note saying boot disk snapshots are now kept longer refers me to which topic for details?"
    answer = notes.ask(question).answer
    assert answer.outcome == "answer", (answer.outcome, [c.generation for c in answer.choices])
    assert answer.scope == ["v5p"]
    assert "Snapshot retention" in answer.answers[0].answer
    assert "TPU v6e" in answer.refusal.reason and "TPU7x" in answer.refusal.reason
