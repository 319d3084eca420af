"""What a value looks like in documentation text: the one value grammar of VALID.

The audit, the owned-value table, the answer checks and the trap-set scorer all find values such
as `v2-alpha-tpuv6e`, `--xla_foo=true`, `95 GB`, `eight chips` or a table row `Chips per VM | 8`
through this module, and compare them in the canonical form it gives. Pure functions only.

Token kinds found by `scan` (the distinctive values the audit and the owned-value table work on):

- `version`: a token with letters and digits joined by `-`, `.` or `_` that reads as a release
  (`v2-alpha-tpuv6e`, `tpu-vm-tf-2.18.0-pjrt`, `python3.11`, `v2.4.1`), a dotted number with three
  or more parts (`0.4.35`), or a dotted number right after the word "version" or "release"
  (`version 2.4`).
- `machine-type`: a hardware shape (`v6e-8`, `tpu7x-standard-4t`, `ct6e-standard-4t`) or a topology
  (`2x2x1`).
- `identifier`: any other token with at least two parts, a letter and a digit (`us-east5-a`).
- `flag`: `--name=value` whose value is not itself distinctive (`--xla_tpu_enable_x=true`); when
  the value is distinctive (`--version=v2-alpha-tpuv6e`) the value is the token.
- `quantity`: a number with a unit, canonicalised so `4-chip`, `4 TPU chips`, `four chips` and a
  table row `Chips per VM | 4` are all `4 chips`. The number may be a number word (one..twenty,
  the tens, hundred, dozen). A bare number is a quantity only when a label names its unit: a
  table row whose label (or column header) names a unit (`Chips per host | 8`), or `label: 8`.
- `number`: a bare number right after a label that names a measure but no unit
  (`HBM per chip: 32`, `HBM capacity per chip | 32`): its canonical value is the number, and it
  is compared together with its label (see `states`). Never owned on its own.

`values` adds what an answer can state beside those (the answer checks and the scorer): `code`
(a `code span`), `command` (a command line: two or more lower-case words followed by flags up to
the end of the line, at the start of a line or after a lead-in ending in ':'), a whole flag `--name=value` (even when its value is a
distinctive token) and a bare flag `--name`.

A token found next to a label carries it: `label` is the row label of a table cell or the words
before ':'; `header` is the column header of a table cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

TokenKind = Literal["version", "machine-type", "identifier", "flag", "quantity", "term", "number", "code", "command"]

# A maximal run of word characters joined by '-' or '.': the unit every lookup works on, so a
# match can never be part of a longer token.
_RUN = re.compile(r"[A-Za-z0-9_]+(?:[-.][A-Za-z0-9_]+)*")
_FLAG = re.compile(r"(?<![\w-])--([A-Za-z][\w-]*)=([^\s\"'`,;)\]]+)")
_BARE_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*(?![\w=-])")
_SEMVER = re.compile(r"\d+(?:\.\d+){2,}")
_NAMED_VERSION = re.compile(r"(?<![\w-])(?:version|release)\s+v?(\d+(?:\.\d+)+)(?![\w-]|\.\d)", re.I)
_TOPOLOGY = re.compile(r"\d+x\d+(?:x\d+)*")
_MACHINE = re.compile(
    r"[a-z][a-z0-9]*\d[a-z0-9]*-(?:\d+[a-z]?|(?:standard|highmem|highcpu|megamem|ultramem)-\d+[a-z]?)", re.I
)
_RELEASE_WORDS = re.compile(r"(?:^|[-._])(?:alpha|beta|rc\d*|nightly|pjrt|base|tf|pt|jax)(?:$|[-._])", re.I)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
# A command: at a line start (after an optional prompt or list number) or after a lead-in ':',
# two or more lower-case words (the program and its subcommands or arguments) followed by flags
# up to the end of the line.
_COMMAND = re.compile(
    r"(?:^|(?<=:)[ \t]+)[ \t]*(?:\$[ \t]+|\d+\.[ \t]+)?"
    r"([a-z][\w.-]*(?:[ \t]+(?!--)[\w.$\[\]{}/=:-]+)+(?:[ \t]+(?:\\\n[ \t]*)?--[A-Za-z][\w-]*(?:=[^\s\"'`]+)?)+)"
    r"(?=[ \t]*(?:$|[.;,)]))",
    re.M,
)

# Units a generation-specific number comes with. Keys are lower case; values are the canonical
# spelling. Counts of hardware pieces are canonically plural ("4 chips").
UNITS: dict[str, str] = {
    "kb": "KB", "mb": "MB", "gb": "GB", "tb": "TB", "pb": "PB",
    "kib": "KiB", "mib": "MiB", "gib": "GiB", "tib": "TiB", "pib": "PiB",
    "gbps": "Gbps", "tbps": "Tbps", "gb/s": "GB/s", "tb/s": "TB/s",
    "tflops": "TFLOPs", "tflop": "TFLOPs", "pflops": "PFLOPs", "pflop": "PFLOPs",
    "tops": "TOPS", "mhz": "MHz", "ghz": "GHz",
    "chip": "chips", "chips": "chips",
    "tensorcore": "TensorCores", "tensorcores": "TensorCores",
    "sparsecore": "SparseCores", "sparsecores": "SparseCores",
    "core": "cores", "cores": "cores",
    "host": "hosts", "hosts": "hosts",
    "vm": "VMs", "vms": "VMs",
    "node": "nodes", "nodes": "nodes",
    "slice": "slices", "slices": "slices",
    "cube": "cubes", "cubes": "cubes",
}  # fmt: skip
NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
}  # fmt: skip
# Units of everyday measures (time, share, power). An answer that states one must be grounded
# like any value, but the doc set rarely ties them to a generation ("wait 5 minutes"), so the
# audit and the owned-value table (`scan`) leave them out; `values` reads them.
MEASURES: dict[str, str] = {
    "ms": "ms", "millisecond": "ms", "milliseconds": "ms",
    "s": "seconds", "sec": "seconds", "second": "seconds", "seconds": "seconds",
    "min": "minutes", "minute": "minutes", "minutes": "minutes",
    "hour": "hours", "hours": "hours", "day": "days", "days": "days",
    "%": "%", "percent": "%", "w": "W", "kw": "kW", "watt": "W", "watts": "W",
    "device": "devices", "devices": "devices",
}  # fmt: skip
_UNIT_ALTERNATION = "|".join(re.escape(u) for u in sorted(UNITS, key=lambda u: (-len(u), u)))
_WORD_ALTERNATION = "|".join(sorted(NUMBER_WORDS, key=lambda w: (-len(w), w)))
_QUALIFIER = r"(?:(?:TPU|HBM|physical|logical)[ \t])?"
# "4 chips", "4-chip", "95GB", "4 TPU chips", "95 GB of HBM" (the unit is "GB"), "4,614 TFLOPs".
_QUANTITY = re.compile(
    rf"(?<![\w.,/=-])(\d{{1,3}}(?:,\d{{3}})+|\d+)(\.\d+)?(?:[ \t]?-[ \t]?|[ \t])?{_QUALIFIER}"
    rf"({_UNIT_ALTERNATION})(?![A-Za-z0-9_])",
    re.I,
)
# "eight chips", "four-chip", "a dozen cores".
_WORD_QUANTITY = re.compile(
    rf"(?<![\w-])({_WORD_ALTERNATION})(?:[ \t]?-[ \t]?|[ \t]){_QUALIFIER}({_UNIT_ALTERNATION})(?![A-Za-z0-9_])", re.I
)
_NUMBER_WORD = re.compile(rf"(?<![\w-])(?:{_WORD_ALTERNATION})(?=[ \t-])")
_MEASURE_ALTERNATION = "|".join(re.escape(u) for u in sorted(MEASURES, key=lambda u: (-len(u), u)))
_MEASURE = re.compile(
    rf"(?<![\w.,/=-])(\d{{1,3}}(?:,\d{{3}})+|\d+)(\.\d+)?(?:[ \t]?-[ \t]?|[ \t])?({_MEASURE_ALTERNATION})(?![A-Za-z0-9_%])",
    re.I,
)
_DIGIT = re.compile(r"\d")
_SEPARATOR = re.compile(r"[-._]")
_BARE_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
# "HBM per chip: 32": a label (words, ending in a letter or ')') then ':' then a number. The
# colon is found first; the label is read backwards from it on its line.
_COLON_NUMBER = re.compile(r":[ \t]*(?=\d)")
_LABEL_BEFORE = re.compile(r"(?<![\w-])([A-Za-z][\w()/ -]*[A-Za-z)])[ \t]*\Z")
_PARENTHESES = re.compile(r"\(([^()]*)\)")
_PER = re.compile(r"\bper\b", re.I)
_OF = re.compile(r"\bof\b", re.I)
_UNIT_LIKE = re.compile(r"[A-Za-z][A-Za-z/]*")
_LABEL_BREAK = re.compile(r"[.,;!?]\s|\s(?:and|or|but|then|while|whereas)\s", re.I)
_NUMBER_AT = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|[.,-]\w)")
_WORD = re.compile(r"[A-Za-z0-9]+")
# Words a label may carry that say nothing about what is measured: function words, and the
# words that open a note or an answer ("Note: 4 chips per VM" is labelled by nothing).
_STOP = frozenset(
    "a an and are as at be by each every for from has have in is it its of on or per the to with "
    "note tip important remember restriction attention caution danger warning notice answer result "
    "example summary".split()
)


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    value: str  # canonical form: as written, except quantities ("4 TPU chips" -> "4 chips")
    kind: TokenKind
    label: str = ""  # the row label or the words before ':' the value stands after, if any
    header: str = ""  # the column header of a table cell, if any

    @property
    def key(self) -> str:
        return lookup_key(self.value)

    @property
    def number(self) -> str | None:
        """The number of a quantity or a labelled number ("4 chips" -> "4")."""
        if self.kind == "number":
            return self.value
        if self.kind == "quantity":
            return self.value.split(" ", 1)[0]
        return None


def lookup_key(value: str) -> str:
    """The key a value is compared by: case-folded, whitespace collapsed."""
    return " ".join(value.split()).casefold()


def words(text: str) -> frozenset[str]:
    """The content words of a label or clause, compared loosely: case-folded, singular, no
    stop words ("HBM capacity per chip" -> {hbm, capacity, chip})."""
    result = set()
    for word in _WORD.findall(text):
        word = word.casefold()
        if word in _STOP:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        result.add(word)
    return frozenset(result)


@lru_cache(maxsize=65536)
def classify(run: str) -> TokenKind | None:
    """The kind of a maximal run of word characters, or None when it is not distinctive."""
    if not _DIGIT.search(run):
        return None  # every distinctive kind has a digit; most words end here
    if _TOPOLOGY.fullmatch(run):
        return "machine-type"
    if _SEMVER.fullmatch(run):
        return "version"
    parts = _SEPARATOR.split(run)
    if len(parts) < 2 or not any(c.isdigit() for c in run) or not any(c.isalpha() for c in run):
        return None
    if _MACHINE.fullmatch(run):
        return "machine-type"
    if _RELEASE_WORDS.search(run) or re.match(r"v\d", run, re.I) or re.search(r"\d\.\d", run):
        return "version"
    return "identifier"


def quantity(number: str, fraction: str | None, unit: str) -> str:
    """Canonical form of a number with its unit: commas dropped, unit spelled canonically."""
    canonical = UNITS.get(unit.lower()) or MEASURES[unit.lower()]
    digits = number.replace(",", "") + (fraction or "")
    if digits == "1" and canonical.endswith("s") and canonical[0].islower():
        canonical = canonical[:-1]
    return f"{digits} {canonical}"


def unit_word(word: str) -> str | None:
    """The canonical unit for a word such as 'chips' or 'gib', if it is one."""
    return UNITS.get(word.lower())


@lru_cache(maxsize=4096)
def label_unit(label: str) -> str | None:
    """The unit a label names for the number after it: a unit in parentheses ("Memory (GiB)"),
    else the last unit word of what the label measures, the part before 'per' and after 'of'
    ("Chips per VM" -> Chips, "Number of TPU chips" -> chips, "VM chips" -> chips; "HBM per
    chip" -> None: it counts HBM, not chips)."""
    for inner in _PARENTHESES.findall(label):
        if unit_word(inner.strip()):
            return inner.strip()
    measure = _PER.split(_PARENTHESES.sub(" ", label), maxsplit=1)[0]
    measure = _OF.split(measure)[-1]
    units = [word for word in _UNIT_LIKE.findall(measure) if unit_word(word)]
    return units[-1] if units else None


def is_bare_number(text: str) -> bool:
    return _BARE_NUMBER.fullmatch(text.strip()) is not None


def number_of(text: str) -> str | None:
    """The canonical number of a bare number or a number word ("8,960" -> "8960", "eight" -> "8")."""
    text = text.strip()
    if text.casefold() in NUMBER_WORDS:
        return str(NUMBER_WORDS[text.casefold()])
    return text.replace(",", "") if is_bare_number(text) else None


def scan(text: str) -> list[Token]:
    """Every distinctive token in text, in text order, no two overlapping.

    Where spans overlap the longer one wins ("4 TPU chips" over nothing; a flag's distinctive value
    is reported as the value, not as the flag).
    """
    found: list[Token] = []
    lower = text.lower()
    for match in _RUN.finditer(text):
        kind = classify(match.group())
        if kind is not None:
            found.append(Token(match.start(), match.end(), match.group(), kind))
    if "version" in lower or "release" in lower:
        for match in _NAMED_VERSION.finditer(text):
            found.append(Token(match.start(1), match.end(1), match.group(1), "version"))
    for match in _FLAG.finditer(text):
        flag_value = match.group(2).rstrip(".")
        if any(c in flag_value for c in "$<>{}"):
            continue  # a placeholder (--zone=${ZONE}), not a value
        if any(classify(run) for run in _RUN.findall(flag_value)):
            continue  # the value itself is the token
        end = match.start(2) + len(flag_value)
        if flag_value:
            found.append(Token(match.start(), end, text[match.start() : end], "flag"))
    for match in _QUANTITY.finditer(text):
        found.append(Token(match.start(), match.end(), quantity(match[1], match[2], match[3]), "quantity"))
    # Number words are found in the lower-cased text (a case-insensitive alternation over the
    # whole text is several times slower), then matched with their unit where they start.
    for word in _NUMBER_WORD.finditer(lower):
        match = _WORD_QUANTITY.match(text, word.start())
        if match:
            value = quantity(str(NUMBER_WORDS[match[1].casefold()]), None, match[2])
            found.append(Token(match.start(), match.end(), value, "quantity"))
    return _labelled(text, non_overlapping(found))


def values(text: str) -> list[Token]:
    """Every value an answer can state: the distinctive tokens of `scan`, plus code spans,
    commands, whole flags (`--version=v2-alpha-tpuv6e`), bare flags (`--version`) and numbers
    with an everyday unit (`30 seconds`, `5-minute`, `50%`: `MEASURES`)."""
    found = list(scan(text))
    for match in _MEASURE.finditer(text):
        found.append(Token(match.start(), match.end(), quantity(match[1], match[2], match[3]), "quantity"))
    for match in _CODE_SPAN.finditer(text):
        code = match.group(1).strip()
        if code:
            found.append(Token(match.start(1), match.start(1) + len(code), code, "code"))
    for match in _COMMAND.finditer(text):
        command = match.group(1).rstrip(".")
        found.append(Token(match.start(1), match.start(1) + len(command), command, "command"))
    for match in _FLAG.finditer(text):
        flag_value = match.group(2).rstrip(".")
        if flag_value and not any(c in flag_value for c in "$<>{}"):
            end = match.start(2) + len(flag_value)
            found.append(Token(match.start(), end, text[match.start() : end], "flag"))
    for match in _BARE_FLAG.finditer(text):
        found.append(Token(match.start(), match.end(), match.group(), "flag"))
    return non_overlapping(found)


def non_overlapping(tokens: list[Token]) -> list[Token]:
    """Keep the longest of overlapping tokens (earliest first on ties, a quantity before an
    identifier: "4-chip" is 4 chips), in text order."""
    kept: list[Token] = []
    for token in sorted(tokens, key=lambda t: (-(t.end - t.start), t.start, t.kind != "quantity", t.kind)):
        if all(token.end <= k.start or token.start >= k.end for k in kept):
            kept.append(token)
    return sorted(kept, key=lambda t: t.start)


# -- labels: table rows and "label: value" --------------------------------------------------------


@dataclass(frozen=True)
class _Cell:
    start: int  # of the value, stripped
    end: int
    label: str
    header: str


def _cells(text: str) -> list[_Cell]:
    """Value cells of `a | b` table lines (the first line of a block of two or more such lines is
    its header row when its value cells hold no digit) and the value after `label:`."""
    cells: list[_Cell] = []
    header: list[str] | None = None
    previous_row = False
    position = 0
    for line in text.split("\n"):
        start, position = position, position + len(line) + 1
        if "|" not in line:
            previous_row, header = False, None
            continue
        parts = _split_cells(line, start)
        if not previous_row:
            header = None
            following = text[position:].split("\n", 1)[0]
            cells_here = [text[s:e] for s, e in parts]
            if "|" in following and not any(_DIGIT.search(c) for c in cells_here[1:]):
                # The first line of a block of rows, all words: the block's header row.
                header = cells_here
                previous_row = True
                continue
        previous_row = True
        label = text[parts[0][0] : parts[0][1]]
        for column, (s, e) in enumerate(parts[1:], start=1):
            column_header = header[column] if header and column < len(header) else ""
            cells.append(_Cell(s, e, label, column_header))
    for colon in _COLON_NUMBER.finditer(text):
        line_start = text.rfind("\n", 0, colon.start()) + 1
        before = _LABEL_BEFORE.search(text[max(line_start, colon.start() - 80) : colon.start()])
        number = _NUMBER_AT.match(text, colon.end())
        if before is None or number is None:
            continue
        # The label is the phrase right before ':', not the clause it ends ("4 chips and HBM
        # per chip: 95" labels 95 with "HBM per chip").
        label = _LABEL_BREAK.split(before.group(1))[-1].strip()
        label = " ".join(label.split()[-6:])
        cells.append(_Cell(colon.end(), _value_end(text, number), label, ""))
    return cells


def _split_cells(line: str, offset: int) -> list[tuple[int, int]]:
    spans = []
    column_start = 0
    for piece in line.split("|"):
        stripped = piece.strip()
        lead = len(piece) - len(piece.lstrip())
        s = offset + column_start + lead
        spans.append((s, s + len(stripped)))
        column_start += len(piece) + 1
    return spans


def _value_end(text: str, number: re.Match) -> int:
    """The end of the value that starts with number: its unit too, if one follows."""
    unit = _QUANTITY.match(text, number.start())
    return unit.end() if unit else number.end()


def _labelled(text: str, found: list[Token]) -> list[Token]:
    """Attach labels to the tokens in labelled cells, and read the bare numbers there."""
    result = list(found)
    for cell in _cells(text):
        inside = [i for i, t in enumerate(result) if cell.start <= t.start and t.end <= cell.end]
        for i in inside:
            token = result[i]
            result[i] = Token(token.start, token.end, token.value, token.kind, cell.label, cell.header)
        if inside:
            continue
        cell_text = text[cell.start : cell.end]
        if not is_bare_number(cell_text):
            continue
        if any(t.start < cell.end and cell.start < t.end for t in result):
            continue
        number = cell_text.replace(",", "")
        unit = label_unit(cell.label) or label_unit(cell.header)
        if unit:
            whole, _, fraction = number.partition(".")
            value, kind = quantity(whole, "." + fraction if fraction else None, unit), "quantity"
        else:
            value, kind = number, "number"
        result.append(Token(cell.start, cell.end, value, kind, cell.label, cell.header))
    return sorted(result, key=lambda t: t.start)


# -- comparing values ------------------------------------------------------------------------------


def normal_code(text: str) -> str:
    """Code compared loosely: continued lines joined, whitespace collapsed."""
    return " ".join(text.replace("\\\n", " ").split())


def states(text: str, value: Token, found: list[Token] | None = None) -> bool:
    """Does text state value? The rule the answer checks and the scorer share:

    - a quantity: text has a quantity with the same canonical value, in any shape ("8 chips",
      "eight chips", "8-chip", a row "Chips per host | 8"); when the value carries a label, the
      label's content words all stand in the clause (line or sentence) where text states it, or
      in that value's own row label or column header;
    - a labelled number ("HBM per chip: 32"): text states the same number, as a bare number or
      with any unit, in a clause holding every content word of the label;
    - a code span or command: it occurs in text, whitespace and continued lines aside;
    - a flag `--name=value`: text has it, or `--name value`; a bare flag `--name`: text has it,
      with or without a value;
    - anything else (versions, machine types, identifiers): it occurs in text character for
      character, as a whole token, or the grammar reads the same value out of text.
    `found` is `values(text)`, when the caller has it already.
    """
    if value.kind in ("code", "command"):
        return normal_code(value.value) in normal_code(text)
    if value.kind == "flag":
        name, eq, flag_value = value.value.partition("=")
        if not eq:
            return re.search(re.escape(name) + r"(?![\w-])", text) is not None
        return any(
            appears(form, normal_code(text)) for form in (value.value, f"{name} {flag_value}")
        )
    if value.kind in ("quantity", "number"):
        found = values(text) if found is None else found
        need = words(value.label)
        clauses = segments(text)
        for other in found:
            if other.kind not in ("quantity", "number"):
                continue
            same = other.key == value.key if value.kind == "quantity" else other.number == value.number
            if same and (not need or need <= context(text, other, clauses)):
                return True
        if value.kind == "number":
            return _bare_number_in_clause(text, value.value, need, clauses)
        return False
    # Or the grammar reads the same value out of text: a JVM property `-Dp4.ssl="true"` is read as
    # `Dp4.ssl`, which does not stand alone in the text it was read from.
    return appears(value.value, text) or any(
        other.kind == value.kind and other.value == value.value for other in (values(text) if found is None else found)
    )


def context(text: str, token: Token, clauses: list[Segment]) -> frozenset[str]:
    """The words next to a token: its clause, its row label and its column header."""
    around = next((text[s.start : s.end] for s in clauses if s.start <= token.start < s.end), "")
    return words(around) | words(token.label) | words(token.header)


def _bare_number_in_clause(text: str, number: str, need: frozenset[str], clauses: list[Segment]) -> bool:
    pattern = re.compile(r"(?<![\w.,-])" + _number_pattern(number) + r"(?![\w]|[.,-]\w)")
    return any(
        pattern.search(text, s.start, s.end) and need <= words(text[s.start : s.end]) for s in clauses
    )


def _number_pattern(number: str) -> str:
    whole, _, fraction = number.partition(".")
    grouped = f"{int(whole):,}" if whole.isdigit() else whole
    body = "(?:" + re.escape(whole) + "|" + re.escape(grouped) + ")"
    return body + (re.escape("." + fraction) if fraction else "")


def appears(value: str, text: str) -> bool:
    """value occurs in text character for character, not as part of a longer token."""
    left = r"(?<![\w-])" if value[:1].isalnum() else ""
    # "v6e" inside "v6e-8" or "tpuv5" inside "tpuv5e" is a different token.
    right = r"(?![\w]|-\w)" if value[-1:].isalnum() else ""
    return re.search(left + re.escape(value) + right, text) is not None


def mentions(text: str, value: str) -> bool:
    """Does text mention value? For the scorer's expected and forbidden values: a value the
    grammar reads ("8 chips", "v2-alpha-tpuv6e") is compared canonically against the values of
    text ("eight chips" mentions "8 chips"); a bare number ("8") is mentioned by any quantity
    or labelled number with that number, or by the digits as a whole token; anything else
    (a phrase) is a case-insensitive whole-word match."""
    number = number_of(value)
    found = values(text)
    if number is not None:
        if any(t.number == number for t in found):
            return True
        return re.search(r"(?<![\w.,-])" + _number_pattern(number) + r"(?![\w]|[.,]\d)", text) is not None
    if phrase_pattern(value).search(text):
        return True
    parsed = values(value.strip())
    # One value, alone or after its label ("8 chips", "Chips per host | 8", "HBM per chip: 32").
    if len(parsed) == 1 and (parsed[0].label or (parsed[0].start, parsed[0].end) == (0, len(value.strip()))):
        return states(text, parsed[0], found)
    return False


def phrase_pattern(phrase: str) -> re.Pattern:
    """A case-insensitive pattern for a phrase as whole tokens (any whitespace between words)."""
    words_ = [re.escape(w) for w in phrase.split()]
    return re.compile(
        r"(?<![A-Za-z0-9_])(?<![A-Za-z0-9_][-.])" + r"\s+".join(words_) + r"(?![A-Za-z0-9_])(?![-.][A-Za-z0-9_])",
        re.I,
    )


@dataclass(frozen=True)
class Segment:
    start: int
    end: int
    lead_in: bool  # the segment ends with ':' (it introduces the next one: "For TPU v6e, run:")


_CLAUSE_END = re.compile(r"[.;!?](?=\s)")


def segments(text: str) -> list[Segment]:
    """Clauses of a text: lines (a line ending in '\\' continues on the next), split at . ; ! ?
    followed by whitespace. A value is "next to" a label when both are in one segment."""
    result: list[Segment] = []
    start = 0
    lines = text.split("\n")
    position = 0
    logical: list[tuple[int, int]] = []
    for index, line in enumerate(lines):
        end = position + len(line)
        if line.rstrip().endswith("\\") and index + 1 < len(lines):
            position = end + 1
            continue
        logical.append((start, end))
        position = end + 1
        start = position
    for line_start, line_end in logical:
        piece_start = line_start
        line = text[line_start:line_end]
        for match in _CLAUSE_END.finditer(line):
            piece_end = line_start + match.end()
            result.append(_segment(text, piece_start, piece_end))
            piece_start = piece_end
        result.append(_segment(text, piece_start, line_end))
    return [s for s in result if text[s.start : s.end].strip()]


def _segment(text: str, start: int, end: int) -> Segment:
    return Segment(start, end, text[start:end].rstrip().endswith(":"))
