"""What both answer flows (decide, compare_flow) share about one ask: its result and its clocks.

Below both flows, so neither imports the other for them: decide runs the comparison flow, and the
comparison flow returns the same AskResult.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from valid.answer.models import AnswerObject


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


def ms(since: float) -> float:
    """Milliseconds since a time.perf_counter() reading."""
    return (time.perf_counter() - since) * 1000.0
