"""Unit vectors: every candidate answer unit of a release, embedded once by `valid index`.

The offline answerer chooses what inside the in-scope chunks answers (valid.answer.extract splits a
chunk into steps, rows, sentences, code blocks, ...). One of its signals is how near each unit is in
meaning to the question, with the release's own embedder. Embedding the units of eight chunks at
every question would cost more than the rest of an answer, and a unit's vector depends only on the
release's content, so the build embeds every unit of every chunk and stores the vectors beside the
release: `units.npy` (float32, one row per distinct unit text) and `units.json` (the sha256 of each
row's text, in row order, and the embedder). Both are covered by the release's verification stamp.

At ask time the vectors are read, never recomputed; a release built before unit vectors existed has
no such files, and its units are embedded when asked (valid.answer.unitvectors warns once).
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Sequence

from valid.contracts import Chunk
from valid.errors import ReleaseError
from valid.index.fsutil import atomic_write

UNITS_FILE = "units.npy"
UNIT_KEYS_FILE = "units.json"
UNITS_SCHEMA = "valid-units/1"


def unit_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def unit_inputs(chunks: Sequence[Chunk]) -> list[str]:
    """The distinct embedding inputs of every candidate unit of the chunks, in first-seen order."""
    from valid.answer.extract import split_units, unit_input
    from valid.answer.models import EvidenceChunk

    seen: dict[str, None] = {}
    for chunk in chunks:
        evidence = EvidenceChunk(id=chunk.id, alias="c1", text=chunk.text, title=chunk.title, scope=[])
        for unit in split_units(evidence, 0):
            seen.setdefault(unit_input(unit), None)
    return list(seen)


def write(directory: Path, texts: Sequence[str], vectors: Sequence[Sequence[float]], embedder_id: str) -> None:
    import numpy as np

    # A release with no units (an empty export, allowed with --allow-empty) stores an empty matrix:
    # numpy cannot infer the width of zero rows.
    matrix = np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1) if texts else np.zeros((0, 0), np.float32)
    buffer = io.BytesIO()
    np.save(buffer, matrix, allow_pickle=False)
    atomic_write(directory / UNITS_FILE, buffer.getvalue())
    keys = {"schema": UNITS_SCHEMA, "embedder": embedder_id, "keys": [unit_key(t) for t in texts]}
    atomic_write(directory / UNIT_KEYS_FILE, json.dumps(keys).encode() + b"\n")


class StoredUnitVectors:
    """The unit vectors of one release, read from its directory (memory-mapped)."""

    def __init__(self, directory: Path, embedder_id: str):
        import numpy as np

        try:
            keys = json.loads((directory / UNIT_KEYS_FILE).read_text(encoding="utf-8"))
            self.matrix = np.load(directory / UNITS_FILE, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as err:
            raise ReleaseError(f"release unit vectors in {directory.name} cannot be read: {err}; rebuild it with `valid index`") from None
        if keys.get("schema") != UNITS_SCHEMA or keys.get("embedder") != embedder_id or len(keys.get("keys", ())) != len(self.matrix):
            raise ReleaseError(f"release unit vectors in {directory.name} do not match the release; rebuild it with `valid index`")
        self._rows = {key: row for row, key in enumerate(keys["keys"])}

    def __len__(self) -> int:
        return len(self._rows)

    def row(self, text: str) -> int | None:
        return self._rows.get(unit_key(text))


def read(directory: Path, embedder_id: str) -> StoredUnitVectors | None:
    """The release's unit vectors, or None when it was built without them."""
    if not (directory / UNITS_FILE).is_file() and not (directory / UNIT_KEYS_FILE).is_file():
        return None
    return StoredUnitVectors(directory, embedder_id)
