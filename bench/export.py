"""Benchmark `valid export` on a generated, guide-shaped doc set and on the bundled sample.

    python3 bench/export.py                       # the suite: 2,500 and 10,000 topics x 20 profiles,
                                                  # 2,500 topics x 5/10/20 profiles, the sample
    python3 bench/export.py --topics 2500 --profiles 20 --only   # one doc set
    python3 bench/export.py --no-write            # print only
    python3 bench/export.py --profiles-toml tests/trapsets/oxygen-userguide.toml --repeat 3
                                                  # a real doc set ($OXYGEN_USERGUIDE, or --docset DIR),
                                                  # as it comes: its map and DITAVALs from the toml,
                                                  # default --jobs beside --jobs 1
    python3 bench/export.py --profiles-toml bench/impala-docs.toml --docset "$IMPALA_DOCS" --repeat 3
                                                  # Apache Impala's docs/ folder, its two DITAVALs

The generated corpus has what makes export slow in practice: maps with profiled branches and
submaps, element profiling inside shared topics, profiled key definitions resolved by keyrefs, and
conrefs into a reuse library. It is exported with one profile per value of its subject scheme
(`--profiles N` values). Every measurement runs in a child process of its own; its peak RSS is the
peak of the summed resident sets of that child and every worker process it starts (Python, lxml and
each SaxonC runtime together), sampled every 50 ms from /proc, and its CPU time counts the workers.
`--jobs 1,2` measures each doc set with each number of worker processes, side by side (the runs
alternate, so a change in the machine's load falls on both). Results go to docs/benchmarks.md
between the `bench:export` markers.
"""

from __future__ import annotations

import argparse
import json
import tomllib
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "sidecar"))

from valid.dita.loader import load  # noqa: E402
from valid.export import BUILDS_PER_RUN, TOPICS_PER_RUN  # noqa: E402

SAMPLE_GENERATIONS = ("v5p", "v6e", "tpu7x")


def generations(profiles: int) -> tuple[str, ...]:
    return SAMPLE_GENERATIONS if profiles == 3 else tuple(f"gen{i:02d}" for i in range(profiles))
MARK_START, MARK_END = "<!-- bench:export -->", "<!-- /bench:export -->"


# ----------------------------------------------------------------------------- corpus


def generate(base: Path, topics: int, profiles: int = 3, seed: int = 7) -> Path:
    GENERATIONS = generations(profiles)
    rnd = random.Random(seed)
    (base / "topics").mkdir(parents=True)
    (base / "maps").mkdir()
    scheme = ['<subjectScheme><subjectdef keys="gen">']
    scheme += [f'<subjectdef keys="{g}"><topicmeta><navtitle>TPU {g}</navtitle></topicmeta></subjectdef>' for g in GENERATIONS]
    scheme += ['</subjectdef><enumerationdef><attributedef name="platform"/><subjectdef keyref="gen"/></enumerationdef></subjectScheme>']
    (base / "scheme.ditamap").write_text("".join(scheme))
    (base / "topics" / "library.dita").write_text(
        '<topic id="library"><title>Library</title><body>'
        + "".join(
            f'<p id="note{i}" platform="{GENERATIONS[i % len(GENERATIONS)]}">Reusable note {i} for {GENERATIONS[i % len(GENERATIONS)]}.</p>'
            for i in range(30)
        )
        + '<p id="shared">A shared reusable paragraph.</p></body></topic>'
    )
    keydefs = []
    for k in range(20):
        for g in GENERATIONS:
            keydefs.append(
                f'<keydef keys="k{k}" platform="{g}"><topicmeta><keywords><keyword>{g}-value-{k}</keyword>'
                "</keywords></topicmeta></keydef>"
            )
    branches = ["shared", *GENERATIONS[:3]]  # a guide has a few generation-specific parts
    per_branch = topics // len(branches) + 1
    made = 0
    maprefs = []
    for branch in branches:
        refs = []
        for i in range(per_branch):
            if made >= topics:
                break
            name = f"{branch}-{i:04d}"
            (base / "topics" / f"{name}.dita").write_text(topic_xml(name, rnd, GENERATIONS))
            profiled = "" if branch == "shared" or rnd.random() < 0.8 else f' platform="{branch}"'
            refs.append(f'<topicref href="../topics/{name}.dita"{profiled}/>')
            made += 1
        groups = [refs[j : j + 25] for j in range(0, len(refs), 25)]
        body = "".join(f'<topicgroup>{"".join(g)}</topicgroup>' for g in groups)
        (base / "maps" / f"{branch}.ditamap").write_text(f"<map><title>{branch}</title>{body}</map>")
        attr = "" if branch == "shared" else f' platform="{branch}"'
        maprefs.append(f'<topichead navtitle="{branch}"{attr}><mapref href="maps/{branch}.ditamap"/></topichead>')
    (base / "root.ditamap").write_text(
        "<map><title>Generated TPU docs</title>"
        + "".join(keydefs)
        + '<keydef keys="lib" href="topics/library.dita"/>'
        + "".join(maprefs)
        + "</map>"
    )
    return base / "root.ditamap"


def topic_xml(name: str, rnd: random.Random, GENERATIONS: tuple[str, ...]) -> str:
    def prof() -> str:
        roll = rnd.random()
        if roll < 0.7:
            return ""
        if roll < 0.9:
            return f' platform="{rnd.choice(GENERATIONS)}"'
        return f' platform="{" ".join(rnd.sample(GENERATIONS, 2))}"'

    sections = "".join(
        f'<section id="s{s}"{prof()}><title>Section {s}</title><p>Text of {name} section {s} with '
        f'<keyword keyref="k{rnd.randrange(20)}"/> and <ph{prof()}>a profiled phrase</ph>.</p>'
        f'<p conref="library.dita#library/note{rnd.randrange(30)}"/></section>'
        for s in range(rnd.randint(1, 3))
    )
    steps = "".join(
        f'<li{prof()}><p>Step {s}: run <codeph>gcloud tpus create --version=<keyword keyref="k{rnd.randrange(20)}"/>'
        "</codeph>.</p></li>"
        for s in range(rnd.randint(2, 5))
    )
    return (
        f'<topic id="{name}"><title>Topic {name}</title><shortdesc>About {name}.</shortdesc><body>'
        f'<p>Intro for {name}.</p><ol>{steps}</ol>{sections}'
        '<p conkeyref="lib/shared"/></body></topic>'
    )


# ----------------------------------------------------------------------------- measuring


def child_run(spec: dict) -> dict:
    """One export in this process (the child): seconds, CPU seconds, chunks, stage times, peak RSS.
    `spec`: map, out, per_run, builds, jobs (None: the export's default), and scheme or profiles."""
    from valid.export import export

    marks: list[tuple[str, float]] = []

    def progress(stage: str, done: int, total: int) -> None:
        if not marks or marks[-1][0] != stage:
            marks.append((stage, time.perf_counter()))

    map_path, out = Path(spec["map"]), Path(spec["out"])
    start = time.perf_counter()
    result = export(
        map_path, scheme=spec.get("scheme"), profiles=spec.get("profiles"), out=out, progress=progress,
        topics_per_run=spec["per_run"], builds_per_run=spec["builds"], jobs=spec["jobs"],
    )
    total = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)  # the worker processes, all joined by now
    # Counted here, after the usage is taken: a parent that loads a doc set forks children whose
    # maximum RSS starts at the parent's size (Linux keeps the high-water mark across exec).
    topics = count_topics(map_path)
    stages: dict[str, float] = {}
    for (label, at), (_, until) in zip(marks, [*marks[1:], ("end", start + total)]):
        stages[label] = stages.get(label, 0.0) + (until - at)
    return {
        "seconds": total,
        "chunks": result.chunks,
        "profiles": len(result.profiles),
        "stages": stages,
        # robust on a shared machine, where wall time is not
        "cpu": usage.ru_utime + usage.ru_stime + workers.ru_utime + workers.ru_stime,
        "jobs": "default" if spec["jobs"] is None else spec["jobs"],
        "digest": __import__("hashlib").sha256(out.read_bytes()).hexdigest(),
        "topics": topics,
        "warnings": len(result.warnings),
    }


def run_in_child(map_path: Path, source: dict, out: Path, per_run: int, jobs: int | None = 1) -> dict:
    """per_run: topic files per stylesheet run; 10**9 means one run (no batches at all).
    `source`: {"scheme": path} or {"profiles": [[name, ditaval], ...]}."""
    builds = 10**9 if per_run >= 10**9 else BUILDS_PER_RUN
    spec = {"map": str(map_path), "out": str(out), "per_run": per_run, "builds": builds, "jobs": jobs, **source}
    command = [sys.executable, __file__, "--child", json.dumps(spec)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(child.pid)
    sampler.start()
    stdout, stderr = child.communicate()
    sampler.stop()
    if child.returncode != 0:
        raise SystemExit(f"export of {map_path} failed:\n{stderr}")
    row = json.loads(stdout.strip().splitlines()[-1])
    row["peak_mb"] = sampler.peak_kb / 1024
    row["load"] = sum(sampler.loads) / max(1, len(sampler.loads))
    return row


class TreeSampler(threading.Thread):
    """The peak of the summed VmRSS of a process and its descendants, and the 1-minute load
    average, sampled every 50 ms while it runs."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak_kb, self.loads = pid, 0, []
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(0.05):
            self.peak_kb = max(self.peak_kb, sum(_rss_kb(p) for p in _tree(self.pid)))
            self.loads.append(os.getloadavg()[0])

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def _tree(pid: int) -> list[int]:
    found = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                for child in f.read().split():
                    found += _tree(int(child))
    except OSError:  # gone meanwhile
        pass
    return found


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def count_topics(map_path: Path) -> int:
    return sum(1 for sf in load(map_path).files.values() if sf.format == "dita")


def measure(
    name: str, map_path: Path, source: Path | dict, work: Path, repeat: int, per_run: int, jobs: list[int | None]
) -> list[dict]:
    """Per number of jobs (None: the export's default), the median run of `repeat` (by total
    seconds): the machine is shared, single runs are noisy. The runs with different jobs alternate.
    `source`: a subject scheme, or {"profiles": [[name, ditaval], ...]}."""
    source = source if isinstance(source, dict) else {"scheme": str(source)}
    runs: dict[int | None, list[dict]] = {j: [] for j in jobs}
    for attempt in range(repeat):
        for j in jobs:
            target = work / f"{attempt}-{j or 'default'}"
            target.mkdir(parents=True, exist_ok=True)
            runs[j].append(run_in_child(map_path, source, target / "out.jsonl", per_run, j))
            r = runs[j][-1]
            print(f"  {name}, jobs {j}: {r['seconds']:.1f} s, {r['cpu']:.1f} CPU s, {r['peak_mb']:.0f} MB, load {r['load']:.1f}", file=sys.stderr)
    rows = []
    for j in jobs:
        ordered = sorted(runs[j], key=lambda r: r["seconds"])
        row = ordered[len(ordered) // 2]
        peaks = sorted(r["peak_mb"] for r in runs[j])
        row.update(
            name=name, runs=[r["seconds"] for r in ordered], runs_in_order=[r["seconds"] for r in runs[j]], peaks=[r["peak_mb"] for r in runs[j]],
            cpus=[r["cpu"] for r in runs[j]], median_peak=peaks[len(peaks) // 2],
        )
        rows.append(row)
    return rows


def report(rows: list[dict], command: str, load: tuple[float, float, float], load_after: tuple[float, float, float]) -> str:
    lines = [f"Command: `{command}`", ""]
    lines += [
        f"Median of {len(rows[0]['runs'])} run(s) per doc set and jobs, each in a child process of its own (all runs, seconds: "
        + "; ".join(f"{r['name']} jobs {r['jobs']} " + ", ".join(f"{t:.1f}" for t in r["runs"]) for r in rows)
        + f"). Load average (1 min) {load[0]:.2f} before the runs and {load_after[0]:.2f} after, on {os.cpu_count()} cores.",
        "",
        "| doc set | jobs | topics | profiles | chunks | wall s | CPU s | topics x profiles / CPU s | peak RSS MB (all processes) | load avg during | output sha256 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['jobs']} | {r['topics']} | {r['profiles']} | {r['chunks']} | {r['seconds']:.1f} | {r['cpu']:.1f} | "
            f"{r['topics'] * r['profiles'] / r['cpu']:.0f} | {r['peak_mb']:.0f} | {r['load']:.1f} | {r['digest'][:12]} |"
        )
    lines += ["", "Every run, in the order taken (wall s / CPU s / peak MB; median peak over the runs):", ""]
    lines += [
        f"- {r['name']}, jobs {r['jobs']}: "
        + ", ".join(f"{w:.1f} / {c:.1f} / {m:.0f}" for w, c, m in zip(r["runs_in_order"], r["cpus"], r["peaks"]))
        + f"; median peak {r['median_peak']:.0f} MB"
        for r in rows
    ]
    for big in [r for r in rows if r["name"] == rows[0]["name"]]:
        lines += ["", f"Stages of the {big['name']} run with {big['jobs']} job(s) (seconds):", ""]
        lines += [f"- {stage}: {seconds:.1f}" for stage, seconds in big["stages"].items()]
    lines += [
        "",
        "Peak RSS is the peak of the summed resident sets of the export's process and its workers",
        "(sampled every 50 ms; pages the processes share, such as the SaxonC library, count once per",
        "process). CPU s counts the workers. Targets: 2,500 topics x 20 profiles in at most 60 s and",
        "1 GB; 10,000 topics x 20 profiles in at most 4 GB.",
    ]
    return "\n".join(lines)


def write_section(text: str) -> None:
    doc = REPO / "docs" / "benchmarks.md"
    content = doc.read_text(encoding="utf-8") if doc.exists() else f"# Benchmarks\n\n## Export\n{MARK_START}\n{MARK_END}\n"
    if MARK_START not in content:
        content += f"\n## Export\n{MARK_START}\n{MARK_END}\n"
    head, _, rest = content.partition(MARK_START)
    _, _, tail = rest.partition(MARK_END)
    doc.write_text(f"{head}{MARK_START}\n{text}\n{MARK_END}{tail}", encoding="utf-8")


def suite(topics: int, profiles: int, only: bool, scaling: bool) -> list[tuple[str, int, int]]:
    """(name, topics, profiles) of each generated doc set to measure."""
    if only:
        return [(f"generated {topics} x {profiles}", topics, profiles)]
    if scaling:
        return [(f"generated {topics} x {n}", topics, n) for n in (5, 10, 20)]
    return [
        ("generated 2500 x 20", 2500, 20),
        ("generated 10000 x 20", 10000, 20),
        ("generated 2500 x 5", 2500, 5),
        ("generated 2500 x 10", 2500, 10),
    ]


def real_docset(docset: Path, profiles_toml: Path, map_override: Path | None) -> tuple[str, Path, dict]:
    """(name, root map, {"profiles": ...}) of a doc set as it comes, configured by a toml (a trap
    set's, or bench/impala-docs.toml): its `map` and `[ditavals]` (profile = DITAVAL), paths
    relative to the doc set's root."""
    config = tomllib.loads(profiles_toml.read_text(encoding="utf-8"))
    map_path = map_override or docset / config["map"]
    if not map_path.is_file():
        raise SystemExit(f"{map_path}: no such map (give --docset DIR or set OXYGEN_USERGUIDE)")
    profiles = [[name, str(docset / ditaval)] for name, ditaval in config["ditavals"].items()]
    return f"{map_path.name} ({profiles_toml.stem})", map_path, {"profiles": profiles}


def parse_jobs(text: str) -> list[int | None]:
    """'default,1' -> [None, 1]: None lets the export choose (valid export without --jobs)."""
    return [None if j.strip() == "default" else int(j) for j in text.split(",")]


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(child_run(json.loads(sys.argv[2]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=2500)
    parser.add_argument("--profiles", type=int, default=20)
    parser.add_argument("--only", action="store_true", help="measure only --topics x --profiles (and the sample)")
    parser.add_argument("--scaling", action="store_true", help="measure --topics x 5, 10 and 20 profiles")
    parser.add_argument(
        "--compare-one-run",
        action="store_true",
        help="also export each doc set in one stylesheet run (no batches), side by side",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per doc set; the median is reported")
    parser.add_argument(
        "--jobs",
        help="worker processes to compare, comma-separated (valid export --jobs; 'default': none given); "
        "default 1,2, and default,1 with --profiles-toml",
    )
    parser.add_argument(
        "--profiles-toml", type=Path, help="a real doc set instead of the generated ones: a trap set's toml (map, [ditavals])"
    )
    parser.add_argument(
        "--docset", type=Path, default=os.environ.get("OXYGEN_USERGUIDE"),
        help="the real doc set's root, which the toml's paths are relative to (default: $OXYGEN_USERGUIDE)",
    )
    parser.add_argument("--map", type=Path, help="the real doc set's root map, instead of the toml's `map`")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args()
    load_avg = os.getloadavg()
    jobs = parse_jobs(args.jobs or ("default,1" if args.profiles_toml else "1,2"))
    if args.profiles_toml:
        if args.docset is None:
            raise SystemExit("--profiles-toml needs the doc set: --docset DIR or OXYGEN_USERGUIDE")
        name, map_path, source = real_docset(Path(args.docset), args.profiles_toml, args.map)
        with tempfile.TemporaryDirectory(prefix="valid-bench-") as tmp:
            rows = measure(name, map_path, source, Path(tmp), args.repeat, TOPICS_PER_RUN, jobs)
        command = f"python3 bench/export.py --profiles-toml {args.profiles_toml.as_posix()} --repeat {args.repeat}"
        command += f" --jobs {args.jobs}" if args.jobs else ""
        print(report(rows, command, load_avg, os.getloadavg()))  # a real doc set's figures are written by hand
        return
    rows = []
    with tempfile.TemporaryDirectory(prefix="valid-bench-") as tmp:
        base = Path(tmp)
        for name, topics, profiles in suite(args.topics, args.profiles, args.only, args.scaling):
            corpus = generate(base / f"corpus-{topics}-{profiles}", topics, profiles)
            scheme = corpus.parent / "scheme.ditamap"
            rows += measure(name, corpus, scheme, base / f"run-{topics}-{profiles}", args.repeat, TOPICS_PER_RUN, jobs)
            if args.compare_one_run:
                rows += measure(f"{name}, one run", corpus, scheme, base / f"one-{topics}-{profiles}", args.repeat, 10**9, [1])
        rows += measure(
            "sample (Cloud TPU)",
            REPO / "sample_maps" / "cloud-tpu.ditamap",
            REPO / "schemes" / "tpu-generations.ditamap",
            base / "run-sample",
            args.repeat,
            TOPICS_PER_RUN,
            jobs,
        )
    command = "python3 bench/export.py"
    if args.only:
        command += f" --topics {args.topics} --profiles {args.profiles} --only"
    elif args.scaling:
        command += f" --topics {args.topics} --scaling"
    command += " --compare-one-run" if args.compare_one_run else ""
    command += f" --repeat {args.repeat}" if args.repeat != 1 else ""
    command += f" --jobs {args.jobs}" if args.jobs and args.jobs != "1,2" else ""
    text = report(rows, command, load_avg, os.getloadavg())
    print(text)
    if not args.no_write:
        write_section(text)


if __name__ == "__main__":
    main()
