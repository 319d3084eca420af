"""Chunk and merge a large doc set in batches of topic files, so memory does not grow with it.

The stylesheet merges every profile's build by chunk identity, and a chunk's identity, text, title,
breadcrumbs and scope come from its own topic file in each build; only the maps (key definitions,
the map title) are shared by all chunks. So the topic files can be split into batches: each batch
runs the stylesheet over every profile's map, with the topic references outside the batch
unlinked (their @href removed, so the stylesheet never loads those files), and the batches'
outputs are joined. The stylesheet then holds one batch of topics per profile at a time instead of
the whole doc set per profile.

A topic's copies (a key scope's `-2` copy, a `@copy-to` or branch copy) go with their source file:
a job file's `@src` names the source of each of its files, copies included, so a copy is unlinked
exactly when its source is outside the batch.

The joined output must be byte-identical to one run over everything. The stylesheet sorts lines
by source path, line and column of the chunk element, then id and variant (xsl/merge.xsl), and
each batch's output is in that order. The loader gives every element column 1 (lxml reports
lines only), so the key is (source path, line, id without its variant suffix), which every line
shows, and the join merges the batches' lines by it: content conref'd from one file into topics
of several batches keeps that file's source path in each of them and lands where one run puts
it. The join is accepted only when the batches' headers agree on everything but the counts
(which add up) and no chunk id is in two batches; otherwise the export falls back to one run
over everything.
"""

from __future__ import annotations

import heapq
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from lxml import etree

from valid.dita.loader import DocSet, has_url_scheme

_COUNTS = re.compile(
    r',"counts":\{"chunks":\d+,"kept_by_no_profile":\d+,"per_profile":\{[^{}]*\}(?:,"not_chunked":\{[^{}]*\})?\}'
)


@dataclass(frozen=True)
class BatchJobs:
    """For one batch: the job file of each profile and of the unfiltered build."""

    jobs: dict[str, Path]
    unfiltered: Path


def topic_batches(docset: DocSet, size: int, budget: int | None = None, builds: Mapping[Path, int] | None = None) -> list[list[Path]]:
    """Topic files (not maps) in the order of their source paths, in batches of at most `size`
    files and, given `builds` (file -> how many builds keep it), at most `budget` topic builds:
    the stylesheet holds every build of a batch's files at once, so a file every profile keeps
    weighs as much as twenty files only one profile keeps."""
    topics = sorted((sf for sf in docset.files.values() if sf.format == "dita"), key=lambda sf: sf.path)
    weighed = budget is not None and builds is not None
    batches: list[list[Path]] = []
    weight = 0
    for sf in topics:
        cost = max(1, builds.get(sf.file, 0)) if weighed else 0
        if not batches or len(batches[-1]) >= size or (weighed and batches[-1] and weight + cost > budget):
            batches.append([])
            weight = 0
        batches[-1].append(sf.file)
        weight += cost
    return batches


def write_batch_jobs(
    docset: DocSet,
    job_files: dict[str, Path],
    unfiltered: Path,
    batch: Sequence[Path],
    all_topics: set[Path],
    n: int,
    targets: dict[str, str] | None = None,
) -> BatchJobs:
    """Beside each job's files, a job file and root map for batch n that link only its topics.

    `targets` caches the job URI each root-map @href names: the same for every build and batch."""
    outside = {docset.files[f].uri for f in all_topics - set(batch)}
    cache = {} if targets is None else targets
    made = {name: _batch_job(job, outside, docset, n, cache) for name, job in job_files.items()}
    return BatchJobs(jobs=made, unfiltered=_batch_job(unfiltered, outside, docset, n, cache))


def _batch_job(job_file: Path, outside: set[str], docset: DocSet, n: int, targets: dict[str, str]) -> Path:
    """`outside`: the source URIs (@xtrf, the job's @src) of the topic files not in batch n."""
    job_dir = job_file.parent
    job = etree.parse(str(job_file))
    # Job URI -> source URI: a copy's own URI names its source, so it goes with its source's batch;
    # a file the job does not list is its own source.
    source_of = {sf.job_uri: sf.uri for sf in docset.files.values()}
    source_of.update((f.get("uri"), f.get("src")) for f in job.iter("file"))
    map_uri = docset.root_map.job_uri
    map_path = job_dir / map_uri
    batch_map = map_path.with_name(f"{map_path.stem}.valid-batch-{n}{map_path.suffix}")
    tree = etree.parse(str(map_path))
    for el in tree.iter():
        href = el.get("href") if isinstance(el.tag, str) else None
        if not href or has_url_scheme(href):
            continue
        target = targets.get(href)
        if target is None:
            # Relative to the job directory, which is the same for every job: the map's job URI.
            path = os.path.normpath(Path(map_uri).parent / unquote(href.split("#")[0]))
            target = targets[href] = Path(path).as_posix()
        if source_of.get(target) in outside:
            del el.attrib["href"]  # the stylesheet loads only referenced topic files
    tree.write(str(batch_map), xml_declaration=True, encoding="UTF-8")
    for f in list(job.iter("file")):
        if f.get("input") == "true":
            f.set("uri", Path(os.path.relpath(batch_map, job_dir)).as_posix())
        elif f.get("format") == "dita" and source_of.get(f.get("uri")) in outside:
            # No topicref of the batch map links it: the stylesheet would read the entry in every
            # batch for nothing (most of a large guide's job file).
            f.getparent().remove(f)
    batch_job = job_dir / f".job.valid-batch-{n}.xml"
    job.write(str(batch_job), xml_declaration=True, encoding="UTF-8")
    return batch_job


def join(outputs: Sequence[str], profiles: Sequence[str]) -> str | None:
    """The batches' outputs as one export, or None when they cannot be joined exactly."""
    headers, bodies = [], []
    for text in outputs:
        lines = text.rstrip("\n").split("\n")
        headers.append(lines[0])
        bodies.append(lines[1:])
    if len({_COUNTS.sub("", h) for h in headers}) != 1 or not all(_COUNTS.search(h) for h in headers):
        return None
    keyed = [[_order(line, index) for index, line in enumerate(body)] for body in bodies]
    if not _disjoint(keyed):
        return None
    merged = heapq.merge(*keyed)  # each batch is in this order already; ties only within a batch
    return "\n".join([_joined_header(headers, profiles), *(line for *_key, line in merged)]) + "\n"


def _order(line: str, index: int) -> tuple[str, int, str, int, str]:
    """A chunk line's place in the one-run order (source path, line, base id: the id without its
    variant suffix), its index in its batch (variants keep their batch's order), and the line."""
    chunk = json.loads(line)
    source = chunk["source"]
    return source["path"], source["line"], _base_id(chunk), index, line


def _base_id(chunk: dict) -> str:
    """The id the stylesheet sorts by: a variant's id ends in '~' and its profiles joined by '+'."""
    variant = "~" + "+".join(p for p, kept in chunk["scope"].items() if kept)
    chunk_id = chunk["id"]
    return chunk_id[: -len(variant)] if chunk_id.endswith(variant) else chunk_id


def _disjoint(keyed: Sequence[Sequence[tuple]]) -> bool:
    """No chunk (base id) in two batches: a line's key then decides its place among other batches'."""
    owner: dict[str, int] = {}
    return all(owner.setdefault(base, n) == n for n, body in enumerate(keyed) for _path, _line, base, *_rest in body)


def _joined_header(headers: Sequence[str], profiles: Sequence[str]) -> str:
    """The first batch's header with the counts of every batch added up."""
    counts = [json.loads(h)["counts"] for h in headers]
    chunks = sum(c["chunks"] for c in counts)
    kept = sum(c["kept_by_no_profile"] for c in counts)
    per = ",".join(f'"{p}":{sum(c["per_profile"].get(p, 0) for c in counts)}' for p in profiles)
    joined_counts = f',"counts":{{"chunks":{chunks},"kept_by_no_profile":{kept},"per_profile":{{{per}}}'
    if any("not_chunked" in c for c in counts):
        # Element names in code-point order, as the stylesheet's sort() writes them.
        names = sorted({name for c in counts for name in c.get("not_chunked", {})})
        missed = ",".join(f'{json.dumps(n)}:{sum(c.get("not_chunked", {}).get(n, 0) for c in counts)}' for n in names)
        joined_counts += f',"not_chunked":{{{missed}}}'
    joined_counts += "}"
    return _COUNTS.sub(lambda _m: joined_counts, headers[0], count=1)


def run_batches(
    batches: Sequence[Sequence[Path]],
    docset: DocSet,
    job_files: dict[str, Path],
    unfiltered: Path,
    run_one: Callable[[BatchJobs, int], str | Future],
    finished: Callable[[int], None] = lambda _n: None,
) -> list:
    """Write each batch's job files and start its stylesheet run (run_one writes the batch's run
    document and runs it, or hands it to a worker and returns the future); the runs' results in
    batch order, the first error in that order raised. `finished(n)` as batch n's result is taken."""
    all_topics = {f for batch in batches for f in batch}
    targets: dict[str, str] = {}
    started = []
    for n, batch in enumerate(batches, 1):
        jobs = write_batch_jobs(docset, job_files, unfiltered, batch, all_topics, n, targets)
        started.append(run_one(jobs, n))
    outputs = []
    for n, each in enumerate(started, 1):
        outputs.append(each.result() if isinstance(each, Future) else each)
        finished(n)
    return outputs
