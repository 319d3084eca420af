"""What the doc set itself says about its words, read once from every chunk when a release opens.

- **Abbreviations** it defines ("high-bandwidth memory (HBM)"): see abbreviations.py.
- **Titles** of its chunks: what a cross-reference shows of the topic it links to.
- **Command names** its writers marked as code: the leading words of each code phrase, up to its
  first option, placeholder or argument (`corvane push [OPTIONS] DIRECTORY VAULT` → "corvane push",
  `gcloud compute tpus tpu-vm create ${TPU_NAME}` → "gcloud compute tpus tpu-vm create"). A
  question that writes one of them in plain words ("which checksum does corvane push store") is
  about that command exactly as if it had put it in backticks, so it becomes an anchor (question.py):
  content without it cannot answer, and a generation without it is neither answered nor offered.

Only multi-word names count: a one-word code phrase ("debug", "pip") is as often an ordinary word;
and none with a function word: a code block's line of prose or sample text is no command.
Nothing of a chunk's text reaches an answer through this table; it only shapes searches and checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from valid.answer.abbreviations import Abbreviations, defined_in

MAX_COMMAND_WORDS = 6
# English function words: a line of a code block that holds one is prose or a sample's text ("a
# different value is", "appear in the"), not a command; command names are verbs and nouns.
_PROSE_WORDS = frozenset("""a an the of to in into on at by for from with as is are was were be been being that
    this these those it its they them their we our you your and or but not if than then so""".split())
# A word of a command name: lower-case letters, digits and inner hyphens (`tpu-vm`, `corvane-agent`).
_COMMAND_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class Vocabulary:
    abbreviations: Abbreviations = field(default_factory=Abbreviations)
    commands: frozenset[str] = frozenset()
    # Its chunks' titles: a cross-reference shows its target's title, so a passage that names one
    # of them sends the reader there ("See COMPUTE STATS Statement for details").
    titles: frozenset[str] = frozenset()
    # The words at least COMMON_SHARE of its chunks write, as its full-text index holds them (lower
    # case): the product's own name ("dita-ot" in DITA-OT's guide). Written in code form in a
    # question ("DITA-OT"), such a word is no anchor: nearly any passage holds it, so it picks none,
    # and a passage without it is no less an answer.
    common: frozenset[str] = frozenset()


# A word in a quarter of the chunks or more is the doc set's own vocabulary: "DITA-OT" is in 47 % of
# its guide's chunks, "Impala" in 87 % of Impala's, "Oxygen" and "XML" in 69 % of the Oxygen guide's,
# while a thing a question names in code form to find its passage (a flag, a parameter, a library)
# is in a few.
COMMON_SHARE = 0.25


def read_vocabulary(chunks) -> Vocabulary:
    """The vocabulary of these chunks (titles, texts and code phrases of every chunk)."""
    chunks = list(chunks)
    return Vocabulary(
        abbreviations=defined_in(f"{chunk.title}\n{chunk.text}" for chunk in chunks),
        commands=command_names(phrase for chunk in chunks for phrase in chunk.code),
        titles=frozenset(chunk.title for chunk in chunks if chunk.title),
    )


def command_names(code_phrases: Iterable[str]) -> frozenset[str]:
    """The multi-word command names that code phrases start with (one per line of each phrase)."""
    names: set[str] = set()
    for phrase in code_phrases:
        for line in phrase.splitlines():
            words = []
            for word in line.split():
                if not _COMMAND_WORD.fullmatch(word) or len(words) == MAX_COMMAND_WORDS:
                    break
                words.append(word)
            name = " ".join(words)
            if is_command_name(name):
                names.add(name)
    return frozenset(names)


def is_command_name(name: str) -> bool:
    """Two or more command words, none of them a function word. Also applied to the names a release
    stored when it was indexed, so a release indexed before a rule here changed reads the same names."""
    words = name.split()
    return 2 <= len(words) <= MAX_COMMAND_WORDS and not _PROSE_WORDS.intersection(words) and all(
        _COMMAND_WORD.fullmatch(w) for w in words
    )
