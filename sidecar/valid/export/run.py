"""`valid export`: DITA doc set -> JSON-lines chunk export with per-profile scope.

load (securely) -> validate profiling values against the subject scheme -> one preprocessed job
directory per profile, plus `_unfiltered` -> run document -> the XSLT stylesheet (valid.export.xslt) ->
every line validated against valid.contracts -> the output written atomically.

`scope[P]` is exact by construction: each profile is filtered on its own, as a DITA-OT build with
P's DITAVAL would be, and the stylesheet merges the filtered builds by chunk identity.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
import dataclasses
from dataclasses import dataclass
from pathlib import Path

from lxml import etree
from pydantic import TypeAdapter

from valid import __version__
from valid.export.batches import BatchJobs, join, run_batches, topic_batches
from valid.contracts import Chunk, ExportHeader, ExportWarning
from valid.dita import classes
from valid.dita.ditaval import parse_ditaval
from valid.dita.loader import DocSet, file_uri, load
from valid.dita.preprocess import UNFILTERED
from valid.dita.scheme import SubjectScheme, load_scheme
from valid.errors import ConfigError, DitavalError, ExportContractError, SchemeValueError, StrictWarningsError, ValidError
from valid.export.file import parse_export
from valid.export.warnings import merge_profiles
from valid.output import output_target, refuse_empty, refuse_inputs, write_text
from valid.export.workers import (
    BuildTask, Built, auto_jobs, build, build_each, build_group, deal, pool, resident_mb, results, run_stylesheet,
)

# Topic files chunked and merged per stylesheet run, at most; and topic builds (a file counted once
# per build that keeps it) per run, at most. The stylesheet holds every build of a run's files at
# once, so the second bounds its memory; the first bounds the runs' overhead (each run reads every
# build's root map) for files only a few builds keep.
TOPICS_PER_RUN = 1000
BUILDS_PER_RUN = 4000
# Workers run their batches at the same time, each in a SaxonC runtime of its own (about 190 MB
# before any batch), so together they hold this share of BUILDS_PER_RUN. Measured on the Oxygen
# user guide, a fresh stylesheet process peaks at about 440 MB with 2,150 topic builds and 350 MB
# with 1,650: two workers at 2,000 each came within 40 MB of 1 GB together; at 1,500 each they
# stay near 800 MB.
PARALLEL_SHARE = 0.75

_PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

Progress = Callable[[str, int, int], None]  # (stage, done, total): valid.progress draws it


@dataclass(frozen=True)
class Profile:
    """One build: a name, the DITAVAL it is built with (bytes, as digested) and its labels."""

    name: str
    ditaval: bytes
    source: str  # the DITAVAL's file name, or "subject scheme"
    labels: tuple[str, ...]

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.ditaval).hexdigest()


@dataclass(frozen=True)
class ExportResult:
    out: Path
    header: ExportHeader
    chunks: int
    profiles: tuple[str, ...]

    @property
    def warnings(self) -> list[ExportWarning]:
        return list(self.header.warnings)


def export(
    map_path: str | os.PathLike,
    *,
    scheme: str | os.PathLike | None = None,
    attribute: str | None = None,
    profiles: Mapping[str, str | os.PathLike] | Iterable[tuple[str, str | os.PathLike]] | None = None,
    labels: Mapping[str, Sequence[str]] | None = None,
    parent_profiles: Sequence[str] = (),
    root: str | os.PathLike | None = None, catalog: str | os.PathLike | None = None,
    out: str | os.PathLike, progress: Progress | None = None, allow_empty: bool = False,
    topics_per_run: int = TOPICS_PER_RUN, builds_per_run: int = BUILDS_PER_RUN, jobs: int | None = None,
    strict: bool = False,
) -> ExportResult:
    """Export the doc set rooted at `map_path` to `out` (JSON lines). Raises ValidError subclasses.

    Profiles come from `profiles` (name -> DITAVAL file) or, without them, from the subject scheme:
    one per value of `attribute` (default: the only attribute the scheme binds) that has no narrower
    value below it, plus the broader values named in `parent_profiles`. `labels` (profile ->
    readers' names, display name first) replace a profile's labels from the scheme, or give labels to
    a DITAVAL-defined profile that has none. `catalog`: an
    OASIS XML catalog for the doc set's own DTD shells (specializations). `out` is a file, a FIFO
    or "-" (standard output; valid.output). An export with no chunks, or a profile without any, is
    refused unless `allow_empty`. Topic files are chunked and merged in batches of at most
    `topics_per_run` files and `builds_per_run` topic builds (valid.export.batches), with the same output.
    `jobs`: worker processes (valid.export.workers); None picks them (valid.export.workers.auto_jobs), 1 exports
    in this process alone. The output is the same bytes for any number.
    Problems DITA-OT reports and builds past (a missing file, a conref target that does not exist,
    an undefined key) are warnings, and the export does with the construct what DITA-OT does;
    `strict` makes any warning a StrictWarningsError (carrying all of them) and nothing is written.
    """
    say = progress or (lambda _stage, _done, _total: None)
    target = output_target(out)
    docset, subject_scheme = _load_checked(map_path, scheme, root, catalog, say)
    chosen, header_attribute = resolve_profiles(subject_scheme, attribute, profiles, parent_profiles)
    chosen = with_labels(chosen, labels or {})
    refuse_inputs(target, _inputs(map_path, scheme, catalog, docset, profiles))
    ditavals = {p.name: parse_ditaval(p.ditaval, p.source) for p in chosen}
    workers = _workers(docset, len(chosen), jobs)
    names = [p.name for p in chosen]
    work = Path(tempfile.mkdtemp(prefix="valid-export-"))
    try:
        pre = _preprocess(docset, chosen, ditavals, subject_scheme, work, workers, (map_path, root, catalog), say)
        warnings = _unique(merge_profiles(pre.warnings, [*names, UNFILTERED]))
        runs = _run_document_writer(work, docset, chosen, subject_scheme, header_attribute, warnings)
        text, batches = _chunk_and_merge(pre, docset, runs, workers, names, (topics_per_run, builds_per_run), say)
        header, chunks = _checked_output(text, names, allow_empty)
        say("chunk and merge", max(batches, 1), max(batches, 1))
        if strict and header.warnings:
            raise StrictWarningsError(header.warnings, str(target.given))
        write_text(target, text)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return ExportResult(out=Path(target.given), header=header, chunks=chunks, profiles=tuple(names))


def _checked_output(text: str, names: list[str], allow_empty: bool) -> tuple[ExportHeader, int]:
    """The output's header and chunk count, every line valid; refused when empty unless allowed."""
    header, chunks = validate_lines(text, names)
    if not allow_empty:
        refuse_empty(header.counts.per_profile, chunks, names)
    return header, chunks


def _load_checked(map_path, scheme, root, catalog, say: Progress) -> tuple[DocSet, SubjectScheme | None]:
    """The doc set, loaded securely, and the --scheme; every profiling value checked against the schemes."""
    say("load", 0, 1)
    docset = load(map_path, root=root, catalog=catalog)
    say("load", 1, 1)
    subject_scheme = load_scheme(scheme) if scheme is not None else None
    for each in _schemes_to_validate(docset, subject_scheme):
        each.validate(docset)
    return docset, subject_scheme


def _inputs(map_path, scheme, catalog, docset: DocSet, profiles) -> list:
    """Every file the export reads (the map, the scheme, the catalog, the doc set, the DITAVALs): never its output."""
    pairs = list(profiles.items() if isinstance(profiles, Mapping) else profiles or [])
    return [map_path, scheme, catalog, *docset.files, *(path for _, path in pairs)]


def _workers(docset: DocSet, profiles: int, jobs: int | None) -> int:
    """`jobs`, or as many as the doc set is worth and memory allows (valid.export.workers.auto_jobs,
    from this process's size with the doc set loaded); at least 1."""
    topics = sum(1 for sf in docset.files.values() if sf.format == "dita")
    workers = auto_jobs(topics, profiles, resident_mb()) if jobs is None else jobs
    if workers < 1:
        raise ConfigError(f"--jobs must be at least 1, not {workers}")
    return workers


@dataclass(frozen=True)
class _Preprocessed:
    """The builds' job files, the unfiltered build's, every warning so far, and how many builds keep each topic file."""

    jobs_files: dict[str, Path]
    unfiltered: Path
    warnings: list[ExportWarning]
    builds: Counter[Path]


def _preprocess(
    docset: DocSet,
    chosen: list[Profile],
    ditavals: Mapping,
    subject_scheme: SubjectScheme | None,
    work: Path,
    workers: int,
    load_args: tuple,
    say: Progress,
) -> _Preprocessed:
    """One job directory per profile and the unfiltered one, under `work`; then the parsed doc set is freed."""
    warnings = list(docset.warnings) + _ditaval_warnings(chosen, ditavals, subject_scheme)
    tasks = [
        BuildTask(p.name, p.ditaval, p.source, work / f"profile-{index}") for index, p in enumerate(chosen, 1)
    ]
    built, unfiltered = _build_all(docset, tasks, ditavals, work, workers, load_args, say)
    build_warnings, builds = _what_builds_kept(built, unfiltered)
    jobs_files = {each.name: each.job_file for each in built}
    _free_parsed_docset(docset)
    say("preprocess", len(chosen) + 1, len(chosen) + 1)
    return _Preprocessed(jobs_files, unfiltered.job_file, warnings + build_warnings, builds)


def _ditaval_warnings(chosen: list[Profile], ditavals: Mapping, subject_scheme: SubjectScheme | None) -> list[ExportWarning]:
    """Each profile's DITAVAL warnings, then its rules for values the scheme does not declare."""
    warnings: list[ExportWarning] = []
    for profile in chosen:
        ditaval = ditavals[profile.name]
        warnings += [
            ExportWarning(path=ditaval.source, line=line, feature=feature, message=message)
            for line, feature, message in ditaval.warnings
        ]
        warnings += _undeclared_ditaval_values(ditaval, subject_scheme)
    return warnings


def _what_builds_kept(built: list[Built], unfiltered: Built) -> tuple[list[ExportWarning], Counter[Path]]:
    """The builds' warnings, in build order, and for each topic file the number of builds that keep it."""
    warnings: list[ExportWarning] = []
    builds: Counter[Path] = Counter()  # topic file -> the builds that keep it
    for each in [*built, unfiltered]:
        warnings += each.warnings
        builds.update(each.kept)
    return warnings, builds


def _free_parsed_docset(docset: DocSet) -> None:
    """Drop the parsed source trees: the builds are done, and the stylesheet needs the memory."""
    docset.release_trees()
    gc.collect()  # free now, before the stylesheet runs, whatever the builds left in reference cycles
    _return_free_memory()


def _run_document_writer(
    work: Path,
    docset: DocSet,
    chosen: list[Profile],
    subject_scheme: SubjectScheme | None,
    header_attribute: str | None,
    warnings: list[ExportWarning],
) -> Callable[[Mapping[str, Path], Path, str], Path]:
    """A function that writes one batch's run document, named `name`, into `work`, and returns its path."""

    def run_document(batch_jobs: Mapping[str, Path], batch_unfiltered: Path, name: str) -> Path:
        path = work / name
        write_run_document(
            path,
            docset=docset,
            profiles=chosen,
            jobs=batch_jobs,
            unfiltered=batch_unfiltered,
            scheme=subject_scheme,
            attribute=header_attribute,
            warnings=warnings,
        )
        return path

    return run_document


def _chunk_and_merge(
    pre: _Preprocessed,
    docset: DocSet,
    run_document: Callable[[Mapping[str, Path], Path, str], Path],
    workers: int,
    names: list[str],
    per_run: tuple[int, int],
    say: Progress,
) -> tuple[str, int]:
    """The stylesheet's output, from the batches joined or one run over every topic file; and the batches planned.
    `per_run`: at most (topic files, topic builds) per batch."""
    topics_per_run, builds_per_run = per_run
    # Workers run their batches at the same time: together they hold PARALLEL_SHARE of builds_per_run.
    builds_per_batch = builds_per_run if workers == 1 else max(1, int(builds_per_run * PARALLEL_SHARE) // workers)
    planned = topic_batches(docset, topics_per_run, builds_per_batch, pre.builds)
    text = None
    if len(planned) > 1:
        text = _run_batches(planned, docset, pre.jobs_files, pre.unfiltered, run_document, workers, names, say)
    if text is None:  # one batch, or batches that cannot be joined exactly
        say("chunk and merge", 0, 1)
        text = _xslt().run_export(str(run_document(pre.jobs_files, pre.unfiltered, "run.xml")))
    return text, len(planned)


def _run_batches(
    planned: list[list[Path]],
    docset: DocSet,
    jobs_files: dict[str, Path],
    unfiltered: Path,
    run_document: Callable[[Mapping[str, Path], Path, str], Path],
    workers: int,
    names: list[str],
    say: Progress,
) -> str | None:
    """The batches chunked and merged (valid.export.batches), here or by workers, and joined; None when
    they cannot be joined exactly. Workers write their outputs to files, and are gone before the
    outputs are read and joined, so their runtimes and the joined text are never held at once."""
    batches = len(planned)
    if workers == 1:

        def run_here(batch: BatchJobs, n: int) -> str:
            say("chunk and merge", n - 1, batches)
            return _xslt().run_export(str(run_document(batch.jobs, batch.unfiltered, f"run-{n}.xml")))

        return join(run_batches(planned, docset, jobs_files, unfiltered, run_here), names)
    # One batch per worker process: a SaxonC runtime's heap keeps growing from batch to batch (its
    # collector sizes the heap by its own policy, which nothing in saxonche bounds), so a worker
    # that ran several batches holds far more than one batch needs. A fresh worker costs a Python
    # start and a stylesheet compile, well under a second.
    say("chunk and merge", 0, batches)  # the stage starts now, not when the first batch is done
    with pool(min(workers, batches), tasks_per_worker=1) as stylesheet:

        def hand_over(batch: BatchJobs, n: int) -> Future:
            return stylesheet.submit(run_stylesheet, str(run_document(batch.jobs, batch.unfiltered, f"run-{n}.xml")))

        outputs = run_batches(
            planned, docset, jobs_files, unfiltered, hand_over, lambda n: say("chunk and merge", n, batches)
        )
    return join([Path(output).read_text(encoding="utf-8") for output in outputs], names)


def _build_all(
    docset: DocSet,
    tasks: list[BuildTask],
    ditavals: Mapping[str, object],
    work: Path,
    workers: int,
    load_args: tuple,
    say: Progress,
) -> tuple[list[Built], Built]:
    """Every profile's build and the unfiltered one (valid.export.workers: with workers > 1, the profiles
    are dealt to groups in turn and all groups but the first are built in worker processes). Results
    and the first error come in profile order, the unfiltered build last, as in a serial export."""
    total = len(tasks) + 1
    groups = deal(tasks, workers)
    unfiltered_task = BuildTask(UNFILTERED, b"", "", work / UNFILTERED)

    def here(n: int) -> None:  # this process's builds, as each starts
        say("preprocess", n, total)

    if len(groups) <= 1:
        outcomes = build_each(docset, lambda t: ditavals[t.name], tasks, here)
        say("preprocess", len(outcomes), total)
        return _in_profile_order(tasks, outcomes), build(docset, None, unfiltered_task)
    with pool(len(groups) - 1) as others:
        futures = [others.submit(build_group, load_args, group) for group in groups[1:]]
        outcomes = build_each(docset, lambda t: ditavals[t.name], groups[0], here)
        unfiltered: Built | ValidError | None = None
        if not isinstance(outcomes[-1][1], ValidError):
            try:
                unfiltered = build(docset, None, unfiltered_task)
            except ValidError as error:  # raised after the profiles' errors: it comes last in order
                unfiltered = error
        for group_outcomes in results(futures):
            outcomes += group_outcomes
            say("preprocess", len(outcomes), total)
    built = _in_profile_order(tasks, outcomes)
    if not isinstance(unfiltered, Built):
        raise unfiltered
    return built, unfiltered


def _in_profile_order(tasks: list[BuildTask], outcomes: list[tuple[str, Built | ValidError]]) -> list[Built]:
    """The builds in profile order; or the error of the first profile, in that order, whose build
    failed, as a serial export raises it (each group stops at its first error, and every profile
    before that one in its group was built)."""
    position = {task.name: n for n, task in enumerate(tasks)}
    ordered = sorted(outcomes, key=lambda outcome: position[outcome[0]])
    for _, outcome in ordered:
        if isinstance(outcome, ValidError):
            raise outcome
    return [outcome for _, outcome in ordered]


def _return_free_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's malloc_trim), so that the memory
    the parsed doc set held is available to the stylesheet's runtime rather than kept idle."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to give back this way
        pass


def _schemes_to_validate(docset: DocSet, given: SubjectScheme | None) -> list[SubjectScheme]:
    """The --scheme, plus every subject scheme the map itself references (DITA-OT validates against
    those too, but only warns; VALID refuses: a value outside the scheme would profile no reader)."""
    schemes = [given] if given is not None else []
    seen = {given.file} if given is not None else set()
    for sf in docset.files.values():
        if sf.file not in seen and classes.has_class(sf.root, classes.SUBJECT_SCHEME):
            seen.add(sf.file)
            schemes.append(load_scheme(sf.file, root=docset.root_dir))
    return schemes


# ----------------------------------------------------------------------------- profiles


def resolve_profiles(
    subject_scheme: SubjectScheme | None,
    attribute: str | None,
    profiles: Mapping[str, str | os.PathLike] | Iterable[tuple[str, str | os.PathLike]] | None,
    parent_profiles: Sequence[str] = (),
) -> tuple[list[Profile], str | None]:
    """The profiles of an export and the header's `attribute` (set when they come from the scheme)."""
    pairs = list(profiles.items() if isinstance(profiles, Mapping) else profiles or [])
    if pairs:
        chosen: list[Profile] = []
        for name, path in pairs:
            if not _PROFILE_NAME.match(name) or name == UNFILTERED:
                raise ConfigError(f"profile name {name!r} must be letters, digits, '.', '_' or '-'")
            if any(p.name == name for p in chosen):
                raise ConfigError(f"profile {name!r} is given twice")
            path = Path(path)
            try:
                data = path.read_bytes()
            except OSError as err:
                raise DitavalError(f"{path}: cannot read DITAVAL: {err.strerror}") from None
            parse_ditaval(data, str(path))  # fail early, with file and line, on a DITAVAL that cannot be used
            labels = subject_scheme.labels(name) if subject_scheme is not None else [name]
            chosen.append(Profile(name, data, str(path), tuple(labels)))
        return chosen, None
    if subject_scheme is None:
        raise ConfigError("no profiles: give --scheme FILE (one profile per value) or --profile NAME=FILE.ditaval")
    bound = subject_scheme.attributes()
    if attribute is None:
        if len(bound) != 1:
            raise ConfigError(
                f"the subject scheme binds {len(bound)} attributes ({', '.join(bound) or 'none'}); choose one with --attribute"
            )
        attribute = bound[0]
    elif attribute not in bound:
        raise ConfigError(
            f"the subject scheme does not bind @{attribute} (it binds: {', '.join(bound) or 'nothing'})"
        )
    try:
        values = subject_scheme.profile_values(attribute, parent_profiles)
    except SchemeValueError as err:
        raise ConfigError(f"parent profile: {err}") from None
    if not values:
        raise ConfigError(f"the subject scheme declares no values for @{attribute}")
    chosen = [
        Profile(
            value,
            subject_scheme.implied_ditaval(attribute, value).encode("utf-8"),
            "subject scheme",
            tuple(subject_scheme.labels(value)),
        )
        for value in values
    ]
    return chosen, attribute


def with_labels(chosen: list[Profile], labels: Mapping[str, Sequence[str]]) -> list[Profile]:
    """The profiles with configured labels in place of their own; a label for no profile is an error."""
    unknown = sorted(set(labels) - {p.name for p in chosen})
    if unknown:
        names = ", ".join(p.name for p in chosen)
        raise ConfigError(f"labels given for {', '.join(map(repr, unknown))}, which is not a profile (profiles: {names})")
    return [
        dataclasses.replace(p, labels=tuple(dict.fromkeys(labels[p.name]))) if labels.get(p.name) else p
        for p in chosen
    ]


# ----------------------------------------------------------------------------- run document


def write_run_document(
    path: Path,
    *,
    docset: DocSet,
    profiles: list[Profile],
    jobs: Mapping[str, Path],
    unfiltered: Path,
    scheme: SubjectScheme | None,
    attribute: str | None,
    warnings: list[ExportWarning],
    stylesheet_digest: str | None = None,
) -> None:
    """The input of xsl/valid-index.xsl (docs/architecture.md, "The run document")."""
    if stylesheet_digest is None:
        stylesheet_digest = _xslt().stylesheet_digest()
    run = etree.Element(
        "valid-run",
        {
            "schema-version": "1.0",
            "exporter-version": __version__,
            "stylesheet-digest": stylesheet_digest,
            "scheme-digest": scheme.digest if scheme is not None else "",
            "source-commit": source_commit(docset.map_dir) or "",
            "map": docset.root_map.file.name,
            "attribute": attribute or "",
            "src-base": file_uri(docset.map_dir, directory=True),
        },
    )
    for profile in profiles:
        ditaval = path.parent / "ditaval" / f"{profile.name}.ditaval"
        ditaval.parent.mkdir(parents=True, exist_ok=True)
        _write_once(ditaval, _rules_only(profile))
        el = etree.SubElement(
            run,
            "profile",
            name=profile.name,
            job=file_uri(jobs[profile.name]),
            ditaval=file_uri(ditaval),
            **{"ditaval-digest": profile.digest},
        )
        for label in profile.labels:
            etree.SubElement(el, "label").text = label
    etree.SubElement(run, "unfiltered", job=file_uri(unfiltered))
    if scheme is not None:
        # A self-contained copy (schemerefs inlined, no DOCTYPE), so that the XSLT processor never
        # opens the source file and its DTD; @xtrf still names the source.
        copy = path.parent / "scheme" / scheme.file.name
        copy.parent.mkdir(parents=True, exist_ok=True)
        _write_once(copy, scheme.resolved_xml())
        etree.SubElement(run, "scheme", href=file_uri(copy))
    for w in warnings:
        etree.SubElement(run, "warning", path=w.path, line=str(w.line), feature=w.feature).text = w.message
    path.write_bytes(etree.tostring(run, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def _rules_only(profile: Profile) -> bytes:
    """The profile's DITAVAL as the stylesheet reads it to tell what the profile keeps: its filtering
    rules only, with no DOCTYPE, so that the XSLT processor never opens anything else."""
    val = etree.Element("val")
    for rule in parse_ditaval(profile.ditaval, profile.source).rules:
        attributes = {"att": rule.att} if rule.att else {}
        attributes.update({"val": rule.val} if rule.val else {})
        etree.SubElement(val, "prop", attributes, action=rule.action)
    return etree.tostring(val, xml_declaration=True, encoding="UTF-8")


def _write_once(path: Path, data: bytes) -> None:
    """Write `path` unless it already holds `data`, and then whole at once (rename): every batch's
    run document names the same scheme copy, and a worker may be reading it while the next batch's
    run document is written."""
    if path.is_file() and path.read_bytes() == data:
        return
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def source_commit(directory: Path) -> str | None:
    """git HEAD of the directory's repository, or None (never fails)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            env=env,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", commit) else None


def _undeclared_ditaval_values(ditaval, subject_scheme: SubjectScheme | None) -> list[ExportWarning]:
    """A DITAVAL rule for a value the scheme does not declare is probably a typo (DITA-OT is silent)."""
    if subject_scheme is None:
        return []
    found = []
    for rule in ditaval.rules:
        if rule.att is None or rule.val is None:
            continue
        declared = subject_scheme.values(rule.att)
        if declared is not None and rule.val not in declared:
            found.append(
                ExportWarning(
                    path=ditaval.source,
                    line=rule.line,
                    feature="ditaval-value",
                    message=f"rule for @{rule.att}='{rule.val}': the subject scheme declares no such value",
                )
            )
    return found


def _unique(warnings: list[ExportWarning]) -> list[ExportWarning]:
    seen = set()
    result = []
    for w in warnings:
        key = (w.path, w.line, w.feature, w.message)
        if key not in seen:
            seen.add(key)
            result.append(w)
    return sorted(result, key=lambda w: (w.path, w.line, w.feature, w.message))


# ----------------------------------------------------------------------------- output


def validate_lines(text: str, profile_names: list[str]) -> tuple[ExportHeader, int]:
    """Check the stylesheet's output with the project's one export reader, and its profiles against
    the ones requested; ExportContractError names the first bad line ("export:N: ...")."""
    loaded = parse_export(text.encode("utf-8"), "export")
    if loaded.profiles != profile_names:
        raise ExportContractError(f"export:1: the header's profiles {loaded.profiles} are not the requested {profile_names}")
    return loaded.header, len(loaded.chunks)


def _xslt():
    from valid.export import xslt  # part of VALID: a failing import is a broken install and fails loudly

    return xslt


# ----------------------------------------------------------------------------- contract schema


def contract_schema() -> dict:
    """JSON Schema of one export line (header or chunk), generated from valid.contracts."""
    from typing import Annotated, Union

    from pydantic import Field

    line = Annotated[Union[ExportHeader, Chunk], Field(discriminator="kind")]
    schema = TypeAdapter(line).json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "VALID export line",
        "description": "One line of a `valid export` JSON-lines file: the first line is the header "
        "(kind=header), every other line a chunk (kind=chunk). Generated from valid.contracts by "
        "`valid schema`; do not edit by hand.",
        **schema,
    }


def contract_schema_json() -> str:
    return json.dumps(contract_schema(), indent=2, ensure_ascii=False) + "\n"


__all__ = [
    "ExportResult",
    "Profile",
    "contract_schema",
    "contract_schema_json",
    "export",
    "resolve_profiles",
    "source_commit",
    "validate_lines",
    "write_run_document",
]
