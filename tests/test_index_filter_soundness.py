"""Scope soundness of both channels, on embedded Chroma and on a real `chroma run` server.

Every hit of every query satisfies its scope filter; deleted chunks are never returned; k is capped
at the in-scope count; a reopened release (also from a fresh process) answers identically.
"""

import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fixtures.index.embedders import HashEmbedder
from fixtures.index.exports import PROFILES, generated_topics, sample_topics, write_export
from fixtures.index.stores import chroma_url, store  # noqa: F401  (pytest fixtures)
from valid.errors import ReleaseError
from valid.index import Release, Store, build_release, open_active, read_export

QUERIES = [
    "create a TPU VM with gcloud",
    "--version v2-alpha-tpuv6e",
    "HBM per chip",
    "queued resources capacity spot",
    "pytorch jax frameworks",
    "topology torus pod chips",
    "v2-alpha-tpu7x",
    "NOT OR ( :",
]
TESTS_DIR = Path(__file__).parent
# Child processes import the same checkout as this test run (its sidecar), not whatever is installed.
CHILD_PYTHONPATH = os.pathsep.join([str(TESTS_DIR), str(TESTS_DIR.parent / "sidecar")])


@pytest.fixture
def built(store, tmp_path):
    topics = sample_topics() + generated_topics(30, seed=7, chunks_per_topic=(1, 3), words=(8, 20))
    path = write_export(tmp_path / "chunks.jsonl", topics)
    build_release(path, HashEmbedder(), store)
    return store, {c.id: c for c in read_export(path).chunks}


def test_every_hit_satisfies_its_scope_filter(built):
    store, truth = built
    embedder = HashEmbedder()
    with open_active(store) as release:
        for profile in PROFILES:
            in_scope = sum(1 for c in truth.values() if c.scope[profile])
            assert release.count_in_scope(profile) == in_scope
            for query in QUERIES:
                for k in (1, 5, 10_000):
                    vector_hits = release.search_vector(embedder.embed_query(query), profile, k)
                    bm25_hits = release.search_bm25(query, profile, k)
                    assert len(vector_hits) == min(k, in_scope)  # a pre-filter: never cut short
                    assert len(bm25_hits) <= min(k, in_scope)
                    for hit in vector_hits + bm25_hits:
                        assert truth[hit.chunk_id].scope[profile], (profile, query, hit.chunk_id)
                    for hits in (vector_hits, bm25_hits):
                        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
                        assert len({h.chunk_id for h in hits}) == len(hits)
                        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_unknown_or_malformed_profiles_are_refused(built):
    store, _ = built
    with open_active(store) as release:
        for profile in ("v7", "", "V5P", "v5p OR 1=1", "in_v5p", None, ["v5p"]):
            with pytest.raises(ReleaseError, match="unknown profile"):
                release.search_bm25("tpu", profile, 5)
            with pytest.raises(ReleaseError, match="unknown profile"):
                release.search_vector([1.0] + [0.0] * 63, profile, 5)
            with pytest.raises(ReleaseError, match="unknown profile"):
                release.count_in_scope(profile)


def test_searches_take_no_caller_filter():
    assert list(inspect.signature(Release.search_vector).parameters) == ["self", "query_embedding", "profile", "k"]
    assert list(inspect.signature(Release.search_bm25).parameters) == ["self", "query_text", "profile", "k"]


def test_a_query_vector_of_the_wrong_dimension_is_refused(built):
    store, _ = built
    with open_active(store) as release, pytest.raises(ReleaseError, match="expects 64"):
        release.search_vector([0.1] * 384, "v5p", 5)


def test_deleted_chunks_are_never_returned(store, tmp_path):
    topics = sample_topics()
    build_release(write_export(tmp_path / "v1.jsonl", topics), HashEmbedder(), store)
    kept = [t for t in topics if t.topic_id != "queued-resources"]
    kept = [t.with_chunks([c for c in t.chunks if c.local != "row-v6e"]) if t.topic_id == "runtimes" else t for t in kept]
    result = build_release(write_export(tmp_path / "v2.jsonl", kept), HashEmbedder(), store)
    deleted = {
        "topics/queued-resources.dita#queued-resources/body",
        "topics/queued-resources.dita#queued-resources/spot",
        "topics/runtimes.dita#runtimes/row-v6e",
    }
    assert set(result.report.changes.deleted_ids) == deleted
    embedder = HashEmbedder()
    queries = ["queued-resources create capacity", "Spot queued resources NOT guaranteed", "v2-alpha-tpuv6e base image PJRT"]
    with open_active(store) as release:
        for profile in PROFILES:
            for query in queries:
                hits = release.search_vector(embedder.embed_query(query), profile, 1000) + release.search_bm25(query, profile, 1000)
                assert not deleted & {h.chunk_id for h in hits}
        with pytest.raises(ReleaseError, match="not in release"):
            release.get_chunks(sorted(deleted))


def _results(release, embedder) -> list:
    out = []
    for profile in PROFILES:
        for query in QUERIES:
            out.append([h.model_dump() for h in release.search_vector(embedder.embed_query(query), profile, 7)])
            out.append([h.model_dump() for h in release.search_bm25(query, profile, 7)])
    return out


def test_reopening_reproduces_results(built):
    store, _ = built
    embedder = HashEmbedder()
    with open_active(store) as release:
        before = _results(release, embedder)
    with open_active(Store(store.root, store.chroma_url)) as release:
        assert _results(release, embedder) == before
    script = textwrap.dedent(
        f"""
        import json, sys
        from fixtures.index.embedders import HashEmbedder
        from valid.index import Store, open_active
        sys.path.insert(0, {str(TESTS_DIR)!r})
        from test_index_filter_soundness import _results
        with open_active(Store({str(store.root)!r}, {store.chroma_url!r})) as release:
            print(json.dumps(_results(release, HashEmbedder())))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env={**_env(), "PYTHONPATH": CHILD_PYTHONPATH}
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == before


def _env():
    import os

    return dict(os.environ)
