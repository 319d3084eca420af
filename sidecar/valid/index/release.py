"""A handle pinned to one verified release: both search channels, always inside one profile's scope.

    release = open_active(Store())
    hits = release.search_vector(embedder.embed_query("create a VM"), "v6e", k=10)
    hits = release.search_bm25("--version v2-alpha-tpuv6e", "v6e", k=10)
    chunks = release.get_chunks([h.chunk_id for h in hits])

Every search takes exactly one profile name, checks it against the release's profiles and builds
the scope filter itself (`{"in_<profile>": True}` for Chroma, `"in_<profile>" = 1` for FTS5): there is no parameter through which a caller could widen, replace or drop
it. `k` is capped at the number of in-scope chunks, and returned ids are checked against the
release's own scope table, so a store that ever returned an out-of-scope chunk fails closed.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from pathlib import Path
from typing import Sequence

from pydantic import BaseModel, ConfigDict, Field

from valid.contracts import Chunk, ExportHeader
from valid.errors import ReleaseError, ValidError
from valid.export.file import sha256_hex
from valid.index import fts, units, vectors, verified
from valid.index.derived import DERIVED_FILE, Derived, shared_counts
from valid.index.activation import active_release_id, is_registered
from valid.index.manifest import (
    INDEX_SCHEMA_VERSION,
    SCOPE_VALUES,
    Manifest,
    metadata_fields,
    check_identity,
    read_model,
    scope_digest,
)
from valid.index.store import Store


class Hit(BaseModel):
    model_config = ConfigDict(frozen=True)

    chunk_id: str
    rank: int = Field(ge=1)
    score: float = Field(description="Higher is better: cosine similarity (vector) or -bm25 (BM25).")


class Release:
    def __init__(self, store: Store, release_id: str):
        if not is_registered(store, release_id):
            raise ReleaseError(f"no verified release {release_id}; see `valid releases list`")
        self.store = store
        self.id = release_id
        self.path: Path = store.release_dir(release_id)
        self.manifest = read_model(self.path / "release.json", Manifest, release_id)
        self.profiles: list[str] = list(self.manifest.identity.export.profiles)
        _check_compatible(self.manifest, release_id, self.profiles)  # before the hash: an older build hashes right
        check_identity(self.manifest, self.path, release_id)
        self.header = read_model(self.path / "export-header.json", ExportHeader, release_id)
        if self.manifest.operational.content_digest is None or self.manifest.operational.stored_digest is None:
            raise ReleaseError(
                f"release {release_id[:12]} records no content digest (built by an older VALID): rebuild it with `valid index`"
            )
        self.embedder_id = self.manifest.identity.embedder.id
        self.dimension = self.manifest.identity.embedder.dimension
        self._bm25 = self.manifest.identity.bm25.settings
        if self.manifest.operational.derived_digest is None:
            raise ReleaseError(f"release {release_id[:12]} records no derived data (built by an older VALID): rebuild it with `valid index`")
        self._lock = threading.Lock()
        self._db = None
        self._derived = None
        self._titles: frozenset[str] | None = None
        self._common: frozenset[str] | None = None
        self._shared: dict[str, dict[str, int]] | None = None  # shared_counts(), read when first asked
        try:
            self._open(full=not self._stamped())
        except BaseException:
            self.close()
            raise

    # -- opening: every store is checked against the manifest before anything is searched ----
    def _checked_files(self) -> list[Path] | None:
        """The files the full check reads (None: a Chroma server, whose files are not here)."""
        if self.store.chroma_url:
            return None
        own = [self.path / name for name in ("release.json", "export-header.json", "fts.sqlite", DERIVED_FILE)]
        own += [p for p in (self.path / units.UNITS_FILE, self.path / units.UNIT_KEYS_FILE) if p.is_file()]
        # Chroma rewrites its catalogue file at every client start (a row of its write lock), so
        # its stat says nothing; it holds each chunk's digest and scope, and every vector hit is
        # checked against FTS5's scope at every search (_check_in_scope) while the text served
        # comes from FTS5, which the stamp covers. The vector segments are fingerprinted.
        chroma = self.store.root / "chroma"
        return own + [f for f in verified.files_under(chroma) if f.parent != chroma]

    def _stamped(self) -> bool:
        self._files = self._checked_files()
        return self._files is not None and verified.is_verified(self.path, self.id, INDEX_SCHEMA_VERSION, self._files)

    def _open(self, full: bool) -> None:
        """Both stores, checked in full (every chunk's digest and scope) unless the stamp says these
        very files passed that check; the counts are checked at every opening either way."""
        stamping = full and self._files is not None
        before = verified.stamp(self.id, INDEX_SCHEMA_VERSION, self._files) if stamping else None
        self._open_fts(full)
        self._open_vectors(full)
        if stamping:
            # Chroma persists its vector segment again when it first loads it after a build, so its
            # files are stamped as the check left them; the release's own files must not have
            # changed while the check read them, or nothing is stamped.
            after = verified.stamp(self.id, INDEX_SCHEMA_VERSION, self._files)
            if verified.same_files_under(before, after, self.path):
                verified.record(self.path, after)

    def _damaged(self, what: str) -> ReleaseError:
        return ReleaseError(f"release {self.id[:12]} is damaged: {what}; rebuild it with `valid index`")

    def _open_fts(self, full: bool) -> None:
        path = self.path / "fts.sqlite"
        if not path.is_file():
            raise self._damaged(f"{path} is missing")
        op = self.manifest.operational
        if not full:
            try:
                self._db = fts.connect_readonly(path)
                count = self._db.execute("SELECT count(*) FROM chunks").fetchone()[0]
            except sqlite3.Error as err:
                raise self._damaged(f"{path} cannot be read ({err})") from None
            if count != op.chunks:
                raise self._damaged(f"FTS5 holds {count} chunks, its manifest {op.chunks}")
            self._counts = dict(op.per_profile)  # the full check found FTS5's counts equal to these
            return
        try:
            self._db = fts.connect_readonly(path)
            columns = ", ".join(fts.column(p) for p in self.profiles)
            rows = self._db.execute(f"SELECT id, digest, {columns} FROM chunks").fetchall()
            # The chunk JSON carries the scope too (citations and source views read it): it must agree.
            disagree = [
                p for p in self.profiles
                if self._db.execute(
                    f"SELECT count(*) FROM chunks WHERE json_extract(json, ?) IS NOT {fts.column(p)}",
                    ('$.scope."' + p.replace('"', '\\"') + '"',),
                ).fetchone()[0]
            ]
            indexed = self._db.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
            stored = fts.stored_digest(self._db, self.profiles)
        except sqlite3.Error as err:
            raise self._damaged(f"{path} cannot be read ({err})") from None
        self._counts = {p: sum(1 for row in rows if row[2 + i]) for i, p in enumerate(self.profiles)}
        if len(rows) != op.chunks or indexed != op.chunks:
            raise self._damaged(f"FTS5 holds {len(rows)} chunks ({indexed} indexed), its manifest {op.chunks}")
        if self._counts != op.per_profile:
            raise self._damaged(f"FTS5 scope counts {_counts(self._counts)} differ from the manifest's {_counts(op.per_profile)}")
        if scope_digest((r[0], r[1], r[2:]) for r in rows) != op.content_digest:
            raise self._damaged("the scope or digests of FTS5's chunks differ from the manifest's content digest")
        if disagree:
            raise self._damaged(f"the chunk JSON in FTS5 disagrees with its scope columns for {', '.join(disagree)}")
        if stored != op.stored_digest:
            # Content, not totals: a chunk's text, title, source or scope edited in place (its text
            # digest left as built) would otherwise be served as if it were the release's.
            raise self._damaged("FTS5's stored chunks (text, titles, sources or scope) differ from the chunk digest recorded at build")

    def _open_vectors(self, full: bool) -> None:
        op = self.manifest.operational
        try:
            self._collection = vectors.get_collection(self.store.client, op.collection)
        except ValidError:  # an unreachable Chroma server says so itself
            raise
        except Exception as err:  # Chroma raises many types for damaged files; any of them is fatal here
            raise self._damaged(f"Chroma ({self.store.describe()}) cannot be read ({type(err).__name__}: {_first_line(err)})") from None
        if self._collection is None:
            raise ReleaseError(
                f"release {self.id[:12]}: collection {op.collection} is missing from Chroma "
                f"({self.store.describe()}); was it built against another store? Rebuild with `valid index`"
            )
        if not full:
            try:
                count = self._collection.count()
            except Exception as err:
                raise self._damaged(f"Chroma ({self.store.describe()}) cannot be read ({type(err).__name__}: {_first_line(err)})") from None
            if count != op.chunks:
                raise self._damaged(f"Chroma holds {count} vectors, FTS5 and the manifest {op.chunks} chunks")
            return
        try:
            count = self._collection.count()
            metadatas = vectors.all_metadata(self._collection)
            # One k-NN query loads the vector index itself (its files are read lazily).
            if count:
                probe = [1.0] + [0.0] * (self.dimension - 1)
                self._collection.query(query_embeddings=[probe], n_results=1, include=[])
        except Exception as err:
            raise self._damaged(f"Chroma ({self.store.describe()}) cannot be read ({type(err).__name__}: {_first_line(err)})") from None
        if count != op.chunks or len(metadatas) != op.chunks:
            raise self._damaged(f"Chroma holds {count} vectors, FTS5 and the manifest {op.chunks} chunks")
        fields = [vectors.scope_field(p) for p in self.profiles]
        try:
            rows = [(i, m["digest"], [m[f] for f in fields]) for i, m in metadatas]
        except (KeyError, TypeError) as err:
            raise self._damaged(f"a Chroma metadata row lacks {err}") from None
        if any(not isinstance(v, bool) for _, _, scope in rows for v in scope):
            raise self._damaged("a Chroma scope field is not a boolean")
        if scope_digest(rows) != op.content_digest:
            raise self._damaged("the scope or digests of Chroma's chunks differ from the manifest's content digest")

    # -- what only the release decides (valid.index.derived), stored at index time --------------
    @property
    def derived(self) -> Derived:
        """The release's vocabulary, owned values and title, read once and checked against the
        digest its manifest records."""
        if self._derived is None:
            path = self.path / DERIVED_FILE
            try:
                data = path.read_bytes()
            except OSError as err:
                raise self._damaged(f"{path} cannot be read ({err.strerror})") from None
            if sha256_hex(data) != self.manifest.operational.derived_digest:
                raise self._damaged(f"{path} differs from the digest recorded at build")
            self._derived = Derived.model_validate_json(data)
        return self._derived

    # -- answer units' vectors (valid.index.units), stored at index time -----------------------
    @property
    def unit_vectors(self) -> units.StoredUnitVectors | None:
        """The vectors of the release's answer units, read once; None for a release built without them."""
        if getattr(self, "_unit_vectors", None) is None:
            self._unit_vectors = units.read(self.path, self.embedder_id)
        return self._unit_vectors

    # -- comparison groups ----------------------------------------------------------------
    @property
    def groups(self):
        """Variant and counterpart groups (valid.index.groups), stored at index time; computed from
        the release's own chunks for a release built before they were stored."""
        if getattr(self, "_groups", None) is None:
            from valid.index.groups import Groups, build_groups

            path = self.path / "groups.json"
            if path.exists():
                self._groups = Groups.model_validate_json(path.read_bytes())
            else:
                self._groups = build_groups(self.get_chunks(self.all_chunk_ids()), self.header.profiles)
        return self._groups

    # -- scope ------------------------------------------------------------------------------
    def _profile(self, profile: str) -> str:
        if not isinstance(profile, str) or profile not in self.profiles:
            raise ReleaseError(f"unknown profile {profile!r} for release {self.id[:12]}; profiles: {', '.join(self.profiles)}")
        return profile

    def count_in_scope(self, profile: str) -> int:
        return self._counts[self._profile(profile)]

    def shared_counts(self) -> dict[str, dict[str, int]]:
        """For each pair of profiles, how many chunks are in scope for both (a profile with itself:
        its own count): stored by `valid index` with the derived data; read from the scope columns,
        once, for a release built before that."""
        stored = self.derived.shared
        if stored is not None:
            return stored
        if self._shared is None:
            columns = ", ".join(fts.column(p) for p in self.profiles)
            with self._lock:
                rows = self._db.execute(f"SELECT {columns} FROM chunks").fetchall()
            self._shared = shared_counts((dict(zip(self.profiles, row)) for row in rows), self.profiles)
        return self._shared

    def _check_in_scope(self, ids: Sequence[str], profile: str) -> None:
        if not ids:
            return
        marks = ",".join("?" * len(ids))
        with self._lock:
            inside = self._db.execute(
                f"SELECT count(*) FROM chunks WHERE {fts.column(profile)} = 1 AND id IN ({marks})", list(ids)
            ).fetchone()[0]
        if inside != len(set(ids)):
            raise ReleaseError(f"release {self.id[:12]}: a search returned chunks outside profile {profile}; refusing the results")

    def _check_in_any_scope(self, ids: Sequence[str], profiles: Sequence[str]) -> None:
        if not ids:
            return
        marks = ",".join("?" * len(ids))
        scope = " OR ".join(f"{fts.column(p)} = 1" for p in profiles)
        with self._lock:
            inside = self._db.execute(
                f"SELECT count(*) FROM chunks WHERE ({scope}) AND id IN ({marks})", list(ids)
            ).fetchone()[0]
        if inside != len(set(ids)):
            raise ReleaseError(f"release {self.id[:12]}: a routing search returned chunks outside {', '.join(profiles)}")

    def tokens(self) -> list[str]:
        """Every token the release's chunks write (titles and texts, every profile's), as indexed."""
        with self._lock:
            return fts.tokens(self._db)

    def chunks_writing(self, word: str) -> list[tuple[str, frozenset[str]]]:
        """The title and text of every chunk whose full-text entry holds `word`, any profile's, with
        the profiles that keep it (how the doc set uses a word: valid.answer.scope.NameWordUse)."""
        query = fts.quote_query(word)
        if query is None:
            return []
        with self._lock:
            rows = fts.writing(self._db, query, self.profiles)
        return [(text, frozenset(p for p, kept in zip(self.profiles, scope) if kept)) for text, *scope in rows]

    # -- search -----------------------------------------------------------------------------
    def search_vector(self, query_embedding: Sequence[float], profile: str, k: int) -> list[Hit]:
        profile = self._profile(profile)
        if len(query_embedding) != self.dimension or not all(math.isfinite(v) for v in query_embedding):
            raise ReleaseError(
                f"query embedding has {len(query_embedding)} values (or non-finite ones); release {self.id[:12]} "
                f"expects {self.dimension} from {self.embedder_id}"
            )
        n = min(int(k), self._counts[profile])
        if n < 1:
            return []
        result = self._collection.query(
            query_embeddings=[[float(v) for v in query_embedding]],
            n_results=_overfetch(n, self._counts[profile]),
            where=vectors.scope_filter(profile),
            include=["distances"],
        )
        pairs = _nearest(result, n)
        self._check_in_scope([i for _, i in pairs], profile)
        return [Hit(chunk_id=i, rank=r, score=1.0 - float(d)) for r, (d, i) in enumerate(pairs, start=1)]

    def search_bm25(self, query_text: str, profile: str, k: int) -> list[Hit]:
        profile = self._profile(profile)
        n = min(int(k), self._counts[profile])
        with self._lock:
            rows = fts.search(self._db, query_text, profile, n, self._bm25)
        self._check_in_scope([i for i, _ in rows], profile)
        return [Hit(chunk_id=i, rank=r, score=-s) for r, (i, s) in enumerate(rows, start=1)]

    # -- routing: a question that names no generation ---------------------------------------
    def search_vector_any(self, query_embedding: Sequence[float], profiles: Sequence[str], k: int) -> list[Hit]:
        """k-NN among the chunks in scope for at least one of `profiles`; every hit carries no text.

        For routing only (which generations' content answers a question that names none): answers
        are always generated from `search_vector`'s one-profile results or from chunks in scope for
        every generation of the answer."""
        profiles = [self._profile(p) for p in profiles]
        if len(query_embedding) != self.dimension or not all(math.isfinite(v) for v in query_embedding):
            raise ReleaseError(f"query embedding has {len(query_embedding)} values (or non-finite ones); expected {self.dimension}")
        n = min(int(k), self._collection.count())
        if n < 1 or not profiles:
            return []
        # Every chunk of a release is in scope for at least one profile (the export reader refuses
        # any other), so the union of every profile's scope is the whole collection: the filter
        # would only cost time (an $or over 20 fields costs about a second in Chroma).
        everyone = set(profiles) == set(self.profiles)
        result = self._collection.query(
            query_embeddings=[[float(v) for v in query_embedding]],
            n_results=_overfetch(n, self._collection.count()),
            where=None if everyone else vectors.scope_filter_any(profiles),
            include=["distances"],
        )
        pairs = _nearest(result, n)
        self._check_in_any_scope([i for _, i in pairs], profiles)
        return [Hit(chunk_id=i, rank=r, score=1.0 - float(d)) for r, (d, i) in enumerate(pairs, start=1)]

    def search_bm25_any(self, query_text: str, profiles: Sequence[str], k: int) -> list[Hit]:
        """BM25 among the chunks in scope for at least one of `profiles` (routing only, as above)."""
        profiles = [self._profile(p) for p in profiles]
        if not profiles:
            return []
        with self._lock:
            rows = fts.search(self._db, query_text, profiles, int(k), self._bm25)
        self._check_in_any_scope([i for i, _ in rows], profiles)
        return [Hit(chunk_id=i, rank=r, score=-s) for r, (i, s) in enumerate(rows, start=1)]

    def search_phrase(self, words: Sequence[str], profiles: Sequence[str], k: int) -> list[Hit]:
        """BM25 among the chunks in scope for any of `profiles` that have the words next to each other
        (fts.phrase_query); for deciding what a scope lacks, like the other searches: ids only."""
        profiles = [self._profile(p) for p in profiles]
        if not profiles:
            return []
        with self._lock:
            rows = fts.search_match(self._db, fts.phrase_query(words), profiles, int(k), self._bm25)
        self._check_in_any_scope([i for i, _ in rows], profiles)
        return [Hit(chunk_id=i, rank=r, score=-s) for r, (i, s) in enumerate(rows, start=1)]

    # -- content ----------------------------------------------------------------------------
    def get_chunks(self, ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids, in the order given."""
        ids = list(ids)
        found: dict[str, Chunk] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            with self._lock:
                rows = self._db.execute(f"SELECT id, json FROM chunks WHERE id IN ({marks})", part).fetchall()
            found.update((i, Chunk.model_validate_json(j)) for i, j in rows)
        missing = [i for i in ids if i not in found]
        if missing:
            raise ReleaseError(f"chunk {missing[0]!r} is not in release {self.id[:12]}")
        return [found[i] for i in ids]

    def chunks_for_path(self, path: str) -> list[Chunk]:
        """The chunks of one source file, in export order."""
        with self._lock:
            rows = self._db.execute("SELECT json FROM chunks WHERE path = ? ORDER BY rowid", (path,)).fetchall()
        return [Chunk.model_validate_json(j) for (j,) in rows]

    def chunk_titles(self) -> frozenset[str]:
        """Every chunk title of the release (what a cross-reference shows of its target), read once."""
        if self._titles is None:
            with self._lock:
                self._titles = frozenset(t for (t,) in self._db.execute("SELECT DISTINCT title FROM chunks") if t)
        return self._titles

    def vocabulary(self):
        """What the doc set says about its words (valid.answer.vocabulary), with its chunk titles and
        the words most of its chunks write."""
        from valid.answer.vocabulary import COMMON_SHARE

        if self._common is None:  # a scan of the index's token list: once per open release, like the titles
            with self._lock:
                self._common = fts.common_tokens(self._db, COMMON_SHARE)
        return self.derived.to_vocabulary(titles=self.chunk_titles(), common=self._common)

    def all_chunk_ids(self) -> list[str]:
        with self._lock:
            return [i for (i,) in self._db.execute("SELECT id FROM chunks ORDER BY rowid")]

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()

    def __enter__(self) -> "Release":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# Vector hits of equal distance (chunks with the same text) are ranked by chunk id. The index is
# asked for a few more than k so that a tie at the k-th place is cut by id too, not by the order
# the chunks happened to enter the index; distances are rounded first, because the index computes
# the same distance along different paths (its exact buffer, its graph) that can differ in the last
# bit. An incremental and a clean build then rank alike, scores included.
TIE_MARGIN = 8
DISTANCE_DIGITS = 6


def _overfetch(k: int, available: int) -> int:
    return min(k + TIE_MARGIN, available)


def _nearest(result: dict, k: int) -> list[tuple[float, str]]:
    """The k nearest (distance, id) pairs of a Chroma query result, distance then id."""
    return sorted((round(float(d), DISTANCE_DIGITS), i) for d, i in zip(result["distances"][0], result["ids"][0]))[:k]


def _check_compatible(manifest: Manifest, release_id: str, profiles: list[str]) -> None:
    """Fail closed on a release this code would query wrongly (e.g. built when scope fields were ints).

    A filter that does not match how the release stored its scope would silently empty the vector
    channel; refusing to open it is the only safe answer.
    """
    identity = manifest.identity
    stored = (identity.index_schema_version, identity.vectors.scope_values, identity.vectors.metadata_fields)
    expected = (INDEX_SCHEMA_VERSION, SCOPE_VALUES, metadata_fields(profiles))
    if stored != expected:
        raise ReleaseError(
            f"release {release_id[:12]} was built by another version of VALID (index schema {stored[0]}, scope "
            f"fields {stored[1]}); this one reads schema {expected[0]} ({expected[1]}): rebuild it with `valid index`"
        )


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{p}={n}" for p, n in counts.items())


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [""])[0][:200]


def open_release(store: Store, release_id: str) -> Release:
    return Release(store, release_id)


def open_active(store: Store) -> Release:
    release_id = active_release_id(store)
    if release_id is None:
        raise ReleaseError(f"no active release in {store.root}; run `valid index CHUNKS.jsonl` first")
    return Release(store, release_id)
