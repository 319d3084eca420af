"""Answerability: does the in-scope content contain what the question is about?

Similarity floors cannot tell: in a doc set where every chunk is on one subject, every question is
similar to something. What can tell is the question's own terms, looked up in the content of the
asked generation only (the lookups run through the release handle with that one profile, like
every search):

1. Every **anchor** (a code span, flag, quoted string or code-form name; see question.py) must occur
   in some in-scope chunk. One that does not is *missing*: "partial-resize" is not in the v6e content.
2. A **content word** that occurs in no in-scope chunk but names a topic of another generation's
   content (it is in the title of one of its chunks) is missing too: the question is about
   something the other generation has and this one does not (a command removed in this version, a
   procedure that exists only on another generation). A word that another generation only mentions
   in passing ("memory" in a sentence about NUMA nodes) is not decisive, nor is a word no
   generation has (readers paraphrase): those are left to the relevance floor. An abbreviation the
   question writes in capitals ("NUMA") is the exception: it names one technical thing, so another
   generation's content writing it anywhere is enough.
3. Two **words side by side** ("large file", "file viewer") that no in-scope chunk writes together,
   while another generation's content has them together in a title: each word alone is common, the
   thing they name together is a topic of another generation only ("the Large File Viewer" asked of
   an edition that has no such viewer). The same test as for a word, on the pair.

A missing term means a refusal that names it; where other generations' content has it, the refusal
says which generations (their names only, never their text). An anchor that is in scope but not in
the fused top chunks brings its best chunk into the evidence, so the answer can use it.
"""

from __future__ import annotations

import re
from os.path import commonprefix
from dataclasses import dataclass, field
from typing import Sequence

from valid.answer.abbreviations import Abbreviations
from valid.answer.models import EvidenceChunk
from valid.answer.question import Anchor, anchor_in, defining_row
from valid.answer.retrieve import chunks_by_id, evidence_chunk
from valid.answer.text import STOPWORDS, stem, terms

ANCHOR_DEPTH = 10  # BM25 hits checked for an anchor's exact form
MIN_WORD = 3  # shorter content words are not looked up


@dataclass
class Answerability:
    missing: list[str] = field(default_factory=list)  # terms the question is about that this scope lacks
    elsewhere: dict[str, list[str]] = field(default_factory=dict)  # missing term → profiles whose content has it
    extra: list[EvidenceChunk] = field(default_factory=list)  # in-scope chunks holding anchors the top lacked
    gone: dict[str, str] = field(default_factory=dict)  # missing anchor → the in-scope line saying it was removed

    @property
    def answerable(self) -> bool:
        return not self.missing


def assess(
    release,
    profile: str,
    profiles: Sequence[str],
    anchors: Sequence[Anchor],
    words: Sequence[str],
    evidence: Sequence[EvidenceChunk],
    abbreviations: Abbreviations = Abbreviations(),
    names: Sequence[str] = (),
    abbreviated: Sequence[str] = (),
    peers: Sequence[str] | None = None,
    alternatives: Sequence[frozenset[str]] = (),
    phrases: Sequence[tuple[str, str]] = (),
) -> Answerability:
    """What of the question's anchors and content words the content in scope for `profile` lacks.
    `peers` are the other versions of the same product (default: `profiles`): a content word is
    decided by them only, since another product's topics say nothing of what this one lacks."""
    result = Answerability()
    seen = "\n".join(f"{c.title}\n{c.text}" for c in evidence)
    # A word of "high-bandwidth memory" is there when the content writes "HBM" (abbreviations.py).
    have = abbreviations.close_over(terms(seen))
    for anchor in anchors:
        found = _in_scope(release, anchor, profile)  # one search serves both lookups below
        removal = _removal(anchor, [*evidence, *found])
        if removal is not None:
            result.missing.append(anchor.text)
            result.gone[anchor.text] = removal
            continue
        if anchor.kind == "flag" and not _defines(anchor, evidence):
            # A flag's definition (the reference row or item that starts with it: "--parallel N |
            # 8 | …") says its default and range; tips and examples that use it do not.
            definition = next((c for c in found if _defines(anchor, [c])), None)
            if definition is not None and all(definition.id != c.id for c in [*evidence, *result.extra]):
                result.extra.append(definition)
        if anchor_in(anchor, seen):
            continue
        chunk = next((c for c in found if anchor_in(anchor, f"{c.title}\n{c.text}")), None)
        if chunk is None:
            result.missing.append(anchor.text)
        elif all(chunk.id != c.id for c in [*evidence, *result.extra]):
            result.extra.append(chunk)
    for name in names:
        # A name the question asks about ("Which Python versions…") that no in-scope content has:
        # whatever the evidence says, it is not about that.
        if stem(name.lower()) not in have and not _has_word(release, name.lower(), profile):
            result.missing.append(name)
    for word in words:
        if len(word) < MIN_WORD or word in STOPWORDS or stem(word) in have or _has_word(release, word, profile):
            continue
        siblings = [p for p in (profiles if peers is None else peers) if p != profile]
        others = _titling(release, word, siblings)
        if not others and word in abbreviated:
            # An abbreviation names one technical thing: another generation's content writing it
            # at all (not only in a title) says this one lacks the thing ("NUMA nodes" on v5p).
            others = _mentioning(release, word, siblings)
        if others:
            named = word.upper() if word in abbreviated else word  # as the question writes it
            result.missing.append(named)
            result.elsewhere[named] = others
    for pair in phrases:
        prefixes = _prefixes(pair)
        if not all(prefixes) or _together(prefixes, seen) or release.search_phrase(prefixes, [profile], 1):
            continue
        # Any other build, not only this product's versions: two words that name a topic together
        # are specific enough that another product's topic on it says this one has none.
        others = _titling_phrase(release, prefixes, [p for p in profiles if p != profile])
        if others:
            named = " ".join(pair)
            result.missing.append(named)
            result.elsewhere[named] = others
    checked = [*(a.text for a in anchors), *names, *words]
    result.missing = _without_alternatives_had(result.missing, checked, alternatives)
    for term in result.missing:
        if term not in result.elsewhere:
            anchor = next((a for a in anchors if a.text == term), None)
            if anchor is None:
                continue  # a name: where else it occurs is not looked up
            others = _holding(release, anchor, [p for p in profiles if p != profile])
            if others:
                result.elsewhere[term] = others
    return result


def _without_alternatives_had(missing: list[str], checked: Sequence[str], groups) -> list[str]:
    """The missing terms, less those the question offered as alternatives to a term the content has
    ("--accelerator-type or --machine-type": a generation with either has what is asked about)."""
    def key(term: str) -> str:
        return stem(term.lower())

    lacking = {key(t) for t in missing}
    had = {key(t) for t in checked} - lacking
    groups = [{key(t) for t in group} for group in groups]
    return [t for t in missing if not any(key(t) in group and group & had for group in groups)]


# A line that says the thing it names is gone from this release: "Removed: corvane mirror.", "X was
# removed", "X is no longer supported". Not a future removal ("will be removed in the next major
# release", "to be removed"): that thing is still there.
_GONE = re.compile(
    r"(?:^[\s*•-]*|[.;:]\s*)removed\b|\b(?:was|were|is|are|has\s+been|have\s+been)\s+(?:now\s+)?removed\b|"
    r"\bno\s+longer\s+(?:available|supported|exists?|included|shipped|provided)\b|\bdiscontinued\b",
    re.I,
)


def _removal(anchor: Anchor, in_scope: Sequence[EvidenceChunk]) -> str | None:
    """The in-scope line that says the anchor's thing was removed, when no topic in scope is about
    it (no title or breadcrumb names it): then the question asks about something this release no
    longer has, and answering from the lines around the removal notice would mislead."""
    chunks = list({c.id: c for c in in_scope}.values())
    if any(anchor_in(anchor, " / ".join([c.title, *c.breadcrumbs])) for c in chunks):
        return None
    for chunk in chunks:
        for line in chunk.text.split("\n"):
            if anchor_in(anchor, line) and _GONE.search(line):
                return line.strip().removeprefix("- ")
    return None


def _defines(anchor: Anchor, chunks: Sequence[EvidenceChunk]) -> bool:
    """Some chunk has a reference row defining the flag: the flag (and its metavariable) in the first
    cell ("--parallel N | 8 | …"); not a command line that sets it ("  --version=… \\")."""
    return any(defining_row(anchor.text).search(c.text) for c in chunks)



def _in_scope(release, anchor: Anchor, profile: str) -> list[EvidenceChunk]:
    """BM25's candidates for the anchor in scope for `profile`, best first (the anchor's own
    pattern, applied by the caller, confirms them)."""
    hits = release.search_bm25(_anchor_query(anchor), profile, ANCHOR_DEPTH)
    return [evidence_chunk(c) for c in _chunks(release, hits) if c.scope.get(profile, False)]


def _anchor_query(anchor: Anchor) -> str:
    return " ".join(anchor.parts) if anchor.kind == "identifier" else anchor.text


def _has_word(release, word: str, profile: str) -> bool:
    """Some chunk in scope for `profile` has the word (as written or as its stem)."""
    root = stem(word)
    forms = " ".join(dict.fromkeys([word, root, root + "s", root + "es", root + "ed", root + "ing"]))
    return bool(release.search_bm25(forms, profile, 1))


TITLE_DEPTH = 5  # BM25 hits (per generation searched) whose titles are checked for a word


def _titling(release, word: str, others: list[str]) -> list[str]:
    """The generations among `others` with a chunk whose title (or breadcrumbs) has the word: a topic
    of theirs, not a passing mention. One search over their union scope; names only come back."""
    if not others:
        return []
    root = stem(word)
    forms = " ".join(dict.fromkeys([word, root, root + "s", root + "es"]))
    chunks = _chunks(release, release.search_bm25_any(forms, others, TITLE_DEPTH * len(others)))
    titled = [c for c in chunks if root in terms(" ".join([c.title, *c.breadcrumbs[1:]]))]
    return [p for p in others if any(c.scope.get(p) for c in titled)]


def _prefixes(pair: Sequence[str]) -> list[str]:
    """Each word cut to what it shares with its stem ("copy", stem "copi": "cop"), so that a search
    for the pair as prefixes finds every form of it ("copies", "copy")."""
    return [commonprefix([w, stem(w)]) for w in pair]


def _together(prefixes: Sequence[str], text: str) -> bool:
    """Words starting with the two prefixes (_prefixes) next to each other in `text`."""
    first, second = prefixes
    return bool(re.search(rf"(?<!\w){re.escape(first)}\w*[\s-]+{re.escape(second)}", text, re.I))


def _titling_phrase(release, prefixes: Sequence[str], others: list[str]) -> list[str]:
    """The generations among `others` with a chunk whose title (or breadcrumbs) has the pair together."""
    if not others:
        return []
    chunks = _chunks(release, release.search_phrase(prefixes, others, TITLE_DEPTH * len(others)))
    titled = [c for c in chunks if _together(prefixes, " / ".join([c.title, *c.breadcrumbs[1:]]))]
    return [p for p in others if any(c.scope.get(p) for c in titled)]


def _mentioning(release, word: str, others: list[str]) -> list[str]:
    """The generations among `others` with a chunk that writes the word as a whole word."""
    if not others:
        return []
    chunks = _chunks(release, release.search_bm25_any(word, others, TITLE_DEPTH * len(others)))
    pattern = re.compile(rf"(?<![\w-]){re.escape(word)}s?(?![\w-])", re.I)
    holding = [c for c in chunks if pattern.search(f"{c.title}\n{c.text}")]
    return [p for p in others if any(c.scope.get(p) for c in holding)]


def _holding(release, anchor: Anchor, others: list[str]) -> list[str]:
    """The generations among `others` whose content holds the anchor (names only come back)."""
    if not others:
        return []
    chunks = _chunks(release, release.search_bm25_any(_anchor_query(anchor), others, ANCHOR_DEPTH * len(others)))
    holding = [c for c in chunks if anchor_in(anchor, f"{c.title}\n{c.text}")]
    return [p for p in others if any(c.scope.get(p) for c in holding)]


def _chunks(release, hits) -> list:
    """The hits' chunks, in hit order."""
    ids = [getattr(hit, "chunk_id", None) or hit.id for hit in hits]
    found = chunks_by_id(release, ids) if ids else {}
    return [found[i] for i in dict.fromkeys(ids) if i in found]
