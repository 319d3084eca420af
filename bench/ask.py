"""Benchmark `valid ask` with the offline answerer: p50/p95 per stage over 200 questions, and memory.

    python3 bench/ask.py [--questions 200] [--warmup 20] [--no-write]

Exports the bundled sample (sample_maps/ + schemes/) with `valid export`, indexes it into a
temporary state directory with the offline embedder, then asks the trap-set questions in order,
round-robin, until N have been asked (after a warm-up that is not measured). Every ask runs the
whole path: scope, embedding, both searches per generation, fusion, the offline answerer, the
checks, the decision and the question-log write. If the export is not available, the answer
fixture export (tests/fixtures/answer) is used instead and the report says so.

Writes the results to docs/benchmarks.md between the bench:ask markers (target: end-to-end p50
at most 150 ms after warm-up).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ["scope", "retrieve", "generate", "check", "log", "total"]
TARGET_P50_MS = 150.0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def make_export(directory: Path) -> tuple[Path, str]:
    out = directory / "chunks.jsonl"
    try:
        from valid.export import export

        export(ROOT / "sample_maps" / "cloud-tpu.ditamap", scheme=ROOT / "schemes" / "tpu-generations.ditamap", out=out)
        return out, "the bundled sample (sample_maps/, exported with `valid export`)"
    except Exception as err:  # the export may not be available in this checkout yet
        sys.path.insert(0, str(ROOT / "tests"))
        from fixtures.answer.export import build_export, write_export

        write_export(out, build_export())
        return out, f"the answer fixture export (tests/fixtures/answer; `valid export` failed: {type(err).__name__})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args()

    from valid.answer.engine import open_engine
    from valid.embed import make_embedder
    from valid.evaluate.trapset import load_trapset
    from valid.index import Store, build_release

    work = Path(tempfile.mkdtemp(prefix="valid-bench-ask-"))
    export_path, corpus = make_export(work)
    embedder = make_embedder("offline")
    build_release(export_path, embedder, Store(work / "state"))
    questions = [q.question for q in load_trapset(ROOT / "sidecar" / "valid" / "data" / "trapset-cloud-tpu.jsonl")]

    rss_before = rss_mb()
    engine = open_engine(work / "state", embedder=embedder)
    for i in range(args.warmup):
        engine.ask(questions[i % len(questions)])
    samples: dict[str, list[float]] = {stage: [] for stage in STAGES}
    wall: list[float] = []
    outcomes: dict[str, int] = {}
    for i in range(args.questions):
        question = questions[i % len(questions)]
        started = time.perf_counter()
        result = engine.ask(question)
        wall.append((time.perf_counter() - started) * 1000)
        for stage in STAGES:
            samples[stage].append(result.stages_ms.get(stage, 0.0))
        outcomes[result.answer.outcome] = outcomes.get(result.answer.outcome, 0) + 1
    rss_after = rss_mb()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    engine.close()

    p50 = percentile(wall, 50)
    lines = [
        f"Command: `python3 bench/ask.py --questions {args.questions} --warmup {args.warmup}`; corpus: {corpus}; "
        f"offline embedder and answerer, embedded Chroma; {os.cpu_count()} CPUs (load average "
        f"{os.getloadavg()[0]:.1f} at the end of the run), Python {platform.python_version()}.",
        f"{args.questions} questions (the trap set's {len(questions)}, round-robin) after {args.warmup} warm-up asks; "
        f"outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())) + ".",
        "",
        "| stage | p50 ms | p95 ms |",
        "|---|---|---|",
    ]
    for stage in STAGES:
        lines.append(f"| {stage} | {percentile(samples[stage], 50):.2f} | {percentile(samples[stage], 95):.2f} |")
    lines.append(f"| end to end (incl. log write) | {p50:.2f} | {percentile(wall, 95):.2f} |")
    lines += [
        "",
        f"End-to-end p50 {p50:.1f} ms against a target of at most {TARGET_P50_MS:.0f} ms: "
        f"{'met' if p50 <= TARGET_P50_MS else 'NOT met'}.",
        f"Memory: RSS {rss_before:.0f} MB with the embedder and index loaded, {rss_after:.0f} MB after the run; "
        f"peak RSS {peak:.0f} MB. `retrieve` includes the query embedding and, for a question naming no "
        "generation, one filtered search per generation.",
    ]
    report = "\n".join(lines)
    print(report)
    if not args.no_write:
        path = ROOT / "docs" / "benchmarks.md"
        text = path.read_text(encoding="utf-8")
        start, end = "<!-- bench:ask -->", "<!-- /bench:ask -->"
        if start not in text or end not in text:
            raise SystemExit(f"{path}: markers {start} … {end} not found")
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        path.write_text(f"{head}{start}\n{report}\n{end}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
