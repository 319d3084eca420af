"""The service's Prometheus text output: well-formed, deterministic, bounded labels."""

from __future__ import annotations

import re

from valid.serve.metrics import Counter, Histogram, Registry, ServiceMetrics

# One sample line of the text format: name, optional {labels}, value.
SAMPLE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})? [-+0-9.eInf]+$')


def parse(text: str) -> dict[str, float]:
    samples = {}
    for line in text.splitlines():
        if line.startswith("#"):
            assert re.match(r"^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$", line), line
            continue
        assert SAMPLE.match(line), f"not a Prometheus sample: {line!r}"
        name, value = line.rsplit(" ", 1)
        samples[name] = float(value)
    return samples


def test_counter_renders_labels_escaped_and_sorted():
    registry = Registry()
    c = registry.add(Counter("x_total", "Things.", ("kind",)))
    c.inc(kind="b")
    c.inc(2, kind='a"\\\n')
    text = registry.render()
    assert text.splitlines()[2:] == ['x_total{kind="a\\"\\\\\\n"} 2', 'x_total{kind="b"} 1']
    assert parse(text)['x_total{kind="b"}'] == 1


def test_histogram_buckets_are_cumulative_with_sum_and_count():
    registry = Registry()
    h = registry.add(Histogram("t_seconds", "Time.", ("stage",), buckets=(0.1, 1.0)))
    for value in (0.05, 0.5, 5.0):
        h.observe(value, stage="answer")
    samples = parse(registry.render())
    assert samples['t_seconds_bucket{stage="answer",le="0.1"}'] == 1
    assert samples['t_seconds_bucket{stage="answer",le="1"}'] == 2
    assert samples['t_seconds_bucket{stage="answer",le="+Inf"}'] == 3
    assert samples['t_seconds_count{stage="answer"}'] == 3
    assert samples['t_seconds_sum{stage="answer"}'] == 5.55


def test_same_state_renders_byte_identical():
    m = ServiceMetrics()
    m.answers.inc(outcome="answer", degraded="false")
    m.answers.inc(outcome="refuse", degraded="true")
    m.stage_seconds.observe(0.2, stage="queue")
    assert m.render() == m.render()
    samples = parse(m.render())
    assert samples['valid_answers_total{outcome="refuse",degraded="true"}'] == 1


def test_wrong_label_names_are_a_bug_not_a_new_series():
    c = Counter("y_total", "Y.", ("route",))
    try:
        c.inc(path="/v1/ask?q=anything")
    except ValueError:
        return
    raise AssertionError("a label the metric does not declare was accepted")
