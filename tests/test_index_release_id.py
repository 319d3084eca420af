"""Release identity: sha256 of a canonical manifest of every behaviour-changing input, and nothing else."""

from dataclasses import replace

import pytest

from fixtures.index.embedders import HashEmbedder
from fixtures.index.exports import ChunkSpec, sample_topics, write_export
from valid.index import IndexSettings, Manifest, Store, build_release, identity_for, read_export
from valid.index.manifest import Bm25Settings, HnswSettings


def _release_id(tmp_path, name="chunks.jsonl", topics=None, embedder_id="hash-bow@1", dimension=64, settings=None, **export_options):
    path = write_export(tmp_path / name, topics if topics is not None else sample_topics(), **export_options)
    return identity_for(read_export(path), embedder_id, dimension, settings).release_id


def _edit_text(topics):
    first = topics[0]
    chunk = first.chunks[0]
    return [first.with_chunks([replace(chunk, text=chunk.text + " Edited.")] + list(first.chunks[1:]))] + topics[1:]


def _rescope_topic(topics):
    return [replace(t, scope=frozenset({"v5p", "v6e", "tpu7x"})) if t.topic_id == "queued-resources" else t for t in topics]


def _delete_chunk(topics):
    return [t.with_chunks(t.chunks[:-1]) if t.topic_id == "runtimes" else t for t in topics]


def _add_topic(topics):
    from fixtures.index.exports import TopicSpec

    return topics + [TopicSpec("new", "New topic", frozenset({"v6e"}), (ChunkSpec("body", "A new v6e page."),))]


MATERIAL = {
    "chunk text": dict(topics=_edit_text(sample_topics())),
    "chunk scope": dict(topics=_rescope_topic(sample_topics())),
    "deleted chunk": dict(topics=_delete_chunk(sample_topics())),
    "added topic": dict(topics=_add_topic(sample_topics())),
    "profile labels": dict(labels={"v5p": ["TPU v5p"], "v6e": ["Trillium"], "tpu7x": ["Ironwood"]}),
    "scheme digest": dict(scheme_digest="c" * 64),
    "stylesheet digest": dict(stylesheet_digest="d" * 64),
    "exporter version": dict(exporter_version="0.2.0"),
    "embedder": dict(embedder_id="hash-bow@2"),
    "dimension": dict(dimension=32),
    "bm25 tokenizer": dict(settings=IndexSettings(bm25=Bm25Settings(tokenizer="unicode61"))),
    "bm25 weights": dict(settings=IndexSettings(bm25=Bm25Settings(weights=(1.0, 1.0, 1.0)))),
    "index schema version": dict(settings=IndexSettings(schema_version="99")),
    "hnsw ef_search": dict(settings=IndexSettings(hnsw=HnswSettings(ef_search=100))),
    "hnsw max_neighbors": dict(settings=IndexSettings(hnsw=HnswSettings(max_neighbors=16))),
}


def test_release_id_changes_with_every_behaviour_changing_input(tmp_path):
    base = _release_id(tmp_path)
    ids = {name: _release_id(tmp_path, f"{i}.jsonl", **change) for i, (name, change) in enumerate(MATERIAL.items())}
    for name, release_id in ids.items():
        assert release_id != base, f"changing the {name} kept the release id"
    assert len(set(ids.values())) == len(ids), "two different changes gave the same release id"


def test_release_id_ignores_paths_commits_warnings_and_run_settings(tmp_path):
    from valid.contracts import ExportWarning

    base = _release_id(tmp_path)
    assert _release_id(tmp_path, "elsewhere/other-name.jsonl") == base
    assert _release_id(tmp_path, "c.jsonl", source_commit="4c2e91a" * 5 + "00000") == base
    assert _release_id(tmp_path, "w.jsonl", warnings=[ExportWarning(path="t.dita", line=3, feature="conkeyref", message="m")]) == base


def test_identical_builds_in_different_stores_and_batch_sizes_get_one_release_id(tmp_path):
    path = write_export(tmp_path / "chunks.jsonl", sample_topics())
    one = build_release(path, HashEmbedder(), Store(tmp_path / "a"), embed_batch=1)
    two = build_release(path, HashEmbedder(), Store(tmp_path / "b"), embed_batch=64)
    assert one.release_id == two.release_id
    assert one.release_id == _release_id(tmp_path)


def test_manifest_round_trips_to_its_release_id(tmp_path):
    path = write_export(tmp_path / "chunks.jsonl", sample_topics())
    result = build_release(path, HashEmbedder(), Store(tmp_path / "state"))
    manifest = Manifest.model_validate_json((tmp_path / "state" / "releases" / result.release_id / "release.json").read_bytes())
    assert manifest.release_id == result.release_id == manifest.identity.release_id
    assert manifest.identity.embedder.id == "hash-bow@1" and manifest.identity.embedder.dimension == 64


def test_the_build_uses_the_settings_its_manifest_names(tmp_path):
    import sqlite3

    path = write_export(tmp_path / "chunks.jsonl", sample_topics())
    settings = IndexSettings(hnsw=HnswSettings(ef_search=123, max_neighbors=24), bm25=Bm25Settings(tokenizer="unicode61"))
    store = Store(tmp_path / "state")
    result = build_release(path, HashEmbedder(), store, settings=settings)
    collection = store.client.get_collection(store.collection_name(result.release_id), embedding_function=None)
    hnsw = collection.configuration["hnsw"]
    assert (hnsw["ef_search"], hnsw["max_neighbors"], hnsw["space"]) == (123, 24, "cosine")
    db = sqlite3.connect(tmp_path / "state" / "releases" / result.release_id / "fts.sqlite")
    (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()
    assert "tokenize = \"unicode61\"" in sql


@pytest.mark.parametrize("change", ["chunk text", "chunk scope", "embedder"])
def test_a_material_change_builds_a_new_release_not_a_reuse(tmp_path, change):
    store = Store(tmp_path / "state")
    first = build_release(write_export(tmp_path / "a.jsonl", sample_topics()), HashEmbedder(), store)
    options = dict(MATERIAL[change])
    embedder = HashEmbedder(tag="2") if options.pop("embedder_id", None) else HashEmbedder()
    second = build_release(write_export(tmp_path / "b.jsonl", options.pop("topics", sample_topics())), embedder, store)
    assert second.release_id != first.release_id and not second.reused


def test_a_release_built_by_an_incompatible_index_schema_is_refused_not_queried(tmp_path):
    """A release whose stored scope fields this code would filter wrongly must not open (fail closed)."""
    import json

    from valid.errors import ReleaseError
    from valid.index import open_release

    store = Store(tmp_path / "state")
    result = build_release(write_export(tmp_path / "a.jsonl", sample_topics()), HashEmbedder(), store)
    manifest_path = store.release_dir(result.release_id) / "release.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["identity"]["vectors"]["scope_values"] = "int 1/0"
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ReleaseError, match="another version of VALID"):
        open_release(store, result.release_id)
