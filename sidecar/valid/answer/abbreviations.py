"""Abbreviations the doc set defines itself: "high-bandwidth memory (HBM)", "HBM (high-bandwidth memory)".

Readers ask with one form and writers often use the other in the content that answers: a question
about "high-bandwidth memory" has to find the row "HBM capacity per chip", and the relevance floor
and the answerability check must count the row as covering the question's words. Which
abbreviations mean what is taken from the doc set's own definitions (every chunk, whatever its
scope: a definition says what a term means, not what a generation has; nothing of a chunk's text
reaches an answer through this table), never from a built-in list.

A definition counts only when the short form's letters are, in order, the initials of the long
form's words (hyphenated parts count as words, small function words may be skipped), so "(see
below)" or "(8 chips)" never define anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from valid.answer.text import terms

_SHORT = r"[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*"  # two or more capitals: HBM, VMs, TPUs, gRPC is not one
_WORD = r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*"
_LONG_THEN_SHORT = re.compile(rf"((?:{_WORD}[ \t]+){{0,9}}{_WORD})[ \t]*\((?P<short>{_SHORT})\)")
_SHORT_THEN_LONG = re.compile(rf"\b(?P<short>{_SHORT})[ \t]*\((?P<long>{_WORD}(?:[ \t]+{_WORD}){{1,9}})\)")
_SKIPPABLE = frozenset("a an and for in of on the to".split())
MAX_SHORT = 10


@dataclass(frozen=True)
class Abbreviations:
    """short form (lower case, singular) → the long forms the doc set defines for it."""

    long_forms: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.long_forms)

    def expand(self, text: str) -> str:
        """text with the abbreviation of each long form it spells out appended, for searching: a
        question that says "high-bandwidth memory" also searches for "HBM". Not the other way: once
        defined, the short form is what the content writes, and searching the long form everywhere
        an abbreviation as common as "TPU" occurs would only add noise."""
        lowered = f" {' '.join(_words(text))} "
        found = set(_words(text))
        extra = [
            short.upper()
            for short, longs in self.long_forms.items()
            if short not in found and any(f" {' '.join(_words(long))} " in lowered for long in longs)
        ]
        return f"{text} {' '.join(extra)}" if extra else text

    def close_over(self, found: set[str]) -> set[str]:
        """found (index terms, see text.terms), with each abbreviation's other form added where one
        form is present: content that writes "HBM" covers the question's "high-bandwidth memory"."""
        out = set(found)
        for short, longs in self.long_forms.items():
            for long in longs:
                long_terms = terms(long)
                if short in found:
                    out |= long_terms
                elif long_terms <= found:
                    out.add(short)
        return out


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def defined_in(texts: Iterable[str]) -> Abbreviations:
    """Every abbreviation the texts define, in either order, with its long forms (sorted, so the
    table and everything searched with it are the same on every run)."""
    table: dict[str, set[str]] = {}
    for text in texts:
        for short, long in _definitions(text):
            table.setdefault(_letters(short), set()).add(long)
    return Abbreviations({short: tuple(sorted(longs)) for short, longs in sorted(table.items())})


def _definitions(text: str) -> Iterable[tuple[str, str]]:
    for match in _LONG_THEN_SHORT.finditer(text):
        long = _long_form(match.group(1).split(), _letters(match.group("short")))
        if long:
            yield match.group("short"), long
    for match in _SHORT_THEN_LONG.finditer(text):
        words = match.group("long").split()
        if _long_form(words, _letters(match.group("short"))) == " ".join(words).lower():
            yield match.group("short"), " ".join(words).lower()


def _letters(short: str) -> str:
    """The letters a long form's initials must spell: a plural "s" (VMs, TPUs) is not one of them."""
    letters = short[:-1] if short.endswith("s") and short[:-1].isupper() else short
    return letters.lower() if len(letters) <= MAX_SHORT and letters.isalpha() else ""


def _long_form(words: list[str], letters: str) -> str:
    """The shortest run of trailing words whose initials spell `letters`, lower-cased; else ""."""
    if len(letters) < 2:
        return ""
    for start in range(len(words) - 1, -1, -1):
        run = words[start:]
        if _initials_spell(run, letters):
            return " ".join(run).lower()
    return ""


def _initials_spell(words: list[str], letters: str) -> bool:
    parts = [part.lower() for word in words for part in word.split("-") if part]
    if not parts or parts[0] in _SKIPPABLE or parts[0][0] != letters[0]:
        return False
    initials = [part[0] for part in parts if part not in _SKIPPABLE]
    return "".join(initials) == letters
