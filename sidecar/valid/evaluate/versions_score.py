"""Score an answer to a question about the versions themselves (trap-set stratum "versions").

Pure functions, called by `valid.evaluate.score.score_cell` for a question whose expected outcome is
`versions`. Two readings, so that VALID and the unfiltered baseline are scored on the same cells:

- a **versions answer** (outcome `versions`, VALID's structured object): its kind is the expected
  one, it names exactly the expected versions (`expect.versions`), its yes / no is the expected one
  (`expect.verdict`), its text mentions every `expect.mentions`, and it cites evidence in scope
  for every profile of `expect.cited`;
- a **text answer** (outcome `answer` or `compare`, as the baseline gives): the same, read from its
  text and citations (a yes / no is its first word), except the kind and the exact set of versions,
  which a text does not carry.

Either way a forbidden value, or a citation in no expected version's scope, is a wrong generation.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from valid import tokens
from valid.evaluate.trapset import mentions_any

Grounded = Callable[[str, str], bool]
_YES_NO = re.compile(r"^\W*(yes|no)\b", re.I)



def _evidence_of(obj: Mapping[str, Any]) -> tuple[str, list[tuple[str | None, str, str | None]], bool | None]:
    """(text, [(generation, text, cite)], verdict) of either reading."""
    versions = obj.get("versions")
    if versions:
        items = [(e.get("generation"), e.get("text") or "", e.get("cite")) for e in versions.get("evidence") or []]
        text = "\n".join([versions.get("summary") or "", *(t for _, t, _ in items)])
        return text, items, versions.get("verdict")
    items = [
        (answer.get("generation"), step.get("text") or "", step.get("cite"))
        for answer in obj.get("answers") or []
        for step in answer.get("steps") or []
    ]
    first = "\n".join(answer.get("answer") or "" for answer in obj.get("answers") or [])
    text = "\n".join([first, *(t for _, t, _ in items)])
    said = _YES_NO.match(first)
    return text, items, None if said is None else said.group(1).lower() == "yes"


def score_versions(
    expect,
    obj: Mapping[str, Any],
    chunk_scopes: Mapping[str, set[str]],
    chunk_texts: Mapping[str, str] | None,
    grounded: Grounded | None,
) -> tuple[str, list[str], dict[str, int]]:
    """(category, reasons, counts) for one cell of the versions stratum."""
    text, items, verdict = _evidence_of(obj)
    reasons: list[str] = []
    wrong_generation = False
    counts = dict(citations=0, citations_in_scope=0, steps=0, steps_grounded=0)
    cited: set[str] = set()
    for generation, item_text, cite in items:
        if cite is None:
            continue
        counts["citations"] += 1
        targets = {generation} if generation else set(expect.versions)
        scope = chunk_scopes.get(cite, set())
        if targets & scope or not targets:
            counts["citations_in_scope"] += 1
            cited |= targets & scope if generation else scope
        else:
            reasons.append(f"citation {cite} is not in scope for {sorted(targets)}")
            wrong_generation = True
        if grounded is not None and chunk_texts is not None and cite in chunk_texts:
            counts["steps"] += 1
            if grounded(item_text, chunk_texts[cite]):
                counts["steps_grounded"] += 1
            else:
                reasons.append(f"a value of the evidence citing {cite} is not stated there")
    for value in expect.forbidden:
        if tokens.mentions(text, value):
            reasons.append(f"mentions {value!r}, which the question's versions do not have")
            wrong_generation = True
    if wrong_generation:
        return "wrong_generation", reasons, counts
    structured = obj.get("versions") or {}
    if structured:
        if structured.get("kind") != expect.kind:
            reasons.append(f"a {structured.get('kind')!r} answer, expected {expect.kind!r}")
        named = structured.get("versions") or []
        if expect.versions and set(named) != set(expect.versions):
            reasons.append(f"names {sorted(named)}, expected {sorted(expect.versions)}")
    if expect.verdict is not None and verdict is not expect.verdict:
        reasons.append(f"says {verdict}, expected {expect.verdict}")
    reasons += [f"missing {item!r}" for item in expect.mentions if not mentions_any(text, item)]
    reasons += [f"no evidence cited for {profile}" for profile in expect.cited if profile not in cited]
    return ("wrong_other" if reasons else "right"), reasons, counts


def versions_as_answers(obj: Mapping[str, Any]) -> list[dict]:
    """A versions answer read as one answer per generation: the cited evidence that states
    something about that generation (not an absence, not a scheme entry), as its steps."""
    versions = obj.get("versions") or {}
    answers: dict[str, dict] = {}
    for piece in versions.get("evidence") or []:
        if piece.get("cite") is None or piece.get("role") == "lacks":
            continue
        answer = answers.setdefault(piece["generation"], {"generation": piece["generation"], "answer": "", "steps": []})
        answer["steps"].append({"text": piece.get("text") or "", "cite": piece["cite"]})
    return list(answers.values())
