"""Score a `compare` answer object: every expected difference present, none invented, no value on
the wrong side.

Pure functions, called by `valid.evaluate.score.score_cell` when the outcome is `compare`:

- **wrong_generation**: a cell shows a value the question lists as another generation's
  (`expect.wrong_side`), a cell cites a chunk out of scope for its own generation, or the
  comparison has a column for a generation the question did not name;
- **wrong_other**: an expected difference missing from its generation's cells
  (`expect.differences`), a wrong yes / no (`expect.available`), an invented difference (a row
  that says two sides differ while their cells say the same, or cite the same chunk; any
  difference where `expect.same` says nothing differs), or a cell value its cited chunk does not
  state;
- **right** otherwise.

A `compare` object scored against an `answer` expectation (a two-generation question written
before comparisons existed) is read per generation: each generation's cells are its answer.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from valid import tokens
from valid.evaluate.trapset import mentions_any

Grounded = Callable[[str, str], bool]

# Placeholder texts of cells with no content of their own: not values, never compared.
_EMPTY = ("(nothing beyond the text both share)",)


def cells_of(obj: Mapping[str, Any]) -> list[tuple[str, dict, dict]]:
    """(row kind, row, cell) for every cell of the comparison."""
    comparison = obj.get("comparison") or {}
    return [(row.get("kind", ""), row, cell) for row in comparison.get("rows") or [] for cell in row.get("cells") or []]


def side_text(obj: Mapping[str, Any], generation: str) -> str:
    """Everything the comparison shows for one generation (its cells, in row order)."""
    return "\n".join(cell.get("text") or "" for _, _, cell in cells_of(obj) if cell.get("generation") == generation)



def score_comparison(
    expect,
    obj: Mapping[str, Any],
    chunk_scopes: Mapping[str, set[str]],
    chunk_texts: Mapping[str, str] | None,
    grounded: Grounded | None,
) -> tuple[str, list[str], dict[str, int]]:
    """(category, reasons, counts) for one compare cell; counts feed the gate's citation and
    grounding totals."""
    reasons: list[str] = []
    wrong_generation = False
    wrong_other = False
    citations = in_scope = steps = steps_grounded = 0
    names = set(expect.scope)
    for kind, row, cell in cells_of(obj):
        generation = cell.get("generation")
        if names and generation not in names:
            reasons.append(f"a column for {generation}, which the question did not name")
            wrong_generation = True
        cite = cell.get("cite")
        if cite is None:
            continue
        citations += 1
        if generation in chunk_scopes.get(cite, set()):
            in_scope += 1
        else:
            reasons.append(f"the {generation} cell cites {cite}, out of scope for {generation}")
            wrong_generation = True
        if cell.get("present", True) and grounded is not None and chunk_texts is not None and cite in chunk_texts:
            steps += 1
            if grounded(cell.get("text") or "", chunk_texts[cite]):
                steps_grounded += 1
            else:
                reasons.append(f"a value of the {generation} cell is not stated by {cite}")
                wrong_other = True
    for generation, values in expect.wrong_side.items():
        text = side_text(obj, generation)
        for value in values:
            if tokens.mentions(text, value):
                reasons.append(f"{value!r} shown for {generation}, whose value it is not")
                wrong_generation = True
    # Invented differences.
    rows = (obj.get("comparison") or {}).get("rows") or []
    for row in rows:
        if row.get("kind") != "differs":
            continue
        cells = row.get("cells") or []
        texts = {" ".join((c.get("text") or "").split()) for c in cells}
        if len({c.get("cite") for c in cells}) < len(cells) or len(texts) < 2:
            reasons.append(f"{row.get('topic')}: a difference whose sides say the same")
            wrong_other = True
    if expect.same and any(r.get("kind") in ("differs", "only") for r in rows):
        reasons.append("a difference where nothing differs")
        wrong_other = True
    if expect.same is False and not any(r.get("kind") in ("differs", "only", "availability") for r in rows):
        reasons.append("no difference where one was expected")
        wrong_other = True
    # Expected differences, each on its own side.
    for generation, required in expect.differences.items():
        text = "\n".join(
            cell.get("text") or ""
            for kind, _, cell in cells_of(obj)
            if cell.get("generation") == generation and kind in ("differs", "only", "availability")
        )
        for item in required:
            if not mentions_any(text, item):
                reasons.append(f"{generation}: missing {item!r}")
                wrong_other = True
    for generation, expected in expect.available.items():
        found = [cell.get("available") for kind, _, cell in cells_of(obj) if kind == "availability" and cell.get("generation") == generation]
        if not found or found[0] is not expected:
            reasons.append(f"{generation}: available {found[0] if found else None}, expected {expected}")
            wrong_other = True
    category = "wrong_generation" if wrong_generation else "wrong_other" if wrong_other else "right"
    counts = dict(citations=citations, citations_in_scope=in_scope, steps=steps, steps_grounded=steps_grounded)
    return category, reasons, counts


def as_answers(obj: Mapping[str, Any]) -> list[dict]:
    """A compare object read as one answer per generation (its cells, each cell a cited step)."""
    comparison = obj.get("comparison") or {}
    answers = []
    for generation in comparison.get("generations") or []:
        steps = [
            {"text": cell.get("text") or "", "cite": cell.get("cite")}
            for _, _, cell in cells_of(obj)
            if cell.get("generation") == generation and cell.get("cite") and (cell.get("text") or "") not in _EMPTY
        ]
        answers.append({"generation": generation, "answer": "", "steps": steps})
    return answers
