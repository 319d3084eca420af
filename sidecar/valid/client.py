"""A client of a running `valid serve`: what `valid ask --server URL` uses.

A service has its release open, verified and warm (embedding model, vectors, derived data), so a
question costs only the answer; the command line then pays for neither Chroma nor the model at
every start. The client takes the standard library's HTTP only (no import of the engine, the
server or a third-party HTTP client), asks `POST /v1/ask` and reads the release's generations and
wording from `GET /v1/releases/active`; a service error is one line with its code and message.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass

from valid.errors import ValidError


class ServerError(ValidError):
    """The service refused, failed or could not be reached."""


@dataclass(frozen=True)
class Served:
    answer: dict  # the answer object (docs/answer.md), as the service returned it
    labels: dict[str, str]  # profile name -> display name, from the service's release
    wording: dict[str, str]  # the service's reader-facing strings (valid.wording)


def ask(url: str, question: str, generation: str | None = None, timeout_s: float = 120.0) -> Served:
    base = url.rstrip("/")
    body = {"question": question} | ({"generation": generation} if generation else {})
    answer = _call(f"{base}/v1/ask", json.dumps(body).encode(), timeout_s)
    info = _call(f"{base}/v1/releases/active", None, timeout_s)
    labels = {g["name"]: g["label"] for g in info.get("generations", [])}
    return Served(answer=answer, labels=labels, wording=dict(info.get("wording", {})))


def _call(url: str, data: bytes | None, timeout_s: float) -> dict:
    headers = {"Accept": "application/json"} | ({"Content-Type": "application/json"} if data is not None else {})
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as err:
        raise ServerError(f"{url}: {err.code} {_error_message(err)}") from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise ServerError(f"cannot reach `valid serve` at {url} ({reason}); start it with `valid serve`") from None
    except ValueError:
        raise ServerError(f"{url} did not answer with JSON: is it a `valid serve`?") from None


def _error_message(err: urllib.error.HTTPError) -> str:
    try:
        error = json.loads(err.read()).get("error", {})
        return f"{error.get('code', '')}: {error.get('message', '')}".strip(": ")
    except (ValueError, AttributeError):
        return err.reason or ""
