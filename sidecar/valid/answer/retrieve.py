"""retrieve_in_scope: hybrid search inside one generation's scope.

For one profile: embed the question, k-NN over the vectors and BM25 over the text, both restricted by
the release handle to chunks in scope for that profile (the handle builds the filter from the
profile name; nothing here passes or could pass a filter), fuse with RRF (ties on chunk id), keep the
top chunks and fetch their texts. The floors, k and the number kept are the engine's Tuning
(valid.answer.tuning), passed in.

The outcome is typed: `complete`, or `degraded` with reasons (an empty channel; the embedder or a
search failing → the other channel alone). A degraded outcome never searches a wider scope. As a
last line of defence, a hit whose chunk is not in scope for the profile is dropped and reported.

Relevance floors decide whether anything in scope answers at all (see docs/answer.md for the
calibration on the sample): the best vector similarity reaches the engine's `similarity_floor`, or
the retrieved chunks hold at least its `coverage_floor` of the question's content words (typos resolved against the
chunks' own words; the generation's names do not count).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Protocol, Sequence

from valid.contracts import Chunk

from valid.answer.abbreviations import Abbreviations
from valid.answer.fusion import rrf
from valid.answer.models import ChannelHit, EvidenceChunk, RetrievalOutcome
from valid.answer.question import asking_span
from valid.answer.text import terms, with_typos_resolved
from valid.answer.tuning import BUILT_IN, Tuning

CHANNEL_DEPTH = 20  # hits taken from each channel before fusion
ROUTE_DEPTH = 100  # hits taken from each channel when routing a question that names no generation
DEEPER = 3  # default number of further fused chunks `deeper` fetches


class Embedder(Protocol):
    def embed_query(self, text: str) -> list[float]: ...


class ReleaseHandle(Protocol):
    """What the answer engine needs from an index release (valid.index)."""

    def search_vector(self, query_embedding: Sequence[float], profile: str, k: int) -> list[Any]: ...

    def search_bm25(self, query_text: str, profile: str, k: int) -> list[Any]: ...

    def get_chunks(self, ids: Sequence[str]) -> Any: ...

    def count_in_scope(self, profile: str) -> int: ...


def _channel(hits: Sequence[Any]) -> list[ChannelHit]:
    out = []
    for rank, hit in enumerate(hits, start=1):
        chunk_id = getattr(hit, "chunk_id", None) or getattr(hit, "id")
        out.append(ChannelHit(chunk_id=chunk_id, rank=int(getattr(hit, "rank", rank) or rank), score=float(hit.score)))
    return out


def _rerank(hits: Sequence[ChannelHit]) -> list[ChannelHit]:
    return [ChannelHit(chunk_id=h.chunk_id, rank=i, score=h.score) for i, h in enumerate(hits, start=1)]


def _profiles(release: ReleaseHandle) -> list:
    header = getattr(release, "header", None)
    return list(header.profiles) if header is not None else []


def evidence_chunk(chunk: Chunk, alias: str = "") -> EvidenceChunk:
    """A chunk as a generator sees it (its scope as a list, its code phrases, its breadcrumbs)."""
    return EvidenceChunk(
        id=chunk.id,
        alias=alias,
        text=chunk.text,
        title=chunk.title,
        breadcrumbs=list(chunk.breadcrumbs),
        scope=chunk.in_scope(),
        code=list(chunk.code),
        element=element_of(chunk),
    )


def element_of(chunk: Chunk) -> str:
    """The local name of the element the chunk was made from (the last step of its source path)."""
    path = chunk.source.xpath if chunk.source is not None else ""
    return path.rpartition("/")[2].partition("[")[0]


def chunks_by_id(release: ReleaseHandle, ids: Sequence[str]) -> dict[str, Chunk]:
    found = release.get_chunks(list(ids))
    if isinstance(found, dict):
        return dict(found)
    return {chunk.id: chunk for chunk in found}


def retrieve_in_scope(
    release: ReleaseHandle,
    embedder: Embedder,
    question: str,
    profile: str,
    abbreviations: Abbreviations = Abbreviations(),
    tuning: Tuning = BUILT_IN,
) -> RetrievalOutcome:
    """Top chunks for `question` among the chunks in scope for `profile` (exactly one profile)."""
    reasons: list[str] = []
    channels: dict[str, list[ChannelHit]] = {}
    in_scope = release.count_in_scope(profile)
    depth = min(CHANNEL_DEPTH, max(in_scope, 1))
    try:
        vector = _embed(embedder, question)
        channels["vector"] = _channel(release.search_vector(vector, profile, depth))
    except Exception as err:  # a failed channel degrades to the other one; it never widens the scope
        reasons.append(f"vector channel failed ({type(err).__name__}: {err}); BM25 only")
    try:
        channels["bm25"] = _channel(release.search_bm25(question, profile, depth))
    except Exception as err:
        reasons.append(f"BM25 channel failed ({type(err).__name__}: {err}); vectors only")
    return _outcome(release, question, profile, channels, reasons, in_scope, abbreviations=abbreviations, tuning=tuning)


def route(
    release,
    embedder: Embedder,
    question: str,
    profiles: Sequence[str],
    abbreviations: Abbreviations = Abbreviations(),
    tuning: Tuning = BUILT_IN,
) -> dict[str, RetrievalOutcome]:
    """Per-generation outcomes for a question that names no generation, from one search per channel.

    The searches run over the chunks in scope for any of `profiles`; each generation's outcome keeps
    only the hits in its own scope, fused and floored exactly as `retrieve_in_scope` does. What the
    outcomes decide is whether to answer from shared content, ask, or refuse: a generation's own
    answer is always retrieved again with `retrieve_in_scope`. One search instead of one per
    generation keeps a 20-version doc set as fast as a 3-generation one.
    """
    reasons: list[str] = []
    hits: dict[str, list[ChannelHit]] = {}
    depth = ROUTE_DEPTH
    try:
        hits["vector"] = _channel(release.search_vector_any(_embed(embedder, question), profiles, depth))
    except Exception as err:
        reasons.append(f"vector channel failed ({type(err).__name__}: {err}); BM25 only")
    try:
        hits["bm25"] = _channel(release.search_bm25_any(question, profiles, depth))
    except Exception as err:
        reasons.append(f"BM25 channel failed ({type(err).__name__}: {err}); vectors only")
    ids = list(dict.fromkeys(h.chunk_id for channel in hits.values() for h in channel))
    chunks = chunks_by_id(release, ids) if ids else {}
    outcomes = {}
    for profile in profiles:
        own = {
            name: _rerank([h for h in channel if h.chunk_id in chunks and chunks[h.chunk_id].scope.get(profile)][:CHANNEL_DEPTH])
            for name, channel in hits.items()
        }
        outcomes[profile] = _outcome(
            release, question, profile, own, list(reasons), release.count_in_scope(profile), chunks, abbreviations, tuning
        )
    return outcomes


def deeper(release: ReleaseHandle, outcome: RetrievalOutcome, n: int = DEEPER) -> list[EvidenceChunk]:
    """The next `n` fused chunks after the top ones (same scope, same ranking: only deeper)."""
    return deeper_each(release, {outcome.profile: outcome}, n)[outcome.profile]


def deeper_each(
    release: ReleaseHandle, outcomes: Mapping[str, RetrievalOutcome], n: int = DEEPER
) -> dict[str, list[EvidenceChunk]]:
    """`deeper` for several generations' outcomes, their chunks read in one fetch."""
    ids = {p: [h.chunk_id for h in o.fused[len(o.chunks) : len(o.chunks) + n]] for p, o in outcomes.items()}
    wanted = list(dict.fromkeys(i for each in ids.values() for i in each))
    chunks = chunks_by_id(release, wanted) if wanted else {}
    return {
        p: [evidence_chunk(chunks[i]) for i in each if chunks[i].scope.get(outcomes[p].profile, False)]
        for p, each in ids.items()
    }


def _embed(embedder: Embedder, question: str) -> list[float]:
    vector = embedder.embed_query(question)
    if not all(math.isfinite(v) for v in vector):
        raise ValueError("non-finite query vector")
    return vector


def _outcome(
    release,
    question,
    profile,
    channels,
    reasons,
    in_scope,
    chunks=None,
    abbreviations: Abbreviations = Abbreviations(),
    tuning: Tuning = BUILT_IN,
) -> RetrievalOutcome:
    """Fuse one profile's channels, keep the top chunks that are in its scope, and apply the floors."""
    # The generation's own names say nothing about relevance: every candidate is in that scope.
    ignore_terms: set[str] = set(terms(profile))
    for info in _profiles(release):
        if info.name == profile:
            for label in info.labels:
                ignore_terms |= terms(label)
    for name in ("vector", "bm25"):
        if name in channels and not channels[name] and in_scope:
            reasons.append(f"{name} channel returned nothing in scope")

    # Fetch every fused candidate: a hit the release returned outside the scope (which would be an
    # index bug) or without a chunk is dropped and reported, and the next one takes its place.
    candidates = rrf(channels, k=tuning.rrf_k)
    if chunks is None:
        chunks = chunks_by_id(release, [hit.chunk_id for hit in candidates]) if candidates else {}
    admitted: set[str] = set()
    for hit in candidates:
        chunk = chunks.get(hit.chunk_id)
        if chunk is None:
            reasons.append(f"chunk {hit.chunk_id} is missing from the release; skipped")
        elif not chunk.scope.get(profile, False):
            reasons.append(f"chunk {hit.chunk_id} is not in scope for {profile}; dropped")
        else:
            admitted.add(hit.chunk_id)
    # Channels and fused list keep only admitted ids: they are logged, and the log holds nothing else.
    channels = {name: _rerank([h for h in hits if h.chunk_id in admitted]) for name, hits in channels.items()}
    fused = rrf(channels, k=tuning.rrf_k)
    evidence = [evidence_chunk(chunks[hit.chunk_id], f"c{i}") for i, hit in enumerate(fused[: tuning.top_k], start=1)]

    best_similarity = max((h.score for h in channels.get("vector", [])), default=None)
    best_bm25 = max((h.score for h in channels.get("bm25", [])), default=None)  # the index gives -bm25
    # Lexical floor: the chunks given to the generator hold at least half of the question's content
    # words (typos resolved against their own words). Generation names are not content words here.
    # Only the question proper: a sentence before it that sets the reader's situation ("I'm on an
    # old CentOS server.") need not be in the documentation for the question to be answered.
    wanted = terms(question[slice(*asking_span(question))]) - ignore_terms
    found: set[str] = set()
    for item in evidence:
        found |= terms(item.title + "\n" + item.text)
    # Content that writes "HBM" covers a question's "high-bandwidth memory" (abbreviations.py).
    found = abbreviations.close_over(found)
    covered = (with_typos_resolved(wanted, found) & found) - ignore_terms
    # Capped at 1: one misspelt word may resolve to two words of the chunks.
    coverage = min(1.0, len(covered) / len(wanted)) if wanted else 0.0
    relevant = bool(evidence) and (
        (best_similarity is not None and best_similarity >= tuning.similarity_floor) or coverage >= tuning.coverage_floor
    )
    return RetrievalOutcome(
        profile=profile,
        status="degraded" if reasons else "complete",
        reasons=reasons,
        channels=channels,
        fused=fused,
        chunks=evidence,
        in_scope_count=in_scope,
        relevant=relevant,
        best_similarity=best_similarity,
        best_bm25=best_bm25,
        coverage=round(coverage, 4),
    )
