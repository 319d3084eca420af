"""resolve_scope: which generations a question is about, from the subject scheme alone.

Deterministic, no model (a model that writes a filter can invent attributes). The vocabulary is the
export header's profiles: each profile's name and its labels (display name first, then the other
names readers use, such as Trillium or Ironwood). Matching ignores case, spacing, punctuation and a
possessive 's, so "TPU7X", "tpu 7x", "TPU-7x" and "Ironwood's" all match. A word that starts with a
profile name followed by "-" or "_" is an accelerator or machine type of that generation (v6e-8,
tpu7x-standard-4t).

Ids and readers' names claim a question differently (valid.answer.names): an id spelt like words
(json, license-server) only in code form or through --generation, never as a bare or near-spelt
word; an id with a digit exactly; the labels as names.

A one-letter slip in a long, purely alphabetic reader's name (Trilium, Ironwod) still matches: such names
(seven letters or more, no digits) are far from any ordinary word and from each other, while names
with digits (v5p, v5e, v6e) differ from one another by one character and so must match exactly.

A generation-like name that the scheme does not know is reported in `unknown`, so the answer
refuses that part instead of borrowing another generation's content. What looks like a generation
is learnt from the scheme's own names (see `NamingPattern`), never from a list of one doc set's
names: with profiles v5p, v6e and tpu7x, "v4", "v5e", "TPU8" and "v3-8" look like generations and
"2x" or "8" do not; with profiles labelled "Acme CLI 2.4.1", "Acme 3.0" does.

Versioned products: each profile's labels are read as product words and a dotted version
("Acme CLI 2.4.1" → {acme, cli}, 2.4.1). "version 2.4.1", "v2.4.1" or "2.4.1" resolves when one
profile (of the products the question names) has that version; a partial version ("Acme 2")
leaves the matching profiles as `candidates`, so VALID asks among them only.

Profiles over several attributes (a product on a platform) without labels of their own are named by
the scheme's names of the values they keep (valid.answer.combined): both values name the profile,
one value leaves the profiles keeping it as `candidates`, a combination no profile keeps is `unknown`.
"""

from __future__ import annotations

import functools
import bisect
import re
from dataclasses import dataclass, field
from typing import Callable, Collection, Iterable, Mapping, Sequence

from valid.contracts import ProfileInfo
from valid.errors import ValidError

from valid.answer.combined import combined_scope
from valid.answer.models import ScopeResolution
from valid.answer.names import ProfileNames, ids_in_code_form, longest_name, profile_names
from valid.answer.text import one_edit_apart
from valid.index.variants import holds, masked

# Characters that end or split a word without belonging to it.
_WORD = re.compile(r"[^\s,;:!?()\[\]{}<>\"“”«»]+")
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
_EDGE_PUNCT = re.compile(r"^[^\w-]+|[^\w]+$")
class UnknownGenerationError(ValidError):
    """An explicit generation (CLI option or HTTP parameter) that the subject scheme does not define."""


@dataclass(frozen=True)
class _Word:
    raw: str  # as written, edge punctuation and possessive removed
    norm: str  # lower case, only letters and digits
    lower: str  # lower case, separators kept (for accelerator types)
    runs_on: bool = False  # follows the word before with only spaces between (no punctuation)


def _normalise(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _words(question: str) -> list[_Word]:
    words = []
    last_end, last_text = None, ""
    for match in _WORD.finditer(question):
        text = match.group(0)
        raw = _POSSESSIVE.sub("", text)
        raw = _EDGE_PUNCT.sub("", raw)
        raw = _POSSESSIVE.sub("", raw)
        if not raw:
            continue
        # A possessive ends a name ("Oxygen XML Editor's SVN preferences"): what follows is the owner's.
        runs_on = (
            last_end is not None and question[last_end : match.start()].isspace()
            and last_text[-1:].isalnum() and not _POSSESSIVE.search(last_text) and text[:1].isalnum()
        )
        words.append(_Word(raw=raw, norm=_normalise(raw), lower=raw.lower(), runs_on=runs_on))
        last_end, last_text = match.end(), text
    return words


class TitlePhrases:
    """The doc set's titles as `_names_a_longer_name` reads them (normalised words between spaces),
    normalised on the first question that needs them: a name running on into capitals is rare, and
    a large guide's titles take a tenth of a second to normalise, which opening an engine must not pay."""

    def __init__(self, titles: Iterable[str] = ()):
        self._titles = tuple(titles)

    @functools.cached_property
    def _phrases(self) -> tuple[str, ...]:
        return tuple(sorted({" " + " ".join(w.norm for w in _words(t)) + " " for t in self._titles}))

    def written(self, words: Sequence[_Word]) -> bool:
        """Whether one of the titles writes these words, in this order, as whole words."""
        phrase = " " + " ".join(w.norm for w in words) + " "
        return any(phrase in title for title in self._phrases)


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


def _fuzzy_profile(word: _Word, names: ProfileNames) -> str | None:
    """A one-letter slip in a reader's name (never in an id: ids match as ids, valid.answer.names)."""
    if len(word.norm) < _FUZZY_MIN or not word.norm.isalpha():
        return None
    hits = {
        profile
        for key, profile in names.fuzzy.items()
        if len(key) >= _FUZZY_MIN and key.isalpha() and one_edit_apart(word.norm, key)
    }
    return hits.pop() if len(hits) == 1 else None


def _accelerator_profile(word: _Word, profiles: Sequence[ProfileInfo], names: ProfileNames) -> str | None:
    for profile in profiles:
        name = profile.name.lower()
        if profile.name not in names.codes.values():
            continue  # an id spelt like words starts ordinary compounds (feedback-form)
        if len(word.lower) > len(name) + 1 and word.lower.startswith(name) and word.lower[len(name)] in "-_":
            return profile.name
    return None


@dataclass
class _Named:
    """What resolve_scope has found so far: the profiles, the words that named them, in order."""

    found: set[str] = field(default_factory=set)
    matched: list[str] = field(default_factory=list)
    words_of: dict[str, list[str]] = field(default_factory=dict)
    spans: list[tuple[str, int, int]] = field(default_factory=list)  # (profile, first word, end) per name read

    def add(self, profile: str, text: str) -> None:
        # Each spelling once: a question that repeats a name a thousand times names it once, and every
        # later reader of these words (search text, names in the answer) runs once per spelling.
        self.found.add(profile)
        if text not in self.matched:
            self.matched.append(text)
        words = self.words_of.setdefault(profile, [])
        if text not in words:
            words.append(text)


def resolve_scope(
    question: str, profiles: Sequence[ProfileInfo], generation: str | Iterable[str] | None = None,
    titles: TitlePhrases = TitlePhrases(),
    usage: NameWordUse | None = None,
) -> ScopeResolution:
    """The profiles a question names (plus any explicit generation), and the words that matched.

    `generation` is a reader's explicit choice (CLI `--generation`, HTTP parameter); it is validated
    against the profiles and added to what the question names. `titles`: the doc set's titles, so
    that a build's name inside a longer name the docs title a topic with does not name the build;
    `usage`: how the doc set writes the words of the builds' labels, so that a label's ordinary word
    ("editor", "PDF") said alone does not name the builds whose labels hold it (`NameWordUse`).
    """
    order = {p.name: i for i, p in enumerate(profiles)}
    names = profile_names(profiles)
    words = _words(question)
    named = _Named()
    used = _names_and_labels(words, profiles, names, named, titles)
    named.found -= _inside_a_named_name(words, named.spans, {p.name: p.labels for p in profiles})
    named.found -= _named_after_the_label(question, named.spans)
    for profile, text in ids_in_code_form(question, names):
        named.add(profile, text)
    naming = naming_pattern(profiles)
    unknown = naming.unknown_names(words, used)
    version_candidates, unknown_versions = _versions(words, used, profiles, naming, named, usage)
    unknown += unknown_versions
    if generation is not None:
        for name in [generation] if isinstance(generation, str) else list(generation):
            named.found.add(validate_generation(name, profiles))

    # Profiles over several attributes, named by the values they keep (valid.answer.combined), when
    # no profile's own name or label is in the question.
    combined = None if named.found else combined_scope(question, words, profiles)
    if combined is not None:
        named.found.update(combined.profiles)
        named.matched += [m for m in dict.fromkeys(combined.matched) if m not in named.matched]
        unknown += combined.unknown
        # Searched with the question as written: the values' names, not the profile's id, are in its content.
        named.words_of.update({p: [] for p in combined.profiles})
        version_candidates = [] if combined.candidates else version_candidates
    pool = (combined.candidates if combined else []) or version_candidates or naming.products_named(words, usage)
    candidates = [] if named.found else sorted(set(pool), key=order.__getitem__)
    return ScopeResolution(
        profiles=sorted(named.found, key=order.__getitem__),
        matched=named.matched,
        unknown=list(dict.fromkeys(unknown)),  # each unknown name once, however often it is written
        candidates=candidates,
        version_named=bool(candidates) and bool(version_candidates) and _one_per_product(candidates, naming),
        words={p: named.words_of[p] for p in sorted(named.words_of, key=order.__getitem__)},
    )


def _names_and_labels(
    words: list[_Word], profiles: Sequence[ProfileInfo], names, named: _Named, titles: TitlePhrases
) -> list[bool]:
    """The names and labels the words spell (the longest window of whole words first), accelerator
    and machine types, and one-letter slips in long labels; which words were used for them."""
    used = [False] * len(words)
    i = 0
    while i < len(words):
        hit = longest_name(words, i, names.exact, names.longest)
        if hit and _names_a_longer_name(words, i, hit[0], titles):
            used[i : i + hit[0]] = [True] * hit[0]  # the name of a thing the docs document, not a build
            i += hit[0]
            continue
        if hit:
            size, profile = hit
            named.add(profile, " ".join(w.raw for w in words[i : i + size]))
            named.spans.append((profile, i, i + size))
            used[i : i + size] = [True] * size
            shortened = _coordinated(words, i, size, names.exact)
            if shortened:
                at, other = shortened
                named.add(other, words[at].raw)
                used[at] = True
            i += size
            continue
        profile = _accelerator_profile(words[i], profiles, names) or _fuzzy_profile(words[i], names)
        if profile:
            named.add(profile, words[i].raw)
            used[i] = True
        i += 1
    return used


def _names_a_longer_name(words: list[_Word], start: int, size: int, titles: TitlePhrases) -> bool:
    """The name runs on, capitalised word after capitalised word, into a longer proper name one of the
    doc set's titles writes ("the Web Author Test Server add-on", a topic titled "Oxygen XML Web
    Author Test Server Add-on"): the reader names that thing, not the build."""
    end = start + size
    while end < len(words) and words[end].runs_on and words[end].raw[:1].isupper():
        end += 1
    return any(titles.written(words[start:stop]) for stop in range(end, start + size, -1))


_JOINING = frozenset("and or vs versus".split())  # the words that join two names


def _inside_a_named_name(
    words: list[_Word], spans: list[tuple[str, int, int]], labels: Mapping[str, Sequence[str]]
) -> set[str]:
    """The builds named only after another named build whose name (any of its names) holds theirs,
    with no joining word between: "In the Web Author Customization Guide, ... two Web Author
    installations" asks the guide about the product it documents, not the product's own build. A
    name written first, or joined to the other ("Oxygen XML Editor and the Oxygen XML Editor Eclipse
    plugin", "the Web Author Customization Guide and Web Author"), names its build. Linear in the
    question's length: each mention is checked against the nearest earlier mention of each other build."""
    joining = [0]  # joining[i]: the joining words among words[:i]
    for word in words:
        joining.append(joining[-1] + (word.norm in _JOINING))
    by_profile: dict[str, list[tuple[int, int]]] = {}
    for profile, start, end in spans:
        by_profile.setdefault(profile, []).append((start, end))
    names = {p: [_normalise(label) for label in labels.get(p, ())] for p in by_profile}
    inside: dict[str, bool] = {}
    for profile, start, end in spans:
        short = "".join(w.norm for w in words[start:end])
        inside[profile] = inside.get(profile, True) and any(
            _follows_without_joining(by_profile[other], start, joining)
            for other in by_profile
            if other != profile and any(short in name and len(name) > len(short) for name in names[other])
        )
    return {profile for profile, only_inside in inside.items() if only_inside}


LABEL_MAX = 80  # characters: a label is a name or two, not a sentence


def _leading_label(question: str) -> str | None:
    """The words before the question's first colon when they are a label: short, no sentence end
    among them, and a space after the colon (not "C:\\" or "https://")."""
    head, colon, rest = question.partition(":")
    head = head.lstrip()
    if not colon or not rest[:1].isspace() or not 1 <= len(head) <= LABEL_MAX:
        return None
    return None if any(mark in head for mark in ".!?\n") else head


def _named_after_the_label(question: str, spans: list[tuple[str, int, int]]) -> set[str]:
    """The builds named only after a leading label that names builds itself: "Oxygen Publishing
    Engine: we only own a PDF Chemistry license. Can we run the engine with it?" is addressed to the
    label's build; the build named after it is what the question is about (its license, its
    output), not a scope of its own. A label naming no build ("Note: ...") changes nothing, and builds
    named in the label together ("HTML and PDF editions: ...") are all its scope."""
    label = _leading_label(question)
    if label is None:
        return set()
    end = len(_words(label))  # the label's words are the question's first words
    in_label = {profile for profile, start, _ in spans if start < end}
    if not in_label:
        return set()
    return {profile for profile, _, _ in spans} - in_label


def _follows_without_joining(others: list[tuple[int, int]], start: int, joining: list[int]) -> bool:
    """Whether the nearest of `others` (sorted spans) ending before word `start` has no joining word
    between it and that word."""
    at = bisect.bisect_left(others, (start, start))
    return at > 0 and joining[start] == joining[others[at - 1][1]]


def _coordinated(words: list[_Word], start: int, size: int, exact: dict) -> tuple[int, object] | None:
    """A name the reader shortened by joining it to a name of several words whose last words it
    shares: "the HTML and the PDF edition", "HTML and PDF docs". (The position of the word that
    stands for the name, what the name names), when the whole name is one of the doc set's own names
    or labels; else None. Not the other way ("Oxygen XML Editor and Author"): the word after "and" is
    as often the start of a noun phrase of its own ("... and Author mode")."""
    joining = _before_article(words, start)
    if size < 2 or joining < 1 or words[joining].norm not in _JOINING:
        return None
    at = _before_article(words, joining)
    key = words[at].norm + "".join(w.norm for w in words[start + 1 : start + size]) if at >= 0 else ""
    return (at, exact[key]) if key in exact else None


def _before_article(words: list[_Word], position: int) -> int:
    """The position of the word before `position`, past one "the" (-1 at the start)."""
    before = position - 1
    return before - 1 if before >= 0 and words[before].norm == "the" else before


def _versions(words, used, profiles, naming, named: _Named, usage=None) -> tuple[list[str], list[str]]:
    """The versions the question names: one value's version names it; a partial or shared version
    leaves its values as candidates (its word still a name); a version no value has is unknown."""
    candidates: list[str] = []
    unknown: list[str] = []
    versions = _versions_named(words, used, profiles, naming, usage)
    # A version several products share ("2.0.0" of the CLI and of the agent) belongs to the product
    # of the generations the question names without ambiguity ("in 2.0.0, and in 2.3.0").
    named_products = {w for kind, having, _ in versions if len(having) == 1 for w in naming.products.get(having[0], ())}
    for kind, having, word in versions:
        if len(having) > 1 and named_products:
            having = [p for p in having if naming.products.get(p, frozenset()) <= named_products] or having
        if len(having) == 1:
            # One value has that version, or is the only one under a partial version ("2.3" → 2.3.0).
            named.add(having[0], word)
        elif having:
            candidates += [p for p in having if p not in candidates]
            if word not in named.matched:
                named.matched.append(word)  # it narrowed the scope: a name, never what is asked about
        else:
            unknown.append(word)
    return candidates, unknown


def _one_per_product(candidates: list[str], naming) -> bool:
    """The version named is exact, and only the product is unsaid ("2.0.0" of the CLI and of the
    agent); not a partial version of one product ("agent 2": 2.0.0 and 2.1.0), whose values differ
    by more than which product's content happens to answer."""
    products = [naming.products.get(p, frozenset()) for p in candidates]
    return len(set(products)) == len(products)

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


# -- the scheme's naming pattern ------------------------------------------------------------------

_SHAPE = re.compile(r"^([a-z]*)(\d+)([a-z]*)$")
_DOTTED = re.compile(r"^v?(\d+(?:\.\d+)+)$")
_WILDCARD = re.compile(r"^v?(\d+(?:\.\d+)*)(?:\.[x*])+$")
_VERSION_WORD = re.compile(r"^(?:v|version|release|rel)$")
# Words a label may hold that say nothing about which product it is.
_GENERIC = frozenset("version release edition reference guide docs documentation the and for of".split())


@dataclass(frozen=True)
class NamingPattern:
    """How this scheme names its generations, learnt from the profiles' names and labels.

    prefixes: the letters before the number in names such as v5p, tpu7x (→ v, tpu), with the longest
    digit run and letter suffix seen; product words: digit-free label words shared by two or more
    profiles (TPU, Cloud; Acme, CLI), which introduce a generation name ("TPU v4")."""

    prefixes: frozenset[str]
    max_digits: int
    max_suffix: int
    product_words: frozenset[str]
    products: dict  # profile → its product words

    def looks_like_generation(self, norm: str) -> bool:
        base, *rest = re.split(r"[-_]", norm)
        # "v4-8" is a slice of a generation; "v2-alpha" (a software version's prefix) names no
        # generation: a name followed by words is some other identifier.
        if any(not part.isdigit() for part in rest):
            return False
        shape = _SHAPE.match(base)
        if not shape or not shape.group(1) or shape.group(1) not in self.prefixes:
            return False
        return len(shape.group(2)) <= self.max_digits + 1 and len(shape.group(3)) <= self.max_suffix

    def unknown_names(self, words: list[_Word], used: list[bool]) -> list[str]:
        unknown: list[str] = []
        for i, word in enumerate(words):
            if used[i] or not self.looks_like_generation(word.lower):
                continue
            before = words[i - 1] if i and not used[i - 1] else None
            if before is not None and before.norm in self.product_words:
                unknown.append(f"{before.raw} {word.raw}")  # "TPU v4"
            else:
                unknown.append(word.raw)
        return unknown

    def products_named(self, words: list[_Word], usage: NameWordUse | None = None) -> list[str]:
        """Profiles of the products the question names, when it names some but not all products;
        with `usage`, only by the words the doc set writes as their names."""
        # A program named after its product ("corvane-agent") names the product too.
        said = {part for w in words for part in [w.norm, *map(_normalise, re.split(r"[-_]", w.lower))]}
        distinctive = {w for ws in self.products.values() for w in ws} - _common(self.products.values())
        named = said & distinctive
        if usage is not None:
            named = {w for w in named if usage.names(w, {p for p, ws in self.products.items() if w in ws})}
        if not named:
            return []
        # The products that hold the most of the words named: "Oxygen Feedback" names the two Feedback
        # products, not every product whose name says Oxygen; products named apart ("Author or
        # Feedback") hold as many each, and all are kept.
        held = {p: len(ws & named) for p, ws in self.products.items()}
        most = max(held.values())
        return [p for p, n in held.items() if n == most]


NAME_WORD_SHARE = 0.5


class NameWordUse:
    """Whether the doc set writes a word of the builds' labels as their name or as an ordinary word.

    A label's words are not all names: the Oxygen guide labels builds "Oxygen XML Editor" and "Oxygen
    PDF Chemistry", and writes "the text editor" and "the PDF output" in content every edition keeps,
    so a question saying "editor" or "PDF" names no product by it; "Feedback", "Eclipse", "agent"
    it writes, outside a label, mostly in content only the builds so labelled keep. Measured on the
    release, per word: of the chunks that write it outside every label holding it, the share that no
    build but those holding it keeps. At least `share` (documented in docs/answer.md): a name. A word
    no chunk writes outside a label is a name.

    writing: a word → (title and text, the profiles keeping it) of each chunk whose full-text entry
    holds the word (valid.index.release.Release.chunks_writing); None: every word names. Each word
    is read once, on the first question that says it: the chunks writing a common word of a large
    guide take up to a second to read, which opening an engine must not pay."""

    def __init__(
        self, profiles: Sequence[ProfileInfo],
        writing: Callable[[str], Iterable[tuple[str, Collection[str]]]] | None = None,
        share: float = NAME_WORD_SHARE,
    ):
        self._labels = [label for p in profiles for label in p.labels]
        self._writing = writing
        self.share = share
        self._read: dict[str, bool] = {}

    def names(self, word: str, holders: Collection[str]) -> bool:
        """Whether `word`, said alone, names the builds `holders` (those whose labels hold it)."""
        if self._writing is None:
            return True
        if word not in self._read:
            share = confined_share(word, holders, self._labels, self._writing(word))
            self._read[word] = share is None or share >= self.share
        return self._read[word]


def confined_share(
    word: str, holders: Collection[str], labels: Iterable[str], chunks: Iterable[tuple[str, Collection[str]]]
) -> float | None:
    """Of the chunks that write `word` outside every label holding it, the share kept by none but
    `holders`; None when no chunk does. Words and labels are whole tokens, in any case (the index's
    own masking of names, valid.index.variants.masked)."""
    word = word.lower()
    holding = [label.lower() for label in labels if holds(label.lower(), [word])]
    holders = set(holders)
    outside = kept = 0
    for text, scope in chunks:
        if not holds(masked(text.lower(), holding), [word]):
            continue
        outside += 1
        kept += set(scope) <= holders
    return kept / outside if outside else None


def _common(sets) -> set[str]:
    sets = [set(s) for s in sets]
    return set.intersection(*sets) if sets else set()


def naming_pattern(profiles: Sequence[ProfileInfo]) -> NamingPattern:
    prefixes: set[str] = set()
    digits = suffix = 0
    counts: dict[str, int] = {}
    products: dict[str, frozenset[str]] = {}
    for profile in profiles:
        own: set[str] = set()
        for name in [profile.name, *profile.labels]:
            for raw in re.split(r"[\s()/,]+", name.lower()):
                word = raw.strip("-_.")
                shape = _SHAPE.match(word.replace("-", "").replace("_", "")) if not _DOTTED.match(word) else None
                if shape and shape.group(1):
                    prefixes.add(shape.group(1))
                    digits = max(digits, len(shape.group(2)))
                    suffix = max(suffix, len(shape.group(3)))
                elif word.isalpha() and word not in _GENERIC:
                    own.add(word)
        products[profile.name] = frozenset(own)
        for word in own:
            counts[word] = counts.get(word, 0) + 1
    shared = frozenset(w for w, n in counts.items() if n >= 2)
    return NamingPattern(frozenset(prefixes), digits, suffix, shared, {p: ws & shared for p, ws in products.items()})


def profile_versions(profile: ProfileInfo) -> set[str]:
    """The dotted versions a profile's name and labels carry ("Acme CLI 2.4.1", "v2.4.1" → 2.4.1)."""
    versions = set()
    for name in [profile.name, *profile.labels]:
        for raw in re.split(r"[\s()/,_]+|(?<=[a-z])-(?=v?\d)", name.lower()):
            match = _DOTTED.match(raw.strip("-"))
            if match:
                versions.add(match.group(1))
    return versions


def _versions_named(words, used, profiles, naming, usage=None) -> list[tuple[str, list[str], str]]:
    """Each version the question names, as (kind, profiles, word): "exact" when profiles have that
    version, "partial" when they have versions under it ("Acme 2" → 2.0.0, 2.4.1), "none" when no
    profile has it. Only the products the question names are considered, when it names some."""
    versions = {p.name: profile_versions(p) for p in profiles}
    if not any(versions.values()):
        return []
    named_products = naming.products_named(words, usage)
    pool = [p.name for p in profiles if not named_products or p.name in named_products]
    found = []
    for i, word in enumerate(words):
        if used[i]:
            continue
        dotted = _DOTTED.match(word.lower)
        before = words[i - 1].norm if i else ""
        bare = re.fullmatch(r"v?(\d+)", word.lower)
        wildcard = _WILDCARD.match(word.lower)
        if dotted:
            wanted = dotted.group(1)
        elif wildcard:
            wanted = wildcard.group(1)  # "2.x", "2.3.x": every version under it
        elif bare and (_VERSION_WORD.match(before) or before in naming.product_words or word.lower.startswith("v")):
            wanted = bare.group(1)
        else:
            continue
        exact = [p for p in pool if wanted in versions[p]]
        partial = [p for p in pool if any(v.startswith(wanted + ".") for v in versions[p])]
        if exact:
            found.append(("exact", exact, word.raw))
        else:
            found.append(("partial" if partial else "none", partial, word.raw))
    return found
