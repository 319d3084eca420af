"""A comparison as text: one column per generation, each cell with its citation (for `valid ask`)."""

from __future__ import annotations

import textwrap
from typing import Mapping

from valid.answer.models import Comparison, ComparisonCell

WIDTH = 110
KIND_WORDS = {"differs": "differs", "only": "not in every generation", "shared": "the same", "availability": "available?"}


def _cell_lines(cell: ComparisonCell, width: int) -> list[str]:
    head = []
    if cell.available is not None:
        head.append("Yes." if cell.available else "No.")
    lines: list[str] = []
    for paragraph in [" ".join(head)] if head else []:
        lines.append(paragraph)
    for line in cell.text.split("\n"):
        lines += textwrap.wrap(line, width=width, break_long_words=True, break_on_hyphens=False) or [""]
    if cell.values:
        lines += textwrap.wrap("values: " + ", ".join(cell.values), width=width, break_long_words=True)
    if cell.cite:
        lines += textwrap.wrap(f"[{cell.cite}]", width=width, break_long_words=True, break_on_hyphens=False)
    return lines


def render_comparison(comparison: Comparison, labels: Mapping[str, str] | None = None, width: int = WIDTH) -> str:
    """The comparison as a table: a header with the generations, then each row's topic and cells."""
    labels = dict(labels or {})
    names = [labels.get(g, label) for g, label in zip(comparison.generations, comparison.labels)]
    columns = max(1, len(names))
    column = max(20, (width - 3 * (columns - 1)) // columns)
    out = [textwrap.fill(comparison.summary, width=width), ""]
    rule = "-+-".join("-" * column for _ in range(columns))
    out.append(" | ".join(name.ljust(column) for name in names).rstrip())
    out.append(rule)
    for row in comparison.rows:
        out.append(f"{row.topic} — {KIND_WORDS.get(row.kind, row.kind)}")
        cells = {cell.generation: _cell_lines(cell, column) for cell in row.cells}
        stacked = [cells.get(g, []) for g in comparison.generations]
        height = max((len(c) for c in stacked), default=0)
        for i in range(height):
            out.append(" | ".join((c[i] if i < len(c) else "").ljust(column) for c in stacked).rstrip())
        out.append(rule)
    return "\n".join(out)
