"""Which questions are about the versions themselves, and which kind: one declared table of cues.

Each row is (kind, pattern). The first row whose pattern the question matches gives the kind; the
flow then checks what the kind needs (valid.answer.versions_flow): a catalog question (list,
count, latest, oldest, exists) asks about nothing but the versions, a "what changed in" question
names exactly one version, a since / until / same question has a subject left once its cue and
the versions' names are taken out. The words come from how readers ask about releases in
general, never from one doc set's questions (tests/test_versions_cues.py holds examples that must
and must not match).
"""

from __future__ import annotations

import re
from typing import Literal

VersionsKind = Literal["list", "count", "latest", "oldest", "exists", "since", "until", "changed", "same"]

# What a doc set's versions are called.
_NOUN = r"(?:versions?|releases?|generations?|editions?|builds?)"
_SOME = r"(?:[\w.'’-]+\s+){0,4}"  # a few words in between ("the Corvane CLI", "of the agent")
_ALL = r"(?:every|all|each|any)"

# (kind, pattern), tried in order: the more specific cues first.
CUES: tuple[tuple[VersionsKind, str], ...] = (
    ("same", rf"\bsame\s+(?:[\w-]+\s+){{0,2}}(?:in|on|for|across|between)\s+{_ALL}\b"),
    ("same", rf"\b(?:in|on|for|across)\s+{_ALL}\s+{_SOME}{_NOUN}\b.*\bsame\b"),
    ("same", rf"\bchang\w*\s+(?:between|across)\s+{_SOME}{_NOUN}\b\s*\?*$"),
    ("since", r"\bsince\s+(?:which|what|when)\b"),
    ("since", rf"\b(?:starting|beginning)\s+(?:with|from|in)\s+(?:which|what)\b"),
    ("since", rf"\bfrom\s+(?:which|what)\s+{_SOME}{_NOUN}\s+on\b"),
    ("since", rf"\b(?:which|what)\s+{_SOME}{_NOUN}\b.*\b(?:added|introduced|brought|first)\b"),
    ("since", r"\bwhen\s+(?:was|were|did|has|have)\b.*\b(?:introduced|added|appear\w*|first)\b"),
    ("until", r"\buntil\s+(?:which|what|when)\b"),
    ("until", r"\bup\s+(?:to|until)\s+(?:which|what)\b"),
    ("until", rf"\b(?:which|what)\s+{_SOME}{_NOUN}\b.*\b(?:removed|dropped|deprecated|retired)\b"),
    ("until", r"\bwhen\s+(?:was|were|did|has|have)\b.*\b(?:removed|dropped|deprecated|retired)\b"),
    ("until", rf"\blast\s+{_NOUN}\s+(?:with|that|to|where)\b"),
    ("changed", r"\bwhat(?:'s|’s|\s+is|\s+was)?\s+(?:changed|new|different)\s+in\b"),
    ("changed", r"\bwhat\s+(?:did|does)\s+.+\s+change\b"),
    ("changed", r"\b(?:changes|release\s+notes|changelog)\s+(?:in|of|for)\b"),
    ("count", rf"\bhow\s+many\s+{_SOME}{_NOUN}\b"),
    ("latest", rf"\b(?:latest|newest|most\s+recent|current|last)\s+{_SOME}{_NOUN}\b"),
    ("oldest", rf"\b(?:oldest|earliest|first)\s+{_SOME}{_NOUN}\b"),
    ("list", rf"\b(?:which|what|list)\s+{_SOME}{_NOUN}\b"),
    ("exists", r"^\s*(?:is|are|does|do|did|was|were|has|have)\b.*\b(?:exists?|documented|covered|cover|there\s+an?|docs?\s+for|documentation\s+for|know\s+about)\b"),
)
_COMPILED = tuple((kind, re.compile(pattern, re.I)) for kind, pattern in CUES)
CATALOG_KINDS = frozenset({"list", "count", "latest", "oldest", "exists"})

# Words that only say what is asked about the versions, never what it is asked about.
FILLER = frozenset(
    """version versions release releases generation generations edition editions build builds which what when
    since until starting beginning first last latest newest oldest earliest recent current most many how
    added introduced brought removed dropped deprecated retired appear appeared appears documented document
    documentation docs doc cover covered covers covering exist exists exists existed available availability
    support supports supported there here these this those know about list same every all each any across
    changed change changes new different between mention mentions mentioned still up to from on in is are
    was were does do did has have can could i you we it be the a an of for with by at use used using need
    needed needs required require requires release notes changelog compared compare before after it its
    previous prior one option options flag flags command commands feature features parameter parameters
    read accepted allowed usable offered included shipped""".split()
)


def versions_kind(question: str) -> VersionsKind | None:
    """The kind of versions question the first matching cue says, or None."""
    for kind, pattern in _COMPILED:
        if pattern.search(question):
            return kind
    return None


def subject_words(question: str, names: list[str]) -> list[str]:
    """What a since / until / same question asks about: its words once the names of the versions
    and products, the cue words and stop words are taken out (subject_runs, joined)."""
    return [word for run in subject_runs(question, names) for word in run]


def subject_runs(question: str, names: list[str]) -> list[list[str]]:
    """The subject's runs of adjacent words ("--keep-within", "corvane prune"), in question order."""
    text = re.sub(r"(?<=\w)['’](?:s|re|ve|ll|d|t)\b", "", question)
    for name in sorted(names, key=len, reverse=True):
        if name:
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", "\x00", text, flags=re.I)
    runs: list[list[str]] = [[]]
    # Words keep what makes them code: "--dry-run", "CORVANE_VAULT", "agent.toml".
    for token in re.findall(r"-{0,2}[A-Za-z0-9][\w.-]*\w|-{0,2}[A-Za-z0-9]|\x00|[^\sA-Za-z0-9]", text):
        word = token.lower()
        if word == "\x00" or not word.lstrip("-")[:1].isalnum() or word in FILLER:
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append(token)
    return [run for run in runs if run]
