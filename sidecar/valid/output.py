"""Where a command's output goes, and how it gets there safely.

`-o PATH` names a regular file (written atomically, with the mode a new file gets under the umask,
or the mode the replaced file had), a FIFO (written as a stream), or `-` (standard output, a
stream). Anything else (a directory, a device, a socket) is refused, and so is a path that is one
of the command's inputs. Write failures (disk full, no permission, read-only file system) become one
line: `OUT: cannot write: <reason>`.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from valid.errors import OutputError

STDOUT = "-"


@dataclass(frozen=True)
class OutputTarget:
    """A checked output: `path` is None for standard output; `stream` for a FIFO or stdout."""

    given: str
    path: Path | None
    stream: bool

    @property
    def name(self) -> str:
        return "<stdout>" if self.path is None else self.given


def output_target(out: str | os.PathLike) -> OutputTarget:
    """Check an output path before any work is done; OutputError when it cannot be one."""
    given = os.fspath(out)
    if given == STDOUT:
        return OutputTarget(given, None, stream=True)
    path = Path(given)
    try:
        st = path.stat()  # follows a symlink: its target is what gets written
    except FileNotFoundError:
        if not path.parent.is_dir():
            raise OutputError(f"{given}: the output directory does not exist") from None
        return OutputTarget(given, path.resolve(), stream=False)
    except OSError as err:
        raise OutputError(f"{given}: cannot write: {err.strerror}") from None
    if stat.S_ISFIFO(st.st_mode):
        return OutputTarget(given, path.resolve(), stream=True)
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise OutputError(f"{given}: {kind}; -o takes a file, a FIFO or '-' (standard output)")
    return OutputTarget(given, path.resolve(), stream=False)


def refuse_inputs(target: OutputTarget, inputs: Iterable[str | os.PathLike | None]) -> None:
    """Refuse to write over a file the command reads (compared by identity, so links count)."""
    if target.path is None or not target.path.exists():
        return
    for each in inputs:
        if each is None:
            continue
        try:
            same = os.path.samefile(target.path, each)
        except OSError:
            continue
        if same:
            raise OutputError(f"{target.given}: is one of the inputs ({os.fspath(each)}); choose another output file")


def write_text(target: OutputTarget, text: str) -> None:
    """Write the whole output: atomically to a regular file, as a stream to a FIFO or stdout."""
    data = (text if text.endswith("\n") else text + "\n").encode("utf-8")
    try:
        if target.path is None:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        elif target.stream:
            with open(target.path, "wb") as handle:
                handle.write(data)
        else:
            _write_atomically(target.path, data)
    except OSError as err:
        raise OutputError(f"{target.name}: cannot write: {err.strerror or err}") from None


def _write_atomically(path: Path, data: bytes) -> None:
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mode_for(path: Path) -> int:
    """The replaced file's mode, else what open() would give a new file under the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def refuse_empty(per_profile: Mapping[str, int], chunks: int, profile_names: Iterable[str]) -> None:
    """An export (or release) with no chunks, or with a profile that has none, is almost always a
    wrong DITAVAL or map; OutputError unless the caller allows it (--allow-empty)."""
    if chunks == 0:
        raise OutputError("no chunks: nothing would be searchable; nothing written (--allow-empty to accept)")
    empty = [name for name in profile_names if not per_profile.get(name)]
    if empty:
        raise OutputError(
            f"profile(s) {', '.join(empty)} keep no chunk: nothing written (check their DITAVALs; --allow-empty to accept)"
        )

