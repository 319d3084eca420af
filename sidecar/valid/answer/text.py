"""Words of questions and chunks, shared by the relevance floor and the offline answerer.

Index terms are lower-case word stems without stopwords, plus technical tokens kept whole
(v2-alpha-tpuv6e) next to their parts (v2, alpha, tpuv6e). A question term that no text contains
may stand for a text term one edit away when both are long enough (framworks → framework), so a
typo does not make content look irrelevant.
"""

from __future__ import annotations

import re
from typing import Iterable

STOPWORDS = frozenset(
    """a an and are as at be by can do does for from has have how i im if in into is it its my of on one or
    per so that the their them there these this to use using was we what when where which who why will with
    you your am me should need want run running get got any each many much all before""".split()
)
# Words readers (and writers) clip: "config" says "configuration". English, not any doc set's.
CLIPPED = {
    "config": "configuration", "configs": "configurations", "repo": "repository", "repos": "repositories",
    "env": "environment", "dir": "directory", "dirs": "directories", "auth": "authentication",
    "admin": "administrator", "info": "information", "app": "application", "apps": "applications",
    "spec": "specification", "specs": "specifications", "max": "maximum", "min": "minimum",
    "docs": "documentation", "param": "parameter", "params": "parameters", "arg": "argument",
    "args": "arguments", "perf": "performance", "mem": "memory", "prod": "production", "sec": "second",
    "secs": "seconds", "mins": "minutes", "approx": "approximately", "temp": "temporary",
    "algo": "algorithm", "algos": "algorithms",
}  # fmt: skip
_TOKEN = re.compile(r"[a-z0-9]+(?:[-_.=][a-z0-9]+)*")
_FUZZY_MIN = 5


def stem(word: str) -> str:
    for suffix, repl, min_len in (("ies", "y", 5), ("sses", "ss", 5), ("es", "", 5), ("s", "", 4), ("ing", "", 6), ("ed", "", 5)):
        if word.endswith(suffix) and len(word) >= min_len and not word.endswith("ss"):
            return _no_final_e(word[: len(word) - len(suffix)] + repl)
    return _no_final_e(word)


def _no_final_e(root: str) -> str:
    # "store", "stores", "stored" and "storing" share one stem only without the final e.
    return root[:-1] if len(root) >= 4 and root.endswith("e") and not root.endswith("ee") else root


def _plain(text: str) -> str:
    """Lower case without apostrophes, and without the 's of a contraction or possessive ("what's"
    is "what", a stopword, not a word "whats"; "Trillium's" is "Trillium")."""
    return re.sub(r"['’]", "", re.sub(r"['’]s\b", "", text.lower()))


def terms(text: str) -> set[str]:
    out: set[str] = set()
    for token in _TOKEN.findall(_plain(text)):
        parts = re.split(r"[-_.=]", token)
        if len(parts) > 1:
            out.add(token)
        for part in parts:
            if part and part not in STOPWORDS:
                out.add(stem(part))
                if part in CLIPPED:
                    out.add(stem(CLIPPED[part]))
    return out


def word_weights(text: str, compound_part_weight: float) -> dict[str, float]:
    """How strongly text says each of its terms: 1 for a word on its own, `compound_part_weight`
    (the engine's Tuning) for a word that only occurs inside a compound token (the "vm" of `tpu-vm`
    in a command is weak evidence of "VM")."""
    alone: set[str] = set()
    inside: set[str] = set()
    for token in _TOKEN.findall(_plain(text)):
        parts = re.split(r"[-_.=]", token)
        if len(parts) > 1:
            alone.add(token)
            inside.update(stem(p) for p in parts if p and p not in STOPWORDS)
        elif token not in STOPWORDS:
            alone.add(stem(token))
    return {**{t: compound_part_weight for t in inside}, **{t: 1.0 for t in alone}}


def one_edit_apart(a: str, b: str) -> bool:
    """Optimal string alignment distance ≤ 1: one insertion, deletion, substitution or transposition."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]


def with_typos_resolved(wanted: set[str], vocabulary: Iterable[str]) -> set[str]:
    """wanted, where a term absent from vocabulary also brings the vocabulary terms one edit away."""
    vocabulary = set(vocabulary)
    out = set(wanted)
    for term in wanted:
        if term in vocabulary or len(term) < _FUZZY_MIN or not term.isalpha():
            continue
        out |= {v for v in vocabulary if len(v) >= _FUZZY_MIN and v.isalpha() and one_edit_apart(term, v)}
    return out
