"""Comparison and availability: what differs between generations, computed, not generated.

Pure functions (no I/O). The export already knows, chunk by chunk, where one generation's text
differs from another's (variants) and what exists for one generation only (scope); the release
stores the groups that tie a chunk to its variants and counterparts (`valid.index.groups`). A
comparison is therefore computed exactly, every cell cited on its own side:

- **differs**: the group has a chunk for each generation and their texts differ (once the
  generations' own names are taken out: "Create a TPU v5p VM" and "Create a TPU v6e VM" say the
  same). Each cell holds that side's sentences or lines the other side does not have, verbatim,
  and the values (the value grammar's) it states that the other side does not.
- **only**: one generation has the chunk and another has nothing in its group; the absent side
  cites the nearest content of its own scope, so the absence is shown, not asserted.
- **shared**: one text for every generation compared (the same chunk, or variants that differ
  only by the generations' names).
- **availability**: "Is X available on G?" answered yes or no per generation, with the evidence:
  the topic titled X in G's content, or the sentence of G's content that mentions X (a sentence
  that says X is removed or not supported answers no), or, when G's content never mentions X,
  the nearest content of G.

`check_comparison` verifies every cell against its own generation: the cited chunk is in scope
for the cell's generation, it states every value of the cell, and no owned value of another
generation appears in the cell.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Collection, Literal, Mapping, Sequence

from valid import tokens
from valid.index.groups import Groups, without_names

from valid.answer.check import MappingOwned, OwnedLookup, citable_text, owned_values_in
from valid.answer.models import (
    CheckReport,
    Comparison,
    ComparisonCell,
    ComparisonRow,
    EvidenceChunk,
    ScopeResolution,
    StepFailure,
)
from valid.answer import cues
from valid.answer.reading import Reading
from valid.answer.text import STOPWORDS, stem, terms

Kind = Literal["difference", "availability"]

NOTHING_OWN = "(nothing beyond the text both share)"
# Values a table cell picks out: what readers compare, not whole commands or code spans.
_PICKED = frozenset({"version", "machine-type", "identifier", "flag", "quantity", "number"})

ROW_DEPTH = 5  # fused chunks per side whose groups may show a difference
EDGE_DEPTH = 3  # fused chunks per side whose groups may show a one-side-only or shared part
RELEVANCE_SHARE = 0.6  # a row holds at least this share of the best row's (weighted) question words
DIRECT_SHARE = 0.4  # ... or this share, for the groups of a side's best EDGE_DEPTH chunks
MAX_ROWS = 6
ONLY_UNITS = 6  # units of a one-side-only chunk shown in its cell

# The cues of a comparison (cues.COMPARES), of an availability question (cues.YESNO with
# cues.AVAILABILITY) and the words that only say what is asked are declared in valid.answer.cues.
# A sentence that says something is gone or not there answers "no".
_NEGATION = re.compile(
    r"\b(?:not|no\s+longer|removed|unsupported|cannot|can't|isn't|aren't|doesn't|don't|won't|never)\b|n't\b",
    re.I,
)


def named_by_values(question: str, resolution: ScopeResolution, owned) -> list[str]:
    """Generations a question names through a value the docs tie to one generation alone ("which
    version replaced v2-alpha-tpuv5 on v6e?" names v5p by its software version), not already named."""
    if owned is None:
        return []
    lookup = MappingOwned(owned) if isinstance(owned, Mapping) else owned
    extra: list[str] = []
    for text, owners in owned_values_in(question, lookup):
        kinds = {t.kind for t in tokens.scan(text)}
        if len(owners) == 1 and kinds and kinds <= {"version", "machine-type", "identifier"}:
            if owners[0] not in resolution.profiles and owners[0] not in extra:
                extra.append(owners[0])
    return extra


def with_value_names(question: str, resolution: ScopeResolution, owned, order: Sequence[str]) -> ScopeResolution:
    """The resolution with the generations named by their values added (in profile order), and
    those values no longer counted as unknown generation names."""
    extra = named_by_values(question, resolution, owned)
    if not extra:
        return resolution
    lookup = MappingOwned(owned) if isinstance(owned, Mapping) else owned
    unknown = [u for u in resolution.unknown if not owned_values_in(u, lookup)]
    profiles = [p for p in order if p in {*resolution.profiles, *extra}]
    return resolution.model_copy(update={"profiles": profiles, "unknown": unknown})


def comparison_kind(reading: Reading, resolution: ScopeResolution, owned=None) -> Kind | None:
    """Is this a comparison or availability question, and which?

    Availability: a yes/no question with an availability word ("Is X available on G?", "Does G
    support X?", "Can I still use X in G?") about one or more named generations. Comparison: two or
    more generations named (known or not) with a word that compares ("difference", "changed",
    "vs", "new in", "since"…), as the question's one reading (valid.answer.reading) says."""
    extra = named_by_values(reading.question, resolution, owned)
    if not resolution.profiles:
        return None
    if reading.availability:
        return "availability"
    unknown = [u for u in resolution.unknown if not extra or not owned_values_in(u, MappingOwned(owned) if isinstance(owned, Mapping) else owned)]
    if len(resolution.profiles) + len(extra) + len(unknown) >= 2 and reading.compares:
        return "difference"
    return None


def search_query(question: str, names: Sequence[str]) -> str:
    """What every side searches for: the question without any generation's names and without the
    words that only say "compare" (they would pull release notes and overviews to the top)."""
    text = without_names(question, names).replace("\x00", " ")
    text = cues.COMPARES.pattern.sub(" ", text)
    return " ".join(text.split()) or question


# -- units ---------------------------------------------------------------------------------------


def units(text: str) -> list[str]:
    """A chunk's text as compared: its lines, long lines split into sentences."""
    out: list[str] = []
    lines: list[str] = []
    for line in text.split("\n"):
        # A command continued with a trailing backslash is one unit: its flags are read together.
        if lines and lines[-1].rstrip().endswith("\\"):
            lines[-1] += "\n" + line
        else:
            lines.append(line)
    for line in lines:
        if not line.strip():
            continue
        if "\\\n" in line:
            out.append(line)
            continue
        out += [piece for piece in re.split(r"(?<=[.!?])\s+(?=[A-Z])", line) if piece.strip()]
    return out


def _normal(unit: str, names: Sequence[str]) -> str:
    # Step numbers aside: the same step is step 4 on one generation and step 6 on another.
    return " ".join(re.sub(r"^\s*\d+\.\s+", "", without_names(unit, names)).lower().split())


@dataclass(frozen=True)
class Side:
    """One generation compared: its profile, display label and the words that name it."""

    profile: str
    label: str
    names: tuple[str, ...]


def _topic(chunk: EvidenceChunk) -> str:
    crumbs = [c for c in chunk.breadcrumbs[1:] if c] or [chunk.title]
    return " › ".join(dict.fromkeys(crumbs))


def _first(chunk: EvidenceChunk, n: int = 1) -> str:
    found = units(chunk.text)
    return "\n".join(found[:n]) if found else chunk.title


def _differing_values(mine: str, others: Sequence[str]) -> list[str]:
    found = [tokens.values(o) for o in others]
    out: list[str] = []
    for value in tokens.scan(mine):
        if value.kind not in _PICKED:
            continue
        if not all(tokens.states(o, value, f) for o, f in zip(others, found)) and value.value not in out:
            out.append(value.value)
    return out


def difference_rows(
    sides: Sequence[Side],
    retrieved: Mapping[str, Sequence[EvidenceChunk]],
    groups: Groups,
    chunks: Mapping[str, EvidenceChunk],
    depth: int = ROW_DEPTH,
    max_rows: int = MAX_ROWS,
    query: str = "",
) -> list[ComparisonRow]:
    """The rows for the groups of each side's top `depth` chunks, best first: what differs, what
    exists for some sides only, and what is shared. `chunks` holds every group member in scope for
    a side (the flow fetches them); `retrieved` each side's fused chunks."""
    best: dict[str, tuple[int, int]] = {}
    for order, side in enumerate(sides):
        for rank, chunk in enumerate(retrieved.get(side.profile, [])[:depth]):
            key = groups.group_of.get(chunk.id, chunk.id)
            best[key] = min(best.get(key, (rank, order)), (rank, order))
            if rank < EDGE_DEPTH:
                # The topic asked about: every part of it is compared, ranked just after this chunk.
                for other in groups.topic_groups(chunk.id):
                    best.setdefault(other, (rank, order + len(sides)))
    all_names = sorted({n for s in sides for n in s.names}, key=lambda n: (-len(n), n))
    candidates: list[tuple[str, tuple[int, int], dict[str, EvidenceChunk]]] = []
    for key, position in sorted(best.items(), key=lambda item: (item[1], item[0])):
        members = {}
        for side in sides:
            member = next((m for m in groups.members.get(key, [key]) if side.profile in groups.scopes.get(m, ())), None)
            if member is not None and member in chunks:
                members[side.profile] = chunks[member]
        if members:
            candidates.append((key, position, members))
    relevance = _relevance(query, [members for _, _, members in candidates], all_names)
    top = max(relevance, default=0.0)
    rows: list[tuple[int, float, int, ComparisonRow]] = []
    for (key, position, members), score in zip(candidates, relevance):
        direct = position[1] < len(sides) and position[0] < EDGE_DEPTH
        # The best few chunks of a side are always compared; a topic's other parts and deeper
        # chunks only when they hold the question's (rarer) words about as well as the best row.
        if score < (DIRECT_SHARE if direct else RELEVANCE_SHARE) * top or (not direct and not score):
            continue
        row = _row(sides, members, retrieved, all_names)
        if row.kind != "differs" and not direct:
            continue
        priority = {"differs": 0, "only": 1, "shared": 2}[row.kind]
        rows.append((priority, position[0], -score, row))
    rows.sort(key=lambda item: item[:3])
    return [row for *_, row in rows[:max_rows]]


def _keys(text: str) -> set[str]:
    """Terms compared by their first five letters: "creating" and "create", "moved" and "move"."""
    return {t[:5] for t in terms(text) if t not in cues.ASKING_WORDS}


def _relevance(query: str, candidates: Sequence[Mapping[str, EvidenceChunk]], names: Sequence[str]) -> list[float]:
    """Per candidate group: the share of the question's words (weighted by rarity among the
    candidates) that its members' titles and texts hold."""
    wanted = _keys(without_names(query, names).replace("\x00", " "))
    held = [set().union(*(_keys(f"{c.title}\n{c.text}") for c in members.values())) for members in candidates]
    if not wanted or not held:
        return [0.0 for _ in candidates]
    n = len(held)
    weight = {t: 1.0 + math.log(n / max(1, sum(t in h for h in held))) for t in wanted}
    total = sum(weight.values())
    return [sum(w for t, w in weight.items() if t in h) / total for h in held]


def _row(sides, members: Mapping[str, EvidenceChunk], retrieved, all_names) -> ComparisonRow:
    first = next(iter(members.values()))
    topic = _topic(first)
    if len(members) < len(sides):
        cells = []
        for side in sides:
            chunk = members.get(side.profile)
            if chunk is not None:
                cells.append(ComparisonCell(generation=side.profile, text=_first(chunk, ONLY_UNITS), cite=chunk.id))
            else:
                nearest = next(iter(retrieved.get(side.profile, [])), None)
                text = f"Not in the {side.label} documentation."
                if nearest is not None:
                    text += f" Nearest {side.label} content: {nearest.title}."
                cells.append(
                    ComparisonCell(
                        generation=side.profile, text=text, cite=nearest.id if nearest else None, present=False
                    )
                )
        return ComparisonRow(kind="only", topic=topic, cells=cells)
    texts = {p: c.text for p, c in members.items()}
    normal = {p: [_normal(u, all_names) for u in units(t)] for p, t in texts.items()}
    if len({c.id for c in members.values()}) == 1 or len({tuple(n) for n in normal.values()}) == 1:
        return ComparisonRow(
            kind="shared",
            topic=topic,
            cells=[
                ComparisonCell(generation=s.profile, text=f"Same for {'both' if len(sides) == 2 else 'all'}: {members[s.profile].title}", cite=members[s.profile].id)
                for s in sides
            ],
        )
    common = set.intersection(*(set(n) for n in normal.values()))
    cells = []
    for side in sides:
        chunk = members[side.profile]
        own = [u for u, n in zip(units(chunk.text), normal[side.profile]) if n not in common]
        text = "\n".join(own) or NOTHING_OWN
        others = [citable_text(members[s.profile]) for s in sides if s.profile != side.profile]
        cells.append(
            ComparisonCell(generation=side.profile, text=text, values=_differing_values(text, others), cite=chunk.id)
        )
    return ComparisonRow(kind="differs", topic=topic, cells=cells)


# -- availability --------------------------------------------------------------------------------


def subject_words(question: str, matched: Sequence[str], names: Sequence[str]) -> list[str]:
    """What an availability question asks about: the longest run of words left once the words that
    named the generations, stop words and the words that only say what is asked are taken out
    ("Is the corvane login command available in version 2.4.1 of the CLI?" → corvane, login)."""
    text = question
    for words in sorted(matched, key=len, reverse=True):
        text = text.replace(words, "\x00")
    text = without_names(text, names)
    runs: list[list[str]] = [[]]
    # Words joined by "-", "_" or "/" are one run ("startup-script" → startup, script).
    text = re.sub(r"(?<=[A-Za-z0-9])[-_/](?=[A-Za-z0-9])", " ", re.sub(r"['’]\w*", "", text))
    for token in re.findall(r"[A-Za-z0-9]+|\x00|[^\sA-Za-z0-9]", text):
        word = token.lower()
        if not word.isalnum() or word in STOPWORDS or word in cues.ASKING_NOT_SUBJECT or word.isdigit():
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append(word)
    best = max(runs, key=len)
    return list(dict.fromkeys(best))


def _stems(text: str) -> list[str]:
    return [stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS]


def phrase_in(subject: Sequence[str], text: str) -> bool:
    """The subject's words stand next to each other, in order, in text (stop words aside)."""
    want = [stem(w) for w in subject]
    have = _stems(text)
    return bool(want) and any(have[i : i + len(want)] == want for i in range(len(have) - len(want) + 1))


def _all_in(subject: Sequence[str], text: str) -> bool:
    have = set(_stems(text))
    return bool(subject) and all(stem(w) in have for w in subject)


def topics_titled(subject: Sequence[str], candidates: Sequence) -> list:
    """The candidate chunks whose title names the subject (its words together, in order)."""
    return [c for c in candidates if phrase_in(subject, c.title)]


def availability_cell(
    side: Side,
    subject: Sequence[str],
    titled_scope: set[str] | None,
    titled: Sequence[EvidenceChunk],
    evidence: Sequence[EvidenceChunk],
) -> ComparisonCell:
    """Yes or no for one generation, with the evidence from its own scope.

    `titled_scope`: the generations whose content has a topic titled with the subject (None when
    no generation's has one); `titled`: those topic chunks in scope for this side; `evidence`: the
    side's retrieved chunks (and the chunks its BM25 finds for the subject)."""
    best: tuple[int, str, EvidenceChunk] | None = None
    for chunk in evidence:
        # Whole lines: "Removed: corvane mirror. Use corvane sync --delete." is one piece of evidence.
        for unit in [line.strip() for line in chunk.text.split("\n") if line.strip()]:
            score = 2 if phrase_in(subject, unit) else 1 if _all_in(subject, unit) else 0
            if score and _NEGATION.search(unit):
                score += 1  # a sentence that says it is gone decides
            if score and (best is None or score > best[0]):
                best = (score, unit, chunk)
    label = side.label
    if titled_scope is not None:
        if side.profile in titled_scope and titled:
            chunk = titled[0]
            negated = best is not None and best[0] >= 3 and best[2].id == chunk.id
            text = best[1] if negated else f"{chunk.title}: {_first(chunk)}"
            return ComparisonCell(generation=side.profile, text=text, cite=chunk.id, available=not negated)
        if best is not None:
            return ComparisonCell(generation=side.profile, text=best[1], cite=best[2].id, available=False)
    elif best is not None:
        return ComparisonCell(
            generation=side.profile, text=best[1], cite=best[2].id, available=not _NEGATION.search(best[1])
        )
    nearest = next(iter(evidence), None)
    words = " ".join(subject)
    text = f"The {label} documentation does not mention '{words}'."
    if nearest is not None:
        text += f" Nearest {label} content: {nearest.title}."
    return ComparisonCell(
        generation=side.profile, text=text, cite=nearest.id if nearest else None, present=False, available=False
    )


# -- the comparison ----------------------------------------------------------------------------


def summarise(kind: Kind, sides: Sequence[Side], rows: Sequence[ComparisonRow], subject: str = "") -> str:
    """The offline writer's summary: composed from the computed rows only, deterministically."""
    labels = {s.profile: s.label for s in sides}
    names = _join([s.label for s in sides])
    if kind == "availability":
        parts = []
        for row in rows:
            if row.kind != "availability":
                continue
            for cell in row.cells:
                parts.append(f"{labels[cell.generation]}: {'yes' if cell.available else 'no'}")
        return f"Is '{subject}' available? " + "; ".join(parts) + "."
    differs = [r for r in rows if r.kind == "differs"]
    only = [r for r in rows if r.kind == "only"]
    shared = [r for r in rows if r.kind == "shared"]
    if not differs and not only:
        if not shared:
            return f"Nothing to compare: the documentation for {names} has no content about this."
        return f"Nothing differs between {names} here: the same text applies to {'both' if len(sides) == 2 else 'all'}."
    lines = []
    for row in differs:
        pieces = [f"{labels[c.generation]} {', '.join(c.values)}" for c in row.cells if c.values]
        lines.append(f"{row.topic} differs" + (f" ({'; '.join(pieces)})" if pieces else ""))
    for row in only:
        present = [labels[c.generation] for c in row.cells if c.present]
        lines.append(f"{row.topic} exists for {_join(present)} only")
    text = "; ".join(lines) + "."
    if shared:
        text += f" {len(shared)} shared part(s) are the same."
    return text


def build_comparison(
    kind: Kind, sides: Sequence[Side], rows: Sequence[ComparisonRow], subject: str = "", summary: str | None = None
) -> Comparison:
    return Comparison(
        kind=kind,
        generations=[s.profile for s in sides],
        labels=[s.label for s in sides],
        summary=summary if summary is not None else summarise(kind, sides, rows, subject),
        rows=list(rows),
        subject=subject,
    )


# -- checks --------------------------------------------------------------------------------------


def check_comparison(
    comparison: Comparison,
    chunks: Mapping[str, EvidenceChunk],
    owned: OwnedLookup | Mapping[str, Collection[str]],
) -> CheckReport:
    """Every cell against its own generation: cited chunk in its scope, values stated there, no
    owned value of another generation. Summary values must be stated by a chunk of the table."""
    if isinstance(owned, Mapping):
        owned = MappingOwned(owned)
    failures: list[StepFailure] = []
    citations = citations_ok = values = values_ok = out_of_scope = 0
    index = 0
    # The model's statements (Gemini writer) are held to the same rule as the computed cells.
    spoken = [("statement", cell) for cell in comparison.statements]
    for topic, cell in [(row.topic, cell) for row in comparison.rows for cell in row.cells] + spoken:
        index += 1
        if cell.cite is None:
            continue
        citations += 1
        chunk = chunks.get(cell.cite)
        if chunk is None or cell.generation not in chunk.scope:
            failures.append(
                StepFailure(step=index - 1, check="citations_in_scope", reason=f"{topic}: the {cell.generation} cell cites {cell.cite}, not in scope for {cell.generation}")
            )
            continue
        citations_ok += 1
        source = citable_text(chunk)
        found = tokens.values(source)
        for value in tokens.values(cell.text) if cell.present else []:
            values += 1
            if tokens.states(source, value, found):
                values_ok += 1
            else:
                failures.append(
                    StepFailure(step=index - 1, check="values_grounded", reason=f"{topic}: {value.value!r} is not in the {cell.generation} chunk {cell.cite}")
                )
        for value, owners in owned_values_in(cell.text, owned):
            # A value the cell's own in-scope chunk states is that generation's, whoever else owns it.
            if cell.generation not in owners and not tokens.appears(value, source):
                out_of_scope += 1
                failures.append(
                    StepFailure(step=index - 1, check="out_of_scope_values", reason=f"{topic}: {value!r} belongs to {', '.join(owners)}, shown for {cell.generation}")
                )
    cited = [chunks[c.cite] for r in comparison.rows for c in r.cells if c.cite in chunks]
    cited += [chunks[c.cite] for c in comparison.statements if c.cite in chunks]
    sources = [citable_text(c) for c in cited]
    found_in = [tokens.values(s) for s in sources]
    # The generations' own names (labels carry versions: "Corvane CLI 2.4.1") are not values.
    summary = without_names(comparison.summary, sorted([*comparison.labels, *comparison.generations], key=len, reverse=True))
    for value in tokens.values(summary):
        values += 1
        if any(tokens.states(s, value, f) for s, f in zip(sources, found_in)):
            values_ok += 1
        else:
            failures.append(StepFailure(step=-1, check="values_grounded", reason=f"summary: {value.value!r} is in no cited chunk"))
    return CheckReport(
        passed=not failures,
        citations=citations,
        citations_in_scope=citations_ok,
        values=values,
        values_grounded=values_ok,
        out_of_scope_values=out_of_scope,
        failures=failures,
    )


def _join(names: Sequence[str]) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
