"""generate_answer: the Generator protocol and its two implementations.

- OfflineExtractive (default, valid.answer.extract): no model. Splits the in-scope chunks into
  units, picks the one that answers the question's kind, verbatim, each step citing its chunk, and
  abstains when none does. Deterministic: same chunks, same answer.
- GeminiGenerator: google-genai structured output (see prompt.py for the schema and fencing),
  temperature 0, bounded retries with exponential backoff on 429 and 5xx by the google-genai
  client itself (`HttpRetryOptions`, as the embedder), tokens from usageMetadata. The API key comes from GEMINI_API_KEY or GOOGLE_API_KEY. Inside
  `provider_deadline(at)` (the service sets it to the request's deadline) no attempt, backoff or
  HTTP timeout reaches past `at`: the provider never outlives the request that waits for it.

A generator sees only the request: the question, this answer's scope and the in-scope chunks
(plus, on a revision, its previous draft and the check failures). It never searches.
"""

from __future__ import annotations

import json
import os
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Protocol, TypeVar

from valid.errors import ConfigError

from valid.answer.extract import OfflineExtractive as _OfflineExtractive
from valid.answer.models import Draft, DraftStep
from valid.answer.prompt import SYSTEM_INSTRUCTION, GenerationRequest, build_prompt, response_schema

DEFAULT_GEMINI_MODEL = "gemini-3.8-flash"


class Generator(Protocol):
    name: str  # "offline" | "gemini"
    model: str | None
    deterministic: bool  # a revision with the same input would give the same draft

    def generate(self, request: GenerationRequest) -> Draft: ...


# -- offline extractive: valid.answer.extract ---------------------------------------------------

# Re-exported: the offline answerer is one of the two generators this module names.
OfflineExtractive = _OfflineExtractive


# -- the request's deadline ----------------------------------------------------------------------

_DEADLINE = threading.local()  # per worker thread: each ask runs in one thread from start to end
# A model call may run this long past the deadline, so that a request whose answer is too slow is
# answered 504 by the service (which waits exactly until the deadline) and not, a moment earlier, as a
# refusal for want of a model; the worker is free right after.
GRACE_S = 0.25
T = TypeVar("T")


@contextmanager
def provider_deadline(at: float | None) -> Iterator[None]:
    """Within the block, model calls in this thread end by `at` (time.monotonic()); None: no bound."""
    previous = getattr(_DEADLINE, "at", None)
    _DEADLINE.at = at
    try:
        yield
    finally:
        _DEADLINE.at = previous


def run_before(at: float | None, fn: Callable[[], T]) -> T:
    with provider_deadline(at):
        return fn()


def seconds_left() -> float | None:
    at = getattr(_DEADLINE, "at", None)
    return None if at is None else at - time.monotonic()


# -- Gemini -------------------------------------------------------------------------------------


def _api_key() -> str:
    key = os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
    if not key:
        raise ConfigError(
            "no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), or use --generator offline"
        )
    return key


def pauses_before(left: float | None, attempts: int, first_s: float, longest_s: float) -> int:
    """How many of `attempts` fit in `left` seconds, given the client's backoff (first_s, doubling, capped).

    A retry whose pause alone would outlast the request's deadline is not made: the client gets fewer
    attempts instead of a sleep that ends after the request has already been answered.
    """
    if left is None:
        return attempts
    fitting, waited = 1, 0.0
    while fitting < attempts:
        waited += min(longest_s, first_s * 2 ** (fitting - 1))
        if waited >= left:
            break
        fitting += 1
    return fitting


class _NoTimeLeft(Exception):
    """Raised before sending a request when the request's deadline has passed (not retried)."""


def _before_each_request(request) -> None:
    """httpx event hook, run in the asking thread before every HTTP attempt the client makes (retries too).

    Counts the attempt, refuses one past the deadline and shortens its timeout to the time left, so
    that the client's own retries stay inside the request's deadline.
    """
    _DEADLINE.calls = getattr(_DEADLINE, "calls", 0) + 1
    left = seconds_left()
    if left is None:
        return
    if left <= 0:
        _DEADLINE.calls -= 1  # not sent
        raise _NoTimeLeft("no time left for a model call before the request's deadline")
    bound = left + GRACE_S
    request.extensions["timeout"] = {k: bound if v is None else min(v, bound) for k, v in request.extensions.get("timeout", {}).items()}


class GeminiGenerator:
    """Gemini through the real google-genai client. `base_url` points it elsewhere (tests: a local fake).

    Retries are the client's own (`HttpRetryOptions`, as in the embedder): one mechanism for every
    Gemini call. Jitter is off so that how many attempts fit before a deadline is known in advance.
    """

    name = "gemini"
    deterministic = False
    RETRY_STATUS = [429, 500, 502, 503, 504]

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_attempts: int = 4,
        backoff_s: float = 1.0,
        max_backoff_s: float = 16.0,
        timeout_ms: int = 60_000,
        max_output_tokens: int = 2048,
    ):
        from google import genai
        from google.genai import types

        self.model = model or os.environ.get("VALID_GEMINI_MODEL") or DEFAULT_GEMINI_MODEL
        self.max_attempts = max(1, max_attempts)
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.max_output_tokens = max_output_tokens
        self.timeout_ms = timeout_ms
        base_url = base_url or os.environ.get("VALID_GEMINI_BASE_URL")
        self._types = types
        options = types.HttpOptions(
            api_version="v1beta",
            timeout=timeout_ms,
            base_url=base_url,
            retry_options=self._retry_options(self.max_attempts),
            client_args={"event_hooks": {"request": [_before_each_request]}},
        )
        self._client = genai.Client(api_key=api_key or _api_key(), http_options=options)

    def _retry_options(self, attempts: int):
        return self._types.HttpRetryOptions(
            attempts=attempts,
            initial_delay=self.backoff_s,
            max_delay=self.max_backoff_s,
            exp_base=2.0,
            jitter=0.0,
            http_status_codes=self.RETRY_STATUS,
        )

    def _call(self, prompt: str, schema: dict, system_instruction: str = SYSTEM_INSTRUCTION):
        """One model call, retried by the client; returns (response or None, HTTP attempts made, error)."""
        from google.genai import errors

        left = seconds_left()
        attempts = pauses_before(left, self.max_attempts, self.backoff_s, self.max_backoff_s)
        config = self._types.GenerateContentConfig(
            system_instruction=system_instruction,
            temperature=0.0,
            max_output_tokens=self.max_output_tokens,
            response_mime_type="application/json",
            response_schema=schema,
            http_options=self._types.HttpOptions(timeout=self.timeout_ms, retry_options=self._retry_options(attempts)),
        )
        _DEADLINE.calls = 0
        try:
            response = self._client.models.generate_content(model=self.model, contents=prompt, config=config)
            return response, _DEADLINE.calls, ""
        except _NoTimeLeft as err:
            return None, _DEADLINE.calls, str(err)
        except errors.APIError as err:
            return None, _DEADLINE.calls, f"Gemini returned {err.code}: {str(err.message or err)[:200]}"
        except Exception as err:  # transport: connection refused, timeout (httpx2 errors), after the client's retries
            if type(err).__module__.split(".")[0] not in ("httpx", "httpx2", "httpcore"):
                raise
            return None, _DEADLINE.calls, f"Gemini unreachable: {type(err).__name__}: {err}"

    def generate(self, request: GenerationRequest) -> Draft:
        aliases = {chunk.alias: chunk.id for chunk in request.chunks}
        response, calls, error = self._call(build_prompt(request), response_schema(request.scope, list(aliases)))
        if response is None:
            return Draft(scope=[], answer="", steps=[], model=self.model, calls=calls, unavailable=error)
        usage = response.usage_metadata
        tokens_in = (usage.prompt_token_count or 0) if usage else 0
        tokens_out = (usage.candidates_token_count or 0) if usage else 0
        base = dict(model=self.model, calls=calls, tokens_in=tokens_in, tokens_out=tokens_out)
        try:
            data = json.loads(response.text or "")
            scope = data["scope"]
            scope = [scope] if isinstance(scope, str) else list(scope)
            steps = [
                # An alias outside the enum stays as written, so the citation check names it.
                DraftStep(text=str(step["text"]), cite=aliases.get(str(step["cite"]), str(step["cite"])))
                for step in data.get("steps") or []
            ]
            return Draft(scope=[str(s) for s in scope], answer=str(data.get("answer") or ""), steps=steps, **base)
        except (ValueError, KeyError, TypeError) as err:
            return Draft(scope=[], answer="", steps=[], error=f"the model's output is not a valid draft ({err})", **base)
