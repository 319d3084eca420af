"""One answer when the builds keeping the question's topic agree (issue 25 item 4): a question naming
no build, whose nearest passage is one some builds keep and the others have nothing near, is
answered for those builds when their answers agree, however the others' selections read. A real
release (Chroma + FTS5, offline embedder) over the small Cloud TPU-shaped fixture."""

import pytest
from fixtures.answer.export import build_export
from fixtures.answer.index import build_state, offline_engine

# The topic the writers profiled for v5p and v6e alone, one variant each (the key to the build's
# name resolved in each): each build's own copy of one text.
LOCKING = [
    *[
        (f"repo/lock.dita#lock/body~{p}", "Locking repository files", "section", [p],
         f"By locking a file of the {p} image repository you get exclusive write access to it. "
         "Only files can be locked: a directory cannot be locked.")
        for p in ("v5p", "v6e")
    ],
    # TPU7x has nothing on locking; its passages share the question's words, not its topic, and its
    # selection finds an answer there that says something else: the three builds do not agree.
    ("tpu7x/reservations.dita#tpu7x-reservations/body", "Reservations", "section", ["tpu7x"],
     "A reservation gives your project exclusive write access to TPU7x capacity in one zone for its whole term."),
    ("tpu7x/storage.dita#tpu7x-storage/body", "Shared storage", "section", ["tpu7x"],
     "Mount one Filestore directory on every TPU7x VM to share checkpoints: each VM can lock it and gets write "
     "access to the whole directory in the repository of checkpoints."),
]


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return build_state(tmp_path_factory.mktemp("nearest"), build_export(extra=LOCKING))


@pytest.fixture
def engine(state, tmp_path):
    with offline_engine(state, tmp_path) as e:
        yield e


def test_the_builds_keeping_the_questions_topic_are_answered_once_when_they_agree(engine):
    answer = engine.ask("Can I lock a whole directory in the repository to get exclusive write access to it?").answer
    assert answer.outcome == "answer", answer
    assert sorted(g for a in answer.answers for g in a.generations) == ["v5p", "v6e"]
    assert all("cannot be locked" in " ".join(s.text for s in a.steps) for a in answer.answers)
    assert answer.refusal is not None and "TPU7x" in answer.refusal.reason


# The same, but TPU7x keeps its own version of the locking topic, which says something else in
# fewer of the question's words (an earlier release's reference page beside a later one's).
OWN_VERSION = [
    *LOCKING,
    ("repo/lock.dita#lock/body~tpu7x", "Locking repository files", "section", ["tpu7x"],
     "On TPU7x, checkpoints are locked per folder by the training job itself."),
]


@pytest.fixture(scope="module")
def own_version_state(tmp_path_factory):
    return build_state(tmp_path_factory.mktemp("own-version"), build_export(extra=OWN_VERSION))


def test_nearer_is_not_enough_where_another_build_keeps_its_own_version_of_the_topic(own_version_state, tmp_path):
    with offline_engine(own_version_state, tmp_path) as engine:
        answer = engine.ask("Can I lock a whole directory in the repository to get exclusive write access to it?").answer
    assert answer.outcome != "answer" or "tpu7x" in answer.scope, [a.generation for a in answer.answers]
