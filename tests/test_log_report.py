"""`valid log report`: the question log as one self-contained HTML dashboard (inline SVG, no script,
nothing fetched), every reader's string escaped, the numbers behind it right."""

from __future__ import annotations

import re

from click.testing import CliRunner
from test_log_cli import ROWS, log_path  # noqa: F401 (the fixture)

from valid.questionlog.dashboard import percentile, render, summarise
from valid.questionlog.sqlite import QuestionLog
from valid.cli import main


def test_the_summary_counts_days_outcomes_generations_feedback_and_cost(log_path):  # noqa: F811
    with QuestionLog(log_path) as log:
        s = summarise(log.entries())
    assert s["per_day"] == {"2026-11-28": {"answer": 1}, "2026-11-29": {"refuse": 1, "ask": 1},
                            "2026-11-30": {"answer": 1, "refuse": 1}}
    assert s["per_generation"] == {"v6e": 2, "tpu7x": 1, "(no generation)": 1, "v5p": 1}
    assert s["cost_per_day"]["2026-11-30"] == 0.004
    assert s["ratings"] == {"up": 1, "down": 1} and s["reasons"] == {"wrong_version": 1, "unclear": 1}
    assert [r["question"] for r in s["top_refused"]] == ["question 2", "question 5"]
    assert s["top_refused"][0]["gap_issues"] == ["gap2"]
    assert s["latency_ms"]["p50"] == 80.0 and s["latency_ms"]["p99"] == 900.0


def test_percentiles_are_nearest_rank():
    values = list(range(1, 101))
    assert [percentile(values, p) for p in (50, 90, 99, 100)] == [50, 90, 99, 100]
    assert percentile([7.0], 99) == 7.0


def test_the_report_is_self_contained_and_escapes_what_readers_typed(log_path, tmp_path):  # noqa: F811
    with QuestionLog(log_path) as log:
        hostile = dict(ROWS[1], question='<script>alert("x")</script> & <img src=x>', asked_at="2026-11-30T11:00:00.000+00:00")
        log.log_question(hostile)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["log", "--question-log", str(log_path), "report", "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x&gt;" in page
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", page), "nothing is fetched"
    assert "default-src 'none'" in page
    for section in ("per-day", "refused", "feedback", "latency", "cost", "generations"):
        assert f'id="{section}"' in page
    per_day = page.split('aria-label="Questions per day by outcome"')[1].split("</svg>")[0]
    assert per_day.count("<rect") == 5, "one segment per (day, outcome) with questions"


def test_the_report_takes_the_same_filters_as_the_list(log_path, tmp_path):  # noqa: F811
    out = tmp_path / "refused.html"
    CliRunner().invoke(main, ["log", "--question-log", str(log_path), "--refused", "report", "--out", str(out)])
    page = out.read_text(encoding="utf-8")
    assert "question 2" in page and "question 1<" not in page and "filtered" in page


def test_an_empty_log_still_gives_a_page():
    page = render([])
    assert "no data" in page and "<svg" not in page
