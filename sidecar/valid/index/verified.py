"""The verification stamp: a release's full content check, done once per release and its files.

Opening a release checks every chunk of both stores against its manifest (valid.index.release):
each chunk's digest and scope in FTS5 and in Chroma, and a digest over every stored value. That is
linear in the release and took seconds at every CLI start on a 10,000-chunk release. It only needs
repeating when a file it read can have changed, so after a full check passes the release records
`verified.json` beside its manifest: the release id, the index schema and, for every file the check
read, its size, modification time, change time and inode. The next opening compares those (a few
`stat` calls) and runs the full check again only when anything differs: an edit in place, a copy,
a rebuild of another release in the same Chroma store, or a new VALID.

A Chroma server (`--chroma-url`) has no files here to fingerprint: such a release is checked in
full at every opening, as before. A state directory that cannot be written keeps working the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Iterable

from valid.index.fsutil import atomic_write

STAMP_FILE = "checked.json"  # not "verified": that is the registration marker (valid.index.activation)


def _stat(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def files_under(directory: Path) -> list[Path]:
    return [Path(root) / name for root, _, names in os.walk(directory) for name in names]


def stamp(release_id: str, schema: str, files: Iterable[Path]) -> dict:
    """What the stamp holds for these files now (stat and content digest of each; a missing file
    is left out, which differs from any stamp that had it)."""
    out = {}
    for path in sorted(set(files)):
        stat, digest = _stat(path), _sha256(path)
        if stat is not None and digest is not None:
            out[str(path)] = {"stat": stat, "sha256": digest}
    return {"release": release_id, "schema": schema, "files": out}


def is_verified(release_dir: Path, release_id: str, schema: str, files: Iterable[Path]) -> bool:
    """True when these very files passed the full check: the same stat as recorded, or, where the
    stat changed (a copy, or Chroma persisting its vector segment again on its first load after a
    build), the same content. The stamp is refreshed then, so the next opening is `stat` calls only."""
    try:
        recorded = json.loads((release_dir / STAMP_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(recorded, dict) or (recorded.get("release"), recorded.get("schema")) != (release_id, schema):
        return False
    known = recorded.get("files")
    files = sorted({str(f) for f in files if _stat(f) is not None})
    if not isinstance(known, dict) or sorted(known) != files:
        return False
    refreshed = {}
    for name in files:
        entry, stat = known[name], _stat(Path(name))
        if not isinstance(entry, dict):
            return False
        if stat != entry.get("stat"):
            if _sha256(Path(name)) != entry.get("sha256"):
                return False
            entry = {"stat": stat, "sha256": entry.get("sha256")}
        refreshed[name] = entry
    if refreshed != known:
        record(release_dir, {**recorded, "files": refreshed})
    return True


def same_files_under(before: dict, after: dict, directory: Path) -> bool:
    """True when two stamps agree on every file under directory."""
    inside = lambda stamp: {k: v for k, v in stamp["files"].items() if Path(k).is_relative_to(directory)}  # noqa: E731
    return inside(before) == inside(after)


def record(release_dir: Path, current: dict) -> None:
    """Write the stamp after a full check passed; a read-only state directory just goes without."""
    try:
        atomic_write(release_dir / STAMP_FILE, json.dumps(current, sort_keys=True).encode() + b"\n")
    except OSError:
        pass
