"""retrieve_in_scope: hybrid search that can only ever return chunks in the one profile's scope."""

import inspect

import pytest
from fixtures.answer.export import NAMES
from fixtures.answer.index import build_state, offline_embedder

from valid.answer.abbreviations import Abbreviations
from valid.answer.retrieve import retrieve_in_scope
from valid.answer.tuning import BUILT_IN, Tuning

TOP_K = BUILT_IN.top_k
from valid.index import Store, open_active

QUESTIONS = [
    "How many chips are in one VM?",
    "Which --version do I pass when I create the VM?",
    "v2-alpha-tpuv6e",
    "v2-alpha-tpuv5 --accelerator-type=v5p-8",
    "tpu7x-standard-4t machine type",
    "Which frameworks are supported?",
    "HBM capacity per chip",
    "TensorFlow",
    "NOT OR ( ) : - \" *",
    "gcloud compute tpus tpu-vm create",
    "Compute Engine or GKE",
    "How do I bake bread?",
]


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    state = build_state(tmp_path_factory.mktemp("retrieve"))
    with open_active(Store(state)) as handle:
        yield handle


def test_retrieve_has_no_parameter_that_could_carry_a_filter():
    parameters = inspect.signature(retrieve_in_scope).parameters
    assert list(parameters) == ["release", "embedder", "question", "profile", "abbreviations", "tuning"]
    # The additions are the doc set's abbreviation table (words for the relevance floor) and the
    # engine's floors and weights (numbers only): no filter.
    assert parameters["abbreviations"].annotation in (Abbreviations, "Abbreviations")
    assert parameters["tuning"].annotation in (Tuning, "Tuning")
    assert all(field.annotation in (int, float) for field in Tuning.model_fields.values())


@pytest.mark.parametrize("profile", NAMES)
def test_every_chunk_retrieved_is_in_scope_for_the_profile_over_many_queries(release, profile):
    chunks = {c.id: c for c in release.get_chunks(release.all_chunk_ids())}
    for question in QUESTIONS:
        outcome = retrieve_in_scope(release, offline_embedder(), question, profile)
        assert outcome.profile == profile
        ids = [c.id for c in outcome.chunks]
        ids += [h.chunk_id for h in outcome.fused]
        ids += [h.chunk_id for hits in outcome.channels.values() for h in hits]
        assert ids, question
        for chunk_id in ids:
            assert chunks[chunk_id].scope[profile], (question, chunk_id)
        assert all(profile in c.scope for c in outcome.chunks)


def test_top_five_fused_with_aliases_in_rank_order(release):
    outcome = retrieve_in_scope(release, offline_embedder(), "How many chips are in one VM?", "v6e")
    assert outcome.status == "complete" and outcome.reasons == []
    assert len(outcome.chunks) == TOP_K
    assert [c.alias for c in outcome.chunks] == ["c1", "c2", "c3", "c4", "c5"]
    assert [c.id for c in outcome.chunks] == [h.chunk_id for h in outcome.fused[:TOP_K]]
    assert outcome.chunks[0].id.startswith("v6e.dita#")
    assert set(outcome.channels) == {"vector", "bm25"}


def test_the_same_question_gives_the_same_outcome(release):
    first = retrieve_in_scope(release, offline_embedder(), "Which --version do I pass?", "tpu7x")
    again = retrieve_in_scope(release, offline_embedder(), "Which --version do I pass?", "tpu7x")
    assert first == again


class BrokenEmbedder:
    def embed_query(self, text):
        raise RuntimeError("embedding service down")


def test_an_embedder_failure_degrades_to_bm25_only_never_to_a_wider_scope(release):
    outcome = retrieve_in_scope(release, BrokenEmbedder(), "v2-alpha-tpuv6e --version", "tpu7x")
    assert outcome.status == "degraded"
    assert any("vector channel failed" in r and "BM25 only" in r for r in outcome.reasons)
    assert set(outcome.channels) == {"bm25"}
    assert outcome.chunks and all("tpu7x" in c.scope for c in outcome.chunks)
    # The v6e configuration chunk holds the value literally; it is out of scope and never comes back.
    assert "v6e.dita#v6e/configurations" not in [c.id for c in outcome.chunks]


def test_an_empty_channel_is_reported_as_degraded(release):
    outcome = retrieve_in_scope(release, offline_embedder(), "zzzqqq", "v5p")
    assert outcome.status == "degraded"
    assert "bm25 channel returned nothing in scope" in outcome.reasons
    assert not outcome.relevant


class LeakyRelease:
    """A release whose vector search misbehaves and returns a chunk of another generation."""

    def __init__(self, inner):
        self.inner = inner
        self.header = inner.header

    def search_vector(self, query_embedding, profile, k):
        from valid.index import Hit

        hits = self.inner.search_vector(query_embedding, profile, k)
        return [Hit(chunk_id="v6e.dita#v6e/configurations", rank=1, score=0.99)] + [
            Hit(chunk_id=h.chunk_id, rank=h.rank + 1, score=h.score) for h in hits
        ]

    def search_bm25(self, query_text, profile, k):
        return self.inner.search_bm25(query_text, profile, k)

    def get_chunks(self, ids):
        return self.inner.get_chunks(ids)

    def count_in_scope(self, profile):
        return self.inner.count_in_scope(profile)


def test_an_out_of_scope_hit_is_dropped_and_reported_not_passed_on(release):
    outcome = retrieve_in_scope(LeakyRelease(release), offline_embedder(), "Which --version do I pass?", "tpu7x")
    assert outcome.status == "degraded"
    assert "chunk v6e.dita#v6e/configurations is not in scope for tpu7x; dropped" in outcome.reasons
    ids = [c.id for c in outcome.chunks] + [h.chunk_id for hits in outcome.channels.values() for h in hits]
    assert "v6e.dita#v6e/configurations" not in ids
    assert len(outcome.chunks) == TOP_K


def test_the_relevance_floor_refuses_out_of_domain_questions(release):
    for profile in NAMES:
        assert not retrieve_in_scope(release, offline_embedder(), "How do I bake sourdough bread?", profile).relevant
        assert retrieve_in_scope(release, offline_embedder(), "How much HBM per chip?", profile).relevant
