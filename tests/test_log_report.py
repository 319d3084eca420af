"""`valid log report`: the question log as one self-contained HTML dashboard (inline SVG, no script,
nothing fetched), every reader's string escaped, the numbers behind it right."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fixtures.browser import headless_chromium
from click.testing import CliRunner
from test_log_cli import ROWS, log_path, question  # noqa: F401 (the fixture)

from valid.questionlog.dashboard import bar_list, percentile, render, summarise
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


def logged(path: Path, rows: list[dict], ratings: dict[int, tuple[str, list[str], str | None]] = {}) -> list[dict]:
    """The entries of a new log holding `rows`, row n (from 1) rated as `ratings[n]`."""
    with QuestionLog(path) as log:
        for n, row in enumerate(rows, start=1):
            qid = log.log_question(row)
            log.start_conversation(f"c{n}")
            log.add_turn({"answer_id": f"{n:032x}", "conversation_id": f"c{n}", "question_id": qid,
                          "question": row["question"], "asked_as": row["question"], "generations": row["scope"],
                          "outcome": row["outcome"], "scope": row["scope"]})
        for n, (rating, reasons, comment) in ratings.items():
            log.record_feedback(f"{n:032x}", rating, reasons, comment)
        return log.entries()


def offline(row: dict) -> dict:
    return {**row, "generator": "offline", "model": "", "calls": 0, "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0}


def section(page: str, anchor: str) -> str:
    """The page from the heading `anchor` to the next heading."""
    return page.split(f'id="{anchor}"')[1].split("<h2")[0]


def test_a_log_answered_offline_says_offline_no_model_cost_instead_of_an_empty_cost_chart(tmp_path):
    page = render(logged(tmp_path / "q.sqlite", [offline(r) for r in ROWS]))
    cost = section(page, "cost")
    assert "offline: no model cost" in cost and "<svg" not in cost
    assert "offline: no model cost" in page.split('class="tiles"')[1].split("</div></div>")[0]


def test_a_log_with_model_cost_still_charts_it_per_day(tmp_path):
    page = render(logged(tmp_path / "q.sqlite", [offline(ROWS[0]), *ROWS[1:]]))
    cost = section(page, "cost")
    assert "offline" not in cost and cost.count("<rect") == 2, "one column per day that cost something"
    assert ">$0.005</text>" in cost, "the axis reads as dollars"


def test_per_generation_shares_that_add_up_past_100_percent_say_why(tmp_path):
    rows = [{**r, "scope": scope} for r, scope in zip(ROWS, [["v5p", "v6e"], ["v6e"], [], ["v5p", "v6e", "tpu7x"], ["v5p"]])]
    shares = section(render(logged(tmp_path / "q.sqlite", rows)), "generations")
    shown = re.findall(r'class="label">\d+ \((\d+)%\)</text>', shares)
    assert [int(p) for p in shown] == [60, 60, 20, 20]  # v6e, v5p, tpu7x, (no generation)
    assert "2 of 5 questions were asked for more than one generation" in shares
    assert "add up to 160%" in shares, "the note gives the total the shares add up to (8 counts, 5 questions)"


def test_shares_that_add_up_to_100_percent_need_no_note(log_path):  # noqa: F811
    with QuestionLog(log_path) as log:
        shares = section(render(log.entries()), "generations")
    assert "more than one generation" not in shares


def test_down_voted_answers_are_listed_with_their_question_and_reason(tmp_path):
    rows = [{**r, "question": f"how do I {w}?"} for r, w in zip(ROWS, ["boot", "<b>mount</b>", "scale", "pay", "stop"])]
    ratings = {1: ("up", [], "great"), 2: ("down", ["wrong_version", "unclear"], "said <v5p>"), 4: ("down", [], None)}
    page = render(logged(tmp_path / "q.sqlite", rows, ratings))
    down = section(page, "down-voted")
    listed = re.findall(r"<tr><td[^>]*>(.*?)</td>", down.split("<tbody>")[1])
    assert [re.sub(r"<[^>]+>", "", cell) for cell in listed] == ["2026-11-30 10:00", "2026-11-29 10:00"], "newest first"
    assert "how do I &lt;b&gt;mount&lt;/b&gt;?" in down and "how do I pay?" in down and "boot" not in down
    assert "wrong_version, unclear" in down and "said &lt;v5p&gt;" in down
    assert "(no reason given)" in down
    assert "<b>mount" not in page


def test_no_down_vote_says_so():
    assert "No answer was voted down." in section(render([]), "down-voted")


LONG = "a generation whose name runs on for much longer than the label column is wide"


def test_a_label_too_long_for_its_column_keeps_its_start_and_end_and_shows_whole_in_the_tooltip():
    chart = bar_list("Questions per generation", [(f"{LONG} (Windows)", 2.0, "2"), (f"{LONG} (macOS)", 1.0, "1")])
    shown = re.findall(r'text-anchor="end">([^<]*)<title>([^<]*)</title>', chart)
    assert [whole for _, whole in shown] == [f"{LONG} (Windows)", f"{LONG} (macOS)"]
    assert all(label.startswith("a generation") and "…" in label and len(label) < len(LONG) for label, _ in shown)
    assert shown[0][0].endswith("(Windows)") and shown[1][0].endswith("(macOS)")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with headless_chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


# Every text of every chart whose box leaves the chart's viewBox, as drawn by the browser.
OUTSIDE = """
const out = [];
for (const svg of document.querySelectorAll('svg')) {
  const v = svg.viewBox.baseVal;
  for (const t of svg.querySelectorAll('text')) {
    const b = t.getBBox();
    if (b.x < v.x - 0.5 || b.y < v.y - 0.5 || b.x + b.width > v.x + v.width + 0.5 || b.y + b.height > v.y + v.height + 0.5)
      out.push(svg.getAttribute('aria-label') + ': ' + t.textContent);
  }
}
return out;
"""


@pytest.mark.slow
def test_no_chart_label_is_clipped_in_the_browser(browser, tmp_path):
    # Long names, full-length bars with long values beside them, many days, and costs of every size.
    days = [f"2026-{m:02d}-{d:02d}" for m in (10, 11) for d in range(1, 31)]
    rows = [
        {**question(n % 60, day, ["answer", "refuse", "ask"][n % 3], [LONG if n % 2 else "v6e", f"{LONG} {n % 3}"],
                    0.0123 * (n % 7), 1234567.0 * (n % 5 + 1)),
         "asked_at": f"{day}T10:00:{n % 60:02d}.000+00:00", "question": f"question {n}"}
        for n, day in enumerate(days * 3)
    ]
    ratings = {n: ("down", [f"{LONG} reason {n % 4}"], "comment") for n in range(1, len(rows), 2)}
    out = tmp_path / "report.html"
    out.write_text(render(logged(tmp_path / "q.sqlite", rows, ratings)), encoding="utf-8")
    browser.get(out.as_uri())
    assert browser.find_elements("css selector", "svg text"), "the page has charts"
    assert browser.execute_script(OUTSIDE) == []
