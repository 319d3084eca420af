"""Removing old releases: their Chroma collections, directories and history entries.

Old releases cost more than disk. Chroma 1.5.9 keeps every collection's metadata in one SQLite
table, so each release left in a store adds rows that every filtered query of every other release
has to skip (see the index section of docs/benchmarks.md).

Kept: the active release, the `keep` most recent previously active ones (rollback targets), and
releases registered after the active one that are not in the history (waiting for activation, or
rolled back from). Each removal unregisters first (the `verified` marker goes), so a crash midway leaves
debris that the next build cleans up, never a half-deleted registered release. Runs under the build
lock and the activation lock. A service still pinned to a pruned release loses it: prune after the
service has moved to the active release.
"""

from __future__ import annotations

import shutil

from valid.errors import ReleaseError
from valid.index import vectors
from valid.index.activation import VERIFIED_MARKER, ActiveState, _write, list_releases, read_active
from valid.index.fsutil import file_lock
from valid.index.store import Store


def _registered_ns(store: Store, release_id: str) -> int:
    return (store.release_dir(release_id) / VERIFIED_MARKER).stat().st_mtime_ns


def prune_releases(store: Store, keep: int = 2) -> list[str]:
    """Remove releases that are neither active, nor among the last `keep` active ones, nor pending."""
    if keep < 0:
        raise ReleaseError(f"--keep must be 0 or more, got {keep}")
    with file_lock(store.build_lock, blocking=False) as locked:
        if not locked:
            raise ReleaseError(f"a `valid index` is running on {store.root}; prune after it finishes")
        with file_lock(store.active_lock):
            state = read_active(store)
            releases = list_releases(store)
            active_registered = _registered_ns(store, state.active) if state.active else -1
            pending = {
                r.id
                for r in releases
                if r.id != state.active and r.id not in state.history and _registered_ns(store, r.id) > active_registered
            }
            rollback_targets: list[str] = []
            for release_id in reversed(state.history):
                if len(rollback_targets) >= keep:
                    break
                if release_id != state.active and release_id not in rollback_targets:
                    rollback_targets.append(release_id)
            kept = {state.active, *rollback_targets, *pending}
            doomed = [r.id for r in releases if r.id not in kept]
            for release_id in doomed:
                (store.release_dir(release_id) / VERIFIED_MARKER).unlink()
                vectors.delete_collection(store.client, store.collection_name(release_id))
                shutil.rmtree(store.release_dir(release_id), ignore_errors=True)
            if doomed:
                _write(store, ActiveState(active=state.active, history=[h for h in state.history if h not in doomed]))
            return doomed
