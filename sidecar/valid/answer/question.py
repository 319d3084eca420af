"""What a question asks about: its kind and its anchor terms (pure functions, no I/O).

Two things decide whether an answer is safe to give, and neither is the question's overall
similarity to the chunks (in a doc set where every chunk is on one subject, everything is similar):

- **Anchors**: the terms the question is *about*, in the forms documentation writes exactly:
  code spans, flags, quoted strings, command and API names written in code form (`tpu-vm`,
  `partial-resize`, `Widget.create`, `MAX_RETRIES`, `getUser`), tokens mixing letters and digits
  (error codes, versions). An answer may only be given when the in-scope content contains every
  anchor; a missing anchor is named in the refusal.
- **Kind**: how many / how much → a number; which flag, value or version → a value; how do I →
  steps; is / does / can → yes or no. The answerer picks the unit that fits the kind.

Content words (ordinary words) are not anchors: readers paraphrase them, so they decide ranking
and the relevance floor, not answerability on their own.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Collection, Iterable, Literal

from valid.answer import cues
from valid.answer.text import STOPWORDS, stem, terms, with_typos_resolved

# The longest question VALID reads, in characters: `valid serve`'s default bound
# (valid.serve.limits.Limits.max_question_chars) and `valid ask`'s, both set by [serve] max_question_chars.
MAX_QUESTION_CHARS = 1000

Kind = Literal["count", "value", "names", "procedure", "yesno", "other"]
AnchorKind = Literal["code", "flag", "quoted", "identifier"]


def question_problem(question: str, max_chars: int) -> str | None:
    """Why a question cannot be read (empty, blank, over the bound), or None when it can."""
    if not question.strip():
        return "the question is empty; ask something"
    if len(question) > max_chars:
        return f"the question is {len(question):,} characters; the longest accepted is {max_chars:,} (--max-question-chars)"
    return None


@dataclass(frozen=True)
class Anchor:
    text: str  # as the question writes it
    kind: AnchorKind

    @property
    def parts(self) -> tuple[str, ...]:
        """The words inside the anchor, lower case (`partial-resize` → partial, resize)."""
        return tuple(p for p in re.split(r"[^0-9a-z]+", self.text.lower()) if p)


_CODE = re.compile(r"`([^`\n]+)`")
_QUOTED = re.compile(r"(?<![\w])[\"“]([^\"”\n]{2,80})[\"”]|(?<![\w])'([^'\n]{2,80})'(?![\w])")
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
# A run of word characters joined by '-', '_', '.', '/' or '::' (a code-form name), or a word with
# an inner capital (camelCase) or a letter-digit mix (E1234, v2, 0x1f), or CONSTANT_CASE. Or, first,
# what the reader types as written: a script or file by its path from here or home (./gradlew,
# ../bin/dita, ~/.bashrc), or a Windows variable reference (%ANT_OPTS%): code, found as written.
_RUN = re.compile(
    r"(?P<typed>(?<![\w/.~])(?:\.{1,2}/|~/)[\w.-]+(?:/[\w.-]+)*"
    r"|(?<!\w)%[A-Za-z_]\w*%)"
    r"|[A-Za-z0-9_$]+(?:(?:[-_./]|::)[A-Za-z0-9_$]+)*(?:\(\))?"
)
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")
_HAS_DIGIT = re.compile(r"\d")
_HAS_ALPHA = re.compile(r"[A-Za-z]")
# Words joined by hyphens are prose ("high-bandwidth memory", "a single-host VM") unless the question
# treats them as code: "the partial-resize command", "run corvane-agent convert-config". Such an
# anchor is also satisfied by its words (a one-letter slip allowed) appearing in one chunk.
_PROSE_COMPOUND = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")
_NUMBER_UNIT = re.compile(r"^\d+(?:[.,]\d+)*[a-z]{0,3}$", re.I)  # "2x", "8", "32gb": quantities, not names


def anchors(
    question: str, ignore: Iterable[str] = (), commands: Iterable[str] = (), common: Collection[str] = ()
) -> list[Anchor]:
    """The question's anchors, in question order, without the words that name generations.

    `ignore` holds the words that resolved the scope (a generation's name, a machine type): they
    say which content to search, not what to find in it. `commands` are the doc set's own command
    names (vocabulary.py): written in plain words in the question, they are anchors all the same.
    `common` holds the words most of the doc set's chunks write (vocabulary.py: its product's own
    name, "DITA-OT" in DITA-OT's guide): written in code form they still pick no passage.
    """
    ignored = {w.lower() for name in ignore for w in [name, *name.split()]} | set(common)
    found: list[tuple[int, Anchor]] = []
    # Characters already inside an anchor: a lookup per candidate, not a scan of every earlier one.
    taken = bytearray(len(question) + 1)
    asking = asking_span(question)
    words = _Words(question)

    def add(start: int, end: int, text: str, kind: AnchorKind) -> None:
        text = text.strip().rstrip(".?!,;:")
        if not text or text.lower() in ignored or taken[start] or taken[end - 1]:
            return
        if not asking[0] <= start < asking[1]:
            # A sentence before the question sets the reader's situation ("I'm on an old CentOS
            # server."): the documentation need not mention it for the question to be answerable.
            return
        taken[start:end] = b"\x01" * (end - start)
        found.append((start, Anchor(text, kind)))

    for match in _CODE.finditer(question):
        add(match.start(), match.end(), match.group(1), "code")
    for match in _QUOTED.finditer(question):
        add(match.start(), match.end(), match.group(1) or match.group(2), "quoted")
    for command in sorted(commands, key=len, reverse=True):
        pattern = r"\s+".join(re.escape(word) for word in command.split())
        for match in re.finditer(rf"(?<![\w-]){pattern}(?![\w-])", question, re.I):
            add(match.start(), match.end(), match.group(), "code")
    for start, end, line in _command_lines(question, commands):
        add(start, end, line, "code")
    for match in _FLAG.finditer(question):
        if match.group().startswith("--") or len(match.group()) == 2:  # --zone, -g (not "-word")
            add(match.start(), match.end(), match.group(), "flag")
    for match in _RUN.finditer(question):
        word = match.group()
        if match.group("typed"):
            add(match.start(), match.end(), word, "code")
            continue
        if _LATIN.fullmatch(word.rstrip(".")):
            continue  # "e.g.", "i.e.": the reader's abbreviations, not names of anything
        if _is_code_form(word) and (not _PROSE_COMPOUND.fullmatch(word) or words.code_word_near(match)):
            add(match.start(), match.end(), word, "identifier")
    return [anchor for start, anchor in sorted(found, key=lambda item: item[0]) if not _example(question, start, anchor)]


_EXAMPLE_WINDOW = 40  # characters before an anchor (and its separators) that can hold "for instance"


def _example(question: str, start: int, anchor: Anchor) -> bool:
    # Matched in place (pos/endpos), never on a copy of the text before or after the anchor: a copy
    # per anchor made a long question quadratic.
    end = question.find(anchor.text, start) + len(anchor.text)
    cut = start
    while cut > 0 and question[cut - 1] in " \t\r\n\f\v,:":
        cut -= 1
    before = cues.EXAMPLE_BEFORE.search(question, max(0, cut - _EXAMPLE_WINDOW), cut)
    return bool(before or cues.EXAMPLE_AFTER.pattern.match(question, end))


def _command_lines(question: str, commands: Iterable[str]) -> list[tuple[int, int, str]]:
    """Command lines the doc set does not have, written in plain words: the leading words of one of its
    commands followed by words of the same make ("gcloud compute tpus queued-resources create" where
    the doc set has "gcloud compute tpus tpu-vm create"). They continue while each word is code-form
    (`queued-resources`) or a word of one of its commands (`create`, `list`), after at least two
    leading words: "corvane can", "gcloud to" or "corvane-agent re-read" is never a command."""
    commands = [c.lower().split() for c in commands]
    prefixes = {tuple(c[:n]) for c in commands for n in range(1, len(c))}
    command_words = {w for c in commands for w in c}
    found = []
    words = list(re.finditer(r"[A-Za-z0-9][\w.-]*[\w-]|[A-Za-z0-9]", question))
    lowered = [w.group().lower() for w in words]
    # run[j]: how many words from j on are code-form or command words, so a command line's end is
    # looked up, not scanned again from every start (linear in the question, not quadratic).
    run = [0] * (len(words) + 1)
    for j in range(len(words) - 1, -1, -1):
        run[j] = run[j + 1] + 1 if _is_code_form(words[j].group()) or lowered[j] in command_words else 0
    for i in range(len(words)):
        # The longest leading run of command words; prefixes hold every shorter prefix too, so it
        # grows one word at a time and stops at the longest command (never past the last word but one).
        lead = 0
        while i + lead + 1 < len(words) and tuple(lowered[i : i + lead + 1]) in prefixes:
            lead += 1
        if lead < 2:
            continue
        end = i + lead + run[i + lead]
        if end > i + lead:
            found.append((words[i].start(), words[end - 1].end(), question[words[i].start() : words[end - 1].end()]))
    return found


class _Words:
    """The question's lower-case words with their positions, read once (valid for every anchor)."""

    def __init__(self, question: str):
        self._spans = [(m.start(), m.end(), m.group().lower()) for m in re.finditer(r"[A-Za-z][A-Za-z0-9-]*", question)]
        self._ends = [end for _, end, _ in self._spans]
        self._starts = [start for start, _, _ in self._spans]

    def code_word_near(self, match: re.Match) -> bool:
        """A word that talks about code within three words of the compound: "the partial-resize command",
        "run corvane-agent convert-config" (not "jobs that are running" five words from "re-read")."""
        before = bisect.bisect_right(self._ends, match.start())
        after = bisect.bisect_left(self._starts, match.end())
        near = self._spans[max(0, before - 3) : before] + self._spans[after : after + 3]
        return any(word in cues.CODE_WORDS for _, _, word in near)


# A sentence ends at ".", "!" or "?" and a space, but not after an abbreviation that goes on
# ("what does --keep-within do, e.g. 30d?" is one sentence).
_SENTENCE_BREAK = re.compile(r"(?<![\s(]e\.g\.)(?<![\s(]i\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bapprox\.)(?<=[.!?])\s+", re.I)


_LATIN = re.compile(r"e\.g|i\.e|a\.k\.a|cf|n\.b", re.I)


def asking_span(question: str) -> tuple[int, int]:
    """Where the question proper is: from the first sentence that ends in "?" to the end; the whole
    text when no sentence does or when it is the first one."""
    starts = [0, *(m.end() for m in _SENTENCE_BREAK.finditer(question))]
    for start, end in zip(starts, [*starts[1:], len(question)]):
        if question[start:end].rstrip().endswith("?"):
            return (start, len(question))
    return (0, len(question))


def _is_code_form(word: str) -> bool:
    core = word.rstrip(".")
    if _NUMBER_UNIT.match(core) or not _HAS_ALPHA.search(core):
        return False
    if re.search(r"[-_./]|::|\(\)", core):
        return True
    if _CAMEL.search(core):
        return True
    return bool(_HAS_DIGIT.search(core))  # E1234, ipv6, tls13


_EXACT_NAME = re.compile(r"\w_\w")


# A hyphen as the reader types it, or as writers set it in type: a non-breaking hyphen keeps
# `--max_log_files` on one line (written `&#8209;&#8209;max_log_files`), a minus sign, a hyphen proper.
_TYPESET_HYPHENS = "\u2010\u2011\u2212"
HYPHEN = f"[-{_TYPESET_HYPHENS}]"


def literal(text: str) -> str:
    """`text` as a pattern that matches it as written, any hyphen in it as any hyphen (HYPHEN)."""
    return re.escape(text).replace("\\-", HYPHEN)


def anchor_pattern(anchor: Anchor) -> re.Pattern:
    """How an anchor is found in a chunk: case-insensitive, any of `-`, `_`, `.`, space between its
    parts, not inside a longer token."""
    if anchor.kind in ("code", "quoted"):
        words = [literal(w) for w in anchor.text.split()]
        body = r"\s+".join(words)
    elif anchor.kind == "flag" or _EXACT_NAME.search(anchor.text):
        # A flag, and a name in CONSTANT_CASE or snake_case (a variable, a setting), is written
        # one way: CORVANE_VAULT is not "a Corvane vault".
        body = literal(anchor.text)
    else:
        body = r"[-_./: ]?".join(literal(p) for p in anchor.parts)
    # Not inside a longer token: `v6e` is not in `v6e-8`, `--version` is in `--version=x`.
    return re.compile(rf"(?<![\w\-{_TYPESET_HYPHENS}])" + body + rf"(?!\w|{HYPHEN}\w)", re.I)


def defining_row(flag: str) -> re.Pattern:
    """A reference row that defines the flag: the flag (and its metavariable) in the first cell
    ("--parallel N | 8 | …"), not a command line that sets it ("  --version=… \\")."""
    return re.compile(r"(?m)^[ \t]*" + literal(flag) + r"(?:[ \t]+[A-Z_][A-Z0-9_]*)?[ \t]*\|")


def anchor_in(anchor: Anchor, text: str) -> bool:
    """The anchor is in text: written the same way, or, for a code-form name of ordinary words
    ("single-host"), with all its words in text."""
    if anchor_pattern(anchor).search(text):
        return True
    if anchor.kind == "identifier" and not _EXACT_NAME.search(anchor.text) and all(p.isalpha() and len(p) > 1 for p in anchor.parts):
        have = terms(text)
        wanted = {stem(p) for p in anchor.parts if p not in STOPWORDS}
        return all(w in have or w in with_typos_resolved({w}, have) - {w} for w in wanted)
    return False


# -- kinds ----------------------------------------------------------------------------------------

# The cues of each kind are declared in valid.answer.cues, with examples.
QUANTITY_NOUNS = cues.QUANTITY_NOUNS.words


def question_kind(question: str) -> Kind:
    """How the question wants its answer: a number, a value, steps, yes/no, or anything else.

    Judged on the last sentence that asks (the others set context: "I have a v6e-8 slice. How many
    chips per host?")."""
    sentences = [s for s in _SENTENCE_BREAK.split(question.strip()) if s.strip()]
    asking = [s for s in sentences if s.rstrip().endswith("?")] or sentences or [question]
    text = asking[-1]
    if cues.COUNT.search(text) or cues.WHAT_QUANTITY.search(text):
        return "count"
    if cues.PROCEDURE.search(text):
        return "procedure"
    if cues.YESNO.search(text):
        return "yesno"
    if cues.KIND_OF.search(text):
        return "value"
    if cues.WHERE.search(text):
        return "value"  # a location: a path, a URL, a zone
    if cues.WHICH_DOES.search(text) and not cues.WHAT_VERB.search(text):
        return "value"
    if (
        cues.VALUE.search(text)
        and not cues.EXPLAIN.search(text)
        and (_FLAG.search(text) or set(re.findall(r"[a-z]+", text.lower())) & cues.VALUE_NOUNS.words)
    ):
        return "value"
    if cues.NAMES.search(text) and not cues.WHAT_VERB.search(text):
        return "names"
    words = set(re.findall(r"[a-z]+", text.lower()))
    if not words & cues.INTERROGATIVES.words:
        if words & cues.COUNT_NOUNS.words:
            return "count"
        if words & cues.VALUE_NOUNS.words:
            return "value"
    return "other"


def asks_lifecycle(question: str) -> bool:
    """The question asks whether a thing still works, is deprecated or was removed."""
    return bool(cues.LIFECYCLE.search(question))


def asks_status(question: str) -> bool:
    """The question asks outright whether a thing is deprecated or removed (a notice saying so is
    a Yes); "will it keep working?" does not."""
    return bool(cues.STATUS.search(question))


def asks_where(question: str) -> bool:
    """A where-question: its answer is a location (a path, a file, a URL)."""
    return bool(cues.WHERE.search(question))


def asks_default(question: str) -> bool:
    """The question asks for a default without the word: "how many run unless I change it", "out of
    the box", "if I leave the setting alone"."""
    return bool(cues.DEFAULT_ASKED.search(question))


def with_default_said(question: str) -> str:
    """The question with a default asked for in several words said as one ("how many run unless I
    change it" → "how many run by default"): what retrieval searches, so the phrase's words
    (unless, change) neither dilute the coverage of the question's words nor pull in other text."""
    return cues.DEFAULT_ASKED.pattern.sub("by default", question)


def asks_for_code(question: str) -> bool:
    """The question wants a command or code as its answer ("give me the gcloud command to…")."""
    return bool(set(re.findall(r"[a-z]+", question.lower())) & cues.CODE_ASKED.words)


def content_words(question: str, ignore: Iterable[str] = ()) -> set[str]:
    """The question's content terms (stems, no stopwords), without the words that named the scope."""
    ignored: set[str] = set()
    for word in ignore:
        ignored |= terms(word)
    return terms(question) - ignored


def question_words(question: str, ignore: Iterable[str] = ()) -> list[str]:
    """The question's ordinary words as written (lower case, no stopwords, no scope names), in order:
    what answerability looks up in the content."""
    ignored: set[str] = set()
    for word in ignore:
        ignored |= terms(word) | {w.lower() for w in re.findall(r"[A-Za-z0-9]+", word)}
    words = _plain_words(question)
    return list(dict.fromkeys(w for w in words if w not in STOPWORDS and w not in ignored and stem(w) not in ignored))


def _plain_words(text: str) -> list[str]:
    """The words of `text` in lower case, in order, without what follows an apostrophe ("reader's")."""
    return re.findall(r"[a-z][a-z0-9]*", re.sub(r"['’]\w*", "", text.lower()))


def question_phrases(question: str, ignore: Iterable[str] = ()) -> list[tuple[str, str]]:
    """Pairs of the question's ordinary words that stand next to each other, as written (lower case;
    no stopword, scope name or punctuation between them): "open a large file in the Large File
    Viewer" → (large, file), (file, viewer). What answerability looks up as a phrase when each word
    alone is in the content. A hyphenated word's parts pair with each other only: the writers spell
    such a compound several ways ("spell-check", "spell checker", "spellchecking"), so the word
    beside it in the question says nothing about the words beside it in the content."""
    kept = set(question_words(question, ignore))
    pairs = []
    for run in re.split(r"[^\w\s'’-]+", question.lower()):
        written = [_plain_words(word) for word in run.split()]
        for parts in written:
            pairs += list(zip(parts, parts[1:]))
        pairs += [(a[-1], b[0]) for a, b in zip(written, written[1:]) if len(a) == 1 and len(b) == 1]
    return list(dict.fromkeys((a, b) for a, b in pairs if a in kept and b in kept and len(a) >= 3 and len(b) >= 3))


def counted(question: str) -> str | None:
    """The noun a count question counts, as written (lower case): "How many NUMA nodes does…" →
    nodes; "how much HBM" → hbm; "What is the ICI bandwidth per chip" → bandwidth."""
    match = cues.COUNTED.search(question)
    if match:
        words = [w for w in re.findall(r"[a-z0-9]+", match.group(1).lower()) if w not in STOPWORDS]
        # "How many chips make up a Pod": what is counted is plural; the words after it are a verb.
        plural = [w for w in words if len(w) > 3 and w.endswith("s") and not w.endswith("ss")]
        if "many" in match.group(0).lower() and plural:
            return plural[-1]
        return words[-1] if words else None
    match = cues.WHAT_QUANTITY.search(question)
    return match.group(1).lower() if match else None


def asks(question: str) -> list[str]:
    """The questions a question asks, in order: one, or several joined by "and what…", "? How…".
    A later one that refers back ("what format is it in") carries the first one's words."""
    parts = [p.strip(" ,") for p in cues.NEXT_ASK.pattern.split(question) if p and p.strip(" ,?")]
    if len(parts) < 2 or any(not content_words(p) for p in parts):
        return [question]
    first = parts[0]
    # Its words only: the first question's "where" or "how many" would change what this one asks.
    about = " ".join(w for w in re.findall(r"[\w][\w.'-]*", first) if w.lower() not in STOPWORDS)
    return [first, *(f"{p} ({about})" if cues.REFERRING.holds(p) else p for p in parts[1:])]


def _name_words(names: Iterable[str]) -> set[str]:
    """The words of the names that chose the scope, lower case: never what a question asks about."""
    return {w.lower() for name in names for w in re.findall(r"[A-Za-z0-9]+", name)}


def proper_names(question: str, ignore: Iterable[str] = ()) -> list[str]:
    """Capitalised words inside the question proper that do not start its sentence ("Which Python
    versions…", "…on Ubuntu?"): names of things the answer must be about. Names of generations and
    products (`ignore`) are the scope, not the subject."""
    start, end = asking_span(question)
    ignored = _name_words(ignore)
    found = re.findall(r"(?<=[a-z0-9,;:] )[A-Z][a-z]+[A-Za-z]*\b", question[start:end])
    return list(dict.fromkeys(w for w in found if w.lower() not in ignored and w.lower() not in STOPWORDS))


def acronyms(question: str, ignore: Iterable[str] = ()) -> list[str]:
    """The all-capital abbreviations of the question proper ("NUMA", "GKE"), lower case, without the
    names of generations: each names one technical thing, which a content word seldom does."""
    start, end = asking_span(question)
    ignored = _name_words(ignore)
    asking = question[start:end]
    # "Is the file YAML or TOML?" asks which one: a generation with either has what is asked about.
    offered = {form for group in alternatives(question) for term in group for form in (term, term.removesuffix("s"))}
    found = re.findall(r"\b([A-Z]{2,6})s?\b", asking)
    return list(dict.fromkeys(w.lower() for w in found if w.lower() not in ignored | offered))


# "--accelerator-type or --machine-type", "YAML/TOML", "MXUs, SparseCores?": terms the reader offers
# as alternatives, joined by "or" or a slash, or listed with commas at the end of the question or
# before a final "or". Content that has any one of them has what is asked about.
_TERM = r"-{0,2}\w[\w.+-]*"
_JOIN = r",?\s+or\s+(?:an?\s+|the\s+)?|\s*,\s*(?:or\s+(?:an?\s+|the\s+)?)?|\s*/\s*"
_LISTED = re.compile(rf"{_TERM}(?:(?:{_JOIN}){_TERM})+")


def alternatives(question: str) -> list[frozenset[str]]:
    """The groups of terms the question offers as alternatives, lower case (see above)."""
    start, end = asking_span(question)
    asking = question[start:end]
    groups: list[frozenset[str]] = []
    for match in _LISTED.finditer(asking):
        listed = match.group()
        at_end = re.fullmatch(r"[\s?.!]*", asking[match.end():]) is not None
        if not re.search(r"\sor\s|/", listed) and not at_end:
            continue  # "On v5p, how many…": a comma that ends a phrase lists nothing
        items = re.split(_JOIN, listed)
        groups.append(frozenset(i.lower().rstrip(".") for i in items if i))
    return groups


def kind_of_noun(question: str) -> str | None:
    """The noun a "what kind of" question sorts ("what kinds of models" → models), lower case."""
    match = cues.KIND_OF.search(question)
    return match.group(1).lower() if match and match.group(1) else None
