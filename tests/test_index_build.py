"""Building releases: reuse, incremental embedding, verification, crash safety and the index report."""

import json
import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from fixtures.index.embedders import FailingEmbedder, HashEmbedder
from fixtures.index.exports import TopicSpec, ChunkSpec, sample_topics, write_export
from fixtures.index.stores import chroma_url, namespace_collections, store  # noqa: F401  (pytest fixtures)
from valid.errors import ExportContractError, ReleaseError
from valid.index import Store, activate, active_release_id, build_release, list_releases, open_active
from valid.index.fsutil import file_lock

TESTS_DIR = Path(__file__).parent
# Child processes import the same checkout as this test run (its sidecar), not whatever is installed.
CHILD_PYTHONPATH = os.pathsep.join([str(TESTS_DIR), str(TESTS_DIR.parent / "sidecar")])


def _edited(topics, topic_id="v6e", local="arch", suffix=" Edited."):
    return [
        t.with_chunks([replace(c, text=c.text + suffix) if c.local == local else c for c in t.chunks]) if t.topic_id == topic_id else t
        for t in topics
    ]


def test_unchanged_export_reuses_its_release_and_embeds_nothing(tmp_path):
    store = Store(tmp_path / "state")
    path = write_export(tmp_path / "chunks.jsonl", sample_topics())
    first = build_release(path, HashEmbedder(), store)
    embedder = HashEmbedder()
    again = build_release(write_export(tmp_path / "copy.jsonl", sample_topics(), source_commit="1" * 40), embedder, store)
    assert again.release_id == first.release_id and again.reused and again.activated
    assert embedder.texts == 0 and again.report.embedding.embedded == 0
    assert [r.id for r in list_releases(store)] == [first.release_id]


def test_an_edited_topic_re_embeds_only_its_changed_chunk_texts(tmp_path):
    store = Store(tmp_path / "state")
    build_release(write_export(tmp_path / "a.jsonl", sample_topics()), HashEmbedder(), store)
    embedder = HashEmbedder()
    result = build_release(write_export(tmp_path / "b.jsonl", _edited(sample_topics())), embedder, store)
    # The changed chunk text, and the one answer unit of it that changed (valid.index.units).
    assert (embedder.texts, result.report.embedding.embedded, result.report.embedding.reused) == (2, 1, 17)
    changes = result.report.changes
    assert (changes.text_changed, changes.added, changes.deleted, changes.rescoped, changes.unchanged) == (1, 0, 0, 0, 17)


def test_a_scope_only_change_embeds_nothing_and_rescopes(tmp_path):
    store = Store(tmp_path / "state")
    build_release(write_export(tmp_path / "a.jsonl", sample_topics()), HashEmbedder(), store)
    rescoped = [replace(t, scope=frozenset({"tpu7x"})) if t.topic_id == "queued-resources" else t for t in sample_topics()]
    embedder = HashEmbedder()
    result = build_release(write_export(tmp_path / "b.jsonl", rescoped), embedder, store)
    assert embedder.texts == 0 and result.report.changes.rescoped == 2 and not result.reused
    with open_active(store) as release:
        tpu7x = {h.chunk_id for h in release.search_bm25("queued-resources capacity", "tpu7x", 10)}
        v5p = {h.chunk_id for h in release.search_bm25("queued-resources capacity", "v5p", 10)}
    assert "topics/queued-resources.dita#queued-resources/body" in tpu7x
    assert not any("queued-resources.dita" in i for i in v5p)


def _run_killed_build(store: Store, export: Path, how: str, kill_after: int = 3) -> subprocess.CompletedProcess:
    """Build in a child process that SIGKILLs itself midway: after N embeddings, or just before registering."""
    script = textwrap.dedent(
        f"""
        import os, signal
        from fixtures.index.embedders import HashEmbedder, KillingEmbedder
        from valid.index import Store, build_release
        import valid.index.build as build
        embedder = HashEmbedder()
        if {how!r} == "embedding":
            embedder = KillingEmbedder(kill_after={kill_after})
        else:
            build._register = lambda *args: os.kill(os.getpid(), signal.SIGKILL)
        build_release({str(export)!r}, embedder, Store({str(store.root)!r}, {store.chroma_url!r}), embed_batch=1)
        print("finished")
        """
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": CHILD_PYTHONPATH},
    )


@pytest.mark.parametrize("how", ["embedding", "before-registration"])
def test_a_killed_build_leaves_the_previous_release_active_and_a_rerun_completes(store, tmp_path, how):
    first = build_release(write_export(tmp_path / "a.jsonl", sample_topics()), HashEmbedder(), store)
    active_before = store.active_path.read_bytes()
    new_topics = _edited(sample_topics(), "v5p", "arch") + [
        TopicSpec("new", "New", frozenset({"v6e"}), tuple(ChunkSpec(f"c{i}", f"New v6e text {i}.") for i in range(6)))
    ]
    export = write_export(tmp_path / "b.jsonl", new_topics)

    done = _run_killed_build(store, export, how)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert "finished" not in done.stdout
    assert store.active_path.read_bytes() == active_before
    assert [r.id for r in list_releases(store)] == [first.release_id]
    with open_active(store) as release:
        assert release.id == first.release_id and len(release.all_chunk_ids()) == 18

    embedder = HashEmbedder()
    second = build_release(export, embedder, store)
    assert second.activated and active_release_id(store) == second.release_id
    # the cache kept what the killed build had embedded: the rerun embeds only the rest of the chunk
    # texts (and, killed before registration, not even the answer units: they were cached too)
    assert second.report.embedding.embedded == (7 - 3 if how == "embedding" else 0)
    assert how == "embedding" or embedder.texts == 0
    assert namespace_collections(store) == sorted(store.collection_name(r) for r in (first.release_id, second.release_id))
    assert not any(store.staging_dir.iterdir())


def test_an_injected_failure_leaves_no_release_and_the_active_pointer_untouched(store, tmp_path):
    first = build_release(write_export(tmp_path / "a.jsonl", sample_topics()), HashEmbedder(), store)
    active_before = store.active_path.read_bytes()
    with pytest.raises(RuntimeError, match="injected"):
        build_release(write_export(tmp_path / "b.jsonl", _edited(sample_topics())), FailingEmbedder(fail_after=0), store)
    assert store.active_path.read_bytes() == active_before
    assert [r.id for r in list_releases(store)] == [first.release_id]
    assert namespace_collections(store) == [store.collection_name(first.release_id)]
    assert not any(store.staging_dir.iterdir())


def test_a_concurrent_activation_during_a_build_wins_and_the_build_reports_it(tmp_path):
    store = Store(tmp_path / "state")
    a = build_release(write_export(tmp_path / "a.jsonl", sample_topics()), HashEmbedder(), store).release_id
    b = build_release(write_export(tmp_path / "b.jsonl", _edited(sample_topics(), suffix=" B.")), HashEmbedder(), store, activate=False).release_id

    def operator_activates_b(stage, done, total):
        if stage == "embed" and active_release_id(store) == a:
            activate(store, b, expected=a)

    with pytest.raises(ReleaseError, match="built and registered but not activated: active release changed"):
        build_release(write_export(tmp_path / "c.jsonl", _edited(sample_topics(), suffix=" C.")), HashEmbedder(), store, progress=operator_activates_b)
    assert active_release_id(store) == b
    assert len(list_releases(store)) == 3


def test_a_second_build_on_the_same_state_is_refused(tmp_path):
    store = Store(tmp_path / "state")
    store.root.mkdir(parents=True)
    with file_lock(store.build_lock):
        with pytest.raises(ReleaseError, match="another `valid index` is running"):
            build_release(write_export(tmp_path / "a.jsonl", sample_topics()), HashEmbedder(), store)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write_lines(path: Path, lines: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (lambda lines: lines + [lines[1]], r":20: duplicate chunk id .* \(first on line 2\)"),
        (lambda lines: [lines[0], {**lines[1], "digest": "0" * 64}] + lines[2:], r":2: chunk .* digest is not sha256"),
        (lambda lines: [lines[0], {**lines[1], "scope": {"v5p": True}}] + lines[2:], r":2: chunk .* scope keys"),
        (lambda lines: [lines[0], {**lines[1], "scope": {"v5p": False, "v6e": False, "tpu7x": False}}] + lines[2:], r":2: .* no profile's scope"),
        (lambda lines: [lines[0], {**lines[1], "type": "chapter"}] + lines[2:], r":2: invalid chunk: type"),
        (lambda lines: lines[1:], r":1: the first line is not an export header"),
        (lambda lines: lines[:-1], r"header counts 18 chunks, the file has 17"),
        (lambda lines: [{**lines[0], "profiles": [{**lines[0]["profiles"][0], "name": "v5p OR 1"}] + lines[0]["profiles"][1:]}] + lines[1:], r":1: profile name"),
    ],
)
def test_an_invalid_export_is_rejected_with_file_and_line(tmp_path, corrupt, message):
    lines = _lines(write_export(tmp_path / "good.jsonl", sample_topics()))
    bad = _write_lines(tmp_path / "bad.jsonl", corrupt(lines))
    store = Store(tmp_path / "state")
    with pytest.raises(ExportContractError, match=message):
        build_release(bad, HashEmbedder(), store)
    assert not store.active_path.exists()


def test_the_report_counts_scope_origins_embeddings_changes_and_findings(tmp_path):
    store = Store(tmp_path / "state")
    build_release(write_export(tmp_path / "a.jsonl", sample_topics()), HashEmbedder(), store)
    topics = [t for t in _edited(sample_topics()) if t.topic_id != "tpu7x"]
    finding = {"path": "topics/create-tpu-vm.dita", "line": 41, "value": "v2-alpha-tpuv6e", "owners": ["v6e"],
               "chunk_id": "topics/create-tpu-vm.dita#create-tpu-vm/verify", "shown_to": ["v5p", "v6e", "tpu7x"]}
    result = build_release(write_export(tmp_path / "b.jsonl", topics), HashEmbedder(), store, findings=[finding])
    report = result.report
    assert report.chunks == 16 and report.per_profile == {"v5p": 10, "v6e": 10, "tpu7x": 5}
    assert report.by_scope_origin == {"cascaded": 6, "element": 7, "shared": 3}
    assert (report.embedding.embedded, report.embedding.reused) == (1, 15)
    assert (report.changes.deleted, report.changes.text_changed) == (2, 1)
    assert report.changes.deleted_ids == ["topics/tpu7x.dita#tpu7x/arch", "topics/tpu7x.dita#tpu7x/frameworks"]
    assert report.findings == [finding]
    assert [r.active for r in report.releases].count(True) == 1
    saved = json.loads((Path(result.path) / "report.json").read_text())
    assert saved["release_id"] == result.release_id and saved["changes"]["deleted"] == 2
    page = (Path(result.path) / "report.html").read_text()
    for text in ("16</b><span>chunks scoped", "Narrowed by element profiling: 7", "topics/create-tpu-vm.dita, line 41",
                 "v2-alpha-tpuv6e, owned by v6e", "deleted 2", "in_v5p, in_v6e, in_tpu7x"):
        assert text in page


def test_a_release_built_by_another_process_is_searchable_through_an_open_store(store, tmp_path):
    """The service keeps its store open while `valid index` runs elsewhere, then opens the new release."""
    first = build_release(write_export(tmp_path / "a.jsonl", sample_topics()), HashEmbedder(), store)
    old = open_active(store)
    export = write_export(tmp_path / "b.jsonl", [t for t in sample_topics() if t.topic_id != "v5p"])
    script = textwrap.dedent(
        f"""
        from fixtures.index.embedders import HashEmbedder
        from valid.index import Store, build_release
        print(build_release({str(export)!r}, HashEmbedder(), Store({str(store.root)!r}, {store.chroma_url!r})).release_id)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": CHILD_PYTHONPATH})
    assert done.returncode == 0, done.stderr
    query = HashEmbedder().embed_query("v5p chip HBM pod torus")
    with open_active(store) as new:
        assert new.id == done.stdout.strip() != first.release_id
        assert not any("v5p.dita" in h.chunk_id for h in new.search_vector(query, "v5p", 20))
    assert any("v5p.dita" in h.chunk_id for h in old.search_vector(query, "v5p", 20))  # the pinned old release still answers
    old.close()


def test_a_registered_release_whose_collection_is_gone_is_rebuilt_not_reused(tmp_path):
    store = Store(tmp_path / "state")
    export = write_export(tmp_path / "a.jsonl", sample_topics())
    first = build_release(export, HashEmbedder(), store)
    store.client.delete_collection(store.collection_name(first.release_id))
    with pytest.raises(ReleaseError, match="missing from Chroma"):
        open_active(store)
    embedder = HashEmbedder()
    again = build_release(export, embedder, store)
    assert again.release_id == first.release_id and not again.reused and embedder.texts == 0
    with open_active(store) as release:
        assert len(release.search_bm25("--version", "v6e", 10)) > 0


def test_distinct_embedding_inputs_are_embedded_once(tmp_path):
    # Reused boilerplate: the same titled text in three topics is three chunks but one vector.
    same = ChunkSpec("note", "Stop the VM before you change its accelerator type.", title="Before you start")
    topics = [TopicSpec(f"t{i}", f"Topic {i}", frozenset({"v5p", "v6e", "tpu7x"}), (same, ChunkSpec("own", f"Own text {i}."))) for i in range(3)]
    embedder = HashEmbedder()
    result = build_release(write_export(tmp_path / "chunks.jsonl", topics), embedder, Store(tmp_path / "state"))
    assert result.report.chunks == 6
    # Four chunk inputs, and four distinct answer units (the note's sentence once, valid.index.units).
    assert embedder.texts == 4 + 4 and result.report.embedding.embedded == 4
