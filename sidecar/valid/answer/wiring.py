"""Wiring: an AnswerEngine over the active (or a given) index release, with its I/O at the edges.

    engine = open_engine(state=".valid", generator="offline")
    result = engine.ask("I'm on Ironwood. Which --version do I pass when I create the VM?")
    print(result.answer.model_dump_json(indent=1))
    engine.close()

The engine holds one release for its whole life (every stage of every question uses it), embeds
questions with the embedder the release was built with, checks answers against the owned-value
table `valid index` stored with that release, answers with its own floors and weights (`tuning`,
from valid.toml `[tuning]`), opens gap issues in `<state>/issues` and logs each
question to `<state>/questions.sqlite` (or both to the PostgreSQL store at `log_url`).
"""

from __future__ import annotations

from pathlib import Path

from valid.errors import ConfigError

from valid.answer.decide import AnswerEngine
from valid.answer.generate import GeminiGenerator, Generator, OfflineExtractive
from valid.answer.tuning import Tuning
from valid.questionlog.store import check_url, open_gap_issues, open_question_store

GENERATORS = ("offline", "gemini")


def make_generator(kind: str = "offline", tuning: Tuning | None = None, **options) -> Generator:
    """The answerer of `kind`; the offline one ranks with `tuning` (the engine's floors and weights;
    None: the built-in ones). A model needs no weights of VALID's."""
    if kind == "offline":
        return OfflineExtractive(tuning=tuning if tuning is not None else Tuning(), **options)
    if kind == "gemini":
        return GeminiGenerator(**options)
    raise ConfigError(f"unknown generator {kind!r}; choose one of: {', '.join(GENERATORS)}")


def embedder_for(release, embedder=None):
    """The query embedder matching the release's vectors (same model, same dimension)."""
    from valid.embed import make_embedder

    if embedder is None:
        kind = "gemini" if release.embedder_id.startswith("gemini/") else "offline"
        options = {}
        if kind == "gemini":
            options = {"model": release.embedder_id.split("/", 1)[1], "dimension": release.dimension}
        embedder = make_embedder(kind, **options)
    if embedder.id != release.embedder_id or embedder.dimension != release.dimension:
        raise ConfigError(
            f"release {release.id[:12]} was embedded with {release.embedder_id} ({release.dimension} dimensions); "
            f"the query embedder is {embedder.id} ({embedder.dimension}): rebuild the index or use that embedder"
        )
    return embedder


def owned_table(release):
    """The audit's owned-value table of the release's own export, computed by `valid index` and
    stored with the release (valid.index.derived): never recomputed per process."""
    return release.derived.to_owned()


class OpenEngine(AnswerEngine):
    """An AnswerEngine that owns its release, log and store, and closes them."""

    def __init__(self, *args, closers=(), **kwargs):
        super().__init__(*args, **kwargs)
        self._closers = list(closers)

    def close(self) -> None:
        for close in reversed(self._closers):
            close()
        self._closers.clear()

    def __enter__(self) -> "OpenEngine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_engine(
    state: str | Path | None = None,
    *,
    generator: str | Generator = "offline",
    chroma_url: str | None = None,
    release_id: str | None = None,
    embedder=None,
    issues_dir: str | Path | None = None,
    log_path: str | Path | None = None,
    log_url: str | None = None,
    log: bool = True,
    gap_issues: bool = True,
    wording=None,
    version_order: tuple[str, ...] | list[str] = (),
    tuning: Tuning | None = None,
) -> OpenEngine:
    """An engine over the active release (or `release_id`). `tuning`: its floors and weights
    (valid.toml `[tuning]`; None: the built-in ones), which the engine owns and hands to every stage."""
    from valid.audit.issues import AppendingIssues
    from valid.index import Store, open_active, open_release

    log_url = check_url(log_url)

    store = Store(state, chroma_url=chroma_url)
    release = open_release(store, release_id) if release_id else open_active(store)
    closers = [release.close]
    try:
        tuning = tuning if tuning is not None else Tuning()
        generator = make_generator(generator, tuning) if isinstance(generator, str) else generator
        query_embedder = embedder_for(release, embedder)
        question_log = None
        if log:
            question_log = open_question_store(log_url, Path(log_path) if log_path else store.root / "questions.sqlite")
            closers.append(question_log.close)
        # `valid ask --no-log` passes gap_issues=False too: a gap issue's title and body quote the question.
        issues = None
        if gap_issues:
            sink = open_gap_issues(log_url, Path(issues_dir) if issues_dir else store.root / "issues")
            closers.append(getattr(sink, "close", lambda: None))
            issues = AppendingIssues(sink)
        return OpenEngine(
            release,
            query_embedder,
            generator,
            owned_table(release),
            vocabulary=release.vocabulary(),
            issues=issues,
            log=question_log,
            release_id=release.id,
            closers=closers,
            wording=wording,  # the doc set's noun for a build, in the answer's sentences (valid.wording)
            version_order=version_order,
            tuning=tuning,
        )
    except BaseException:
        for close in reversed(closers):
            close()
        raise
