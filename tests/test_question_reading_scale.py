"""No step of reading a question is worse than linear in its length (issue 29 item 3).

A question four times as long may take about four times as long to read, never sixteen; and a
100,000-character question is read and answered in bounded time. Each measurement runs in a child
process with a deadline, so a quadratic step fails the test instead of hanging it. The questions
are built from the sample's own vocabulary (names, a command line, flags, code, quotes, several
questions in one), the material every reader of the question looks at.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SIDECAR = Path(__file__).resolve().parents[1] / "sidecar"

# Written into the child: a deterministic long question of exactly n characters.
LONG_QUESTION = r'''
import random

FRAGMENTS = [
    "I'm on Ironwood.", "Which --version do I pass", "when I create the VM", "with gcloud compute tpus tpu-vm create",
    "for example `v2-alpha-tpuv6e`", "on v5p and on Trillium", 'such as "queued resources"', "e.g. partial-resize",
    "and how many chips per host?", "What is the default --accelerator-type", "for a single-host TPU7x slice?",
    "the runtime version", "run gcloud compute tpus queued-resources list", "TPU v4 and v5e", "if I don't specify one,",
]


def long_question(n: int) -> str:
    rng = random.Random(n)
    words = []
    size = 0
    while size < n:
        words.append(rng.choice(FRAGMENTS))
        size += len(words[-1]) + 1
    return " ".join(words)[:n]
'''

READERS = r'''
import gc, json, sys, time
from valid.answer.extract import read_question
from valid.answer.prompt import GenerationRequest
from valid.answer.question import anchors, asks, content_words
from valid.answer.reading import read as read_once
from valid.answer.retrieve import evidence_chunk
from valid.answer.scope import resolve_scope, search_text
from valid.answer.vocabulary import read_vocabulary
from valid.index import Store, open_release

release = open_release(Store(sys.argv[1]), sys.argv[2])
chunks = release.get_chunks(release.all_chunk_ids())
profiles = release.header.profiles
vocabulary = read_vocabulary(chunks)
evidence = [evidence_chunk(c) for c in chunks[:20]]


def scope(q):
    resolution = resolve_scope(q, profiles)
    return [search_text(q, resolution, p.name) for p in profiles], resolution


def reading(q):
    resolution = scope(q)[1]
    request = GenerationRequest(question=q, scope=[profiles[0].name], labels=list(profiles[0].labels),
                                matched=resolution.matched, chunks=evidence, profiles=[p.name for p in profiles])
    return read_question(request)


READ = {
    "scope": scope,
    "anchors": lambda q: anchors(q, [p.name for p in profiles], vocabulary.commands),
    "asks": lambda q: [content_words(part) for part in asks(q)],
    "read_question": reading,
    # The engine's one reading of the question (every cue of valid.answer.cues runs over it).
    "reading": lambda q: read_once(q, [n for p in profiles for n in (p.name, *p.labels)], vocabulary.commands),
}
read = READ[sys.argv[3]]
n = int(sys.argv[4])
times = {}
for size in (n, 4 * n):
    question = long_question(size)
    best = float("inf")
    for _ in range(5):  # the best of five, without the collector's pauses: the reader's own time
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        read(question)
        best = min(best, time.perf_counter() - start)
        gc.enable()
    times[size] = best
print(json.dumps(times))
'''

ASK = r'''
import json, sys, time
from valid.answer.wiring import make_generator, open_engine

engine = open_engine(sys.argv[1], generator=make_generator("offline"), log=False, gap_issues=False)
engine.ask("How many chips per host on v5p?", None)  # model and tables loaded before timing
times, outcomes = {}, {}
for size in (25_000, 100_000):
    question = long_question(size)
    start = time.perf_counter()
    outcomes[size] = engine.ask(question, None).answer.outcome
    times[size] = time.perf_counter() - start
engine.close()
print(json.dumps({"times": times, "outcomes": outcomes}))
'''


def run_child(script: str, args: list[str], deadline: float) -> dict:
    env = {**os.environ, "PYTHONPATH": str(SIDECAR)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", LONG_QUESTION + script, *args], env=env, capture_output=True, text=True, timeout=deadline
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"not done within {deadline:.0f} s: a step is worse than linear in the question's length")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("reader", ["scope", "anchors", "asks", "read_question", "reading"])
def test_every_reader_of_the_question_takes_at_most_linear_time_in_its_length(sample_build, reader):
    times = {int(k): v for k, v in run_child(READERS, [str(sample_build.state), sample_build.release_id, reader, "20000"], 240).items()}
    short, long = times[20_000], times[80_000]
    # Linear is about 4; quadratic about 16. Eight leaves room for a loaded machine's noise.
    assert long <= 8 * max(short, 0.005), f"{reader}: {short * 1000:.1f} ms at 20,000 characters, {long * 1000:.1f} ms at 80,000"


def test_a_100000_character_question_is_read_and_answered_in_bounded_time(sample_build):
    result = run_child(ASK, [str(sample_build.state)], 120)
    times = {int(k): v for k, v in result["times"].items()}
    assert set(result["outcomes"].values()) <= {"answer", "ask", "refuse", "compare"}
    assert times[100_000] < 60, f"{times[100_000]:.1f} s for a 100,000-character question"
    assert times[100_000] <= 8 * times[25_000], f"25,000 characters: {times[25_000]:.1f} s, 100,000: {times[100_000]:.1f} s"
