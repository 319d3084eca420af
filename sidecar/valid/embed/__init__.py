"""Embedders: text → unit vectors, behind one small protocol.

    from valid.embed import make_embedder
    embedder = make_embedder("offline")          # all-MiniLM-L6-v2 int8 ONNX, no network
    vectors = embedder.embed_documents(["Create a TPU VM", "Delete a queued resource"])
    query = embedder.embed_query("how do I create a v6e VM?")

The index never lets Chroma embed anything itself: every vector comes from an `Embedder`, and
`Embedder.id` (with `dimension`) keys the embedding cache and is part of a release's identity, so
an `id` must change whenever the vectors for the same text could change.
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

__all__ = ["Embedder", "make_embedder", "EMBEDDER_KINDS"]

EMBEDDER_KINDS = ("offline", "gemini")


@runtime_checkable
class Embedder(Protocol):
    @property
    def id(self) -> str:
        """Stable identity of the vectors: model, weights digest and recipe (e.g. 'minilm-l6-v2-int8@1a2b3c4d')."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text, in order."""
        ...

    def embed_query(self, text: str) -> list[float]: ...


def make_embedder(kind: str = "offline", **options) -> Embedder:
    """The embedder named on the command line ('offline' or 'gemini'), with its own options."""
    if kind == "offline":
        from valid.embed.offline import OfflineMiniLM

        return OfflineMiniLM(**options)
    if kind == "gemini":
        from valid.embed.gemini import GeminiEmbedder

        return GeminiEmbedder(**options)
    from valid.errors import ConfigError

    raise ConfigError(f"unknown embedder {kind!r}; choose one of: {', '.join(EMBEDDER_KINDS)}")
