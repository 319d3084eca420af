"""Which questions are about the versions themselves, and which kind: one declared table of cues.

Each row is (kind, pattern). The first row whose pattern the question matches gives the kind; the
flow then checks what the kind needs (valid.answer.versions_flow): a catalog question (list,
count, latest, oldest, exists) asks about nothing but the versions, a "what changed in" question
names exactly one version, a since / until / same question has a subject left once its cue and
the versions' names are taken out. The words come from how readers ask about releases in
general, never from one doc set's questions (valid.answer.cues declares them with examples that
must and must not match; tests/test_versions_cues.py and tests/test_question_cues.py run them).
"""

from __future__ import annotations

import re
from valid.answer import cues
from valid.answer.cues import VersionsKind


# (kind, pattern), tried in order: the more specific cues first. Declared, with examples, in the one
# table of question cues (valid.answer.cues.VERSIONS).
CUES: tuple[tuple[VersionsKind, str], ...] = tuple((kind, c.pattern.pattern) for kind, c in cues.VERSIONS)
CATALOG_KINDS = frozenset({"list", "count", "latest", "oldest", "exists"})
# Words that only say what is asked about the versions, never what it is asked about.
FILLER = cues.VERSIONS_FILLER.words


def versions_kind(question: str) -> VersionsKind | None:
    """The kind of versions question the first matching cue says, or None."""
    for kind, cue in cues.VERSIONS:
        if cue.search(question):
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
