"""Progress of long commands (export, index) on stderr: stage, counts, rate and time left.

Shown when stderr is a terminal, or when asked for (`--progress`, e.g. in a CI log); never with
`--json` unless asked for. On a terminal one line is redrawn in place; elsewhere a plain line is
written at most every few seconds and when a stage ends, so a log stays readable. Library code only
calls a `Progress` callback, `(stage, done, total)`, so it never prints.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

Progress = Callable[[str, int, int], None]

LOG_INTERVAL = 5.0  # seconds between lines when stderr is not a terminal
DRAW_INTERVAL = 0.2  # seconds between redraws on a terminal


def wanted(flag: bool, *, as_json: bool = False, stream: TextIO | None = None) -> bool:
    """--progress forces it on; otherwise only on a terminal, and never with --json."""
    if flag:
        return True
    stream = stream if stream is not None else sys.stderr
    return not as_json and stream.isatty()


def describe(command: str, stage: str, done: int, total: int, elapsed: float) -> str:
    """'valid index: embed 640/2000 (31.9/s, 0:42 left)'."""
    count = f"{done}/{total}" if total else str(done)
    rate = done / elapsed if elapsed > 0 and done else 0.0
    parts = [f"{rate:.1f}/s" if rate else "-/s"]
    if total and rate and done < total:
        parts.append(f"{_clock((total - done) / rate)} left")
    elif total and done >= total:
        parts.append(f"{_clock(elapsed)} in all")
    return f"{command}: {stage} {count} ({', '.join(parts)})"


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class StderrProgress:
    """A Progress callback that reports on a stream; call close() when the command ends."""

    def __init__(self, command: str, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic):
        self.command = command
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty()
        self.clock = clock
        self.stage: str | None = None
        self.started = self.shown = 0.0
        self.line = ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        if stage != self.stage:
            self.close()
            self.stage, self.started, self.shown = stage, now, 0.0
        self.line = describe(self.command, stage, done, total, now - self.started)
        finished = bool(total) and done >= total
        interval = DRAW_INTERVAL if self.terminal else LOG_INTERVAL
        if finished or now - self.shown >= interval:
            self._show(final=finished)
            self.shown = now
            if finished:
                self.stage, self.line = None, ""

    def _show(self, final: bool) -> None:
        if self.terminal:
            self.stream.write("\r" + self.line + "\033[K" + ("\n" if final else ""))
        else:
            self.stream.write(self.line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End the current stage's line (a stage that ended early is shown where it stopped)."""
        if self.stage is not None and self.line:
            self._show(final=True)
        self.stage, self.line = None, ""


def reporter(command: str, flag: bool, *, as_json: bool = False) -> StderrProgress | None:
    """The progress callback a command passes to the library, or None when progress is not wanted."""
    return StderrProgress(command) if wanted(flag, as_json=as_json) else None
