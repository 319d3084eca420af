"""Score one trap-set cell: a question, an arm's answer object, and the chunks' scopes.

Pure functions. A cell falls in exactly one category:

    right             answered, every required value present, every citation in scope
    asked             asked the reader to choose a generation, with the expected choices
    refused           refused (a gap, not a wrong answer)
    wrong_generation  a value, answer or citation that belongs to another generation reached the reader
    wrong_other       anything else that is not right (a missing value, an ask with the wrong choices,
                      an answer where a refusal was expected)

`correct` says whether the category is what the question expects. A wrong-generation value is scored
wrong even when it is cited: citing the wrong page does not make the value right.

Expected and forbidden values are found with the value grammar the answer checks use
(`valid.audit.tokens.mentions`): "eight chips" mentions the forbidden "8 chips", "Chips per VM | 4"
is mentioned by "Each VM has 4 chips", "8 chips" is not mentioned by "128 chips", and a phrase
("Compute Engine") is matched as whole words.
"""

from __future__ import annotations

from typing import Any, Callable, Literal, Mapping

from pydantic import BaseModel

from valid.audit import tokens
from valid.evaluate.compare_score import as_answers, score_comparison
from valid.evaluate.trapset import Required, TrapQuestion

Category = Literal["right", "asked", "refused", "wrong_generation", "wrong_other"]
CATEGORIES: tuple[Category, ...] = ("right", "asked", "refused", "wrong_generation", "wrong_other")

Grounded = Callable[[str, str], bool]  # (step text, cited chunk text) -> every value found verbatim


class Cell(BaseModel):
    question_id: str
    arm: str
    stratum: str
    fact: str | None = None
    outcome: str
    category: Category
    correct: bool
    reasons: list[str]
    citations: int = 0
    citations_in_scope: int = 0
    steps: int = 0
    steps_grounded: int = 0
    answer_text: str = ""
    error: str | None = None


def _contains(text: str, required: Required) -> bool:
    options = [required] if isinstance(required, str) else required
    return any(tokens.mentions(text, option) for option in options)


def grounded(step_text: str, chunk_text: str) -> bool:
    """Every value of a step is stated by the chunk it cites (the answer checks' rule,
    `valid.audit.tokens.states`; chunk_text is the chunk's citable text: breadcrumbs, title, text)."""
    found = tokens.values(chunk_text)
    return all(tokens.states(chunk_text, value, found) for value in tokens.values(step_text))


def _answer_texts(answer: Mapping[str, Any]) -> str:
    parts = [answer.get("answer") or ""]
    parts.extend(step.get("text") or "" for step in answer.get("steps") or [])
    return "\n".join(parts)


def score_cell(
    question: TrapQuestion,
    arm: str,
    obj: Mapping[str, Any],
    chunk_scopes: Mapping[str, set[str]],
    chunk_texts: Mapping[str, str] | None = None,
    grounded: Grounded | None = None,
) -> Cell:
    expect = question.expect
    outcome = obj.get("outcome", "")
    if outcome == "compare" and "compare" in expect.acceptable():
        category, reasons, counts = score_comparison(expect, obj, chunk_scopes, chunk_texts, grounded)
        return Cell(
            question_id=question.id, arm=arm, stratum=question.stratum, fact=question.fact, outcome=outcome,
            category=category, correct=category == "right", reasons=reasons,
            answer_text=(obj.get("comparison") or {}).get("summary", ""), **counts,
        )
    if outcome == "compare":
        # Read per generation: each generation's cells are its answer (a comparison where an answer
        # per generation was expected), so values, citations and wrong sides are scored as answers.
        obj = {**obj, "outcome": "answer", "answers": as_answers(obj)}
        outcome = "answer"
    answers = list(obj.get("answers") or [])
    everything = "\n".join(_answer_texts(a) for a in answers)
    reasons: list[str] = []
    cell = dict(question_id=question.id, arm=arm, stratum=question.stratum, fact=question.fact, outcome=outcome)

    # Citations: each must be in scope for the generation it answers for. An answer without a
    # generation (the unfiltered baseline) is judged against the question's expected scope.
    citations = in_scope = steps = steps_grounded = 0
    for answer in answers:
        targets = {answer["generation"]} if answer.get("generation") else set(expect.scope)
        for step in answer.get("steps") or []:
            cite = step.get("cite")
            steps += 1
            if cite is None:
                continue
            citations += 1
            scope = chunk_scopes.get(cite, set())
            if not targets or targets & scope:
                in_scope += 1
            else:
                reasons.append(f"citation {cite} is not in scope for {sorted(targets)}")
            if grounded and chunk_texts is not None and cite in chunk_texts:
                if grounded(step.get("text") or "", chunk_texts[cite]):
                    steps_grounded += 1
                else:
                    reasons.append(f"a value in step citing {cite} is not found in that chunk")
    cell.update(citations=citations, citations_in_scope=in_scope, steps=steps, steps_grounded=steps_grounded)
    cell["answer_text"] = everything

    acceptable = expect.acceptable()
    if outcome == "refuse":
        return Cell(**cell, category="refused", correct="refuse" in acceptable, reasons=reasons)

    if outcome == "ask":
        offered = {choice.get("generation") for choice in obj.get("choices") or []}
        if "ask" in acceptable and offered == set(expect.choices):
            return Cell(**cell, category="asked", correct=True, reasons=reasons)
        if "ask" in acceptable:
            reasons.append(f"asked with choices {sorted(offered)}, expected {sorted(expect.choices)}")
            return Cell(**cell, category="wrong_other", correct=False, reasons=reasons)
        return Cell(**cell, category="asked", correct=False, reasons=reasons)

    if outcome != "answer":
        reasons.append(f"unknown outcome {outcome!r}")
        return Cell(**cell, category="wrong_other", correct=False, reasons=reasons)

    wrong_generation = False
    for value in expect.forbidden:
        if tokens.mentions(everything, value):
            reasons.append(f"contains {value!r}, which belongs to another generation")
            wrong_generation = True
    if expect.scope:
        for answer in answers:
            generation = answer.get("generation")
            if generation and generation not in expect.scope:
                reasons.append(f"answered for {generation}, which the question did not ask about")
                wrong_generation = True
    if citations != in_scope:
        wrong_generation = True
    if "answer" not in acceptable:
        # Answering a question that needed a choice presents one generation's value as *the* answer.
        for profile, required in expect.values.items():
            if any(_contains(everything, item) for item in required):
                reasons.append(f"answered with {profile}'s value where the reader had to choose")
                wrong_generation = True
        category: Category = "wrong_generation" if wrong_generation else "wrong_other"
        if not wrong_generation:
            reasons.append(f"answered where {acceptable} was expected")
        return Cell(**cell, category=category, correct=False, reasons=reasons)
    if wrong_generation:
        return Cell(**cell, category="wrong_generation", correct=False, reasons=reasons)

    for profile, required in expect.values.items():
        own = [a for a in answers if a.get("generation") == profile]
        text = "\n".join(_answer_texts(a) for a in own) if own else (everything if not any(a.get("generation") for a in answers) else "")
        if not own and any(a.get("generation") for a in answers):
            reasons.append(f"no answer for {profile}")
            continue
        for item in required:
            if not _contains(text, item):
                reasons.append(f"{profile}: missing {item!r}")
    if reasons:
        return Cell(**cell, category="wrong_other", correct=False, reasons=reasons)
    return Cell(**cell, category="right", correct=True, reasons=reasons)


def failed_cell(question: TrapQuestion, arm: str, error: str) -> Cell:
    """A cell whose run raised: kept in the scorecard as an explicit failure, never dropped."""
    return Cell(
        question_id=question.id,
        arm=arm,
        stratum=question.stratum,
        fact=question.fact,
        outcome="error",
        category="wrong_other",
        correct=False,
        reasons=[f"run failed: {error}"],
        error=error,
    )
