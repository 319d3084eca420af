"""The service's Prometheus metrics: one registry per app, the dashboards' names and buckets, bounded labels."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from valid.serve.metrics import LATENCY_BUCKETS, MAX_DEGRADED_LABELS, ServiceMetrics


def samples(metrics: ServiceMetrics) -> dict[tuple[str, frozenset], float]:
    """Every sample of one exposition, parsed by the library's own parser."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(metrics.exposition().decode())
        for s in family.samples
    }


def test_a_label_value_with_quotes_backslashes_and_newlines_reads_back_unchanged():
    m = ServiceMetrics()
    m.rejected.labels(reason='a"\\\n').inc(2)
    m.rejected.labels(reason="b").inc()
    parsed = samples(m)
    assert parsed[("valid_rejected_total", frozenset({("reason", 'a"\\\n')}))] == 2
    assert parsed[("valid_rejected_total", frozenset({("reason", "b")}))] == 1


def test_latency_histograms_keep_the_dashboards_buckets_cumulative_with_sum_and_count():
    m = ServiceMetrics()
    for value in (0.003, 0.2, 40.0):
        m.stage_seconds.labels(stage="answer").observe(value)
    parsed = samples(m)

    def bucket(le: str) -> float:
        return parsed[("valid_stage_duration_seconds_bucket", frozenset({("stage", "answer"), ("le", le)}))]

    bounds = sorted(float(le) for (name, labels), _ in parsed.items()
                    if name == "valid_stage_duration_seconds_bucket" for key, le in labels if key == "le")
    assert bounds == [*LATENCY_BUCKETS, float("inf")]
    assert bucket("0.005") == 1 and bucket("0.25") == 2 and bucket("30.0") == 2 and bucket("+Inf") == 3
    assert parsed[("valid_stage_duration_seconds_count", frozenset({("stage", "answer")}))] == 3
    assert parsed[("valid_stage_duration_seconds_sum", frozenset({("stage", "answer")}))] == pytest.approx(40.203)


def test_two_apps_in_one_process_count_only_their_own_requests():
    first, second = ServiceMetrics(), ServiceMetrics()
    first.requests.labels(route="/v1/ask", method="POST", status="200").inc()
    key = ("valid_http_requests_total", frozenset({("route", "/v1/ask"), ("method", "POST"), ("status", "200")}))
    assert samples(first)[key] == 1
    assert key not in samples(second)


def test_wrong_label_names_are_a_bug_not_a_new_series():
    with pytest.raises(ValueError):
        ServiceMetrics().requests.labels(path="/v1/ask?q=anything")


def test_degraded_reasons_lose_their_error_text_and_stay_bounded_per_app():
    m = ServiceMetrics()
    assert m.degraded_label("tpu7x: vector channel failed (ProgrammingError: no such table); BM25 only") == (
        "vector channel failed; BM25 only"
    )
    bounded = ServiceMetrics()
    labels = {bounded.degraded_label(f"fallback number {i}") for i in range(MAX_DEGRADED_LABELS + 10)}
    assert "other" in labels and len(labels) == MAX_DEGRADED_LABELS + 1
    assert ServiceMetrics().degraded_label("fallback number 99") == "fallback number 99", "another app's own bound"
