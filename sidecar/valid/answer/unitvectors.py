"""Where the offline answerer gets the vectors of the question and of its candidate units.

The units' vectors are the ones `valid index` stored with the release (valid.index.units): read,
never recomputed. A release built before they were stored (or a unit the stored file lacks) has its
units embedded here with the release's embedder, with one warning per source, so old releases still
answer, only slower. The question is embedded once per text.
"""

from __future__ import annotations

import warnings
from typing import Sequence


class UnitVectorSource:
    """stored: the release's StoredUnitVectors (or None); embedder: the release's query embedder."""

    def __init__(self, stored, embedder):
        self.stored = stored
        self.embedder = embedder
        self.computed = 0  # units embedded here because the release did not store them
        self._questions: dict[str, object] = {}
        self._warned = False

    @classmethod
    def for_release(cls, release, embedder) -> "UnitVectorSource":
        return cls(getattr(release, "unit_vectors", None), embedder)

    def question(self, text: str):
        import numpy as np

        if text not in self._questions:
            if len(self._questions) > 256:
                self._questions.clear()
            self._questions[text] = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
        return self._questions[text]

    def units(self, texts: Sequence[str]):
        """One row per text, in order."""
        import numpy as np

        rows = [self.stored.row(t) if self.stored is not None else None for t in texts]
        missing = [i for i, r in enumerate(rows) if r is None]
        dimension = self.stored.matrix.shape[1] if self.stored is not None else None
        out = None
        if len(missing) < len(texts):
            out = np.asarray(self.stored.matrix[[r for r in rows if r is not None]], dtype=np.float32)
            dimension = out.shape[1]
        if not missing:
            return out
        if not self._warned:
            self._warned = True
            warnings.warn(
                "the release stores no vectors for some answer units (built before unit vectors, or by another VALID): "
                "they are embedded at each question; rebuild it with `valid index` to store them",
                stacklevel=2,
            )
        fresh = np.asarray(self.embedder.embed_documents([texts[i] for i in missing]), dtype=np.float32)
        self.computed += len(missing)
        result = np.zeros((len(texts), dimension or fresh.shape[1]), dtype=np.float32)
        if out is not None:
            result[[i for i, r in enumerate(rows) if r is not None]] = out
        result[missing] = fresh
        return result
