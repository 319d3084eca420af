"""Benchmark `valid export`: a generated doc set of 2,000+ topics and the bundled sample.

    python3 bench/export.py [--topics 2000] [--no-write]

The generated corpus has what makes export slow in practice: maps with profiled branches and
submaps, element profiling inside shared topics, profiled key definitions resolved by keyrefs, and
conrefs into a reuse library. It is exported with three profiles (one per value of its subject
scheme). Results go to docs/benchmarks.md between the `bench:export` markers.

When the stylesheet runner (valid.xslt) is not in the checkout, only the DITA side is measured
(load, validation, one preprocessed job per profile) and the report says so.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "sidecar"))

from valid.dita.ditaval import parse_ditaval  # noqa: E402
from valid.dita.loader import load  # noqa: E402
from valid.dita.preprocess import UNFILTERED, preprocess  # noqa: E402
from valid.dita.scheme import load_scheme  # noqa: E402

GENERATIONS = ("v5p", "v6e", "tpu7x")
MARK_START, MARK_END = "<!-- bench:export -->", "<!-- /bench:export -->"


# ----------------------------------------------------------------------------- corpus


def generate(base: Path, topics: int, seed: int = 7) -> Path:
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
            f'<p id="note{i}" platform="{GENERATIONS[i % 3]}">Reusable note {i} for {GENERATIONS[i % 3]}.</p>'
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
    branches = ["shared", *GENERATIONS]
    per_branch = topics // len(branches) + 1
    made = 0
    maprefs = []
    for branch in branches:
        refs = []
        for i in range(per_branch):
            if made >= topics:
                break
            name = f"{branch}-{i:04d}"
            (base / "topics" / f"{name}.dita").write_text(topic_xml(name, rnd))
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


def topic_xml(name: str, rnd: random.Random) -> str:
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


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_full(map_path: Path, scheme: Path, out: Path) -> dict:
    from valid.export import export

    marks: list[tuple[str, float]] = []
    start = time.perf_counter()
    result = export(map_path, scheme=scheme, out=out, progress=lambda m: marks.append((m, time.perf_counter())))
    total = time.perf_counter() - start
    stages: dict[str, float] = {}
    for (label, at), (_, until) in zip(marks, [*marks[1:], ("end", start + total)]):
        key = label.split(" (")[0].replace("preprocessing profile ", "preprocess ")
        stages[key] = stages.get(key, 0.0) + (until - at)
    return {"seconds": total, "chunks": result.chunks, "profiles": len(result.profiles), "stages": stages}


def run_dita_side(map_path: Path, scheme_path: Path, work: Path) -> dict:
    marks = {}
    start = time.perf_counter()
    docset = load(map_path)
    scheme = load_scheme(scheme_path)
    scheme.validate(docset)
    marks["load and validate"] = time.perf_counter() - start
    values = scheme.profile_values(scheme.attributes()[0])
    for value in values:
        t = time.perf_counter()
        ditaval = parse_ditaval(scheme.implied_ditaval(scheme.attributes()[0], value).encode(), value)
        preprocess(docset, ditaval, work / value, name=value)
        marks[f"preprocess {value}"] = time.perf_counter() - t
    t = time.perf_counter()
    preprocess(docset, None, work / UNFILTERED)
    marks["preprocess _unfiltered"] = time.perf_counter() - t
    return {"seconds": time.perf_counter() - start, "chunks": None, "profiles": len(values), "stages": marks}


def have_stylesheet() -> bool:
    try:
        import valid.xslt  # noqa: F401
    except ModuleNotFoundError:
        return False
    return (REPO / "xsl" / "valid-index.xsl").is_file()


def count_topics(map_path: Path) -> int:
    return sum(1 for sf in load(map_path).files.values() if sf.format == "dita")


def measure(name: str, map_path: Path, scheme: Path, work: Path, full: bool, repeat: int) -> dict:
    """The median run of `repeat` (by total seconds): the machine is shared, single runs are noisy."""
    topics = count_topics(map_path)
    runs = []
    for attempt in range(repeat):
        target = work / str(attempt)
        target.mkdir(parents=True, exist_ok=True)
        runs.append(run_full(map_path, scheme, target / "out.jsonl") if full else run_dita_side(map_path, scheme, target / "jobs"))
    runs.sort(key=lambda r: r["seconds"])
    row = runs[len(runs) // 2]
    row.update(name=name, topics=topics, peak_mb=peak_rss_mb(), runs=[r["seconds"] for r in runs])
    return row


def report(rows: list[dict], full: bool, command: str, load: tuple[float, float, float]) -> str:
    lines = [f"Command: `{command}`", ""]
    lines += [
        f"Median of {len(rows[0]['runs'])} runs per doc set (all runs, seconds: "
        + "; ".join(f"{r['name']} " + ", ".join(f"{t:.2f}" for t in r["runs"]) for r in rows)
        + f"). Load average before the runs: {load[0]:.2f} (1 min) on {os.cpu_count()} cores.",
        "",
    ]
    if not full:
        lines += [
            "The stylesheet runner was not in the checkout: these numbers cover the DITA side only",
            "(secure load, scheme validation, one preprocessed job per profile plus `_unfiltered`).",
            "",
        ]
    lines += [
        "| doc set | topics | profiles | chunks | seconds | topics/s | topics/s per profile | chunks/s | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        chunks = "-" if r["chunks"] is None else str(r["chunks"])
        chunk_rate = "-" if r["chunks"] is None else f"{r['chunks'] / r['seconds']:.0f}"
        lines.append(
            f"| {r['name']} | {r['topics']} | {r['profiles']} | {chunks} | {r['seconds']:.2f} | "
            f"{r['topics'] / r['seconds']:.0f} | {r['topics'] * r['profiles'] / r['seconds']:.0f} | {chunk_rate} | "
            f"{r['peak_mb']:.0f} |"
        )
    big = rows[0]
    lines += ["", f"Stages of the median {big['name']} run (seconds):", ""]
    lines += [f"- {stage}: {seconds:.2f}" for stage, seconds in big["stages"].items()]
    lines += [
        "",
        "topics/s per profile = topics x profiles / seconds (target: at least 50). Peak RSS is the",
        "process maximum (resource.getrusage), so the sample row includes the generated corpus run.",
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per doc set; the median is reported")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args()
    full = have_stylesheet()
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="valid-bench-") as tmp:
        base = Path(tmp)
        corpus = generate(base / "corpus", args.topics)
        rows = [
            measure("generated", corpus, base / "corpus" / "scheme.ditamap", base / "run-generated", full, args.repeat),
            measure(
                "sample (Cloud TPU)",
                REPO / "sample_maps" / "cloud-tpu.ditamap",
                REPO / "schemes" / "tpu-generations.ditamap",
                base / "run-sample",
                full,
                args.repeat,
            ),
        ]
    command = "python3 bench/export.py" + (f" --topics {args.topics}" if args.topics != 2000 else "")
    command += f" --repeat {args.repeat}" if args.repeat != 3 else ""
    text = report(rows, full, command, load)
    print(text)
    if not args.no_write:
        write_section(text)


if __name__ == "__main__":
    main()
