"""No generation named: which values an unscoped question may be answered from, or offered.

Pure functions over the retrievals of the values the question narrows to (every value, a product's,
or a partial version's): whether shared content answers for all of them, which values have content
of their own, and which a clearly better-matching value dominates. The answer engine
(valid.answer.decide) runs the flow; the numbers here were set on the trap sets' dev halves
(docs/answer.md, "Calibration").
"""

from __future__ import annotations

from typing import Mapping, Sequence

from valid.audit.owned import base_id
from valid.answer.models import RetrievalOutcome
from valid.answer.tuning import BUILT_IN, Tuning

# The question is about shared content only when, for every value, the first SHARED_DEPTH fused
# chunks are shared by every value and hold no owned value.
SHARED_DEPTH = 3
# A shared answer is written from at most this many of the top fused chunks the builds share (the
# retrieval's own top), then from the shared chunks below them (`shared_chunks`).
SHARED_TOP = 5
# Variants embedded as one text score the same to the last bits; a float's rounding is the only slack.
_SAME_VECTOR = 1e-6
# The floors and margins of offering a value (choice_floor, dominance_*) are the engine's Tuning
# (valid.answer.tuning), which documents their calibration.


def undominated(
    offered: Sequence[str], retrievals: dict[str, RetrievalOutcome], tuning: Tuning = BUILT_IN
) -> list[str]:
    """The values no other value dominates. A value is dominated when it reaches the question only
    by meaning (its content misses the coverage floor) while another covers `dominance_coverage` more
    of the question's words and is `dominance_similarity` nearer in meaning, or when it is offered
    only as near while another is `dominance_near_gap` nearer in meaning. Equal content with
    different values (the usual reason to ask) dominates nothing, nor does a synonym the
    dominated value's content uses for one word of a short question."""

    def beaten(p: str) -> bool:
        mine = retrievals[p]
        if not mine.relevant and any(
            (retrievals[q].best_similarity or 0.0) >= (mine.best_similarity or 0.0) + tuning.dominance_near_gap for q in offered
        ):
            return True  # offered only as near, beside one far nearer in meaning
        return mine.coverage < tuning.coverage_floor and any(
            retrievals[q].coverage >= mine.coverage + tuning.dominance_coverage
            and (
                (retrievals[q].best_similarity or 0.0) >= (mine.best_similarity or 0.0) + tuning.dominance_similarity
                # Offered only as near (it misses both floors), beside one that covers far more.
                or not mine.relevant
            )
            for q in offered
        )

    return [p for p in offered if not beaten(p)]


def has_own(retrieval: RetrievalOutcome, pool: Sequence[str], listed: Sequence) -> bool:
    """Some of the value's best chunks are its own (not in scope for every value of the pool), or
    shared chunks of a topic that says something different per value below them (`listed`: the
    chunks retrieved for any value of the pool; see topic_differs)."""
    everyone = set(pool)
    return any(
        not everyone <= set(chunk.scope) or topic_differs(chunk, listed, everyone)
        for chunk in retrieval.chunks[:SHARED_DEPTH]
    )


def shared_only(retrievals: dict[str, RetrievalOutcome], pool: Sequence[str], owned) -> bool:
    """For every value, the first SHARED_DEPTH fused chunks are shared by every value of the pool,
    hold no value the doc set ties to some of them, and their topic says the same to every value."""
    everyone = set(pool)
    listed = [chunk for retrieval in retrievals.values() for chunk in retrieval.chunks]
    for retrieval in retrievals.values():
        top = retrieval.chunks[:SHARED_DEPTH]
        if not top:
            return False
        for chunk in top:
            if set(chunk.scope) != everyone:
                return False
            if any(not everyone <= set(owners) for _, owners in owned_in(chunk.text, owned)):
                return False
            if topic_differs(chunk, listed, everyone):
                return False
    return True


def nearest_passage_builds(
    retrievals: Mapping[str, RetrievalOutcome], pool: Sequence[str], profiles: Sequence[str], margin: float
) -> list[str]:
    """The builds of the pool that keep the passage nearest the question in meaning, when every other
    build's nearest passage is at least `margin` further from it: the writers profiled the topic the
    question is about for those builds, and the rest only have something else. A passage is one chunk
    or its variants that differ only by each build's name (`<id>~<profiles>`, embedded by the index
    as one text: one identity, one vector). Empty when no passage stands out so, or every build keeps it."""
    nearest = [(hit.score, hit.chunk_id) for p in pool for hit in retrievals[p].channels.get("vector", [])[:1]]
    if not nearest:
        return []
    score, chunk_id = max(nearest)
    identity = base_id(chunk_id, profiles)
    holders = [
        p for p in pool
        if any(
            base_id(hit.chunk_id, profiles) == identity and abs(hit.score - score) <= _SAME_VECTOR
            for hit in retrievals[p].channels.get("vector", [])
        )
    ]
    others = [retrievals[p].best_similarity or 0.0 for p in pool if p not in holders]
    if not others or score - max(others) < margin:
        return []
    return holders


def shared_chunks(
    retrievals: dict[str, RetrievalOutcome], pool: Sequence[str], depth: int = SHARED_TOP,
    deeper: Mapping[str, Sequence] | None = None,
):
    """Chunks in scope for every generation of the pool, best rank in any generation's list first:
    the top ones (at most SHARED_TOP), then, up to `depth` in all, those of the chunks ranked below
    the top in each generation's own list (`deeper`, valid.answer.retrieve.deeper), so text the
    builds share is read as deep as one build's answer reads its own."""
    everyone = set(pool)
    top = _best_ranked((r.chunks for r in retrievals.values()), everyone)[:SHARED_TOP]
    seen = {chunk.id for chunk in top}
    below = [c for c in _best_ranked((deeper or {}).values(), everyone) if c.id not in seen]
    chosen = [*top, *below][: max(depth, len(top))]
    return [chunk.model_copy(update={"alias": f"c{i}"}) for i, chunk in enumerate(chosen, start=1)]


def _best_ranked(lists, everyone: set[str]) -> list:
    """The chunks of the lists in scope for exactly `everyone`, each once, by its best rank in any list."""
    best: dict[str, tuple[int, object]] = {}
    for chunks in lists:
        for rank, chunk in enumerate(chunks):
            if set(chunk.scope) == everyone and (chunk.id not in best or rank < best[chunk.id][0]):
                best[chunk.id] = (rank, chunk)
    return [chunk for _, (_, chunk) in sorted(best.items(), key=lambda item: (item[1][0], item[0]))]


def topic_differs(shared, listed, everyone: set[str]) -> bool:
    """A retrieved chunk of the shared chunk's own topic (same breadcrumbs, or a section below them)
    is profiled: the topic says something different per generation ("Sign-in commands" is shared,
    its `corvane login` and `corvane auth login` sections are not), so its shared text, often only
    the topic's title and summary, is not the answer."""
    depth = len(shared.breadcrumbs)
    return any(
        chunk.id != shared.id and chunk.breadcrumbs[:depth] == shared.breadcrumbs and set(chunk.scope) != everyone
        for chunk in listed
    )


def owned_in(text: str, owned) -> list[tuple[str, list[str]]]:
    """The values the doc set ties to some profiles that the text states, with their profiles."""
    from valid.answer.check import MappingOwned, owned_values_in

    return owned_values_in(text, MappingOwned(owned) if isinstance(owned, Mapping) else owned)


def nearer_left_out(
    offered: Sequence[str], kept: Sequence[str], retrievals: dict[str, RetrievalOutcome], tuning: Tuning = BUILT_IN
) -> bool:
    """Whether a value of `offered` left out of `kept` is nearer the question in meaning, by at least
    the tuning's dominance_near_gap, than every kept value: a narrowing by what the rules read in the
    content that drops such a value drops the topic the question is about."""
    best = max((retrievals[p].best_similarity or 0.0) for p in kept)
    return any(
        (retrievals[p].best_similarity or 0.0) - best >= tuning.dominance_near_gap for p in offered if p not in kept
    )
