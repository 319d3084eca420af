"""check_answer: three plain-Python checks that decide whether a draft may be sent.

1. citations_in_scope: every step cites one of the chunks the generator was given, and that chunk's
   scope includes every profile the answer is for.
2. values_grounded: every number with a unit, flag, command, code span and version-like token in a
   step appears character for character in the chunk that step cites; in the answer sentence, in one
   of the chunks given.
3. out_of_scope_values: no value from the owned-value table appears anywhere in the answer unless
   every profile of the answer's scope owns it (a v6e version string in a TPU7x answer fails; so does
   a v6e-only value in an answer that claims to hold for every generation).

The model never sees or overrides the verdict: failures go back to it as reasons, and the loop in
decide.py decides what happens next.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Collection, Mapping, Protocol, Sequence

from valid.answer.models import CheckReport, Draft, EvidenceChunk, StepFailure

_UNITS = (
    r"chips?|TensorCores?|cores?|hosts?|VMs?|nodes?|slices?|devices?|GB|GiB|TB|TiB|MB|MiB|PB|Gbps|GB/s|TB/s|"
    r"TFLOPs|TFLOPS|PFLOPs|PFLOPS|TOPS|GHz|MHz|W|kW|ms|seconds?|minutes?|hours?|days?|%"
)
_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("code span", re.compile(r"`([^`\n]+)`")),
    ("command", re.compile(r"(?<![\w-])(?:gcloud|kubectl|gsutil|pip3?\s+install)(?:\s+[a-z][\w.\[\]-]*)+")),
    ("flag", re.compile(r"(?<![\w-])--[A-Za-z][\w-]*(?:=[^\s,;)\]'\"`]+)?")),
    # Tokens with a digit and an inner separator: version strings, machine and accelerator types,
    # zones, dotted versions (v2-alpha-tpuv6e, tpu7x-standard-4t, v6e-8, us-central1-a, 0.4.35).
    ("version", re.compile(r"(?<![\w.-])(?=[\w.-]*\d)[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+(?![\w-])")),
    ("number with unit", re.compile(rf"(?<![\w.,])\d+(?:[.,]\d+)*\s?(?:{_UNITS})(?![\w])")),
]


def _strip_trailing(value: str) -> str:
    # A sentence's full stop is not part of the value ("... v2-alpha-tpuv6e.").
    return value.rstrip(".")


def extract_values(text: str) -> list[tuple[str, str]]:
    """(kind, value) for every checkable value in text, longest spans first, no span inside another."""
    spans: list[tuple[int, int, str, str]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            group = 1 if pattern.groups else 0
            value = _strip_trailing(match.group(group).strip())
            if not value:
                continue
            start = match.start(group)
            spans.append((start, start + len(value), kind, value))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    kept: list[tuple[int, int, str, str]] = []
    for span in spans:
        if any(k[0] <= span[0] and span[1] <= k[1] for k in kept):
            continue
        kept.append(span)
    return [(kind, value) for _, _, kind, value in kept]


def appears(value: str, text: str) -> bool:
    """value occurs in text character for character, not as part of a longer token."""
    left = r"(?<![\w-])" if value[:1].isalnum() else ""
    # "v6e" inside "v6e-8" or "tpuv5" inside "tpuv5e" is a different token.
    right = r"(?![\w]|-\w)" if value[-1:].isalnum() else ""
    return re.search(left + re.escape(value) + right, text) is not None


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
    """A value → owners mapping behind the OwnedLookup interface (exact whole-token matching)."""

    def __init__(self, owned: Mapping[str, Collection[str]]):
        self._rows = [_Row(value, list(owners)) for value, owners in owned.items() if value]

    def find(self, text: str) -> list[_Occurrence]:
        return [_Occurrence(row.value, row) for row in self._rows if appears(row.value, text)]


def owned_values_in(text: str, owned: OwnedLookup) -> list[tuple[str, list[str]]]:
    """Owned values that occur in text, as written, with their owners."""
    return [(occurrence.text, list(occurrence.row.profiles)) for occurrence in owned.find(text)]


def _chunk_text(chunk: EvidenceChunk) -> str:
    # A title is citable text: a reference entry's signature may be its title alone.
    return f"{chunk.title}\n{chunk.text}"


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
    failures: list[StepFailure] = []
    citations = citations_ok = values = values_ok = out_of_scope = 0

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

    for index, step in enumerate(draft.steps):
        citations += 1
        chunk = given.get(step.cite)
        if chunk is None:
            failures.append(
                StepFailure(
                    step=index,
                    check="citations_in_scope",
                    reason=f"step {index + 1} cites {step.cite!r}, which is not one of the chunks given",
                )
            )
        elif not scope_set <= set(chunk.scope):
            failures.append(
                StepFailure(
                    step=index,
                    check="citations_in_scope",
                    reason=f"step {index + 1} cites {chunk.id}, whose scope {chunk.scope} does not include "
                    f"{sorted(scope_set - set(chunk.scope))}",
                )
            )
        else:
            citations_ok += 1
        source = _chunk_text(chunk) if chunk is not None else ""
        for kind, value in extract_values(step.text):
            values += 1
            if chunk is not None and appears(value, source):
                values_ok += 1
            else:
                where = chunk.id if chunk is not None else "no chunk given"
                failures.append(
                    StepFailure(
                        step=index,
                        check="values_grounded",
                        reason=f"step {index + 1}: the {kind} {value!r} does not appear in the chunk it cites ({where})",
                    )
                )

    all_text = "\n".join(_chunk_text(chunk) for chunk in chunks)
    for kind, value in extract_values(draft.answer):
        values += 1
        if appears(value, all_text):
            values_ok += 1
        else:
            failures.append(
                StepFailure(
                    step=-1,
                    check="values_grounded",
                    reason=f"answer: the {kind} {value!r} does not appear in any chunk given",
                )
            )

    texts = [(-1, draft.answer)] + [(i, step.text) for i, step in enumerate(draft.steps)]
    for index, text in texts:
        for value, owners in owned_values_in(text, owned):
            if scope_set <= set(owners):
                continue
            out_of_scope += 1
            where = "answer" if index < 0 else f"step {index + 1}"
            failures.append(
                StepFailure(
                    step=index,
                    check="out_of_scope_values",
                    reason=f"{where}: {value!r} belongs to {', '.join(owners)}, "
                    f"not to {', '.join(sorted(scope_set - set(owners)))}",
                )
            )

    return CheckReport(
        passed=not failures,
        citations=citations,
        citations_in_scope=citations_ok,
        values=values,
        values_grounded=values_ok,
        out_of_scope_values=out_of_scope,
        failures=failures,
    )
