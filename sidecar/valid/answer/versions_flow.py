"""The versions flow: from a question about the versions themselves to a `versions` answer object.

    question ─ versions_kind (the cue table) ─ what the kind needs? ─ no: the other flows
             ─ catalog (list, count, latest, oldest, exists) ─ the subject scheme alone
             ─ since / until / same ─ the subject searched (BM25) in each build of the product,
                                      in version order ─ presence / statement per build
             ─ changed ─ release notes scoped to the release, parts differing from its predecessor
             ─ check (every cited piece against its own build, owned values) ─► versions

A question that names no product, in a doc set with several, is asked back (one choice per
product); a subject no build documents is refused. No model is called.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Sequence

from valid.index.groups import generation_names

from valid.answer.compare import check_comparison
from valid.answer.compare_flow import _groups
from valid.answer.models import (
    AnswerObject,
    Choice,
    Comparison,
    ComparisonCell,
    ComparisonRow,
    EvidenceChunk,
    Refusal,
    ScopeResolution,
    VersionsAnswer,
)
from valid.answer.retrieve import chunks_by_id, evidence_chunk
from valid.answer.scope import naming_pattern
from valid.answer.versions import (
    MAX_CHANGES,
    Presence,
    boundary_answer,
    catalog_answer,
    changed_answer,
    changed_parts,
    exists_answer,
    presence,
    release_note_units,
    same_answer,
    statement,
)
from valid.answer.asked import AskResult, FlowContext, ms
from valid.answer.versions_catalog import Catalog, Product
from valid.answer.reading import Reading
from valid.answer.versions_cues import subject_runs


SUBJECT_DEPTH = 8  # BM25 hits per build for the subject of a since / until / same question
MAX_UNION_DEPTH = 200  # BM25 hits over all the builds' chunks, shared out among the builds
NOTES_QUERY = "release notes what's new changes changelog"  # finds a release's change-history topics
NOTES_DEPTH = 20
CHANGE_BATCH = 25  # new chunks fetched at a time, until enough changed parts are found


@dataclass(frozen=True)
class VersionsQuestion:
    kind: str
    subject: tuple[tuple[str, ...], ...]  # runs of adjacent words
    products: tuple[Product, ...]  # the products meant (several: ask which, unless the subject decides)


def _names(profiles, resolution: ScopeResolution, catalog: Catalog) -> list[str]:
    """Every word that names a version or a product: labels, versions, product names and words."""
    names = {n for ns in generation_names(profiles).values() for n in ns}
    names |= {p.name for p in catalog.products if p.name} | set(resolution.matched) | set(resolution.unknown)
    words = naming_pattern(profiles).product_words
    return sorted(names | set(words), key=len, reverse=True)


def _without_product_words(runs: list[list[str]], product_words) -> list[list[str]]:
    # A run of product words alone ("CLI", "TPU") names the product; inside a phrase ("corvane
    # prune", "Cloud TPU API") the words are part of what is asked about.
    def product_only(run):
        return all(set(re.split(r"[-_]", w.lower())) <= set(product_words) for w in run)

    return [run for run in runs if not product_only(run)]


def read_question(reading: Reading, resolution: ScopeResolution, profiles, catalog: Catalog) -> VersionsQuestion | None:
    """A versions question, when the question's reading says so (cues.VERSIONS) and the question has
    what its kind needs."""
    kind, question = reading.versions_kind, reading.question
    if kind is None:
        return None
    product_words = naming_pattern(profiles).product_words
    subject = _without_product_words(subject_runs(question, _names(profiles, resolution, catalog)), product_words)
    named, unknown = resolution.profiles, resolution.unknown
    meant = catalog.products_of(named or resolution.candidates) or list(catalog.products)
    if kind in ("list", "count", "latest", "oldest"):
        ok = not subject and not unknown
    elif kind == "exists":
        ok = not subject and len(named) + len(unknown) == 1
    elif kind == "changed":
        ok = not subject and len(named) == 1 and not unknown
    else:  # since, until, same: about a subject, over every build of the product
        # A version chosen outside the question's words (--generation, a choice on the page) only
        # says which product is meant.
        ok = bool(subject) and not unknown and (not named or not resolution.matched)
    return VersionsQuestion(kind, tuple(map(tuple, subject)), tuple(meant)) if ok else None


def ask_versions(engine: FlowContext, question: str, resolution: ScopeResolution, asked: VersionsQuestion, started: float, stages: dict) -> "AskResult":
    t = time.perf_counter()
    shown: dict[str, EvidenceChunk] = {}
    answer, choices, refusal = _compute(engine, question, resolution, asked, shown)
    stages["versions"] = ms(t)
    t = time.perf_counter()
    report = _check(answer, shown, engine.owned) if answer is not None else None
    stages["check"] = ms(t)
    if report is not None and not report.passed:
        reason = "The answer could not be made to pass its checks: " + "; ".join(f.reason for f in report.failures[:3])
        answer, refusal = None, Refusal(reason=reason, missing="content that states each version's part in its own scope", gap_issue=None)
    latency = ms(started)
    stages["total"] = latency
    outcome = "versions" if answer is not None else "ask" if choices else "refuse"
    checks = {"passed": report.passed if report else True, "revisions": 0}
    if report is not None:
        checks.update(citations_in_scope=f"{report.citations_in_scope}/{report.citations}", values_grounded=f"{report.values_grounded}/{report.values}", out_of_scope_values=report.out_of_scope_values)
    obj = AnswerObject(
        outcome=outcome,
        scope=list(answer.versions) if answer else list(resolution.profiles),
        matched=list(resolution.matched),
        answers=[],
        choices=choices,
        refusal=refusal,
        not_used=_not_used(asked, choices),
        checks=checks,
        run=engine.run_record(0, 0, 0, latency),
        release=engine.release_id,
        versions=answer,
    )
    result = AskResult(answer=obj, degraded=False, degraded_reasons=[], stages_ms={k: round(v, 3) for k, v in stages.items()})
    if engine.log_question is not None:
        clock = time.perf_counter()
        row = engine.log_row(question, resolution, obj, {}, {}, result, [])
        result.log_id = engine.log_question(row)
        result.stages_ms["log"] = round(ms(clock), 3)
    return result


def _not_used(asked: VersionsQuestion, choices) -> str:
    if choices:
        return "Which product is meant: each has its own versions."
    return "Computed from the subject scheme and the export; no model was asked."


def _compute(engine: FlowContext, question, resolution, asked: VersionsQuestion, shown) -> tuple[VersionsAnswer | None, list[Choice], Refusal | None]:
    catalog = engine.versions_catalog
    products = list(asked.products)
    if asked.kind in ("list", "count", "latest", "oldest"):
        if len(products) > 1:
            return None, _product_choices(products), None
        return catalog_answer(asked.kind, products[0]), [], None
    if asked.kind == "exists":
        if resolution.profiles:
            profile = resolution.profiles[0]
            return exists_answer(catalog.product_of(profile), profile, engine.labels[profile]), [], None
        if len(products) > 1:
            return None, _product_choices(products), None
        return exists_answer(products[0], None, resolution.unknown[0]), [], None
    if asked.kind == "changed":
        return _changed(engine, catalog, resolution.profiles[0], shown), [], None
    return _over_builds(engine, asked, products, shown)


def _product_choices(products: Sequence[Product]) -> list[Choice]:
    # One choice per product, standing for it by its latest version.
    return [Choice(generation=p.latest.profile, label=p.name or p.latest.label) for p in products]


def _search(engine: FlowContext, subject: Sequence[str], profiles: Sequence[str], shown) -> dict[str, list[EvidenceChunk]]:
    """The subject's BM25 hits among the builds' chunks (one search over their union, as routing
    does), then each build's own: only chunks in a build's scope are ever its evidence."""
    query = " ".join(subject)
    depth = min(MAX_UNION_DEPTH, SUBJECT_DEPTH * len(profiles))
    ids = [h.chunk_id for h in engine.release.search_bm25_any(query, list(profiles), depth)]
    wanted = [i for i in dict.fromkeys(ids) if i not in shown]
    for chunk_id, chunk in (chunks_by_id(engine.release, wanted) if wanted else {}).items():
        shown[chunk_id] = evidence_chunk(chunk)
    return {p: [shown[i] for i in ids if p in shown[i].scope][:SUBJECT_DEPTH] for p in profiles}


def _over_builds(engine: FlowContext, asked: VersionsQuestion, products: list[Product], shown):
    """since / until / same: each build of the product(s) in version order."""
    subject = [list(run) for run in asked.subject]
    profiles = [p for product in products for p in product.profiles]
    found = _search(engine, [w for run in subject for w in run], profiles, shown)
    if asked.kind == "same":
        walked = {p: statement(p, subject, found[p]) for p in profiles}
    else:
        walked = {p: presence(p, subject, found[p]) for p in profiles}
        if not any(w.documented for w in walked.values()):
            walked = {p: presence(p, subject, found[p], together=False) for p in profiles}
    having = [product for product in products if any(walked[p].documented for p in product.profiles)]
    words = " ".join(w for run in subject for w in run)
    if not having:
        return None, [], Refusal(reason=f"No documented version mentions '{words}'.", missing=f"content about '{words}'", gap_issue=None)
    if len(having) > 1:
        return None, _product_choices(having), None
    product = having[0]
    if asked.kind == "same":
        names = [n for ns in generation_names(engine.profiles).values() for n in ns]
        return same_answer(product, words, walked, names), [], None
    walked = _cite_absences(engine, product, walked, shown)
    return boundary_answer(asked.kind, product, words, walked), [], None


def _cite_absences(engine: FlowContext, product: Product, walked: dict[str, Presence], shown) -> dict[str, Presence]:
    """A build whose search found nothing for the subject still shows its absence with content of
    its own: the counterpart of a documenting build's evidence (same group, then same topic), else
    what its search for that evidence's title finds."""
    sources = [walked[p].cite for p in product.profiles if walked[p].documented and walked[p].cite]
    if not sources:
        return walked
    groups = _groups(engine.release)
    out = dict(walked)
    for profile in product.profiles:
        found = walked[profile]
        if found.documented or found.cite is not None:
            continue
        near = None
        for source in sources:
            near = groups.member_for(source, profile) or next(
                (m for key in groups.topic_groups(source) for m in groups.members.get(key, [key]) if profile in groups.scopes.get(m, ())),
                None,
            )
            if near:
                break
        if near is None:
            hits = _search(engine, shown[sources[0]].title.split(), [profile], shown)[profile]
            near = hits[0].id if hits else None
        if near is not None:
            if near not in shown:
                shown.update({i: evidence_chunk(c) for i, c in chunks_by_id(engine.release, [near]).items()})
            text = f"Not mentioned in this build's documentation. Nearest content: {shown[near].title}."
            out[profile] = Presence(profile, False, text, near, "lacks")
    return out


def _changed(engine: FlowContext, catalog: Catalog, release: str, shown) -> VersionsAnswer:
    """The release against its predecessor: which chunks are new comes from the stored groups'
    scopes alone; only the release notes (one search) and the parts shown are fetched."""
    product = catalog.product_of(release)
    index = product.index(release)
    before = product.profiles[index - 1] if index else None
    groups = _groups(engine.release)
    new_ids = [i for i, scope in groups.scopes.items() if release in scope and (before is None or before not in scope)]
    fresh = set(new_ids)
    hits = [h.chunk_id for h in engine.release.search_bm25(NOTES_QUERY, release, NOTES_DEPTH) if h.chunk_id in fresh]
    _fetch(engine, hits, shown)
    notes = release_note_units(product.versions[index], [shown[i] for i in hits])
    if before is None:
        return changed_answer(product, release, notes, [])
    names = [n for p in (release, before) for n in engine.names_of(p)]
    parts: list = []
    noted = {e.cite for e in notes}
    for start in range(0, len(new_ids), CHANGE_BATCH):
        batch = [i for i in new_ids[start : start + CHANGE_BATCH] if i not in noted]
        pairs = {i: groups.member_for(i, before) for i in batch}
        _fetch(engine, batch + [c for c in pairs.values() if c], shown)
        counterparts = {i: shown[c] for i, c in pairs.items() if c}
        parts += changed_parts(release, before, [shown[i] for i in batch], counterparts, [], names)
        if len(parts) >= MAX_CHANGES:
            break
    if len(parts) < MAX_CHANGES:
        gone_ids = [i for i, scope in groups.scopes.items() if before in scope and release not in scope and groups.member_for(i, release) is None]
        gone_ids = gone_ids[: MAX_CHANGES - len(parts)]
        _fetch(engine, gone_ids, shown)
        parts += changed_parts(release, before, [], {}, [shown[i] for i in gone_ids], names)
    return changed_answer(product, release, notes, parts[:MAX_CHANGES], len(new_ids) - len(notes))


def _fetch(engine: FlowContext, ids: Sequence[str], shown: dict[str, EvidenceChunk]) -> None:
    wanted = [i for i in dict.fromkeys(ids) if i not in shown]
    for chunk_id, chunk in (chunks_by_id(engine.release, wanted) if wanted else {}).items():
        shown[chunk_id] = evidence_chunk(chunk)


def _check(answer: VersionsAnswer, shown: dict[str, EvidenceChunk], owned):
    """Every cited piece against its own build (valid.answer.compare.check_comparison's rules)."""
    cells = [
        ComparisonCell(generation=e.generation, text=e.text, cite=e.cite, present=e.role != "lacks")
        for e in answer.evidence
        if e.cite is not None
    ]
    comparison = Comparison(kind="difference", generations=list(answer.versions), labels=list(answer.labels), summary="", rows=[ComparisonRow(kind="shared", topic=answer.kind, cells=cells)])
    return check_comparison(comparison, shown, owned)
