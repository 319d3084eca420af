"""The comparison flow: from a comparison or availability question to a `compare` answer object.

    question ─ comparison_kind ─ difference ─ retrieve in each named generation's scope (one each)
                               │             ─ groups of their top chunks (stored in the release)
                               │             ─ rows: differs / only / shared, every cell cited
                               └ availability ─ retrieve in each named generation's scope
                                               ─ the topic titled with the subject (names only)
                                               ─ yes / no per generation, with its own evidence
             ─ writer: offline (composed from the rows) or Gemini (prose from the rows only)
             ─ check_comparison (every cell against its own generation) ─► compare

Only chunks in scope for the named generations are fetched, shown, given to a writer or logged;
another generation's content is looked up by title and scope only, never shown. A generation the
docs do not cover is refused in the same answer object, as for answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from valid.index.groups import Groups, build_groups, generation_names

from valid.answer.citations import with_cell_pages
from valid.wording import fill
from valid.answer.compare import (
    EDGE_DEPTH,
    MAX_ROWS,
    ROW_DEPTH,
    Side,
    availability_cell,
    build_comparison,
    check_comparison,
    comparison_kind,
    difference_rows,
    subject_words,
    search_query,
    topics_titled,
    with_value_names,
)
from valid.answer.models import AnswerObject, ComparisonRow, EvidenceChunk, ScopeResolution
from valid.answer.retrieve import chunks_by_id, evidence_chunk, retrieve_in_scope

from valid.answer.asked import AskResult, FlowContext, QueryMemo, ms


SUBJECT_DEPTH = 5  # BM25 hits per side for an availability question's subject
TITLE_DEPTH = 20  # BM25 hits, over every generation, whose titles may name the subject

__all__ = ["ask_comparison", "comparison_kind"]


def _groups(release) -> Groups:
    groups = getattr(release, "groups", None)
    if isinstance(groups, Groups):
        return groups
    return build_groups(release.get_chunks(release.all_chunk_ids()), release.header.profiles)


def ask_comparison(
    engine: FlowContext,
    question: str,
    resolution: ScopeResolution,
    kind: str,
    started: float,
    stages: dict,
    answer_when_same: bool = False,
) -> AskResult | None:
    """Answer a comparison or availability question: scope, retrieve per side, rows, writer, check, log.

    `answer_when_same`: the question asks something of each build side by side ("A vs B: what is the
    default?"), not their difference. When no row differs, a comparison would tell the reader only the
    titles of the topics both builds share; None then, and the engine answers the question in each
    build's own scope instead (nothing is logged here)."""

    resolution = with_value_names(question, resolution, engine.owned, [p.name for p in engine.profiles])
    names = generation_names(engine.profiles)
    every_name = _every_name(names, resolution)
    query = _side_query(engine, question, every_name)
    sides = [Side(p, engine.labels[p], tuple(names.get(p, [p]))) for p in resolution.profiles]
    embedder = QueryMemo(engine.embedder)
    refusal, gap_issues = _unknown_refusal(engine, question, resolution)

    t = time.perf_counter()
    retrievals = _retrieve(engine, embedder, query, sides)
    retrieved = {p: list(r.chunks) for p, r in retrievals.items()}
    stages["retrieve"] = ms(t)

    t = time.perf_counter()
    subject, rows, shown = _rows(engine.release, kind, question, resolution, every_name, sides, retrieved, query)
    stages["compare"] = ms(t)
    if answer_when_same and kind == "difference" and rows and all(r.kind == "shared" for r in rows):
        return None

    t = time.perf_counter()
    comparison = _computed(kind, sides, rows, subject)
    cited = {c.cite: shown[c.cite] for r in rows for c in r.cells if c.cite in shown}
    comparison, written = _write(engine, question, comparison, cited, rows)
    stages["generate"] = ms(t)

    t = time.perf_counter()
    report = check_comparison(comparison, cited, engine.owned)
    stages["check"] = ms(t)
    if not report.passed:
        # A computed comparison that fails its own checks is never shown: refuse instead.
        comparison, refusal = None, _failed_checks_refusal(report, engine.words)
    degraded_reasons = _degraded_reasons(retrievals, written.note)
    latency = ms(started)
    stages["total"] = latency
    answer = _answer_object(engine, resolution, comparison, refusal, _checks(report, written.revisions), written, latency)
    stages_ms = {k: round(v, 3) for k, v in stages.items()}
    result = AskResult(answer=answer, degraded=bool(degraded_reasons), degraded_reasons=degraded_reasons, stages_ms=stages_ms)
    if engine.log_question is not None:
        _log(engine, question, resolution, retrievals, result, gap_issues, sides, cited, report)
    return result


def _every_name(names: dict[str, list[str]], resolution: ScopeResolution) -> list[str]:
    """Every generation's names and the words the question matched, longest first."""
    return sorted({n for ns in names.values() for n in ns} | set(resolution.matched), key=lambda n: (-len(n), n))


def _side_query(engine: FlowContext, question: str, every_name: list[str]) -> str:
    # Every side searches for the same thing: the question without any generation's names.
    query = search_query(question, every_name)
    if engine.abbreviations is not None:  # both forms of an abbreviation the doc set defines, as answers search
        query = engine.abbreviations.expand(query)
    return query


def _unknown_refusal(engine: FlowContext, question: str, resolution: ScopeResolution):
    """The refusal for a generation the docs do not cover (None when every one is known), and its gap issues."""
    if not resolution.unknown:
        return None, []
    refusal, issue = engine.unknown_refusal(question, resolution)
    return refusal, [issue] if issue else []


def _retrieve(engine: FlowContext, embedder, query: str, sides: list[Side]) -> dict:
    """Each side's retrieval, in its own generation's scope only."""
    abbreviations = engine.abbreviations
    return {
        s.profile: (
            retrieve_in_scope(engine.release, embedder, query, s.profile, abbreviations, engine.tuning)
            if abbreviations is not None
            else retrieve_in_scope(engine.release, embedder, query, s.profile, tuning=engine.tuning)
        )
        for s in sides
    }


def _rows(
    release,
    kind: str,
    question: str,
    resolution: ScopeResolution,
    every_name: list[str],
    sides: list[Side],
    retrieved: dict[str, list[EvidenceChunk]],
    query: str,
) -> tuple[str, list[ComparisonRow], dict[str, EvidenceChunk]]:
    """The subject (availability only), the comparison rows, and every chunk they may cite, by id."""
    subject = ""
    shown: dict[str, EvidenceChunk] = {c.id: c for chunks in retrieved.values() for c in chunks}
    if kind == "availability":
        words = subject_words(question, resolution.matched, every_name)
        subject = " ".join(words)
        rows = [_availability_row(release, sides, words, retrieved, shown)] if words else []
    elif len(sides) >= 2:
        groups = _groups(release)
        rows = _difference(release, sides, retrieved, groups, shown, query)
    else:
        rows = []  # one known generation: the unknown side is refused, nothing to compare against
    return subject, rows, shown


def _computed(kind: str, sides: list[Side], rows: list[ComparisonRow], subject: str):
    """The comparison composed from the rows (the offline writer)."""
    comparison = build_comparison(kind, sides, rows, subject)
    if len(sides) < 2 and kind == "difference":
        comparison = comparison.model_copy(
            update={"summary": f"Only {sides[0].label} is documented here, so there is nothing to compare it with."}
        )
    return comparison


@dataclass
class _WriterRun:
    """What the model writer cost, and its note when its prose was not used (None: used, or not asked)."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    revisions: int = 0
    note: str | None = None


def _write(engine: FlowContext, question: str, comparison, cited: dict[str, EvidenceChunk], rows: list[ComparisonRow]):
    """Gemini's prose in place of the computed summary when it passes its checks; offline, the comparison as is."""
    if engine.generator.name != "gemini" or not rows:
        return comparison, _WriterRun()
    from valid.answer.compare_generate import write_comparison

    written = write_comparison(engine.generator, question, comparison, cited, engine.owned)
    cost = _WriterRun(written.calls, written.tokens_in, written.tokens_out, written.revisions)
    if written.summary is not None:
        comparison = comparison.model_copy(update={"summary": written.summary, "statements": written.statements})
    else:
        cost.note = written.note
    return comparison, cost


def _checks(report, revisions: int) -> dict:
    return {
        "citations_in_scope": f"{report.citations_in_scope}/{report.citations}",
        "values_grounded": f"{report.values_grounded}/{report.values}",
        "out_of_scope_values": report.out_of_scope_values,
        "revisions": revisions,
        "passed": report.passed,
    }


def _failed_checks_refusal(report, words):
    from valid.answer.models import Refusal

    reason = words["refused_comparison_checks"] + "; ".join(f.reason for f in report.failures[:3])
    return Refusal(reason=reason, missing=words["missing_comparison"], gap_issue=None)


def _degraded_reasons(retrievals, writer_note: str | None) -> list[str]:
    """Why the answer is degraded: each side's retrieval, then the writer."""
    return [f"{p}: {r}" for p, o in retrievals.items() for r in o.reasons] + ([writer_note] if writer_note else [])


def _not_used(engine: FlowContext, resolution: ScopeResolution, writer_note: str | None) -> str:
    """What the answer left out on purpose: the other generations, and the writer's note."""
    others = [engine.labels[p.name] for p in engine.profiles if p.name not in resolution.profiles]
    not_used = ""
    if others:
        not_used = fill(engine.words["not_used_not_compared"], names=_join(others))
    if writer_note:
        not_used = (not_used + " " + writer_note).strip()
    return not_used


def _answer_object(
    engine: FlowContext, resolution: ScopeResolution, comparison, refusal, checks: dict, written: _WriterRun, latency: float
) -> AnswerObject:
    return AnswerObject(
        outcome="compare" if comparison is not None else "refuse",
        scope=list(resolution.profiles),
        matched=list(resolution.matched),
        answers=[],
        choices=[],
        refusal=refusal,
        not_used=_not_used(engine, resolution, written.note),
        checks=checks,
        run=engine.run_record(written.calls, written.tokens_in, written.tokens_out, latency),
        release=engine.release_id,
        comparison=with_cell_pages(comparison, engine.published),  # cells link to the published pages
    )


def _log(
    engine: FlowContext,
    question: str,
    resolution: ScopeResolution,
    retrievals,
    result: "AskResult",
    gap_issues: list[str],
    sides: list[Side],
    cited: dict[str, EvidenceChunk],
    report,
) -> None:
    """Log the question, and set the result's log id and the log stage's time."""

    clock = time.perf_counter()
    row = engine.log_row(question, resolution, result.answer, retrievals, {}, result, gap_issues)
    # What each side's cells were taken from, per generation (chunk ids and scopes, never text).
    row["sent"] = {
        s.profile: [[{"id": c.id, "scope": list(c.scope)} for c in cited.values() if s.profile in c.scope]]
        for s in sides
    }
    row["checks"] = {"compare": [report.model_dump(mode="json")]}
    result.log_id = engine.log_question(row)
    result.stages_ms["log"] = round(ms(clock), 3)


def _difference(release, sides, retrieved, groups: Groups, shown: dict[str, EvidenceChunk], query: str) -> list[ComparisonRow]:
    """Fetch the group members of each side's top chunks that are in scope for a named side, then
    compute the rows."""
    profiles = {s.profile for s in sides}
    wanted: list[str] = []
    for side in sides:
        for rank, chunk in enumerate(retrieved[side.profile][:ROW_DEPTH]):
            keys = [groups.group_of.get(chunk.id, chunk.id)]
            if rank < EDGE_DEPTH:
                keys += groups.topic_groups(chunk.id)
            for key in keys:
                for member in groups.members.get(key, [key]):
                    if member not in shown and profiles & set(groups.scopes.get(member, ())):
                        wanted.append(member)
    if wanted:
        for chunk_id, chunk in chunks_by_id(release, list(dict.fromkeys(wanted))).items():
            if profiles & set(chunk.in_scope()):
                shown[chunk_id] = evidence_chunk(chunk)
    return difference_rows(sides, retrieved, groups, shown, ROW_DEPTH, MAX_ROWS, query)


def _availability_row(release, sides, words, retrieved, shown: dict[str, EvidenceChunk]) -> ComparisonRow:
    query = " ".join(words)
    every = [p.name for p in release.header.profiles]
    # Which generations have a topic titled with the subject: scopes and titles only, never text.
    hits = release.search_bm25_any(query, every, TITLE_DEPTH) if hasattr(release, "search_bm25_any") else []
    found = chunks_by_id(release, [h.chunk_id for h in hits]) if hits else {}
    titled = topics_titled(words, [found[h.chunk_id] for h in hits if h.chunk_id in found])
    titled_scope = set().union(*(set(c.in_scope()) for c in titled)) if titled else None
    cells = []
    for side in sides:
        evidence = list(retrieved[side.profile])
        extra_ids = [h.chunk_id for h in release.search_bm25(query, side.profile, SUBJECT_DEPTH)]
        extra = chunks_by_id(release, extra_ids) if extra_ids else {}
        for chunk_id in extra_ids:
            chunk = extra.get(chunk_id)
            if chunk is not None and chunk.scope.get(side.profile) and all(chunk_id != e.id for e in evidence):
                evidence.append(evidence_chunk(chunk))
        mine = [evidence_chunk(c) for c in titled if c.scope.get(side.profile)]
        for chunk in [*evidence, *mine]:
            shown.setdefault(chunk.id, chunk)
        cells.append(availability_cell(side, words, titled_scope, mine, evidence))
    return ComparisonRow(kind="availability", topic=query, cells=cells)


def _join(names) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
