"""Release identity: a content-addressed manifest of every input that can change what a release does.

`release_id = sha256(canonical JSON of Identity)`. The identity binds the export's chunk lines and
header (profiles, labels, owned values, scheme and stylesheet digests, exporter version), the
embedder and its dimension, the vector store settings and the BM25 settings, and the index schema
version. The build reads its settings *from* the identity (HNSW configuration, FTS5 tokenizer,
BM25 weights), so nothing that shapes a release can be left out of its id.

Timestamps, paths, the store location, batch sizes and the doc set's commit are recorded in
`Operational`: they describe a run, not behaviour, and never change the id. (The same content from
a later commit is the same release, reused at no cost.)
"""

from __future__ import annotations

import hashlib
import sqlite3
from importlib import metadata
from typing import Iterable, Sequence

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from valid.errors import ReleaseError

from valid.export.file import LoadedExport, canonical_json, sha256_hex

# Bump whenever what a release stores changes shape (2: boolean scope fields, 8 metadata fields;
# 3: the release-only data of valid.index.derived stored in derived.json, its digest in the manifest).
INDEX_SCHEMA_VERSION = "3"
# How a chunk becomes embedding input. Change the string whenever `embedding_input` changes.
# v2: variants of one chunk that differ only in their profiles' names share the input of the variant
# kept by the most profiles (valid.index.variants).
EMBEDDING_INPUT = "title+blank-line+text/v1;name-only-variants-share/v1"


def embedding_input(title: str, text: str) -> str:
    """The text the embedder sees for a chunk: its title carries meaning its body often leaves implicit."""
    return f"{title}\n\n{text}" if title else text


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HnswSettings(_Frozen):
    space: str = "cosine"
    ef_search: int = 400
    ef_construction: int = 200
    max_neighbors: int = 32


class Bm25Settings(_Frozen):
    # '-' and '_' are token characters, so `v2-alpha-tpuv6e` and `--version` are single terms that
    # match literally; the `split` column holds the parts of such words so `version` still finds them.
    tokenizer: str = "unicode61 remove_diacritics 2 tokenchars '-_'"
    columns: tuple[str, ...] = ("title", "text", "split")
    weights: tuple[float, ...] = (2.0, 1.0, 0.5)


class IndexSettings(_Frozen):
    """The behaviour-changing settings of a build (defaults are VALID's)."""

    schema_version: str = INDEX_SCHEMA_VERSION
    hnsw: HnswSettings = HnswSettings()
    bm25: Bm25Settings = Bm25Settings()


class ExportIdentity(_Frozen):
    digest: str = Field(description="sha256 of the export's chunk lines.")
    header_digest: str = Field(description="sha256 of the header minus operational fields.")
    scheme_digest: str | None
    stylesheet_digest: str
    schema_version: str
    profiles: list[str]


class EmbedderIdentity(_Frozen):
    id: str
    dimension: int
    input: str = EMBEDDING_INPUT


SCOPE_VALUES = "bool"


class VectorIdentity(_Frozen):
    engine: str = "chromadb"
    version: str
    hnsw: HnswSettings
    metadata_fields: list[str]
    scope_values: str = SCOPE_VALUES  # how in_<profile> is stored and filtered


class Bm25Identity(_Frozen):
    engine: str = "sqlite-fts5"
    sqlite_version: str
    settings: Bm25Settings


class Identity(_Frozen):
    index_schema_version: str
    export: ExportIdentity
    embedder: EmbedderIdentity
    vectors: VectorIdentity
    bm25: Bm25Identity

    @property
    def release_id(self) -> str:
        return sha256_hex(canonical_json(self.model_dump(mode="json")))


class Operational(_Frozen):
    """What a run did and where: never part of the release id."""

    built_at: str
    build_seconds: float
    export_path: str
    export_map: str
    source_commit: str | None
    store: str
    collection: str
    embed_batch_size: int | None = None
    chunks: int
    per_profile: dict[str, int]
    content_digest: str | None = Field(
        default=None,
        description="scope_digest of the chunks as built: opening the release recomputes it from both stores.",
    )
    stored_digest: str | None = Field(
        default=None,
        description="sha256 over every value of the FTS5 file as built (chunk JSON, searched text, scope; "
        "valid.index.fts.stored_digest): opening the release recomputes it from the file.",
    )
    derived_digest: str | None = Field(
        default=None,
        description="sha256 of derived.json (vocabulary, owned values, title; valid.index.derived) as built.",
    )


class Manifest(_Frozen):
    release_id: str
    identity: Identity
    operational: Operational


def scope_digest(rows: Iterable[tuple[str, str, Sequence[bool]]]) -> str:
    """sha256 over every chunk's (id, text digest, scope per profile), in id order.

    Computed at build time from the export and at open time from each store (FTS5 columns, Chroma
    metadata), so a scope field changed after the build, in either store, fails the open instead
    of silently widening or narrowing what a generation's reader sees."""
    digest = hashlib.sha256()
    for chunk_id, text_digest, scope in sorted(rows, key=lambda row: row[0]):
        bits = "".join("1" if bool(v) else "0" for v in scope)
        digest.update(f"{chunk_id}\x1f{text_digest}\x1f{bits}\n".encode("utf-8"))
    return digest.hexdigest()


def metadata_fields(profiles: list[str]) -> list[str]:
    return [f"in_{p}" for p in profiles] + ["id", "path", "title", "type", "digest"]


def _chromadb_version() -> str:
    try:
        return metadata.version("chromadb")
    except metadata.PackageNotFoundError:  # pragma: no cover - chromadb is a hard dependency
        return "unknown"


def identity_for(export: LoadedExport, embedder_id: str, dimension: int, settings: IndexSettings | None = None) -> Identity:
    settings = settings or IndexSettings()
    header = export.header
    return Identity(
        index_schema_version=settings.schema_version,
        export=ExportIdentity(
            digest=export.digest,
            header_digest=export.header_digest,
            scheme_digest=header.scheme_digest,
            stylesheet_digest=header.stylesheet_digest,
            schema_version=header.schema_version,
            profiles=export.profiles,
        ),
        embedder=EmbedderIdentity(id=embedder_id, dimension=int(dimension)),
        vectors=VectorIdentity(version=_chromadb_version(), hnsw=settings.hnsw, metadata_fields=metadata_fields(export.profiles)),
        bm25=Bm25Identity(sqlite_version=sqlite3.sqlite_version, settings=settings.bm25),
    )


def read_model(path: Path, model: type[BaseModel], release_id: str):
    """A release file parsed as `model`, or a one-line ReleaseError naming the file and what is wrong."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ReleaseError(f"release {release_id[:12]} is damaged: {path} is missing; rebuild it with `valid index`") from None
    except OSError as err:
        raise ReleaseError(f"release {release_id[:12]}: {path} cannot be read ({err.strerror})") from None
    try:
        return model.model_validate_json(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "file"
        raise ReleaseError(
            f"release {release_id[:12]} is damaged: {path} ({where}: {first['msg']}); rebuild it with `valid index`"
        ) from None


def read_manifest(release_dir: Path, release_id: str) -> Manifest:
    """release.json, checked to describe this release: its id and the hash of its identity match."""
    return check_identity(read_model(release_dir / "release.json", Manifest, release_id), release_dir, release_id)


def check_identity(manifest: Manifest, release_dir: Path, release_id: str) -> Manifest:
    if manifest.release_id != release_id or manifest.identity.release_id != release_id:
        raise ReleaseError(
            f"release {release_id[:12]} is damaged: {release_dir / 'release.json'} describes another release "
            f"(its identity hashes to {manifest.identity.release_id[:12]}); rebuild it with `valid index`"
        )
    return manifest
