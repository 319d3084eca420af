"""Benchmark of `valid index`: full build, one-topic rebuild, memory, filtered query latency.

    python3 bench/index.py                 # writes docs/benchmarks.md between <!-- bench:index --> markers
    python3 bench/index.py --topics 500    # a quicker, smaller run (not written to the docs)

1. A generated export of --topics topics (default 2,000), written with valid.contracts models by the
   test generator (tests/fixtures/index/exports.py), indexed with the offline embedder from an empty
   state: chunks/s, the embedding share of the time, peak memory.
2. The same state after editing every chunk of one topic: the one-topic rebuild, and its ratio to
   the full build.
3. The same two steps on the bundled sample (sample_maps/ through `valid export`), when it exports.
4. Filtered query latency in process on a release of 10,000 chunks: vector search per profile with
   k=10 (random unit vectors stand in for the 384-d embeddings, so the 10,000 chunks need not be
   embedded), BM25 search, and the offline embedder's query embedding.

5. With --variants: variants that differ only in their profiles' names sharing one vector. A generated
   export whose chunks name the product through a key (one variant per profile, --named of the chunks
   kept by several profiles) is built from an empty state with sharing and without it, alternating,
   --repeat times each: texts embedded and median wall time, side by side in one run. Written between
   <!-- bench:variants --> markers.

Each build runs in its own child process, so peak memory (max RSS) is per build. Beside the full
build, in the same run, a child embeds the export's distinct embedding inputs with the same
embedder and batch size and nothing else: pure embedding throughput, the floor of a build. The
report gives the full build's chunks/s against it (target: at least 0.8).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

MARK_START, MARK_END = "<!-- bench:index -->", "<!-- /bench:index -->"


# -- child: one build -------------------------------------------------------------------------
def child_build(state: str, export: str, embedder_kind: str, sharing: str = "share") -> None:
    started = time.perf_counter()
    from valid.index import Store, build_release

    if sharing == "own":  # the baseline: every variant embedded as its own text, as before sharing
        import valid.index.build as build_module
        from valid.index.manifest import embedding_input

        build_module.shared_inputs = lambda chunks, header: [embedding_input(c.title, c.text) for c in chunks]

    if embedder_kind == "random":
        embedder = RandomEmbedder()
    else:
        from valid.embed.offline import OfflineMiniLM

        embedder = OfflineMiniLM()
    result = build_release(export, embedder, Store(state), with_unit_vectors=sharing != "no-units")
    wall = time.perf_counter() - started
    report = result.report
    print(
        json.dumps(
            {
                "wall": wall,
                "timings": report.timings,
                "chunks": report.chunks,
                "embedded": report.embedding.embedded,
                "sharing": report.embedding.variants_sharing,
                "reused": report.embedding.reused,
                "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "release": result.release_id,
                "release_bytes": sum(f.stat().st_size for f in Path(result.path).rglob("*") if f.is_file()),
                "unit_bytes": sum(f.stat().st_size for f in Path(result.path).glob("units.*")),
            }
        )
    )


def child_embed(export: str) -> None:
    """Pure embedding: the export's distinct inputs, embedded the way the build embeds them."""
    from valid.embed.offline import OfflineMiniLM
    from valid.export.file import read_export
    from valid.index.build import _input_key
    from valid.index.manifest import embedding_input

    chunks = read_export(export).chunks
    inputs: dict[str, str] = {}
    for chunk in chunks:
        inputs.setdefault(_input_key(chunk), embedding_input(chunk.title, chunk.text))
    embedder = OfflineMiniLM()
    embedder.embed_documents(["warm up"])  # model load is not embedding
    texts = list(inputs.values())
    started = time.perf_counter()
    for start in range(0, len(texts), 64):  # build_release's default embed_batch
        embedder.embed_documents(texts[start : start + 64])
    seconds = time.perf_counter() - started
    print(json.dumps({"texts": len(texts), "chunks": len(chunks), "seconds": seconds}))


def run_embed(export: Path) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "_embed", str(export)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "tests"), str(REPO / "sidecar")])},
    )
    if done.returncode != 0:
        raise SystemExit(f"embedding failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


class RandomEmbedder:
    """Seeded random unit vectors per text: stands in for real embeddings in the latency test."""

    id = "random-unit@1"
    dimension = 384

    def _vector(self, text: str) -> list[float]:
        import numpy as np

        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(self.dimension)
        return (v / np.linalg.norm(v)).tolist()

    def embed_documents(self, texts):
        return [self._vector(t) for t in texts]

    def embed_query(self, text):
        return self._vector(text)


def run_build(state: Path, export: Path, embedder: str = "offline", sharing: str = "share") -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "_build", str(state), str(export), embedder, sharing],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "tests"), str(REPO / "sidecar")])},
    )
    if done.returncode != 0:
        raise SystemExit(f"build failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- exports ----------------------------------------------------------------------------------
def generated_export(path: Path, topics: int, seed: int = 1, **options) -> Path:
    from fixtures.index.exports import generated_topics, write_export

    return write_export(path, generated_topics(topics, seed=seed, **options))


def edit_one_topic(source: Path, target: Path) -> tuple[Path, str, int]:
    """Append a sentence to every chunk of one topic (the middle chunk's), fixing digests."""
    lines = source.read_text(encoding="utf-8").splitlines()
    chunks = [json.loads(line) for line in lines[1:]]
    topic = chunks[len(chunks) // 2]["topic_id"], chunks[len(chunks) // 2]["source"]["path"]
    edited = 0
    out = [lines[0]]
    for chunk in chunks:
        if (chunk["topic_id"], chunk["source"]["path"]) == topic:
            chunk["text"] += " This paragraph was revised."
            chunk["digest"] = hashlib.sha256(chunk["text"].encode("utf-8")).hexdigest()
            edited += 1
        out.append(json.dumps(chunk, ensure_ascii=False))
    target.write_text("\n".join(out) + "\n", encoding="utf-8")
    return target, topic[1], edited


def sample_export(path: Path) -> tuple[Path | None, str]:
    scheme = REPO / "schemes" / "tpu-generations.ditamap"
    done = subprocess.run(
        [sys.executable, "-c", "from valid.cli import main; main()", "export", str(REPO / "sample_maps" / "cloud-tpu.ditamap"), "--scheme", str(scheme), "-o", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    if done.returncode != 0 or not path.exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, re.sub(r"\(?/\S+\)?", "", last).strip()  # no machine paths in the docs
    return path, ""


# -- measurements ---------------------------------------------------------------------------
def full_and_incremental(tmp: Path, export: Path, name: str) -> dict:
    state = tmp / f"state-{name}"
    pure = run_embed(export)
    full = run_build(state, export)
    edited, topic, n_edited = edit_one_topic(export, tmp / f"{name}-edited.jsonl")
    incremental = run_build(state, edited)
    return {"full": full, "incremental": incremental, "topic": topic, "edited_chunks": n_edited, "pure": pure}


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def _p50_p95(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def query_latency(tmp: Path, chunks_target: int = 10_000, queries: int = 200, older_releases: int = 3) -> dict:
    """Filtered search latency of one release, in a store alone and in a store shared with older releases.

    Both stores hold the same release; queries alternate between them, so machine load hits both alike.
    """
    from fixtures.index.exports import PROFILES

    from valid.embed.offline import OfflineMiniLM
    from valid.index import Store, open_release

    def export_for(seed: int) -> Path:
        return generated_export(tmp / f"latency-{seed}.jsonl", topics=chunks_target // 4, seed=seed, chunks_per_topic=(4, 4), words=(20, 40))

    export = export_for(3)
    alone_state, crowded_state = tmp / "state-alone", tmp / "state-crowded"
    build = run_build(alone_state, export, "random")
    for seed in range(older_releases):
        run_build(crowded_state, export_for(100 + seed), "random")
    assert run_build(crowded_state, export, "random")["release"] == build["release"]

    rng = random.Random(5)
    words = re.findall(r"[a-z]+", export.read_text()[:200_000])
    texts = [" ".join(rng.choice(words) for _ in range(6)) for _ in range(queries)]
    embedder = RandomEmbedder()
    vectors = [embedder.embed_query(t) for t in texts]
    out: dict = {"chunks": build["chunks"], "releases_in_crowded_store": 1 + older_releases, "vector": {}, "crowded": {}, "bm25": {}}
    with open_release(Store(alone_state), build["release"]) as alone, open_release(Store(crowded_state), build["release"]) as crowded:
        for profile in PROFILES:
            out["in_scope_" + profile] = alone.count_in_scope(profile)
            for q, v in zip(texts[:10], vectors[:10]):  # warm up
                alone.search_vector(v, profile, 10), crowded.search_vector(v, profile, 10), alone.search_bm25(q, profile, 10)
            times: dict[str, list[float]] = {"vector": [], "crowded": [], "bm25": []}
            for q, v in zip(texts, vectors):
                times["vector"].append(_timed(lambda: alone.search_vector(v, profile, 10)))
                times["crowded"].append(_timed(lambda: crowded.search_vector(v, profile, 10)))
                times["bm25"].append(_timed(lambda: alone.search_bm25(q, profile, 10)))
            for key, values in times.items():
                out[key][profile] = _p50_p95(values)
        # Chroma without any filter, for scale (the Release API has no unfiltered search, by design).
        collection = alone._collection
        out["unfiltered"] = _p50_p95(
            [_timed(lambda: collection.query(query_embeddings=[v], n_results=10, include=["distances"])) for v in vectors]
        )
    offline = OfflineMiniLM()
    for t in texts[:10]:
        offline.embed_query(t)
    out["embed_query"] = _p50_p95([_timed(lambda: offline.embed_query(t)) for t in texts])
    return out


def scope_field_types(chunks: int = 10_000, older: int = 3, queries: int = 200) -> dict:
    """Design check in raw Chroma: bool vs int scope fields, in a store alone and with older collections.

    The same 10,000 vectors and metadata (64% in scope) go into four stores; queries alternate
    between them. VALID stores booleans, as its contract says; this measures what that costs.
    """
    import chromadb
    import numpy as np
    from chromadb.config import Settings

    rng = np.random.default_rng(0)
    flags = rng.random((chunks, 3)) < [0.64, 0.65, 0.62]

    def meta(i: int, cast) -> dict:  # the shape VALID writes (valid.index.vectors.chunk_metadata)
        return {
            "in_v5p": cast(flags[i, 0]), "in_v6e": cast(flags[i, 1]), "in_tpu7x": cast(flags[i, 2]),
            "id": f"topics/t{i // 4}.dita#t{i // 4}/s{i % 4}", "path": f"topics/t{i // 4}.dita", "title": f"Section {i % 4}",
            "type": "section", "digest": f"{i:064x}",
        }

    def unit(seed: int):
        v = np.random.default_rng(seed).standard_normal((chunks, 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def fill(client, name: str, cast, seed: int):
        collection = client.create_collection(
            name, configuration={"hnsw": {"space": "cosine", "ef_search": 400, "ef_construction": 200, "max_neighbors": 32}},
            embedding_function=None,
        )
        vectors = unit(seed)
        for start in range(0, chunks, 2000):
            rows = range(start, min(start + 2000, chunks))
            collection.add(
                ids=[str(i) for i in rows],
                embeddings=vectors[start : start + 2000].tolist(),
                metadatas=[meta(i, cast) for i in rows],
            )
        return collection

    with tempfile.TemporaryDirectory(prefix="valid-bench-scope-") as tmp:
        collections = {}
        for kind, cast, value in (("bool", bool, True), ("int", int, 1)):
            for crowd in (0, older):
                client = chromadb.PersistentClient(path=f"{tmp}/{kind}-{crowd}", settings=Settings(anonymized_telemetry=False))
                for k in range(crowd):
                    fill(client, f"older-{k}", cast, 10 + k)
                collections[kind, crowd] = (fill(client, "release", cast, 1), {"in_v5p": value})
        probe = unit(99)[:queries]
        times: dict = {key: [] for key in collections}
        for q in probe:
            for key, (collection, where) in collections.items():
                times[key].append(_timed(lambda: collection.query(query_embeddings=[q.tolist()], n_results=10, where=where, include=["distances"])))
    return {f"{kind}/{crowd}": _p50_p95(values) for (kind, crowd), values in times.items()}


# -- report -----------------------------------------------------------------------------------
def build_lines(name: str, result: dict) -> list[str]:
    full, incr, pure = result["full"], result["incremental"], result["pure"]
    embed_share = full["timings"].get("embed", 0) / full["timings"]["total"]
    ratio = incr["wall"] / full["wall"]
    embed_rate = pure["texts"] / pure["seconds"]
    full_rate = full["chunks"] / full["wall"]
    return [
        f"| {name}: pure embedding, same run | {pure['texts']:,} distinct texts of {pure['chunks']:,} chunks | "
        f"{pure['seconds']:.1f} s | {embed_rate:.1f} texts/s (the floor: embedder calls only, after model load) | |",
        f"| {name}: full build against pure embedding | | | **{full_rate / embed_rate:.2f}** (full-build chunks/s ÷ "
        f"embedding texts/s; target ≥ 0.8: {'met' if full_rate >= 0.8 * embed_rate else 'NOT met'}) | |",
        f"| {name}: full build | {full['chunks']:,} chunks | {full['wall']:.1f} s | "
        f"{full['chunks'] / full['wall']:.1f} chunks/s; embedding {embed_share:.0%} of build time "
        f"({full['embedded']:,} embedded) | {full['max_rss_mb']:.0f} MB |",
        f"| {name}: one-topic rebuild ({result['edited_chunks']} chunks edited) | {incr['chunks']:,} chunks | "
        f"{incr['wall']:.1f} s | **{ratio:.1%} of full** ({incr['embedded']} embedded, {incr['reused']:,} reused) | "
        f"{incr['max_rss_mb']:.0f} MB |",
    ]


def render(args, generated: dict, sample: dict | None, sample_note: str, latency: dict) -> str:
    from fixtures.index.exports import PROFILES

    lines = [
        f"Command: `python3 bench/index.py` (Python {platform.python_version()}, {os.cpu_count()} cores shared with other work; "
        f"load average {args.load[0]:.1f} at the start, {args.load[1]:.1f} at the end). "
        f"Offline embedder (all-MiniLM-L6-v2 int8, batch 1, 2 threads), embedded Chroma, one child process per build; "
        "wall time includes process start, imports and model load.",
        "",
        f"The generated corpus is {args.topics:,} topics written directly with `valid.contracts` models by "
        "`tests/fixtures/index/exports.py` (40–160 words a chunk, the sample's mix of shared, per-generation and "
        "element-narrowed scope), not by `valid export`.",
        "",
        "| build | size | wall | throughput | peak RSS |",
        "|---|---|---|---|---|",
        *build_lines("generated", generated),
    ]
    if sample:
        lines += build_lines("sample (`valid export`)", sample)
        lines += ["", "The sample is too small for its ratio to mean much: process start, imports and verification dominate both of its builds."]
    lines += ["", f"Sample: {sample_note}", ""] if sample_note else [""]
    worst_vector = max(p50 for p50, _ in latency["vector"].values())
    lines += [
        f"Filtered queries, in process, on a release of {latency['chunks']:,} chunks with **random 384-d unit vectors** "
        "instead of real embeddings (so the 10,000 chunks need not be embedded): 200 queries per profile, k=10, "
        "through `Release.search_*` (including its fail-closed scope check).",
        "",
        f"| profile | in scope | vector p50 / p95 | BM25 p50 / p95 | vector p50 / p95, store shared with {latency['releases_in_crowded_store'] - 1} older releases |",
        "|---|---|---|---|---|",
    ]
    for profile in PROFILES:
        v, b = latency["vector"][profile], latency["bm25"][profile]
        m = latency["crowded"][profile]
        lines.append(
            f"| {profile} | {latency['in_scope_' + profile]:,} | {v[0]:.2f} / {v[1]:.2f} ms | {b[0]:.2f} / {b[1]:.2f} ms | "
            f"{m[0]:.2f} / {m[1]:.2f} ms |"
        )
    q, u, f = latency["embed_query"], latency["unfiltered"], latency["field_types"]
    lines += [
        "",
        f"For scale: the same Chroma query without a filter takes p50 {u[0]:.2f} ms / p95 {u[1]:.2f} ms; the scope "
        "pre-filter's cost grows with the number of in-scope chunks (Chroma resolves the filter to an allow-list in SQLite first).",
        f"Query embedding (offline, one question): p50 {q[0]:.1f} ms / p95 {q[1]:.1f} ms.",
        "",
        "What boolean scope fields cost against integer ones (raw Chroma, same 10,000 vectors with VALID's 8 metadata "
        "fields, 64% in scope, queries alternating between four stores): filter p50 / p95. VALID keeps booleans, as "
        "the contract states them; the gap is small with a store of one release, and `valid releases prune` keeps "
        "older releases from crowding the store.",
        "",
        "| scope field | store alone | store with 3 older collections |",
        "|---|---|---|",
        *(
            f"| {kind} | {f[kind + '/0'][0]:.2f} / {f[kind + '/0'][1]:.2f} ms | {f[kind + '/3'][0]:.2f} / {f[kind + '/3'][1]:.2f} ms |"
            for kind in ("bool", "int")
        ),
        "",
        f"Targets: one-topic rebuild ≤ 5% of full: **{generated['incremental']['wall'] / generated['full']['wall']:.1%}** "
        f"({'met' if generated['incremental']['wall'] <= 0.05 * generated['full']['wall'] else 'NOT met'}); "
        f"filtered query p50 ≤ 20 ms: worst profile **{worst_vector:.2f} ms** ({'met' if worst_vector <= 20 else 'NOT met'}).",
    ]
    return "\n".join(line for line in lines if line is not None)


def throughput_only(topics: int) -> list[str]:
    """Full build chunks/s beside pure embedding texts/s, same export, same run."""
    with tempfile.TemporaryDirectory(prefix="valid-bench-index-") as tmp_name:
        tmp = Path(tmp_name)
        export = generated_export(tmp / "generated.jsonl", topics, chunks_per_topic=(1, 4), words=(40, 160))
        pure = run_embed(export)
        full = run_build(tmp / "state", export)
    embed_rate = pure["texts"] / pure["seconds"]
    full_rate = full["chunks"] / full["wall"]
    return [
        f"Command: `python3 bench/index.py --topics {topics} --throughput-only`",
        "",
        "| measurement | size | seconds | throughput |",
        "|---|---|---:|---|",
        f"| pure embedding (embedder calls only, after model load) | {pure['texts']:,} distinct texts of {pure['chunks']:,} chunks | "
        f"{pure['seconds']:.1f} | {embed_rate:.1f} texts/s |",
        f"| full `build_release` (child process: start, imports, model load, embed, Chroma, FTS5, verify) | "
        f"{full['chunks']:,} chunks, {full['embedded']:,} embedded | {full['wall']:.1f} | {full_rate:.1f} chunks/s |",
        "",
        f"Full build against pure embedding: **{full_rate / embed_rate:.2f}** (target ≥ 0.8: "
        f"{'met' if full_rate >= 0.8 * embed_rate else 'NOT met'}); peak RSS of the build {full['max_rss_mb']:.0f} MB.",
    ]


def shared_variants(topics: int, named: float, repeat: int) -> list[str]:
    """Builds of one export from an empty state, with and without name-only variants sharing a vector."""
    from valid.export.file import read_export
    from valid.index.variants import shared_inputs

    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="valid-bench-variants-") as tmp_name:
        tmp = Path(tmp_name)
        export = generated_export(tmp / "named.jsonl", topics, chunks_per_topic=(1, 4), words=(40, 160), named=named)
        loaded = read_export(export)
        distinct = len(set(shared_inputs(loaded.chunks, loaded.header)))
        runs: dict[str, list[dict]] = {"own": [], "share": []}
        for n in range(repeat):
            for arm in ("own", "share"):
                runs[arm].append(run_build(tmp / f"state-{arm}-{n}", export, "offline", arm))
    load_end = os.getloadavg()[0]
    variants = sum(1 for c in loaded.chunks if "~" in c.id)

    def row(label: str, arm: str) -> str:
        walls = [r["wall"] for r in runs[arm]]
        embeds = [r["timings"].get("embed", 0.0) for r in runs[arm]]
        first = runs[arm][0]
        return (
            f"| {label} | {first['embedded']:,} | {first['sharing']:,} | {statistics.median(walls):.1f} s "
            f"({', '.join(f'{w:.1f}' for w in walls)}) | {statistics.median(embeds):.1f} s |"
        )

    own, share = (statistics.median(r["wall"] for r in runs[arm]) for arm in ("own", "share"))
    saved = 1 - runs["share"][0]["embedded"] / runs["own"][0]["embedded"]
    return [
        f"Command: `python3 bench/index.py --variants --topics {topics} --named {named} --repeat {repeat}` "
        f"(Python {platform.python_version()}, {os.cpu_count()} cores shared with other work; load average "
        f"{load_start:.1f} at the start, {load_end:.1f} at the end). The generated export of `tests/fixtures/index/exports.py` "
        f"with {named:.0%} of the chunks kept by several generations naming the product through a key: "
        f"{len(loaded.chunks):,} chunks, {variants:,} of them variants, {distinct:,} distinct inputs once name-only "
        "variants share. Each build starts from an empty state (everything embedded), offline embedder, one child "
        f"process per build; the two arms alternate, {repeat} builds each.",
        "",
        "| build | texts embedded | chunks sharing a vector | wall, median (runs) | embedding, median |",
        "|---|---:|---:|---|---|",
        row("every variant embedded (before)", "own"),
        row("name-only variants share one vector", "share"),
        "",
        f"Texts embedded: **{saved:.0%} fewer**; build wall time {own:.1f} s → {share:.1f} s (**{1 - share / own:.0%} less**).",
    ]


def unit_vectors(export: Path | None, topics: int, repeat: int) -> list[str]:
    """Builds of one export from an empty state, with the answer units' vectors and without them."""
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="valid-bench-units-") as tmp_name:
        tmp = Path(tmp_name)
        source = "the bundled Cloud TPU sample"
        if export is None:
            export = generated_export(tmp / "generated.jsonl", topics)
            source = f"the generated export of `tests/fixtures/index/exports.py`, {topics} topics"
        runs: dict[str, list[dict]] = {"no-units": [], "share": []}
        for n in range(repeat):
            for arm in ("no-units", "share"):
                runs[arm].append(run_build(tmp / f"state-{arm}-{n}", export, "offline", arm))
    load_end = os.getloadavg()[0]

    def row(label: str, arm: str) -> str:
        walls = [r["wall"] for r in runs[arm]]
        units = [r["timings"].get("unit_vectors", 0.0) for r in runs[arm]]
        first = runs[arm][0]
        return (
            f"| {label} | {first['chunks']:,} | {statistics.median(walls):.1f} s ({', '.join(f'{w:.1f}' for w in walls)}) "
            f"| {statistics.median(units):.1f} s | {first['release_bytes'] / 1e6:.2f} MB | {first['unit_bytes'] / 1e6:.2f} MB |"
        )

    return [
        f"Command: `python3 bench/index.py --unit-vectors --repeat {repeat}`"
        + (f" `--topics {topics}`" if "generated" in source else "")
        + f" (Python {platform.python_version()}, {os.cpu_count()} cores shared with other work; load average "
        f"{load_start:.1f} at the start, {load_end:.1f} at the end). {source}; each build from an empty state "
        f"(everything embedded), offline embedder, one child process per build, the arms alternating, {repeat} each.",
        "",
        "| build | chunks | wall, median (runs) | unit vectors, median | release directory | of it unit vectors |",
        "|---|---:|---|---:|---:|---:|",
        row("without unit vectors (before)", "no-units"),
        row("with unit vectors", "share"),
    ]


def write_docs(section: str, marks: tuple[str, str] = (MARK_START, MARK_END)) -> None:
    path = REPO / "docs" / "benchmarks.md"
    text = path.read_text(encoding="utf-8")
    start, end = text.index(marks[0]) + len(marks[0]), text.index(marks[1])
    path.write_text(text[:start] + "\n" + section.strip() + "\n" + text[end:], encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--no-write", action="store_true", help="print only; do not update docs/benchmarks.md")
    parser.add_argument(
        "--throughput-only",
        action="store_true",
        help="only the full build of the generated export beside pure embedding of its distinct texts",
    )
    parser.add_argument("--variants", action="store_true", help="only the builds with and without name-only variants sharing a vector")
    parser.add_argument("--named", type=float, default=0.5, help="with --variants: share of multi-profile chunks that name the product")
    parser.add_argument("--repeat", type=int, default=3, help="with --variants: builds per arm")
    parser.add_argument("--unit-vectors", action="store_true",
                        help="only the builds of the bundled sample with and without the answer units' vectors "
                        "(--topics N with --generated: a generated export instead)")
    parser.add_argument("--generated", action="store_true", help="with --unit-vectors: the generated export")
    args = parser.parse_args()
    if args.unit_vectors:
        with tempfile.TemporaryDirectory(prefix="valid-bench-sample-") as tmp_name:
            export = None if args.generated else sample_export(Path(tmp_name) / "sample.jsonl")[0]
            section = "\n".join(unit_vectors(export, args.topics, args.repeat))
        print(section)
        if not args.no_write:
            write_docs(section, ("<!-- bench:units -->", "<!-- /bench:units -->"))
        return
    if args.variants:
        section = "\n".join(shared_variants(args.topics, args.named, args.repeat))
        print(section)
        if not args.no_write:
            write_docs(section, ("<!-- bench:variants -->", "<!-- /bench:variants -->"))
        return
    if args.throughput_only:
        print("\n".join(throughput_only(args.topics)))
        return
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="valid-bench-index-") as tmp_name:
        tmp = Path(tmp_name)
        export = generated_export(tmp / "generated.jsonl", args.topics, chunks_per_topic=(1, 4), words=(40, 160))
        generated = full_and_incremental(tmp, export, "generated")
        print(json.dumps(generated, indent=1), file=sys.stderr)
        sample_path, error = sample_export(tmp / "sample.jsonl")
        sample, note = None, ""
        if sample_path:
            sample = full_and_incremental(tmp, sample_path, "sample")
        else:
            note = f"not measured: `valid export` of sample_maps/ failed ({error})."
        latency = query_latency(tmp)
        latency["field_types"] = scope_field_types()
        print(json.dumps(latency, indent=1), file=sys.stderr)
    args.load = (load_start, os.getloadavg()[0])
    section = render(args, generated, sample, note, latency)
    print(section)
    if not args.no_write and args.topics >= 2000:
        write_docs(section)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_build":
        child_build(*sys.argv[2:6])
    elif len(sys.argv) > 1 and sys.argv[1] == "_embed":
        child_embed(sys.argv[2])
    else:
        main()
