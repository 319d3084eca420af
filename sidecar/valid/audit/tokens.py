"""What a distinctive value looks like in documentation text.

The audit and the answer checks both need to find values such as `v2-alpha-tpuv6e`,
`tpu7x-standard-4t`, `--xla_foo=true` or `95 GB` in free text, as whole tokens (`v6e` inside
`v6e-8` is not the token `v6e`). This module is the one grammar for that, pure functions only.

Token kinds:

- `version`: a token with letters and digits joined by `-`, `.` or `_` that reads as a release
  (`v2-alpha-tpuv6e`, `tpu-vm-tf-2.18.0-pjrt`, `python3.11`), or a dotted number with three or more
  parts (`0.4.35`).
- `machine-type`: a hardware shape (`v6e-8`, `tpu7x-standard-4t`, `ct6e-standard-4t`) or a topology
  (`2x2x1`).
- `identifier`: any other token with at least two parts, a letter and a digit (`us-east5-a`).
- `flag`: `--name=value` whose value is not itself distinctive (`--xla_tpu_enable_x=true`); when
  the value is distinctive (`--version=v2-alpha-tpuv6e`) the value is the token.
- `quantity`: a number with a unit (`95 GB`, `4 TPU chips`, `4,614 TFLOPs`), canonicalised so
  `4-chip` and `4 TPU chips` are both `4 chips`. A bare number is never a token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

TokenKind = Literal["version", "machine-type", "identifier", "flag", "quantity", "term"]

# A maximal run of word characters joined by '-' or '.': the unit every lookup works on, so a
# match can never be part of a longer token.
_RUN = re.compile(r"[A-Za-z0-9_]+(?:[-.][A-Za-z0-9_]+)*")
_FLAG = re.compile(r"(?<![\w-])--([A-Za-z][\w-]*)=([^\s\"'`,;)\]]+)")
_SEMVER = re.compile(r"\d+(?:\.\d+){2,}")
_TOPOLOGY = re.compile(r"\d+x\d+(?:x\d+)*")
_MACHINE = re.compile(
    r"[a-z][a-z0-9]*\d[a-z0-9]*-(?:\d+[a-z]?|(?:standard|highmem|highcpu|megamem|ultramem)-\d+[a-z]?)", re.I
)
_RELEASE_WORDS = re.compile(r"(?:^|[-._])(?:alpha|beta|rc\d*|nightly|pjrt|base|tf|pt|jax)(?:$|[-._])", re.I)

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
_UNIT_ALTERNATION = "|".join(re.escape(u) for u in sorted(UNITS, key=lambda u: (-len(u), u)))
# "4 chips", "4-chip", "95GB", "4 TPU chips", "95 GB of HBM" (the unit is "GB"), "4,614 TFLOPs".
_QUANTITY = re.compile(
    r"(?<![\w.,/=-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?-\s?|\s)?(?:(?:TPU|HBM|physical|logical)\s)?"
    rf"({_UNIT_ALTERNATION})(?![A-Za-z0-9_])",
    re.I,
)
_DIGIT = re.compile(r"\d")
_SEPARATOR = re.compile(r"[-._]")
_BARE_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    value: str  # canonical form: as written, except quantities ("4 TPU chips" -> "4 chips")
    kind: TokenKind

    @property
    def key(self) -> str:
        return lookup_key(self.value)


def lookup_key(value: str) -> str:
    """The key a value is compared by: case-folded, whitespace collapsed."""
    return " ".join(value.split()).casefold()


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
    canonical = UNITS[unit.lower()]
    digits = number.replace(",", "") + (fraction or "")
    if digits == "1" and canonical.endswith("s") and canonical[0].islower():
        canonical = canonical[:-1]
    return f"{digits} {canonical}"


def unit_word(word: str) -> str | None:
    """The canonical unit for a word such as 'chips' or 'gib', if it is one."""
    return UNITS.get(word.lower())


def is_bare_number(text: str) -> bool:
    return _BARE_NUMBER.fullmatch(text.strip()) is not None


def scan(text: str) -> list[Token]:
    """Every distinctive token in text, in text order, no two overlapping.

    Where spans overlap the longer one wins ("4 TPU chips" over nothing; a flag's distinctive value
    is reported as the value, not as the flag).
    """
    found: list[Token] = []
    for match in _RUN.finditer(text):
        kind = classify(match.group())
        if kind is not None:
            found.append(Token(match.start(), match.end(), match.group(), kind))
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
    return non_overlapping(found)


def non_overlapping(tokens: list[Token]) -> list[Token]:
    """Keep the longest of overlapping tokens (earliest first on ties, a quantity before an
    identifier: "4-chip" is 4 chips), in text order."""
    kept: list[Token] = []
    for token in sorted(tokens, key=lambda t: (-(t.end - t.start), t.start, t.kind != "quantity", t.kind)):
        if all(token.end <= k.start or token.start >= k.end for k in kept):
            kept.append(token)
    return sorted(kept, key=lambda t: t.start)


def phrase_pattern(phrase: str) -> re.Pattern:
    """A case-insensitive pattern for a phrase as whole tokens (any whitespace between words)."""
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(
        r"(?<![A-Za-z0-9_])(?<![A-Za-z0-9_][-.])" + r"\s+".join(words) + r"(?![A-Za-z0-9_])(?![-.][A-Za-z0-9_])",
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
