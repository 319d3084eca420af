"""Answers about the versions themselves, computed from the subject scheme and the export.

Pure functions (no I/O); valid.answer.versions_flow fetches what they read.

- **catalog** (list, count, latest, oldest, exists): from the version catalog
  (valid.answer.versions_catalog), each version cited by its subject-scheme entry;
- **since / until**: the builds of the product walked in version order; in each, the units
  (lines) of its content that mention the subject. A build documents the subject when one of its
  units mentions it and none says it is gone (a removal or "not supported" sentence decides, as in
  the comparison's availability rows), or a topic of that build is titled with it. Since: the first
  build that documents it and the last one before it that does not; until: the last that does and
  the first after it that does not, with its removal notice when it has one; builds without it in
  between are reported as gaps, never smoothed over;
- **changed**: the release against its predecessor: release-note topics scoped to the release first,
  then every part whose text differs from, or has no counterpart in, the predecessor's build;
- **same**: what each build says about the subject, grouped: one group is "yes", naming the
  builds; several are "no", each group with its builds and its cited text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from valid.answer.compare import _NEGATION, units
from valid.answer.models import EvidenceChunk, VersionEvidence, VersionsAnswer
from valid.answer.text import STOPWORDS, stem
from valid.answer.versions_catalog import Product, Version
from valid.index.groups import Groups, without_names

# A topic that records what changed in a release (its title or breadcrumbs say so).
RELEASE_NOTES = re.compile(r"\b(?:release\s+notes?|what['’]?s\s+new|change\s*log|changes|change\s+history|revision\s+history)\b", re.I)
# A sentence that announces a removal to come (evidence for "until when", not an absence).
_DEPRECATION = re.compile(r"\bdeprecat\w*|\bto\s+be\s+removed\b|\bwill\s+be\s+removed\b", re.I)
MAX_CHANGES = 10  # changed parts shown after the release notes
MAX_UNITS = 3  # lines of one changed part


def _label(product: Product, profile: str) -> str:
    return next(v.label for v in product.versions if v.profile == profile)


def _join(names: Sequence[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else ""


def _scheme(version: Version) -> VersionEvidence:
    return VersionEvidence(
        generation=version.profile, text=f"{version.label} (subject scheme value {version.profile})", cite=None, role="scheme"
    )


def _answer(kind, product: Product, picked: Sequence[str], summary: str, evidence, **extra) -> VersionsAnswer:
    order = product.profiles
    picked = sorted(dict.fromkeys(picked), key=order.index)
    return VersionsAnswer(
        kind=kind, product=product.name, versions=picked, labels=[_label(product, p) for p in picked],
        summary=summary, evidence=list(evidence), **extra,
    )


def _whose(product: Product) -> str:
    return f"{product.name} " if product.name else ""


# -- catalog -------------------------------------------------------------------------------------


def catalog_answer(kind: str, product: Product) -> VersionsAnswer:
    """list, count, latest or oldest, from the scheme alone."""
    versions = list(product.versions)
    order = "in version order" if product.by_version_strings else "in the subject scheme's order"
    noun = f"{_whose(product)}versions" if product.name else "versions"
    if kind in ("list", "count"):
        labels = _join([v.label for v in versions])
        summary = f"The documentation covers {len(versions)} {noun}, {order}: {labels}."
        return _answer(kind, product, [v.profile for v in versions], summary, map(_scheme, versions))
    chosen = product.latest if kind == "latest" else product.oldest
    word = "latest" if kind == "latest" else "oldest"
    summary = f"The {word} documented {noun.rstrip('s') if noun.endswith('s') else noun} is {chosen.label} ({order}, of {len(versions)})."
    return _answer(kind, product, [chosen.profile], summary, [_scheme(chosen)])


def exists_answer(product: Product, profile: str | None, asked: str) -> VersionsAnswer:
    """Is the named version documented? Yes with its scheme entry; no with the nearest documented ones."""
    if profile is not None:
        version = next(v for v in product.versions if v.profile == profile)
        summary = f"Yes: {version.label} is documented."
        return _answer("exists", product, [profile], summary, [_scheme(version)], verdict=True)
    nearest = product.nearest(re.sub(r"^[^\d]*", "", asked) or asked)
    summary = f"No: {asked} is not a documented {_whose(product)}version."
    if nearest:
        summary += f" The documented ones nearest to it are {_join([v.label for v in nearest])}."
    summary += f" Documented: {_join([v.label for v in product.versions])}."
    return _answer("exists", product, [v.profile for v in nearest], summary, map(_scheme, nearest), verdict=False)


# -- since / until -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Presence:
    """What one build's content says about the subject."""

    profile: str
    documented: bool
    text: str  # the unit that decided, verbatim (or why there is none)
    cite: str | None
    role: str  # has, lacks, notice
    deprecation: tuple[str, str] | None = None  # (unit, chunk id) announcing its removal, where it still is


Runs = Sequence[Sequence[str]]  # the subject's runs of adjacent words (versions_cues.subject_runs)


def _words_of(runs: Runs) -> list[str]:
    return [w for run in runs for w in run if w.lower() not in STOPWORDS]


def _code_like(word: str) -> bool:
    return bool(re.search(r"[_\-./]|\d", word)) or (word.isupper() and len(word) > 1)


def _token_pattern(word: str) -> str:
    return rf"(?<![\w]){re.escape(word.lower())}(?![\w])"


def _stems(text: str) -> list[str]:
    return [stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS]


def _run_in(run: Sequence[str], lowered: str, have: list[str]) -> bool:
    """One run as a phrase: its code-like words literally, its other words as adjacent stems."""
    if any(not re.search(_token_pattern(w), lowered) for w in run if _code_like(w)):
        return False
    plain = [stem(w.lower()) for w in run if not _code_like(w) and w.lower() not in STOPWORDS]
    return not plain or any(have[i : i + len(plain)] == plain for i in range(len(have) - len(plain) + 1))


def mentions(runs: Runs, text: str, together: bool = True) -> bool:
    """The subject in the text: each run as a phrase (`together`), or every word anywhere."""
    words = _words_of(runs)
    if not words:
        return False
    lowered = text.lower()
    have = _stems(text)
    if together:
        return all(_run_in(run, lowered, have) for run in runs if run)
    return all(
        re.search(_token_pattern(w), lowered) if _code_like(w) else stem(w.lower()) in have for w in words
    )


def _touches(runs: Runs, unit: str) -> bool:
    """The unit itself names part of the subject (so its negation is about the subject)."""
    lowered, have = unit.lower(), set(_stems(unit))
    return any(re.search(_token_pattern(w), lowered) if _code_like(w) else stem(w.lower()) in have for w in _words_of(runs))


def presence(profile: str, runs: Runs, chunks: Sequence[EvidenceChunk], together: bool = True) -> Presence:
    """Does this build document the subject? Its chunks are the ones found for the subject in its
    scope. Together: a unit (line or sentence) holds every run as a phrase; else the unit with its
    topic's title and breadcrumbs holds every word."""
    titled = next((c for c in chunks if mentions(runs, c.title, together)), None)
    said: list[tuple[str, EvidenceChunk]] = []
    for chunk in chunks:
        context = " ".join([*chunk.breadcrumbs, chunk.title])
        for unit in units(chunk.text) if chunk.text else []:
            found = mentions(runs, unit, True) if together else _touches(runs, unit) and mentions(runs, f"{context} {unit}", False)
            if found:
                said.append((unit, chunk))
    # "Removed: X" or "X is not supported" says it is gone; "X will be removed" announces it, still there.
    gone = next(((u, c) for u, c in said if _NEGATION.search(u) and not _DEPRECATION.search(u)), None)
    if gone is not None and (titled is None or titled.id == gone[1].id):
        return Presence(profile, False, gone[0], gone[1].id, "notice")
    warned = next(((u, c.id) for u, c in said if _DEPRECATION.search(u)), None)
    if titled is not None:
        first = next((u for u, c in said if c.id == titled.id), None) or titled.title
        return Presence(profile, True, first, titled.id, "has", warned)
    if said:
        # Content before release notes: a release note names what is new, the reference documents it.
        unit, chunk = sorted(said, key=lambda uc: bool(RELEASE_NOTES.search(" ".join(uc[1].breadcrumbs))))[0]
        return Presence(profile, True, unit, chunk.id, "has", warned)
    nearest = chunks[0] if chunks else None
    # The subject is not repeated here: this side states an absence, not a value.
    text = "Not mentioned in this build's documentation."
    if nearest is not None:
        text += f" Nearest content: {nearest.title}."
    return Presence(profile, False, text, nearest.id if nearest else None, "lacks")


def _evidence(p: Presence) -> VersionEvidence:
    return VersionEvidence(generation=p.profile, text=p.text, cite=p.cite, role=p.role)


def boundary_answer(kind: str, product: Product, subject: str, found: Mapping[str, Presence]) -> VersionsAnswer | None:
    """Since / until from each build's presence, in version order (None when no build documents it)."""
    order = product.profiles
    having = [p for p in order if found[p].documented]
    if not having:
        return None
    first, last = order.index(having[0]), order.index(having[-1])
    gaps = [p for p in order[first : last + 1] if not found[p].documented]
    label = lambda p: _label(product, p)  # noqa: E731
    if kind == "since":
        picked = order[max(first - 1, 0) : first + 1]
        if first == 0:
            summary = f"'{subject}' is documented since the oldest documented version, {label(order[0])}."
        else:
            summary = f"'{subject}' is documented since {label(order[first])}; {label(order[first - 1])}, the version before it, does not document it."
    else:
        picked = order[last : last + 2]
        if last == len(order) - 1:
            summary = f"'{subject}' is still documented in the latest version, {label(order[last])}."
        else:
            after = found[order[last + 1]]
            how = "says it is removed or not supported" if after.role == "notice" else "no longer documents it"
            summary = f"'{subject}' is documented up to {label(order[last])}; {label(order[last + 1])} {how}."
    if gaps:
        summary += f" Not documented in between: {_join([label(p) for p in gaps])}."
    evidence = [_evidence(found[p]) for p in picked]
    if kind == "until":
        # Deprecation notices of the builds that still document it announce the removal.
        evidence += [
            VersionEvidence(generation=p, text=found[p].deprecation[0], cite=found[p].deprecation[1], role="notice")
            for p in order[first : last + 1]
            if found[p].documented and found[p].deprecation
        ]
    evidence += [_evidence(found[p]) for p in gaps if p not in picked]
    return _answer(kind, product, picked, summary, evidence, subject=subject, gaps=gaps)


# -- what changed in a release -------------------------------------------------------------------


def release_note_units(release: Version, chunks: Sequence[EvidenceChunk]) -> list[VersionEvidence]:
    """The release-note topics among `chunks` (those scoped to the release, not to its predecessor),
    section by section; a section titled with the release's own label first."""
    notes = [c for c in chunks if RELEASE_NOTES.search(" ".join([*c.breadcrumbs, c.title]))]
    notes.sort(key=lambda c: release.label.lower() not in " ".join([*c.breadcrumbs, c.title]).lower())
    return [VersionEvidence(generation=release.profile, text=c.text.strip(), cite=c.id, role="release-notes") for c in notes if c.text.strip()]


def changed_parts(
    release: str,
    before: str,
    new: Sequence[EvidenceChunk],
    counterparts: Mapping[str, EvidenceChunk],
    gone: Sequence[EvidenceChunk],
    names: Sequence[str],
) -> list[VersionEvidence]:
    """Parts of the release's build that are not in the predecessor's (`new`): their lines the
    counterpart (the predecessor's chunk of the same group, if any) does not have; then parts only
    the predecessor has (`gone`)."""
    out: list[VersionEvidence] = []
    for chunk in new:
        if RELEASE_NOTES.search(" ".join(chunk.breadcrumbs)):
            continue
        mine = units(chunk.text)
        theirs = counterparts.get(chunk.id)
        if theirs is not None:
            other = {" ".join(without_names(u, names).split()) for u in units(theirs.text)}
            mine = [u for u in mine if " ".join(without_names(u, names).split()) not in other]
        if mine:
            out.append(VersionEvidence(generation=release, text="\n".join(mine[:MAX_UNITS]), cite=chunk.id, role="change"))
    for chunk in gone:
        text = f"Only in the version before: {chunk.title}: " + (units(chunk.text)[:1] or [""])[0]
        out.append(VersionEvidence(generation=before, text=text, cite=chunk.id, role="lacks"))
    return out[:MAX_CHANGES]


def changed_answer(product: Product, release: str, notes: list[VersionEvidence], parts: list[VersionEvidence], differing: int = 0) -> VersionsAnswer:
    index = product.index(release)
    label = _label(product, release)
    if index == 0:
        summary = f"{label} is the oldest documented version: there is no version before it to compare with."
        return _answer("changed", product, [release], summary, notes)
    before = product.profiles[index - 1]
    summary = f"What changed in {label} since {_label(product, before)}, the version before it:"
    summary += f" {len(notes)} release-note section(s)" if notes else " no release notes scoped to it"
    summary += f"; {differing} part(s) of its build are new or differ"
    shown = len([p for p in parts if p.generation == release])
    summary += f" ({shown} shown)." if shown < differing else "."
    return _answer("changed", product, [before, release], summary, [*notes, *parts])


# -- the same in every version -------------------------------------------------------------------


def statement(profile: str, runs: Runs, chunks: Sequence[EvidenceChunk]) -> Presence:
    """What this build says about the subject: the unit sharing most of the subject's words
    (reference content before release notes, then search rank), verbatim and cited."""
    wanted = {stem(w.lower()) for w in _words_of(runs) if not _code_like(w)}
    code = [w for w in _words_of(runs) if _code_like(w)]
    best: tuple[tuple, str, EvidenceChunk] | None = None
    for rank, chunk in enumerate(chunks):
        notes = bool(RELEASE_NOTES.search(" ".join(chunk.breadcrumbs)))
        for unit in units(chunk.text) if chunk.text else []:
            lowered = unit.lower()
            have = {stem(w) for w in re.findall(r"[a-z0-9]+", lowered)}
            score = len(wanted & have) + sum(bool(re.search(_token_pattern(w), lowered)) for w in code)
            # Content every build shares wins a tie: the same text is then seen as the same.
            key = (-score, notes, -len(chunk.scope), rank)
            if score and (best is None or key < best[0]):
                best = (key, unit, chunk)
    if best is None:
        return presence(profile, runs, chunks)
    return Presence(profile, True, best[1], best[2].id, "value")


def same_answer(product: Product, subject: str, found: Mapping[str, Presence], names: Sequence[str]) -> VersionsAnswer | None:
    """One group of identical text: yes, naming the builds; several: no, each group cited."""
    order = product.profiles
    if not any(found[p].documented for p in order):
        return None
    groups: dict[str, list[str]] = {}
    for p in order:
        key = " ".join(without_names(found[p].text, names).lower().split()) if found[p].documented else ""
        groups.setdefault(key, []).append(p)
    role = lambda p: "value" if found[p].documented else "lacks"  # noqa: E731
    evidence = [VersionEvidence(generation=p, text=found[p].text, cite=found[p].cite, role=role(p)) for p in order]
    label = lambda p: _label(product, p)  # noqa: E731
    if len(groups) == 1:
        summary = f"Yes: '{subject}' is the same in every documented {_whose(product)}version ({_join([label(p) for p in order])})."
        return _answer("same", product, order, summary, evidence, subject=subject, verdict=True)
    parts = [f"{_join([label(p) for p in ps])}: " + (f'"{found[ps[0]].text}"' if key else "not documented") for key, ps in groups.items()]
    summary = f"No: '{subject}' differs between versions. " + "; ".join(parts) + "."
    return _answer("same", product, order, summary, evidence, subject=subject, verdict=False)
