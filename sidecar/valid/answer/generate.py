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
from valid.answer.text import terms, with_typos_resolved, word_weights

DEFAULT_GEMINI_MODEL = "gemini-3.8-flash"


class Generator(Protocol):
    name: str  # "offline" | "gemini"
    model: str | None
    deterministic: bool  # a revision with the same input would give the same draft

    def generate(self, request: GenerationRequest) -> Draft: ...


# -- offline extractive -------------------------------------------------------------------------

_STEP_START = re.compile(r"^(\d+)\.\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"(])")
PARAGRAPH_UNIT_MAX = 320  # a paragraph up to this many characters is one unit; longer ones are split
TITLE_WEIGHT = 0.8  # a word of the chunk title counts for this much of a word of the unit itself


@dataclass(frozen=True)
class Unit:
    chunk_rank: int  # 0-based position of the chunk in fused order
    position: int  # order inside the chunk
    kind: str  # sentence | item | step | row
    text: str  # as shown to the reader; its values are verbatim from the chunk
    chunk_id: str
    context: str = ""  # words that describe the unit without being shown (a table row's header)


def split_units(chunk: EvidenceChunk, chunk_rank: int) -> list[Unit]:
    """A chunk's text → reader-sized units: task steps (a numbered line and every line up to the
    next step or a blank line: info, choices, code), table rows, list items, short paragraphs (long
    ones split into sentences) and code blocks. Every value in a unit is verbatim from the chunk."""
    units: list[Unit] = []
    step: list[str] = []
    paragraph: list[str] = []

    def add(kind: str, text: str, context: str = "") -> None:
        if text.strip():
            units.append(Unit(chunk_rank, len(units), kind, text.strip("\n").rstrip(), chunk.id, context))

    def flush_step() -> None:
        if step:
            add("step", _STEP_START.sub("", "\n".join(step).strip(), count=1))
            step.clear()

    def flush_paragraph() -> None:
        if paragraph:
            text = "\n".join(paragraph)
            if len(text) <= PARAGRAPH_UNIT_MAX or "\n" in text.strip():
                add("paragraph", text)  # short prose, or verbatim code lines: keep whole
            else:
                for sentence in _SENTENCE_END.split(text.strip()):
                    add("sentence", sentence)
            paragraph.clear()

    previous_row = False
    header = ""
    for line in chunk.text.splitlines():
        if _STEP_START.match(line):
            flush_paragraph()
            flush_step()
            step.append(line)
            continue
        if step and line.strip():
            step.append(line)  # the step's info, example, choices or code (verbatim, maybe unindented)
            continue
        flush_step()
        stripped = line.strip()
        if not stripped:
            flush_paragraph()
            previous_row = False
            continue
        if " | " in stripped:
            flush_paragraph()
            if previous_row:
                add("row", stripped, header)
            else:
                header = stripped  # the header row of a table
            previous_row = True
            continue
        previous_row = False
        if stripped.startswith(("- ", "* ")):
            flush_paragraph()
            add("item", stripped[2:])
        else:
            paragraph.append(line)
    flush_paragraph()
    flush_step()
    return units


class OfflineExtractive:
    """Deterministic extractive answers: the best in-scope units, verbatim, each citing its chunk.

    Units are scored by the question's terms they (and their chunk's title, at half weight) contain,
    weighted by rarity among the units, with a mild preference for short units and for content
    profiled for exactly this answer's generations over shared content.
    """

    name = "offline"
    model = None
    deterministic = True

    def __init__(self, max_steps: int = 3, keep_ratio: float = 0.6, specific_boost: float = 1.5):
        self.max_steps = max_steps
        self.keep_ratio = keep_ratio
        self.specific_boost = specific_boost

    def rank_units(self, request: GenerationRequest) -> list[tuple[float, Unit]]:
        chunks = {chunk.id: chunk for chunk in request.chunks}
        units = [u for rank, chunk in enumerate(request.chunks) for u in split_units(chunk, rank)]
        if not units:
            return []
        # The generation's own names decide nothing here: every chunk is already in scope.
        # Nor do the words that named them in the question (a machine type, a code name).
        ignore: set[str] = set()
        for name in [*request.scope, *request.labels, *request.matched]:
            ignore |= terms(name)
        unit_terms = [terms(u.text + "\n" + u.context) for u in units]
        title_terms = {cid: terms(chunk.title) for cid, chunk in chunks.items()}
        vocabulary = set().union(*unit_terms, *title_terms.values())
        wanted = with_typos_resolved(terms(request.question) - ignore, vocabulary) - ignore
        df: dict[str, int] = {}
        for ts, unit in zip(unit_terms, units):
            for t in (ts | title_terms[unit.chunk_id]) & wanted:
                df[t] = df.get(t, 0) + 1
        n = len(units)
        scope = set(request.scope)
        scored = []
        for unit, ts in zip(units, unit_terms):
            own = ts & wanted
            from_title = (title_terms[unit.chunk_id] & wanted) - own
            if not own and not from_title:
                continue
            strength = word_weights(unit.text + "\n" + unit.context)
            weight = sum(strength.get(t, 1.0) * math.log(1 + n / df[t]) for t in own)
            weight += TITLE_WEIGHT * sum(math.log(1 + n / df[t]) for t in from_title)
            if set(chunks[unit.chunk_id].scope) == scope:
                weight *= self.specific_boost
            score = weight / math.sqrt(1 + len(ts) / 12) + 0.05 / (1 + unit.chunk_rank)
            scored.append((score, unit))
        scored.sort(key=lambda su: (-su[0], su[1].chunk_rank, su[1].position))
        return scored

    def _best_sentence(self, text: str, request: GenerationRequest) -> str:
        """The answer line: the sentence of the best unit that holds most of the question's terms."""
        first_line = text.strip().splitlines()[0]
        sentences = _SENTENCE_END.split(first_line)
        ignore: set[str] = set()
        for name in [*request.scope, *request.labels, *request.matched]:
            ignore |= terms(name)
        wanted = terms(request.question) - ignore
        wanted = with_typos_resolved(wanted, terms(text))
        return max(sentences, key=lambda sentence: len(terms(sentence) & wanted))

    def generate(self, request: GenerationRequest) -> Draft:
        rejected: set[str] = set()
        rejected_answers: set[str] = set()
        if request.previous is not None:
            failed = {f.step for f in request.failures}
            rejected = {s.text for i, s in enumerate(request.previous.steps) if i in failed}
            if -1 in failed:
                rejected_answers.add(request.previous.answer)
        scored = [
            (s, u)
            for s, u in self.rank_units(request)
            if u.text not in rejected and not any(answer in u.text for answer in rejected_answers if answer)
        ]
        if not scored:
            return Draft(scope=list(request.scope), answer="", steps=[], model=None, calls=1)
        best = scored[0][0]
        chosen = [u for s, u in scored if s >= self.keep_ratio * best][: self.max_steps]
        answer = self._best_sentence(chosen[0].text, request)
        # Chunks in the order of their best unit; inside a chunk, document order (procedures).
        first = {}
        for i, unit in enumerate(chosen):
            first.setdefault(unit.chunk_id, i)
        chosen.sort(key=lambda u: (first[u.chunk_id], u.position))
        return Draft(
            scope=list(request.scope),
            answer=answer,
            steps=[DraftStep(text=u.text, cite=u.chunk_id) for u in chosen],
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
