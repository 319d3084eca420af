"""How `valid ask`'s time grows with the question's length (in process, the offline answerer, the sample).

    python3 bench/question_length.py                              # this checkout
    python3 bench/question_length.py --baseline 071df46           # and a revision, side by side

The bundled sample is exported (bench/ask.py's sample_corpus). For each checkout, one child process
indexes it into a state of its own (a release format may differ between revisions), opens the engine (no question log), asks one short question to
load the model, then asks questions of each --lengths size, --repeat times, interleaved by length:
the median wall time per length. Questions are built from the sample's vocabulary (names, flags,
a command line, code, several questions in one; tests/test_question_reading_scale.py writes them
the same way). An ask still running after --deadline seconds is stopped; that length and the longer
ones are reported as "> deadline" for that checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))

CHILD = r'''
import json, signal, sys, time
from valid.answer.wiring import make_generator, open_engine


def _late(signum, frame):
    raise TimeoutError


signal.signal(signal.SIGALRM, _late)

from valid.embed import make_embedder
from valid.index import Store, build_release

export, state, lengths, repeat, deadline = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
build_release(export, make_embedder("offline"), Store(state))  # each checkout reads a release it built itself
engine = open_engine(state, generator=make_generator("offline"), log=False, gap_issues=False)
engine.ask("How many chips per host on v5p?", None)
times = {n: [] for n in lengths}
alive = list(lengths)
for _ in range(repeat):
    for n in list(alive):
        question = long_question(n)
        start = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, deadline)  # an ask past the deadline is stopped, not waited for
        try:
            engine.ask(question, None)
            signal.setitimer(signal.ITIMER_REAL, 0)
            times[n].append(time.perf_counter() - start)
        except TimeoutError:
            alive = [m for m in alive if m < n]  # this length and every longer one are asked no more
            break
        print(n, round(times[n][-1], 2), file=sys.stderr, flush=True)
print(json.dumps(times))
'''


def measure(sidecar: Path, export: Path, state: Path, lengths: list[int], repeat: int, deadline: float) -> dict[int, list[float]]:
    from test_question_reading_scale import LONG_QUESTION

    env = {**os.environ, "PYTHONPATH": str(sidecar)}
    done = subprocess.run(
        [sys.executable, "-c", LONG_QUESTION + CHILD, str(export), str(state), json.dumps(lengths), str(repeat), str(deadline)],
        env=env, stdout=subprocess.PIPE, text=True,  # its progress (length, seconds) goes to stderr as it runs
    )
    if done.returncode != 0:
        raise SystemExit(f"child for {sidecar} failed (exit {done.returncode})")
    return {int(k): v for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lengths", default="250,1000,4000,16000,64000,100000", help="question lengths in characters")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--deadline", type=float, default=60.0, help="seconds; longer questions are skipped past it")
    parser.add_argument("--baseline", metavar="REV", help="also measure the sidecar of this git revision")
    args = parser.parse_args()
    lengths = [int(n) for n in args.lengths.split(",")]

    from ask import baseline_checkout, sample_corpus, this_checkout

    from valid.embed import make_embedder

    with tempfile.TemporaryDirectory() as tmp:
        corpus = sample_corpus(Path(tmp), make_embedder("offline"))
        checkouts = [this_checkout()] + ([baseline_checkout(args.baseline, Path(tmp))] if args.baseline else [])
        export = corpus.state.parent / "chunks.jsonl"
        results = {
            c.name: measure(c.sidecar, export, Path(tmp) / f"state-{i}", lengths, args.repeat, args.deadline)
            for i, c in enumerate(checkouts)
        }
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"{corpus.chunks} chunks; median of {args.repeat} per length\n")
    print("| characters | " + " | ".join(results) + " |")
    print("|---|" + "---|" * len(results))
    for n in lengths:
        cells = []
        for times in results.values():
            cells.append(f"{statistics.median(times[n]):.2f} s" if len(times.get(n, [])) == args.repeat else f"> {args.deadline:.0f} s")
        print(f"| {n:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
