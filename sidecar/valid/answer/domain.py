"""Words of a question that a doc set never writes.

A question about something the documentation never mentions in any build (a fax, a bicycle wheel,
a SQL join) still finds chunks: ordinary words it shares with them ("send", "true", "tables") pass
the coverage floor. What tells it apart is a word of the question that no chunk of any build writes,
in any form and not one edit away (so not a typo). Readers paraphrase too ("scramble" for a tool the
documentation calls an obfuscator), so such a word alone decides nothing: the engine refuses only
when the question is also not near any content in meaning, or when the word is a name or an
abbreviation ("EPUB"), which readers seldom paraphrase (valid.answer.decide). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from valid.answer.question import asking_span
from valid.answer.text import stem, terms, with_typos_resolved


def doc_terms(tokens: Iterable[str]) -> frozenset[str]:
    """Every token a doc set's full-text index holds, as written (lower case) and as its terms
    (valid.answer.text.terms): the forms a question's word is looked up in."""
    out: set[str] = set()
    for token in tokens:
        out.add(token.lower())
        out |= terms(token)
    return frozenset(out)


_WORD = re.compile(r"[a-z]+")


def foreign_terms(question: str, known: frozenset[str], names: Iterable[str] = ()) -> frozenset[str]:
    """The plain words of the question proper that `known` (doc_terms) lacks as written, as their
    stem and one edit away (a typo); never a stopword or a word of `names` (the builds' names)."""
    return _foreign_terms(question, known, tuple(names))


@lru_cache(maxsize=256)
def _foreign_terms(question: str, known: frozenset[str], names: tuple[str, ...]) -> frozenset[str]:
    # Remembered: the engine asks it again for every build of one question.
    if not known:
        return frozenset()
    named = {w for n in names for w in _WORD.findall(n.lower())}
    named |= {stem(w) for w in named}
    foreign = set()
    for word in _WORD.findall(question[slice(*asking_span(question))].lower()):
        if len(word) < 3 or not terms(word) or word in named or stem(word) in named:
            continue
        if any(form in known for form in _forms(word)) or _typo_of_known(word, known):
            continue
        foreign.add(word)
    return frozenset(foreign)


_SUFFIXES = ("d", "ed", "s", "es", "ing", "er", "est", "ly")  # "used" is a form of "use", "fastest" of "fast"


def _forms(word: str) -> set[str]:
    """The word, its stem, and the words it may inflect (a suffix off, or off with an "e" put back)."""
    forms = {word, stem(word)}
    for suffix in _SUFFIXES:
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 3:
            forms |= {base, base + "e"}
    return forms


def _typo_of_known(word: str, known: frozenset[str]) -> bool:
    """A known word one edit away (valid.answer.text.with_typos_resolved's rule), looked up among the
    known words of about its length only: a doc set writes tens of thousands."""
    near = [k for n in (len(word) - 1, len(word), len(word) + 1) for k in _by_length(known).get(n, ())]
    return bool(with_typos_resolved({word}, near) - {word})


@lru_cache(maxsize=8)
def _by_length(known: frozenset[str]) -> dict[int, tuple[str, ...]]:
    out: dict[int, list[str]] = {}
    for k in known:
        out.setdefault(len(k), []).append(k)
    return {n: tuple(sorted(ks)) for n, ks in out.items()}
