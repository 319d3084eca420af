"""Editions of one product are told apart by their content, not only by their names (valid.answer.peers).

"Acme XML Editor" and "Acme XML Author" name two products, but the two editions share most of their
pages. A word that titles an Editor topic ("Breakpoints") and that the Author's content never
writes is a thing the Author does not have: the Author reader asking about it is refused, as a
version of one product would be. A product that shares little with them (the Acme Feedback
service) decides nothing about them. A real release (Chroma + FTS5, offline embedder)."""

import pytest
from fixtures.answer.index import offline_embedder, offline_engine
from fixtures.index.exports import ChunkSpec, TopicSpec, write_export

from valid.answer.peers import peers

PROFILES = ["editor", "author", "editor-plugin", "author-plugin", "feedback"]
LABELS = {
    "editor": ["Acme XML Editor"],
    "author": ["Acme XML Author"],
    "editor-plugin": ["Acme XML Editor plugin"],
    "author-plugin": ["Acme XML Author plugin"],
    "feedback": ["Acme Feedback"],
}
DESKTOP = frozenset(PROFILES[:4])
EDITORS = frozenset({"editor", "editor-plugin"})


def _topics() -> list[TopicSpec]:
    shared = [
        TopicSpec(f"page{n}", f"Editing page {n}", DESKTOP, (ChunkSpec("body", f"Open the file and edit part {n} of the document."),))
        for n in range(8)
    ]
    debugger = TopicSpec(
        "breakpoints", "Breakpoints view", EDITORS,
        (ChunkSpec("body", "Set a breakpoint on a stylesheet line, then press F7 to step into the template."),),
    )
    # The Author has the stylesheet and its lines too, never a debugger.
    author_xslt = TopicSpec(
        "stylesheets", "Stylesheets", DESKTOP,
        (ChunkSpec("body", "A stylesheet line can be edited in Text mode; press F7 to check its spelling."),),
    )
    feedback = TopicSpec(
        "comments", "Comments", frozenset({"feedback"}), (ChunkSpec("body", "Readers leave comments on each page."),)
    )
    return [*shared, debugger, author_xslt, feedback]


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    from valid.index import Store, build_release

    root = tmp_path_factory.mktemp("peers")
    path = write_export(root / "chunks.jsonl", _topics(), profiles=PROFILES, labels=LABELS)
    build_release(path, offline_embedder(), Store(root / "state"))
    return root / "state"


@pytest.fixture
def engine(state, tmp_path):
    with offline_engine(state, tmp_path) as e:
        yield e


def test_builds_are_peers_by_name_or_by_sharing_most_of_the_smaller_ones_content():
    products = {"a": frozenset({"cli"}), "b": frozenset({"cli"}), "c": frozenset({"agent"}), "d": frozenset({"web"})}
    shared = {
        "a": {"a": 10, "b": 8, "c": 1, "d": 0},
        "b": {"a": 8, "b": 10, "c": 1, "d": 0},
        "c": {"a": 1, "b": 1, "c": 4, "d": 3},
        "d": {"a": 0, "b": 0, "c": 3, "d": 5},
    }
    assert peers(list(products), products, shared) == {"a": ["a", "b"], "b": ["a", "b"], "c": ["c", "d"], "d": ["c", "d"]}
    assert peers(list(products), products) == {"a": ["a", "b"], "b": ["a", "b"], "c": ["c"], "d": ["d"]}
    assert peers(list(products), products, shared, share=0.9)["c"] == ["c"]


def test_the_engine_takes_editions_sharing_their_pages_for_one_products_and_not_another_product(engine):
    assert set(engine._peers["author"]) == {"editor", "author", "editor-plugin", "author-plugin"}
    assert engine._peers["feedback"] == ["feedback"]


def test_an_edition_asked_about_a_thing_only_another_editions_topic_names_is_refused(engine):
    answer = engine.ask("How do I set breakpoints in Acme XML Author?").answer
    assert answer.outcome == "refuse" and answer.answers == []
    assert "breakpoints" in answer.refusal.reason.lower()


def test_the_edition_that_has_it_answers(engine):
    answer = engine.ask("How do I set breakpoints in Acme XML Editor?").answer
    assert answer.outcome == "answer"
    assert "F7 to step into" in answer.answers[0].steps[0].text


def test_the_release_stores_what_each_pair_of_builds_shares_and_an_older_release_counts_it_from_its_scopes(state):
    from valid.index import Store, open_active

    with open_active(Store(state)) as release:
        stored = release.derived.shared
        assert stored["editor"]["editor"] == 10 and stored["editor"]["author"] == 9 and stored["editor"]["feedback"] == 0
        release._derived = release.derived.model_copy(update={"shared": None})  # as built before it was stored
        assert release.shared_counts() == stored
