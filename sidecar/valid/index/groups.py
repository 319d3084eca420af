"""Comparison groups: which chunks are the same place in the documentation, one per generation.

Computed once at index time from the export and stored in the release (`groups.json`), so a
comparison at question time costs two retrievals and dictionary lookups, never a scan:

- **Variants**: the export splits a chunk whose text differs by profile into variants
  (`<id>~<profiles>`); they share the id before `~` and form one group.
- **Counterparts**: chunks of different topics that play the same part for different generations
  (each generation's "System architecture" section, "Key specifications for TPU v5p" and "... for
  TPU v6e"): same chunk type, same local id and same title once the generations' own names are
  taken out, and pairwise disjoint scopes. A key that two chunks of one generation share is
  ambiguous and groups nothing.

Everything else is a group of its own. Per chunk the release also keeps its scope, so presence by
topic ("in scope for A, absent for B") is a lookup.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from valid.contracts import Chunk, ProfileInfo

GROUPS_SCHEMA = "valid-groups/1"


class Groups(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: str = GROUPS_SCHEMA
    group_of: dict[str, str] = Field(description="Chunk id → its group's key.")
    members: dict[str, list[str]] = Field(description="Group key → its chunk ids, in id order.")
    scopes: dict[str, list[str]] = Field(description="Chunk id → the profiles whose build keeps it.")
    topics: dict[str, list[str]] = Field(
        default_factory=dict, description="Topic (`<path>#<topic id>`) → the keys of its chunks' groups, in id order."
    )

    def group(self, chunk_id: str) -> list[str]:
        return self.members.get(self.group_of.get(chunk_id, ""), [chunk_id])

    def topic_groups(self, chunk_id: str) -> list[str]:
        """The group keys of every chunk of `chunk_id`'s topic (presence by topic is a lookup)."""
        return self.topics.get(topic_of(chunk_id), [self.group_of.get(chunk_id, chunk_id)])

    def member_for(self, chunk_id: str, profile: str) -> str | None:
        """The chunk of `chunk_id`'s group that is in scope for `profile`, if any."""
        for member in self.group(chunk_id):
            if profile in self.scopes.get(member, ()):
                return member
        return None


def topic_of(chunk_id: str) -> str:
    """`<path>#<topic id>` of a chunk id `<path>#<topic id>/<local>`."""
    path, _, rest = chunk_id.partition("#")
    return f"{path}#{rest.split('/', 1)[0]}"


def generation_names(profiles: Sequence[ProfileInfo]) -> dict[str, list[str]]:
    """Profile → the words that name it (name, labels, and the dotted version a label carries),
    longest first: text that differs only by these says the same thing for each generation."""
    result: dict[str, list[str]] = {}
    for profile in profiles:
        names = {profile.name, *profile.labels}
        for label in profile.labels:
            names |= set(re.findall(r"\bv?\d+(?:\.\d+)+\b", label))
        result[profile.name] = sorted((n for n in names if n.strip()), key=lambda n: (-len(n), n))
    return result


def without_names(text: str, names: Iterable[str]) -> str:
    """text with every generation name replaced by one placeholder (whole words, any case)."""
    for name in names:
        text = re.sub(r"(?<![\w.-])" + re.escape(name) + r"(?![\w]|[.-]\w)", "\x00", text, flags=re.I)
    return text


def _words(text: str, names: list[str]) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", without_names(re.sub(r"[-_/]", " ", text), names).lower()))


def _counterpart_key(chunk: Chunk, names: list[str]) -> tuple[str, frozenset[str]]:
    local = chunk.id.split("#", 1)[-1].split("~", 1)[0].split("/", 1)[-1]
    return chunk.type, _words(local, names)


def _compatible(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two titles name the same part once names are out: equal, or one says more ("Frameworks",
    "Supported frameworks"); an empty title (a generation's own name only) matches only another."""
    return a == b or (bool(a) and bool(b) and (a <= b or b <= a))


def _clusters(keys: list[str], titles: dict[str, frozenset[str]], unions: dict[str, set[str]]) -> list[list[str]]:
    """Counterpart clusters inside one bucket: titles compatible and scopes disjoint, pairwise."""
    clusters: list[list[str]] = []
    for key in sorted(keys, key=lambda k: (len(titles[k]), k)):
        for cluster in clusters:
            if all(_compatible(titles[key], titles[k]) and not unions[key] & unions[k] for k in cluster):
                cluster.append(key)
                break
        else:
            clusters.append([key])
    return [c for c in clusters if len(c) >= 2]


def build_groups(chunks: Sequence[Chunk], profiles: Sequence[ProfileInfo]) -> Groups:
    every = {p.name for p in profiles}
    all_names = sorted({n for ns in generation_names(profiles).values() for n in ns}, key=lambda n: (-len(n), n))
    scopes = {c.id: c.in_scope() for c in chunks}
    base: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        base[chunk.id.split("~", 1)[0]].append(chunk)
    # Counterparts: base groups not shared by every profile, keyed without the generations' names.
    by_key: dict[tuple[str, frozenset[str]], list[str]] = defaultdict(list)
    for key, members in base.items():
        union = set().union(*(scopes[c.id] for c in members))
        if union and union != every:
            by_key[_counterpart_key(members[0], all_names)].append(key)
    merged: dict[str, str] = {key: key for key in base}
    unions = {key: set().union(*(scopes[c.id] for c in chunks_)) for key, chunks_ in base.items()}
    for keys in by_key.values():
        # The chunk's place, not only its title: "Synopsis" of two commands are not counterparts.
        titles = {key: _words(" ".join([*base[key][0].breadcrumbs[1:], base[key][0].title]), all_names) for key in keys}
        for cluster in _clusters(keys, titles, unions):
            head = min(cluster)
            for key in cluster:
                merged[key] = head
    members: dict[str, list[str]] = defaultdict(list)
    group_of: dict[str, str] = {}
    for key, chunks_ in base.items():
        for chunk in chunks_:
            members[merged[key]].append(chunk.id)
            group_of[chunk.id] = merged[key]
    topics: dict[str, list[str]] = defaultdict(list)
    for chunk_id, key in sorted(group_of.items()):
        if key not in topics[topic_of(chunk_id)]:
            topics[topic_of(chunk_id)].append(key)
    return Groups(
        topics=dict(sorted(topics.items())),
        group_of=dict(sorted(group_of.items())),
        members={k: sorted(v) for k, v in sorted(members.items())},
        scopes=dict(sorted(scopes.items())),
    )
