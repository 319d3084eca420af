"""Index releases: Chroma + SQLite FTS5, the embedding cache, release identity, activation.

    from valid.embed import make_embedder
    from valid.index import Store, build_release, open_active

    store = Store(".valid")                                   # or Store(chroma_url="http://127.0.0.1:8000")
    result = build_release("chunks.jsonl", make_embedder("offline"), store)
    with open_active(store) as release:
        hits = release.search_bm25("--version", "v6e", k=10)

See docs/index.md for the state directory layout, release identity and activation.
"""

from valid.index.activation import (
    ActiveState,
    ReleaseInfo,
    activate,
    active_release_id,
    is_registered,
    list_releases,
    read_active,
    resolve_release_id,
    rollback,
)
from valid.index.build import BuildResult, build_release
from valid.export.file import LoadedExport, read_export
from valid.index.manifest import Identity, IndexSettings, Manifest, identity_for
from valid.index.prune import prune_releases
from valid.index.release import Hit, Release, open_active, open_release
from valid.index.report import IndexReport
from valid.index.store import Store

__all__ = [
    "ActiveState",
    "BuildResult",
    "Hit",
    "Identity",
    "IndexReport",
    "IndexSettings",
    "LoadedExport",
    "Manifest",
    "Release",
    "ReleaseInfo",
    "Store",
    "activate",
    "active_release_id",
    "build_release",
    "identity_for",
    "is_registered",
    "list_releases",
    "open_active",
    "open_release",
    "prune_releases",
    "read_active",
    "read_export",
    "resolve_release_id",
    "rollback",
]
