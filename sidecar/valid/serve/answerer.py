"""The seam between the HTTP service and the library: what the service needs from a release.

The service never reaches into the index or the answer engine directly. It holds one `Answerer` per
open release and asks a `ReleaseSource` which release is active and to open one. An `Answerer` is
bound to exactly one release for its whole life (a query never mixes releases), so pinning a
request to a release is the same as holding on to its `Answerer` until the request ends.

`valid.serve.library` implements both against the real index and answer engine; tests of the HTTP
layer alone may pass another implementation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any, Protocol

from valid.wording import DocSetFacts


@dataclass(frozen=True)
class Generation:
    """One profile of the release's subject scheme, as the ask page shows it."""

    name: str  # the profile name: tpu7x
    label: str  # the display name: TPU7x (Ironwood)
    labels: tuple[str, ...] = ()  # every name readers use, display name first
    # The scheme values it keeps, with their names (the export header's keeps): how a question names
    # a profile over several attributes; follow-up questions are resolved against these profiles too.
    keeps: Mapping[str, Mapping[str, list[str]]] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class SourceChunk:
    """One chunk of a source file, for the served view of a cited topic."""

    id: str
    title: str
    text: str
    breadcrumbs: tuple[str, ...]
    line: int
    scope: tuple[str, ...]  # profiles whose build keeps the chunk, in profile order


@dataclass
class Answered:
    """What one `ask` returns: the answer object plus what the service's metrics need."""

    answer: dict[str, Any]  # the answer object of `valid ask --json`
    degraded: bool = False  # the engine answered on a declared fallback (e.g. BM25 only)
    degraded_reasons: list[str] = field(default_factory=list)
    stages_ms: dict[str, float] = field(default_factory=dict)  # stage name → milliseconds
    log_id: int | None = None  # the question-log row, when the question was logged


class UnknownGeneration(Exception):
    """An explicit generation the release's subject scheme does not define."""


class Answerer(Protocol):
    """One open, verified release and the answer engine over it."""

    @property
    def release(self) -> str: ...

    def generations(self) -> list[Generation]: ...

    def docset(self) -> DocSetFacts:
        """The map's title, the profiling attribute and the builds' names: the page's words."""
        ...

    def ask(self, question: str, generation: str | tuple[str, ...] | None, progress=None, among=None) -> Answered:
        """`progress(stage, data)`, when given, hears each stage as it starts (no answer text).
        `among`: with no generation named, choose among these only (AnswerEngine.ask)."""
        ...

    def source(self, path: str) -> list[SourceChunk] | None:
        """The chunks of one source file in document order, or None when the release has none."""
        ...

    def close(self) -> None: ...


class ReleaseSource(Protocol):
    """Where the active release comes from. A source may also have `close()`, which the service
    calls when it stops (after closing the release it served)."""

    def active_id(self) -> str | None:
        """The active release id, read cheaply (a pointer), or None when nothing is active."""
        ...

    def open(self, release_id: str) -> Answerer:
        """Open and verify one release. Raises when it cannot be served."""
        ...
