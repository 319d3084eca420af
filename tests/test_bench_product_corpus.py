"""The generated versioned doc set of bench/ask.py is a valid, deterministic export with real version structure.

The at-scale ask benchmark is only worth its numbers if its doc set reads like a versioned
reference: contract-valid, byte-identical for the same seed, chunks shared by many versions beside
version-specific variants, and questions whose scope resolves as the benchmark reports them.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from product_corpus import generate  # noqa: E402

from valid.answer.scope import resolve_scope  # noqa: E402
from valid.export.file import read_export  # noqa: E402


@pytest.fixture(scope="module")
def corpus():
    return generate(profiles=20, chunks=2000, seed=3)


def test_same_seed_same_bytes_and_the_export_reads_back(corpus, tmp_path):
    first = corpus.write(tmp_path / "a.jsonl").read_bytes()
    second = generate(profiles=20, chunks=2000, seed=3).write(tmp_path / "b.jsonl").read_bytes()
    assert first == second
    assert first != generate(profiles=20, chunks=2000, seed=4).write(tmp_path / "c.jsonl").read_bytes()
    export = read_export(tmp_path / "a.jsonl")
    assert len(export.chunks) >= 2000
    assert [p.name for p in export.header.profiles] == [f"quarry-{v // 10 + 1}.{v % 10}" for v in range(20)]


def test_chunks_are_shared_across_versions_and_vary_by_version(corpus):
    widths = [sum(c.scope.values()) for c in corpus.chunks]
    assert sum(w == 20 for w in widths) > 0.05 * len(widths)  # kept by every version
    assert sum(w == 1 for w in widths) > 0.01 * len(widths)  # true in one version only
    assert all(w >= 1 for w in widths)
    variants = [c for c in corpus.chunks if "~" in c.id]
    assert len(variants) > 0.2 * len(widths)
    assert any(c.type == "table" and c.text.startswith("Option | Default | Description") for c in corpus.chunks)
    for profile in corpus.header.profiles:
        assert corpus.header.counts.per_profile[profile.name] > 0


def test_scoped_questions_name_one_version_and_unscoped_ones_none(corpus):
    kinds = {q.kind for q in corpus.questions}
    assert kinds == {"scoped", "unscoped"}
    for question in corpus.questions:
        resolution = resolve_scope(question.text, corpus.header.profiles, None)
        assert not resolution.unknown, question
        assert len(resolution.profiles) == (1 if question.kind == "scoped" else 0), question
