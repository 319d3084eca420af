"""Benchmark `valid ask` (offline answerer): in-process p50/p95 for scoped, unscoped and comparison questions, CLI wall time.

    python3 bench/ask.py                                   # the bundled sample; writes the "Ask" section
    python3 bench/ask.py --corpus both                     # sample + generated 20-version doc set, CLI
                                                           # runs and start-up; writes "Ask at scale"
    python3 bench/ask.py --corpus generated --profiles 20 --chunks 10000 --no-write

Corpora:

- sample: sample_maps/ + schemes/ exported with `valid export` and indexed into a temporary state;
  questions are the trap set's, round-robin (if the export is not available, the answer fixture
  export is used and the report says so).
- generated: a fictional versioned CLI reference (bench/product_corpus.py): --profiles versions,
  at least --chunks chunks, written directly with valid.contracts models (seed --seed), indexed for
  real (Chroma + FTS5) with the offline embedder, the same model the query path uses. Embedding
  10,000 chunks takes minutes, so the state is kept in --work (default ~/.cache/valid-bench/ask)
  and reused while the export is byte-identical (the release id is unchanged). Questions are
  generated from the same facts, alternating scoped ("... in Quarry 2.3?") and unscoped.

Every in-process ask runs the whole path: scope, embedding, both searches per generation searched,
fusion, the offline answerer, the checks, the decision and the question-log write. A question is
"scoped" when resolve_scope finds a known generation in it, "unscoped" when it finds none, and
"comparison" when it is a comparison or availability question (valid.answer.compare: two named
generations and a comparing word, or "is X available on G?"), answered with the `compare` outcome.

CLI: `python3 -m valid ask QUESTION --state STATE` in a child process, --cli-runs questions of
each kind, wall time each; and the start-up share: the wall time of `valid ask --help` (interpreter
and the CLI's imports), its largest imports (`python3 -X importtime`), and the time a fresh process
takes to import the engine and open it (embedding model, Chroma, the owned-value table).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
STAGES = ["scope", "retrieve", "compare", "versions", "generate", "check", "log", "total"]
TARGET_SAMPLE_P50_MS = 150.0
TARGET_COMPARE_P50_MS = 250.0  # a comparison: one retrieval per side, the groups, the computed rows
TARGET_SCALE_P50_MS = 300.0
TARGET_VERSIONS_P50_MS = 250.0  # a question about the versions: the scheme, or one search over the builds
SECTIONS = {
    "ask": ("<!-- bench:ask -->", "<!-- /bench:ask -->"),
    "scale": ("<!-- bench:ask-scale -->", "<!-- /bench:ask-scale -->"),
    "versions": ("<!-- bench:ask-versions -->", "<!-- /bench:ask-versions -->"),
    "cli": ("<!-- bench:ask-cli -->", "<!-- /bench:ask-cli -->"),
    "cli-docset": ("<!-- bench:ask-cli-docset -->", "<!-- /bench:ask-cli-docset -->"),
}


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# -- corpora ------------------------------------------------------------------------------------
@dataclass
class Corpus:
    name: str  # as reported
    state: Path
    questions: list[str]
    profiles: int
    chunks: int
    note: str
    build_s: float = 0.0
    embedded: int = 0


def sample_corpus(work: Path, embedder) -> Corpus:
    from valid.evaluate.trapset import load_trapset
    from valid.index import Store, build_release

    out = work / "sample" / "chunks.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        from valid.export import export

        export(ROOT / "sample_maps" / "cloud-tpu.ditamap", scheme=ROOT / "schemes" / "tpu-generations.ditamap", out=out)
        note = "the bundled sample (sample_maps/, exported with `valid export`)"
    except Exception as err:  # the export may not be available in this checkout
        sys.path.insert(0, str(ROOT / "tests"))
        from fixtures.answer.export import build_export, write_export

        write_export(out, build_export())
        note = f"the answer fixture export (tests/fixtures/answer; `valid export` failed: {type(err).__name__})"
    started = time.perf_counter()
    result = build_release(out, embedder, Store(work / "sample" / "state"))
    questions = [q.question for q in load_trapset(ROOT / "sidecar" / "valid" / "data" / "trapset-cloud-tpu.jsonl")]
    state = work / "sample" / "state"
    return Corpus(
        "sample (Cloud TPU)", state, questions, len(profiles_of(state)), result.report.chunks, note,
        time.perf_counter() - started, result.report.embedding.embedded,
    )


def docset_corpus(state: Path, trapset: Path, name: str) -> Corpus:
    """A doc set already indexed by `valid index` (a real guide: it takes too long to export and
    index inside a benchmark run); the questions are its trap set's."""
    from valid.evaluate.trapset import load_trapset
    from valid.index import Store, open_active

    if not (state / "active").exists() and not any(state.glob("releases/*")):
        raise SystemExit(f"{state}: no release here; run `valid index EXPORT --state {state}` first")
    with open_active(Store(state)) as release:
        profiles, chunks = len(release.header.profiles), release.manifest.operational.chunks
    questions = [q.question for q in load_trapset(trapset)]
    return Corpus(name, state, questions, profiles, chunks, f"{name}, indexed beforehand; questions from {trapset.name}")


def profiles_of(state: Path) -> list:
    from valid.index import Store, open_active

    with open_active(Store(state)) as release:
        return list(release.header.profiles)


def generated_corpus(work: Path, embedder, profiles: int, chunks: int, seed: int, versions: bool = False) -> Corpus:
    from product_corpus import generate

    from valid.index import Store, build_release

    corpus = generate(profiles=profiles, chunks=chunks, seed=seed)
    directory = work / f"generated-p{profiles}-c{chunks}-s{seed}"
    export_path = corpus.write(directory / "chunks.jsonl")
    started = time.perf_counter()
    print(f"indexing {len(corpus.chunks)} generated chunks into {directory / 'state'} (reused when unchanged) ...", file=sys.stderr)
    result = build_release(export_path, embedder, Store(directory / "state"))
    return Corpus(
        f"generated ({profiles} versions)", directory / "state",
        [q.text for q in (corpus.versions_questions if versions else corpus.questions)], profiles,
        len(corpus.chunks), f"bench/product_corpus.py, seed {seed}", time.perf_counter() - started,
        result.report.embedding.embedded,
    )


# -- in process ---------------------------------------------------------------------------------
@dataclass
class Run:
    open_ms: float
    wall: dict[str, list[float]] = field(
        default_factory=lambda: {"scoped": [], "unscoped": [], "unknown": [], "comparison": [], "versions": []}
    )
    stages: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    outcomes: dict[str, dict[str, int]] = field(default_factory=dict)
    rss_mb: float = 0.0


def kind_of(question: str, profiles) -> str:
    from valid.answer.scope import resolve_scope

    from valid.answer.compare import comparison_kind
    from valid.answer.reading import read
    from valid.answer.versions_catalog import build_catalog
    from valid.answer.versions_flow import read_question

    resolution = resolve_scope(question, profiles, None)
    # The question's one reading, as the engine makes it (without the doc set's command names: only
    # which kind of question it is matters here).
    reading = read(question, resolution.matched)
    if read_question(reading, resolution, profiles, build_catalog(profiles)) is not None:
        return "versions"
    if comparison_kind(reading, resolution):
        return "comparison"
    if resolution.unknown and not resolution.profiles:
        return "unknown"
    return "scoped" if resolution.profiles else "unscoped"


def run_in_process(corpus: Corpus, embedder, n: int, warmup: int, selector: str | None = None) -> Run:
    from valid.answer.wiring import make_generator, open_engine

    started = time.perf_counter()
    generator = make_generator("offline", **({"selector": selector} if selector else {}))
    engine = open_engine(corpus.state, embedder=embedder, generator=generator)
    run = Run(open_ms=(time.perf_counter() - started) * 1000)
    kinds = {q: kind_of(q, engine.profiles) for q in corpus.questions}
    for i in range(warmup):
        engine.ask(corpus.questions[i % len(corpus.questions)])
    for i in range(n):
        question = corpus.questions[i % len(corpus.questions)]
        kind = kinds[question]
        t = time.perf_counter()
        result = engine.ask(question)
        run.wall[kind].append((time.perf_counter() - t) * 1000)
        stages = run.stages.setdefault(kind, {s: [] for s in STAGES})
        for stage in STAGES:
            stages[stage].append(result.stages_ms.get(stage, 0.0))
        counts = run.outcomes.setdefault(kind, {})
        counts[result.answer.outcome] = counts.get(result.answer.outcome, 0) + 1
    run.rss_mb = rss_mb()
    engine.close()
    return run


def channel_costs(corpus: Corpus, embedder, repeat: int = 20) -> dict[str, float]:
    """p50 ms of each call one profile's retrieval makes, on the smallest and largest profile, and
    of the same Chroma query without a scope filter (for scale; VALID never sends that one)."""
    from valid.index import Store, open_active, vectors

    questions = [q for q in corpus.questions[:repeat]]
    out: dict[str, float] = {}

    def p50(call, repeat: int = repeat) -> float:
        walls = []
        for i in range(repeat):
            t = time.perf_counter()
            call(i)
            walls.append((time.perf_counter() - t) * 1000)
        return statistics.median(walls)

    out["query embedding"] = p50(lambda i: embedder.embed_query(questions[i % len(questions)]))
    vecs = [embedder.embed_query(q) for q in questions]
    with open_active(Store(corpus.state)) as release:
        by_size = sorted(release.profiles, key=release.count_in_scope)
        for profile in dict.fromkeys([by_size[0], by_size[-1]]):
            size = f"{profile}, {release.count_in_scope(profile):,} in scope"
            out[f"vector search, k=20 ({size})"] = p50(lambda i: release.search_vector(vecs[i % len(vecs)], profile, 20))
            out[f"BM25 search, k=20 ({size})"] = p50(lambda i: release.search_bm25(questions[i % len(questions)], profile, 20))
        ids = list(dict.fromkeys(h.chunk_id for h in release.search_bm25(questions[0], by_size[-1], 20)))
        ids += [h.chunk_id for h in release.search_vector(vecs[0], by_size[-1], 20) if h.chunk_id not in ids]
        out[f"fetch {len(ids)} chunks"] = p50(lambda i: release.get_chunks(ids))
        if hasattr(release, "search_vector_any"):  # routing a question that names no profile
            every = list(release.profiles)
            union = f"union of all {len(every)} profiles"
            out[f"routing: vector search over the {union}, k=20"] = p50(
                lambda i: release.search_vector_any(vecs[i % len(vecs)], every, 20), repeat=5
            )
            out[f"routing: BM25 search over the {union}, k=20"] = p50(
                lambda i: release.search_bm25_any(questions[i % len(questions)], every, 20), repeat=5
            )
        collection = vectors.get_collection(release.store.client, release.manifest.operational.collection)
        out["Chroma query without a scope filter, k=20"] = p50(
            lambda i: collection.query(query_embeddings=[vecs[i % len(vecs)]], n_results=20, include=["distances"])
        )
    return out


# -- CLI ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Checkout:
    """Which `valid` a child process imports: this checkout's, or a baseline revision's sidecar."""

    name: str
    sidecar: Path

    def env(self) -> dict:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(self.sidecar), env.get("PYTHONPATH")]))
        return env


def this_checkout() -> Checkout:
    import valid  # PYTHONPATH may point at another checkout: children import the same one

    return Checkout("this checkout", Path(valid.__file__).resolve().parents[1])


def baseline_checkout(revision: str, work: Path) -> Checkout:
    """The sidecar of `revision` (git archive), for a before/after of the CLI in the same run."""
    target = work / "baseline"
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "sidecar"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    label = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", revision], capture_output=True, text=True, check=True)
    return Checkout(f"baseline {label.stdout.strip()}", target / "sidecar")


def timed(argv: list[str], checkout: Checkout) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=checkout.env())
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} ... failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return wall * 1000


def cli_runs(corpus: Corpus, runs: int, profiles, checkouts: list[Checkout]) -> dict[tuple[str, str], list[float]]:
    """Wall time of `valid ask` in a child process, `runs` questions of each kind, checkouts interleaved."""
    picked: dict[str, list[str]] = {"scoped": [], "unscoped": []}
    for question in corpus.questions:
        kind = kind_of(question, profiles)
        if kind in picked and len(picked[kind]) < runs:
            picked[kind].append(question)
    out: dict[tuple[str, str], list[float]] = {}
    for kind, questions in picked.items():
        for question in questions:
            for checkout in checkouts:
                argv = [sys.executable, "-m", "valid", "ask", question, "--state", str(corpus.state)]
                out.setdefault((checkout.name, kind), []).append(timed(argv, checkout))
    return out


def startup(runs: int, checkouts: list[Checkout]) -> dict[str, float]:
    """Interpreter start alone, and `valid ask --help` (interpreter, click and the ask command's imports)."""
    out = {"python": statistics.median(timed([sys.executable, "-c", "pass"], checkouts[0]) for _ in range(runs))}
    walls: dict[str, list[float]] = {}
    for _ in range(runs):
        for checkout in checkouts:
            walls.setdefault(checkout.name, []).append(timed([sys.executable, "-m", "valid", "ask", "--help"], checkout))
    out.update({name: statistics.median(w) for name, w in walls.items()})
    return out


def import_profile(corpus: Corpus, question: str, checkout: Checkout) -> tuple[float, list[tuple[float, str]]]:
    """`python3 -X importtime -m valid ask QUESTION`: total import ms and the largest top-level imports."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "valid", "ask", question, "--state", str(corpus.state), "--no-log"],
        capture_output=True, text=True, env=checkout.env(),
    )
    top: list[tuple[float, str]] = []
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", line)
        if match:  # no indentation: a top-level import (its cumulative time includes its children)
            top.append((int(match.group(1)) / 1000, match.group(2)))
    return sum(ms for ms, _ in top), sorted(top, reverse=True)[:6]


OPEN_LAPS = """
import json, sys, time
laps, t = {}, time.perf_counter()
def lap(name):
    global t
    now = time.perf_counter(); laps[name] = (now - t) * 1000; t = now
import valid.cli, valid.commands.answer, valid.audit.issues, valid.questionlog.sqlite
from valid.answer.wiring import embedder_for, owned_table
import chromadb
from valid.index import Store, open_active
lap("imports")
release = open_active(Store(sys.argv[1]))
lap("open the release")
embedder = embedder_for(release); embedder.embed_query("warm up")
lap("embedding model: load and first query")
owned_table(release)
lap("owned-value table")
release.derived.to_vocabulary()
lap("vocabulary")
print(json.dumps(laps))
"""


def open_cost(corpus: Corpus, checkout: Checkout) -> dict[str, float]:
    """What a fresh process spends before its first question: imports, release, model, owned table, vocabulary."""
    done = subprocess.run([sys.executable, "-c", OPEN_LAPS, str(corpus.state)], capture_output=True, text=True, env=checkout.env())
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_and_second(corpus: Corpus, runs: int, profiles, sides: list[tuple[Checkout, Path]]) -> dict[str, tuple[list, list]]:
    """`valid ask` wall ms in a child process per (checkout, state): the first call after `valid index`
    (no verification stamp yet: the release's content is checked in full) and the second (opened by
    its stamp), `runs` rounds of a scoped then an unscoped question, the checkouts interleaved."""
    scoped = [q for q in corpus.questions if kind_of(q, profiles) == "scoped"]
    unscoped = [q for q in corpus.questions if kind_of(q, profiles) == "unscoped"] or scoped
    out: dict[str, tuple[list, list]] = {checkout.name: ([], []) for checkout, _ in sides}
    for i in range(runs):
        for _, state in sides:
            for stamp in state.glob("releases/*/checked.json"):
                stamp.unlink()
        for position, question in enumerate((scoped[i % len(scoped)], unscoped[i % len(unscoped)])):
            for checkout, state in sides:
                argv = [sys.executable, "-m", "valid", "ask", question, "--state", str(state)]
                out[checkout.name][position].append(timed(argv, checkout))
    return out


def baseline_state(corpus: Corpus, checkout: Checkout) -> Path:
    """The corpus's export indexed by the baseline's own `valid index` (its release format), reusing
    the embedding cache of this checkout's state."""
    state = corpus.state.parent / f"state-{checkout.name.replace(' ', '-')}"
    state.mkdir(parents=True, exist_ok=True)
    cache = corpus.state / "embeddings.sqlite"
    if cache.is_file() and not (state / "embeddings.sqlite").exists():
        shutil.copy(cache, state / "embeddings.sqlite")
    print(f"indexing {corpus.name} with {checkout.name} ...", file=sys.stderr)
    timed([sys.executable, "-m", "valid", "index", str(corpus.state.parent / "chunks.jsonl"), "--state", str(state)], checkout)
    return state


def through_server(corpus: Corpus, runs: int, profiles) -> tuple[float, list[float], list[float]]:
    """`valid serve` on the corpus: ms until it answers /healthz; then `valid ask --server URL` wall
    ms, `runs` rounds of a first (scoped) and a second (unscoped) question."""
    import urllib.request

    checkout = this_checkout()
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "valid", "serve", "--state", str(corpus.state), "--port", "0", "--no-log"],
        env=checkout.env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        url = re.search(r"http://\S+/", server.stdout.readline()).group(0)
        while True:
            try:
                with urllib.request.urlopen(url + "healthz", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.05)
        ready = (time.perf_counter() - started) * 1000
        scoped = [q for q in corpus.questions if kind_of(q, profiles) == "scoped"]
        unscoped = [q for q in corpus.questions if kind_of(q, profiles) == "unscoped"] or scoped
        first, second = [], []
        for i in range(runs):
            for question, out in ((scoped[i % len(scoped)], first), (unscoped[i % len(unscoped)], second)):
                out.append(timed([sys.executable, "-m", "valid", "ask", question, "--server", url], checkout))
    finally:
        server.terminate()
        server.wait(30)
    return ready, first, second


def cli_only(args, corpora: list[Corpus]) -> list[str]:
    """The --cli report: first and second `valid ask` per corpus, and what a fresh process spends."""
    load_start = os.getloadavg()[0]
    rows = []
    here = this_checkout()
    baseline = baseline_checkout(args.cli_baseline, Path(tempfile.mkdtemp(prefix="valid-bench-ask-"))) if args.cli_baseline else None
    for corpus in corpora:
        profiles = profiles_of(corpus.state)
        sides = [(here, corpus.state)] + ([(baseline, baseline_state(corpus, baseline))] if baseline else [])
        print(f"timing the CLI on {corpus.name} ...", file=sys.stderr)
        walls = first_and_second(corpus, args.cli_runs, profiles, sides)
        laps = open_cost(corpus, here)
        ready, server_first, server_second = through_server(corpus, args.cli_runs, profiles)
        first, second = walls[here.name]
        rows.append(
            f"| {corpus.name} | {here.name} | {corpus.profiles} | {corpus.chunks:,} | {_cell(first)} | {_cell(second)} | "
            + " + ".join(f"{name} {ms:.0f}" for name, ms in laps.items()) + f" | {ready:.0f} | {_cell(server_first)} | "
            f"{_cell(server_second)} |"
        )
        if baseline:
            first, second = walls[baseline.name]
            rows.append(f"| {corpus.name} | {baseline.name} | {corpus.profiles} | {corpus.chunks:,} | {_cell(first)} | "
                        f"{_cell(second)} | – | – | – | – |")
    return [
        f"Command: `python3 bench/ask.py --cli --corpus {args.corpus} --cli-runs {args.cli_runs}"
        + (f" --cli-baseline {args.cli_baseline}" if args.cli_baseline else "")
        + (f" --state STATE --trapset {_shown(args.trapset)} --name '{args.name}'" if args.corpus == "state" else "")
        + "`; offline embedder and "
        f"extractive answerer, embedded Chroma; {os.cpu_count()} CPUs, load average {load_start:.1f} at the start and "
        f"{os.getloadavg()[0]:.1f} at the end (other work on the machine), Python {platform.python_version()}.",
        "",
        f"`python3 -m valid ask QUESTION --state STATE` in a child process, {args.cli_runs} rounds"
        + (f", alternating with the sidecar of {args.cli_baseline} on the same export indexed by its own `valid index`"
           if args.cli_baseline else "") + ": the first call after "
        "`valid index` (the release's content checked in full, then stamped) with a scoped question, then a second "
        "call with an unscoped one (opened by its stamp). Wall ms, median (max); then where a fresh process spends "
        "its time before the first question (ms); then `valid serve` on the same state: ms from its start until "
        "/healthz answers 200, and `valid ask QUESTION --server URL`, first and second call, wall ms, median (max).",
        "",
        "| corpus | code | profiles | chunks | first call | second call | before the first question | `valid serve` ready | "
        "`--server`, first | `--server`, second |",
        "|---|---|---:|---:|---:|---:|---|---:|---:|---:|",
        *rows,
    ]


def _shown(path: Path) -> str:
    """A path as the report may show it: relative to the checkout, else its name only."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return path.name


def _cell(walls: list[float]) -> str:
    return f"{statistics.median(walls):.0f} (max {max(walls):.0f})"


# -- report -------------------------------------------------------------------------------------
def fmt(values: list[float]) -> str:
    return f"{percentile(values, 50):.1f} / {percentile(values, 95):.1f}" if values else "–"


def report_in_process(corpora: list[Corpus], runs: list[Run], args) -> list[str]:
    lines = [
        "| corpus | profiles | chunks | kind | questions | outcomes | p50 / p95 ms | retrieve p50 ms | target p50 |",
        "|---|---:|---:|---|---:|---|---|---:|---|",
    ]
    verdicts = []
    for corpus, run in zip(corpora, runs):
        for kind in ("scoped", "unscoped", "unknown", "comparison", "versions"):
            target = TARGET_SAMPLE_P50_MS if corpus.name.startswith("sample") else TARGET_SCALE_P50_MS
            if kind == "comparison":
                target = TARGET_COMPARE_P50_MS
            if kind == "versions":
                target = TARGET_VERSIONS_P50_MS
            wall = run.wall[kind]
            if not wall:
                continue
            outcomes = ", ".join(f"{k} {v}" for k, v in sorted(run.outcomes[kind].items()))
            retrieve = percentile(run.stages[kind]["retrieve"], 50)
            p50 = percentile(wall, 50)
            met = "met" if p50 <= target else "**not met**"
            target_cell = f"≤ {target:.0f} ms: {met}" if kind != "unknown" else "–"
            lines.append(
                f"| {corpus.name} | {corpus.profiles} | {corpus.chunks:,} | {kind} | {len(wall)} | {outcomes} | "
                f"{fmt(wall)} | {retrieve:.1f} | {target_cell} |"
            )
            if kind != "unknown":
                verdicts.append(f"{corpus.name}, {kind}: p50 {p50:.1f} ms ({met})")
        everything = [w for v in run.wall.values() for w in v]
        verdicts.append(f"{corpus.name}, all: p50 {percentile(everything, 50):.1f} ms")
    lines += ["", "; ".join(verdicts) + "."]
    return lines


def report_stages(corpus: Corpus, run: Run) -> list[str]:
    lines = [f"Stages on {corpus.name} (p50 / p95 ms):", "", "| stage | " + " | ".join(run.stages) + " |", "|---|" + "---|" * len(run.stages)]
    for stage in STAGES:
        lines.append(f"| {stage} | " + " | ".join(fmt(run.stages[k][stage]) for k in run.stages) + " |")
    return lines


def write_section(key: str, report: str) -> None:
    path = ROOT / "docs" / "benchmarks.md"
    text = path.read_text(encoding="utf-8")
    start, end = SECTIONS[key]
    if start not in text or end not in text:
        raise SystemExit(f"{path}: markers {start} … {end} not found")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{start}\n{report}\n{end}{tail}", encoding="utf-8")


def command_line(args) -> str:
    parts = ["python3 bench/ask.py"]
    if args.corpus != "sample":
        parts.append(f"--corpus {args.corpus}")
    if args.corpus != "sample":
        parts.append(f"--profiles {args.profiles} --chunks {args.chunks} --seed {args.seed}")
    if args.versions:
        parts.append("--versions")
    parts.append(f"--questions {args.questions} --warmup {args.warmup}")
    if args.selector:
        parts.append(f"--selector {args.selector}")
    if args.corpus != "sample":
        parts.append(f"--cli-runs {args.cli_runs}")
        if args.cli_baseline:
            parts.append(f"--cli-baseline {args.cli_baseline}")
    return " ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Benchmark `valid ask` (offline answerer) in process and from the CLI.",
        epilog="--corpus sample writes the 'Ask' section of docs/benchmarks.md; generated or both write 'Ask at scale'.",
    )
    parser.add_argument("--corpus", choices=["sample", "generated", "both", "state"], default="sample",
                        help="sample: the bundled Cloud TPU sample; generated: the versioned CLI reference of "
                        "bench/product_corpus.py; both: side by side in one run; state: a doc set indexed beforehand "
                        "(--state, --trapset; only with --cli) (default: sample)")
    parser.add_argument("--profiles", type=int, default=20, help="versions (profiles) of the generated doc set (default 20)")
    parser.add_argument("--chunks", type=int, default=10_000, help="minimum chunks of the generated doc set (default 10000)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the generated doc set and its questions (default 7)")
    parser.add_argument("--questions", type=int, default=200, help="measured asks per corpus (default 200)")
    parser.add_argument("--warmup", type=int, default=20, help="unmeasured asks first (default 20)")
    parser.add_argument("--cli-runs", type=int, default=5,
                        help="`valid ask` child processes per question kind and corpus, 0 to skip (default 5; "
                        "only with generated or both)")
    parser.add_argument("--cli-baseline", metavar="REV",
                        help="also time the CLI with the sidecar of this git revision (e.g. main), alternating runs, for a "
                        "before/after")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "valid-bench" / "ask",
                        help="where the generated doc set's export and index are kept between runs "
                        "(default ~/.cache/valid-bench/ask)")
    parser.add_argument("--selector", choices=["fitted", "rules"], default=None,
                        help="the offline answerer's selector (default: the answerer's own; docs/answer.md)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    parser.add_argument("--versions", action="store_true",
                        help="ask only questions about the versions themselves (list, latest, since, until, what changed, "
                        "the same in every version) on the generated doc set; writes the 'Versions questions' section")
    parser.add_argument("--state", type=Path, metavar="DIR",
                        help="with --corpus state: a doc set already indexed here (e.g. a real guide)")
    parser.add_argument("--trapset", type=Path, metavar="FILE", help="with --corpus state: its questions")
    parser.add_argument("--name", default="doc set", help="with --corpus state: its name in the report")
    parser.add_argument("--cli", action="store_true",
                        help="only the CLI: first and second `valid ask` per corpus, --cli-runs rounds; writes 'Ask from the CLI'")
    args = parser.parse_args()
    if args.versions and args.corpus != "generated":
        parser.error("--versions asks the generated doc set: add --corpus generated")
    if args.corpus == "state" and not (args.cli and args.state and args.trapset):
        parser.error("--corpus state needs --cli, --state DIR and --trapset FILE")

    from valid.embed import make_embedder

    load_start = os.getloadavg()[0]
    embedder = make_embedder("offline")
    temp = Path(tempfile.mkdtemp(prefix="valid-bench-ask-"))
    corpora = []
    if args.corpus in ("sample", "both"):
        corpora.append(sample_corpus(temp, embedder))
    if args.corpus in ("generated", "both"):
        corpora.append(generated_corpus(args.work, embedder, args.profiles, args.chunks, args.seed, args.versions))
    if args.corpus == "state":
        corpora.append(docset_corpus(args.state, args.trapset, args.name))
    if args.cli:
        report = "\n".join(cli_only(args, corpora))
        print(report)
        if not args.no_write:
            write_section("cli-docset" if args.corpus == "state" else "cli", report)
        return
    runs = []
    for corpus in corpora:
        print(f"asking {args.questions} questions on {corpus.name} ...", file=sys.stderr)
        runs.append(run_in_process(corpus, embedder, args.questions, args.warmup, args.selector))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    lines = [
        f"Command: `{command_line(args)}`; offline embedder (all-MiniLM-L6-v2) and extractive answerer, embedded "
        f"Chroma; {os.cpu_count()} CPUs (load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the "
        f"end of the run), Python {platform.python_version()}.",
        "",
    ]
    for corpus, run in zip(corpora, runs):
        lines.append(
            f"- {corpus.name}: {corpus.note}; {corpus.chunks:,} chunks, {corpus.profiles} profiles; "
            f"{len(set(corpus.questions))} distinct questions, round-robin, {args.questions} measured after "
            f"{args.warmup} warm-up asks; engine opened in {run.open_ms:.0f} ms; RSS {run.rss_mb:.0f} MB after the run."
        )
        if corpus.name.startswith("generated"):
            lines.append(
                f"  Index: {corpus.embedded:,} chunks embedded in this run ({corpus.build_s:.1f} s; 0 means the "
                "release in --work was reused, embedded for real by an earlier run)."
            )
    lines += ["", "In process, end to end (incl. the question-log write):", ""]
    lines += report_in_process(corpora, runs, args)
    for corpus, run in zip(corpora, runs):
        lines += [""] + report_stages(corpus, run)
    lines += ["", f"Peak RSS of the bench process: {peak:.0f} MB. `retrieve` includes the query embedding and, for an "
              "unscoped question, every search it takes to route it (per profile, or one over their union)."]
    for corpus in corpora:
        if corpus.profiles > 3 and not args.versions:
            costs = channel_costs(corpus, embedder)
            lines += ["", f"Where retrieval goes on {corpus.name} (p50 ms per call; 20 calls each, 5 for routing):", ""]
            lines += ["| call | p50 ms |", "|---|---:|"] + [f"| {name} | {ms:.1f} |" for name, ms in costs.items()]

    if args.cli_runs and args.corpus != "sample" and not args.versions:
        print("timing the CLI ...", file=sys.stderr)
        checkouts = [this_checkout()]
        if args.cli_baseline:
            checkouts.append(baseline_checkout(args.cli_baseline, temp))
        start = startup(args.cli_runs, checkouts)
        lines += [
            "",
            f"CLI: `python3 -m valid ask QUESTION --state STATE` as a child process, {args.cli_runs} questions of each "
            "kind per corpus (wall ms: median, and max)"
            + (f", alternating between this checkout and the sidecar of {args.cli_baseline}" if args.cli_baseline else "")
            + "; what a fresh process spends before its first question (ms: imports, opening the release, loading "
            "the embedding model with a first query, the owned-value table, the command vocabulary); the in-process ask p50 above for comparison.",
            "",
            "| corpus | code | `valid ask`, scoped | `valid ask`, unscoped | imports (`-X importtime`) | "
            "before the first question | in-process p50, scoped / unscoped |",
            "|---|---|---:|---:|---:|---|---:|",
        ]
        details = []
        for corpus, run in zip(corpora, runs):
            profiles = profiles_of(corpus.state)
            walls = cli_runs(corpus, args.cli_runs, profiles, checkouts)
            first = next(q for q in corpus.questions if kind_of(q, profiles) == "scoped")
            for checkout in checkouts:
                imports, top = import_profile(corpus, first, checkout)
                laps = open_cost(corpus, checkout)
                cells = [walls.get((checkout.name, kind), []) for kind in ("scoped", "unscoped")]
                cells = [f"{statistics.median(w):.0f} (max {max(w):.0f})" if w else "–" for w in cells]
                lines.append(
                    f"| {corpus.name} | {checkout.name} | {cells[0]} | {cells[1]} | {imports:.0f} | "
                    + " + ".join(f"{ms:.0f}" for ms in laps.values()) + f" = {sum(laps.values()):.0f}"
                    + f" | {percentile(run.wall['scoped'], 50):.0f} / {percentile(run.wall['unscoped'], 50):.0f} |"
                )
                details.append(
                    f"{corpus.name}, {checkout.name}: largest top-level imports of one ask (cumulative ms): "
                    + ", ".join(f"{name} {ms:.0f}" for ms, name in top) + "."
                )
        lines += [
            "",
            f"Interpreter alone (`python3 -c pass`): {start['python']:.0f} ms. `python3 -m valid ask --help` (interpreter, "
            "click and the ask command's imports): "
            + ", ".join(f"{c.name} {start[c.name]:.0f} ms" for c in checkouts) + f" (medians of {args.cli_runs}).",
            "",
        ] + [f"- {line}" for line in details]
    report = "\n".join(lines)
    print(report)
    if not args.no_write:
        write_section("versions" if args.versions else "ask" if args.corpus == "sample" else "scale", report)


if __name__ == "__main__":
    main()
