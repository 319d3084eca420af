"""Prometheus text-format metrics, written by hand (the format is small; no extra dependency).

Label values are bounded on purpose (route templates, outcome names, stage names), never request
data, so the number of series cannot grow with traffic (an id as a label value would make one
series per request). Output is sorted, so two scrapes of the same state are byte-identical.
"""

from __future__ import annotations

import math
import os
import re
import threading
from typing import Callable, Iterable

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# Seconds. Covers a fast offline answer (ms) up to a slow model call near the request timeout.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(names: tuple[str, ...], values: tuple[str, ...], extra: tuple[tuple[str, str], ...] = ()) -> str:
    pairs = [*zip(names, values), *extra]
    if not pairs:
        return ""
    return "{" + ",".join(f'{n}="{_escape(v)}"' for n, v in pairs) + "}"


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


class _Metric:
    kind = ""

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = ()):
        self.name = name
        self.help = help_text
        self.labelnames = tuple(labelnames)
        self._lock = threading.Lock()

    def _key(self, labels: dict[str, str]) -> tuple[str, ...]:
        if set(labels) != set(self.labelnames):
            raise ValueError(f"{self.name}: labels {sorted(labels)} != {sorted(self.labelnames)}")
        return tuple(str(labels[n]) for n in self.labelnames)

    def header(self) -> list[str]:
        return [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]


class Counter(_Metric):
    kind = "counter"

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = ()):
        super().__init__(name, help_text, labelnames)
        self._values: dict[tuple[str, ...], float] = {}

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        key = self._key(labels)
        with self._lock:
            self._values[key] = self._values.get(key, 0.0) + amount

    def value(self, **labels: str) -> float:
        with self._lock:
            return self._values.get(self._key(labels), 0.0)

    def render(self) -> list[str]:
        with self._lock:
            items = sorted(self._values.items())
        return self.header() + [f"{self.name}{_labels(self.labelnames, k)} {_number(v)}" for k, v in items]


class Gauge(_Metric):
    """A gauge read at scrape time from a callback returning {label values: value}."""

    kind = "gauge"

    def __init__(self, name: str, help_text: str, read: Callable[[], dict[tuple[str, ...], float]], labelnames=()):
        super().__init__(name, help_text, labelnames)
        self._read = read

    def render(self) -> list[str]:
        items = sorted(self._read().items())
        return self.header() + [f"{self.name}{_labels(self.labelnames, k)} {_number(v)}" for k, v in items]


class Histogram(_Metric):
    kind = "histogram"

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = (), buckets=LATENCY_BUCKETS):
        super().__init__(name, help_text, labelnames)
        self.buckets = tuple(buckets)
        self._series: dict[tuple[str, ...], list[float]] = {}  # counts per bucket + [sum, count]

    def observe(self, value: float, **labels: str) -> None:
        key = self._key(labels)
        with self._lock:
            series = self._series.setdefault(key, [0.0] * (len(self.buckets) + 2))
            for i, bound in enumerate(self.buckets):
                if value <= bound:
                    series[i] += 1
            series[-2] += value
            series[-1] += 1

    def count(self, **labels: str) -> int:
        with self._lock:
            series = self._series.get(self._key(labels))
            return int(series[-1]) if series else 0

    def render(self) -> list[str]:
        with self._lock:
            items = sorted((k, list(v)) for k, v in self._series.items())
        lines = self.header()
        for key, series in items:
            for i, bound in enumerate(self.buckets):
                le = (("le", _number(bound)),)
                lines.append(f"{self.name}_bucket{_labels(self.labelnames, key, le)} {_number(series[i])}")
            lines.append(f"{self.name}_bucket{_labels(self.labelnames, key, (('le', '+Inf'),))} {_number(series[-1])}")
            lines.append(f"{self.name}_sum{_labels(self.labelnames, key)} {_number(series[-2])}")
            lines.append(f"{self.name}_count{_labels(self.labelnames, key)} {_number(series[-1])}")
        return lines


def resident_memory_bytes() -> float:
    """This process's resident set size (Linux /proc; 0 where unavailable)."""
    try:
        with open("/proc/self/statm") as f:
            return float(int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError, IndexError):
        return 0.0


class Registry:
    def __init__(self) -> None:
        self._metrics: list[_Metric] = []

    def add(self, metric: _Metric) -> _Metric:
        self._metrics.append(metric)
        return metric

    def render(self) -> str:
        lines: list[str] = []
        for metric in sorted(self._metrics, key=lambda m: m.name):
            lines.extend(metric.render())
        return "\n".join(lines) + "\n"


class ServiceMetrics:
    """The service's metrics, in one place so the docs and tests can list them."""

    def __init__(self) -> None:
        self.registry = Registry()
        add = self.registry.add
        self.requests = add(Counter(
            "valid_http_requests_total", "HTTP requests by route template, method and status.",
            ("route", "method", "status")))
        self.request_seconds = add(Histogram(
            "valid_http_request_duration_seconds", "HTTP request duration by route template.", ("route",)))
        self.answers = add(Counter(
            "valid_answers_total", "Answer objects returned, by outcome and whether the engine ran degraded.",
            ("outcome", "degraded")))
        self.degraded = add(Counter(
            "valid_degraded_total", "Answers produced on a declared fallback, by reason.", ("reason",)))
        self.stage_seconds = add(Histogram(
            "valid_stage_duration_seconds", "Time per stage of an ask (queue, answer, and the engine's stages).",
            ("stage",)))
        self.rejected = add(Counter(
            "valid_rejected_total", "Requests refused by a limit, by reason.", ("reason",)))

    def add_gauge(self, name: str, help_text: str, read, labelnames=()) -> None:
        self.registry.add(Gauge(name, help_text, read, labelnames))

    def watch(self, holder, admission, rate) -> None:
        """Gauges read at scrape time from the service's parts: the release holder, the admission
        queue and the rate limiter."""
        self.add_gauge("valid_ready", "1 once a verified release is loaded.", lambda: {(): float(holder.status().ready)})
        self.add_gauge(
            "valid_release_info",
            "The release being served (value 1).",
            lambda: {(s.release,): 1.0} if (s := holder.status()).release else {},
            ("release",),
        )
        self.add_gauge(
            "valid_release_reloads_total",
            "Attempts to open a newly activated release, by result (a failure keeps the old release).",
            lambda: {("ok",): float(holder.stats.ok), ("failed",): float(holder.stats.failed)},
            ("result",),
        )
        self.add_gauge("valid_inflight", "Answers being computed now.", lambda: {(): float(admission.running)})
        self.add_gauge("valid_queued", "Answers waiting for a slot.", lambda: {(): float(admission.queued)})
        self.add_gauge(
            "valid_rate_limited_clients", "Clients the rate limiter remembers.", lambda: {(): float(len(rate))}
        )
        self.add_gauge(
            "process_resident_memory_bytes", "Resident memory of this process.", lambda: {(): resident_memory_bytes()}
        )

    def watch_question_store(self, health) -> None:
        """Gauges read at scrape time from the question store's `health()` (valid.questionlog.spooled)."""
        self.add_gauge("valid_question_store_up",
                       "1 while the question store answers and nothing waits in the spool; 0 while degraded.",
                       lambda: {(): float(health().state == "ok")})
        self.add_gauge("valid_question_store_spooled",
                       "Writes (questions, turns, feedback) waiting in the local spool for the question store.",
                       lambda: {(): float(health().spooled)})
        self.add_gauge("valid_question_store_failures_total",
                       "Question-store calls that failed or overran their bound (each moves writes to the spool).",
                       lambda: {(): float(health().failures)})
        self.add_gauge("valid_question_store_flushed_total",
                       "Spooled writes written to the question store once it answered again.",
                       lambda: {(): float(health().flushed)})

    def record_answer(self, answered, queue_s: float, answer_s: float, total_s: float) -> None:
        """One answered ask: its outcome, its fallbacks, and the time of each stage."""
        degraded = "true" if answered.degraded else "false"
        self.answers.inc(outcome=str(answered.answer.get("outcome")), degraded=degraded)
        for reason in answered.degraded_reasons:
            self.degraded.inc(reason=degraded_label(reason))
        self.stage_seconds.observe(queue_s, stage="queue")
        self.stage_seconds.observe(answer_s, stage="answer")
        for stage, ms in sorted(answered.stages_ms.items()):
            self.stage_seconds.observe(ms / 1000.0, stage=stage)
        self.stage_seconds.observe(total_s, stage="total")

    def render(self) -> str:
        return self.registry.render()


_DEGRADED_LABELS: set[str] = set()
_MAX_DEGRADED_LABELS = 32


def degraded_label(reason: str) -> str:
    """A bounded metric label for an engine's degraded reason.

    Reasons read like "tpu7x: vector channel failed (ProgrammingError: ...); BM25 only": the
    generation prefix and the parenthesised detail (error text) are dropped, so the label names the
    fallback, and at most 32 distinct labels ever exist ("other" after that).
    """
    label = re.sub(r"\([^)]*\)", "", reason)
    label = re.sub(r"^[\w.-]+: ", "", label.strip())
    label = re.sub(r"\s+([;,.])", r"\1", " ".join(label.split()))[:60] or "unspecified"
    if label not in _DEGRADED_LABELS:
        if len(_DEGRADED_LABELS) >= _MAX_DEGRADED_LABELS:
            return "other"
        _DEGRADED_LABELS.add(label)
    return label
