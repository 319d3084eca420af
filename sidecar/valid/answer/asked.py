"""What the answer flows (decide, compare_flow, versions_flow) share about one ask: its result, its
clocks, and the narrow view of the engine the comparison and versions flows run with.

Below every flow, so none imports another for them: decide runs the comparison and versions flows,
gives them a FlowContext, and they return the same AskResult.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from valid.answer.models import AnswerObject, ScopeResolution
from valid.answer.tuning import Tuning


class QueryMemo:
    """Embed the question once per ask, whatever the number of generations searched."""

    def __init__(self, embedder):
        self._embedder = embedder
        self._cache: dict[str, list[float]] = {}

    def embed_query(self, text: str) -> list[float]:
        if text not in self._cache:
            self._cache[text] = self._embedder.embed_query(text)
        return self._cache[text]


@dataclass
class AskResult:
    """One ask: the answer object plus what services and benchmarks measure."""

    answer: AnswerObject
    degraded: bool
    degraded_reasons: list[str]
    stages_ms: dict[str, float]
    log_id: int | None = None


@dataclass(frozen=True)
class FlowContext:
    """What the comparison and versions flows need of the engine that runs them, and nothing else:
    the engine (valid.answer.decide.AnswerEngine) builds one per question, so these flows read none
    of its private members and do not import its module."""

    release: Any
    release_id: str
    profiles: Sequence[Any]
    labels: Mapping[str, str]  # each profile's display name
    owned: Any  # the owned-value lookup the checks use
    embedder: Any
    generator: Any
    words: Mapping[str, str]  # the doc set's reader-facing sentences (valid.wording)
    published: Any
    abbreviations: Any
    tuning: Tuning
    versions_catalog: Any  # the products and their versions in order (valid.answer.versions_catalog)
    names_of: Callable[[str], list[str]]  # the words that name one profile
    run_record: Callable[[int, int, int, float], Any]
    # The refusal for generations the docs do not cover, and its gap issue.
    unknown_refusal: Callable[[str, ScopeResolution], tuple[Any, str | None]]
    # The question log's row for this answer, and where it is written (None: no log kept).
    log_row: Callable[..., dict]
    log_question: Callable[[dict], Any] | None


def ms(since: float) -> float:
    """Milliseconds since a time.perf_counter() reading."""
    return (time.perf_counter() - since) * 1000.0
