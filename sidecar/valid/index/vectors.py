"""The vector channel: one Chroma collection per release, always given vectors, never an embedding function.

Scope fields are booleans (`in_<profile>`: true or false), one per profile, as the export contract
states them. Each chunk carries only the metadata the index needs besides them (id,
source path, title, type, digest): Chroma 1.5.9 resolves a filter by scanning metadata rows, so
every extra field slows every filtered query (bench/index.py measures bool against int fields and
the effect of older releases sharing the store; `valid releases prune` removes those).
"""

from __future__ import annotations

from typing import Sequence

from valid.contracts import Chunk
from valid.errors import ReleaseError
from valid.index.manifest import HnswSettings

_ADD_BATCH = 1000


def scope_field(profile: str) -> str:
    return f"in_{profile}"


def scope_filter(profile: str) -> dict:
    """The only filter VALID ever gives Chroma: equality on one profile's scope field."""
    return {scope_field(profile): True}


def scope_filter_any(profiles: Sequence[str]) -> dict:
    """Chunks in scope for at least one of these profiles (routing a question that names none)."""
    fields = [{scope_field(p): True} for p in profiles]
    return fields[0] if len(fields) == 1 else {"$or": fields}


def chunk_metadata(chunk: Chunk, profiles: Sequence[str]) -> dict:
    meta: dict = {scope_field(p): bool(chunk.scope[p]) for p in profiles}
    meta.update(
        id=chunk.id,
        path=chunk.source.path,
        title=chunk.title,
        type=chunk.type,
        digest=chunk.digest,
    )
    return meta


def create_collection(client, name: str, hnsw: HnswSettings, release_id: str):
    # embedding_function=None: Chroma's default would try to download a model; VALID always
    # supplies vectors itself.
    return client.create_collection(
        name,
        configuration={"hnsw": hnsw.model_dump()},
        metadata={"valid_release": release_id},
        embedding_function=None,
    )


def get_collection(client, name: str):
    from chromadb.errors import NotFoundError

    try:
        return client.get_collection(name, embedding_function=None)
    except (NotFoundError, ValueError):
        return None


def delete_collection(client, name: str) -> None:
    from chromadb.errors import NotFoundError

    try:
        client.delete_collection(name)
    except (NotFoundError, ValueError):
        pass


def all_metadata(collection, page: int = 5000) -> list[tuple[str, dict]]:
    """(id, metadata) of every vector in the collection, read in pages."""
    out: list[tuple[str, dict]] = []
    offset = 0
    while True:
        got = collection.get(include=["metadatas"], limit=page, offset=offset)
        out.extend(zip(got["ids"], got["metadatas"]))
        if len(got["ids"]) < page:
            return out
        offset += page


def add(collection, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]], profiles: Sequence[str], progress=None) -> None:
    total = len(chunks)
    for start in range(0, total, _ADD_BATCH):
        part = chunks[start : start + _ADD_BATCH]
        collection.add(
            ids=[c.id for c in part],
            embeddings=[list(v) for v in vectors[start : start + _ADD_BATCH]],
            metadatas=[chunk_metadata(c, profiles) for c in part],
        )
        if progress:
            progress("vectors", min(start + _ADD_BATCH, total), total)


def verify(collection, chunks: Sequence[Chunk], profiles: Sequence[str]) -> None:
    """Counts and ids in the collection equal the export's, in total and per profile."""
    expected = [c.id for c in chunks]
    count = collection.count()
    if count != len(expected):
        raise ReleaseError(f"verification failed: Chroma holds {count} vectors, the export has {len(expected)} chunks")
    present: set[str] = set()
    for start in range(0, len(expected), _ADD_BATCH):
        present.update(collection.get(ids=expected[start : start + _ADD_BATCH], include=[])["ids"])
    missing = [i for i in expected if i not in present]
    if missing:
        raise ReleaseError(f"verification failed: {len(missing)} chunk ids missing from Chroma, e.g. {missing[0]!r}")
    for profile in profiles:
        want = {c.id for c in chunks if c.scope[profile]}
        got = set(collection.get(where=scope_filter(profile), include=[])["ids"])
        if got != want:
            raise ReleaseError(
                f"verification failed: Chroma's in_{profile} filter matches {len(got)} chunks, the export scopes {len(want)}"
            )
