"""`valid log report`: the question log as one self-contained HTML page a docs team reads at a glance.

Charts are inline SVG written here (no script, no third-party code, nothing fetched): questions per
day by outcome, cost per day, latency percentiles, questions per generation, feedback by reason,
the most refused questions with their gap issues, and the answers readers voted down. Every string
from the log (questions, comments, issue ids) is HTML-escaped. Pure: entries in, a page out.

SVG text does not wrap or shrink, so the layout reserves room for it from a conservative estimate
of its width (`_text_width`): long labels are shortened with an ellipsis (the whole label stays in
the tooltip) and bars are scaled so the value printed after the longest one still fits.
"""

from __future__ import annotations

import html
import math
from collections import Counter, defaultdict
from typing import Any, Sequence

OUTCOME_COLOURS = {"answer": "#1a7f37", "ask": "#0b57d0", "refuse": "#b3261e"}
BAR = "#0b57d0"
_W, _H, _PAD_L, _PAD_B, _PAD_T = 720, 220, 64, 40, 16
# At the charts' 12px font, no character of system-ui, Roboto or DejaVu Sans is wider than this on
# average over a label (digits and lower case are 6-7 px; a run of capitals or "m" is wider).
_CHAR_PX = 7.5
DOWN_VOTES_SHOWN = 50


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


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
                 money: bool = False) -> str:
    """Stacked columns: one per label, one segment per series (in `colours` order), with a legend.
    `money`: the axis reads in dollars."""
    if not columns:
        return f'<p class="empty">{_e(title)}: no data.</p>'
    top = _nice_max(max(sum(v.values()) for _, v in columns))
    plot_w, plot_h = _W - _PAD_L - 8, _H - _PAD_B - _PAD_T
    step = plot_w / len(columns)
    width = max(2.0, min(48.0, step * 0.7))
    parts = [f'<svg role="img" aria-label="{_e(title)}" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}">']
    for i in range(5):
        y = _PAD_T + plot_h * i / 4
        tick = ("$" if money else "") + _fmt(top * (4 - i) / 4)
        parts.append(f'<line x1="{_PAD_L}" x2="{_W - 8}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{_PAD_L - 6}" y="{y + 4:.1f}" class="axis" text-anchor="end">{_e(_fit(tick, _PAD_L - 6))}</text>')
    # Every n-th label, n chosen so that neighbours never overlap.
    widest = max(_text_width(label) for label, _ in columns) + 8
    every = max(1, math.ceil(widest / step))
    for i, (label, values) in enumerate(columns):
        x = _PAD_L + step * i + (step - width) / 2
        y = _PAD_T + plot_h
        tip = ", ".join(f"{k} {_fmt(v)}" for k, v in values.items() if v)
        for series, colour in colours.items():
            value = values.get(series, 0.0)
            if value <= 0:
                continue
            h = plot_h * value / top
            y -= h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{h:.1f}" fill="{colour}">'
                f"<title>{_e(label)}: {_e(tip)}</title></rect>"
            )
        if i % every == 0:
            half = _text_width(label) / 2
            centre = min(max(x + width / 2, half + 1), _W - half - 1)  # the first and last stay inside
            parts.append(f'<text x="{centre:.1f}" y="{_H - _PAD_B + 16}" class="axis" text-anchor="middle">{_e(label)}</text>')
    parts.append("</svg>")
    legend = "".join(
        f'<span class="key"><span class="swatch" style="background:{c}"></span>{_e(s)}</span>' for s, c in colours.items()
    ) if len(colours) > 1 else ""
    return "".join(parts) + (f'<p class="legend">{legend}</p>' if legend else "")


def bar_list(title: str, rows: list[tuple[str, float, str]]) -> str:
    """Horizontal bars: (label, value, shown text), longest first as given. The bars are scaled so
    that the text after the longest one fits; a label too long for its column ends in an ellipsis."""
    if not rows:
        return f'<p class="empty">{_e(title)}: no data.</p>'
    top = max(v for _, v, _ in rows) or 1.0
    row_h, label_w = 26, 200
    bar_w = max(120.0, _W - label_w - 6 - max(_text_width(shown) for _, _, shown in rows) - 4)
    height = row_h * len(rows) + 8
    parts = [f'<svg role="img" aria-label="{_e(title)}" viewBox="0 0 {_W} {height}" width="{_W}" height="{height}">']
    for i, (label, value, shown) in enumerate(rows):
        y = 4 + i * row_h
        w = bar_w * value / top
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 17}" class="label" text-anchor="end">{_e(_fit(label, label_w - 12))}'
            f"<title>{_e(label)}</title></text>"
        )
        parts.append(f'<rect x="{label_w}" y="{y + 4}" width="{w:.1f}" height="{row_h - 8}" fill="{BAR}"><title>{_e(label)}: {_e(shown)}</title></rect>')
        parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 17}" class="label">{_e(shown)}</text>')
    parts.append("</svg>")
    return "".join(parts)


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


_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;max-width:60rem;margin:0 auto;padding:1rem 1.25rem 3rem;line-height:1.45}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.25rem}
.muted,.empty{color:#57606a}.tiles{display:flex;flex-wrap:wrap;gap:.75rem;margin:1rem 0}
.tile{border:1px solid #d0d7de;border-radius:6px;padding:.5rem .9rem;min-width:8rem}.tile b{display:block;font-size:1.35rem}
svg{max-width:100%;height:auto}.grid{stroke:#eaeef2}.axis,.label{font-size:12px;fill:#57606a}.label{fill:#1f2328}
.legend{font-size:.85rem}.key{margin-right:1rem}.swatch{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-1px}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #eaeef2;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}code{background:#f6f8fa;padding:0 .25rem;border-radius:4px}
.tile small{display:block;color:#57606a}td.t{white-space:nowrap}.note{font-size:.85rem;color:#57606a}
"""


def cost_section(s: dict[str, Any]) -> str:
    """Cost per day; when nothing cost anything, a sentence saying why instead of an empty chart."""
    if s["questions"] and not s["cost_total"]:
        why = "offline: no model cost" if s["offline"] else "no model cost in this period"
        return f'<p class="empty">{why}.</p>'
    return column_chart("Cost per day (USD)", [(d[5:], {"cost": s["cost_per_day"][d]}) for d in s["days"]],
                        {"cost": BAR}, money=True)


def generations_section(s: dict[str, Any]) -> str:
    """Questions per generation, with a note when a question counts for several of them."""
    total = s["questions"] or 1
    chart = bar_list(
        "Questions per generation", [(g, float(n), f"{n} ({100 * n / total:.0f}%)") for g, n in s["per_generation"].items()]
    )
    if not s["multi_generation"]:
        return chart
    shares = 100 * sum(s["per_generation"].values()) / total
    return chart + (
        f'<p class="note">{s["multi_generation"]} of {s["questions"]} questions '
        f'{"was" if s["multi_generation"] == 1 else "were"} asked for more than one '
        f"generation; each counts once for every generation it was asked for, so the shares add up to "
        f"{shares:.0f}%.</p>"
    )


def reasons_section(s: dict[str, Any]) -> str:
    rated = s["feedback"] or 1
    chart = bar_list(
        "Feedback by reason", [(r, float(n), f"{n} ({100 * n / rated:.0f}% of rated)") for r, n in s["reasons"].items()]
    )
    if sum(s["reasons"].values()) <= s["feedback"]:
        return chart
    return chart + '<p class="note">One rating may give several reasons, so the shares add up to more than 100%.</p>'


def down_voted_section(s: dict[str, Any]) -> str:
    """The answers readers voted down, newest first: when, the question, its scope, why."""
    voted = s["down_voted"]
    if not voted:
        return '<p class="empty">No answer was voted down.</p>'
    rows = "".join(
        f"<tr><td class=\"t\">{_e(d['asked_at'][:16].replace('T', ' '))}</td><td>{_e(d['question'])}</td>"
        f"<td>{_e(', '.join(d['scope']) or '–')}</td><td>{_e(d['outcome'])}</td>"
        f"<td>{_e(', '.join(d['reasons']) or '(no reason given)')}</td><td>{_e(d['comment'] or '')}</td></tr>"
        for d in voted[:DOWN_VOTES_SHOWN]
    )
    more = len(voted) - DOWN_VOTES_SHOWN
    tail = f'<p class="note">and {more} more: <code>valid log --feedback down</code> lists them all.</p>' if more > 0 else ""
    return (
        "<table><thead><tr><th>Asked (UTC)</th><th>Question</th><th>Generations</th><th>Outcome</th>"
        f"<th>Reasons</th><th>Comment</th></tr></thead><tbody>{rows}</tbody></table>{tail}"
    )


def render(entries: Sequence[dict[str, Any]], *, title: str = "Questions to the docs", scope_note: str = "") -> str:
    s = summarise(entries)
    per_day = column_chart(
        "Questions per day by outcome",
        [(d[5:], {k: float(v) for k, v in s["per_day"][d].items()}) for d in s["days"]],
        OUTCOME_COLOURS,
    )
    latency = bar_list("Latency percentiles", [(k, v, f"{v:,.0f} ms") for k, v in s["latency_ms"].items()])
    total = s["questions"] or 1
    rated = s["feedback"] or 1
    answered = sum(v.get("answer", 0) for v in s["per_day"].values())
    refused_n = sum(v.get("refuse", 0) for v in s["per_day"].values())
    up = s["ratings"].get("up", 0)
    offline = s["questions"] and not s["cost_total"] and s["offline"]
    tiles = [
        ("Questions", f"{s['questions']:,}", ""),
        ("Answered", f"{100 * answered / total:.0f}%", ""),
        ("Refused", f"{100 * refused_n / total:.0f}%", ""),
        ("Rated helpful", f"{100 * up / rated:.0f}% of {s['feedback']}" if s["feedback"] else "no feedback", ""),
        ("p99 latency", f"{s['latency_ms']['p99']:,.0f} ms" if s["latency_ms"] else "–", ""),
        ("Cost", f"${s['cost_total']:.4f}" if not offline else "$0", "offline: no model cost" if offline else ""),
    ]
    rows = "".join(
        f"<tr><td>{_e(r['question'])}</td><td class=\"n\">{r['count']}</td>"
        f"<td>{' '.join(f'<code>{_e(i)}</code>' for i in r['gap_issues']) or '–'}</td><td>{_e(r['reason'] or '')}</td></tr>"
        for r in s["top_refused"]
    )
    refused_table = (
        f"<table><thead><tr><th>Question</th><th>Times</th><th>Gap issues</th><th>Why</th></tr></thead><tbody>{rows}</tbody></table>"
        if rows else '<p class="empty">No question was refused.</p>'
    )
    span = f"{s['days'][0]} to {s['days'][-1]}" if s["days"] else "no questions"
    tile_html = "".join(
        f'<div class="tile">{_e(k)}<b>{_e(v)}</b>' + (f"<small>{_e(note)}</small>" if note else "") + "</div>"
        for k, v, note in tiles
    )
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{_e(title)}</h1><p class=\"muted\">{_e(span)}{_e(scope_note)}</p>"
        f'<div class="tiles">{tile_html}</div>'
        f"<h2 id=\"per-day\">Questions per day by outcome</h2>{per_day}"
        f"<h2 id=\"refused\">Most refused questions and their gap issues</h2>{refused_table}"
        f"<h2 id=\"feedback\">Feedback by reason</h2>{reasons_section(s)}"
        f"<h2 id=\"down-voted\">Answers voted down</h2>{down_voted_section(s)}"
        f"<h2 id=\"latency\">Latency percentiles</h2>{latency}"
        f"<h2 id=\"cost\">Cost per day</h2>{cost_section(s)}"
        f"<h2 id=\"generations\">Questions per generation</h2>{generations_section(s)}"
        "</body></html>\n"
    )
