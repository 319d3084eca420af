"""The BM25 channel on real SQLite FTS5: literal version strings and flags, quoted user text, scope before MATCH."""

import pytest

from fixtures.index.exports import ChunkSpec, TopicSpec, make_export, sample_topics
from valid.index import fts
from valid.index.manifest import Bm25Settings

SETTINGS = Bm25Settings()


def _db(tmp_path, topics):
    header, chunks = make_export(topics)
    path = tmp_path / "fts.sqlite"
    fts.build(path, chunks, [p.name for p in header.profiles], SETTINGS)
    return fts.connect_readonly(path), {c.id: c for c in chunks}


@pytest.fixture
def sample(tmp_path):
    return _db(tmp_path, sample_topics())


def _search(db, text, profile, k=50):
    return fts.search(db, text, profile, k, SETTINGS)


def test_version_string_matches_literally(sample):
    db, chunks = sample
    hits = _search(db, "v2-alpha-tpuv6e", "v6e")
    assert hits and all("v2-alpha-tpuv6e" in chunks[i].text for i, _ in hits)
    assert {i.split("/")[-1] for i, _ in hits} == {"step-v6e", "row-v6e"}
    # the other generations' images share 'v2' and 'alpha' but are not the same term
    assert _search(db, "v2-alpha-tpuv6e", "v5p") == []


def test_flag_matches_literally(sample):
    db, chunks = sample
    for profile in ("v5p", "v6e", "tpu7x"):
        hits = _search(db, "--version", profile)
        assert hits and all("--version" in chunks[i].text for i, _ in hits)


def test_part_of_a_hyphenated_term_still_finds_it(sample):
    db, chunks = sample
    hits = _search(db, "tpuv6e", "v6e")
    assert {i.split("/")[-1] for i, _ in hits} == {"step-v6e", "row-v6e"}
    literal_first = _search(db, "version", "v6e")
    assert literal_first and any("--version" in chunks[i].text for i, _ in literal_first)


@pytest.mark.parametrize(
    "query", ['NOT', 'OR', 'AND', '"', '"unbalanced', '(', ')', 'a:b', 'title:tpu', '-', '*', 'NEAR(a b)', '^tpu', "v5p'", "{x}", ""]
)
def test_fts_syntax_in_user_text_is_plain_text(sample, query):
    db, chunks = sample
    for hit_id, _ in _search(db, query, "v5p"):
        assert chunks[hit_id].scope["v5p"]


def test_operator_words_are_searched_as_words(sample):
    db, chunks = sample
    hits = _search(db, "NOT guaranteed", "v5p")
    assert hits[0][0].endswith("queued-resources/spot")


def test_top_k_is_taken_inside_the_scope(tmp_path):
    # Ten tpu7x chunks say 'capacity' often; one v5p chunk says it once. A filter applied after
    # LIMIT would find nothing for v5p with k=1.
    loud = [ChunkSpec(f"c{i}", "capacity capacity capacity reservation capacity") for i in range(10)]
    topics = [
        TopicSpec("loud", "Capacity", frozenset({"tpu7x"}), tuple(loud)),
        TopicSpec("quiet", "Quotas", frozenset({"v5p"}), (ChunkSpec("q", "Check the quota and the capacity of your project."),)),
    ]
    db, _ = _db(tmp_path, topics)
    assert [i for i, _ in _search(db, "capacity", "v5p", k=1)] == ["topics/quiet.dita#quiet/q"]


def test_results_are_ordered_by_bm25_then_id(sample):
    db, _ = sample
    hits = _search(db, "gcloud tpu-vm create --version", "v6e")
    assert len(hits) >= 3
    assert hits == sorted(hits, key=lambda h: (h[1], h[0]))


def test_quote_query_escapes_quotes_and_ors_tokens():
    assert fts.quote_query('say "hi" NOT') == '"say" OR """hi""" OR "NOT"'
    assert fts.quote_query("   ") is None


def test_split_column_keeps_parts_of_compound_words():
    assert fts.split_column("Use --version v2-alpha-tpuv6e and tpu-vm-tf-2.18.0-pjrt now") == "version\nv2 alpha tpuv6e\ntpu vm tf 2.18.0 pjrt"


def test_indexing_is_linear_in_token_length(tmp_path):
    # A 60 KB unbroken token (a base64 blob, a minified line) took 26 s when compound words were
    # found with a backtracking regex; linear work takes milliseconds. 10 s is generous on any machine.
    import time

    blob = "A" * 60_000
    topics = [
        TopicSpec("blob", "Blob", frozenset({"v5p"}), (ChunkSpec("b", f"{blob} and {blob}-tail", ), ChunkSpec("c", "x_" + blob),)),
    ]
    started = time.perf_counter()
    db, _ = _db(tmp_path, topics)
    assert time.perf_counter() - started < 10
    assert [i for i, _ in _search(db, "tail", "v5p")] == ["topics/blob.dita#blob/b"]


@pytest.mark.parametrize("text", ["a-b c", "  --x\t_y_ z-", "é-ü\u00a0q_r", "plain words only", "-_- a--b__c"])
def test_split_column_finds_exactly_the_words_that_hold_a_hyphen_or_underscore(text):
    import re

    words = [w for w in text.split() if re.search(r"[-_]", w)]
    expected = [" ".join(re.sub(r"[-_]+", " ", w).split()) for w in words]
    assert fts.split_column(text) == "\n".join(e for e in expected if e)
