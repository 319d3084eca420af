"""Fail closed at startup: `valid serve` opens and verifies the active release before it listens.

A damaged pointer or a damaged, tampered or unverifiable active release is a one-line error and a
non-zero exit, not a service that starts and stays unready. With nothing active yet the service
starts and becomes ready once a release is activated (that is not damage). The release opened here
is handed to the service as its first release, so startup pays for opening it once.
"""

from __future__ import annotations

from valid.errors import ReleaseError, ValidError
from valid.serve.answerer import Answerer, ReleaseSource


def open_active_or_fail(source: ReleaseSource) -> ReleaseSource:
    """`source`, with its active release already opened and verified; raises a ValidError if it cannot be."""
    active = source.active_id()  # a damaged active.json raises ReleaseError here
    if active is None:
        return source
    try:
        answerer = source.open(active)
    except ValidError:
        raise
    except Exception as err:  # verification failures (no chunk in scope for a generation, ...)
        raise ReleaseError(f"release {active[:12]} cannot be served: {err}") from None
    return _Preopened(source, answerer)


def banner(url: str, source: ReleaseSource) -> str:
    """What a person who starts the service needs to know: where it listens, which release it
    serves and that release's builds (the release opened at startup; none before `valid index`)."""
    answerer = getattr(source, "opened", None)
    if answerer is None:
        return f"valid serve: {url} serving no release yet: ready once `valid index` activates one"
    builds = answerer.generations()
    title = answerer.docset().title
    names = ", ".join(g.label for g in builds)
    return (f"valid serve: {url} serving release {answerer.release[:12]}"
            + (f" ({title})" if title else "") + f", {len(builds)} build{'s' if len(builds) != 1 else ''}: {names}")


class _Preopened:
    """A ReleaseSource whose first open of the active release returns the one opened at startup."""

    def __init__(self, source: ReleaseSource, answerer: Answerer):
        self._source = source
        self._first: Answerer | None = answerer
        self.opened = answerer  # what startup opened, for the banner (never answered from here)

    def __getattr__(self, name: str):
        # Everything else is the wrapped source's: above all its conversation_log(), without which
        # the service would keep conversations and feedback in memory instead of the question store.
        return getattr(self._source, name)

    def active_id(self) -> str | None:
        return self._source.active_id()

    def open(self, release_id: str) -> Answerer:
        first, self._first = self._first, None
        if first is not None:
            if first.release == release_id:
                return first
            first.close()  # another release was activated before the service asked for this one
        return self._source.open(release_id)
