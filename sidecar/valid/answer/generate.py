"""generate_answer: the Generator protocol and its two implementations.

- OfflineExtractive (default): no model. Splits the in-scope chunks into units (sentences, list
  items, task steps, table rows), scores them against the question, and composes the answer from
  the best units, verbatim, each step citing its chunk. Deterministic: same chunks, same answer.
- GeminiGenerator: google-genai structured output (see prompt.py for the schema and fencing),
  temperature 0, bounded retries with exponential backoff on 429 and 5xx, tokens from
  usageMetadata. The API key comes from GEMINI_API_KEY or GOOGLE_API_KEY.

A generator sees only the request: the question, this answer's scope and the in-scope chunks
(plus, on a revision, its previous draft and the check failures). It never searches.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from dataclasses import dataclass
from typing import Protocol

from valid.errors import ConfigError

from valid.answer.models import Draft, DraftStep, EvidenceChunk
from valid.answer.prompt import SYSTEM_INSTRUCTION, GenerationRequest, build_prompt, response_schema

DEFAULT_GEMINI_MODEL = "gemini-3.8-flash"


class Generator(Protocol):
    name: str  # "offline" | "gemini"
    model: str | None
    deterministic: bool  # a revision with the same input would give the same draft

    def generate(self, request: GenerationRequest) -> Draft: ...


# -- offline extractive -------------------------------------------------------------------------

_STOPWORDS = frozenset(
    """a an and are as at be by can do does for from has have how i i'm if in into is it its my of on one or
    per so that the their them there these this to use using was we what when where which who why will with
    you your im am me should need want run running""".split()
)
_TOKEN = re.compile(r"[a-z0-9]+(?:[-_.=][a-z0-9]+)*")
_STEP_START = re.compile(r"^(\d+)\.\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"(])")


def _stem(word: str) -> str:
    for suffix, repl, min_len in (("ies", "y", 5), ("sses", "ss", 5), ("es", "", 5), ("s", "", 4), ("ing", "", 6), ("ed", "", 5)):
        if word.endswith(suffix) and len(word) >= min_len and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + repl
    return word


def terms(text: str) -> set[str]:
    """Index terms: technical tokens whole (v2-alpha-tpuv6e) and split into parts, stemmed words."""
    out: set[str] = set()
    for token in _TOKEN.findall(text.lower().replace("’", "'")):
        parts = re.split(r"[-_.=]", token)
        if len(parts) > 1:
            out.add(token)
        for part in parts:
            if part and part not in _STOPWORDS:
                out.add(_stem(part))
    return out


@dataclass(frozen=True)
class Unit:
    chunk_rank: int  # 0-based position of the chunk in fused order
    position: int  # order inside the chunk
    kind: str  # sentence | item | step | row
    text: str  # as shown to the reader; its values are verbatim from the chunk
    chunk_id: str


def _blocks(text: str) -> list[list[str]]:
    blocks, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def split_units(chunk: EvidenceChunk, chunk_rank: int) -> list[Unit]:
    """A chunk's text → reader-sized units, each verbatim (table rows: 'header: cell; ...')."""
    units: list[Unit] = []

    def add(kind: str, text: str) -> None:
        text = text.strip()
        if text:
            units.append(Unit(chunk_rank, len(units), kind, text, chunk.id))

    for block in _blocks(chunk.text):
        if any(_STEP_START.match(line) for line in block):
            # A numbered step with its indented info, code and sub-steps.
            current: list[str] = []
            for line in block:
                if _STEP_START.match(line) and current:
                    add("step", _STEP_START.sub("", "\n".join(current), count=1))
                    current = []
                current.append(line)
            add("step", _STEP_START.sub("", "\n".join(current), count=1))
        elif len(block) > 1 and all(" | " in line for line in block):
            header = [cell.strip() for cell in block[0].split(" | ")]
            for line in block[1:]:
                cells = [cell.strip() for cell in line.split(" | ")]
                if len(cells) == len(header):
                    add("row", "; ".join(f"{h}: {c}" for h, c in zip(header, cells)))
                else:
                    add("row", line)
        else:
            for line in block:
                stripped = line.strip()
                if stripped.startswith(("- ", "* ")):
                    add("item", stripped[2:])
                elif line.startswith((" ", "\t")) and units:
                    # Verbatim code or continuation: keep it with what precedes it.
                    last = units.pop()
                    units.append(Unit(last.chunk_rank, last.position, last.kind, last.text + "\n" + line, last.chunk_id))
                else:
                    for sentence in _SENTENCE_END.split(stripped):
                        add("sentence", sentence)
    return units


class OfflineExtractive:
    """Deterministic extractive answers: the best in-scope units, verbatim, each citing its chunk."""

    name = "offline"
    model = None
    deterministic = True

    def __init__(self, max_steps: int = 3, keep_ratio: float = 0.5):
        self.max_steps = max_steps
        self.keep_ratio = keep_ratio

    def rank_units(self, request: GenerationRequest) -> list[tuple[float, Unit]]:
        units = [u for rank, chunk in enumerate(request.chunks) for u in split_units(chunk, rank)]
        if not units:
            return []
        # The generation's own names decide nothing here: every chunk is already in scope.
        ignore = set()
        for name in [*request.scope, *request.labels]:
            ignore |= terms(name)
        wanted = terms(request.question) - ignore
        unit_terms = [terms(u.text) for u in units]
        df: dict[str, int] = {}
        for ts in unit_terms:
            for t in ts & wanted:
                df[t] = df.get(t, 0) + 1
        n = len(units)
        scored = []
        for unit, ts in zip(units, unit_terms):
            hits = ts & wanted
            if not hits:
                continue
            weight = sum(math.log(1 + n / df[t]) for t in hits)
            # Prefer short, dense units and higher-ranked chunks, mildly.
            score = weight / math.sqrt(1 + len(ts) / 12) + 0.05 / (1 + unit.chunk_rank)
            scored.append((score, unit))
        scored.sort(key=lambda su: (-su[0], su[1].chunk_rank, su[1].position))
        return scored

    def generate(self, request: GenerationRequest) -> Draft:
        rejected = set()
        if request.previous is not None:
            failed = {f.step for f in request.failures}
            rejected = {s.text for i, s in enumerate(request.previous.steps) if i in failed}
            if -1 in failed:
                rejected.add(request.previous.answer)
        scored = [(s, u) for s, u in self.rank_units(request) if u.text not in rejected]
        if not scored:
            return Draft(scope=list(request.scope), answer="", steps=[], model=None, calls=1)
        best = scored[0][0]
        chosen = [u for s, u in scored if s >= self.keep_ratio * best][: self.max_steps + 1]
        top = chosen[0]
        rest = chosen[1:] or [top]
        rest.sort(key=lambda u: (u.chunk_rank, u.position))
        return Draft(
            scope=list(request.scope),
            answer=top.text if top not in rest else top.text.splitlines()[0],
            steps=[DraftStep(text=u.text, cite=u.chunk_id) for u in rest[: self.max_steps]],
            model=None,
            calls=1,
        )


# -- Gemini -------------------------------------------------------------------------------------


def _api_key() -> str:
    key = os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
    if not key:
        raise ConfigError(
            "no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), or use --generator offline"
        )
    return key


class GeminiGenerator:
    """Gemini through the real google-genai client. `base_url` points it elsewhere (tests: a local fake)."""

    name = "gemini"
    deterministic = False
    RETRY_STATUS = (429, 500, 502, 503, 504)

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
        base_url = base_url or os.environ.get("VALID_GEMINI_BASE_URL")
        options = types.HttpOptions(api_version="v1beta", timeout=timeout_ms, base_url=base_url)
        self._types = types
        self._client = genai.Client(api_key=api_key or _api_key(), http_options=options)

    def _call(self, prompt: str, schema: dict):
        from google.genai import errors

        config = self._types.GenerateContentConfig(
            system_instruction=SYSTEM_INSTRUCTION,
            temperature=0.0,
            max_output_tokens=self.max_output_tokens,
            response_mime_type="application/json",
            response_schema=schema,
        )
        calls = 0
        last = ""
        for attempt in range(self.max_attempts):
            if attempt:
                time.sleep(min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1)))
            calls += 1
            try:
                return self._client.models.generate_content(model=self.model, contents=prompt, config=config), calls, ""
            except errors.APIError as err:
                last = f"Gemini returned {err.code}: {str(err.message or err)[:200]}"
                if err.code not in self.RETRY_STATUS:
                    return None, calls, last
            except Exception as err:  # transport: connection refused, timeout (httpx2 errors)
                if type(err).__module__.split(".")[0] not in ("httpx", "httpx2", "httpcore"):
                    raise
                last = f"Gemini unreachable: {type(err).__name__}: {err}"
        return None, calls, last

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
