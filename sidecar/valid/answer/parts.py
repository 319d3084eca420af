"""Units the export split apart, joined again: a profiled choicetable (or any profiled element)
inside a step is exported as its own chunk (`<file>.dita#<topic>/choicetable-1~windows`), apart
from the step that says "Issue the following command:". A reader of a build sees both, in document
order; so the evidence of one build carries, next to a chunk it holds, the parts split from it that
the build keeps, and, next to a part, the chunk it was split from. Only chunks in the build's scope
are ever added. The source xpath says what is inside what; nothing reads the wording.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from valid.contracts import Chunk
from valid.answer.models import EvidenceChunk
from valid.answer.retrieve import chunks_by_id, evidence_chunk

_FIRST_STEP = re.compile(r"^(?:step|substep)\[(\d+)\]")


def with_parts(release, chunks: Sequence[EvidenceChunk], profile: str) -> list[EvidenceChunk]:
    """`chunks` with the parts split from them (and the chunks parts were split from) that `profile`
    keeps, each added right after the chunk it belongs with; every part marked with its parent."""
    if not chunks or not hasattr(release, "chunks_for_path"):
        return list(chunks)
    full = chunks_by_id(release, [c.id for c in chunks])
    files = {c.source.path: [k for k in release.chunks_for_path(c.source.path) if k.scope.get(profile)] for c in full.values()}
    out: list[EvidenceChunk] = []
    seen: set[str] = set()

    def add(chunk: EvidenceChunk) -> None:
        if chunk.id not in seen:
            seen.add(chunk.id)
            out.append(chunk)

    for item in chunks:
        own = full[item.id]
        siblings = files[own.source.path]
        parent = _parent(own, siblings)
        if parent is not None:
            add(evidence_chunk(parent))
        add(_marked(item, own, parent))
        for part in siblings:
            holder = _parent(part, siblings)
            if holder is not None and holder.id == own.id:
                add(_marked(evidence_chunk(part), part, own))
    return out


def _parent(chunk: Chunk, siblings: Sequence[Chunk]) -> Chunk | None:
    """The innermost other chunk of the same file whose element holds this chunk's element."""
    holders = [s for s in siblings if s.id != chunk.id and chunk.source.xpath.startswith(s.source.xpath + "/")]
    return max(holders, key=lambda s: len(s.source.xpath), default=None)


def _marked(item: EvidenceChunk, chunk: Chunk, parent: Chunk | None) -> EvidenceChunk:
    if parent is None:
        return item
    rest = chunk.source.xpath[len(parent.source.xpath) + 1 :]
    step = _FIRST_STEP.match(rest)
    return item.model_copy(update={"part_of": parent.id, "part_step": int(step.group(1)) if step else 0})
