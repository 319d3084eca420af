"""What depends only on a release's content, computed once by `valid index` and stored with it.

The doc set's vocabulary (the abbreviations it defines, the command names it marks as code), its
owned-value table (valid.audit.owned), its title (the most common first breadcrumb) and how much
content each pair of builds shares (valid.answer.peers) are the same
for every question asked of one release. Computing them from every chunk at every start cost a CLI
question tens of seconds on a large doc set (the abbreviation scan alone is a regular expression
over every chunk), so the build computes them (`derive`) and writes `derived.json`; opening a
release reads that file back (`Derived.read`) and checks it against the digest its manifest records.

The comparison groups have their own file (valid.index.groups, `groups.json`).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from valid.contracts import Chunk, Export, ExportHeader

DERIVED_FILE = "derived.json"
DERIVED_SCHEMA = "valid-derived/1"


class StoredVocabulary(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    abbreviations: dict[str, list[str]] = Field(description="Short form → the long forms the doc set defines.")
    commands: list[str] = Field(description="Multi-word command names the doc set marks as code, sorted.")


class Derived(BaseModel):
    """The stored form: plain data, turned into the lookup objects by `vocabulary()` and `owned()`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: str = DERIVED_SCHEMA
    title: str = Field(description="The map's title: the most common first breadcrumb of the chunks.")
    vocabulary: StoredVocabulary
    owned: dict = Field(description="The owned-value table in its stable format (valid.audit.owned).")
    owned_why: dict[str, str] | None = Field(description="Rule distinctive values the audit reports, with why.")
    shared: dict[str, dict[str, int]] | None = Field(
        default=None,
        description="For each pair of profiles, the chunks in scope for both (valid.answer.peers); "
        "None in releases built before it was stored.",
    )

    def to_vocabulary(self, titles: Iterable[str] = (), common: Iterable[str] = ()):
        """The lookup object; `titles` (the release's chunk titles) and `common` (the words most of its
        chunks write) are read from its store, not kept here."""
        from valid.answer.abbreviations import Abbreviations
        from valid.answer.vocabulary import Vocabulary, is_command_name

        abbreviations = Abbreviations({short: tuple(longs) for short, longs in self.vocabulary.abbreviations.items()})
        commands = frozenset(c for c in self.vocabulary.commands if is_command_name(c))
        return Vocabulary(
            abbreviations=abbreviations, commands=commands, titles=frozenset(titles), common=frozenset(common)
        )

    def to_owned(self):
        from valid.audit.owned import OwnedValueTable

        table = OwnedValueTable.from_dict(self.owned)
        return OwnedValueTable(table.profiles, table.rows, table.ignored, self.owned_why)


def derive(chunks: Sequence[Chunk], header: ExportHeader) -> Derived:
    """Everything above, from a release's chunks and export header. Pure: same content, same data."""
    from valid.answer.vocabulary import read_vocabulary
    from valid.audit.owned import owned_values

    vocabulary = read_vocabulary(chunks)
    table = owned_values(Export(header=header, chunks=list(chunks)))
    return Derived(
        title=map_title(chunks),
        vocabulary=StoredVocabulary(
            abbreviations={short: list(longs) for short, longs in vocabulary.abbreviations.long_forms.items()},
            commands=sorted(vocabulary.commands),
        ),
        owned=table.to_dict(),
        owned_why=table.why,
        shared=shared_counts((c.scope for c in chunks), [p.name for p in header.profiles]),
    )


def shared_counts(scopes: Iterable[Mapping[str, bool]], profiles: Sequence[str]) -> dict[str, dict[str, int]]:
    """For each pair of profiles, how many chunks (given by their scopes: profile -> in scope) are in
    scope for both (a profile with itself: its own count)."""
    both = {a: dict.fromkeys(profiles, 0) for a in profiles}
    for scope in scopes:
        inside = [p for p in profiles if scope.get(p)]
        for a in inside:
            row = both[a]
            for b in inside:
                row[b] += 1
    return both


def map_title(chunks: Sequence[Chunk]) -> str:
    """The map's title is the first breadcrumb of every chunk (the export's contract); the most
    common one, should a chunk lack it."""
    firsts = Counter(c.breadcrumbs[0] for c in chunks if c.breadcrumbs)
    return firsts.most_common(1)[0][0] if firsts else ""
