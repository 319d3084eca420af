"""The embedding cache: one SQLite table keyed by (text digest, embedder id, dimension).

Keys name the exact embedding input (see manifest.embedding_input) and the embedder identity, so a
hit is the vector a fresh call would return. Vectors are stored as little-endian float32, which is
also what Chroma stores: a cached and a freshly computed vector reach the index bit for bit alike.
Entries are written after every embedding batch, so a killed build keeps what it paid for.
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

_BATCH = 500


def to_float32(vector: Sequence[float]) -> list[float]:
    """The float32 rounding of a vector, as Python floats (what Chroma will hold)."""
    return np.asarray(vector, dtype="<f4").tolist()


class EmbeddingCache:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS embeddings ("
            " text_sha256 TEXT NOT NULL, embedder TEXT NOT NULL, dimension INTEGER NOT NULL, vector BLOB NOT NULL,"
            " PRIMARY KEY (text_sha256, embedder, dimension)) WITHOUT ROWID"
        )
        self._db.commit()

    def get_many(self, digests: Iterable[str], embedder: str, dimension: int) -> dict[str, list[float]]:
        digests = list(dict.fromkeys(digests))
        found: dict[str, list[float]] = {}
        for start in range(0, len(digests), _BATCH):
            part = digests[start : start + _BATCH]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT text_sha256, vector FROM embeddings WHERE embedder = ? AND dimension = ? AND text_sha256 IN ({marks})",
                [embedder, dimension, *part],
            )
            for digest, blob in rows:
                # A damaged entry is a miss, never a wrong vector.
                if len(blob) != 4 * dimension:
                    continue
                vector = np.frombuffer(blob, dtype="<f4")
                if not np.all(np.isfinite(vector)) or not math.isclose(float(np.dot(vector, vector)), 1.0, abs_tol=1e-3):
                    continue
                found[digest] = vector.tolist()
        return found

    def put_many(self, vectors: Mapping[str, Sequence[float]], embedder: str, dimension: int) -> None:
        rows = []
        for digest, vector in vectors.items():
            array = np.asarray(vector, dtype="<f4")
            if array.shape != (dimension,):
                raise ValueError(f"embedder {embedder} returned {array.shape} for dimension {dimension}")
            rows.append((digest, embedder, dimension, array.tobytes()))
        self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)", rows)
        self._db.commit()

    def count(self) -> int:
        return self._db.execute("SELECT count(*) FROM embeddings").fetchone()[0]

    def close(self) -> None:
        self._db.close()
