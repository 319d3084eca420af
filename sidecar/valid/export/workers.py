"""Export work in worker processes, so that an export uses more than one core.

An export spends its time in two places that one Python process cannot overlap: preprocessing
each profile (Python) and running the stylesheet over each batch (SaxonC, which holds the GIL for a
whole transformation). Both split into independent pieces: the profiles' builds do not read each
other, and the batches' stylesheet runs do not either (valid.export.batches). So `valid export --jobs N`
hands pieces to N worker processes:

- preprocessing: the profiles in N contiguous groups; the first group and the unfiltered build
  are built in the calling process (it has the doc set loaded), each other group in a worker that
  loads the doc set itself and writes its builds into the same job directories a serial export
  would use;
- chunking and merging: one batch's run document per task, each in a fresh worker running its own
  SaxonC (a SaxonC heap grows from batch to batch, so a worker runs one batch and ends).

The caller takes the results in a fixed order (profile order, then batch order), whatever order
the workers finish in, so the output is byte-identical to a serial export, and an error is the one
a serial export would raise first. Workers are started with 'spawn': a SaxonC processor must not
be carried across fork, and a spawned worker starts small (it does not inherit the parent's heap).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from valid.contracts import ExportWarning
from valid.errors import ConfigError, ValidError

MAX_JOBS = 4  # each worker holds its own SaxonC heap (a few hundred MB): more rarely pays
MIN_PARALLEL_BUILDS = 2000  # topic files x profiles below which starting workers costs more than it saves
# The export's processes together, at most, when the number of workers is chosen for the user: each
# preprocessing worker loads the whole doc set (about 340 MB for the 2,648 topics of the Oxygen
# user guide) and builds profiles on top of it.
MEMORY_BUDGET_MB = 1024
BUILD_OVERHEAD = 1.25  # a process building profiles holds about this times its loaded doc set


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask, which a container or taskset narrows)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def auto_jobs(topics: int, profiles: int, loaded_mb: float = 0.0) -> int:
    """Worker processes for an export when none are asked for: the usable CPUs, at most MAX_JOBS,
    and one (no workers) for a doc set too small to repay starting them. `loaded_mb`: the resident
    size of the process that loaded the doc set; every process that preprocesses holds as much and
    a build besides, so no more are chosen than fit in MEMORY_BUDGET_MB together."""
    if topics * (profiles + 1) < MIN_PARALLEL_BUILDS:
        return 1
    fit = int(MEMORY_BUDGET_MB // (loaded_mb * BUILD_OVERHEAD)) if loaded_mb > 0 else MAX_JOBS
    return max(1, min(MAX_JOBS, usable_cpus(), fit))


def resident_mb() -> float:
    """This process's resident set now (Linux /proc), or 0 where it cannot be read."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@contextmanager
def pool(workers: int, tasks_per_worker: int | None = None) -> Iterator[ProcessPoolExecutor]:
    """Worker processes, started fresh ('spawn'); gone when the block ends. With `tasks_per_worker`,
    a worker ends after that many tasks and a fresh one takes its place. A worker that dies (killed,
    out of memory) is one line, not a traceback."""
    executor = ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("spawn"), max_tasks_per_child=tasks_per_worker
    )
    try:
        yield executor
    except BrokenProcessPool:
        raise ConfigError(
            "a worker process of the export ended unexpectedly (killed, or out of memory): run it again with fewer --jobs"
        ) from None
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def deal(items: Sequence, groups: int) -> list[list]:
    """`items` dealt in turn to at most `groups` groups, each in order: the first group has items 0,
    groups, 2 x groups, ... Doc sets list their large builds together (a product's full editions,
    then its small add-ons), so contiguous groups would give one process all the large builds."""
    groups = max(1, min(groups, len(items)))
    return [list(items[g::groups]) for g in range(groups)]


# ----------------------------------------------------------------------------- preprocessing


@dataclass(frozen=True)
class BuildTask:
    """One profile's build, as a worker needs it: everything picklable."""

    name: str
    ditaval: bytes
    source: str
    job_dir: Path


@dataclass(frozen=True)
class Built:
    """What the caller needs of a build: its job file, its warnings, the source files it keeps."""

    name: str
    job_file: Path
    warnings: list[ExportWarning]
    kept: set[Path]


def build_group(load_args: tuple, tasks: Sequence[BuildTask]) -> list[tuple[str, Built | ValidError]]:
    """In a worker: load the doc set and build each task's profile, in order, up to the first that
    fails (valid.export.workers.build_each)."""
    from valid.dita.ditaval import parse_ditaval
    from valid.dita.loader import load

    map_path, root, catalog = load_args
    docset = load(map_path, root=root, catalog=catalog)
    return build_each(docset, lambda t: parse_ditaval(t.ditaval, t.source), tasks)


def build_each(
    docset, ditaval_of: Callable[[BuildTask], object], tasks: Sequence[BuildTask],
    started: Callable[[int], None] = lambda _n: None,
) -> list[tuple[str, Built | ValidError]]:
    """(profile, its build) for each task in order, up to the first that fails: (profile, its error)
    ends the list, returned rather than raised so that the caller knows whose it is. `started(n)`
    before the n-th build (0-based)."""
    done: list[tuple[str, Built | ValidError]] = []
    for n, task in enumerate(tasks):
        started(n)
        try:
            done.append((task.name, build(docset, ditaval_of(task), task)))
        except ValidError as error:
            done.append((task.name, error))
            break
    return done


def build(docset, ditaval, task: BuildTask) -> Built:
    from valid.dita.preprocess import preprocess

    job = preprocess(docset, ditaval, task.job_dir, name=task.name)
    kept = {jf.source.file for jf in job.files if jf.kept}  # a copy counts for its source
    return Built(task.name, job.job_file, list(job.warnings), kept)


# ----------------------------------------------------------------------------- stylesheet


def run_stylesheet(run_document: str) -> str:
    """In a worker: the export stylesheet over one run document (valid.export.xslt.run_export); the
    output is written beside it and its path returned, so the caller reads it when it needs it."""
    from valid.export import xslt

    output = Path(run_document).with_suffix(".jsonl")
    output.write_text(xslt.run_export(run_document), encoding="utf-8")
    return str(output)


def results(futures: Sequence[Future]) -> list:
    """The futures' results in their order; the first error in that order is raised."""
    return [f.result() for f in futures]
