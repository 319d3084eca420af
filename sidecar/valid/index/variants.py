"""Variants that differ only in names share one embedding input.

The exporter writes one variant per distinct text of a chunk (`<id>~<profiles>`). In a real guide
most variants differ only where a key resolves to each profile's own name (the product name), and a
profile-filtered search sees one variant per chunk identity. Embedding each of them costs a model
call for a near-identical vector, so the index embeds one input per group of such variants and gives
its vector to every variant of the group. BM25 keeps every variant's exact text; Chroma keeps one
record per variant with its own scope fields (docs/index.md says why).

The rule reads only the export itself:

- a profile's *names* are its labels (header `profiles[].labels`) and the owned values the header
  ties to it (`owned_values`: resolved key texts that differ by profile, scheme data values);
- a variant's input is *masked* by replacing every whole-token occurrence of a name of one of its own
  profiles with one placeholder (tokens as BM25 cuts them: `-` and `_` are inside a token, so
  `v5p-8` is not the name `v5p`);
- variants of one chunk identity whose masked inputs are equal form a group. Its representative is
  the variant kept by the most profiles (the first in export order on a tie), and every variant of the
  group is embedded as the representative's exact input.

A variant whose text differs in anything else (a value, a sentence, another profile's name) keeps an
input of its own.
"""

from __future__ import annotations

import functools
import re
from typing import Iterable, Sequence

from valid import tokens
from valid.audit.owned import base_id
from valid.contracts import Chunk, ExportHeader
from valid.index.manifest import embedding_input

# One placeholder per masked name: the same character whichever name it replaced.
_MASK = "\x00"
# A name is a whole token: not preceded or followed by a word character, '-' or '_' (the BM25
# tokenizer's token characters), so a name inside a longer token (`v5p-8`, `v5p_image`) is kept.
_EDGE_BEFORE, _EDGE_AFTER = r"(?<![\w\-])", r"(?![\w\-])"
# A proper name: capitalised first word; words of letters and digits, with inner '-', '.', '\'' or '&'.
_NAME = re.compile(r"[^\W\d_][\w'&.-]*(?: [\w'&.-]+)*")


def is_name(value: str) -> bool:
    """An owned value written as a proper name rather than a fact: words of letters and digits, the
    first capitalised, in which the value grammar of the answer checks finds no value. `Oxygen XML
    Author` is a name; `v2-alpha-tpuv6e`, `2.0.0`, `8`, `5 GiB`, `~/.app.toml` and `app login` are not."""
    return value[:1].isupper() and bool(_NAME.fullmatch(value)) and not tokens.values(value)


def profile_names(header: ExportHeader) -> dict[str, frozenset[str]]:
    """Per profile, the names the export ties to it: its labels and the owned values that are names."""
    names: dict[str, set[str]] = {p.name: {label for label in p.labels if label.strip()} for p in header.profiles}
    for owned in header.owned_values:
        if not is_name(owned.value):
            continue
        for profile in owned.profiles:
            if profile in names:
                names[profile].add(owned.value)
    return {p: frozenset(v) for p, v in names.items()}


def _pattern(names: Iterable[str]) -> re.Pattern | None:
    # Longest first, so 'Cloud TPU v5p' is masked whole rather than leaving 'Cloud TPU' around 'v5p'.
    ordered = tuple(sorted(set(names), key=lambda n: (-len(n), n)))
    return _compiled(ordered) if ordered else None


@functools.lru_cache(maxsize=256)
def _compiled(ordered: tuple[str, ...]) -> re.Pattern:
    # One pattern per set of names, built once: a word's chunks are masked by the thousand.
    return re.compile(_EDGE_BEFORE + "(?:" + "|".join(re.escape(n) for n in ordered) + ")" + _EDGE_AFTER)


def masked(text: str, names: Iterable[str]) -> str:
    """`text` with every whole-token occurrence of one of `names` replaced by one placeholder."""
    pattern = _pattern(names)
    return pattern.sub(_MASK, text) if pattern else text


def holds(text: str, names: Iterable[str]) -> bool:
    """Whether `text` has a whole-token occurrence of one of `names` (what `masked` would mask)."""
    pattern = _pattern(names)
    return bool(pattern and pattern.search(text))


def shared_inputs(chunks: Sequence[Chunk], header: ExportHeader) -> list[str]:
    """The embedding input of every chunk, in order: its own, or its group representative's."""
    profiles = [p.name for p in header.profiles]
    names = profile_names(header)
    inputs = [embedding_input(c.title, c.text) for c in chunks]
    by_identity: dict[str, list[int]] = {}
    for index, chunk in enumerate(chunks):
        by_identity.setdefault(base_id(chunk.id, profiles), []).append(index)
    patterns: dict[frozenset[str], re.Pattern | None] = {}
    for members in by_identity.values():
        if len(members) < 2:
            continue
        groups: dict[str, list[int]] = {}
        for index in members:
            kept = frozenset(chunks[index].in_scope())
            if kept not in patterns:
                patterns[kept] = _pattern(n for p in kept for n in names.get(p, ()))
            pattern = patterns[kept]
            key = pattern.sub(_MASK, inputs[index]) if pattern else inputs[index]
            groups.setdefault(key, []).append(index)
        for group in groups.values():
            representative = min(group, key=lambda i: (-len(chunks[i].in_scope()), i))
            for index in group:
                inputs[index] = inputs[representative]
    return inputs
