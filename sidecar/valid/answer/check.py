"""check_answer: three plain-Python checks that decide whether a draft may be sent.

1. citations_in_scope: every step cites one of the chunks the generator was given, and that chunk's
   scope includes every profile the answer is for.
2. values_grounded: every value in a step (in any shape the value grammar reads: a number with a
   unit or a number word, a table row `label | value`, `label: number`, a flag, a command, a code
   span, a version-like token) is stated by the chunk the step cites, compared in canonical form
   (`valid.tokens.states`): "eight chips" is grounded by "8 chips"; a row "Chips per VM | 8"
   by a clause of the chunk that states 8 chips next to the words "chips" and "VM"; "HBM per
   chip: 32" by a clause that states 32 next to "HBM" and "chip". A chunk's citable text is its
   breadcrumbs, its title and its text, so a step whose text is the chunk's title is grounded.
   In the answer sentence, a value must be stated by one of the chunks given.
3. out_of_scope_values: no value from the owned-value table appears anywhere in the answer, in any
   shape, unless every profile of the answer's scope owns it (a v6e version string in a TPU7x
   answer fails; so do "eight chips" and "Chips per VM | 8" in a v5p answer when only v6e has 8
   chips; so does a v6e-only value in an answer that claims to hold for every generation). One
   exception: a value written by a cited chunk that is in scope for the answer and for none of the
   value's owners is the answer's own content, a cross-reference ("Agent 1.4.0 works with vaults
   written by CLI 1.0.0"); a shared chunk that an owner also gets is no such chunk.

The model never sees or overrides the verdict: failures go back to it as reasons, and the loop in
decide.py decides what happens next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Mapping, Protocol, Sequence

from valid import tokens
from valid.tokens import Token, appears  # noqa: F401  (appears is part of this module's API)
from valid.answer.models import CheckReport, Draft, EvidenceChunk, StepFailure
from valid.contracts import Chunk

# How a failure names the kind of a value.
KIND_NAMES: dict[str, str] = {
    "quantity": "number with unit",
    "number": "number",
    "code": "code span",
    "command": "command",
    "flag": "flag",
    "version": "version",
    "machine-type": "version",
    "identifier": "version",
    "term": "term",
}


def extract_values(text: str) -> list[tuple[str, str]]:
    """(kind, canonical value) for every checkable value in text, in text order, none inside another."""
    return [(KIND_NAMES[t.kind], t.value) for t in tokens.values(text)]


def citable_text(chunk: EvidenceChunk | Chunk) -> str:
    """What a step may quote from a chunk: its breadcrumbs, its title, then its text (one per line)."""
    lines: list[str] = []
    for line in [*chunk.breadcrumbs, chunk.title, chunk.text]:
        if line and line not in lines:
            lines.append(line)
    return "\n".join(lines)


def grounded(step_text: str, source: str) -> list[Token]:
    """The values of step_text that source does not state (empty: every value is grounded)."""
    found = tokens.values(source)
    return [value for value in tokens.values(step_text) if not tokens.states(source, value, found)]


def _shown(value: Token) -> str:
    where = value.label or value.header
    return f"{value.value!r} (as {where!r})" if where else repr(value.value)


class OwnedLookup(Protocol):
    """What the checks need from the audit's owned-value table (valid.audit.owned.OwnedValueTable)."""

    def find(self, text: str) -> list: ...  # occurrences with .text and .row.value / .row.profiles


@dataclass(frozen=True)
class _Row:
    value: str
    profiles: list[str]


@dataclass(frozen=True)
class _Occurrence:
    text: str
    row: _Row


class MappingOwned:
    """A value → owners mapping behind the OwnedLookup interface: values the grammar reads are
    matched in canonical form ("8 chips" is found in "eight chips"), other values as whole words.
    A plain mapping has no context words, so a labelled bare number matches nothing here; the
    owned-value table (valid.audit.owned) matches those too."""

    def __init__(self, owned: Mapping[str, Collection[str]]):
        self._by_key: dict[str, _Row] = {}
        self._phrases: list[tuple[object, _Row]] = []
        for value, owners in owned.items():
            if not value:
                continue
            row = _Row(value, list(owners))
            found = tokens.scan(value)
            if len(found) == 1 and (found[0].start, found[0].end) == (0, len(value)) and found[0].kind != "number":
                self._by_key[found[0].key] = row
            else:
                self._phrases.append((tokens.phrase_pattern(value), row))

    def find(self, text: str) -> list[_Occurrence]:
        result = [
            _Occurrence(text[t.start : t.end], self._by_key[t.key]) for t in tokens.scan(text) if t.key in self._by_key
        ]
        result += [_Occurrence(m.group(), row) for pattern, row in self._phrases for m in pattern.finditer(text)]
        return result


def owned_values_in(text: str, owned: OwnedLookup) -> list[tuple[str, list[str]]]:
    """Owned values that occur in text, as written, with their owners."""
    return [(occurrence.text, list(occurrence.row.profiles)) for occurrence in owned.find(text)]


def _cross_reference(chunk: EvidenceChunk, value: str, scope: set[str], owners: Sequence[str]) -> bool:
    """The value is the answer's own content, not a borrowed one: a chunk in scope for the answer and
    for none of the value's owners writes it ("Corvane Agent 1.4.0 works with vaults written by
    Corvane CLI 1.0.0"). Shared text that an owner also gets (a v6e version string in a step every
    generation shares) is no such chunk, so it still fails."""
    # Only a name (a version, a product or machine name), never a number or a quantity: "8" in
    # "8,960" or "Chips per VM | 8" is a value of its own, not a reference to another generation.
    named = [t for t in tokens.scan(value) if t.kind in ("version", "machine-type", "identifier", "term")]
    return (
        bool(named)
        and scope <= set(chunk.scope)
        and not set(chunk.scope) & set(owners)
        and tokens.appears(value, citable_text(chunk))
    )


def check_answer(
    draft: Draft,
    scope: Sequence[str],
    chunks: Sequence[EvidenceChunk],
    owned: OwnedLookup | Mapping[str, Collection[str]],
) -> CheckReport:
    """Check one draft for `scope` (the profiles this answer is for) against the chunks it was given.

    `owned` is the audit's owned-value table (anything with `find(text)`), or a plain mapping of
    value → owning profiles.
    """
    if isinstance(owned, Mapping):
        owned = MappingOwned(owned)
    scope_set = set(scope)
    given = {chunk.id: chunk for chunk in chunks}
    failures = _draft_failures(draft, scope_set)
    citations = citations_ok = values = values_ok = 0
    # Each value checked is grounded or has exactly one failure, so the grounded count is the rest.
    for index, step in enumerate(draft.steps):
        chunk = given.get(step.cite)
        citation = _citation_failure(index, step.cite, chunk, scope_set)
        checked, ungrounded = _step_ungrounded(index, step.text, chunk)
        failures += ([citation] if citation else []) + ungrounded
        citations, citations_ok = citations + 1, citations_ok + int(citation is None)
        values, values_ok = values + checked, values_ok + checked - len(ungrounded)
    checked, ungrounded = _answer_ungrounded(draft.answer, chunks)
    failures += ungrounded
    values, values_ok = values + checked, values_ok + checked - len(ungrounded)
    out_of_scope = _out_of_scope(draft, given, chunks, scope_set, owned)
    failures += out_of_scope
    return CheckReport(
        passed=not failures,
        citations=citations,
        citations_in_scope=citations_ok,
        values=values,
        values_grounded=values_ok,
        out_of_scope_values=len(out_of_scope),
        failures=failures,
    )


def _draft_failures(draft: Draft, scope_set: set[str]) -> list[StepFailure]:
    """A draft that failed, has no steps, or is for another scope than the resolved one."""
    failures: list[StepFailure] = []
    if draft.error:
        failures.append(StepFailure(step=-1, check="draft_valid", reason=draft.error))
    if not draft.error and not draft.steps:
        failures.append(StepFailure(step=-1, check="draft_valid", reason="the draft has no cited steps"))
    if not draft.error and set(draft.scope) != scope_set:
        failures.append(
            StepFailure(
                step=-1,
                check="draft_valid",
                reason=f"the draft's scope {sorted(draft.scope)} is not the resolved scope {sorted(scope_set)}",
            )
        )
    return failures


def _citation_failure(index: int, cite: str, chunk: EvidenceChunk | None, scope_set: set[str]) -> StepFailure | None:
    """Check 1 for one step: it cites a chunk given, in scope for every profile of the answer."""
    if chunk is None:
        return StepFailure(
            step=index,
            check="citations_in_scope",
            reason=f"step {index + 1} cites {cite!r}, which is not one of the chunks given",
        )
    if not scope_set <= set(chunk.scope):
        return StepFailure(
            step=index,
            check="citations_in_scope",
            reason=f"step {index + 1} cites {chunk.id}, whose scope {chunk.scope} does not include "
            f"{sorted(scope_set - set(chunk.scope))}",
        )
    return None


def _step_ungrounded(index: int, text: str, chunk: EvidenceChunk | None) -> tuple[int, list[StepFailure]]:
    """Check 2 for one step: how many values it has, and one failure per value its cited chunk does not state."""
    source = citable_text(chunk) if chunk is not None else ""
    found = tokens.values(source)
    step_values = tokens.values(text)
    failures = []
    for value in step_values:
        if chunk is None or not tokens.states(source, value, found):
            where = chunk.id if chunk is not None else "no chunk given"
            failures.append(
                StepFailure(
                    step=index,
                    check="values_grounded",
                    reason=f"step {index + 1}: the {KIND_NAMES[value.kind]} {_shown(value)} does not appear "
                    f"in the chunk it cites ({where})",
                )
            )
    return len(step_values), failures


def _answer_ungrounded(answer: str, chunks: Sequence[EvidenceChunk]) -> tuple[int, list[StepFailure]]:
    """Check 2 for the answer sentence: how many values it has, and a failure per value no chunk given states."""
    sources = [citable_text(chunk) for chunk in chunks]
    found_in = [tokens.values(source) for source in sources]
    answer_values = tokens.values(answer)
    failures = []
    for value in answer_values:
        if not any(tokens.states(source, value, found) for source, found in zip(sources, found_in)):
            failures.append(
                StepFailure(
                    step=-1,
                    check="values_grounded",
                    reason=f"answer: the {KIND_NAMES[value.kind]} {_shown(value)} does not appear in any chunk given",
                )
            )
    return len(answer_values), failures


def _out_of_scope(
    draft: Draft,
    given: Mapping[str, EvidenceChunk],
    chunks: Sequence[EvidenceChunk],
    scope_set: set[str],
    owned: OwnedLookup,
) -> list[StepFailure]:
    """Check 3: one failure per owned value, in the answer or a step, that the whole scope does not own."""
    texts = [(-1, draft.answer)] + [(i, step.text) for i, step in enumerate(draft.steps)]
    cited = {i: [given[step.cite]] if step.cite in given else [] for i, step in enumerate(draft.steps)}
    cited[-1] = list(chunks)
    failures = []
    for index, text in texts:
        for value, owners in owned_values_in(text, owned):
            if scope_set <= set(owners):
                continue
            if any(_cross_reference(chunk, value, scope_set, owners) for chunk in cited[index]):
                continue
            where = "answer" if index < 0 else f"step {index + 1}"
            failures.append(
                StepFailure(
                    step=index,
                    check="out_of_scope_values",
                    reason=f"{where}: {value!r} belongs to {', '.join(owners)}, "
                    f"not to {', '.join(sorted(scope_set - set(owners)))}",
                )
            )
    return failures
