"""The bundled Cloud TPU sample, exported by `valid export` and indexed with the offline embedder.

Skipped (with the reason) while `valid export` cannot export the sample.
"""

from pathlib import Path

import pytest
from click.testing import CliRunner

from valid.cli import main
from valid.index import Store, build_release, open_active, read_export

REPO = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample") / "chunks.jsonl"
    result = CliRunner().invoke(
        main,
        ["export", str(REPO / "sample_maps" / "cloud-tpu.ditamap"), "--scheme", str(REPO / "schemes" / "tpu-generations.ditamap"), "-o", str(out)],
    )
    # A failed export fails the tests that need it: it is never a reason to skip them.
    assert result.exit_code == 0 and out.exists(), str(result.exception or result.output)[:500]
    from valid.embed.offline import OfflineMiniLM

    embedder = OfflineMiniLM()
    store = Store(out.parent / "state")
    built = build_release(out, embedder, store)
    return store, embedder, read_export(out), built


def test_sample_release_holds_every_chunk_with_its_scope(sample):
    store, _, export, built = sample
    assert built.report.chunks == len(export.chunks) > 0
    with open_active(store) as release:
        assert release.profiles == export.profiles
        for profile in export.profiles:
            assert release.count_in_scope(profile) == sum(1 for c in export.chunks if c.scope[profile])
        assert [c.model_dump() for c in release.get_chunks([c.id for c in export.chunks])] == [c.model_dump() for c in export.chunks]


def test_sample_searches_stay_in_scope(sample):
    store, embedder, export, _ = sample
    truth = {c.id: c for c in export.chunks}
    questions = [
        "How many chips does each VM have?",
        "Which software version do I pass to gcloud --version?",
        "How much HBM does a chip have?",
        "Which frameworks are supported?",
        "How do I create a TPU VM?",
    ]
    with open_active(store) as release:
        for profile in release.profiles:
            for question in questions:
                hits = release.search_vector(embedder.embed_query(question), profile, 10) + release.search_bm25(question, profile, 10)
                assert hits and all(truth[h.chunk_id].scope[profile] for h in hits)


def test_sample_version_strings_match_literally(sample):
    store, _, export, _ = sample
    with open_active(store) as release:
        for profile in release.profiles:
            for term in ("v2-alpha-tpuv6e", "v2-alpha-tpuv5", "--version"):
                hits = release.search_bm25(term, profile, 50)
                chunks = release.get_chunks([h.chunk_id for h in hits])
                assert all(term in c.text or term in c.title for c in chunks)
                expected = {c.id for c in export.chunks if c.scope[profile] and (term in c.text or term in c.title)}
                assert {c.id for c in chunks} <= expected
