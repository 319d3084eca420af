"""The state directory and the Chroma store a set of releases lives in.

    <state>/                     default `.valid/` in the working directory (--state DIR, VALID_STATE)
      state.json                 this state's namespace (prefixes its Chroma collection names)
      active.json                the active pointer and its history (see valid.index.activation)
      embeddings.sqlite          the embedding cache: (text digest, embedder id, dimension) -> vector
      releases/<release_id>/     release.json, export-header.json, fts.sqlite, report.json/.html, verified
      staging/                   builds in progress; anything here is debris after a crash
      chroma/                    the embedded Chroma store (unless --chroma-url names a server)

With `--chroma-url http://127.0.0.1:PORT` the same code talks to a `chroma run` server through
chromadb.HttpClient; the namespace keeps two state directories that share one server apart.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from valid.errors import ConfigError
from valid.index.fsutil import atomic_write, file_lock

DEFAULT_STATE = ".valid"


class Store:
    def __init__(self, state: str | Path | None = None, chroma_url: str | None = None):
        self.root = Path(state or os.environ.get("VALID_STATE") or DEFAULT_STATE)
        self.chroma_url = chroma_url or os.environ.get("VALID_CHROMA_URL") or None
        self._client = None
        self._namespace: str | None = None
        if self.chroma_url:
            self._parse_url(self.chroma_url)  # fail early on a malformed URL

    # -- paths ------------------------------------------------------------------------------
    @property
    def releases_dir(self) -> Path:
        return self.root / "releases"

    @property
    def staging_dir(self) -> Path:
        return self.root / "staging"

    @property
    def active_path(self) -> Path:
        return self.root / "active.json"

    @property
    def active_lock(self) -> Path:
        return self.root / "active.lock"

    @property
    def build_lock(self) -> Path:
        return self.root / "build.lock"

    @property
    def cache_path(self) -> Path:
        return self.root / "embeddings.sqlite"

    def release_dir(self, release_id: str) -> Path:
        return self.releases_dir / release_id

    # -- identity of this state -------------------------------------------------------------
    @property
    def namespace(self) -> str:
        if self._namespace is None:
            path = self.root / "state.json"
            with file_lock(self.root / "state.lock"):
                if not path.exists():
                    atomic_write(path, json.dumps({"namespace": secrets.token_hex(4)}).encode() + b"\n")
                self._namespace = json.loads(path.read_text())["namespace"]
        return self._namespace

    def collection_name(self, release_id: str) -> str:
        return f"valid-{self.namespace}-{release_id}"

    def describe(self) -> str:
        return self.chroma_url or "embedded"

    # -- Chroma -----------------------------------------------------------------------------
    @staticmethod
    def _parse_url(url: str) -> tuple[str, int, bool]:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
            raise ConfigError(f"--chroma-url must look like http://127.0.0.1:8000, got {url!r}")
        port = parts.port or (443 if parts.scheme == "https" else 8000)
        return parts.hostname, port, parts.scheme == "https"

    @property
    def client(self):
        if self._client is None:
            import chromadb
            from chromadb.config import Settings

            settings = Settings(anonymized_telemetry=False)
            if self.chroma_url:
                host, port, ssl = self._parse_url(self.chroma_url)
                try:
                    self._client = chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=settings)
                    self._client.heartbeat()
                except Exception as err:
                    raise ConfigError(
                        f"cannot reach Chroma at {self.chroma_url} ({type(err).__name__}); start it with "
                        f"`chroma run --path DIR --host {host} --port {port}` or drop --chroma-url"
                    ) from None
            else:
                (self.root / "chroma").mkdir(parents=True, exist_ok=True)
                self._client = chromadb.PersistentClient(path=str(self.root / "chroma"), settings=settings)
        return self._client
