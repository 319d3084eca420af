"""The Gemini embedder, through the real google-genai client.

Documents are embedded with task type RETRIEVAL_DOCUMENT and questions with RETRIEVAL_QUERY, at a
configurable output dimension. Vectors below the model's full size are not unit length, so they are
L2-normalised here (the index uses cosine distance either way, and the cache stores unit vectors).

The API key comes from the argument, GEMINI_API_KEY or GOOGLE_API_KEY. `base_url` points the client
elsewhere (tests use the local fake in tests/fakes/gemini.py); when it is not given, google-genai's
own GOOGLE_GEMINI_BASE_URL handling applies.
"""

from __future__ import annotations

import math
import os
from typing import Sequence

from valid.errors import ConfigError, ProviderError

DEFAULT_MODEL = "gemini-embedding-001"
DEFAULT_DIMENSION = 768
MAX_BATCH = 100  # batchEmbedContents accepts at most 100 requests


def _unit(values: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in values))
    if not norm or not math.isfinite(norm):
        raise ProviderError("Gemini returned a zero or non-finite embedding; check the model name")
    return [float(v) / norm for v in values]


class GeminiEmbedder:
    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        dimension: int = DEFAULT_DIMENSION,
        api_key: str | None = None,
        base_url: str | None = None,
        api_version: str = "v1beta",
        timeout_ms: int = 30_000,
        attempts: int = 3,
        batch_size: int = MAX_BATCH,
    ):
        key = api_key or os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
        if not key:
            raise ConfigError(
                "the Gemini embedder needs an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), or use --embedder offline"
            )
        if dimension < 1:
            raise ConfigError(f"embedding dimension must be positive, got {dimension}")
        from google import genai
        from google.genai import types

        self.model = model
        self._dimension = int(dimension)
        self.batch_size = max(1, min(int(batch_size), MAX_BATCH))
        options = {"api_version": api_version, "timeout": timeout_ms}
        if base_url:
            options["base_url"] = base_url
        if attempts > 1:
            options["retry_options"] = types.HttpRetryOptions(attempts=attempts, http_status_codes=[429, 500, 502, 503, 504])
        self._types = types
        self._client = genai.Client(api_key=key, http_options=types.HttpOptions(**options))
        self.base_url = base_url

    @property
    def id(self) -> str:
        return f"gemini/{self.model}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            out.extend(self._embed(list(texts[start : start + self.batch_size]), "RETRIEVAL_DOCUMENT"))
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text], "RETRIEVAL_QUERY")[0]

    def _embed(self, texts: list[str], task_type: str) -> list[list[float]]:
        if not texts:
            return []
        from google.genai import errors

        config = self._types.EmbedContentConfig(task_type=task_type, output_dimensionality=self._dimension)
        try:  # 429 and 5xx were already retried with backoff by the client (retry_options)
            response = self._client.models.embed_content(model=self.model, contents=texts, config=config)
        except errors.APIError as err:
            if err.code in (401, 403, 404):
                hint = "check the model name" if err.code == 404 else "check the API key"
                raise ConfigError(f"Gemini embedding call failed with HTTP {err.code} ({err.message}); {hint}") from None
            raise ProviderError(f"Gemini embedding call failed with HTTP {err.code} ({err.message}); retry later") from None
        except Exception as err:  # httpx2 transport errors: an unreachable or misconfigured endpoint
            if type(err).__module__.split(".")[0] in {"httpx", "httpx2", "httpcore"}:
                raise ProviderError(f"cannot reach Gemini ({type(err).__name__}: {err}); check the network or base URL") from None
            raise
        embeddings = response.embeddings or []
        if len(embeddings) != len(texts):
            raise ProviderError(f"Gemini returned {len(embeddings)} embeddings for {len(texts)} texts")
        vectors = []
        for item in embeddings:
            values = list(item.values or [])
            if len(values) != self._dimension:
                raise ProviderError(
                    f"Gemini model {self.model} returned {len(values)}-dimensional vectors, expected {self._dimension}; "
                    "check the model and --embed-dimension"
                )
            vectors.append(_unit(values))
        return vectors
