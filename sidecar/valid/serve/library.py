"""The real `ReleaseSource`: index releases from a state directory, answered by the answer engine.

    source = LibraryReleases(Store(state), EngineSettings(generator="offline"))
    app = create_app(source)

Opening a release is also its verification (a release is served only once it is known to answer): the index's `Release` checks
the registered marker and that Chroma and FTS5 hold the manifest's chunk count; then every
generation is searched once through both channels and the embedder is run once, so the first
real question does not pay for loading the model and a release that cannot answer is never served.

The answer engine is "one ask at a time per engine", so each worker thread gets its own engine,
created on first use in that thread, over the shared (thread-safe) `Release`, embedder, question log
and gap-issue store.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from valid.answer.citations import PublishedPages
from valid.answer.tuning import BUILT_IN, Tuning
from valid.answer.wiring import embedder_for, owned_table
from valid.questionlog.store import open_gap_issues, open_serving_store
from valid.answer import UnknownGenerationError
from valid.serve.answerer import Answered, Generation, SourceChunk, UnknownGeneration
from valid.wording import DocSetFacts, WordingSettings
from valid.serve.sources import split_chunk_id

log = logging.getLogger("valid.serve")


@dataclass(frozen=True)
class EngineSettings:
    generator: str = "offline"  # offline | gemini
    gemini_model: str | None = None
    gemini_base_url: str | None = None  # tests: the local fake Gemini server
    question_log: Path | None = None  # default: <state>/questions.sqlite
    issues_dir: Path | None = None  # gap issues; default: <state>/issues
    log_url: str | None = None  # postgresql://…: questions, conversations, feedback and gap issues there
    log_questions: bool = True  # False (--no-log): no question log and no gap issues (both hold the question)
    max_gap_issues: int = 1000  # gap issues opened from questions, kept at most
    published: PublishedPages | None = None  # where the team publishes each build: citations link there
    wording: WordingSettings | None = None  # the team's noun for a build, in the answer's sentences
    log_timeout_s: float = 2.0  # bound on every call to a PostgreSQL store (connect, statement, no answer)
    log_spool: Path | None = None  # writes a PostgreSQL store cannot take now; default <state>/question-spool.sqlite
    tuning: Tuning = BUILT_IN  # the engines' floors and weights (valid.toml [tuning])

    def generator_options(self) -> dict:
        if self.generator != "gemini":
            return {}
        return {k: v for k, v in (("model", self.gemini_model), ("base_url", self.gemini_base_url)) if v}

    def open_log(self, state_root: Path):
        """The question store these settings name (PostgreSQL by URL, behind its local spool; else
        the SQLite file)."""
        return open_serving_store(self.log_url, self.question_log or state_root / "questions.sqlite",
                                  self.log_spool or state_root / "question-spool.sqlite", self.log_timeout_s)


def _generations(release) -> list[Generation]:
    return [
        Generation(
            name=p.name, label=p.labels[0] if p.labels else p.name, labels=tuple(p.labels) or (p.name,), keeps=p.keeps
        )
        for p in release.header.profiles
    ]


def _docset(release, generations: list[Generation]) -> DocSetFacts:
    """The map's title, stored with the release (valid.index.derived.map_title)."""
    return DocSetFacts(
        title=release.derived.title,
        attribute=release.header.attribute,
        names=[list(g.labels) or [g.label] for g in generations],
    )


class LibraryAnswerer:
    """One open, verified release and per-thread answer engines over it."""

    def __init__(self, release, embedder, settings: EngineSettings, state_root: Path, gaps=None, question_log=None):
        self._release = release
        self._gaps = gaps
        self._embedder = embedder
        self._settings = settings
        self._state_root = state_root
        self._generations = _generations(release)
        # Read from the release as `valid index` stored them (and its chunk titles, one indexed column).
        self._owned = owned_table(release)
        self._vocabulary = release.vocabulary()
        self._docset = _docset(release, self._generations)
        # The source's shared log when given (one connection: no two writers wait on each other).
        self._own_log = question_log is None
        self._log = question_log
        if settings.log_questions and question_log is None:
            self._log = settings.open_log(state_root)
        self._local = threading.local()
        self._by_path: dict[str, list[str]] | None = None
        self._closed = False

    @property
    def release(self) -> str:
        return self._release.id

    def generations(self) -> list[Generation]:
        return self._generations

    def docset(self) -> DocSetFacts:
        return self._docset

    def verify(self) -> None:
        """Run every generation's search once through both channels, and the embedder once."""
        from valid.answer import make_generator

        # Build one generator now: its client library is loaded (and its key checked) before the
        # service is ready, not inside the first asks' deadlines.
        make_generator(self._settings.generator, **self._settings.generator_options())
        vector = self._embedder.embed_query("create a TPU VM")
        for g in self._generations:
            if self._release.count_in_scope(g.name) < 1:
                raise RuntimeError(f"release {self.release[:12]} has no chunk in scope for {g.name}")
            self._release.search_vector(vector, g.name, 1)
            self._release.search_bm25("TPU", g.name, 1)

    def _engine(self):
        engine = getattr(self._local, "engine", None)
        if engine is None:
            from valid.answer import AnswerEngine, make_generator

            s = self._settings
            engine = AnswerEngine(
                self._release,
                self._embedder,
                make_generator(s.generator, s.tuning, **s.generator_options()),
                self._owned,
                issues=self._gaps,
                log=self._log,
                release_id=self._release.id,
                profiles=self._release.header.profiles,
                vocabulary=self._vocabulary,
                published=s.published,
                wording=s.wording,
                tuning=s.tuning,
            )
            self._local.engine = engine
        return engine

    def ask(self, question: str, generation: str | tuple[str, ...] | None, progress=None, among=None) -> Answered:
        try:
            result = self._engine().ask(question, generation, progress=progress, among=among)
        except UnknownGenerationError as err:
            raise UnknownGeneration(str(err)) from None
        return Answered(
            answer=result.answer.model_dump(mode="json"),
            degraded=result.degraded,
            degraded_reasons=list(result.degraded_reasons),
            stages_ms=dict(result.stages_ms),
            log_id=result.log_id,
        )

    def source(self, path: str) -> list[SourceChunk] | None:
        # A chunk belongs to the topic file its id names (a conref'd element keeps the id of the
        # topic it was pulled into), so group by the id's path, not by source.path.
        if self._by_path is None:
            by_path: dict[str, list[str]] = {}
            for chunk_id in self._release.all_chunk_ids():
                by_path.setdefault(split_chunk_id(chunk_id)[0], []).append(chunk_id)
            self._by_path = by_path
        ids = self._by_path.get(path)
        if not ids:
            return None
        return [
            SourceChunk(
                id=c.id,
                title=c.title,
                text=c.text,
                breadcrumbs=tuple(c.breadcrumbs),
                line=c.source.line,
                scope=tuple(c.in_scope()),
            )
            for c in self._release.get_chunks(ids)
        ]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._log is not None and self._own_log:
            self._log.close()
        self._release.close()


class LibraryReleases:
    """Releases of one state directory (`valid index --state`)."""

    def __init__(self, store, settings: EngineSettings | None = None, embedder_factory: Callable | None = None):
        self.store = store
        self.settings = settings or EngineSettings()
        self._embedder_factory = embedder_factory
        self._embedders: dict[tuple[str, int], object] = {}
        self._lock = threading.Lock()
        self.gaps = None  # one gap-issue writer for every release this source opens
        self._shared_log = None  # set by conversation_log(), then used by every answerer
        if self.settings.log_questions:
            from valid.serve.gaps import GapIssueWriter

            if self.settings.log_url:
                # A shared store is opened now: a wrong URL or a server that is down is one line at
                # startup, not an error in the first request.
                self._shared_log = self.settings.open_log(Path(store.root))
            directory = self.settings.issues_dir or Path(store.root) / "issues"
            gaps = open_gap_issues(self.settings.log_url, directory, self.settings.log_timeout_s)
            self.gaps = GapIssueWriter(gaps, self.settings.max_gap_issues)

    def conversation_log(self):
        """Where conversations and feedback live: the question log (the one the answerers write
        to, opened once), or memory when question logging is off. The caller closes it."""
        from valid.answer import QuestionLog

        s = self.settings
        if not s.log_questions:
            return QuestionLog(":memory:")
        with self._lock:
            if self._shared_log is None:
                self._shared_log = s.open_log(Path(self.store.root))
            return self._shared_log

    def close(self) -> None:
        """At the service's shutdown: let go of the embedders (an ONNX session of ~100 MB each) now.
        A stopped app is a web of reference cycles that only a full garbage collection frees, which
        may not come for a long time; a source opened again loads its embedder again."""
        with self._lock:
            self._embedders.clear()

    def active_id(self) -> str | None:
        from valid.index.activation import active_release_id

        return active_release_id(self.store)

    def _embedder_for(self, release):
        """The embedder that made the release's vectors, loaded once and reused across releases."""
        key = (release.embedder_id, release.dimension)
        with self._lock:
            if key not in self._embedders:
                given = self._embedder_factory(release) if self._embedder_factory is not None else None
                self._embedders[key] = embedder_for(release, given)
            return self._embedders[key]

    def open(self, release_id: str) -> LibraryAnswerer:
        from valid.index.release import open_release

        release = open_release(self.store, release_id)
        try:
            answerer = LibraryAnswerer(
                release, self._embedder_for(release), self.settings, Path(self.store.root), self.gaps, self._shared_log
            )
        except Exception:
            release.close()
            raise
        try:
            answerer.verify()
        except Exception:
            answerer.close()
            raise
        return answerer
