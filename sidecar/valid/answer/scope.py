"""resolve_scope: which generations a question is about, from the subject scheme alone.

Deterministic, no model (pitfalls: models writing filters invent attributes). The vocabulary is the
export header's profiles: each profile's name and its labels (display name first, then the other
names readers use, such as Trillium or Ironwood). Matching ignores case, spacing, punctuation and a
possessive 's, so "TPU7X", "tpu 7x", "TPU-7x" and "Ironwood's" all match. A word that starts with a
profile name followed by "-" or "_" is an accelerator or machine type of that generation (v6e-8,
tpu7x-standard-4t).

A one-letter slip in a long, purely alphabetic name (Trilium, Ironwod) still matches: such names
(seven letters or more, no digits) are far from any ordinary word and from each other, while names
with digits (v5p, v5e, v6e) differ from one another by one character and so must match exactly.

A generation-like name that the scheme does not know (TPU v4, v5e, v3-8) is reported in `unknown`,
so the answer refuses instead of borrowing another generation's content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from valid.contracts import ProfileInfo
from valid.errors import ValidError

from valid.answer.models import ScopeResolution
from valid.answer.text import one_edit_apart

# The longest label, in words, we try to match ("Cloud TPU Ironwood" is 3).
_MAX_WINDOW = 5
# Characters that end or split a word without belonging to it.
_WORD = re.compile(r"[^\s,;:!?()\[\]{}<>\"“”«»]+")
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
_EDGE_PUNCT = re.compile(r"^[^\w-]+|[^\w]+$")
# Generation-like shapes (normalised, lower case, no separators unless shown).
_GEN_WORD = re.compile(r"^(?:v\d{1,2}(?:[a-z]|lite|litepod)|tpuv?\d{1,2}[a-z]{0,2})$")
_GEN_BARE_VERSION = re.compile(r"^v?\d{1,2}[a-z]{0,2}$")  # after a word "tpu": "TPU v4", "TPU 8"
_GEN_ACCELERATOR = re.compile(r"^(?:v\d{1,2}[a-z]*|tpu\d{1,2}[a-z]*)[-_]\d+[a-z]*(?:[-_][a-z0-9]+)*$")


class UnknownGenerationError(ValidError):
    """An explicit generation (CLI option or HTTP parameter) that the subject scheme does not define."""


@dataclass(frozen=True)
class _Word:
    raw: str  # as written, edge punctuation and possessive removed
    norm: str  # lower case, only letters and digits
    lower: str  # lower case, separators kept (for accelerator types)


def _normalise(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _words(question: str) -> list[_Word]:
    words = []
    for match in _WORD.finditer(question):
        raw = _POSSESSIVE.sub("", match.group(0))
        raw = _EDGE_PUNCT.sub("", raw)
        raw = _POSSESSIVE.sub("", raw)
        if not raw:
            continue
        words.append(_Word(raw=raw, norm=_normalise(raw), lower=raw.lower()))
    return words


def _vocabulary(profiles: Sequence[ProfileInfo]) -> dict[str, str]:
    """normalised name or label → profile name. A label two profiles share belongs to neither."""
    vocab: dict[str, str] = {}
    ambiguous: set[str] = set()
    for profile in profiles:
        for name in [profile.name, *profile.labels]:
            key = _normalise(name)
            if not key:
                continue
            if key in vocab and vocab[key] != profile.name:
                ambiguous.add(key)
            vocab.setdefault(key, profile.name)
    for key in ambiguous:
        del vocab[key]
    return vocab


_FUZZY_MIN = 7


def _fuzzy_profile(word: _Word, vocab: dict[str, str]) -> str | None:
    if len(word.norm) < _FUZZY_MIN or not word.norm.isalpha():
        return None
    hits = {
        profile
        for key, profile in vocab.items()
        if len(key) >= _FUZZY_MIN and key.isalpha() and one_edit_apart(word.norm, key)
    }
    return hits.pop() if len(hits) == 1 else None


def _accelerator_profile(word: _Word, profiles: Sequence[ProfileInfo]) -> str | None:
    for profile in profiles:
        name = profile.name.lower()
        if len(word.lower) > len(name) + 1 and word.lower.startswith(name) and word.lower[len(name)] in "-_":
            return profile.name
    return None


def resolve_scope(
    question: str, profiles: Sequence[ProfileInfo], generation: str | Iterable[str] | None = None
) -> ScopeResolution:
    """The profiles a question names (plus any explicit generation), and the words that matched.

    `generation` is a reader's explicit choice (CLI `--generation`, HTTP parameter); it is validated
    against the profiles and added to what the question names.
    """
    order = {p.name: i for i, p in enumerate(profiles)}
    vocab = _vocabulary(profiles)
    words = _words(question)
    found: set[str] = set()
    matched: list[str] = []
    words_of: dict[str, list[str]] = {}
    unknown: list[str] = []
    used = [False] * len(words)

    i = 0
    while i < len(words):
        # Longest window of whole words whose letters and digits spell a name or label.
        hit = None
        for size in range(min(_MAX_WINDOW, len(words) - i), 0, -1):
            key = "".join(w.norm for w in words[i : i + size])
            if key in vocab:
                hit = (size, vocab[key])
                break
        if hit:
            size, profile = hit
            found.add(profile)
            matched.append(" ".join(w.raw for w in words[i : i + size]))
            words_of.setdefault(profile, []).append(matched[-1])
            for j in range(i, i + size):
                used[j] = True
            i += size
            continue
        profile = _accelerator_profile(words[i], profiles) or _fuzzy_profile(words[i], vocab)
        if profile:
            found.add(profile)
            matched.append(words[i].raw)
            words_of.setdefault(profile, []).append(words[i].raw)
            used[i] = True
        i += 1

    # Generation-like names nobody matched: "TPU v4", "v5e", "v3-8", "TPU8".
    i = 0
    while i < len(words):
        if used[i]:
            i += 1
            continue
        word = words[i]
        nxt = words[i + 1] if i + 1 < len(words) and not used[i + 1] else None
        if word.norm in ("tpu", "cloudtpu") and nxt and _GEN_BARE_VERSION.match(nxt.norm):
            unknown.append(f"{word.raw} {nxt.raw}")
            i += 2
            continue
        if _GEN_WORD.match(word.norm) or _GEN_ACCELERATOR.match(word.lower):
            unknown.append(word.raw)
        i += 1

    if generation is not None:
        explicit = [generation] if isinstance(generation, str) else list(generation)
        for name in explicit:
            found.add(validate_generation(name, profiles))

    return ScopeResolution(
        profiles=sorted(found, key=order.__getitem__),
        matched=matched,
        unknown=unknown,
        words={p: words_of[p] for p in sorted(words_of, key=order.__getitem__)},
    )


def validate_generation(name: str, profiles: Sequence[ProfileInfo]) -> str:
    """An explicit generation → its profile name (a name or any label, any case); else a one-line error."""
    vocab = _vocabulary(profiles)
    key = _normalise(name)
    if key in vocab:
        return vocab[key]
    valid = ", ".join(f"{p.name} ({p.labels[0]})" if p.labels else p.name for p in profiles)
    raise UnknownGenerationError(f"unknown generation {name!r}; the subject scheme defines: {valid}")


def search_text(question: str, resolution: ScopeResolution, profile: str) -> str:
    """The question as searched inside one profile's scope: the words naming that profile become
    its name, the words naming other profiles are dropped; a profile chosen explicitly rather than
    named in the question gets its name added.

    Embedding models know little about code names (Trillium, Ironwood) and nothing about this
    doc set's machine types, while the doc set writes the generation's name (v6e, TPU7x) in the
    content profiled for it; the other generations' names say nothing inside this scope.
    """
    text = question
    replacements = [
        (word, profile if owner == profile else " ") for owner, words in resolution.words.items() for word in words
    ]
    for word, replacement in sorted(replacements, key=lambda item: len(item[0]), reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(word)}(?:['’]s)?(?![\w-])", replacement, text)
    text = " ".join(text.split())
    if not re.search(r"\w", text):
        text = question
    if profile in resolution.profiles and profile not in resolution.words:
        # Chosen explicitly (--generation): searched as if the question had named it.
        text = f"{text} {profile}"
    return text
