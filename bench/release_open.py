"""What verifying a release's content costs when it is opened (every `valid ask`, `valid serve`, activation).

    python3 bench/release_open.py                     # 20 versions, 10,000 chunks, 7 runs
    python3 bench/release_open.py --chunks 2000 --runs 3

The release is the generated Quarry CLI reference (bench/product_corpus.py), indexed for real
(FTS5 + embedded Chroma) with seeded random unit vectors standing in for embeddings: what opening
verifies does not depend on the vectors, and 10,000 chunks need not be embedded. Each run, in one
process, times the whole open (`Release(store, id)`: manifest, FTS5 counts, the content digest of
both stores, the stored-chunk digest, Chroma's metadata and one k-NN probe) and, right after it on
the same file, the stored-chunk digest alone (`fts.stored_digest`): the content check that makes
an edited chunk fail the open. Medians of --runs; the first open (cold caches) is reported apart.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))


def build(work: Path, profiles: int, chunks: int, seed: int) -> tuple[Path, str, int]:
    from index import RandomEmbedder  # bench/index.py: the seeded stand-in embedder
    from product_corpus import generate

    from valid.index import Store, build_release

    export = generate(profiles=profiles, chunks=chunks, seed=seed).write(work / "export.jsonl")
    state = work / "state"
    result = build_release(export, RandomEmbedder(), Store(state))
    return state, result.release_id, len(export.read_text(encoding="utf-8").splitlines()) - 1


def measure(state: Path, release_id: str, runs: int) -> dict:
    from valid.index import Store, fts
    from valid.index.manifest import read_manifest
    from valid.index.release import Release

    store = Store(state)
    profiles = read_manifest(store.release_dir(release_id), release_id).identity.export.profiles

    def timed(fn) -> float:
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1000

    def open_release() -> None:
        Release(store, release_id).close()

    def digest_only() -> None:
        db = fts.connect_readonly(store.release_dir(release_id) / "fts.sqlite")
        try:
            fts.stored_digest(db, profiles)
        finally:
            db.close()

    first = timed(open_release)
    opens, digests = [], []
    for _ in range(runs):
        opens.append(timed(open_release))
        digests.append(timed(digest_only))
    return {"first": first, "open": statistics.median(opens), "digest": statistics.median(digests),
            "opens": opens, "digests": digests}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profiles", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--work", type=Path, default=None, help="keep the export and state here (default: a temporary directory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        state, release_id, chunks = build(work, args.profiles, args.chunks, args.seed)
        print(f"built {chunks:,} chunks, {args.profiles} profiles in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        result = measure(state, release_id, args.runs)
        size = (state / "releases" / release_id / "fts.sqlite").stat().st_size
    share = result["digest"] / result["open"] * 100
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"release: {chunks:,} chunks, {args.profiles} profiles, fts.sqlite {size / 1e6:.1f} MB")
    print(f"first open (cold): {result['first']:.0f} ms")
    print(f"open, median of {args.runs}: {result['open']:.0f} ms (runs: {', '.join(f'{t:.0f}' for t in result['opens'])})")
    print(f"stored-chunk digest alone, median of {args.runs}: {result['digest']:.0f} ms "
          f"(runs: {', '.join(f'{t:.0f}' for t in result['digests'])}); {share:.0f}% of the open")


if __name__ == "__main__":
    main()
