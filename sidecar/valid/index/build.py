"""Building a release: validate the export, derive the release id, reuse or build, verify, register.

    result = build_release("out/chunks.jsonl", make_embedder("offline"), Store())

The build is idempotent and crash-safe:
- the release id is computed before any work; a verified release with that id is reused as is;
- everything is built in `staging/` and a fresh Chroma collection, then verified (counts and ids in
  Chroma and FTS5 equal the export's, in total and per profile), then registered by renaming the
  staging directory into `releases/` and writing the `verified` marker last;
- only texts missing from the embedding cache are embedded, and the cache is written after every
  batch, so a rerun after a crash resumes instead of starting over;
- activation is a separate compare-and-swap after registration: a failed or killed build never
  touches `active.json`. Debris of a killed build (staging files, unregistered collections) is
  removed by the next build, under the same build lock.
"""

from __future__ import annotations

import os
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from pydantic import BaseModel

from valid.embed import Embedder
from valid.errors import ReleaseError
from valid.index import fts, units as unit_vectors, vectors
from valid.index.activation import (
    VERIFIED_MARKER,
    activate as activate_release,
    active_release_id,
    is_registered,
    list_releases,
)
from valid.index.cache import EmbeddingCache, to_float32
from valid.export.file import LoadedExport, read_export, sha256_hex
from valid.index.fsutil import atomic_write, file_lock, fsync_dir
from valid.index.derived import DERIVED_FILE, derive
from valid.index.groups import build_groups
from valid.index.manifest import (
    Identity,
    IndexSettings,
    Manifest,
    Operational,
    embedding_input,
    identity_for,
    scope_digest,
)
from valid.index.report import Changes, EmbeddingCounts, IndexReport, ReleaseLine, to_html
from valid.index.store import Store
from valid.index.variants import shared_inputs
from valid.output import refuse_empty

Progress = Callable[[str, int, int], None]


class BuildResult(BaseModel):
    release_id: str
    reused: bool
    activated: bool
    path: str
    report: IndexReport


GROUPS_FILE = "groups.json"


def build_release(
    export_path: str | Path,
    embedder: Embedder,
    store: Store,
    activate: bool = True,
    *,
    findings: Iterable[Mapping | BaseModel] = (),
    settings: IndexSettings | None = None,
    progress: Progress | None = None,
    embed_batch: int = 64,
    allow_empty: bool = False,
    with_unit_vectors: bool = True,
) -> BuildResult:
    """Build (or reuse) the release of an export and activate it. A release with no chunks, or with
    a profile that has none, is refused before anything is built unless `allow_empty`.
    `with_unit_vectors=False` leaves out the answer units' vectors (valid.index.units): only for
    measuring what they cost; such a release embeds its units when asked."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    settings = settings or IndexSettings()

    mark = time.perf_counter()
    export = read_export(export_path)
    identity = identity_for(export, embedder.id, embedder.dimension, settings)
    release_id = identity.release_id
    timings["read"] = time.perf_counter() - mark
    if not allow_empty:
        per_profile = {p: sum(1 for c in export.chunks if c.scope.get(p)) for p in export.profiles}
        refuse_empty(per_profile, len(export.chunks), export.profiles)

    store.root.mkdir(parents=True, exist_ok=True)
    with file_lock(store.build_lock, blocking=False) as locked:
        if not locked:
            raise ReleaseError(f"another `valid index` is running on {store.root}; wait for it to finish and rerun")
        previous = active_release_id(store)
        reused = is_registered(store, release_id) and _still_sound(store, release_id)
        texts = shared_inputs(export.chunks, export.header)
        sharing = sum(1 for c, t in zip(export.chunks, texts) if t != embedding_input(c.title, c.text))
        if reused:
            embedded, reused_inputs = 0, len(set(texts))
        else:
            _remove_debris(store)
            embedded, reused_inputs = _build(
                texts, export, identity, embedder, store, timings, progress, embed_batch, export_path, started, with_unit_vectors
            )

        activated = previous == release_id
        activation_error: ReleaseError | None = None
        if activate and not activated:
            try:
                activate_release(store, release_id, expected=previous)
                activated = True
            except ReleaseError as err:
                activation_error = ReleaseError(
                    f"release {release_id[:12]} was built and registered but not activated: {err} "
                    f"(`valid releases activate {release_id[:12]}`)"
                )
        timings["total"] = time.perf_counter() - started

        report = _report(
            export, identity, store, release_id, previous, reused, activated, embedded, reused_inputs, sharing, findings, timings
        )
        path = store.release_dir(release_id)
        if not reused:  # a reused release keeps the report of the build that made it
            atomic_write(path / "report.json", report.model_dump_json(indent=2).encode() + b"\n")
            atomic_write(path / "report.html", to_html(report).encode())
        if activation_error:
            raise activation_error
        return BuildResult(release_id=release_id, reused=reused, activated=activated, path=str(path), report=report)


def _still_sound(store: Store, release_id: str) -> bool:
    """Can the registered release be opened (collection present, counts right)? If not, unregister it for a rebuild."""
    from valid.index.release import Release

    try:
        Release(store, release_id).close()
        return True
    except ReleaseError:
        # Its collection is gone or damaged (a wiped Chroma directory, another server): the same
        # inputs rebuild the same release, so take it out of the registry and build it again.
        (store.release_dir(release_id) / VERIFIED_MARKER).unlink(missing_ok=True)
        return False


def _remove_debris(store: Store) -> None:
    """Leftovers of killed builds: staging dirs, unverified release dirs, unregistered collections."""
    if store.staging_dir.is_dir():
        for path in store.staging_dir.iterdir():
            shutil.rmtree(path, ignore_errors=True)
    if store.releases_dir.is_dir():
        for path in store.releases_dir.iterdir():
            if not (path / VERIFIED_MARKER).is_file():
                shutil.rmtree(path, ignore_errors=True)
    prefix = store.collection_name("")
    for collection in store.client.list_collections():
        name = collection if isinstance(collection, str) else collection.name
        if name.startswith(prefix) and not is_registered(store, name[len(prefix) :]):
            vectors.delete_collection(store.client, name)


def _embed(
    texts: Sequence[str], embedder: Embedder, cache: EmbeddingCache, progress: Progress | None, batch: int
) -> tuple[list[list[float]], int, int]:
    """Vectors for every chunk's embedding input (float32-rounded), embedding only inputs missing from the cache."""
    inputs: dict[str, str] = {}
    keys = []
    for text in texts:
        key = sha256_hex(text.encode("utf-8"))
        keys.append(key)
        inputs.setdefault(key, text)
    known = cache.get_many(inputs, embedder.id, embedder.dimension)
    missing = [k for k in inputs if k not in known]
    for start in range(0, len(missing), batch):
        part = missing[start : start + batch]
        fresh = embedder.embed_documents([inputs[k] for k in part])
        if len(fresh) != len(part):
            raise ReleaseError(f"embedder {embedder.id} returned {len(fresh)} vectors for {len(part)} texts")
        rounded = {k: to_float32(v) for k, v in zip(part, fresh)}
        cache.put_many(rounded, embedder.id, embedder.dimension)
        known.update(rounded)
        if progress:
            progress("embed", min(start + batch, len(missing)), len(missing))
    return [known[k] for k in keys], len(missing), len(inputs) - len(missing)


def _verify_fts(path: Path, export: LoadedExport) -> None:
    db = fts.connect_readonly(path)
    try:
        ids = [i for (i,) in db.execute("SELECT id FROM chunks ORDER BY rowid")]
        if ids != [c.id for c in export.chunks]:
            raise ReleaseError(f"verification failed: FTS5 holds {len(ids)} chunks, the export {len(export.chunks)}")
        rows = db.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
        if rows != len(ids):
            raise ReleaseError(f"verification failed: FTS5 index has {rows} rows for {len(ids)} chunks")
        for p in export.profiles:
            got = db.execute(f"SELECT count(*) FROM chunks WHERE {fts.column(p)} = 1").fetchone()[0]
            want = sum(1 for c in export.chunks if c.scope[p])
            if got != want:
                raise ReleaseError(f"verification failed: FTS5 scopes {got} chunks to {p}, the export {want}")
    finally:
        db.close()


def _build(
    texts: Sequence[str],
    export: LoadedExport,
    identity: Identity,
    embedder: Embedder,
    store: Store,
    timings: dict[str, float],
    progress: Progress | None,
    embed_batch: int,
    export_path,
    started: float,
    with_unit_vectors: bool = True,
) -> tuple[int, int]:
    release_id = identity.release_id
    profiles = export.profiles
    staging = store.staging_dir / f"{release_id}.{os.getpid()}"
    collection_name = store.collection_name(release_id)
    staging.mkdir(parents=True)
    try:
        mark = time.perf_counter()
        stored = fts.build(staging / "fts.sqlite", export.chunks, profiles, identity.bm25.settings)
        timings["fts"] = time.perf_counter() - mark

        mark = time.perf_counter()
        cache = EmbeddingCache(store.cache_path)
        try:
            vecs, embedded, reused = _embed(texts, embedder, cache, progress, max(1, embed_batch))
        finally:
            cache.close()
        timings["embed"] = time.perf_counter() - mark

        mark = time.perf_counter()
        collection = vectors.create_collection(store.client, collection_name, identity.vectors.hnsw, release_id)
        vectors.add(collection, export.chunks, vecs, profiles, progress)
        timings["vectors"] = time.perf_counter() - mark

        mark = time.perf_counter()
        vectors.verify(collection, export.chunks, profiles)
        _verify_fts(staging / "fts.sqlite", export)
        timings["verify"] = time.perf_counter() - mark

        # What every question of this release reads and only its content decides (valid.index.derived).
        mark = time.perf_counter()
        derived = derive(export.chunks, export.header).model_dump_json().encode() + b"\n"
        atomic_write(staging / DERIVED_FILE, derived)
        timings["derived"] = time.perf_counter() - mark

        if with_unit_vectors:
            # The answer units' vectors (valid.index.units), through the same embedding cache.
            mark = time.perf_counter()
            inputs = unit_vectors.unit_inputs(export.chunks)
            cache = EmbeddingCache(store.cache_path)
            try:
                unit_vecs, _, _ = _embed(inputs, embedder, cache, progress, max(1, embed_batch))
            finally:
                cache.close()
            unit_vectors.write(staging, inputs, unit_vecs, embedder.id)
            timings["unit_vectors"] = time.perf_counter() - mark

        manifest = Manifest(
            release_id=release_id,
            identity=identity,
            operational=Operational(
                built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                build_seconds=round(time.perf_counter() - started, 3),
                export_path=str(export_path),
                export_map=export.header.map,
                source_commit=export.header.source_commit,
                store=store.describe(),
                collection=collection_name,
                embed_batch_size=embed_batch,
                chunks=len(export.chunks),
                per_profile={p: sum(1 for c in export.chunks if c.scope[p]) for p in profiles},
                content_digest=scope_digest((c.id, c.digest, [c.scope[p] for p in profiles]) for c in export.chunks),
                stored_digest=stored,
                derived_digest=sha256_hex(derived),
            ),
        )
        atomic_write(staging / "export-header.json", export.header.model_dump_json(indent=2).encode() + b"\n")
        # What comparisons look up at question time (valid.index.groups): variants and counterparts.
        groups = build_groups(export.chunks, export.header.profiles)
        atomic_write(staging / GROUPS_FILE, groups.model_dump_json().encode() + b"\n")
        atomic_write(staging / "release.json", manifest.model_dump_json(indent=2).encode() + b"\n")
        _register(store, staging, release_id)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if not is_registered(store, release_id):
            try:
                vectors.delete_collection(store.client, collection_name)
            except Exception:  # best effort: the next build removes it anyway
                pass
        raise
    return embedded, reused


def _register(store: Store, staging: Path, release_id: str) -> None:
    target = store.release_dir(release_id)
    store.releases_dir.mkdir(parents=True, exist_ok=True)
    if target.exists():  # an unverified leftover; a verified one would have been reused
        shutil.rmtree(target)
    os.rename(staging, target)
    fsync_dir(store.releases_dir)
    atomic_write(target / VERIFIED_MARKER, release_id.encode() + b"\n")


def _previous_chunks(store: Store, release_id: str | None) -> dict[str, tuple[str, frozenset[str]]] | None:
    if not release_id or not is_registered(store, release_id):
        return None
    manifest = Manifest.model_validate_json((store.release_dir(release_id) / "release.json").read_bytes())
    profiles = manifest.identity.export.profiles
    db = fts.connect_readonly(store.release_dir(release_id) / "fts.sqlite")
    try:
        columns = ", ".join(fts.column(p) for p in profiles)
        return {
            row[0]: (row[1], frozenset(p for p, kept in zip(profiles, row[2:]) if kept))
            for row in db.execute(f"SELECT id, digest, {columns} FROM chunks")
        }
    finally:
        db.close()


def _report(
    export: LoadedExport,
    identity: Identity,
    store: Store,
    release_id: str,
    previous: str | None,
    reused: bool,
    activated: bool,
    embedded: int,
    reused_inputs: int,
    sharing: int,
    findings: Iterable[Mapping | BaseModel],
    timings: dict[str, float],
) -> IndexReport:
    old = _previous_chunks(store, previous)
    changes = Changes(previous_release=None, added=len(export.chunks))
    if old is not None:
        current = {c.id: (c.digest, frozenset(c.in_scope())) for c in export.chunks}
        deleted = sorted(set(old) - set(current))
        changes = Changes(
            previous_release=previous,
            added=sum(1 for i in current if i not in old),
            deleted=len(deleted),
            text_changed=sum(1 for i, v in current.items() if i in old and old[i][0] != v[0]),
            rescoped=sum(1 for i, v in current.items() if i in old and old[i][0] == v[0] and old[i][1] != v[1]),
            unchanged=sum(1 for i, v in current.items() if old.get(i) == v),
            deleted_ids=deleted[:50],
        )
    origins = {"cascaded": 0, "element": 0, "shared": 0}
    for chunk in export.chunks:
        origins[chunk.scope_origin] += 1
    active = active_release_id(store)
    return IndexReport(
        release_id=release_id,
        reused_release=reused,
        activated=activated,
        map=export.header.map,
        source_commit=export.header.source_commit,
        profiles={p.name: (p.labels[0] if p.labels else p.name) for p in export.header.profiles},
        chunks=len(export.chunks),
        per_profile={p: sum(1 for c in export.chunks if c.scope[p]) for p in export.profiles},
        by_scope_origin=origins,
        embedding=EmbeddingCounts(
            embedder=identity.embedder.id,
            dimension=identity.embedder.dimension,
            inputs=embedded + reused_inputs,
            embedded=embedded,
            reused=reused_inputs,
            variants_sharing=sharing,
        ),
        changes=changes,
        findings=[f.model_dump(mode="json") if isinstance(f, BaseModel) else dict(f) for f in findings],
        store=store.describe(),
        collection=store.collection_name(release_id),
        metadata_fields=identity.vectors.metadata_fields,
        bm25_rows=len(export.chunks),
        bm25_tokenizer=identity.bm25.settings.tokenizer,
        releases=[
            ReleaseLine(id=r.id, active=r.id == active, built_at=r.built_at, chunks=r.chunks) for r in list_releases(store)
        ],
        timings={k: round(v, 3) for k, v in timings.items()},
        built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
