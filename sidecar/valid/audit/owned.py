"""The owned-value table: values the doc set ties to some generations and so to no other.

One table serves the audit (a shared chunk must not contain a value owned by one generation) and
the answer checks (an answer must not contain a value owned only by generations outside its scope).
It is computed from an export alone, deterministically:

Rule 1, from the export header (`header.owned_values`, computed by the export from the DITA source):
- `keydef`: the resolved text of a key whose definitions differ by profile;
- `scheme-data`: `<data name="valid-value" value="..."/>` declared per generation in the subject
  scheme.
Only the distinctive part of such a text is owned (see `valid.tokens`): a version string, a
machine type, a flag value or a number with its unit. A bare number ("4" from key `chips-per-vm`)
is owned only together with a unit named by its key ("4 chips"); plain prose ("use Compute Engine
or GKE") is not owned and is listed under `ignored` with the reason. A scheme-data value that is
a plain word or phrase is owned as written: the information architect declared it on purpose.

Rule 2, `distinctive`, from the chunks: a distinctive token is owned by P when every chunk text
that is shown to exactly one profile and contains the token is shown to P (and there is at least
one). Texts shown to several profiles are where the audit looks for leaks, so they are not evidence
of an owner; but a token that more chunks shown to several profiles use than chunks shown only to P
is the shared content's, not P's: one Windows-only topic that repeats the `--input=input-file` of
every other build topic does not make it a Windows value. A weak shape (below), which a profile
owns by repetition, is likewise the shared content's when chunks shown to several profiles repeat it
WEAK_EVIDENCE times or more (`Saxon 6.5.5` on pages Oxygen's Editor and Author share). Such a token
is owned by nobody and is listed under `ignored` with the counts.
The answer checks use every such value (an over-wide table only makes them stricter). The audit
reports one (`OwnedValueTable.why`) only when its shape is one a profile owns (`ownable`):
- a machine type, a flag, or a version with letters in it (`v2-alpha-tpuv6e`, `5.1.0-beta.2`):
  on one chunk of evidence;
- a shape of digits alone (a dotted number such as `0.7.2`, which a standard's criterion number
  `504.2.2` also has; a topology or a screen size such as `1920x1080`) and a quantity (`16 GB`):
  only when a name of P stands in the same clause in one of P's chunks ("TPU7x needs JAX 0.7.2"),
  or when WEAK_EVIDENCE of P's chunks use it;
- never identifiers (example values such as `real_value1`, regions, encodings, error codes), file
  names (`orders_2024.csv`), version ranges (`2.x`) or IPv4 addresses.

The stable format (`to_json()`; `format` and `version` change only together):

    {"format": "valid.owned-values", "version": 1, "profiles": ["v5p", "v6e", "tpu7x"],
     "values": [{"value": "v2-alpha-tpuv6e", "kind": "version", "profiles": ["v6e"],
                 "rule": "keydef",
                 "origins": [{"rule": "keydef", "profiles": ["v6e"], "family": "key:tpu-software-version",
                              "key": "tpu-software-version", "source": {...}, "chunk": null}, ...]}],
     "ignored": [{"value": "...", "rule": "keydef", "key": "...", "reason": "..."}]}

`values` is sorted by the case-folded value; `profiles` of a value is the union of its origins'
profiles, in the export's profile order; `rule` is its strongest origin (keydef, then scheme-data,
then distinctive).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from valid import tokens
from valid.tokens import Token, TokenKind, lookup_key
from valid.contracts import Chunk, Export, SourceLocation
from valid.errors import ConfigError

FORMAT = "valid.owned-values"
VERSION = 1
# Rule distinctive: the number of one profile's chunks that make a weak shape owned without its
# name beside it (a value a profile's pages repeat is that profile's).
WEAK_EVIDENCE = 3
_FILE_NAME = re.compile(r".*[A-Za-z0-9_]\.[A-Za-z]{1,5}")  # orders_2024.csv, setup-1.2.tar.gz
_RANGE = re.compile(r"(?:.*\.)?x", re.I)  # 2.x, 12.1.x: a range of versions, not one
_IPV4 = re.compile(r"(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}")
_DIGITS_ONLY = re.compile(r"[\d.x,]+", re.I)

Rule = Literal["keydef", "scheme-data", "distinctive"]
RULE_ORDER: dict[str, int] = {"keydef": 0, "scheme-data": 1, "distinctive": 2}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Origin(_Model):
    """Why a value is owned: one rule, and where the doc set says so."""

    rule: Rule
    profiles: list[str]
    family: str  # values of one family are alternatives of each other (one key, one token kind)
    key: str | None = None
    source: SourceLocation | None = None
    chunk: str | None = None  # rule distinctive: the first single-profile chunk that shows it


class OwnedRow(_Model):
    value: str
    kind: TokenKind
    profiles: list[str]
    rule: Rule
    origins: list[Origin]
    # Quantities: the content words next to the value where the doc set states it (its key's
    # name, its row label, its clause). A labelled bare number ("HBM per chip: 32") is this
    # value when its label's words are all among them.
    context: list[str] = []


class Ignored(_Model):
    value: str
    rule: Rule
    key: str | None = None
    reason: str


@dataclass(frozen=True)
class Occurrence:
    """An owned value found in a text."""

    start: int
    end: int
    text: str  # as written in the text
    row: OwnedRow


class OwnedValueTable:
    """Owned values with lookups; build it with `owned_values(export)`."""

    def __init__(
        self, profiles: list[str], rows: list[OwnedRow], ignored: list[Ignored], why: dict[str, str] | None = None
    ):
        self.profiles = list(profiles)
        # Rule distinctive values the audit reports: lookup key -> what the evidence was. Built
        # with the table from the export; not part of the stable format (None when read back).
        self.why = why
        self.rows = sorted(rows, key=lambda r: (lookup_key(r.value), r.value))
        self.ignored = sorted(ignored, key=lambda i: (lookup_key(i.value), RULE_ORDER[i.rule], i.key or ""))
        self._by_key = {lookup_key(r.value): r for r in self.rows}
        self._by_number: dict[str, list[OwnedRow]] = {}
        for r in self.rows:
            if r.kind == "quantity" and r.context:
                self._by_number.setdefault(r.value.split(" ", 1)[0], []).append(r)
        # Values that are not a single token of the grammar (scheme-data words and phrases) are
        # found by pattern; everything else by one scan and a dictionary lookup.
        self._patterns = [
            (tokens.phrase_pattern(r.value), r) for r in self.rows if r.kind == "term"
        ]

    # -- lookups -------------------------------------------------------------------------------
    def owners(self, value: str) -> list[str]:
        """The profiles that own value (in profile order), or [] when nobody owns it."""
        row = self._by_key.get(_canonical_key(value))
        return list(row.profiles) if row else []

    def row(self, value: str) -> OwnedRow | None:
        return self._by_key.get(_canonical_key(value))

    def values_owned_outside(self, scope: Iterable[str]) -> list[OwnedRow]:
        """Rows owned only by profiles outside scope: values an answer for scope must not contain."""
        wanted = set(scope)
        unknown = sorted(wanted - set(self.profiles))
        if unknown:
            raise ConfigError(f"unknown profile(s) {', '.join(unknown)}; known: {', '.join(self.profiles)}")
        return [r for r in self.rows if not wanted & set(r.profiles)]

    def as_mapping(self) -> dict[str, list[str]]:
        """value -> owners, in table order (the shape answer checks take)."""
        return {r.value: list(r.profiles) for r in self.rows}

    def find(self, text: str) -> list[Occurrence]:
        """Owned values in text, as whole tokens, in text order, no two overlapping."""
        candidates: list[Occurrence] = []
        for token in tokens.scan(text):
            row = self._by_key.get(token.key) if token.kind != "number" else self._labelled(token)
            if row is not None:
                candidates.append(Occurrence(token.start, token.end, text[token.start : token.end], row))
        for pattern, row in self._patterns:
            for match in pattern.finditer(text):
                candidates.append(Occurrence(match.start(), match.end(), match.group(), row))
        kept: list[Occurrence] = []
        for occ in sorted(candidates, key=lambda o: (-(o.end - o.start), o.start, o.row.value)):
            if all(occ.end <= k.start or occ.start >= k.end for k in kept):
                kept.append(occ)
        return sorted(kept, key=lambda o: o.start)

    def _labelled(self, token: Token) -> OwnedRow | None:
        """The owned quantity a labelled bare number stands for: same number, and every content
        word of its label is in the quantity's context ("HBM per chip: 32" -> "32 GiB")."""
        need = tokens.words(token.label) | tokens.words(token.header)
        if not need:
            return None
        for row in self._by_number.get(token.value, []):
            if need <= set(row.context):
                return row
        return None

    def find_outside(self, text: str, scope: Iterable[str]) -> list[Occurrence]:
        """Owned values in text that no profile of scope owns."""
        wanted = set(scope)
        return [o for o in self.find(text) if not wanted & set(o.row.profiles)]

    # -- stable format -------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "profiles": self.profiles,
            "values": [r.model_dump(mode="json") for r in self.rows],
            "ignored": [i.model_dump(mode="json") for i in self.ignored],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def from_dict(cls, data: dict) -> OwnedValueTable:
        if data.get("format") != FORMAT or data.get("version") != VERSION:
            raise ConfigError(
                f"not an owned-value table of format {FORMAT} version {VERSION} "
                f"(got {data.get('format')!r} version {data.get('version')!r})"
            )
        return cls(
            data["profiles"],
            [OwnedRow.model_validate(r) for r in data["values"]],
            [Ignored.model_validate(i) for i in data.get("ignored", [])],
        )

    @classmethod
    def from_json(cls, text: str) -> OwnedValueTable:
        return cls.from_dict(json.loads(text))

    def __len__(self) -> int:
        return len(self.rows)


def _canonical_key(value: str) -> str:
    """Lookup key for a caller's value: a quantity is compared in its canonical form."""
    found = tokens.scan(value)
    if len(found) == 1 and found[0].kind == "quantity" and value.strip() == value[found[0].start : found[0].end]:
        return found[0].key
    return lookup_key(value)


# -- building ---------------------------------------------------------------------------------


@dataclass
class _Draft:
    value: str
    kind: TokenKind
    origins: list[Origin]
    context: set[str]


def owned_values(export: Export) -> OwnedValueTable:
    """The owned-value table of an export (rules above). Pure: same export, same table."""
    profiles = [p.name for p in export.header.profiles]
    order = {p: i for i, p in enumerate(profiles)}
    drafts: dict[str, _Draft] = {}
    ignored: list[Ignored] = []

    def add(value: str, kind: TokenKind, origin: Origin, context: Iterable[str] = ()) -> None:
        draft = drafts.setdefault(lookup_key(value), _Draft(value, kind, [], set()))
        if origin not in draft.origins:
            draft.origins.append(origin)
        if kind == "quantity":
            draft.context.update(context)

    for owned in export.header.owned_values:
        owners = sorted(set(owned.profiles), key=lambda p: order.get(p, len(order)))
        if owned.rule == "keydef":
            family = f"key:{owned.key}" if owned.key else "keydef"
            parts = _keydef_parts(owned.value, owned.key)
            if not parts:
                reason = _why_not(owned.value, owned.key)
                ignored.append(Ignored(value=owned.value, rule="keydef", key=owned.key, reason=reason))
            for value, kind in parts:
                origin = Origin(rule="keydef", profiles=owners, family=family, key=owned.key, source=owned.source)
                add(value, kind, origin, tokens.words(owned.key or ""))
        else:
            value_kind = _scheme_value(owned.value)
            if value_kind is None:
                ignored.append(
                    Ignored(value=owned.value, rule="scheme-data", reason="a bare number: owned only with a unit")
                )
                continue
            value, kind = value_kind
            add(value, kind, Origin(rule="scheme-data", profiles=owners, family="scheme-data", source=owned.source))

    labels = {p.name: [tokens.phrase_pattern(n) for n in sorted({p.name, *p.labels}) if n.strip()] for p in export.header.profiles}
    distinctive, contexts, why, widespread = _distinctive(export, profiles, labels)
    ignored += widespread
    for key, (value, kind, profile, chunk_id) in sorted(distinctive.items()):
        family = f"distinctive:{kind}" + (f":{value.split(' ', 1)[1]}" if kind == "quantity" else "")
        origin = Origin(rule="distinctive", profiles=[profile], family=family, chunk=chunk_id)
        add(value, kind, origin)
    for key, words in contexts.items():
        if key in drafts:
            drafts[key].context.update(words)

    rows = []
    for draft in drafts.values():
        origins = sorted(draft.origins, key=lambda o: (RULE_ORDER[o.rule], o.family, o.profiles))
        union = sorted({p for o in origins for p in o.profiles}, key=lambda p: order.get(p, len(order)))
        rows.append(
            OwnedRow(
                value=draft.value,
                kind=draft.kind,
                profiles=union,
                rule=origins[0].rule,
                origins=origins,
                context=sorted(draft.context),
            )
        )
    return OwnedValueTable(profiles, rows, ignored, why)


def ownable(token: Token) -> str | None:
    """How strong a token's shape is as one profile's value, for rule distinctive: "strong" (owned
    on one chunk of evidence), "weak" (owned only with the profile's name beside it or on
    WEAK_EVIDENCE chunks), or None (never owned by that rule)."""
    value = token.value
    if token.kind in ("identifier", "number", "term") or _RANGE.fullmatch(value) or _IPV4.fullmatch(value):
        return None
    if token.kind == "version" and _FILE_NAME.fullmatch(value):
        return None
    if token.kind == "quantity" or _DIGITS_ONLY.fullmatch(value):
        return "weak"
    return "strong"


def _beside_name(text: str, token: Token, clauses: list[tokens.Segment], patterns: list[re.Pattern]) -> bool:
    """A name of the profile stands in the token's clause, outside the token itself."""
    for clause in clauses:
        if clause.start <= token.start < clause.end:
            return any(
                not (token.start <= m.start() < token.end)
                for pattern in patterns
                for m in pattern.finditer(text, clause.start, clause.end)
            )
    return False


def _keydef_parts(text: str, key: str | None) -> list[tuple[str, TokenKind]]:
    """The distinctive parts of a key's resolved text."""
    if tokens.is_bare_number(text):
        unit = _unit_from_key(key)
        if unit is None:
            return []
        number = text.strip()
        whole, _, fraction = number.partition(".")
        return [(tokens.quantity(whole, "." + fraction if fraction else None, unit), "quantity")]
    return _distinct([(t.value, t.kind) for t in tokens.scan(text)])


def _unit_from_key(key: str | None) -> str | None:
    """The first word of a key name that is a unit: chips-per-vm -> chips, hbm-gib -> gib."""
    for word in re.split(r"[-_.\s]+", key or ""):
        if tokens.unit_word(word):
            return word
    return None


def _why_not(text: str, key: str | None) -> str:
    if tokens.is_bare_number(text):
        return f"a bare number and key {key!r} names no unit (e.g. chips-per-vm)"
    return "no distinctive token (plain words): not matched, to avoid false findings"


def _scheme_value(text: str) -> tuple[str, TokenKind] | None:
    value = " ".join(text.split())
    if not value or tokens.is_bare_number(value):
        return None
    found = tokens.scan(value)
    if len(found) == 1 and found[0].start == 0 and found[0].end == len(value):
        return found[0].value, found[0].kind
    return value, "term"


def _distinct(items: list[tuple[str, TokenKind]]) -> list[tuple[str, TokenKind]]:
    seen: set[str] = set()
    result = []
    for value, kind in items:
        if lookup_key(value) not in seen:
            seen.add(lookup_key(value))
            result.append((value, kind))
    return result


def base_id(chunk_id: str, profiles: Iterable[str]) -> str:
    """A chunk id without its variant suffix ('~v5p+tpu7x')."""
    head, sep, tail = chunk_id.rpartition("~")
    names = set(profiles)
    if sep and tail and all(part in names for part in tail.split("+")):
        return head
    return chunk_id


def chunk_texts(chunk: Chunk) -> list[str]:
    """The texts to search in a chunk: its text, plus any code not already inside the text."""
    return [chunk.text] + [code for code in chunk.code if code not in chunk.text]


def exposures(export: Export) -> dict[str, list[tuple[Chunk, frozenset[str]]]]:
    """Variants grouped by base chunk id, in export order, each with its in-scope profiles."""
    profiles = [p.name for p in export.header.profiles]
    groups: dict[str, list[tuple[Chunk, frozenset[str]]]] = {}
    for chunk in export.chunks:
        groups.setdefault(base_id(chunk.id, profiles), []).append((chunk, frozenset(chunk.in_scope())))
    return groups


def _distinctive(
    export: Export, profiles: list[str], labels: dict[str, list[re.Pattern]]
) -> tuple[dict[str, tuple[str, TokenKind, str, str]], dict[str, set[str]], dict[str, str], list[Ignored]]:
    """Rule 2: token key -> (value, kind, owning profile, evidence chunk); for quantities, key ->
    the content words next to them in texts shown to exactly one profile; key -> why; and the
    tokens one profile alone would own that shared content uses more widely (owned by nobody)."""
    # For each base chunk, the profiles shown each token: a shared step split into variants by a
    # profiled sibling still shows its own tokens to every profile, so it is no evidence.
    evidence: dict[str, dict[str, list[str]]] = {}  # token key -> {profile: evidence chunk ids}
    shared: dict[str, int] = {}  # token key -> base chunks that show it to several profiles
    named: dict[str, str] = {}  # token key -> the first chunk where its profile's name stands beside it
    first: dict[str, Token] = {}
    contexts: dict[str, set[str]] = {}
    for base, variants in exposures(export).items():
        shown: dict[str, set[str]] = {}
        where: dict[str, str] = {}
        beside: dict[str, str] = {}
        for chunk, scope in variants:
            for text in chunk_texts(chunk):
                found = tokens.scan(text)
                clauses = tokens.segments(text) if len(scope) == 1 and found else []
                for token in found:
                    if len(scope) == 1 and token.kind == "quantity":
                        contexts.setdefault(token.key, set()).update(tokens.context(text, token, clauses))
                    if token.kind == "number":
                        continue  # a bare number is never owned on its own
                    shown.setdefault(token.key, set()).update(scope)
                    where.setdefault(token.key, chunk.id)
                    first.setdefault(token.key, token)
                    shape = ownable(token)
                    if shape == "weak" and len(scope) == 1 and token.key not in beside:
                        (profile,) = scope
                        if _beside_name(text, token, clauses, labels.get(profile, [])):
                            beside[token.key] = chunk.id
        for key, scope in shown.items():
            if len(scope) == 1:
                (profile,) = scope
                evidence.setdefault(key, {}).setdefault(profile, []).append(where[key])
                if key in beside:
                    named.setdefault(key, beside[key])
            else:
                evidence.setdefault(key, {})
                shared[key] = shared.get(key, 0) + 1
    result, why, widespread = {}, {}, []
    for key, by_profile in evidence.items():
        if len(by_profile) != 1:
            continue
        ((profile, chunk_ids),) = by_profile.items()
        token = first[key]
        reason = _widespread(token, profile, len(chunk_ids), shared.get(key, 0))
        if reason:
            widespread.append(Ignored(value=token.value, rule="distinctive", reason=reason))
            continue
        result[key] = (token.value, token.kind, profile, chunk_ids[0])
        reason = _evidence(token, profile, chunk_ids, named.get(key))
        if reason:
            why[key] = reason
    return result, contexts, why, widespread


def _widespread(token: Token, profile: str, own: int, shared: int) -> str | None:
    """Why a token that only `profile`'s own chunks (`own` of them) show alone is still the shared
    content's, or None. Shared content uses it more widely than the profile's own; or, for a weak
    shape (a profile owns one only by repetition), shared content repeats it as often as that."""
    uses = f"{shared} chunks shown to several profiles use it"
    if shared > own:
        return f"{uses}, more than {profile}'s own ({own}): the shared content's value, not {profile}'s"
    if ownable(token) == "weak" and shared >= WEAK_EVIDENCE:
        return f"{uses} (a {token.kind} of digits owned only by repetition): the shared content's value too"
    return None


def _evidence(token: Token, profile: str, chunk_ids: list[str], named: str | None) -> str | None:
    """Why the audit may report a rule-distinctive value, or None when its evidence is too weak."""
    shape = ownable(token)
    count = f"{len(chunk_ids)} chunk{'s' if len(chunk_ids) != 1 else ''} shown only to {profile}"
    only = f"a {token.kind} that only {profile}'s own content uses"
    if shape == "strong":
        return f"{only} ({count}, first {chunk_ids[0]})"
    if shape == "weak" and named:
        return f"{only} ({count}), stated beside {profile}'s name in {named}"
    if shape == "weak" and len(chunk_ids) >= WEAK_EVIDENCE:
        return f"{only}, in {count} (first {chunk_ids[0]})"
    return None
