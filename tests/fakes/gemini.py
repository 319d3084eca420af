"""A fake Gemini API on 127.0.0.1 for tests of the real google-genai client.

It accepts `POST /{version}/models/{model}:{method}` for `generateContent` and
`batchEmbedContents`, checks the request shape the real API requires (API key header, JSON body,
known top-level fields), records every request, and answers from handlers the test sets:

    with FakeGemini() as fake:
        fake.generate = lambda body: fake.text_response('{"answer": "..."}')
        client = genai.Client(api_key="test-key", http_options=fake.http_options())
        ...
        assert fake.requests[0].method == "generateContent"

A handler may return `(status, json_body)` to simulate 429/5xx, or raise AssertionError when the
request is wrong, which the fake turns into HTTP 400 and records in `fake.errors`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

_PATH = re.compile(r"^/(?P<version>v1(?:beta|alpha)?)/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)$")
_GENERATE_FIELDS = {"contents", "systemInstruction", "generationConfig", "safetySettings", "tools", "toolConfig"}


@dataclass
class Request:
    version: str
    model: str
    method: str
    headers: dict[str, str]
    body: dict[str, Any]


def hash_embedding(text: str, dim: int) -> list[float]:
    """A deterministic unit vector per text, so fake embeddings are reproducible."""
    values = []
    counter = 0
    while len(values) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        values.extend((b - 127.5) / 127.5 for b in digest)
        counter += 1
    values = values[:dim]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


class FakeGemini:
    def __init__(self, api_key: str = "test-key"):
        self.api_key = api_key
        self.requests: list[Request] = []
        self.errors: list[str] = []
        self.generate: Callable[[dict], Any] = lambda body: self.text_response("{}")
        self.embed: Callable[[dict], Any] = self.default_embed
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # -- responses -------------------------------------------------------------------------
    @staticmethod
    def text_response(text: str, tokens_in: int = 100, tokens_out: int = 20) -> dict:
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": tokens_in,
                "candidatesTokenCount": tokens_out,
                "totalTokenCount": tokens_in + tokens_out,
            },
            "modelVersion": "gemini-fake",
        }

    @staticmethod
    def default_embed(body: dict) -> dict:
        out = []
        for request in body["requests"]:
            assert request.get("content", {}).get("parts"), "embed request without content parts"
            text = "".join(part.get("text", "") for part in request["content"]["parts"])
            dim = int(request.get("outputDimensionality") or 768)
            out.append({"values": hash_embedding(text, dim)})
        return {"embeddings": out}

    # -- server ----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._server is not None, "FakeGemini is not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def http_options(self, timeout_ms: int = 5000):
        from google.genai import types

        return types.HttpOptions(base_url=self.base_url, api_version="v1beta", timeout=timeout_ms)

    def start(self) -> "FakeGemini":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                status, payload = fake._handle(self)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeGemini":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _error(self, status: int, message: str) -> tuple[int, dict]:
        with self._lock:
            self.errors.append(message)
        return status, {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}}

    def _handle(self, http: BaseHTTPRequestHandler) -> tuple[int, dict]:
        match = _PATH.match(http.path.split("?")[0])
        if not match:
            return self._error(404, f"unknown path {http.path}")
        if http.headers.get("x-goog-api-key") != self.api_key:
            return self._error(403, "missing or wrong x-goog-api-key")
        if "application/json" not in (http.headers.get("Content-Type") or ""):
            return self._error(400, "request is not JSON")
        length = int(http.headers.get("Content-Length") or 0)
        try:
            body = json.loads(http.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            return self._error(400, "body is not valid JSON")
        request = Request(
            version=match["version"],
            model=match["model"],
            method=match["method"],
            headers={k.lower(): v for k, v in http.headers.items()},
            body=body,
        )
        with self._lock:
            self.requests.append(request)
        try:
            if request.method == "generateContent":
                unknown = set(body) - _GENERATE_FIELDS
                assert not unknown, f"unknown generateContent fields {sorted(unknown)}"
                assert body.get("contents"), "generateContent without contents"
                result = self.generate(body)
            elif request.method == "batchEmbedContents":
                assert isinstance(body.get("requests"), list) and body["requests"], "no embed requests"
                for item in body["requests"]:
                    assert item.get("model") == f"models/{request.model}", "embed request model mismatch"
                result = self.embed(body)
            else:
                return self._error(404, f"unsupported method {request.method}")
        except AssertionError as err:
            return self._error(400, f"bad request: {err}")
        if isinstance(result, tuple):
            return result
        return 200, result
