"""The answer loop and refuse_or_ask: from a question to an answer, a choice, or a refusal.

    question ─ resolve_scope ─┬─ unknown generation named ───────────────────────────► refuse
                              ├─ no generation: search every generation (each in its own scope)
                              │    ├─ nothing relevant anywhere ──────────────────────► refuse
                              │    ├─ only content shared by every generation answers ► answer (scope: all)
                              │    └─ the in-scope answers differ by generation ──────► ask (choices)
                              └─ one or more generations: per generation
                                   retrieve_in_scope ─ nothing relevant ──────────────► refuse (gap issue)
                                   generate ─ check ─ pass ───────────────────────────► answer
                                                  └─ fail: revise with reasons, same chunks, ≤ 2 times
                                                           └─ still failing ─────────► refuse (gap issue)

The model phrases; the checks decide. A failure never widens the search: a revision gets exactly the
chunks of the first attempt. Every question, whatever its outcome, is logged with its cost.

Each step is a method of `AnswerEngine` named as above (`resolve_scope`, `refuse_or_ask`,
`retrieve_in_scope`, `generate`, `check`, `log_question`); `ask` runs them in order over one `_Ask`,
the state of that question alone. Comparison questions branch off after `resolve_scope`
(valid.answer.compare_flow).
"""

from __future__ import annotations

import functools
import hashlib
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Iterable, Mapping, Protocol, Sequence

from valid.contracts import ProfileInfo
from valid.errors import ConfigError

from valid.answer.agree import agree
from valid.answer.answerable import Answerability, assess
from valid.answer.asked import AskResult, FlowContext, QueryMemo as _QueryMemo, ms as _ms
from valid.answer.check import OwnedLookup, check_answer
from valid.answer.citations import PublishedPages, crumbs_by_chunk, with_pages
from valid.answer.compare_flow import ask_comparison, comparison_kind
from valid.answer.versions_catalog import Catalog, build_catalog
from valid.audit.owned import base_id
from valid.index.groups import generation_names, topic_of
from valid.answer.versions_flow import ask_versions, read_question
from valid.answer.extract import PIECE_KINDS, answering_chunk, states_an_answer
from valid.answer.fold import fold_answers
from valid.wording import DocSetFacts, WordingSettings, fill, wording_for
from valid.answer.generate import Generator, OfflineExtractive
from valid.answer.unitvectors import UnitVectorSource
from valid.questionlog.store import QuestionStore
from valid.answer.parts import with_parts
from valid.answer.peers import PEER_SHARE, peers
from valid.answer.models import (
    AnswerObject,
    CheckReport,
    Choice,
    Draft,
    GenerationAnswer,
    Refusal,
    RetrievalOutcome,
    Run,
    ScopeResolution,
    Step,
)
from valid.answer.pricing import cost_usd, require_price
from valid.answer.prompt import GenerationRequest
from valid.answer.reading import Reading, read
from valid.answer import retrieve as search
from valid.answer import scope as scoping
from valid.answer.retrieve import ReleaseHandle, deeper, deeper_each, route
from valid.answer.scope import search_text
from valid.answer.choices import (
    SHARED_TOP, has_own, nearer_left_out, nearest_passage_builds, shared_chunks, shared_only, undominated,
)
from valid.index.variants import masked, profile_names
from valid.answer.tuning import BUILT_IN, Tuning
from valid.answer.vocabulary import Vocabulary
from valid.answer.domain import doc_terms, foreign_terms
from valid.answer.text import terms as text_terms

MAX_REVISIONS = 2
# With no build named, each build the reader would be asked to choose is answered in its own scope
# to see whether they all say the same; past this many builds the drafts cost more than a choice
# (20 was tried for the Oxygen guide's 19 builds: no dev question moved, and an unscoped question
# from the CLI took 3.4 s through a running service instead of under 1 s).
AGREE_MAX_BUILDS = 8


class IssueSink(Protocol):
    """Where refusals become work for a writer (valid.audit's gap-issue store)."""

    def open_issue(self, kind: str, fingerprint: str, title: str, body: str, source: str) -> Any: ...


Progress = Callable[[str, dict], None]


def _silent(stage: str, data: dict) -> None:
    pass


@dataclass
class _Attempts:
    """Everything one generation's loop did, for the answer, the checks summary and the log."""

    profile: str
    drafts: list[Draft] = field(default_factory=list)
    reports: list[CheckReport] = field(default_factory=list)
    sent: list[list[dict]] = field(default_factory=list)
    answered: GenerationAnswer | None = None
    refusal: str | None = None  # why this generation was refused
    missing: str | None = None
    content_gap: bool = True  # a refusal a writer can fix (vs. the model being unavailable)
    read: list = field(default_factory=list)  # the evidence a selection read and found no answer in


@dataclass
class _Ask:
    """One ask's working state: each step reads it and adds what it found; nothing outlives the ask."""

    question: str
    resolution: ScopeResolution
    reading: Reading  # what the question asks and is about, read once (valid.answer.reading)
    searched: str  # the question with both forms of the abbreviations it uses
    embedder: _QueryMemo
    stages: dict[str, float]
    progress: Progress
    scope: list[str]
    retrievals: dict[str, RetrievalOutcome] = field(default_factory=dict)
    attempts: dict[str, _Attempts] = field(default_factory=dict)
    outcome: str = ""  # set by the step that decides; the generations are answered in scope when none has
    answers: list[GenerationAnswer] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    refusal: Refusal | None = None
    not_used: str = ""
    gap_issues: list[str] = field(default_factory=list)
    unknown_refusal: Refusal | None = None  # a generation the docs do not cover, named beside known ones


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def _normal_question(question: str) -> str:
    return " ".join(re.sub(r"[^\w\s-]", " ", question.lower()).split())


class AnswerEngine:
    """The answer engine over one release.

    An ask keeps its state local; the shared parts (release handle, question log, issue store)
    serialise their own I/O, so one engine can serve several threads.
    """

    def __init__(
        self,
        release: ReleaseHandle,
        embedder,
        generator: Generator,
        owned: OwnedLookup | Mapping[str, Collection[str]],
        *,
        issues: IssueSink | None = None,
        log: QuestionStore | None = None,
        release_id: str | None = None,
        profiles: Sequence[ProfileInfo] | None = None,
        max_revisions: int = MAX_REVISIONS,
        agree_max_builds: int = AGREE_MAX_BUILDS,
        peer_share: float = PEER_SHARE,
        vocabulary: Vocabulary | None = None,
        published: PublishedPages | None = None,
        wording: WordingSettings | None = None,
        version_order: Sequence[str] = (),
        tuning: Tuning = BUILT_IN,
    ):
        self.release = release
        self.embedder = embedder
        # The engine owns its floors and weights: retrieval, the choices and the offline answerer
        # are given this object (valid.answer.tuning), so two engines may be tuned differently.
        self.tuning = tuning
        if getattr(generator, "tuning", tuning) != tuning:
            # An answerer built with other weights would rank by them while the engine retrieves by
            # its own: one engine, one tuning.
            raise ConfigError(
                "the offline answerer was built with other floors and weights than the engine's; "
                "build it with make_generator(kind, tuning=...) or give open_engine the generator's kind"
            )
        self.vocabulary = vocabulary if vocabulary is not None else Vocabulary()
        # The offline answerer reads the release's stored unit vectors (valid.answer.unitvectors) and
        # the doc set's titles, which a cross-reference shows (valid.answer.vocabulary); it also
        # chooses, for any generator, what a value's content would answer (agreement, own content).
        vectors = UnitVectorSource.for_release(release, embedder)
        titles = self.vocabulary.titles
        # A build's name inside a longer name the docs title a topic with names that thing (valid.answer.scope).
        self._title_phrases = scoping.TitlePhrases(titles)
        common = self.vocabulary.common
        if isinstance(generator, OfflineExtractive) and generator.vectors is None:
            generator = generator.bound(vectors, titles, common)
        self.generator = generator
        self.offline = (
            generator
            if isinstance(generator, OfflineExtractive)
            else OfflineExtractive(tuning=tuning).bound(vectors, titles, common)
        )
        self.owned = owned
        self.issues = issues
        self.log = log
        self.max_revisions = max_revisions
        self.agree_max_builds = agree_max_builds
        self.published = published  # where the team publishes each build: citations link there
        self.release_id = release_id or _release_id(release)
        self.profiles = list(profiles if profiles is not None else release.header.profiles)
        self._labels = {p.name: (p.labels[0] if p.labels else p.name) for p in self.profiles}
        # Which words of the builds' labels the doc set writes as their names (valid.answer.scope).
        self._name_use = scoping.NameWordUse(self.profiles, getattr(release, "chunks_writing", None))
        # The answer's own sentences (refusals, what was not used) in the doc set's noun for a build.
        attribute = getattr(getattr(release, "header", None), "attribute", None)
        self.words = wording_for(DocSetFacts(attribute=attribute), wording)
        self._order = {p.name: i for i, p in enumerate(self.profiles)}
        # The versions of each value's own product (all values, when the labels name one product).
        products = scoping.naming_pattern(self.profiles).products
        # And the editions of one product, which share most of their content (valid.answer.peers).
        shared = release.shared_counts() if hasattr(release, "shared_counts") else None
        self._peers = peers([p.name for p in self.profiles], products, shared, peer_share)
        # The order of versions where the labels' version strings do not give it (valid.toml [versions] order).
        self.version_order = tuple(version_order)
        self._catalog: Catalog | None = None
        self._generation_names = generation_names(self.profiles)
        # Each build's own names (labels, and the names the export ties to it): masked, they tell a
        # build's copy of a text from content that differs (valid.index.variants).
        header = getattr(release, "header", None)
        self._own_names = (
            profile_names(header) if header is not None else {p.name: frozenset(p.labels) for p in self.profiles}
        )
        require_price(generator.model)  # no question is ever answered without a price to log

    # -- public ------------------------------------------------------------------------------
    def tuning_values(self) -> dict[str, Any]:
        """The floors and weights this engine answers with, by `[tuning]` key."""
        return self.tuning.values()

    def ask(self, question: str, generation: str | None = None, progress: Progress | None = None,
            among: Sequence[str] | None = None) -> AskResult:
        """`progress(stage, data)`, if given, hears each stage as it starts (scope, retrieved,
        generating, checking); its data never holds answer text. `among`: when the question names
        no generation, only these are searched and offered (a conversation's reply that matched
        several of the generations offered before)."""
        started = time.perf_counter()
        stages: dict[str, float] = {}
        progress = progress or _silent
        resolution = self.resolve_scope(question, generation, stages)
        if among and not resolution.profiles:
            pool = [p for p in (resolution.candidates or among) if p in among] or list(among)
            resolution = resolution.model_copy(update={"candidates": sorted(pool, key=self._order.__getitem__)})
        # The one reading of the question every stage below is given (valid.answer.reading).
        reading = self.read(question, resolution)
        # Searched with both forms of the abbreviations it uses ("high-bandwidth memory" and "HBM").
        searched = self.abbreviations.expand(reading.said)
        progress("scope", {"scope": list(resolution.profiles), "matched": list(resolution.matched)})
        # Questions about the versions themselves have their own flow (valid.answer.versions_flow).
        about_versions = read_question(reading, resolution, self.profiles, self.versions_catalog)
        if about_versions is not None:
            return ask_versions(self._flow_context(), question, resolution, about_versions, started, stages)
        # Comparison and availability questions have their own flow (valid.answer.compare_flow).
        kind = comparison_kind(reading, resolution, self.owned)
        if kind is not None:
            compared = ask_comparison(
                self._flow_context(), question, resolution, kind, started, stages,
                answer_when_same=not reading.asks_difference,
            )
            if compared is not None:
                return compared
        run = _Ask(
            question, resolution, reading, searched, _QueryMemo(self.embedder), stages, progress, list(resolution.profiles)
        )
        stages["retrieve"] = stages["generate"] = stages["check"] = 0.0
        self.refuse_or_ask(run)
        if not run.outcome:
            self._answer_in_scope(run)
        result = self._result(run, started)
        self.log_question(run, result)
        return result

    def read(self, question: str, resolution: ScopeResolution) -> Reading:
        """The question's one reading (valid.answer.reading), against the names that chose its scope."""
        return read(question, self._names(resolution), self.vocabulary.commands, self.vocabulary.common)

    def _names_of(self, profile: str) -> list[str]:
        """The words that name one profile (its name, labels and their dotted versions)."""
        return self._generation_names.get(profile, [profile])

    @property
    def versions_catalog(self) -> Catalog:
        """The products and their versions in order (valid.answer.versions_catalog), built once."""
        if self._catalog is None:
            self._catalog = build_catalog(self.profiles, self.version_order)
        return self._catalog

    # -- the steps of an ask, in order -----------------------------------------------------------
    def resolve_scope(self, question: str, generation: str | None, stages: dict[str, float]) -> ScopeResolution:
        """Which generations the question is about (valid.answer.scope), timed as the `scope` stage."""
        clock = time.perf_counter()
        resolution = scoping.resolve_scope(question, self.profiles, generation, self._title_phrases, self._name_use)
        stages["scope"] = _ms(clock)
        return resolution

    def refuse_or_ask(self, run: _Ask) -> None:
        """Decide what no single generation's answer can: refuse a generation the docs do not cover;
        with no generation named, refuse, answer from shared content, or ask the reader to choose.
        Leaves `run.outcome` empty when the named generations are to be answered in scope."""
        resolution = run.resolution
        if resolution.unknown:
            run.unknown_refusal, issue = self._unknown_refusal(run.question, resolution)
            run.gap_issues += [issue] if issue else []
        if resolution.unknown and not run.scope:
            run.outcome = "refuse"
            run.refusal = run.unknown_refusal
            run.not_used = self.words["not_used_unknown"]
        elif not run.scope:
            self._no_generation_named(run)

    def retrieve_in_scope(self, run: _Ask, profile: str) -> RetrievalOutcome:
        """Hybrid search inside one generation's scope (valid.answer.retrieve), kept for the log."""
        t = time.perf_counter()
        run.retrievals[profile] = search.retrieve_in_scope(
            self.release, run.embedder, search_text(run.searched, run.resolution, profile), profile, self.abbreviations,
            self.tuning,
        )
        run.stages["retrieve"] += _ms(t)
        run.progress("retrieved", {"generations": [profile], "chunks": len(run.retrievals[profile].chunks)})
        return run.retrievals[profile]

    def generate(self, request: GenerationRequest, attempts: _Attempts, attempt: int, stages, progress: Progress) -> Draft:
        """One draft from the generator; the chunks it was sent are recorded for the log."""
        progress("generating", {"generations": list(request.scope), "attempt": attempt + 1})
        t = time.perf_counter()
        draft = self.generator.generate(request)
        stages["generate"] += _ms(t)
        attempts.drafts.append(draft)
        # The same chunks every time: a revision never searches again, let alone wider.
        attempts.sent.append([{"id": c.id, "scope": list(c.scope)} for c in request.chunks])
        return draft

    def check(self, draft: Draft, request: GenerationRequest, attempts: _Attempts, attempt: int, stages, progress: Progress) -> CheckReport:
        """The plain-Python checks of one draft against its scope and chunks (valid.answer.check)."""
        progress("checking", {"generations": list(request.scope), "attempt": attempt + 1})
        t = time.perf_counter()
        report = check_answer(draft, request.scope, request.chunks, self.owned)
        stages["check"] += _ms(t)
        attempts.reports.append(report)
        return report

    def log_question(self, run: _Ask, result: AskResult) -> None:
        """One log row per question, whatever its outcome, with its cost (when a log is kept)."""
        if self.log is None:
            return
        clock = time.perf_counter()
        result.log_id = self.log.log_question(
            self._log_row(run.question, run.resolution, result.answer, run.retrievals, run.attempts, result, run.gap_issues)
        )
        result.stages_ms["log"] = round(_ms(clock), 3)

    # -- no generation named: refuse, answer from shared content, or ask -----------------------
    def _no_generation_named(self, run: _Ask) -> None:
        # A product or a partial version named: only those values are searched and offered.
        pool = list(run.resolution.candidates) or [p.name for p in self.profiles]
        t = time.perf_counter()
        run.retrievals.update(route(self.release, run.embedder, run.searched, pool, self.abbreviations, self.tuning))
        run.stages["retrieve"] += _ms(t)
        run.progress("retrieved", {"generations": list(pool), "chunks": sum(len(run.retrievals[p].chunks) for p in pool)})
        relevant = [p for p in pool if run.retrievals[p].relevant and not self._off_topic(run, run.retrievals[p])]
        # A generation whose content lacks what the question is about (its flag, a command it
        # does not have) is neither searched for a shared answer nor offered as a choice.
        t = time.perf_counter()
        relevant = self._answerable_in(run.reading, relevant, pool, run.retrievals)
        run.stages["answerable"] = run.stages.get("answerable", 0.0) + _ms(t)
        if not relevant:
            self._refuse_no_content(run)
        elif run.reading.reference or not self._answered_from_shared_text(run, pool, relevant):
            # Where a passage points is what an output may drop (a PDF build keeps the sentence, not
            # its link): text the builds share does not show that each of them points there, so each
            # build's own content is read (agreement, or the reader chooses).
            self._offer_choices(run, pool, relevant)

    def _answered_from_shared_text(self, run: _Ask, pool: list[str], relevant: list[str]) -> bool:
        """Answered once from a text builds share: every build's (the pool's), or that of the builds
        that alone have content on the question, or that of the builds keeping the passage nearest it.
        False: nothing decided."""
        if len(relevant) == len(pool) and shared_only(run.retrievals, pool, self.owned):
            self._answer_shared(run, pool)
            return True
        return self._answered_shared_by_those_with_content(run, pool, relevant) or (
            self._answered_shared_by_those_with_content(run, pool, self._keeping_the_nearest(run, pool, relevant))
        )

    def _keeping_the_nearest(self, run: _Ask, pool: list[str], relevant: list[str]) -> list[str]:
        """The builds that keep the passage nearest the question in meaning, clearly nearer (the
        tuning's dominance_similarity) than anything the others keep, when each of them has content
        that answers: the question is about a topic written for those builds. Empty otherwise, and when
        they are the relevant builds already tried."""
        holders = nearest_passage_builds(
            run.retrievals, pool, [p.name for p in self.profiles], self.tuning.dominance_similarity
        )
        if sorted(holders) == sorted(relevant) or not set(holders) <= set(relevant):
            return []
        return holders

    def _refuse_no_content(self, run: _Ask) -> None:
        question = run.question
        run.outcome = "refuse"
        issue = self._open_gap(
            "no-content",
            _fingerprint("no-content", "*", _normal_question(question)),
            f"No content answers: {question}",
            self._gap_body(question, "any generation", run.retrievals),
        )
        run.gap_issues += [issue] if issue else []
        run.refusal = Refusal(
            reason=self.words["refused_nothing"],
            missing=f"content that answers: {question}",
            gap_issue=issue,
        )

    def _answer_shared(self, run: _Ask, pool: list[str]) -> None:
        run.scope = list(pool)
        chunks = self._shared_evidence(run, pool)
        result = self._loop(
            run.question, run.scope, chunks, run.stages, key="*", matched=run.resolution.matched, progress=run.progress,
            reading=run.reading,
        )
        run.attempts["*"] = result
        if result.answered:
            run.outcome = "answer"
            run.answers = [result.answered.model_copy(update={"generation": p, "generations": [p]}) for p in run.scope]
            run.not_used = self.words["not_used_shared"]
        else:
            run.outcome = "refuse"
            run.refusal, issue = self._refusal(run.question, [result], run.retrievals)
            run.gap_issues += [issue] if issue else []

    def _answered_shared_by_those_with_content(self, run: _Ask, pool: list[str], relevant: list[str]) -> bool:
        """Only some builds of the pool have content on the question, and theirs is one text they all
        keep (the best chunks of each are in scope for all of them: a topic the writers profiled for
        the desktop editions alone): answered once for them, the others named as lacking it. False
        (nothing decided) when they have content of their own, or when that text does not answer:
        the reader chooses."""
        if not 2 <= len(relevant) < len(pool):
            return False
        if not shared_only({p: run.retrievals[p] for p in relevant}, relevant, self.owned):
            return False
        # A build left out is nearer the question in meaning than all of them (its content was judged
        # not to answer by a term it lacks): the question may be about that build's topic, and the
        # text these builds share only the next best match. The reader chooses.
        if _left_out_nearer(run.retrievals, relevant, [p for p in pool if p not in relevant]):
            return False
        chunks = self._shared_evidence(run, relevant)
        result = self._loop(
            run.question, list(relevant), chunks, run.stages, key="*", matched=run.resolution.matched,
            progress=run.progress, reading=run.reading,
        )
        if not result.answered:
            return False
        run.attempts["*"] = result
        run.outcome = "answer"
        run.scope = list(relevant)
        run.answers = [result.answered.model_copy(update={"generation": p, "generations": [p]}) for p in run.scope]
        self._name_the_unanswered(run, [self._lacking(p, run.question) for p in pool if p not in relevant])
        return True

    def _shared_evidence(self, run: _Ask, pool: list[str]) -> list:
        """The chunks every build of the pool keeps, read as deep as one build's own answer reads
        (the generator's evidence depth): the retrievals' top ones first, then those ranked below
        them in each build's own ranking."""
        depth = getattr(self.generator, "evidence_depth", SHARED_TOP)
        below = deeper_each(self.release, {p: run.retrievals[p] for p in pool}, depth)
        return shared_chunks(run.retrievals, pool, depth, below)

    def _lacking(self, profile: str, question: str) -> _Attempts:
        """A build of the pool whose content has nothing on the question."""
        label = self._labels[profile]
        return _Attempts(
            profile=profile,
            refusal=f"nothing in scope for {label} answers the question",
            missing=f"{label} content that answers: {question}",
        )

    def _name_the_unanswered(self, run: _Ask, refused: list[_Attempts]) -> None:
        """An answer for some builds of the pool: the others are named in the refusal (a gap issue
        where their content could answer), and what was left out says whose content that was."""
        if refused:
            run.refusal, issue = self._refusal(run.question, refused, run.retrievals)
            run.gap_issues += [issue] if issue else []
        others = [self._labels[p.name] for p in self.profiles if p.name not in run.scope]
        run.not_used = (
            f"Content profiled only for {_join(others)}: out of scope for this question, excluded on purpose."
            if others else ""
        )

    def _offer_choices(self, run: _Ask, pool: list[str], relevant: list[str]) -> None:
        reading, resolution, retrievals = run.reading, run.resolution, run.retrievals
        # Only the values whose own content may answer are offered. Offering costs the
        # reader one click, so the bar is lower than for answering (docs/answer.md).
        offered = [p for p in pool if p in relevant or p in self._near(retrievals, p, reading, pool)]
        # A generation whose best chunks are all shared by every candidate has nothing of its
        # own to answer with: choosing it would give the shared text everyone gets.
        listed = [chunk for p in pool for chunk in retrievals[p].chunks]
        evidence = functools.cache(lambda p: self._evidence(retrievals[p]))  # deeper reads once per value
        owning = [p for p in offered if has_own(retrievals[p], pool, listed)]
        # A release of a product whose other releases do differ here may still have its own
        # answer below its best chunks (its limits table under shared troubleshooting topics).
        owning += [
            p for p in offered
            if p not in owning and any(q in self._peers[p] for q in owning)
            and self._answers_from_own(reading, p, evidence(p), pool)
        ]
        offered = [p for p in offered if p in owning] or offered
        # And one whose content states no answer of the kind asked (no number for "how
        # many", no value for "which flag") is not offered either.
        stating = [
            p for p in offered if self._states_answer_deeper(reading, p, retrievals[p].chunks, lambda p=p: evidence(p))
        ]
        # Unless that would drop a value clearly nearer in meaning than every one it keeps: its topic
        # is the question's, and the rules missed how it states the answer (the kept ones' "answer"
        # is then a chance match, "Example 2: … Line by Line" for "how many lines").
        offered = stating if stating and not nearer_left_out(offered, stating, retrievals, self.tuning) else offered
        # And one another value clearly out-matches on both the question's words and meaning
        # (its releases have a topic on it; this one only shares generic text) is not either.
        offered = undominated(offered, retrievals, self.tuning)
        if resolution.version_named and len(offered) == 1:
            # The reader named the version; of the products that have it, only one's content
            # answers ("corvane push in 2.0.0": the CLI's, not the agent's). Answered as named.
            run.scope = offered
        elif not self._answered_where_builds_agree(run, pool, offered):
            run.outcome = "ask"
            run.choices = [Choice(generation=p, label=self._labels[p]) for p in offered]
            run.not_used = self.words["not_used_ask"]

    def _answered_where_builds_agree(self, run: _Ask, pool: list[str], offered: list[str]) -> bool:
        """Select each offered build's answer in its own scope, as if the reader had picked it, with
        the offline answerer (no model: asking back stays free); when two or more have one and all say
        the same (valid.answer.agree), the question is answered for them by the engine's generator,
        each answer citing and checked against its own build's content, and the builds of the pool
        without an answer are named in the refusal; when only one has one, it may be the only build
        whose variant of the place says it (`_answered_where_one_build_says`). When they do not all
        agree, or are too many to draft each, the builds keeping the passage clearly nearest the
        question may (`_answered_where_nearest_agree`). False (nothing decided): ask back."""
        if len(offered) > self.agree_max_builds:
            return self._answered_where_nearest_agree(run, pool, offered, {})
        if len(offered) < 2:
            return False
        selected = {p: self._selected_as_if_named(run, p) for p in offered}
        said = {p: answer for p, (_, answer) in selected.items() if answer is not None}
        if said and nearer_left_out(offered, list(said), run.retrievals, self.tuning):
            # A build the selection found no answer in is clearly nearer the question in meaning than
            # every build it found one in: its topic is the question's and the rules missed how it
            # says it, so the others' agreement may be a chance match. The reader chooses.
            return False
        if len(said) == 1:
            return self._answered_where_one_build_says(run, pool, offered, selected)
        if self._agreeing(run, pool, selected, said):
            return self._answered_as_agreed(run, pool, offered, selected, said)
        return self._answered_where_nearest_agree(run, pool, offered, selected)

    def _answered_where_nearest_agree(self, run: _Ask, pool: list[str], offered: list[str], selected: dict) -> bool:
        """The builds keeping the passage nearest the question, clearly nearer than anything the rest
        of the pool keeps (`nearest_passage_builds`), all offered, each with an answer, theirs agree
        and no other build keeps anything of the topics they quote: the writers profiled the
        question's topic for those builds, and the others' answers, if any, come from something else.
        Answered for them, the others named as lacking it.
        `selected`: the builds' selections drafted already (the others are drafted here)."""
        holders = nearest_passage_builds(
            run.retrievals, pool, [p.name for p in self.profiles], self.tuning.dominance_similarity
        )
        if not 2 <= len(holders) <= self.agree_max_builds or not set(holders) < set(offered):
            return False
        chosen = {p: selected.get(p) or self._selected_as_if_named(run, p) for p in holders}
        said = {p: answer for p, (_, answer) in chosen.items() if answer is not None}
        if len(said) != len(holders) or not self._agreeing(run, pool, chosen, said):
            return False
        # Nearer is not enough where another build keeps its own version of the topics they quote (an
        # earlier release's reference page, which says otherwise in fewer of the question's words).
        quoted = {s.cite for a in said.values() for s in a.steps}
        if self._kept_elsewhere(quoted, [p for p in pool if p not in said]):
            return False
        return self._answered_as_agreed(run, pool, offered, chosen, said)

    def _kept_elsewhere(self, cites: Iterable[str], others: Sequence[str]) -> bool:
        """Whether a build of `others` keeps a chunk of a topic these citations come from."""
        return any(any(chunk.scope.get(p) for p in others) for chunk in self._topic_chunks(cites))

    def _topic_chunks(self, cites: Iterable[str]):
        """Every chunk, in any build, of the topics these citations come from."""
        topics = {topic_of(cite) for cite in cites}
        for path in {topic.partition("#")[0] for topic in topics}:  # each source file read once
            yield from (chunk for chunk in self.release.chunks_for_path(path) if topic_of(chunk.id) in topics)

    def _agreeing(self, run: _Ask, pool: list[str], selected: Mapping, said: Mapping[str, GenerationAnswer]) -> bool:
        """Whether the answers selected for these builds tell their readers the same thing."""
        # A count, a value or names is told by its line (valid.answer.agree); a procedure or an
        # explanation by its answering unit, with any further unit from text every one of them keeps.
        # For every kind, the same chunks quoted for every build are the shared text the search
        # already judged not to answer alone (the builds have content of their own here): not
        # agreement, since a build's own content may say otherwise where the selection did not look,
        # unless those chunks' topics are theirs alone. Nor are variants of one chunk (`<id>~<profiles>`):
        # the export split that place because it differs by build, and the part quoted is only what
        # they share.
        by_line = run.reading.kind in PIECE_KINDS
        names = {p.name: p.labels for p in self.profiles}  # a build's own name is no difference
        asked = frozenset(text_terms(run.question))
        if not agree(list(said.values()), by_line, names, asked, _kept_by_all(selected, said)):
            return False
        same_chunks = len({tuple(s.cite.split("~", 1)[0] for s in a.steps) for a in said.values()}) == 1
        return not same_chunks or (
            self._one_text_theirs_alone(said, pool, run.retrievals)
            or self._copies_of_one_text(said, {p: chunks for p, (chunks, _) in selected.items()})
        )

    def _answered_as_agreed(
        self, run: _Ask, pool: list[str], offered: list[str], selected: Mapping, said: Mapping[str, GenerationAnswer]
    ) -> bool:
        """The agreeing builds answered by the engine's generator, each in its own scope and checked
        there; the other builds of the pool named as lacking an answer. False when the checks leave
        fewer than two answered: the reader chooses."""
        tried = {
            p: self._loop(run.question, [p], selected[p][0], run.stages, key=p, progress=run.progress, reading=run.reading)
            for p in said
        }
        run.attempts.update(tried)
        answered = [p for p in offered if p in tried and tried[p].answered]
        if len(answered) < 2:
            return False  # the checks refused what the selection agreed on: the reader chooses
        run.outcome = "answer"
        run.scope = answered
        run.answers = [tried[p].answered for p in answered]
        # An offered build the checks refused, or whose selection found nothing (it says why), or
        # whose answer said something else; then the builds of the pool that were never offered.
        unanswered = [
            tried.get(p) or _unanswered(selected.get(p)) or self._lacking(p, run.question)
            for p in offered if p not in answered
        ]
        self._name_the_unanswered(run, unanswered + [self._lacking(p, run.question) for p in pool if p not in offered])
        return True

    def _answered_where_one_build_says(self, run: _Ask, pool: list[str], offered: list[str], selected) -> bool:
        """One offered build's selection found an answer, and every other one read its own variant of
        the place that answer quotes (`<id>~<profiles>`: the export split it because the builds' texts
        differ there) and found none: the difference the writers profiled is what was asked (a link
        one output drops), so only that build has an answer. Answered for it, checked, the others
        named as lacking it. False (nothing decided) otherwise: the reader chooses."""
        profile, answer = next((p, a) for p, (_, a) in selected.items() if a is not None)
        quoted = {s.cite for s in answer.steps}
        names = [p.name for p in self.profiles]
        places = {base_id(cite, names) for cite in quoted}
        said = [" ".join(s.text.split()) for s in answer.steps]
        for other in offered:
            if other == profile:
                continue
            read = selected[other][0].read  # no answer: the first part is why, with what it read
            variants = [c for c in read if c.id not in quoted and base_id(c.id, names) in places]
            # Its own variant of that place, which does not say what the answer quotes from there.
            if not variants or any(line in " ".join(c.text.split()) for c in variants for line in said):
                return False
        chunks, _ = selected[profile]
        tried = self._loop(
            run.question, [profile], chunks, run.stages, key=profile, progress=run.progress, reading=run.reading
        )
        if not tried.answered:
            return False
        run.attempts[profile] = tried
        run.outcome = "answer"
        run.scope = [profile]
        run.answers = [tried.answered]
        refused = [selected[p][0] for p in offered if p != profile] + [
            self._lacking(p, run.question) for p in pool if p not in offered
        ]
        self._name_the_unanswered(run, refused)
        return True

    def _one_text_theirs_alone(self, said: Mapping[str, GenerationAnswer], pool: Sequence[str], retrievals) -> bool:
        """Every build quotes the same chunks, the topics they come from are one text for all of them,
        and the other builds of the pool (there are some) keep nothing of those topics: the writers
        profiled those topics for these builds alone (a procedure only the desktop editions have), so
        no other build says otherwise there. Where another build keeps its own version of such a topic
        (a reference page whose text differs by release), it may; and where every build keeps the
        topic, it is text they all share, which the search already judged not to answer alone. Nor
        when a build left out is nearer the question in meaning than all of them: the question may be
        about that build's topic, and their text only the next best match."""
        quoted = {tuple(s.cite for s in a.steps) for a in said.values()}
        others = set(pool) - set(said)
        if len(quoted) != 1 or not others:
            return False
        if _left_out_nearer(retrievals, said, others):
            return False
        for chunk in self._topic_chunks(next(iter(quoted))):
            kept = [chunk.scope.get(p, False) for p in said]
            # Another build's part of the topic, or one these builds do not all keep (the export
            # split the topic between them: the part quoted is only what they share).
            if any(chunk.scope.get(p) for p in others) or any(kept) and not all(kept):
                return False
        return True

    def _copies_of_one_text(self, said: Mapping[str, GenerationAnswer], evidence: Mapping[str, Sequence]) -> bool:
        """Each build quotes its own variant of the same chunks (`<id>~<profiles>`, never one chunk
        they share), and the variants are one text once each build's own names are masked (as the
        index masks name-only variants): the export split them only where a key resolves to each
        product's name, so each build's reader is told the same thing from that build's own copy.
        Variants that differ in anything else (an options table with a row more) are not. The texts
        are the builds' own evidence (`evidence`: each build's chunks its selection read)."""
        cites = {p: [s.cite for s in a.steps] for p, a in said.items()}
        ids = [c for cited in cites.values() for c in cited]
        if len(set(ids)) != len(ids):
            return False  # one chunk quoted for two builds: shared text, not a build's own copy
        texts = {c.id: c.text for p in said for c in evidence[p]}
        if not all(i in texts for i in ids):
            return False
        copies = [
            {masked(texts[cited[i]], self._own_names.get(p, ())) for p, cited in cites.items()}
            for i in range(len(next(iter(cites.values()))))
        ]
        return all(len(copy) == 1 for copy in copies)

    def _selected_as_if_named(self, run: _Ask, profile: str) -> tuple[list | _Attempts, GenerationAnswer | None]:
        """What the reader would get after choosing `profile` (scope resolved with it named): its
        evidence (or why it has none) and the answer the offline answerer selects from it (or None)."""
        resolution = self.resolve_scope(run.question, profile, {})
        # Read against this scope's names (the same reading when they are the same).
        reading = run.reading.for_names(self._names(resolution), self.vocabulary.commands, self.vocabulary.common)
        own = _Ask(run.question, resolution, reading, run.searched, run.embedder, run.stages, run.progress, [profile])
        chunks = self._in_scope_chunks(own, profile, reading.anchors, reading.words)
        if isinstance(chunks, _Attempts):
            return chunks, None
        draft = self.offline.generate(self._request(reading, profile, chunks))
        if not draft.steps:
            return _Attempts(
                profile=profile,
                refusal=f"the in-scope content for {self._labels[profile]} does not answer the question",
                missing=f"{self._labels[profile]} content that answers: {run.question}",
                read=chunks,
            ), None
        steps = [Step(text=s.text, cite=s.cite) for s in draft.steps]
        return chunks, GenerationAnswer(generation=profile, answer=draft.answer, steps=steps)

    # -- one or more generations: answer each in its own scope ----------------------------------
    def _answer_in_scope(self, run: _Ask) -> None:
        about, words = run.reading.anchors, run.reading.words
        for profile in run.scope:
            run.attempts[profile] = self._answer_generation(run, profile, about, words)
        answered = [run.attempts[p].answered for p in run.scope if run.attempts[p].answered]
        refused = [run.attempts[p] for p in run.scope if not run.attempts[p].answered]
        run.answers = list(answered)
        run.outcome = "answer" if run.answers else "refuse"
        if refused:
            run.refusal, issue = self._refusal(run.question, refused, run.retrievals)
            run.gap_issues += [issue] if issue else []
        if run.unknown_refusal is not None:
            # Known generations answered, the unknown part refused, in one answer object.
            run.refusal = _merge_refusals(run.unknown_refusal, run.refusal)
        others = [self._labels[p.name] for p in self.profiles if p.name not in run.scope]
        if others:
            run.not_used = (
                fill(self.words["not_used_others"], names=_join(others))
            )

    def _answer_generation(self, run: _Ask, profile: str, about, words) -> _Attempts:
        chunks = self._in_scope_chunks(run, profile, about, words)
        if isinstance(chunks, _Attempts):
            return chunks
        return self._loop(
            run.question, [profile], chunks, run.stages, key=profile, matched=run.resolution.matched, progress=run.progress,
            reading=run.reading,
        )

    @functools.cached_property
    def _doc_terms(self) -> frozenset[str]:
        """Every term the release's chunks write (valid.answer.domain); read once, on first use."""
        tokens = getattr(self.release, "tokens", None)
        return doc_terms(tokens()) if tokens is not None else frozenset()

    @functools.cached_property
    def _build_names(self) -> tuple[str, ...]:
        """Every name a build goes by: its own, its labels, and the names of the values it keeps."""
        return tuple(
            [n for p in self.profiles for n in (p.name, *p.labels)]
            + [n for p in self.profiles for values in p.keeps.values() for ns in values.values() for n in ns]
        )

    def _off_topic(self, run: _Ask, retrieval: RetrievalOutcome) -> bool:
        """The question has two words no build's content writes, and this build's content is not near
        it in meaning (below the tuning's foreign_similarity, or foreign_similarity_large where the doc
        set writes large_vocabulary terms or more): what it shares are ordinary words. Or
        such a word is a name or an abbreviation ("Zoom", "EPUB"): a thing the documentation never names."""
        foreign = foreign_terms(run.question, self._doc_terms, (*self._build_names, *run.resolution.matched))
        named = {n.lower() for n in (*run.reading.names, *run.reading.abbreviated)}
        # One plain word may be the reader's own ("which port is used" where a small doc set never
        # writes "use"); two, or a name, are what the question is about.
        large = len(self._doc_terms) >= self.tuning.large_vocabulary
        floor = self.tuning.foreign_similarity_large if large else self.tuning.foreign_similarity
        far = (retrieval.best_similarity or 0.0) < floor
        return bool(foreign & named) or len(foreign) >= 2 and far

    def _in_scope_chunks(self, run: _Ask, profile: str, about, words) -> list | _Attempts:
        """The chunks one build's answer is written from, aliased; or, when its content cannot
        answer, the refusal that says why."""
        retrieval = self.retrieve_in_scope(run, profile)
        t = time.perf_counter()
        found = assess(
            self.release, profile, [p.name for p in self.profiles], about, words, retrieval.chunks, self.abbreviations,
            names=list(run.reading.names),
            abbreviated=list(run.reading.abbreviated),
            peers=self._peers[profile],
            alternatives=list(run.reading.alternatives),
            phrases=list(run.reading.phrases),
        )
        run.stages["answerable"] = run.stages.get("answerable", 0.0) + _ms(t)
        if not found.answerable:
            return self._missing(profile, found)
        if not retrieval.relevant or self._off_topic(run, retrieval):
            return _Attempts(
                profile=profile,
                refusal=fill(self.words["refused_not_relevant"], name=self._labels[profile]),
                missing=fill(self.words["missing_answer"], names=self._labels[profile], question=run.question),
            )
        # With the parts the export split from them that this build keeps (valid.answer.parts).
        chunks = with_parts(self.release, self._evidence(retrieval, also=found.extra), profile)
        return [c.model_copy(update={"alias": f"c{i}"}) for i, c in enumerate(chunks, start=1)]

    # -- the answer object ------------------------------------------------------------------------
    def _result(self, run: _Ask, started: float) -> AskResult:
        attempts = run.attempts
        calls = sum(d.calls for a in attempts.values() for d in a.drafts)
        tokens_in = sum(d.tokens_in for a in attempts.values() for d in a.drafts)
        tokens_out = sum(d.tokens_out for a in attempts.values() for d in a.drafts)
        reports = [a.reports[-1] for a in attempts.values() if a.reports]
        checks = {
            "citations_in_scope": f"{sum(r.citations_in_scope for r in reports)}/{sum(r.citations for r in reports)}",
            "values_grounded": f"{sum(r.values_grounded for r in reports)}/{sum(r.values for r in reports)}",
            "out_of_scope_values": sum(r.out_of_scope_values for r in reports),
            "revisions": sum(max(0, len(a.drafts) - 1) for a in attempts.values()),
            "passed": all(r.passed for r in reports) if reports else None,
        }
        degraded_reasons = [f"{p}: {r}" for p, o in run.retrievals.items() for r in o.reasons]
        degraded_reasons += [f"{a.profile}: {a.refusal}" for a in attempts.values() if a.refusal and not a.content_gap]
        latency = _ms(started)
        run.stages["total"] = latency
        answer = AnswerObject(
            outcome=run.outcome,
            scope=run.scope,
            matched=list(run.resolution.matched),
            # Builds whose answers agree are shown once, naming them all (valid.answer.fold).
            answers=with_pages(fold_answers(run.answers), self.published),
            choices=run.choices,
            refusal=run.refusal,
            not_used=run.not_used,
            checks=checks,
            run=self.run_record(calls, tokens_in, tokens_out, latency),
            release=self.release_id,
        )
        return AskResult(
            answer=answer,
            degraded=bool(degraded_reasons),
            degraded_reasons=degraded_reasons,
            stages_ms={k: round(v, 3) for k, v in run.stages.items()},
        )

    @property
    def abbreviations(self):
        """The abbreviations the doc set defines (part of its vocabulary)."""
        return self.vocabulary.abbreviations

    def _flow_context(self) -> FlowContext:
        """What the comparison and versions flows may use of this engine (valid.answer.compare_flow,
        valid.answer.versions_flow)."""
        return FlowContext(
            release=self.release,
            release_id=self.release_id,
            profiles=self.profiles,
            labels=self._labels,
            owned=self.owned,
            embedder=self.embedder,
            generator=self.generator,
            words=self.words,
            published=self.published,
            abbreviations=self.abbreviations,
            tuning=self.tuning,
            versions_catalog=self.versions_catalog,
            names_of=self._names_of,
            run_record=self.run_record,
            unknown_refusal=self._unknown_refusal,
            log_row=self._log_row,
            log_question=self.log.log_question if self.log is not None else None,
        )

    def run_record(self, calls: int, tokens_in: int, tokens_out: int, latency_ms: float) -> Run:
        """What one ask cost: the generator and model, calls, tokens, price and latency."""
        return Run(
            generator=self.generator.name,
            model=self.generator.model,
            calls=calls,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=cost_usd(self.generator.model, tokens_in, tokens_out),
            latency_ms=round(latency_ms, 3),
        )

    # -- generate, check, revise: the loop for one answer ------------------------------------------
    def _loop(
        self, question, scope: list[str], chunks, stages, key: str, matched=(), progress=None, reading: Reading | None = None
    ) -> _Attempts:
        progress = progress or _silent
        attempts = _Attempts(profile=key)
        labels = [self._labels[p] for p in scope]
        request = GenerationRequest(
            question=question,
            scope=scope,
            labels=labels,
            matched=list(matched),
            chunks=list(chunks),
            profiles=[p.name for p in self.profiles],
            reading=reading,
        )
        for attempt in range(1 + self.max_revisions):
            draft = self.generate(request, attempts, attempt, stages, progress)
            if draft.unavailable:
                attempts.refusal = fill(self.words["refused_model_unavailable"], error=draft.unavailable)
                attempts.missing = self.words["missing_model"]
                attempts.content_gap = False
                return attempts
            if not draft.error and not draft.steps:
                attempts.refusal = fill(self.words["refused_no_answer"], names=_join(labels))
                attempts.missing = fill(self.words["missing_answer"], names=_join(labels), question=question)
                return attempts
            report = self.check(draft, request, attempts, attempt, stages, progress)
            if report.passed:
                crumbs = crumbs_by_chunk(request.chunks)
                attempts.answered = GenerationAnswer(
                    generation=scope[0],
                    answer=draft.answer,
                    steps=[Step(text=s.text, cite=s.cite, title_path=crumbs.get(s.cite, [])) for s in draft.steps],
                )
                return attempts
            request = request.model_copy(
                update={"previous": draft, "failures": report.failures, "attempt": attempt + 2}
            )
        attempts.refusal = (
            fill(self.words["refused_checks"], names=_join(labels), n=str(self.max_revisions))
            + "; ".join(f.reason for f in attempts.reports[-1].failures[:3])
        )
        attempts.missing = fill(self.words["missing_verbatim"], names=_join(labels), question=question)
        return attempts

    def _unknown_refusal(self, question: str, resolution: ScopeResolution) -> tuple[Refusal, str | None]:
        # The display name alone when it already names the profile ("TPU v6e (Trillium)").
        known = ", ".join(
            self._labels[p.name] if p.name.lower() in self._labels[p.name].lower() else f"{self._labels[p.name]} ({p.name})"
            for p in self.profiles
        )
        names = ", ".join(resolution.unknown)
        issue = self._open_gap(
            "unknown-generation",
            _fingerprint("unknown-generation", *sorted(n.lower() for n in resolution.unknown)),
            f"Readers ask about {names}, which the subject scheme does not define",
            f"Question: {question}\nUnknown generation name(s): {names}\nThe scheme defines: {known}\n",
        )
        refusal = Refusal(
            reason=fill(self.words["refused_unknown"], names=names, known=known),
            missing=fill(self.words["missing_documentation"], names=names),
            gap_issue=issue,
        )
        return refusal, issue

    def _request(self, reading: Reading, profile: str, chunks) -> GenerationRequest:
        """What the offline answerer would be given for one value: its chunks, in its own scope."""
        return GenerationRequest(
            question=reading.question,
            scope=[profile],
            labels=[self._labels[profile]],
            chunks=list(chunks),
            profiles=[p.name for p in self.profiles],
            reading=reading,
        )

    def _states_answer_deeper(self, reading: Reading, profile: str, top, evidence: Callable[[], list]) -> bool:
        """Whether the value's content states an answer, judged on the chunks the answerer would read:
        its top chunks first (usually enough, and cheaper), then its whole evidence (`evidence()`)."""
        if states_an_answer(self._request(reading, profile, top), self.offline):
            return True
        deeper_chunks = evidence()
        return len(deeper_chunks) > len(top) and states_an_answer(self._request(reading, profile, deeper_chunks), self.offline)

    def _answers_from_own(self, reading: Reading, profile: str, chunks: list, pool) -> bool:
        """The line the answerer would quote from this value's evidence (`chunks`) comes from a chunk
        of its own (not shared by every value of the pool): its best chunks are shared, but what
        answers sits below them (a limits table under the shared troubleshooting topics)."""
        cited = answering_chunk(self._request(reading, profile, chunks), self.offline)
        return cited is not None and any(c.id == cited and not set(pool) <= set(c.scope) for c in chunks)

    def _evidence(self, retrieval: RetrievalOutcome, also: Sequence = ()) -> list:
        """The chunks the answerer reads for this value: its top chunks (and `also`, chunks that hold
        an anchor the top lacked), then deeper in the same scope and ranking, as many as the generator
        reads (the offline answerer reads 8)."""
        chunks = [*retrieval.chunks, *also]
        extra = getattr(self.generator, "evidence_depth", len(retrieval.chunks)) - len(retrieval.chunks)
        if extra > 0:
            chunks += [c for c in deeper(self.release, retrieval, extra) if all(c.id != k.id for k in chunks)]
        return chunks

    def _answerable_in(self, reading: Reading, profiles, pool, retrievals) -> list[str]:
        about, words = list(reading.anchors), list(reading.words)
        asked_names, abbreviated = list(reading.names), list(reading.abbreviated)
        offered_alternatives = list(reading.alternatives)
        kept = []
        for p in profiles:
            found = assess(
                self.release, p, pool, about, words, retrievals[p].chunks, self.abbreviations,
                names=asked_names, abbreviated=abbreviated, peers=[q for q in pool if q in self._peers[p]],
                alternatives=offered_alternatives,
                phrases=list(reading.phrases),
            )
            # A value whose content says the thing was removed answers "does it still…" with
            # that notice: a choice worth offering, refused with the notice once chosen.
            if found.answerable or (found.gone and set(found.missing) <= set(found.gone)):
                kept.append(p)
        return kept

    def _near(self, retrievals, profile, reading: Reading, pool) -> list[str]:
        """[profile] when its retrieval misses the floors but comes close enough to offer it as a choice."""
        if (retrievals[profile].best_similarity or 0.0) < self.tuning.choice_floor:
            return []
        return self._answerable_in(reading, [profile], pool, retrievals)

    def _names(self, resolution: ScopeResolution) -> list[str]:
        """Every word that names a generation: they choose the scope and are never what is asked about."""
        names = [*resolution.matched, *resolution.unknown]
        for profile in self.profiles:
            names += [profile.name, *profile.labels]
        return names

    def _missing(self, profile: str, found: Answerability) -> _Attempts:
        """A refusal that names what the question is about and this generation's content lacks."""
        label = self._labels[profile]
        gone = [term for term in found.missing if term in found.gone]
        if gone:
            # Not a gap a writer can fill: the release's own content says the thing was removed.
            term = gone[0]
            refusal = fill(self.words["refused_gone"], term=term, name=label, says=found.gone[term])
            return _Attempts(profile=profile, refusal=refusal, missing=fill(self.words["missing_term"], term=term, name=label),
                             content_gap=False)
        terms = ", ".join(f"'{term}'" for term in found.missing)
        refusal = fill(self.words["refused_not_mentioned"], name=label, terms=terms)
        elsewhere = sorted({p for term in found.missing for p in found.elsewhere.get(term, [])}, key=self._order.get)
        if elsewhere:
            # Names only: the other generations' text is never shown.
            refusal += fill(self.words["refused_elsewhere"], names=_join([self._labels[p] for p in elsewhere]))
        return _Attempts(profile=profile, refusal=refusal, missing=fill(self.words["missing_about"], name=label, terms=terms))

    # -- refusals and gap issues ---------------------------------------------------------------
    def _refusal(self, question, refused: list[_Attempts], retrievals) -> tuple[Refusal, str | None]:
        issue = None
        gaps = [a for a in refused if a.content_gap]
        if gaps:
            where = ", ".join(self._labels.get(a.profile, "every generation") for a in gaps)
            issue = self._open_gap(
                "no-content",
                _fingerprint("no-content", ",".join(sorted(a.profile for a in gaps)), _normal_question(question)),
                f"No {where} content answers: {question}",
                self._gap_body(question, where, retrievals, gaps),
            )
        reason = "; ".join(a.refusal or "" for a in refused)
        missing = "; ".join(a.missing or "" for a in refused)
        return Refusal(reason=reason[:1].upper() + reason[1:] + ".", missing=missing, gap_issue=issue), issue

    def _gap_body(self, question, where, retrievals, attempts: Sequence[_Attempts] = ()) -> str:
        lines = [f"Question: {question}", f"Scope: {where}", f"Release: {self.release_id}", ""]
        for profile, retrieval in retrievals.items():
            best = retrieval.best_similarity
            lines.append(
                f"- {profile}: {len(retrieval.chunks)} chunk(s) retrieved of {retrieval.in_scope_count} in scope; "
                f"best similarity {best if best is None else round(best, 3)}; relevant: {retrieval.relevant}"
            )
        for attempt in attempts:
            if attempt.refusal:
                lines.append(f"- {attempt.profile}: {attempt.refusal}")
        return "\n".join(lines) + "\n"

    def _open_gap(self, kind: str, fingerprint: str, title: str, body: str) -> str | None:
        if self.issues is None:
            return None
        issue = self.issues.open_issue(kind, fingerprint, title, body, "valid ask")
        for attr in ("id", "fingerprint"):
            value = getattr(issue, attr, None)
            if value:
                return str(value)
        return fingerprint

    # -- log -------------------------------------------------------------------------------------
    def _log_row(self, question, resolution: ScopeResolution, answer: AnswerObject, retrievals, attempts, result, gaps):
        return {
            "question": question,
            "scope": answer.scope,
            "matched": answer.matched,
            "unknown": resolution.unknown,
            "release_id": self.release_id,
            "outcome": answer.outcome,
            "degraded": int(result.degraded),
            "generator": answer.run.generator,
            "model": answer.run.model,
            "attempts": sum(len(a.drafts) for a in attempts.values()),
            "calls": answer.run.calls,
            "tokens_in": answer.run.tokens_in,
            "tokens_out": answer.run.tokens_out,
            "cost_usd": answer.run.cost_usd,
            "latency_ms": answer.run.latency_ms,
            "stages": result.stages_ms,
            "retrieval": {
                profile: {
                    "status": r.status,
                    "reasons": r.reasons,
                    "in_scope": r.in_scope_count,
                    "relevant": r.relevant,
                    "best_similarity": r.best_similarity,
                    "best_bm25": r.best_bm25,
                    "coverage": r.coverage,
                    "channels": {n: [[h.chunk_id, h.rank, h.score] for h in hits] for n, hits in r.channels.items()},
                    "fused": [[h.chunk_id, h.rank, h.score] for h in r.fused],
                }
                for profile, r in retrievals.items()
            },
            "sent": {key: a.sent for key, a in attempts.items()},
            "checks": {key: [r.model_dump(mode="json") for r in a.reports] for key, a in attempts.items()},
            "gap_issues": gaps,
            "answer": answer.model_dump(mode="json"),
        }


def _merge_refusals(first: Refusal, second: Refusal | None) -> Refusal:
    if second is None:
        return first
    return Refusal(
        reason=f"{first.reason} {second.reason}",
        missing=f"{first.missing}; {second.missing}",
        gap_issue=first.gap_issue or second.gap_issue,
    )


def _release_id(release) -> str:
    for attr in ("release_id", "id"):
        value = getattr(release, attr, None)
        if isinstance(value, str) and value:
            return value
    raise ValueError("the release handle has no release id")


def _unanswered(selected) -> _Attempts | None:
    """A build's selection that found no answer says why (what it read); None otherwise."""
    return selected[0] if selected is not None and isinstance(selected[0], _Attempts) else None


def _kept_by_all(selected: Mapping, builds: Iterable[str]) -> set[str]:
    """The ids of the chunks the builds' selections read that every one of `builds` keeps."""
    group = set(builds)
    return {c.id for p in group for c in selected[p][0] if group <= set(c.scope)}


def _left_out_nearer(retrievals, kept: Iterable[str], left_out: Iterable[str]) -> bool:
    """Whether a build left out keeps a passage nearer the question in meaning than every kept one's."""
    nearest = max(retrievals[p].best_similarity or 0.0 for p in kept)
    return any((retrievals[p].best_similarity or 0.0) > nearest for p in left_out)


def _join(names: Sequence[str]) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]

