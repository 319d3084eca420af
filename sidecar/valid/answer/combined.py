"""Profiles over several profiling attributes (a product on a platform), named by their values.

A profile built with a DITAVAL that keeps one value of each of two attributes (@product=relay-server
and @platform=windows) has no reader's name of its own unless valid.toml gives it labels: readers
name it by its values, "Relay Server on Windows". The export header says which scheme values each
profile keeps and the scheme's names for them (`ProfileInfo.keeps`); valid.answer.names says which
words name a value (the scheme's names as names, the value itself as an id).

resolve_scope asks this module only when no profile's own name or label is in the question (those
keep priority). Then, with the values the question names grouped by attribute:

- the profiles named are those for which the question names, on every attribute the profile is
  defined over, a value it keeps ("Relay Server on Windows"; "... on Linux and on Windows" names two);
- else the profiles that keep every value named are candidates, asked among, never chosen for the
  reader ("on Linux": every Linux profile);
- else no profile keeps that combination ("Relay Agent on Windows"): it is unknown, so the answer
  refuses rather than borrow another profile's content.

Pure functions: no I/O, no model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from valid.contracts import ProfileInfo

from valid.answer.names import Value, ValueNames, longest_name, value_names, values_in_code_form

# An unknown combination is quoted from the question when its words are this close together.
_MAX_SPAN_WORDS = 6


class Word(Protocol):
    raw: str  # as written, edge punctuation removed
    norm: str  # lower case, only letters and digits


@dataclass(frozen=True)
class Named:
    value: Value
    text: str  # the question's words that name it


@dataclass(frozen=True)
class CombinedScope:
    profiles: list[str] = field(default_factory=list)  # named on every attribute they are defined over
    candidates: list[str] = field(default_factory=list)  # keep every value named; none is named fully
    unknown: list[str] = field(default_factory=list)  # a combination of values no profile keeps
    matched: list[str] = field(default_factory=list)  # the words that named the profiles or candidates


def combined_scope(question: str, words: Sequence[Word], profiles: Sequence[ProfileInfo]) -> CombinedScope | None:
    """What the values a question names say about profiles defined by the values they keep; None when
    no profile says what it keeps, or the question names no value."""
    keeps = {p.name: p.keeps for p in profiles if p.keeps}
    if not keeps:
        return None
    named = named_values(question, words, value_names(profiles))
    if not named:
        return None
    asked: dict[str, set[str]] = {}
    for each in named:
        asked.setdefault(each.value[0], set()).add(each.value[1])
    full = [name for name, kept in keeps.items() if names_fully(kept, asked)]
    if full:
        return CombinedScope(profiles=full, matched=[each.text for each in named])
    partial = [name for name, kept in keeps.items() if keeps_all_named(kept, asked)]
    if partial:
        return CombinedScope(candidates=partial, matched=[each.text for each in named])
    return CombinedScope(unknown=[_quoted(question, [each.text for each in named])])


def names_fully(kept: Mapping[str, Mapping[str, list[str]]], asked: Mapping[str, set[str]]) -> bool:
    """The question names a kept value on every attribute the profile is defined over."""
    return all(asked.get(attribute, set()) & set(values) for attribute, values in kept.items()) and keeps_all_named(
        kept, asked
    )


def keeps_all_named(kept: Mapping[str, Mapping[str, list[str]]], asked: Mapping[str, set[str]]) -> bool:
    """On every attribute the question names values of, the profile keeps one of them (an attribute
    the profile does not narrow keeps them all)."""
    return all(values & set(kept[attribute]) for attribute, values in asked.items() if attribute in kept)


def named_values(question: str, words: Sequence[Word], names: ValueNames) -> list[Named]:
    """The values the question names, in question order: the longest run of whole words that spells
    a value's name, then the ids spelt like words that the question writes in code form."""
    found: list[Named] = []
    i = 0
    while i < len(words):
        hit = longest_name(words, i, names.exact, names.longest)
        if hit is None:
            i += 1
            continue
        size, value = hit
        found.append(Named(value, " ".join(w.raw for w in words[i : i + size])))
        i += size
    coded = [Named(value, text) for value, text in values_in_code_form(question, names)]
    return found + [each for each in coded if each not in found]  # `relay-server` also spells "Relay Server"


def _quoted(question: str, texts: list[str]) -> str:
    """The named combination as the question writes it ("Relay Agent on Windows") when its words are
    close together, else the names joined."""
    start = question.find(texts[0])
    end = question.rfind(texts[-1])
    if 0 <= start <= end:
        span = question[start : end + len(texts[-1])]
        if len(span.split()) <= _MAX_SPAN_WORDS:
            return span
    return " + ".join(dict.fromkeys(texts))
