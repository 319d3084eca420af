"""The service's Prometheus metrics, through `prometheus_client`.

Each app owns a `CollectorRegistry` (never the library's global default registry): tests and the
several-servers set-up create many apps in one process, and each must count only its own requests.
Counters and histograms are the library's; values that live in other parts of the service (the
release holder, the admission queue, the question store) are read at scrape time by small
collectors, so /metrics never shows a copy that went stale.

Label values are bounded on purpose (route templates, outcome names, stage names), never request
data, so the number of series cannot grow with traffic (an id as a label value would make one
series per request).
"""

from __future__ import annotations

import re
from typing import Iterator

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, ProcessCollector
from prometheus_client import generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

CONTENT_TYPE = CONTENT_TYPE_LATEST

# Seconds. Covers a fast offline answer (ms) up to a slow model call near the request timeout.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# Distinct `valid_degraded_total` reasons one app keeps before it counts the rest as "other".
MAX_DEGRADED_LABELS = 32


def _gauge(name: str, help_text: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, help_text, value=value)


class ReleaseCollector(Collector):
    """The release being served, read from the release holder at scrape time.

    The reload counts stay typed as gauges (as before the library), so existing dashboards keep working.
    """

    def __init__(self, holder) -> None:
        self._holder = holder

    def collect(self) -> Iterator[GaugeMetricFamily]:
        status = self._holder.status()
        yield _gauge("valid_ready", "1 once a verified release is loaded.", float(status.ready))
        info = GaugeMetricFamily("valid_release_info", "The release being served (value 1).", labels=("release",))
        if status.release:
            info.add_metric([status.release], 1.0)
        yield info
        reloads = GaugeMetricFamily(
            "valid_release_reloads_total",
            "Attempts to open a newly activated release, by result (a failure keeps the old release).",
            labels=("result",),
        )
        reloads.add_metric(["failed"], float(self._holder.stats.failed))
        reloads.add_metric(["ok"], float(self._holder.stats.ok))
        yield reloads


class AdmissionCollector(Collector):
    """The admission queue and the rate limiter, read at scrape time."""

    def __init__(self, admission, rate) -> None:
        self._admission = admission
        self._rate = rate

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield _gauge("valid_inflight", "Answers being computed now.", float(self._admission.running))
        yield _gauge("valid_queued", "Answers waiting for a slot.", float(self._admission.queued))
        yield _gauge("valid_rate_limited_clients", "Clients the rate limiter remembers.", float(len(self._rate)))


class QuestionStoreCollector(Collector):
    """The question store's `health()` (valid.questionlog.spooled), read once per scrape so the four
    values describe the same moment."""

    def __init__(self, health) -> None:
        self._health = health

    def collect(self) -> Iterator[GaugeMetricFamily]:
        health = self._health()
        yield _gauge("valid_question_store_up",
                     "1 while the question store answers and nothing waits in the spool; 0 while degraded.",
                     float(health.state == "ok"))
        yield _gauge("valid_question_store_spooled",
                     "Writes (questions, turns, feedback) waiting in the local spool for the question store.",
                     float(health.spooled))
        yield _gauge("valid_question_store_failures_total",
                     "Question-store calls that failed or overran their bound (each moves writes to the spool).",
                     float(health.failures))
        yield _gauge("valid_question_store_flushed_total",
                     "Spooled writes written to the question store once it answered again.",
                     float(health.flushed))


class ServiceMetrics:
    """The service's metrics, in one place so the docs and tests can list them."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._degraded_labels: set[str] = set()
        self.requests = Counter(
            "valid_http_requests_total", "HTTP requests by route template, method and status.",
            ("route", "method", "status"), registry=self.registry)
        self.request_seconds = Histogram(
            "valid_http_request_duration_seconds", "HTTP request duration by route template.", ("route",),
            buckets=LATENCY_BUCKETS, registry=self.registry)
        self.answers = Counter(
            "valid_answers_total", "Answer objects returned, by outcome and whether the engine ran degraded.",
            ("outcome", "degraded"), registry=self.registry)
        self.degraded = Counter(
            "valid_degraded_total", "Answers produced on a declared fallback, by reason.", ("reason",),
            registry=self.registry)
        self.stage_seconds = Histogram(
            "valid_stage_duration_seconds", "Time per stage of an ask (queue, answer, and the engine's stages).",
            ("stage",), buckets=LATENCY_BUCKETS, registry=self.registry)
        self.rejected = Counter(
            "valid_rejected_total", "Requests refused by a limit, by reason.", ("reason",), registry=self.registry)
        # process_resident_memory_bytes (and the library's other process_* gauges: CPU, open files).
        ProcessCollector(registry=self.registry)

    def watch(self, holder, admission, rate) -> None:
        """Gauges read at scrape time from the service's parts: the release holder, the admission
        queue and the rate limiter."""
        self.registry.register(ReleaseCollector(holder))
        self.registry.register(AdmissionCollector(admission, rate))

    def watch_question_store(self, health) -> None:
        """Gauges read at scrape time from the question store's `health()`."""
        self.registry.register(QuestionStoreCollector(health))

    def record_answer(self, answered, queue_s: float, answer_s: float, total_s: float) -> None:
        """One answered ask: its outcome, its fallbacks, and the time of each stage."""
        degraded = "true" if answered.degraded else "false"
        self.answers.labels(outcome=str(answered.answer.get("outcome")), degraded=degraded).inc()
        for reason in answered.degraded_reasons:
            self.degraded.labels(reason=self.degraded_label(reason)).inc()
        self.stage_seconds.labels(stage="queue").observe(queue_s)
        self.stage_seconds.labels(stage="answer").observe(answer_s)
        for stage, ms in sorted(answered.stages_ms.items()):
            self.stage_seconds.labels(stage=stage).observe(ms / 1000.0)
        self.stage_seconds.labels(stage="total").observe(total_s)

    def degraded_label(self, reason: str) -> str:
        """A bounded label for an engine's degraded reason: at most MAX_DEGRADED_LABELS distinct
        labels per app ("other" after that)."""
        label = fallback_name(reason)
        if label not in self._degraded_labels:
            if len(self._degraded_labels) >= MAX_DEGRADED_LABELS:
                return "other"
            self._degraded_labels.add(label)
        return label

    def exposition(self) -> bytes:
        """The Prometheus text format of this app's registry (media type CONTENT_TYPE)."""
        return generate_latest(self.registry)


def fallback_name(reason: str) -> str:
    """The fallback a degraded reason names, without the error text.

    Reasons read like "tpu7x: vector channel failed (ProgrammingError: ...); BM25 only": the
    generation prefix and the parenthesised detail (error text) are dropped.
    """
    label = re.sub(r"\([^)]*\)", "", reason)
    label = re.sub(r"^[\w.-]+: ", "", label.strip())
    return re.sub(r"\s+([;,.])", r"\1", " ".join(label.split()))[:60] or "unspecified"
