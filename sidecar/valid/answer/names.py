"""Which words may claim a question for a profile: ids as ids, readers' names as names.

A profile has an id (the subject-scheme key or the name of a DITAVAL profile) and labels (the
scheme's navtitle and keywords, or the labels valid.toml gives). They are claimed differently:

- A reader's name (a label that is not the id itself) matches as a name: ignoring case, spacing
  and punctuation, and, when long and purely alphabetic, with a one-letter slip (Trilium).
- An id that carries a digit (v5p, tpu7x, cli-2.4.1) is a code no prose word spells: it matches
  exactly, in any case or spacing, and as the start of a machine or accelerator type (v6e-8).
- An id without a digit (json, feedback, license-server, author-x) is spelt like ordinary words,
  so as a bare word it says nothing: it claims a question only in code form (`json`,
  "license-server") or through an explicit generation (-g), never through a near-spelling.

The scheme's values a profile keeps (the export header's `keeps`) are named the same way:
`value_names` (valid.answer.combined says how they claim a profile).

A label byte-equal to its id is the id (an export gives a DITAVAL profile without labels its id as
its only label, and a scheme value without a navtitle its key): it is matched as an id.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Sequence, TypeVar

from valid.contracts import ProfileInfo

T = TypeVar("T")

# Text a reader marks as code: `json`, "license-server", 'feedback'.
_CODE_FORM = re.compile(r"`([^`\n]+)`|\"([^\"\n]+)\"|“([^”\n]+)”|(?<!\w)'([^'\n]+)'(?!\w)")


def normalise(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def spelt_like_words(profile_id: str) -> bool:
    """An id with no digit could be prose: it claims a question only as an id (code form or -g)."""
    return not re.search(r"\d", profile_id)


@dataclass(frozen=True)
class ProfileNames:
    """The words that claim a question, by normalised form → profile.

    exact: readers' names and ids with a digit, matched on whole words; fuzzy: readers' names only
    (a one-letter slip); codes: ids with a digit, the start of a machine type; word_ids: ids spelt
    like words, matched in code form only."""

    exact: dict[str, str]
    fuzzy: dict[str, str]
    codes: dict[str, str]
    word_ids: dict[str, str]

    @functools.cached_property
    def longest(self) -> int:
        """The longest exact name, in letters and digits (where a run of words stops trying)."""
        return max(map(len, self.exact), default=0)


def _unambiguous(pairs: list[tuple[str, T]]) -> dict[str, T]:
    """normalised → profile (or value); a form two of them share belongs to neither."""
    table: dict[str, T] = {}
    ambiguous: set[str] = set()
    for key, profile in pairs:
        if not key:
            continue
        if key in table and table[key] != profile:
            ambiguous.add(key)
        table.setdefault(key, profile)
    return {key: profile for key, profile in table.items() if key not in ambiguous}


def profile_names(profiles: Sequence[ProfileInfo]) -> ProfileNames:
    readers: list[tuple[str, str]] = []
    codes: list[tuple[str, str]] = []
    word_ids: list[tuple[str, str]] = []
    for profile in profiles:
        if spelt_like_words(profile.name):
            word_ids.append((profile.name.lower(), profile.name))
        else:
            codes.append((normalise(profile.name), profile.name))
        readers += [(normalise(label), profile.name) for label in profile.labels if label != profile.name]
    names = _unambiguous(readers)
    code_ids = _unambiguous(codes)
    exact = _unambiguous(readers + codes)
    return ProfileNames(exact=exact, fuzzy=names, codes=code_ids, word_ids=_unambiguous(word_ids))


def ids_in_code_form(question: str, names: ProfileNames) -> list[tuple[str, str]]:
    """(profile, text) for each id spelt like words that the question writes in code form."""
    found = []
    for match in _CODE_FORM.finditer(question):
        text = next(group for group in match.groups() if group is not None).strip()
        profile = names.word_ids.get(text.lower())
        if profile is not None:
            found.append((profile, text))
    return found


# -- the values a profile keeps (profiles over several attributes) -------------------------------

Value = tuple[str, str]  # (attribute, value), as in the export header's `keeps`


@dataclass(frozen=True)
class ValueNames:
    """The words that name a profiling value, by normalised form → (attribute, value), under the same
    rules as a profile's: the scheme's names of the value (navtitle, keywords) as names, the value
    itself as an id (exactly when it has a digit, in code form only when it is spelt like words).

    exact: names and ids with a digit, matched on whole words; word_ids: ids spelt like words."""

    exact: dict[str, Value]
    word_ids: dict[str, Value]

    @functools.cached_property
    def longest(self) -> int:
        """The longest exact name, in letters and digits (where a run of words stops trying)."""
        return max(map(len, self.exact), default=0)


def value_names(profiles: Sequence[ProfileInfo]) -> ValueNames:
    readers: list[tuple[str, Value]] = []
    ids: list[tuple[str, Value]] = []
    word_ids: list[tuple[str, Value]] = []
    for profile in profiles:
        for attribute, values in profile.keeps.items():
            for value, names in values.items():
                pair = (attribute, value)
                if spelt_like_words(value):
                    word_ids.append((value.lower(), pair))
                else:
                    ids.append((normalise(value), pair))
                readers += [(normalise(name), pair) for name in names if name != value]
    return ValueNames(exact=_unambiguous(readers + ids), word_ids=_unambiguous(word_ids))


def values_in_code_form(question: str, names: ValueNames) -> list[tuple[Value, str]]:
    """((attribute, value), text) for each value id spelt like words that the question writes in code form."""
    found = []
    for match in _CODE_FORM.finditer(question):
        text = next(group for group in match.groups() if group is not None).strip()
        value = names.word_ids.get(text.lower())
        if value is not None:
            found.append((value, text))
    return found


def longest_name(words: Sequence, start: int, exact: dict, longest: int) -> tuple[int, object] | None:
    """The longest run of whole words from `start` whose letters and digits spell a key of `exact`:
    (its length in words, what it names), or None. No window in words: a guide's full title may run
    to six words or more and hold a shorter build's name at its start ("Orbit Server" in "Orbit Server
    Customization and Tuning Guide"); the run stops once it is longer in letters than `longest`, the
    longest key (the names' `longest`)."""
    key, found = "", None
    for end in range(start, len(words)):  # no slice: a copy of the rest per word is quadratic
        key += words[end].norm
        if len(key) > longest:
            break
        if key in exact:
            found = end + 1 - start, exact[key]
    return found
