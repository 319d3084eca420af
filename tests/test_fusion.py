"""Reciprocal rank fusion: exact scores, total deterministic order, permutation invariance."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from valid.answer.fusion import rrf
from valid.answer.tuning import BUILT_IN
from valid.answer.models import ChannelHit


def hits(*ids):
    return [ChannelHit(chunk_id=c, rank=i, score=1.0 / i) for i, c in enumerate(ids, start=1)]


def reference(channels, k=BUILT_IN.rrf_k):
    """Direct RRF in rational arithmetic: the reference the implementation must agree with."""
    scores = {}
    for ranked in channels.values():
        for hit in ranked:
            scores[hit.chunk_id] = scores.get(hit.chunk_id, Fraction(0)) + Fraction(1, k + hit.rank)
    return sorted(scores, key=lambda c: (-scores[c], c)), scores


def test_a_chunk_in_both_channels_beats_chunks_in_one():
    fused = rrf({"vector": hits("a", "b", "c"), "bm25": hits("c", "d")})
    assert [f.chunk_id for f in fused][:1] == ["c"]
    assert fused[0].ranks == {"bm25": 1, "vector": 3}
    assert fused[0].score == float(Fraction(1, 61) + Fraction(1, 63))


def test_ties_break_on_chunk_id():
    fused = rrf({"vector": hits("z", "y"), "bm25": hits("y", "z")})
    assert [f.chunk_id for f in fused] == ["y", "z"]
    assert fused[0].score == fused[1].score


def test_top_limits_and_ranks_start_at_one():
    fused = rrf({"vector": hits("a", "b", "c", "d", "e", "f", "g")}, top=5)
    assert [f.rank for f in fused] == [1, 2, 3, 4, 5]


ids = st.lists(st.sampled_from([f"doc{i}#t/s{j}" for i in range(4) for j in range(4)]), unique=True, max_size=10)


@settings(max_examples=200, deadline=None)
@given(ids, ids, st.randoms(use_true_random=False))
def test_fusion_matches_reference_and_ignores_input_order(vector, bm25, rnd):
    channels = {"vector": hits(*vector), "bm25": hits(*bm25)}
    expected, scores = reference(channels)
    fused = rrf(channels)
    assert [f.chunk_id for f in fused] == expected
    assert all(f.score == float(scores[f.chunk_id]) for f in fused)
    # Same result whatever the order the channels come in.
    shuffled = list(channels.items())
    rnd.shuffle(shuffled)
    assert rrf(dict(shuffled)) == fused
    # Every fused contribution refers to an input rank.
    for f in fused:
        for name, rank in f.ranks.items():
            assert channels[name][rank - 1].chunk_id == f.chunk_id


@settings(max_examples=100, deadline=None)
@given(ids, ids)
def test_order_is_total_and_strict(vector, bm25):
    fused = rrf({"vector": hits(*vector), "bm25": hits(*bm25)})
    keys = [(-Fraction(f.score), f.chunk_id) for f in fused]
    assert keys == sorted(keys)
    assert len({f.chunk_id for f in fused}) == len(fused)


def test_non_finite_scores_and_duplicates_are_rejected():
    import math

    import pytest

    with pytest.raises(ValueError):
        rrf({"vector": [ChannelHit(chunk_id="a", rank=1, score=math.nan)]})
    with pytest.raises(ValueError):
        rrf({"vector": [ChannelHit(chunk_id="a", rank=1, score=1.0), ChannelHit(chunk_id="a", rank=2, score=0.5)]})
