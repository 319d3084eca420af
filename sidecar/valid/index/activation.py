"""Publication and activation are separate: a build registers a verified release; activation moves
the active pointer with a compare-and-swap.

`active.json` holds the active release id and the stack of previously active ids. Every change
happens under an flock on `active.lock` and lands with os.replace, so readers see the old pointer
or the new one, and two activators racing from the same `expected` cannot both win. Rollback is
one more validated activation (of the previous id), never a change to an old release.

Every state written is also appended to `activations.jsonl`, the activation journal. A damaged
`active.json` (truncated, hand-edited, not JSON) fails every reader with one line, and
`valid releases rollback` recovers: it takes the last state in the journal as the current one and
rolls back from it.

Nothing here imports Chroma: reading the pointer is cheap.
"""

from __future__ import annotations

import os
from typing import Callable

from pydantic import BaseModel, Field, ValidationError

from valid.errors import ReleaseError
from valid.index.fsutil import atomic_write, file_lock
from valid.index.store import Store

VERIFIED_MARKER = "verified"
HISTORY_LIMIT = 100
JOURNAL = "activations.jsonl"
JOURNAL_LIMIT = 1000  # states kept in the journal; it is trimmed to the newest half past this


class ActiveState(BaseModel):
    active: str | None = None
    history: list[str] = Field(default_factory=list, description="Previously active ids, oldest first.")


class ReleaseInfo(BaseModel):
    id: str
    active: bool
    built_at: str
    chunks: int
    per_profile: dict[str, int]
    embedder: str
    source_commit: str | None
    map: str


def _short(release_id: str | None) -> str:
    return release_id[:12] if release_id else "none"


def is_registered(store: Store, release_id: str) -> bool:
    return (store.release_dir(release_id) / VERIFIED_MARKER).is_file()


class DamagedPointer(ReleaseError):
    """active.json exists but is not a valid pointer."""


def read_active(store: Store) -> ActiveState:
    try:
        data = store.active_path.read_bytes()
    except FileNotFoundError:
        return ActiveState()
    except OSError as err:
        raise DamagedPointer(f"{store.active_path} cannot be read ({err.strerror}); fix its permissions") from None
    try:
        return ActiveState.model_validate_json(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "file"
        raise DamagedPointer(
            f"{store.active_path} is damaged ({where}: {first['msg']}); "
            "`valid releases rollback` or `valid releases activate ID` writes a new one"
        ) from None


def active_release_id(store: Store) -> str | None:
    return read_active(store).active


def _write(store: Store, state: ActiveState) -> None:
    """Write the pointer (atomically) and append it to the journal. Callers hold the activation lock."""
    _journal(store, state)
    atomic_write(store.active_path, state.model_dump_json(indent=2).encode() + b"\n")


def _journal(store: Store, state: ActiveState) -> None:
    path = store.root / JOURNAL
    line = state.model_dump_json().encode() + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)  # one write of one line: a crash leaves at most a torn last line
        os.fsync(fd)
    finally:
        os.close(fd)
    if path.stat().st_size > JOURNAL_LIMIT * len(line):
        lines = path.read_bytes().splitlines(keepends=True)
        if len(lines) > JOURNAL_LIMIT:
            atomic_write(path, b"".join(lines[-JOURNAL_LIMIT // 2 :]))


def _current_or_recovered(store: Store) -> ActiveState:
    """The pointer; when it is damaged, the last state the journal holds (else nothing active)."""
    try:
        return read_active(store)
    except DamagedPointer:
        return journaled_state(store) or ActiveState()


def recovered_active_id(store: Store) -> str | None:
    """The active id as activation sees it: a damaged pointer reads as its journaled state."""
    return _current_or_recovered(store).active


def journaled_state(store: Store) -> ActiveState | None:
    """The last valid state in the activation journal (torn or damaged lines are skipped), or None."""
    try:
        lines = (store.root / JOURNAL).read_bytes().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            return ActiveState.model_validate_json(line)
        except ValidationError:
            continue
    return None


def activate(store: Store, release_id: str, *, expected: str | None) -> ActiveState:
    """Make `release_id` active if the active release is still `expected` (None: nothing active)."""
    if not is_registered(store, release_id):
        raise ReleaseError(f"no verified release {release_id}; see `valid releases list`")
    with file_lock(store.active_lock):
        state = _current_or_recovered(store)
        if state.active != expected:
            raise ReleaseError(
                f"active release changed from {_short(expected)} to {_short(state.active)} meanwhile; rerun"
            )
        if state.active == release_id:
            return state
        history = state.history + ([state.active] if state.active else [])
        new = ActiveState(active=release_id, history=history[-HISTORY_LIMIT:])
        _write(store, new)
        return new


def rollback(store: Store, *, expected: str | None = None, check: Callable[[str], None] | None = None) -> ActiveState:
    """Activate the previously active release. `expected` (default: whatever is active now) makes it a CAS.

    A damaged pointer is recovered from the activation journal. `check(release_id)` runs on the
    target before the pointer moves (the CLI opens and verifies it there)."""
    with file_lock(store.active_lock):
        state = _current_or_recovered(store)
        current = state.active if expected is None else expected
        if state.active != current:
            raise ReleaseError(f"active release changed from {_short(current)} to {_short(state.active)} meanwhile; rerun")
        history = list(state.history)
        while history and not is_registered(store, history[-1]):
            history.pop()  # a release removed by hand cannot be rolled back to
        if not history:
            raise ReleaseError("nothing to roll back to: no earlier active release")
        previous = history.pop()
        if check is not None:
            check(previous)
        new = ActiveState(active=previous, history=history)
        _write(store, new)
        return new


def list_releases(store: Store) -> list[ReleaseInfo]:
    """Registered releases, in the order they were registered."""
    from valid.index.manifest import read_manifest

    active = active_release_id(store)
    out = []
    if not store.releases_dir.is_dir():
        return out
    registered: dict[str, int] = {}
    for path in store.releases_dir.iterdir():
        if not (path / VERIFIED_MARKER).is_file():
            continue
        registered[path.name] = (path / VERIFIED_MARKER).stat().st_mtime_ns
        manifest = read_manifest(path, path.name)
        op = manifest.operational
        out.append(
            ReleaseInfo(
                id=manifest.release_id,
                active=manifest.release_id == active,
                built_at=op.built_at,
                chunks=op.chunks,
                per_profile=op.per_profile,
                embedder=f"{manifest.identity.embedder.id}/{manifest.identity.embedder.dimension}",
                source_commit=op.source_commit,
                map=op.export_map,
            )
        )
    return sorted(out, key=lambda r: (registered[r.id], r.id))


def resolve_release_id(store: Store, prefix: str) -> str:
    """A full release id from a unique prefix of at least 6 characters (what `releases list` shows)."""
    if len(prefix) < 6:
        raise ReleaseError(f"release id prefix {prefix!r} is too short; give at least 6 characters")
    matches = sorted(p.name for p in store.releases_dir.glob(f"{prefix}*") if (p / VERIFIED_MARKER).is_file()) if store.releases_dir.is_dir() else []
    if not matches:
        raise ReleaseError(f"no verified release {prefix}; see `valid releases list`")
    if len(matches) > 1:
        raise ReleaseError(f"release id prefix {prefix} is ambiguous ({len(matches)} releases); give more characters")
    return matches[0]
