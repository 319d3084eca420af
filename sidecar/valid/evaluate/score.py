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
(`valid.tokens.mentions`): "eight chips" mentions the forbidden "8 chips", "Chips per VM | 4"
is mentioned by "Each VM has 4 chips", "8 chips" is not mentioned by "128 chips", and a phrase
("Compute Engine") is matched as whole words.
"""

from __future__ import annotations

from typing import Any, Callable, Literal, Mapping

from pydantic import BaseModel

from valid import tokens
from valid.evaluate.compare_score import as_answers, score_comparison
from valid.evaluate.trapset import TrapQuestion, mentions_any
from valid.evaluate.versions_score import score_versions, versions_as_answers

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



def grounded(step_text: str, chunk_text: str) -> bool:
    """Every value of a step is stated by the chunk it cites (the answer checks' rule,
    `valid.tokens.states`; chunk_text is the chunk's citable text: breadcrumbs, title, text)."""
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
    """Score one arm's answer object to one question: its category (see above), counts and reasons."""
    expect = question.expect
    outcome = obj.get("outcome", "")
    if outcome == "compare" and "compare" in expect.acceptable():
        return _comparison_cell(question, arm, obj, chunk_scopes, chunk_texts, grounded)
    if outcome in ("versions", "answer", "compare") and "versions" in expect.acceptable():
        return _versions_cell(question, arm, obj, chunk_scopes, chunk_texts, grounded)
    if outcome == "versions":
        # Read per generation: a versions answer where an answer was expected ("what's new in 2.4.1?"
        # asked as a scoped question) is its cited evidence, generation by generation.
        obj = {**obj, "outcome": "answer", "answers": versions_as_answers(obj)}
        outcome = "answer"
    if outcome == "compare":
        # Read per generation: each generation's cells are its answer (a comparison where an answer
        # per generation was expected), so values, citations and wrong sides are scored as answers.
        obj = {**obj, "outcome": "answer", "answers": as_answers(obj)}
        outcome = "answer"
    answers = list(obj.get("answers") or [])
    everything = "\n".join(_answer_texts(a) for a in answers)
    counts, reasons = _citations(answers, expect.scope, chunk_scopes, chunk_texts, grounded)
    cell = dict(question_id=question.id, arm=arm, stratum=question.stratum, fact=question.fact, outcome=outcome)
    cell.update(counts, answer_text=everything)
    all_in_scope = counts["citations"] == counts["citations_in_scope"]
    category, correct, reasons = _category(outcome, obj, answers, everything, expect, all_in_scope, reasons)
    return Cell(**cell, category=category, correct=correct, reasons=reasons)


def _comparison_cell(question, arm, obj, chunk_scopes, chunk_texts, grounded) -> Cell:
    """A comparison where one was acceptable, scored as a comparison (valid.evaluate.compare_score)."""
    category, reasons, counts = score_comparison(question.expect, obj, chunk_scopes, chunk_texts, grounded)
    return Cell(
        question_id=question.id, arm=arm, stratum=question.stratum, fact=question.fact, outcome=obj.get("outcome", ""),
        category=category, correct=category == "right", reasons=reasons,
        answer_text=(obj.get("comparison") or {}).get("summary", ""), **counts,
    )


def _versions_cell(question, arm, obj, chunk_scopes, chunk_texts, grounded) -> Cell:
    """An answer to a question about the versions themselves (valid.evaluate.versions_score); a
    comparison is read as its answers per generation."""
    if obj.get("outcome") == "compare":
        obj = {**obj, "answers": as_answers(obj)}
    category, reasons, counts = score_versions(question.expect, obj, chunk_scopes, chunk_texts, grounded)
    return Cell(
        question_id=question.id, arm=arm, stratum=question.stratum, fact=question.fact, outcome=obj.get("outcome", ""),
        category=category, correct=category == "right", reasons=reasons,
        answer_text=(obj.get("versions") or {}).get("summary", "") or _answer_texts((obj.get("answers") or [{}])[0]), **counts,
    )


def _citations(answers, expect_scope, chunk_scopes, chunk_texts, grounded) -> tuple[dict[str, int], list[str]]:
    """Citation and step counts, and a reason per citation out of scope or step not grounded."""
    # Citations: each must be in scope for the generation it answers for. An answer without a
    # generation (the unfiltered baseline) is judged against the question's expected scope.
    reasons: list[str] = []
    citations = in_scope = steps = steps_grounded = 0
    for answer in answers:
        named = answered_for(answer)
        targets = set(named) or set(expect_scope)
        for step in answer.get("steps") or []:
            cite = step.get("cite")
            steps += 1
            if cite is None:
                continue
            citations += 1
            scope = chunk_scopes.get(cite, set())
            # An answer shown for several generations must cite what each of them keeps.
            if not targets or (targets <= scope if named else targets & scope):
                in_scope += 1
            else:
                reasons.append(f"citation {cite} is not in scope for {sorted(targets)}")
            if grounded and chunk_texts is not None and cite in chunk_texts:
                if grounded(step.get("text") or "", chunk_texts[cite]):
                    steps_grounded += 1
                else:
                    reasons.append(f"a value in step citing {cite} is not found in that chunk")
    counts = dict(citations=citations, citations_in_scope=in_scope, steps=steps, steps_grounded=steps_grounded)
    return counts, reasons


def _category(outcome, obj, answers, everything, expect, all_in_scope, reasons) -> tuple[Category, bool, list[str]]:
    """The cell's category, whether it is what the question expects, and the reasons with this step's added."""
    acceptable = expect.acceptable()
    if outcome == "refuse":
        return "refused", "refuse" in acceptable, reasons
    if outcome == "ask":
        offered = {choice.get("generation") for choice in obj.get("choices") or []}
        if "ask" in acceptable and offered == set(expect.choices):
            return "asked", True, reasons
        if "ask" in acceptable:
            return "wrong_other", False, reasons + [f"asked with choices {sorted(offered)}, expected {sorted(expect.choices)}"]
        return "asked", False, reasons
    if outcome != "answer":
        return "wrong_other", False, reasons + [f"unknown outcome {outcome!r}"]
    return _answer_category(answers, everything, expect, acceptable, all_in_scope, reasons)


def _answer_category(answers, everything, expect, acceptable, all_in_scope, reasons) -> tuple[Category, bool, list[str]]:
    """An answer: wrong generation first, then an answer where a choice was needed, then missing values."""
    other = _other_generation_reasons(answers, everything, expect)
    reasons = reasons + other
    wrong_generation = bool(other) or not all_in_scope
    if "answer" not in acceptable:
        # Answering a question that needed a choice presents one generation's value as *the* answer.
        chosen = [
            f"answered with {profile}'s value where the reader had to choose"
            for profile, required in expect.values.items()
            if any(mentions_any(everything, item) for item in required)
        ]
        reasons = reasons + chosen
        wrong_generation = wrong_generation or bool(chosen)
        if not wrong_generation:
            return "wrong_other", False, reasons + [f"answered where {acceptable} was expected"]
        return "wrong_generation", False, reasons
    if wrong_generation:
        return "wrong_generation", False, reasons
    reasons = reasons + _missing_values(answers, everything, expect)
    if reasons:
        return "wrong_other", False, reasons
    return "right", True, reasons


def _other_generation_reasons(answers, everything, expect) -> list[str]:
    """A forbidden value mentioned, or an answer for a generation the question did not ask about."""
    reasons = [
        f"contains {value!r}, which belongs to another generation"
        for value in expect.forbidden
        if tokens.mentions(everything, value)
    ]
    if expect.scope:
        for answer in answers:
            for generation in answered_for(answer):
                if generation not in expect.scope:
                    reasons.append(f"answered for {generation}, which the question did not ask about")
    return reasons


def answered_for(answer: Mapping[str, Any]) -> list[str]:
    """The generations one answer is shown for: `generations` (one answer for builds that agree,
    valid.answer.fold), else its `generation`, else none (the unfiltered baseline)."""
    if answer.get("generations"):
        return list(answer["generations"])
    return [answer["generation"]] if answer.get("generation") else []


def _missing_values(answers, everything, expect) -> list[str]:
    """Each expected generation's required values its own answer does not mention (all answers, when none names one)."""
    reasons = []
    for profile, required in expect.values.items():
        own = [a for a in answers if profile in answered_for(a)]
        text = "\n".join(_answer_texts(a) for a in own) if own else (everything if not any(a.get("generation") for a in answers) else "")
        if not own and any(a.get("generation") for a in answers):
            reasons.append(f"no answer for {profile}")
            continue
        for item in required:
            if not mentions_any(text, item):
                reasons.append(f"{profile}: missing {item!r}")
    return reasons


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
