"""The unfiltered baseline: standard RAG over the same chunks, embedder and generator as VALID.

It is VALID with the scope taken away, and nothing else changed: the export is rewritten so every
chunk belongs to one pseudo-profile `all`, indexed by the same code with the same embedder (its
vectors come from the same embedding cache, so nothing is embedded twice), retrieved by the same
hybrid search and fusion, and written up by the same generator. It never asks, never refuses, and
its drafts are not checked. It is a comparison arm for the trap set, never a way to answer readers:
nothing in `valid.answer` can reach it.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from valid.answer.generate import Generator
from valid.answer.prompt import GenerationRequest
from valid.answer.retrieve import retrieve_in_scope
from valid.answer.tuning import BUILT_IN, Tuning
from valid.contracts import ExportHeader, ProfileInfo
from valid.index import Store, build_release, open_release

ALL = "all"


def unscoped_export(header: ExportHeader, chunks, out: Path) -> Path:
    """The same chunks with every scope replaced by {"all": true}."""
    profile = ProfileInfo(name=ALL, labels=[ALL], ditaval_digest="0" * 64)
    counts = header.counts.model_copy(update={"per_profile": {ALL: len(chunks)}})
    new_header = ExportHeader.model_validate(
        {**header.model_dump(), "profiles": [profile.model_dump()], "counts": counts.model_dump(), "attribute": None}
    )
    lines = [new_header.model_dump_json()]
    for chunk in chunks:
        lines.append(chunk.model_copy(update={"scope": {ALL: True}, "scope_origin": "shared"}).model_dump_json())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


class Baseline:
    """Answers every question from the top unfiltered chunks."""

    def __init__(self, release, embedder, generator: Generator, tuning: Tuning = BUILT_IN):
        self.release = release
        self.embedder = embedder
        self.generator = generator
        self.tuning = tuning  # the VALID arm's engine's, so both arms retrieve alike

    @classmethod
    def build(
        cls,
        header: ExportHeader,
        chunks,
        state: Path,
        embedder,
        generator: Generator,
        main_cache: Path | None = None,
        tuning: Tuning = BUILT_IN,
    ):
        store = Store(state)
        store.root.mkdir(parents=True, exist_ok=True)
        if main_cache is not None and main_cache.is_file() and not store.cache_path.exists():
            shutil.copyfile(main_cache, store.cache_path)  # same vectors, nothing embedded again
        unscoped = unscoped_export(header, chunks, state / "baseline-export.jsonl")
        result = build_release(unscoped, embedder, store, activate=True)
        return cls(open_release(store, result.release_id), embedder, generator, tuning)

    def ask(self, question: str) -> dict:
        started = time.perf_counter()
        retrieval = retrieve_in_scope(self.release, self.embedder, question, ALL, tuning=self.tuning)
        draft = self.generator.generate(
            GenerationRequest(question=question, scope=[ALL], labels=[ALL], chunks=retrieval.chunks)
        )
        answers = []
        if draft.answer or draft.steps:
            answers.append(
                {
                    "generation": None,
                    "answer": draft.answer,
                    "steps": [{"text": step.text, "cite": step.cite} for step in draft.steps],
                }
            )
        return {
            "outcome": "answer",
            "scope": [],
            "matched": [],
            "answers": answers,
            "choices": [],
            "refusal": None,
            "not_used": "",
            "checks": {},
            "run": {
                "generator": type(self.generator).__name__,
                "model": draft.model,
                "calls": draft.calls,
                "tokens_in": draft.tokens_in,
                "tokens_out": draft.tokens_out,
                "cost_usd": 0.0,
                "latency_ms": round((time.perf_counter() - started) * 1000, 3),
            },
            "release": self.release.id,
            "retrieved": [chunk.id for chunk in retrieval.chunks],
        }

    def close(self) -> None:
        self.release.close()


def dump(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True)
