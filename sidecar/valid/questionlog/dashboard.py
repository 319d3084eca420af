"""`valid log report`: the question log as one self-contained HTML page a docs team reads at a glance.

Charts are inline SVG (no script, no third-party code, nothing fetched): questions per
day by outcome, cost per day, latency percentiles, questions per generation, feedback by reason,
the most refused questions with their gap issues, and the answers readers voted down. Every string
from the log (questions, comments, issue ids) is HTML-escaped by the templates (valid/templates:
dashboard.html and the chart_*.svg it holds; the layout arithmetic is here). Pure: entries in, a page out.

SVG text does not wrap or shrink, so the layout reserves room for it from a conservative estimate
of its width (`_text_width`): long labels are shortened with an ellipsis (the whole label stays in
the tooltip) and bars are scaled so the value printed after the longest one still fits.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any, Sequence

from markupsafe import Markup

from valid.templating import render as render_template

OUTCOME_COLOURS = {"answer": "#1a7f37", "ask": "#0b57d0", "refuse": "#b3261e"}
BAR = "#0b57d0"
_W, _H, _PAD_L, _PAD_B, _PAD_T = 720, 220, 64, 40, 16
# At the charts' 12px font, no character of system-ui, Roboto or DejaVu Sans is wider than this on
# average over a label (digits and lower case are 6-7 px; a run of capitals or "m" is wider).
_CHAR_PX = 7.5
DOWN_VOTES_SHOWN = 50


def _text_width(text: str) -> float:
    return _CHAR_PX * len(text)


def _fit(text: str, width: float) -> str:
    """`text` shortened in the middle to fit `width` pixels: names that differ only at their end
    (a version, a platform) stay told apart."""
    room = max(3, int(width / _CHAR_PX))
    if len(text) <= room:
        return text
    tail = (room - 1) * 2 // 5
    return text[: room - 1 - tail].rstrip() + "…" + text[len(text) - tail:].lstrip()


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def _nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    magnitude = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * magnitude >= value:
            return step * magnitude
    return 10 * magnitude


def _fmt(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:.3g}"
    return f"{value:.2g}"


def column_chart(title: str, columns: list[tuple[str, dict[str, float]]], colours: dict[str, str],
                 money: bool = False) -> Markup:
    """Stacked columns: one per label, one segment per series (in `colours` order), with a legend.
    `money`: the axis reads in dollars."""
    if not columns:
        return _chart("chart_empty.html", title=title)
    top = _nice_max(max(sum(v.values()) for _, v in columns))
    plot_w, plot_h = _W - _PAD_L - 8, _H - _PAD_B - _PAD_T
    step = plot_w / len(columns)
    width = max(2.0, min(48.0, step * 0.7))
    ticks = [
        {"y": _PAD_T + plot_h * i / 4, "text": _fit(("$" if money else "") + _fmt(top * (4 - i) / 4), _PAD_L - 6)}
        for i in range(5)
    ]
    # Every n-th label, n chosen so that neighbours never overlap.
    widest = max(_text_width(label) for label, _ in columns) + 8
    every = max(1, math.ceil(widest / step))
    shown = []
    for i, (label, values) in enumerate(columns):
        x = _PAD_L + step * i + (step - width) / 2
        y = float(_PAD_T + plot_h)
        segments = []
        for series, colour in colours.items():
            value = values.get(series, 0.0)
            if value > 0:
                h = plot_h * value / top
                y -= h
                segments.append({"y": y, "h": h, "colour": colour})
        half = _text_width(label) / 2
        centre = min(max(x + width / 2, half + 1), _W - half - 1) if i % every == 0 else None  # the first and last stay inside
        tip = ", ".join(f"{k} {_fmt(v)}" for k, v in values.items() if v)
        shown.append({"x": x, "label": label, "tip": tip, "segments": segments, "centre": centre})
    legend = list(colours.items()) if len(colours) > 1 else []
    return _chart("chart_columns.svg", title=title, W=_W, H=_H, pad_l=_PAD_L, ticks=ticks, columns=shown, width=width,
                  label_y=_H - _PAD_B + 16, legend=legend)


def bar_list(title: str, rows: list[tuple[str, float, str]]) -> Markup:
    """Horizontal bars: (label, value, shown text), longest first as given. The bars are scaled so
    that the text after the longest one fits; a label too long for its column ends in an ellipsis."""
    if not rows:
        return _chart("chart_empty.html", title=title)
    top = max(v for _, v, _ in rows) or 1.0
    row_h, label_w = 26, 200
    bar_w = max(120.0, _W - label_w - 6 - max(_text_width(shown) for _, _, shown in rows) - 4)
    bars = [
        {"y": 4 + i * row_h, "w": bar_w * value / top, "label": label, "fitted": _fit(label, label_w - 12), "shown": shown}
        for i, (label, value, shown) in enumerate(rows)
    ]
    return _chart("chart_bars.svg", title=title, W=_W, height=row_h * len(rows) + 8, rows=bars, label_w=label_w,
                  row_h=row_h, colour=BAR)


def _chart(template: str, **layout: Any) -> Markup:
    """A chart's SVG (or its 'no data' line), marked safe to place in the page: the template escaped it."""
    return Markup(render_template(template, **layout).rstrip("\n"))


def summarise(entries: Sequence[dict[str, Any]], top_refused: int = 10) -> dict[str, Any]:
    """The numbers behind the page (also what the tests read)."""
    per_day: dict[str, Counter] = defaultdict(Counter)
    cost_day: dict[str, float] = defaultdict(float)
    per_generation: Counter = Counter()
    refused: dict[str, dict[str, Any]] = {}
    reasons: Counter = Counter()
    ratings: Counter = Counter()
    down_voted: list[dict[str, Any]] = []
    for e in entries:
        day = e["asked_at"][:10]
        per_day[day][e["outcome"]] += 1
        cost_day[day] += e["cost_usd"]
        for g in e["scope"] or ["(no generation)"]:
            per_generation[g] += 1
        if e.get("rating") == "down":
            down_voted.append({
                "asked_at": e["asked_at"], "question": " ".join((e.get("typed") or e["question"]).split()),
                "scope": e["scope"], "outcome": e["outcome"], "reasons": e.get("reasons") or [],
                "comment": e.get("comment"),
            })  # fmt: skip
        if e["outcome"] == "refuse":
            text = " ".join((e.get("typed") or e["question"]).split())
            item = refused.setdefault(text.lower(), {"question": text, "count": 0, "gap_issues": [], "reason": e.get("refusal")})
            item["count"] += 1
            item["gap_issues"] = sorted({*item["gap_issues"], *e["gap_issues"]})
        if e.get("rating"):
            ratings[e["rating"]] += 1
            # A thumbs-down without a reason is still a complaint worth counting; a thumbs-up is not.
            reasons.update(e.get("reasons") or (["(no reason given)"] if e["rating"] == "down" else []))
    latencies = [e["latency_ms"] for e in entries]
    days = sorted(per_day)
    return {
        "questions": len(entries),
        "days": days,
        "per_day": {d: dict(per_day[d]) for d in days},
        "cost_per_day": {d: cost_day[d] for d in days},
        "cost_total": sum(cost_day.values()),
        "per_generation": dict(per_generation.most_common()),
        # Asked for several generations: counted once for each, so the shares add up past 100%.
        "multi_generation": sum(1 for e in entries if len(e["scope"]) > 1),
        "offline": all(e.get("generator") == "offline" for e in entries),
        "down_voted": sorted(down_voted, key=lambda d: d["asked_at"], reverse=True),
        "top_refused": sorted(refused.values(), key=lambda r: (-r["count"], r["question"]))[:top_refused],
        "feedback": sum(ratings.values()),
        "ratings": dict(ratings),
        "reasons": dict(reasons.most_common()),
        "latency_ms": {f"p{p}": percentile(latencies, p) for p in (50, 90, 95, 99)} if latencies else {},
    }


def _sections(s: dict[str, Any]) -> dict[str, Any]:
    """The charts and notes under the page's headings (the template places them)."""
    total = s["questions"] or 1
    rated = s["feedback"] or 1
    no_cost = ""
    if s["questions"] and not s["cost_total"]:  # a sentence saying why instead of an empty chart
        no_cost = "offline: no model cost" if s["offline"] else "no model cost in this period"
    return {
        "per_day": column_chart(
            "Questions per day by outcome",
            [(d[5:], {k: float(v) for k, v in s["per_day"][d].items()}) for d in s["days"]],
            OUTCOME_COLOURS,
        ),
        "latency": bar_list("Latency percentiles", [(k, v, f"{v:,.0f} ms") for k, v in s["latency_ms"].items()]),
        "no_cost": no_cost,
        "cost": "" if no_cost else column_chart(
            "Cost per day (USD)", [(d[5:], {"cost": s["cost_per_day"][d]}) for d in s["days"]], {"cost": BAR}, money=True
        ),
        # A question asked for several generations counts once for each: the note says so.
        "generations": bar_list(
            "Questions per generation", [(g, float(n), f"{n} ({100 * n / total:.0f}%)") for g, n in s["per_generation"].items()]
        ),
        "multi_generation": s["multi_generation"],
        "shares": 100 * sum(s["per_generation"].values()) / total,
        "reasons": bar_list(
            "Feedback by reason", [(r, float(n), f"{n} ({100 * n / rated:.0f}% of rated)") for r, n in s["reasons"].items()]
        ),
        "reasons_note": sum(s["reasons"].values()) > s["feedback"],
        # The answers readers voted down, newest first: when, the question, its scope, why.
        "down_voted": s["down_voted"][:DOWN_VOTES_SHOWN],
        "more_down_voted": len(s["down_voted"]) - DOWN_VOTES_SHOWN,
    }


def _tiles(s: dict[str, Any]) -> list[tuple[str, str, str]]:
    total = s["questions"] or 1
    rated = s["feedback"] or 1
    answered = sum(v.get("answer", 0) for v in s["per_day"].values())
    refused_n = sum(v.get("refuse", 0) for v in s["per_day"].values())
    up = s["ratings"].get("up", 0)
    offline = s["questions"] and not s["cost_total"] and s["offline"]
    return [
        ("Questions", f"{s['questions']:,}", ""),
        ("Answered", f"{100 * answered / total:.0f}%", ""),
        ("Refused", f"{100 * refused_n / total:.0f}%", ""),
        ("Rated helpful", f"{100 * up / rated:.0f}% of {s['feedback']}" if s["feedback"] else "no feedback", ""),
        ("p99 latency", f"{s['latency_ms']['p99']:,.0f} ms" if s["latency_ms"] else "–", ""),
        ("Cost", f"${s['cost_total']:.4f}" if not offline else "$0", "offline: no model cost" if offline else ""),
    ]


def render(entries: Sequence[dict[str, Any]], *, title: str = "Questions to the docs", scope_note: str = "") -> str:
    s = summarise(entries)
    span = f"{s['days'][0]} to {s['days'][-1]}" if s["days"] else "no questions"
    return render_template(
        "dashboard.html", title=title, span=span, scope_note=scope_note, tiles=_tiles(s), questions=s["questions"],
        top_refused=s["top_refused"], **_sections(s),
    )
