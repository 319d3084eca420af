"""Scope findings: text shown to several generations that contains a value owned by one.

`find(export)` is pure. A chunk's variants are taken together (a shared step next to a profiled
sibling ends up in one variant per profile), and for every owned value in their texts:

- the value is *shown* to the profiles of the variants whose text contains it;
- it is a finding when exactly one profile owns it, it is shown to more than one profile, and some
  reader who does not own it sees an occurrence that is not deliberate. An occurrence is deliberate
  when
  1. a name or label of its owner stands in the same clause, or in a lead-in clause ending with ':'
     right before it ("TPU v6e (Trillium): v2-alpha-tpuv6e", "For TPU v6e, run: ..."), or
  2. the text lists its family completely: the values of that family (one key, the scheme's values,
     one token kind) in this text are owned, together, by at least two profiles and by every profile
     shown any of them (a comparison, such as "v5p-8, v6e-8 and tpu7x-standard-4t").

A value several generations own ("4 chips" for v5p and TPU7x) is right for some readers of a shared
chunk; the audit leaves it to the answer check, which knows the reader's generation. A value owned
by rule distinctive alone is reported only when its evidence is strong enough
(`OwnedValueTable.why`, see valid.audit.owned); every finding says why it fired (`why`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from valid import tokens
from valid.audit.owned import Occurrence, OwnedValueTable, Rule, chunk_texts, exposures, owned_values
from valid.tokens import TokenKind
from valid.contracts import Export, ProfileInfo


class Finding(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    fingerprint: str
    rule: Rule
    value: str
    kind: TokenKind
    owners: list[str]
    key: str | None = None
    chunk_id: str  # without the variant suffix
    variants: list[str]  # the chunk ids (with suffix) whose text shows the value
    shown_to: list[str]  # profiles whose build shows the value, in profile order
    path: str
    line: int
    excerpt: str  # the clause that holds the value
    why: str = ""  # what ties the value to its owners, and who is shown it without its owner's name

    def summary(self) -> str:
        """One line: where, what, whose, to whom, by which rule."""
        where = f"{self.path}:{self.line}" if self.line else self.path
        return (
            f"{where}: {self.chunk_id} shows {self.value} (owned by {', '.join(self.owners)}) "
            f"to {', '.join(self.shown_to)} [rule {self.rule}, {self.fingerprint[:12]}]"
        )


def fingerprint(rule: str, value: str, chunk_id: str, path: str) -> str:
    """Stable identity of a finding: not the line, so an edit above the chunk does not churn it."""
    return hashlib.sha256("\x1f".join([rule, value, chunk_id, path]).encode("utf-8")).hexdigest()


def find(export: Export, table: OwnedValueTable | None = None) -> list[Finding]:
    """Every finding of an export, sorted by path, line, chunk id and value."""
    table = table if table is not None else owned_values(export)
    # A table read back from JSON has no evidence for rule distinctive: it is computed again.
    reportable = table.why if table.why is not None else owned_values(export).why
    profiles = [p.name for p in export.header.profiles]
    order = {p: i for i, p in enumerate(profiles)}
    labels = _label_patterns(export.header.profiles)
    findings: list[Finding] = []
    for base, variants in exposures(export).items():
        found = [
            (chunk, scope, text, table.find(text)) for chunk, scope in variants for text in chunk_texts(chunk)
        ]
        shown: dict[str, set[str]] = {}  # value -> profiles whose text of this chunk shows it
        variant_ids: dict[str, list[str]] = {}
        for chunk, scope, _, occurrences in found:
            for occ in occurrences:
                shown.setdefault(occ.row.value, set()).update(scope)
                if chunk.id not in variant_ids.setdefault(occ.row.value, []):
                    variant_ids[occ.row.value].append(chunk.id)
        leaked: dict[str, str] = {}  # value -> the clause that shows it to a profile that does not own it
        for chunk, scope, text, occurrences in found:
            covered = _families_covering(occurrences, shown)
            for occ in occurrences:
                value = occ.row.value
                if value in leaked or scope <= set(occ.row.profiles):
                    continue  # only readers who do not own the value can be misled by it
                if covered & {o.family for o in occ.row.origins} or _labelled(text, occ, occurrences, labels):
                    continue
                leaked[value] = _clause(text, occ)
        chunk = variants[0][0]
        for value, clause in leaked.items():
            row = table.row(value)
            if row is None or len(row.profiles) != 1 or len(shown[value]) < 2:
                continue
            if row.rule == "distinctive" and tokens.lookup_key(row.value) not in reportable:
                continue  # owned for the answer checks; too little evidence to ask a writer to act
            origin = row.origins[0]
            readers = [p for p in sorted(shown[value], key=lambda p: order[p]) if p not in row.profiles]
            findings.append(
                Finding(
                    fingerprint=fingerprint(row.rule, row.value, base, chunk.source.path),
                    rule=row.rule,
                    value=row.value,
                    kind=row.kind,
                    owners=list(row.profiles),
                    key=origin.key if origin.rule == "keydef" else None,
                    chunk_id=base,
                    variants=variant_ids[value],
                    shown_to=sorted(shown[value], key=lambda p: order[p]),
                    path=chunk.source.path,
                    line=chunk.source.line,
                    excerpt=clause,
                    why=f"{_origin_reason(row, reportable)}; shown to {', '.join(readers)} with no name of "
                    f"{row.profiles[0]} beside it",
                )
            )
    return sorted(findings, key=lambda f: (f.path, f.line, f.chunk_id, tokens.lookup_key(f.value), f.value))


def _origin_reason(row, reportable: dict[str, str]) -> str:
    """What ties the value to its owner, by the row's strongest rule."""
    origin = row.origins[0]
    owner = ", ".join(row.profiles)
    if row.rule == "keydef":
        return f"key {origin.key} defines it for {owner} only"
    if row.rule == "scheme-data":
        return f"the subject scheme declares it for {owner} only"
    return reportable[tokens.lookup_key(row.value)]


def _families_covering(occurrences: list[Occurrence], shown: dict[str, set[str]]) -> set[str]:
    """Families listed completely in this text: their values here are owned, together, by at least
    two profiles and by every profile shown any of them (a comparison, not a leak)."""
    owners: dict[str, set[str]] = {}
    audience: dict[str, set[str]] = {}
    for occ in occurrences:
        for origin in occ.row.origins:
            owners.setdefault(origin.family, set()).update(origin.profiles)
            audience.setdefault(origin.family, set()).update(shown[occ.row.value])
    return {f for f in owners if len(owners[f]) >= 2 and audience[f] <= owners[f]}


def _label_patterns(profiles: Iterable[ProfileInfo]) -> dict[str, list]:
    result = {}
    for profile in profiles:
        names = sorted({profile.name, *profile.labels}, key=lambda n: (-len(n), n))
        result[profile.name] = [tokens.phrase_pattern(n) for n in names if n.strip()]
    return result


def _labelled(text: str, occ: Occurrence, occurrences: list[Occurrence], labels: dict[str, list]) -> bool:
    """A name or label of the value's owner is next to it (same clause, or a lead-in clause)."""
    segments = tokens.segments(text)
    index = next((i for i, s in enumerate(segments) if s.start <= occ.start < s.end), None)
    if index is None:
        return False
    windows = [segments[index]]
    if index > 0 and segments[index - 1].lead_in:
        windows.append(segments[index - 1])
    taken = [(o.start, o.end) for o in occurrences]
    for owner in occ.row.profiles:
        for pattern in labels.get(owner, []):
            for window in windows:
                for match in pattern.finditer(text, window.start, window.end):
                    # A label inside a value ('v6e' in 'v6e-8' is already excluded by the token
                    # boundaries; 'tpu7x' inside a term value is not a label of it).
                    if not any(s <= match.start() < e for s, e in taken):
                        return True
    return False


def _clause(text: str, occ: Occurrence) -> str:
    for segment in tokens.segments(text):
        if segment.start <= occ.start < segment.end:
            clause = " ".join(text[segment.start : segment.end].split())
            return clause if len(clause) <= 200 else clause[:197] + "..."
    return occ.text

