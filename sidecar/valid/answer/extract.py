"""The offline extractive answerer: the in-scope unit that answers the question, verbatim, cited.

No model. The in-scope chunks are split into reader-sized units (task steps, table rows, list
items, sentences, code blocks, and titles that carry a value such as a reference entry's
signature); a sentence that introduces something ("…in the following locations:", "run:") is one
unit with what it introduces, never an answer on its own. Each unit is scored:

    score = (lexical overlap with the question's content words, weighted by rarity among the units
             and by how strongly the unit says each word)
            × kind fit   (a count question wants a number, a value question a value, a procedure
                          question steps; a unit that cannot answer that kind is demoted)
            × anchor fit (a unit holding the question's code-form anchors is preferred)
            × specificity (content profiled for exactly this answer's generations beats shared text)
            / length     (a short unit that says it beats a long one that mentions it)

The answer line is the part of the best unit that carries the answer: the row, or the sentence
with the number or value, or the lead-in with the first line of what it introduces. A yes/no
question gets "Yes." or "No." from its evidence. When no unit fits the question's kind, the
answerer abstains (no steps) rather than print a loosely related sentence; decide.py turns that
into a refusal that says what is missing.

Deterministic: same request, same draft.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable
from functools import lru_cache
from dataclasses import dataclass, replace

from valid import tokens
from valid.tokens import NUMBER_WORDS, scan
from valid.answer import cues
from valid.answer.models import Draft, DraftStep, EvidenceChunk
from valid.answer.prompt import GenerationRequest
from valid.answer.question import anchor_in, anchors, content_words, defining_row, literal
from valid.answer.reading import read
from valid.answer.selection import SelectionModel
from valid.answer.unitvectors import UnitVectorSource
from valid.answer.text import stem, terms, with_typos_resolved, word_weights
from valid.answer.tuning import BUILT_IN, Tuning

_STEP_START = re.compile(r"^(\d+)\.\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"(])")
PARAGRAPH_UNIT_MAX = 320  # a paragraph up to this many characters is one unit; longer ones are split
TERM_MAX = 80  # a list item up to this long, not ending a sentence, is a term the indented lines describe
# title_weight, kind_fit, kind_misfit, anchor_fit, family_fit and specific_value_boost are the
# engine's Tuning (valid.answer.tuning), given to the answerer it runs.
FLAG_VALUE_FIT = 3.0  # a value question naming a flag: the unit sets that flag to a concrete value
PHRASE_FIT = 1.5  # per hyphenated compound of the question the unit says as one phrase
LIFECYCLE_FIT = 3.0  # a unit saying a thing is deprecated or removed, for "will it keep working?"
SYMPTOM_FIT = 0.25  # a unit of a troubleshooting condition (the problem), beside its cause and remedy
# DITA troubleshooting's condition element: the symptom, which a question restates rather than asks.
SYMPTOM_ELEMENT = "condition"
# Profiled content (in scope for fewer builds than the request) counts for this much more (the rules' product).
SPECIFIC_BOOST = 1.5
_NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|can't|doesn't|don't|isn't|aren't|won't|unsupported|removed|unavailable|none)\b", re.I
)
# A key combination as UI documentation writes it: modifiers joined by "+" ("Ctrl + Shift + E",
# "Alt+F7"), or a function key alone ("F2").
_KEY_COMBINATION = re.compile(r"\b(?:Ctrl|Control|Alt|Shift|Cmd|Command|Meta|Option|Fn|Win)\s*\+\s*\S|\bF(?:[1-9]|1[0-2])\b")
# A place in the menus: a menu cascade as DITA renders <menucascade> ("Options > Preferences"), or a
# menu named ("from the Navigation menu").
_MENU_PATH = re.compile(r"\w[^\s>]*\s+>\s+\w|\b[A-Z][\w/-]*\s+(?:sub)?menu\b")
# Paths, URLs and file names: ~/.config/app/config.toml, /var/log/x.log, https://…, startup.sh.
_PATH = re.compile(r"(?:https?://|~/|\.{0,2}/)[\w.~/-]+|\b[\w-]+(?:/[\w.-]+)+|\b[\w-]{2,}\.[a-z]{2,4}\b(?!\.\w)")
_PLACEHOLDER = re.compile(r"\$\{?\w+\}?|<[^>\s]+>|\byour-[\w-]+")
# Question words that ask for a quantity of a known family, and the units of that family.
# The question words are cues (cues.FAMILIES, as stems); the units are how content states the quantity.
_UNITS: dict[str, frozenset[str]] = {
    "memory": frozenset("kb mb gb tb pb kib mib gib tib pib bytes".split()),
    "rate": frozenset("gbps tbps gb/s tb/s mb/s".split()),
    "time": frozenset("ms s sec secs second seconds minute minutes min mins hour hours h day days".split()),
    "compute": frozenset("tflops pflops tops".split()),
}
_FAMILIES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    family: (frozenset(map(stem, cues.FAMILIES[family].words)), units) for family, units in _UNITS.items()
}
# A name in running text: a capitalised word that does not start its sentence (JAX, PyTorch).
_NAMED = re.compile(r"(?<=[a-z0-9,;:] )[A-Z][\w.+-]*|(?<=, )[A-Z][\w.+-]*|(?<=and )[A-Z][\w.+-]*")
# Question words whose value is a name rather than a number or code (cues.NAMED_VALUE), as stems.
_NAMED_VALUE = frozenset(map(stem, cues.NAMED_VALUE.words))
SELECTORS = ("fitted", "rules")
DEFAULT_SELECTOR = "rules"
PIECE_KINDS = ("count", "value", "names")  # kinds answered by one line or sentence
_PIECE_KINDS = PIECE_KINDS
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w.]*[A-Za-z]\d)")
_COUNTING_WORD = re.compile(
    r"\b(" + "|".join(w for w in NUMBER_WORDS if w not in ("one", "hundred")) + r")\s+(?=[A-Za-z])", re.I
)


@dataclass(frozen=True)
class Unit:
    chunk_rank: int  # 0-based position of the chunk in fused order
    position: int  # order inside the chunk (-1: the chunk's title)
    kind: str  # step | row | item | entry (a description line with its term) | paragraph | sentence | lead-in | title | part
    text: str  # as shown to the reader; its values are verbatim from the chunk
    chunk_id: str
    context: str = ""  # words that describe the unit without being shown (a table row's header)
    code: tuple[str, ...] = ()  # the chunk's code phrases (what the writers marked as code)
    topic: str = ""  # the chunk's title: what the unit's numbers and values are about


def split_units(chunk: EvidenceChunk, chunk_rank: int) -> list[Unit]:
    """A chunk's text → reader-sized units, each verbatim from the chunk (or its title)."""
    units = [replace(u, code=tuple(chunk.code), topic=chunk.title) for u in _raw_units(chunk, chunk_rank)]
    units = _join_lead_ins(units)
    if _has_value(chunk.title):
        # A title that carries a value (a signature, a command) can be the answer itself.
        units.insert(0, Unit(chunk_rank, -1, "title", chunk.title, chunk.id))
    return units


def _raw_units(chunk: EvidenceChunk, chunk_rank: int) -> list[Unit]:
    units: list[Unit] = []
    step: list[str] = []
    paragraph: list[str] = []

    def add(kind: str, text: str, context: str = "") -> None:
        if text.strip():
            units.append(Unit(chunk_rank, len(units), kind, text.strip("\n").rstrip(), chunk.id, context))

    def flush_step() -> None:
        if step:
            add("step", _STEP_START.sub("", "\n".join(step).strip(), count=1))
            step.clear()

    def flush_paragraph() -> None:
        if paragraph:
            text = "\n".join(paragraph)
            if len(text) <= PARAGRAPH_UNIT_MAX or "\n" in text.strip():
                add("paragraph", text)  # short prose, or verbatim code lines: keep whole
            else:
                for sentence in _SENTENCE_END.split(text.strip()):
                    add("sentence", sentence)
            paragraph.clear()

    previous_row = False
    term: str | None = None  # the term of the definition entry whose description lines follow
    header = ""
    lone = ""  # a table's first row while no row follows it

    def end_table() -> None:
        # A table of one row is its data, not a header: the export keeps only the build's own row
        # of a profiled choicetable ("Linux or macOS | bin/ant -f build-script target").
        nonlocal lone
        if lone:
            add("row", lone)
            lone = ""

    for line in chunk.text.splitlines():
        if term is not None and _continues_item(line):
            # A definition entry's description, indented under its term: each of its lines is a
            # unit that keeps the term, which is what it describes and often the value asked for
            # ("which extension point adds a Java library": its name).
            last = units[-1]
            if last.kind == "entry" and last.text.startswith(term + "\n") and last.text.endswith(":"):
                units[-1] = replace(last, text=last.text + "\n" + line.rstrip())  # what the line introduces
            else:
                add("entry", term + "\n" + line.rstrip())
            continue
        term = None
        if _STEP_START.match(line):
            flush_paragraph()
            flush_step()
            step.append(line)
            continue
        if step and line.strip():
            step.append(line)  # the step's info, example, choices or code (verbatim, maybe unindented)
            continue
        flush_step()
        stripped = line.strip()
        if not stripped:
            flush_paragraph()
            end_table()
            previous_row = False
            continue
        if " | " in stripped:
            flush_paragraph()
            if previous_row:
                add("row", stripped, header)
                lone = ""
            else:
                header = lone = stripped  # the header row of a table
            previous_row = True
            continue
        end_table()
        previous_row = False
        if stripped.startswith(("- ", "* ")):
            flush_paragraph()
            add("item", stripped[2:])
            term = stripped[2:] if _is_term(stripped[2:]) else None
        else:
            paragraph.append(line)
    flush_paragraph()
    flush_step()
    end_table()
    return units


def _continues_item(line: str) -> bool:
    """An indented line under a list item that is not an item, a row or a step of its own."""
    stripped = line.strip()
    return (
        bool(stripped) and line[0].isspace() and not stripped.startswith(("- ", "* "))
        and " | " not in stripped and not _STEP_START.match(line)
    )


def _join_lead_ins(units: list[Unit]) -> list[Unit]:
    """A unit ending in ':' takes what it introduces: the next list items, rows, or code block. Read
    from the end, so a lead-in whose next unit is a lead-in of its own takes it with what that one
    introduces ("The resulting output will be:" before a figure the text drops, then "The built-in
    CSS applies the following properties:" and the code block)."""
    out: list[Unit] = []  # the units after the one read, joined, nearest last
    for unit in reversed(units):
        if unit.text.rstrip().endswith(":") and unit.kind in ("paragraph", "sentence") and out:
            following = [out.pop()]
            while out and out[-1].kind == following[0].kind and following[0].kind in ("item", "row"):
                following.append(out.pop())
            prefix = {"item": "- "}.get(following[0].kind, "")
            body = "\n".join(prefix + u.text for u in following)
            unit = replace(unit, kind="lead-in", text=unit.text + "\n" + body, context=following[0].context)
        out.append(unit)
    return out[::-1]


def _has_value(text: str) -> bool:
    return bool(text) and (bool(scan(text)) or bool(re.search(r"\w\(|--\w|`", text)))


def _values(text: str) -> list[str]:
    """Concrete values in text: distinctive tokens, words mixing letters and digits (md5, sha256),
    dotted versions, code spans and call signatures; not placeholders (${ZONE}, <name>, your-zone)."""
    clean = _PLACEHOLDER.sub(" ", text)
    found = [t.value for t in scan(clean)]
    found += re.findall(r"`[^`]+`|\b[A-Za-z_][\w.]*\([^()]*\)|\b(?=\w*\d)(?=\w*[A-Za-z])\w{2,}\b", clean)
    found += re.findall(r"(?<![\w.])\d+(?:\.\d+)+(?![\w.]*\w)", clean)  # a version: glibc 2.17, 1.4
    found += _PATH.findall(clean)
    return found


def _numbers(text: str) -> list[str]:
    """The numbers text states: in digits, or as a number word before what it counts ("two NUMA
    nodes"); not "one", which is as often a pronoun ("the one you created")."""
    clean = _PLACEHOLDER.sub(" ", text)
    return _NUMBER.findall(clean) + _COUNTING_WORD.findall(clean)


def _family_units(question_terms: set[str]) -> frozenset[str]:
    wanted: set[str] = set()
    for asks, units in _FAMILIES.values():
        if question_terms & asks:
            wanted |= units
    return frozenset(wanted)


def _measured_units(head: str | None, question: str) -> frozenset[str]:
    """The units a measured quantity is stated in, when what the question measures is itself a
    family's word ("how much memory", "the ICI bandwidth"). Not for counted things: "how many
    times" counts occurrences, not a duration."""
    if head is None or cues.HOW_MANY.search(question):
        return frozenset()
    return _family_units({head})


@dataclass(frozen=True)
class Asked:
    """The question as the answerer reads it: its kind, its content terms, its anchors, and the names
    of the scope (which are never an answer: "Corvane CLI 1.0.0" does not state the value 1.0.0)."""

    kind: str
    terms: frozenset[str]
    anchors: tuple
    names: re.Pattern | None
    counted: str | None = None  # the noun a count question counts
    family: frozenset[str] = frozenset()  # units of the quantity family asked about
    measured: frozenset[str] = frozenset()  # units of the family the counted word itself names (bandwidth → Gbps)
    wants_code: bool = False  # the value asked for is a command or code, placeholders and all
    location: bool = False  # a where-question: the value is a path, a file or a URL
    sorted_noun: str | None = None  # the stem of the noun a "what kinds of" question sorts
    lifecycle: bool = False  # asks whether a thing still works, is going away or was removed
    asks_status: bool = False  # asks outright whether it is deprecated or removed
    sub_questions: tuple[str, ...] = ()  # the questions it asks, in order (the reading's)
    titles: frozenset[str] = frozenset()  # asks which topic a passage sends the reader to: the doc set's titles
    keys: bool = False  # asks for a keyboard shortcut: the value is a key combination
    menu: bool = False  # asks where an action is in the menus: the value is a menu path

    def without_names(self, text: str) -> str:
        return self.names.sub(_unless_another_product, text) if self.names is not None else text


def _unless_another_product(match: re.Match) -> str:
    """A scope name goes; a bare version of the scope stays when a product name comes right before
    it: "works with Corvane CLI 2.0.0" states another product's release, which may be the answer."""
    if re.fullmatch(r"\d+(?:\.\d+)+", match.group(0)) and re.search(r"\b[A-Z][\w-]* $", match.string[: match.start()]):
        return match.group(0)
    return " "


def read_question(
    request: GenerationRequest,
    vocabulary=(),
    titles: frozenset[str] = frozenset(),
    common: frozenset[str] = frozenset(),
) -> Asked:
    """What the answerer needs of the question: the engine's one reading of it (request.reading;
    read here when the request was built without one, or asks another question, a sub-question),
    with the terms and anchors of this request's own scope names and evidence."""
    reading = request.reading if request.reading is not None and request.reading.question == request.question else read(request.question)
    names = [*request.scope, *request.labels, *request.matched]
    # "the Trillium generation", "Corvane 2.0 release": the noun after a name is part of the name.
    names += [
        m.group(0)
        for name in request.matched
        for m in re.finditer(rf"(?<![\w-]){re.escape(name)}\s+{cues.VERSION_NOUN}\b", request.question, re.I)
    ]
    # A default asked in several words ("if I don't specify one") is read as "by default": its
    # words are not what the answer must say, and a default is one value.
    said = reading.said
    wanted = with_typos_resolved(content_words(said, names), vocabulary) - _name_terms(names)
    if reading.asks_default:
        wanted |= {"default"}  # "unless I change it", "out of the box": the value is the default
    versions = {v for n in names for v in re.findall(r"\d+(?:\.\d+)+", n)}
    spelled = sorted({n for n in [*names, *versions] if n.strip()}, key=len, reverse=True)
    pattern = re.compile("|".join(rf"(?<![\w.-]){re.escape(n)}(?![\w-]|\.\d)" for n in spelled), re.I) if spelled else None
    head = reading.counted
    if head is not None:
        # A misspelt head ("chpis") is read as the word of the evidence one edit away ("chips").
        written = set(re.findall(r"[a-z0-9]+", " ".join(c.title + " " + c.text for c in request.chunks).lower()))
        if head not in written:
            head = min(with_typos_resolved({head}, written) - {head}, default=head)
        head = stem(head)
    return Asked(
        reading.kind, frozenset(wanted), tuple(anchors(request.question, names, common=common)), pattern,
        counted=head, family=_family_units(wanted), measured=_measured_units(head, request.question),
        wants_code=reading.wants_code,
        location=reading.location,
        sorted_noun=stem(reading.sorted_noun or "") or None,
        lifecycle=reading.lifecycle,
        asks_status=reading.asks_status,
        sub_questions=reading.sub_questions,
        titles=titles if reading.reference else frozenset(),
        keys=reading.keys,
        menu=reading.menu,
    )


_LIFECYCLE_SAID = re.compile(
    r"\b(?:deprecated|removed|no\s+longer|replaced\s+by|discontinued|still\s+(?:works|accepted|supported))\b", re.I
)


def _pieces(unit: Unit) -> list[str]:
    """The lines and sentences of a unit; a table row is one piece with its header."""
    if unit.kind == "row":
        return [unit.text + "\n" + unit.context]
    pieces = [s for line in unit.text.splitlines() if line.strip() for s in _SENTENCE_END.split(line)]
    if unit.kind == "entry":
        # Each sentence of a description is about its term.
        return [f"{pieces[0].strip()} — {p.strip()}" for p in pieces[1:]]
    return pieces


def _is_term(line: str) -> bool:
    """A line shaped like a term that a description follows: short, not a sentence."""
    return len(line) <= TERM_MAX and not line.endswith((".", ":", ";", "!", "?"))


def _row_cells(piece: str) -> list[str]:
    first_line = piece.split("\n", 1)[0]
    return [cell.strip() for cell in first_line.split(" | ")] if " | " in first_line else []


@lru_cache(maxsize=4096)
def _title_terms(title: str) -> frozenset[str]:
    """A chunk title's terms: every piece of its units asks for them, so they are read once."""
    return frozenset(terms(title))


def _piece_fits(asked: Asked, piece: str, code: tuple[str, ...] = (), topic: str = "") -> bool:
    """One line or sentence answers the kind: it holds what was asked about *and* a number (count),
    a concrete value or a negative statement (value), or several names (names). A value on another
    line of a code block is not the value of the flag named on this one."""
    kind = asked.kind
    text = asked.without_names(piece)
    have = terms(piece)
    # The section's title says what a bare statement is about ("How long a session lasts": "A
    # session lasts 12 hours." answers "how long before I sign in again").
    about = bool((have | _title_terms(topic)) & asked.terms) or any(anchor_in(a, piece) for a in asked.anchors)
    if kind == "count":
        # "How many NUMA nodes": the number must come with nodes (or with a unit of the family
        # asked for: memory → GiB), not with whatever else the sentence counts.
        if asked.measured:
            # "What is the ICI bandwidth": a bandwidth is stated with a rate unit; the "bandwidth"
            # of "high-bandwidth memory" next to 192 GiB is not one.
            counts_it = _family_fits(asked.measured, text)
        else:
            counts_it = asked.counted is None or asked.counted in have or _family_fits(asked.family, text)
        return about and counts_it and bool(_numbers(text))
    if kind == "value" and asked.titles:
        # Which topic the passage sends the reader to: it names another topic by its title, as a
        # cross-reference shows it. A build that dropped the link says nothing that answers.
        return about and any(title != topic for title in named_titles(piece, asked.titles))
    if kind == "value" and (asked.keys or asked.menu):
        # A shortcut is stated as a key combination ("Surround with Tags (Ctrl + E)"), a place in
        # the menus as a menu cascade ("Tools > Generate/Convert Schema") or a menu named.
        shapes = [shape for wanted, shape in ((asked.keys, _KEY_COMBINATION), (asked.menu, _MENU_PATH)) if wanted]
        return about and any(shape.search(text) for shape in shapes)
    if kind == "value" and asked.location:
        # A path, file or URL. Whether it is the one asked about is for the ranking to say: the
        # sentence stating it ("The configuration file is /etc/…") often shares no word with the
        # question, while the section it sits in does.
        paths = _PATH.findall(_PLACEHOLDER.sub(" ", text))
        if "fil" in asked.terms:
            # "Where is the settings file": a file has a name with an extension, not "/metrics".
            return any(re.search(r"\w\.[A-Za-z0-9]{1,5}$", p.rstrip(".")) for p in paths)
        return bool(paths)
    if kind == "value":
        cells = _row_cells(text)
        # A table row states its value in the cells after its label; a negation must be about the
        # thing asked ("there is no software version"), not any "no longer" in the sentence.
        has_value = bool(_values(text)) or any(c for c in cells[1:]) or _denies(text, asked.terms)
        # "What kinds of models": the kinds are the list the noun comes with ("transformer,
        # text-to-image and CNN models").
        has_value = has_value or (
            asked.sorted_noun is not None and asked.sorted_noun in have and bool(re.search(r",|\band\b", text))
        )
        # "What format", "which algorithm": the value is a name (YAML, TOML, SHA-256) the question did not use.
        has_value = has_value or (
            bool(asked.terms & _NAMED_VALUE) and any(not terms(n) <= asked.terms for n in _NAMED.findall(text))
        )
        # The writers marked it as code (a command, a file name): the export lists those phrases.
        # A phrase the question itself names ("the --version flag") is what is asked about, not its value.
        # A template with placeholders (--zone=${ZONE}) leaves the value to the reader: not a value,
        # unless what is asked for is the command itself.
        has_value = has_value or any(
            phrase in text
            and (asked.wants_code or not _PLACEHOLDER.search(phrase))
            and not any(anchor_in(a, phrase) for a in asked.anchors)
            for phrase in code
            if phrase.strip()
        )
        return about and has_value
    if kind == "names":
        # Two or more names the question did not itself use (JAX, PyTorch; not its "VM"), or a
        # table row about what was asked whose cells state a value ("CLI 2.0.0 and later": which
        # releases are written as a range as often as a list).
        if len({n for n in _NAMED.findall(text) if not terms(n) <= asked.terms}) >= 2:
            return True
        cells = _row_cells(text)
        return about and any(_values(cell) for cell in cells[1:])
    return True


@lru_cache(maxsize=8)
def _titles_by_first_word(titles: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Titles of two words or more (one word, "Overview", is as often an ordinary word), by first
    word, longest first: looked up at each word of a passage instead of searched for one by one."""
    index: dict[str, list[str]] = {}
    for title in titles:
        if len(title.split()) >= 2:
            index.setdefault(title.split()[0], []).append(title)
    return {word: tuple(sorted(found, key=len, reverse=True)) for word, found in index.items()}


def named_titles(text: str, titles: frozenset[str]) -> list[str]:
    """The titles `text` writes as they are written (case and all), each ending at a word's end."""
    index = _titles_by_first_word(titles)
    named = []
    for word in re.finditer(r"\S+", text):
        for title in index.get(word.group(0), ()):
            end = word.start() + len(title)
            if text.startswith(title, word.start()) and (end == len(text) or not text[end].isalnum()):
                named.append(title)
                break
    return named


def _flag_valued(asked: Asked, text: str) -> bool:
    """The text gives a flag the question names its value: for "what is the default of --parallel",
    the reference row that starts with the flag ("--parallel N | 8 | …"); otherwise the line that
    sets it ("What --accelerator-type do I give": `--accelerator-type=v6e-8`), not an example."""
    if "default" in asked.terms:
        return any(defining_row(a.text).search(text) for a in asked.anchors if a.kind == "flag")
    return _sets_flag(asked, text)


def _sets_flag(asked: Asked, text: str) -> bool:
    """The text gives a flag the question names a concrete value (`--accelerator-type=v6e-8`, not
    `--zone=${ZONE}`)."""
    for anchor in asked.anchors:
        if anchor.kind != "flag":
            continue
        for match in re.finditer(literal(anchor.text) + r"(=|[ \t]+)(\S+)", text):
            value = match.group(2).rstrip(".,;:")
            # After a space only something shaped like a value ("--parallel 12"), not "when".
            shaped = match.group(1) == "=" or re.search(r"\d|[-_./:]", value)
            if shaped and not _PLACEHOLDER.search(value) and not value.startswith("-"):
                return True
    return False


def _denies(text: str, asked: frozenset[str]) -> bool:
    """A negation followed within three words by a word the question asks about."""
    for match in _NEGATION.finditer(text):
        following = re.findall(r"[A-Za-z0-9]+", text[match.end():])[:3]
        if terms(" ".join(following)) & asked:
            return True
    return False


def _kind_fits(asked: Asked, unit: Unit) -> bool:
    if asked.kind == "procedure":
        if unit.kind in ("step", "lead-in") or "\n" in unit.text:
            return True
        # A sentence that tells what to run or send ("Sign out with corvane auth logout.", "Send
        # the agent the SIGHUP signal…"), in code as the writers marked it, is a step too.
        code = [c for c in unit.code if c.strip() and c in unit.text]
        return any(
            (any(c in piece for c in code) or _SETTABLE.search(piece)) and terms(piece) & asked.terms
            for piece in _pieces(unit)
        )
    if asked.kind == "value" and asked.wants_code:
        # The command asked for spans lines (a code block): the unit holds it, about what was asked.
        return bool(_commands_in(unit)) and bool(terms(unit.text + "\n" + unit.context) & asked.terms)
    if asked.kind in _PIECE_KINDS:
        return any(_piece_fits(asked, piece, unit.code, unit.topic) for piece in _pieces(unit))
    return True


# A name the reader sets, written as code even where the writers did not mark it: an environment
# variable (CORVANE_VAULT) or a flag (--yes). A sentence that tells what to set is a step.
_SETTABLE = re.compile(r"(?<![\w-])(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|--[a-z][a-z0-9-]+)(?![\w-])")


def _commands_in(unit: Unit) -> list[str]:
    """The code phrases of more than one word that the unit shows as written; phrases written next to
    each other on one line are one ("bin/ant", "-f" and "build-script target", marked apart by the
    writers, are the command `bin/ant -f build-script target`)."""
    spans = sorted(
        (start, start + len(p)) for p in set(unit.code) if p.strip() for start in _occurrences(unit.text, p)
    )
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and (start <= merged[-1][1] or _joins(unit.text[merged[-1][1] : start])):
            merged[-1][1] = max(end, merged[-1][1])
        else:
            merged.append([start, end])
    shown = [unit.text[start:end] for start, end in merged]
    return [c for c in shown if " " in c.strip() or "\n" in c.strip()]


def _occurrences(text: str, phrase: str) -> list[int]:
    """Where `phrase` stands in `text` on its own, not inside a longer word ("ant" in "important")."""
    found, at = [], text.find(phrase)
    while at >= 0:
        end = at + len(phrase)
        if not (at > 0 and text[at - 1].isalnum() or end < len(text) and text[end].isalnum()):
            found.append(at)
        at = text.find(phrase, at + 1)
    return found


def _joins(gap: str) -> bool:
    """Only spaces between two code phrases: one command, written in pieces."""
    return bool(gap) and not gap.strip(" ")


def _family_fits(units_wanted: frozenset[str], text: str) -> bool:
    if not units_wanted:
        return False
    words = re.findall(r"\d[\d.,]*\s?([A-Za-z/]+)", text)
    return any(w.lower() in units_wanted for w in words)


def unit_input(unit: Unit) -> str:
    """What a unit's vector is computed from: its text, and the words that describe it (a row's header)."""
    return unit.text + ("\n" + unit.context if unit.context else "")


@dataclass(frozen=True)
class Candidate:
    """One candidate unit with what the selection reads of it."""

    unit: Unit
    features: dict  # name → value, read by the fitted model (valid.answer.selection)
    says_nothing: bool  # shares no term, anchor or title word with the question
    lexical: float  # rarity-weighted overlap of the unit's own words with the question's
    title: float  # the same for the words only its chunk's title says
    kind_fits: bool
    anchors: int
    flag_value: bool
    phrases: int
    lifecycle: bool
    family: bool
    specific: bool
    length: int
    symptom: bool = False  # from a troubleshooting condition: the problem a question restates, not its answer
    rules: float = 0.0  # the tuning's hand-set product (`_rules_score`) weighed with meaning, computed once


BM25_K1 = 1.2  # the usual BM25 constants, at unit level (idf over the request's candidate units)
BM25_B = 0.75


def unit_candidates(
    request: GenerationRequest, vectors: UnitVectorSource | None = None, tuning: Tuning = BUILT_IN,
    titles: frozenset[str] = frozenset(), specific_boost: float = SPECIFIC_BOOST, common: frozenset[str] = frozenset(),
) -> tuple[Asked, list[Candidate]]:
    """Every unit of the request's chunks with its signals and features, in chunk and document order.
    The features include the hand-set product of the tuning's weights (`_rules_score`), as its
    logarithm and against the request's best: the fitted model weighs it beside the general signals.
    The rules selector ranks by that product times e^(semantic_weight x the unit's cosine similarity
    to the question), zero without unit vectors."""
    chunks = {chunk.id: chunk for chunk in request.chunks}
    units = [u for rank, chunk in enumerate(request.chunks) for u in split_units(chunk, rank)]
    unit_terms = [terms(unit_input(u)) for u in units]
    title_terms = {cid: terms(chunk.title) for cid, chunk in chunks.items()}
    crumb_terms = {cid: terms(" ".join(chunk.breadcrumbs[1:])) for cid, chunk in chunks.items()}
    # A title naming a thing in code form (the doc set's common words name nothing).
    titled = {cid: bool(anchors(chunk.title, common=common)) for cid, chunk in chunks.items()}
    vocabulary = set().union(set(), *unit_terms, *title_terms.values())
    # The generation's names decide nothing here: every chunk is already in scope.
    asked = read_question(request, vocabulary, titles, common)
    # The asked anchors each chunk's title names: read once per chunk, not once per unit.
    title_anchors = {cid: [a for a in asked.anchors if anchor_in(a, chunk.title)] for cid, chunk in chunks.items()}
    # Only a where-question reads a whole section's words (see below).
    chunk_terms = {cid: terms(c.title + "\n" + c.text) for cid, c in chunks.items()} if asked.location else {}
    wanted = asked.terms
    compounds = [
        re.compile(r"(?<![\w-])" + r"[\s-]".join(map(re.escape, c.split("-"))) + r"(?![\w-])", re.I)
        for c in sorted(t for t in wanted if re.fullmatch(r"[a-z]+(?:-[a-z]+)+", t))
    ]
    df: dict[str, int] = {}
    unit_df: dict[str, int] = {}
    for ts, unit in zip(unit_terms, units):
        for t in (ts | title_terms[unit.chunk_id]) & wanted:
            df[t] = df.get(t, 0) + 1
        for t in ts & wanted:
            unit_df[t] = unit_df.get(t, 0) + 1
    n = len(units)
    average = sum(len(ts) for ts in unit_terms) / n if n else 1.0
    scope = set(request.scope)
    # Meaning is the question's without the build's names: they chose the scope, every unit is in it,
    # and the same question asked by name or by a follow-up naming the build must rank alike.
    cosines = _cosines(" ".join(asked.without_names(request.question).split()) or request.question, units, vectors)
    out = []
    for index, (unit, ts) in enumerate(zip(units, unit_terms)):
        # For a number or a value, what counts is the line or sentence that states it: the
        # rest of a paragraph mentioning the question's words says nothing about the value.
        # A command block spans lines: read as a whole; a command in a sentence, by its sentence.
        block = asked.wants_code and any("\n" in c.strip() for c in _commands_in(unit))
        piecewise = asked.kind in _PIECE_KINDS and not block
        fitting = [p for p in _pieces(unit) if _piece_fits(asked, p, unit.code, unit.topic)] if piecewise else []
        evidence = max(fitting, key=lambda p: len(terms(p) & wanted)) if fitting else unit.text + "\n" + unit.context
        own = terms(evidence) & wanted
        from_title = (title_terms[unit.chunk_id] & wanted) - own
        if asked.location and not own and fitting:
            from_title |= chunk_terms[unit.chunk_id] & wanted  # the section says what the path is for
        held = [a for a in asked.anchors if anchor_in(a, evidence)]
        in_title = title_anchors[unit.chunk_id]
        if asked.anchors and titled[unit.chunk_id] and not in_title:
            # The chunk is about another named thing ("BUFFER_POOL_LIMIT Query Option"): the asked
            # name in its text is mentioned in passing ("80% of the MEM_LIMIT setting").
            held = []
        # The chunk's title says what a bare statement is about: "Default: 0 (unlimited)" under
        # "MEM_LIMIT Query Option" is MEM_LIMIT's default, as much as a sentence naming it.
        held += [a for a in in_title if a not in held]
        strength = word_weights(evidence, tuning.compound_part_weight)
        candidate = Candidate(
            unit=unit,
            features={},
            says_nothing=not own and not held and not from_title,
            lexical=sum(strength.get(t, 1.0) * math.log(1 + n / df[t]) for t in own),
            title=sum(math.log(1 + n / df[t]) for t in from_title),
            kind_fits=_kind_fits(asked, unit),
            anchors=len(held),
            flag_value=asked.kind == "value" and _flag_valued(asked, evidence),
            # A compound the question writes ("sign-in") said as one phrase, with a hyphen or a space.
            phrases=sum(1 for p in compounds if p.search(evidence)),
            lifecycle=asked.lifecycle and bool(_LIFECYCLE_SAID.search(evidence)),
            family=(asked.kind == "count" or bool(asked.family)) and _family_fits(asked.family, unit.text),
            specific=_specific(chunks[unit.chunk_id].scope, scope, request.profiles),
            length=len(ts),
            symptom=chunks[unit.chunk_id].element == SYMPTOM_ELEMENT,
        )
        bm25 = sum(
            math.log(1 + (n - unit_df[t] + 0.5) / (unit_df[t] + 0.5))
            * (BM25_K1 + 1) / (1 + BM25_K1 * (1 - BM25_B + BM25_B * len(ts) / max(average, 1.0)))
            for t in ts & wanted
        )
        crumbs = crumb_terms[unit.chunk_id] | title_terms[unit.chunk_id]
        features = _features(asked, candidate, cosines[index], bm25, len(crumbs & wanted) / max(len(wanted), 1))
        rules = _rules_score(candidate, specific_boost, asked, tuning)
        features["rules"] = math.log(rules)  # the hand-set product alone: the fitted model has the cosine apart
        meaning = math.exp(tuning.semantic_weight * cosines[index])
        out.append(replace(candidate, features=features, rules=rules * meaning))
    _relative(out, "cosine", "cosine_gap", lambda best, x: x - best)
    _relative(out, "bm25", "bm25_share", lambda best, x: x / best if best > 0 else 0.0)
    _relative(out, "lexical", "lexical_share", lambda best, x: x / best if best > 0 else 0.0)
    _relative(out, "rules", "rules_gap", lambda best, x: x - best)
    return asked, out


def _cosines(question: str, units: list[Unit], vectors: UnitVectorSource | None) -> list[float]:
    if vectors is None or not units:
        return [0.0] * len(units)
    import numpy as np

    try:
        q = vectors.question(question)
        matrix = vectors.units([unit_input(u) for u in units])
    except Exception:  # the embedder failed: meaning is left out, as retrieval falls back to BM25 (and says so)
        return [0.0] * len(units)
    norms = np.linalg.norm(matrix, axis=1) * (float(np.linalg.norm(q)) or 1.0)
    return [float(x) for x in (matrix @ q) / np.where(norms > 0, norms, 1.0)]


def _features(asked: Asked, c: Candidate, cosine: float, bm25: float, crumbs: float) -> dict:
    """The fitted model's inputs: general signals only, none names a wording."""
    unit = c.unit
    element = _element(unit)
    wants = "code" if asked.wants_code else asked.kind
    out = {
        "cosine": cosine,
        "bm25": bm25,
        "lexical": math.log1p(c.lexical),
        "title": math.log1p(c.title),
        "breadcrumbs": crumbs,
        "says_nothing": float(c.says_nothing),
        "kind_fits": float(c.kind_fits),
        "anchors": float(c.anchors),
        "flag_value": float(c.flag_value),
        "phrases": float(c.phrases),
        "lifecycle": float(c.lifecycle),
        "family": float(c.family),
        "specific": float(c.specific),
        "specific_value": float(c.specific and asked.kind in ("count", "value")),
        "first": float(unit.position <= 0),
        "position": 1.0 / (2 + unit.position),
        "chunk_rank": 1.0 / (1 + unit.chunk_rank),
        "length": math.log1p(c.length),
        f"element={element}": 1.0,
        f"element={element}*asks={wants}": 1.0,
        f"asks={wants}": 1.0,
    }
    return out


def _element(unit: Unit) -> str:
    """The DITA element a unit comes from, as far as its text shows it."""
    if any("\n" in c.strip() for c in _commands_in(unit)):
        return "codeblock"
    if unit.kind == "step" and _commands_in(unit):
        return "step-cmd"
    return {"part": "choicetable-row", "item": "item", "lead-in": "lead-in"}.get(unit.kind, unit.kind)


def _relative(candidates: list[Candidate], name: str, relative: str, how) -> None:
    """A feature against the best of the request: the candidates compete with each other."""
    if not candidates:
        return
    best = max(c.features[name] for c in candidates)
    for c in candidates:
        c.features[relative] = how(best, c.features[name])


def _rules_score(c: Candidate, specific_boost: float, asked: Asked, tuning: Tuning = BUILT_IN) -> float:
    """The hand-set product of weights (selector "rules"), the tunable ones the engine's."""
    weight = c.lexical + tuning.title_weight * c.title
    weight *= tuning.kind_fit if c.kind_fits else tuning.kind_misfit
    weight *= tuning.anchor_fit ** c.anchors
    if c.flag_value:
        weight *= FLAG_VALUE_FIT
    weight *= PHRASE_FIT ** c.phrases
    if c.lifecycle:
        # "Will corvane mirror keep working?": the notice that it is deprecated or removed answers.
        weight *= LIFECYCLE_FIT
    if c.family:
        weight *= tuning.family_fit
    if c.symptom:
        # The problem a troubleshooting topic states is what the reader describes; its cause and
        # remedy, beside it, are what they ask.
        weight *= SYMPTOM_FIT
    if c.specific:
        # Shared text cannot hold a value that differs by generation: for count and value
        # questions, content profiled for some generations only counts for more.
        weight *= specific_boost * (tuning.specific_value_boost if asked.kind in ("count", "value") else 1.0)
    return weight / math.sqrt(1 + c.length / 12) + 0.05 / (1 + c.unit.chunk_rank)


class OfflineExtractive:
    """Deterministic extractive answers: the in-scope unit that answers, verbatim, citing its chunk."""

    name = "offline"
    model = None
    deterministic = True
    # Fused chunks read per answer: more than a model is sent (5), because a verbatim answer must be
    # found as written, and on the trap sets' dev halves the chunk stating a value was often 6th-8th.
    evidence_depth = 8

    def __init__(
        self,
        max_steps: int = 3,
        keep_ratio: float = 0.6,
        specific_boost: float = SPECIFIC_BOOST,
        *,
        tuning: Tuning = BUILT_IN,
        selector: str = DEFAULT_SELECTOR,
        selection: SelectionModel | None = None,
        vectors: UnitVectorSource | None = None,
        titles: frozenset[str] = frozenset(),
        common: frozenset[str] = frozenset(),
    ):
        """tuning: the engine's floors and weights (make_generator(kind, tuning=...); an engine checks it
        is its own); selector: "fitted" (the logistic model `selection`, default the one shipped in
        valid/data, with its abstention floor) or "rules" (the hand-set product of the tuning's weights);
        vectors: where the question's and the units' vectors come from (the engine gives the release's
        stored unit vectors; None: no similarity feature); titles: the doc set's chunk titles, which a
        cross-reference shows (a question asking which topic a passage sends the reader to is answered
        only by a passage naming one; none given: any passage about it); common: the words most of the
        doc set's chunks write (valid.answer.vocabulary), which name nothing a passage must hold."""
        if selector not in SELECTORS:
            raise ValueError(f"unknown selector {selector!r}; choose one of: {', '.join(SELECTORS)}")
        self.max_steps = max_steps
        self.keep_ratio = keep_ratio
        self.specific_boost = specific_boost
        self.tuning = tuning
        self.selector = selector
        self.selection = selection if selection is not None else SelectionModel.default()
        self.vectors = vectors
        self.titles = frozenset(titles)
        self.common = frozenset(common)

    def bound(
        self, vectors: UnitVectorSource, titles: frozenset[str] = frozenset(), common: frozenset[str] = frozenset()
    ) -> "OfflineExtractive":
        """The same answerer reading its vectors from `vectors`, its titles from `titles` and its common
        words from `common` (one release's)."""
        bound = copy.copy(self)  # a subclass stays itself (the fit's recorder)
        bound.vectors = vectors
        bound.titles = frozenset(titles)
        bound.common = frozenset(common)
        return bound

    def rank_units(self, request: GenerationRequest) -> list[tuple[float, Unit]]:
        return self._rank(request)[1]

    def _rank(self, request: GenerationRequest) -> tuple[Asked, list[tuple[float, Unit]]]:
        """The candidate units, best first, each with its score: the fitted model's probability
        (selector "fitted"), or the product of the hand-set weights weighed with meaning (selector "rules")."""
        # Both selectors read the units' similarity to the question (the rules through semantic_weight).
        asked, candidates = unit_candidates(
            request, self.vectors, self.tuning, self.titles, self.specific_boost, self.common
        )
        scored = []
        for candidate in candidates:
            if candidate.says_nothing:
                continue  # a unit (or the section it sits in) must say something the question asks about
            if self.selector == "rules":
                score = candidate.rules  # unit_candidates computed it with this answerer's tuning
            else:
                score = self.selection.probability(candidate.features)
            scored.append((score, candidate.unit))
        scored.sort(key=lambda su: (-su[0], su[1].chunk_rank, su[1].position))
        return asked, scored

    def generate(self, request: GenerationRequest) -> Draft:
        rejected: set[str] = set()
        rejected_answers: set[str] = set()
        if request.previous is not None:
            failed = {f.step for f in request.failures}
            rejected = {s.text for i, s in enumerate(request.previous.steps) if i in failed}
            if -1 in failed:
                rejected_answers.add(request.previous.answer)
        asked, ranked = self._rank(request)
        scored = [
            (s, u)
            for s, u in ranked
            if u.text not in rejected and not any(answer in u.text for answer in rejected_answers if answer)
        ]
        fitting = [(s, u) for s, u in scored if _kind_fits(asked, u)]
        if asked.titles and fitting and not self._sends_onward(request, fitting[0][1]):
            fitting = []
        if not fitting and asked.kind in _PIECE_KINDS:
            # Nothing in scope states a number, a value or the names asked for: abstain rather than
            # quote a sentence around it. (A procedure or an explanation may be told in prose.)
            return Draft(scope=list(request.scope), answer="", steps=[], model=None, calls=1)
        # Once something in scope fits, every unit competes and a misfit is weighed down (the rules'
        # kind_misfit, the fitted model's kind_fits weight), not dropped: the kind is read from the
        # question's wording, and the unit that answers may state its value in a form that reading
        # does not see (a list of fields for "which field prints the number of pages").
        if not scored or self.selector == "fitted" and scored[0][0] < self.selection.floor:
            # Nothing in scope says it, or the best unit is below the fitted floor: abstain.
            return Draft(scope=list(request.scope), answer="", steps=[], model=None, calls=1)
        best = scored[0][0]
        ratio = self.selection.keep_ratio if self.selector == "fitted" else self.keep_ratio
        chosen = [u for s, u in scored if s >= ratio * best][: self.max_steps]
        answer = answer_line(chosen[0], asked)
        # "Where is the file, and what format is it in?": each further question brings its own
        # best unit, or the steps would answer the first question only. At most max_steps of them:
        # each ranks every unit again, so a text of a thousand questions must not cost a thousand rankings.
        for sub in asked.sub_questions[1 : 1 + self.max_steps]:
            extra = self._best_unit(request.model_copy(update={"question": sub}), rejected, chosen)
            if extra is not None:
                chosen.append(extra)
        # Chunks in the order of their best unit; inside a chunk, document order (procedures).
        first: dict[str, int] = {}
        for i, unit in enumerate(chosen):
            first.setdefault(unit.chunk_id, i)
        chosen.sort(key=lambda u: (first[u.chunk_id], u.position))
        chosen = with_split_parts(chosen, request.chunks)
        if asked.kind == "procedure" and chosen[0].kind == "step":
            # A procedure starts at its first step, not at the step that shares most words.
            answer = answer_line(chosen[0], asked)
        return Draft(
            scope=list(request.scope),
            answer=answer,
            steps=[DraftStep(text=u.text, cite=u.chunk_id) for u in chosen],
            model=None,
            calls=1,
        )

    def _sends_onward(self, request: GenerationRequest, unit: Unit) -> bool:
        """A reference question ("which topic does the note on X send me to?") describes a passage:
        the one every other signal ranks first. It is answered only where that passage (its unit)
        names another topic; a build that dropped the link still has the passage, and another
        passage's link is not the one asked for."""
        reading = request.reading if request.reading is not None and request.reading.question == request.question else read(request.question)
        # Ranked as a question about the passage itself, which any unit may answer.
        about = reading.model_copy(update={"kind": "other", "reference": False})
        _, plain = self._rank(request.model_copy(update={"reading": about}))
        described = plain[0][1] if plain else None
        return described is not None and (described.chunk_id, described.position) == (unit.chunk_id, unit.position)

    def _best_unit(self, request: GenerationRequest, rejected: set[str], chosen: list[Unit]) -> Unit | None:
        """A further question's best unit not already chosen, ranked like the first question's: once
        any unit states the kind it asks for, every unit competes and a misfit is weighed down, not
        dropped; none that states it, no unit."""
        asked, ranked = self._rank(request)
        if not _states_the_kind(asked, (unit for _, unit in ranked)):
            return None
        taken = {u.text for u in chosen} | rejected
        return next((unit for _, unit in ranked if unit.text not in taken), None)


def with_split_parts(chosen: list[Unit], chunks) -> list[Unit]:
    """Each chosen step followed by the parts the export split from it (the choicetable with its
    command), and each chosen part preceded by its step: the unit as the writer wrote it, in document
    order. Parts are whole chunks of the request (in its scope), quoted verbatim."""
    by_id = {c.id: c for c in chunks}
    out: list[Unit] = []

    def add(unit: Unit) -> None:
        if all((u.chunk_id, u.text) != (unit.chunk_id, unit.text) for u in out):
            out.append(unit)

    for unit in chosen:
        chunk = by_id.get(unit.chunk_id)
        parent = by_id.get(chunk.part_of) if chunk is not None and chunk.part_of else None
        if parent is not None and 0 < chunk.part_step <= len(steps := _steps(parent, unit.chunk_rank)):
            add(steps[chunk.part_step - 1])
        add(unit)
        if chunk is not None and unit.kind in ("step", "item"):
            number = [u.position for u in _steps(chunk, unit.chunk_rank)].index(unit.position) + 1
            for part in chunks:
                if part.part_of == chunk.id and part.part_step == number:
                    add(Unit(unit.chunk_rank, unit.position, "part", part.text, part.id, code=tuple(part.code), topic=part.title))
    return out


def _steps(chunk: EvidenceChunk, rank: int) -> list[Unit]:
    """The chunk's steps (ordered or not), in document order: step N of its source is the Nth."""
    return [u for u in split_units(chunk, rank) if u.kind in ("step", "item")]


def _specific(chunk_scope, scope: set[str], profiles) -> bool:
    """The chunk is profiled: in scope for fewer than every profile (or, when the request does not
    list the profiles, for exactly the request's scope)."""
    return set(chunk_scope) == scope or bool(profiles) and not set(profiles) <= set(chunk_scope)


def _states_the_kind(asked: Asked, units: Iterable[Unit]) -> bool:
    """Whether one of `units` fits the question's kind (a number for a count, a value for a value
    question, names for a names question); other kinds always may be answered."""
    return asked.kind not in _PIECE_KINDS or any(_kind_fits(asked, unit) for unit in units)


def answering_chunk(request: GenerationRequest, answerer: "OfflineExtractive | None" = None) -> str | None:
    """The chunk the offline answerer would take its answer line from (None: it would abstain)."""
    asked, ranked = (answerer or OfflineExtractive())._rank(request)
    if not ranked or not _states_the_kind(asked, (u for _, u in ranked)):
        return None
    return ranked[0][1].chunk_id  # once a unit fits, the best of all (OfflineExtractive.generate)


def states_an_answer(request: GenerationRequest, answerer: "OfflineExtractive | None" = None) -> bool:
    """Whether the request's chunks hold a unit that fits the question's kind (`_states_the_kind`)."""
    asked, ranked = (answerer or OfflineExtractive())._rank(request)
    return _states_the_kind(asked, (unit for _, unit in ranked))


def _name_terms(names) -> set[str]:
    out: set[str] = set()
    for name in names:
        out |= terms(name)
    return out


def answer_line(unit: Unit, asked: Asked) -> str:
    """The part of the best unit that states the answer (verbatim), with Yes/No for yes/no questions."""
    lines = [line for line in unit.text.splitlines() if line.strip()]
    if asked.wants_code and (shown := _commands_in(unit)):
        line = max(shown, key=len)  # the command asked for, whole, as the writers marked it
    elif unit.kind == "lead-in":
        line = _lead_in_line(lines) if len(lines) > 1 else lines[0]
    elif unit.kind == "row" or len(lines) == 1 and not _SENTENCE_END.search(lines[0]):
        line = lines[0].strip()
    else:
        pieces = [p.strip() for p in _pieces(unit if unit.kind == "entry" else Unit(0, 0, "paragraph", unit.text, ""))]
        line = max(pieces, key=lambda p: (_piece_fits(asked, p, unit.code, unit.topic), len(terms(p) & asked.terms)))
    line = re.sub(r"\s+\\$", "", line)  # one line of a command continued on the next: not its backslash
    if asked.kind == "yesno" and asked.lifecycle and _LIFECYCLE_SAID.search(line):
        # A deprecation notice answers "is it deprecated?" with Yes; "will it keep working?" and
        # "is it going away?" alike, so for those it is quoted without a Yes or No whose sense
        # would depend on the question's wording.
        return f"Yes. {line}" if asked.asks_status else line
    if asked.kind == "yesno":
        verdict = yes_or_no(line, asked.terms)
        if verdict is None:
            return line  # the line is quoted, the reader judges: no Yes or No it does not state
        # A table row keeps its own line, so its label stays the label of its value.
        return f"{verdict}\n{line}" if unit.kind == "row" else f"{verdict} {line}"
    return line


def _lead_in_line(lines: list[str]) -> str:
    """A lead-in and its first line as one line ("Default: 0 (unlimited)"), unless that makes a value
    the writer did not write: "Default:" over a paragraph "524288 (512 KB)" would read as a default
    of 524288 that the checks cannot find as written (valid.tokens labels a number by the words
    before it on its line), so it keeps its line break."""
    head, first = lines[0].strip(), lines[1].strip().removeprefix("- ")
    joined, written = f"{head} {first}", f"{head}\n{first}"
    found = tokens.values(written)
    return joined if all(tokens.states(written, value, found) for value in tokens.values(joined)) else written


def yes_or_no(line: str, asked: frozenset[str]) -> str | None:
    """The Yes or No the line itself states about what is asked, or None when it states neither:
    No when it negates one of the asked terms; Yes when it says every asked term and negates nothing."""
    if _denies(line, asked):
        return "No."
    if asked and asked <= terms(line) and not _NEGATION.search(line):
        return "Yes."
    return None
