"""Whether the builds agree: the answers a reader of each build would be told say the same thing.

Agreement is about what the reader is told, not about where it is stored: doc sets that keep one
copy of a topic per version (no conref, no shared chunk) agree wherever the copies say the same
words. So two answers agree when their answer line and their steps (the units they quote, in
order) are the same text once spacing and case are set aside, whatever chunks they cite; each
answer keeps its own citations, checked in its own build's scope. Where the chunks every one of
the builds keeps are known, what a reader is told is the answer line and the answering unit: a
further unit one build's selection quoted from such a chunk is text each of them could be told,
while one from a chunk only some keep is content the writers profiled because it differs, and any
value the answers do not all state is a difference wherever it stands. For a question answered by one
line (a count, a value, names: `by_line`), what the reader is told is that line: answers whose line
is the same agree even where the unit around it says more in one build (each build still shows its
own unit), as long as no value differs: every build's units state the same values (the value
grammar the checks use, valid.tokens), so a line that agrees beside steps that set another build's
version is not agreement. Nor is a line that agrees beside units that differ in a sentence about
what is asked (`asked_terms`): "by default, the following values are available:" listing one more
format in one build tells that build's reader something the others are not told, whatever the line.

A build's own name is not a difference either: doc sets that resolve a key to the product's name in
each build ("To install Oxygen XML Editor ..." beside "To install Oxygen XML Author ...") tell every
reader the same thing about their own build. So each answer's own names (its build's labels, from the
export's header) are set aside before comparing; another build's name, or a value, still differs.
Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from valid.answer.models import GenerationAnswer
from valid.answer.text import terms
from valid.tokens import scan

_LIST_ITEM = re.compile(r"\s*(?:[-*\u2022]|\d+[.)])\s")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def what_is_said(answer: GenerationAnswer, own_names: Sequence[str] = ()) -> tuple[str, ...]:
    """The answer line and each quoted unit, normalised, with the build's own names set aside: what
    a reader of its build reads."""
    return tuple(_normal(_without(text, own_names)) for text in (answer.answer, *(s.text for s in answer.steps)))


def agree(
    answers: Sequence[GenerationAnswer],
    by_line: bool = False,
    names: Mapping[str, Sequence[str]] | None = None,
    asked_terms: frozenset[str] = frozenset(),
    kept_by_all: Collection[str] | None = None,
) -> bool:
    """Two or more answers that all say the same thing (one answer agrees with nothing). `names`: each
    build's own names (labels), set aside in its own answer; `asked_terms`: the question's terms
    (valid.answer.text.terms), which a sentence two answers' units differ in must not share.
    `kept_by_all`: the chunks every one of these builds keeps; given, answers agree whose answer line,
    answering unit and values are the same and whose other units differ only where they quote such a
    chunk (`_differ_in_own_content`); not given, every unit must be the same."""
    names = names or {}
    said = set()
    for a in answers:
        told = what_is_said(a, names.get(a.generation, ()))
        if by_line:
            said.add((told[:1], _values(a)))  # the line
        elif kept_by_all is not None:
            said.add((told[:2], _values(a)))  # the line and the answering unit
        else:
            said.add(told)
    if len(answers) < 2 or len(said) != 1:
        return False
    if by_line:
        return not _differ_about(answers, names, asked_terms)
    return kept_by_all is None or not _differ_in_own_content(answers, names, kept_by_all)


def _differ_in_own_content(
    answers: Sequence[GenerationAnswer], names: Mapping[str, Sequence[str]], kept_by_all: Collection[str]
) -> bool:
    """Whether a unit one answer quotes and another does not comes from a chunk some of these builds
    do not keep. Such a chunk is content the writers profiled because it differs by build (a
    platform's command row), so the readers are told different things; a unit from a chunk every
    build keeps is text each of them could be told, quoted for one only because the selection read
    a little further there."""
    # what_is_said: the answer line, then each unit as its reader reads it (own names set aside).
    quoted = [dict(zip(what_is_said(a, names.get(a.generation, ()))[1:], (s.cite for s in a.steps))) for a in answers]
    everywhere = set.intersection(*(set(q) for q in quoted))
    return any(cite not in kept_by_all for q in quoted for text, cite in q.items() if text not in everywhere)


def _differ_about(answers: Sequence[GenerationAnswer], names: Mapping[str, Sequence[str]], asked: frozenset[str]) -> bool:
    """Whether the answers' units differ in a sentence about the question: one that shares a question
    term. A list is read with its lead-in: where the same lead-in leads into different items, the
    list differs about the question when the lead-in restates it (half the question's terms: "by
    default, the following values are available:" for "which values are available by default") or
    when an item that differs shares a question term; an item the others lack beside a lead-in that
    only touches the question ("compatible Java distributions are available from:" for "which Java
    version") is context, not a different answer."""
    told = [
        {_lines(b, names.get(a.generation, ())): b for s in a.steps for b in _blocks(s.text)}
        for a in answers
    ]
    common = set.intersection(*(set(t) for t in told))
    for t in told:
        for (lead, *items), block in t.items():
            if (lead, *items) in common:
                continue
            versions = [[k[1:] for k in u if k[0] == lead] for u in told]
            if not items or not all(versions):
                # A sentence, or a list some answer has no version of: any question term.
                if terms(block) & asked:
                    return True
                continue
            everywhere = set.intersection(*(set(i) for v in versions for i in v))
            differing = {i for v in versions for k in v for i in k} - everywhere
            if len(terms(lead) & asked) * 2 >= len(asked) or any(terms(i) & asked for i in differing):
                return True
    return False


def _lines(block: str, names: Sequence[str]) -> tuple[str, ...]:
    """A block as comparable lines: its lead sentence, then each list item (valid.answer.agree._normal)."""
    return tuple(_normal(_without(line, names)) for line in block.split("\n") if line.strip())


def _blocks(text: str) -> list[str]:
    """A unit's sentences, each list item kept with the sentence that leads into it."""
    lines: list[str] = []
    for line in text.splitlines():
        if lines and _LIST_ITEM.match(line):
            lines[-1] += "\n" + line
        elif line.strip():
            lines.append(line)
    return [s for line in lines for s in _SENTENCE_END.split(line) if s.strip()]


def _values(answer: GenerationAnswer) -> frozenset[str]:
    """Every value the answer states, line and units, in canonical form."""
    return frozenset(t.value.casefold() for text in (answer.answer, *(s.text for s in answer.steps)) for t in scan(text))


def _without(text: str, names: Sequence[str]) -> str:
    """`text` with each of `names` (longest first, as whole words) replaced by one placeholder."""
    for name in sorted({n for n in names if n.strip()}, key=len, reverse=True):
        text = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", "\x00", text, flags=re.IGNORECASE)
    return text


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()
