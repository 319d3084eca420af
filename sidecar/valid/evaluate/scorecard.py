"""Aggregate scored cells into a scorecard, decide the gate, and render it (JSON, HTML, SVG).

The gate reads only VALID's cells and is ordered by harm to a reader: no wrong-generation
answer reaches a reader; every citation in scope; every value grounded; at least 90% of the scoped
questions right (54 of 60). Each reason is reported; no average can hide one.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterable

from markupsafe import Markup
from pydantic import BaseModel

from valid.evaluate.score import CATEGORIES, Cell
from valid.evaluate.stats import wilson_interval
from valid.templating import render

STRATA = ("scoped", "unscoped", "shared", "two-generation", "absent", "out-of-domain", "comparison", "versions")
COLOURS = {
    "right": "#2e7d32",
    "asked": "#1565c0",
    "refused": "#ef8f00",
    "wrong_generation": "#c62828",
    "wrong_other": "#757575",
}
LABELS = {
    "right": "right, cited in scope",
    "asked": "asked the reader",
    "refused": "refused with a gap issue",
    "wrong_generation": "wrong generation",
    "wrong_other": "wrong in another way",
}


class StratumScore(BaseModel):
    questions: int
    counts: dict[str, int]
    correct: int
    correct_interval: tuple[float, float]


class ArmScore(BaseModel):
    strata: dict[str, StratumScore]
    total: StratumScore
    citations: int
    citations_in_scope: int
    steps: int
    steps_grounded: int
    errors: int


class Gate(BaseModel):
    passed: bool
    reasons: list[str]
    wrong_generation: int
    citations_in_scope: str
    values_grounded: str
    scoped_correct: str


class Scorecard(BaseModel):
    release: str | None
    trapset: str
    split: str = "all"  # which half of the trap set was run: dev (tuning), test (reported), all
    questions: int
    arms: dict[str, ArmScore]
    gate: Gate
    paired: list[dict[str, str]]
    cells: list[Cell]


def _stratum(cells: list[Cell]) -> StratumScore:
    counts = Counter(cell.category for cell in cells)
    correct = sum(cell.correct for cell in cells)
    return StratumScore(
        questions=len(cells),
        counts={category: counts.get(category, 0) for category in CATEGORIES},
        correct=correct,
        correct_interval=wilson_interval(correct, len(cells)),
    )


def _arm(cells: list[Cell]) -> ArmScore:
    by_stratum: dict[str, list[Cell]] = defaultdict(list)
    for cell in cells:
        by_stratum[cell.stratum].append(cell)
    return ArmScore(
        strata={s: _stratum(by_stratum[s]) for s in STRATA if by_stratum.get(s)},
        total=_stratum(cells),
        citations=sum(c.citations for c in cells),
        citations_in_scope=sum(c.citations_in_scope for c in cells),
        steps=sum(c.steps for c in cells if c.outcome in ("answer", "compare")),
        steps_grounded=sum(c.steps_grounded for c in cells if c.outcome in ("answer", "compare")),
        errors=sum(c.error is not None for c in cells),
    )


def gate(arm: ArmScore, min_scoped_share: float = 0.9) -> Gate:
    reasons = []
    wrong = arm.total.counts["wrong_generation"]
    if wrong:
        reasons.append(f"{wrong} wrong-generation answer(s) reached the reader")
    if arm.citations_in_scope != arm.citations:
        reasons.append(f"citations in scope {arm.citations_in_scope}/{arm.citations}")
    if arm.steps_grounded != arm.steps:
        reasons.append(f"values grounded {arm.steps_grounded}/{arm.steps} steps")
    scoped = arm.strata.get("scoped")
    scoped_total = scoped.questions if scoped else 0
    scoped_right = scoped.correct if scoped else 0
    needed = math.ceil(min_scoped_share * scoped_total)
    if scoped_right < needed:
        reasons.append(f"scoped questions right {scoped_right}/{scoped_total}, need {needed}")
    if arm.errors:
        reasons.append(f"{arm.errors} question(s) failed to run")
    return Gate(
        passed=not reasons,
        reasons=reasons,
        wrong_generation=wrong,
        citations_in_scope=f"{arm.citations_in_scope}/{arm.citations}",
        values_grounded=f"{arm.steps_grounded}/{arm.steps}",
        scoped_correct=f"{scoped_right}/{scoped_total}",
    )


def build_scorecard(
    cells: Iterable[Cell], trapset: str, release: str | None, gated_arm: str = "valid", split: str = "all"
) -> Scorecard:
    cells = list(cells)
    by_arm: dict[str, list[Cell]] = defaultdict(list)
    for cell in cells:
        by_arm[cell.arm].append(cell)
    arms = {name: _arm(arm_cells) for name, arm_cells in sorted(by_arm.items(), key=lambda kv: kv[0] != gated_arm)}
    question_ids = list(dict.fromkeys(cell.question_id for cell in cells))
    lookup = {(cell.arm, cell.question_id): cell for cell in cells}
    paired = [
        {"question": qid, **{arm: lookup[(arm, qid)].category if (arm, qid) in lookup else "missing" for arm in arms}}
        for qid in question_ids
    ]
    if gated_arm not in arms:
        raise ValueError(f"no cells for the gated arm {gated_arm!r}")
    return Scorecard(
        release=release,
        trapset=trapset,
        split=split,
        questions=len(question_ids),
        arms=arms,
        gate=gate(arms[gated_arm]),
        paired=paired,
        cells=cells,
    )


def render_svg(card: Scorecard) -> str:
    """Stacked bars per arm and stratum: VALID beside the baseline, one bar per stratum, one colour per category."""
    groups = [(arm, stratum) for arm in card.arms for stratum in STRATA if stratum in card.arms[arm].strata]
    bar, gap, left, top, width = 26, 10, 230, 30, 520
    legend_columns, legend_width = 3, 190
    legend_rows = -(-len(CATEGORIES) // legend_columns)
    bars_end = top + len(groups) * (bar + gap)
    rows = []
    for row, (arm, stratum) in enumerate(groups):
        score = card.arms[arm].strata[stratum]
        segments, x = [], float(left)
        for category in CATEGORIES:
            count = score.counts[category]
            if count:
                w = width * count / score.questions
                segments.append({"x": x, "w": w, "count": count, "colour": COLOURS[category], "label": LABELS[category]})
                x += w
        rows.append({"arm": arm, "stratum": stratum, "questions": score.questions, "y": top + row * (bar + gap), "segments": segments})
    legend = [
        {"x": left + (i % legend_columns) * legend_width, "y": bars_end + 14 + (i // legend_columns) * 20,
         "colour": COLOURS[category], "label": LABELS[category]}
        for i, category in enumerate(CATEGORIES)
    ]  # fmt: skip
    height = bars_end + 20 + legend_rows * 20
    return render("scorecard.svg", left=left, width=width, height=height, bar=bar, rows=rows, legend=legend).rstrip("\n")


def scorecard_context(card: Scorecard) -> dict:
    """What the scorecard's part of a page needs (the scorecard page and the validation report share it)."""
    rows = [
        {"arm": arm, "stratum": stratum, "s": s}
        for arm, score in card.arms.items()
        for stratum, s in list(score.strata.items()) + [("all", score.total)]
    ]
    return {"card": card, "rows": rows, "categories": CATEGORIES, "labels": LABELS, "svg": Markup(render_svg(card))}


def render_html(card: Scorecard) -> str:
    return render("scorecard.html", **scorecard_context(card))


def render_markdown(card: Scorecard, command: str, chart_name: str | None = None) -> str:
    """The scorecard as a Markdown page for docs/: gate, per arm and stratum, and every miss."""
    chart = Path(chart_name).name if chart_name else "scorecard.svg"
    half = {"test": "the **test half** of the trap set", "dev": "the **dev half** of the trap set"}.get(card.split, "the whole trap set")
    lines = [
        "# Trap-set scorecard",
        "",
        f"Produced by `{command}` on release `{card.release}` ({card.questions} questions of {half},",
        f"trap set `{card.trapset}`). Chart: [{chart}]({chart}).",
        "",
        "What was tuned on what: the relevance floors, the answerer's weights and the choice floor were set",
        "on the dev halves of the bundled trap sets only (see docs/answer.md); the test half is reported",
        "here. Two gate metrics cannot fail for the offline extractive answerer, which copies in-scope text",
        "verbatim: citations in scope and values grounded. They are gates for a model (Gemini), whose",
        "drafts can cite or state anything.",
        "",
        f"**Gate: {'passed' if card.gate.passed else 'FAILED'}** — wrong-generation answers {card.gate.wrong_generation}, "
        f"citations in scope {card.gate.citations_in_scope}, values grounded {card.gate.values_grounded}, "
        f"scoped questions right {card.gate.scoped_correct}.",
        "",
        "| arm | stratum | questions | " + " | ".join(LABELS[c] for c in CATEGORIES) + " | correct [95% Wilson] |",
        "|---|---|---:|" + "---:|" * len(CATEGORIES) + "---|",
    ]
    for arm, score in card.arms.items():
        for stratum, s in list(score.strata.items()) + [("all", score.total)]:
            low, high = s.correct_interval
            counts = " | ".join(str(s.counts[c]) for c in CATEGORIES)
            lines.append(f"| {arm} | {stratum} | {s.questions} | {counts} | {s.correct}/{s.questions} [{low:.2f}, {high:.2f}] |")
    lines += ["", "## Cells that are not correct", "", "| arm | question | category | reasons |", "|---|---|---|---|"]
    for cell in card.cells:
        if not cell.correct:
            reasons = "; ".join(cell.reasons).replace("|", "\\|") or "-"
            lines.append(f"| {cell.arm} | {cell.question_id} | {cell.category} | {reasons} |")
    return "\n".join(lines) + "\n"
