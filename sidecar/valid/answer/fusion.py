"""Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009).

score(d) = Σ over channels c that returned d of 1 / (k + rank_c(d)), ranks starting at 1; k is the
engine's `rrf_k` (valid.answer.tuning; 60, as in the paper).

Exact arithmetic (fractions) decides the order, so ties are real ties and are broken by chunk id;
the result does not depend on the order of the channels or of anything else in the input.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Mapping, Sequence

from valid.answer.models import ChannelHit, FusedHit
from valid.answer.tuning import BUILT_IN

def rrf(channels: Mapping[str, Sequence[ChannelHit]], k: int = BUILT_IN.rrf_k, top: int | None = None) -> list[FusedHit]:
    """Fuse ranked channel lists. Each channel must rank a chunk at most once, with ranks ≥ 1."""
    if k < 0:
        raise ValueError("RRF k must be non-negative")
    scores: dict[str, Fraction] = {}
    ranks: dict[str, dict[str, int]] = {}
    for name in sorted(channels):
        seen: set[str] = set()
        for hit in channels[name]:
            if hit.chunk_id in seen:
                raise ValueError(f"channel {name} ranks {hit.chunk_id} twice")
            if not math.isfinite(hit.score):
                raise ValueError(f"channel {name} gives {hit.chunk_id} a non-finite score")
            seen.add(hit.chunk_id)
            scores[hit.chunk_id] = scores.get(hit.chunk_id, Fraction(0)) + Fraction(1, k + hit.rank)
            ranks.setdefault(hit.chunk_id, {})[name] = hit.rank
    order = sorted(scores, key=lambda chunk_id: (-scores[chunk_id], chunk_id))
    if top is not None:
        order = order[:top]
    return [
        FusedHit(chunk_id=chunk_id, rank=i, score=float(scores[chunk_id]), ranks=dict(sorted(ranks[chunk_id].items())))
        for i, chunk_id in enumerate(order, start=1)
    ]
