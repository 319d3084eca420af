"""Incremental builds equal clean full builds (the clean rebuild is the oracle).

For random sequences of topic edits, retitles, adds, deletes and profiling changes, a state directory that
built every intermediate export (reusing its embedding cache) ends with exactly the release a fresh
state directory builds from the final export: same release id, chunk ids, texts, scopes, metadata,
vectors and rankings for generated queries, in both channels and every profile.
"""

import sqlite3
import tempfile
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures.index.embedders import HashEmbedder
from fixtures.index.exports import PROFILES, ChunkSpec, TopicSpec, sample_topics, write_export
from valid.index import Store, build_release, open_active

WORDS = ["tpu", "vm", "chip", "hbm", "pod", "create", "delete", "--version", "v2-alpha-tpuv6e", "jax", "spot", "queue", "NOT", "slice"]
SCOPES = [frozenset(s) for s in (PROFILES, {"v5p"}, {"v6e"}, {"tpu7x"}, {"v5p", "v6e"}, {"v6e", "tpu7x"})]

text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join)
scope = st.sampled_from(SCOPES)
chunk_scope = st.one_of(st.none(), scope)
index = st.integers(min_value=0, max_value=50)


@st.composite
def topic(draw, name):
    chunks = draw(st.lists(st.tuples(text, chunk_scope), min_size=1, max_size=3))
    return TopicSpec(name, f"Title {name}", draw(scope), tuple(ChunkSpec(f"c{i}", t, "", "section", s) for i, (t, s) in enumerate(chunks)))


operation = st.one_of(
    st.tuples(st.just("edit"), index, index, text),
    st.tuples(st.just("add_topic"), st.integers(0, 10**6)),
    st.tuples(st.just("delete_topic"), index),
    st.tuples(st.just("rescope_topic"), index, scope),
    st.tuples(st.just("rescope_chunk"), index, index, chunk_scope),
    st.tuples(st.just("add_chunk"), index, text),
    st.tuples(st.just("delete_chunk"), index, index),
    st.tuples(st.just("retitle"), index, text),
)


def apply(topics: list[TopicSpec], op, draw_topic) -> list[TopicSpec]:
    kind = op[0]
    if kind == "add_topic":
        return topics + [draw_topic(f"t{op[1]}")] if all(t.topic_id != f"t{op[1]}" for t in topics) else topics
    if not topics:
        return topics
    i = op[1] % len(topics)
    t = topics[i]
    chunks = list(t.chunks)
    if kind == "delete_topic":
        return topics[:i] + topics[i + 1 :]
    if kind == "rescope_topic":
        new = replace(t, scope=op[2])
    elif kind == "retitle":
        new = replace(t, title=op[2])
    elif kind == "add_chunk":
        # A name no chunk of the topic has (after deletes, len(chunks) can name one that exists).
        taken = {c.local for c in chunks}
        name = next(f"c{n}" for n in range(100, 100 + len(chunks) + 2) if f"c{n}" not in taken)
        new = t.with_chunks(chunks + [ChunkSpec(name, op[2])])
    elif not chunks:
        return topics
    else:
        j = op[2] % len(chunks)
        if kind == "edit":
            chunks[j] = replace(chunks[j], text=op[3])
        elif kind == "rescope_chunk":
            chunks[j] = replace(chunks[j], scope=op[3])
        elif kind == "delete_chunk":
            del chunks[j]
        new = t.with_chunks(chunks)
    return topics[:i] + [new] + topics[i + 1 :]


def snapshot(store: Store, embedder, queries: list[str]) -> dict:
    """Everything observable about the active release."""
    with open_active(store) as release:
        db = sqlite3.connect(release.path / "fts.sqlite")
        rows = db.execute("SELECT * FROM chunks ORDER BY rowid").fetchall()
        fts_rows = db.execute("SELECT rowid, title, text, split FROM chunks_fts ORDER BY rowid").fetchall()
        db.close()
        collection = store.client.get_collection(release.manifest.operational.collection, embedding_function=None)
        got = collection.get(include=["metadatas", "embeddings"])
        vectors = sorted((i, m, [float(x) for x in e]) for i, m, e in zip(got["ids"], got["metadatas"], got["embeddings"]))
        rankings = {}
        for profile in PROFILES:
            for query in queries:
                rankings[profile, query, "vector"] = release.search_vector(embedder.embed_query(query), profile, 5)
                rankings[profile, query, "bm25"] = release.search_bm25(query, profile, 5)
        return {"id": release.id, "rows": rows, "fts": fts_rows, "vectors": vectors, "rankings": rankings}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_incremental_build_equals_a_clean_full_build(data):
    draw_topic = lambda name: data.draw(topic(name))  # noqa: E731
    topics = [draw_topic(f"t{i}") for i in range(data.draw(st.integers(1, 4)))]
    ops = data.draw(st.lists(operation, min_size=1, max_size=4))
    queries = data.draw(st.lists(text, min_size=1, max_size=3))
    embedder = HashEmbedder(dimension=16)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        incremental = Store(root / "incremental")
        build_release(write_export(root / "0.jsonl", topics), embedder, incremental, allow_empty=True)
        for n, op in enumerate(ops, start=1):
            topics = apply(topics, op, draw_topic)
            build_release(write_export(root / f"{n}.jsonl", topics), embedder, incremental, allow_empty=True)
        clean = Store(root / "clean")
        build_release(write_export(root / "final.jsonl", topics), HashEmbedder(dimension=16), clean, allow_empty=True)
        assert snapshot(incremental, embedder, queries) == snapshot(clean, embedder, queries)


def test_incremental_build_with_the_offline_embedder_equals_a_clean_build(tmp_path):
    from valid.embed.offline import OfflineMiniLM

    embedder = OfflineMiniLM()
    topics = sample_topics()
    incremental = Store(tmp_path / "incremental")
    build_release(write_export(tmp_path / "0.jsonl", topics), embedder, incremental, allow_empty=True)
    topics = [t for t in topics if t.topic_id != "tpu7x"]  # delete a topic
    topics = [replace(t, scope=frozenset({"v6e"})) if t.topic_id == "queued-resources" else t for t in topics]  # rescope
    topics = [
        t.with_chunks([replace(c, text=c.text + " Use a reservation.") if c.local == "arch" else c for c in t.chunks]) if t.topic_id == "v5p" else t
        for t in topics
    ]  # edit
    result = build_release(write_export(tmp_path / "1.jsonl", topics), embedder, incremental, allow_empty=True)
    assert result.report.embedding.embedded == 1
    clean = Store(tmp_path / "clean")
    build_release(write_export(tmp_path / "final.jsonl", topics), OfflineMiniLM(), clean, allow_empty=True)
    queries = ["How do I create a TPU VM?", "HBM per v5p chip", "queued resources", "--version v2-alpha-tpuv6e"]
    assert snapshot(incremental, embedder, queries) == snapshot(clean, embedder, queries)


def test_vector_hits_tied_at_the_kth_place_are_cut_by_chunk_id_in_a_clean_and_an_incremental_build(tmp_path):
    # Six chunks with one text share one vector; k=3 cuts the tie. The incremental store met the
    # late-named chunks first (they were built first), the clean one met them in export order.
    embedder = HashEmbedder(dimension=16)
    same = "Create the TPU VM with the queued resource"
    late = TopicSpec("zz", "Late", frozenset(PROFILES), tuple(ChunkSpec(f"c{i}", same) for i in range(3)))
    early = TopicSpec("aa", "Early", frozenset(PROFILES), tuple(ChunkSpec(f"c{i}", same) for i in range(3)))
    incremental = Store(tmp_path / "incremental")
    build_release(write_export(tmp_path / "0.jsonl", [late]), embedder, incremental, allow_empty=True)
    build_release(write_export(tmp_path / "1.jsonl", [early, late]), embedder, incremental, allow_empty=True)
    clean = Store(tmp_path / "clean")
    build_release(write_export(tmp_path / "final.jsonl", [early, late]), embedder, clean, allow_empty=True)
    for store in (incremental, clean):
        with open_active(store) as release:
            hits = release.search_vector(embedder.embed_query(same), PROFILES[0], 3)
        assert [h.chunk_id.split("#")[0] for h in hits] == ["topics/aa.dita"] * 3
