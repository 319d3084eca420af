"""Chunking and merging in batches of topic files gives the very bytes of one run over everything."""

from __future__ import annotations

from pathlib import Path

from valid.export.batches import topic_batches
from valid.dita.loader import load
from valid.export import export

ROOT = Path(__file__).parent.parent
SAMPLE = ROOT / "sample_maps" / "cloud-tpu.ditamap"
SCHEME = ROOT / "schemes" / "tpu-generations.ditamap"
GENERATIONS = ("g1", "g2", "g3", "g4", "g5")


def run(tmp_path: Path, name: str, map_path: Path, per_run: int, **options) -> tuple[bytes, list]:
    events: list[tuple[str, int, int]] = []
    out = tmp_path / f"{name}.jsonl"
    options.setdefault("builds_per_run", 10**9)
    export(map_path, out=out, topics_per_run=per_run, progress=lambda *e: events.append(e), **options)
    return out.read_bytes(), [e for e in events if e[0] == "chunk and merge"]


def batched(events) -> bool:
    return ("chunk and merge", 0, 1) not in events and events[-1][2] > 1


def guide(base: Path, topics: int = 24) -> Path:
    """A small guide: profiled keydefs resolved by keyrefs, conrefs into a library, profiled branches."""
    (base / "t").mkdir(parents=True)
    keydefs = "".join(
        f'<keydef keys="product" platform="{g}"><topicmeta><keywords><keyword>Product {g}</keyword></keywords>'
        "</topicmeta></keydef>"
        for g in GENERATIONS
    )
    (base / "t" / "lib.dita").write_text(
        '<topic id="lib"><title>Library</title><body>'
        + "".join(f'<p id="n{g}" platform="{g}">Note for {g}.</p>' for g in GENERATIONS)
        + "</body></topic>"
    )
    refs = []
    for i in range(topics):
        g = GENERATIONS[i % len(GENERATIONS)]
        (base / "t" / f"topic-{i:02d}.dita").write_text(
            f'<topic id="t{i}"><title>Topic {i}</title><body><p>Intro <keyword keyref="product"/>.</p>'
            f'<section id="s"><title>Setup</title><p platform="{g}">Only {g}.</p><p conref="lib.dita#lib/n{g}"/></section>'
            f'<section id="all"><title>All</title><p>Shared text {i}.</p></section></body></topic>'
        )
        profiled = f' platform="{g}"' if i % 3 == 0 else ""
        refs.append(f'<topicref href="t/topic-{i:02d}.dita"{profiled}/>')
    (base / "root.ditamap").write_text(
        f'<map><title>Guide</title>{keydefs}<keydef keys="lib" href="t/lib.dita"/><topichead navtitle="Part">'
        + "".join(refs)
        + "</topichead></map>"
    )
    for g in GENERATIONS:
        others = "".join(f'<prop att="platform" val="{o}" action="exclude"/>' for o in GENERATIONS if o != g)
        (base / f"{g}.ditaval").write_text(f"<val>{others}</val>")
    return base / "root.ditamap"


def test_the_sample_in_batches_of_one_and_three_topics_is_byte_identical(tmp_path):
    whole, events = run(tmp_path, "whole", SAMPLE, 1000, scheme=SCHEME)
    assert not batched(events)
    for per_run in (1, 3):
        parts, events = run(tmp_path, f"per-{per_run}", SAMPLE, per_run, scheme=SCHEME)
        assert batched(events)
        assert parts == whole


def test_a_guide_with_keyrefs_conrefs_and_profiled_branches_in_batches_is_byte_identical(tmp_path):
    root_map = guide(tmp_path / "docs")
    profiles = {g: tmp_path / "docs" / f"{g}.ditaval" for g in GENERATIONS}
    whole, _ = run(tmp_path, "whole", root_map, 1000, profiles=profiles)
    parts, events = run(tmp_path, "parts", root_map, 4, profiles=profiles)
    assert batched(events) and events[-1] == ("chunk and merge", 7, 7)
    assert parts == whole
    assert b'"id":"t/topic-01.dita#t1/body~g2"' in whole  # variants by profile survive the join


def test_batches_that_cannot_be_joined_exactly_fall_back_to_one_run(tmp_path):
    # One section conref'd whole into two topics: its chunks carry the library's source path, so
    # that path would sit in two batches, and joining them could break the one-run order.
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "lib.dita").write_text('<topic id="lib"><title>L</title><body><section id="s"><title>S</title><p>Shared.</p></section></body></topic>')
    for name in ("a", "z"):
        (docs / f"{name}.dita").write_text(
            f'<topic id="{name}"><title>{name}</title><body><p>Own {name}.</p><section conref="lib.dita#lib/s"/></body></topic>'
        )
    (docs / "m.ditamap").write_text('<map><title>M</title><topicref href="a.dita"/><topicref href="z.dita"/></map>')
    (docs / "all.ditaval").write_text("<val/>")
    profiles = {"all": docs / "all.ditaval"}
    whole, _ = run(tmp_path, "whole", docs / "m.ditamap", 1000, profiles=profiles)
    parts, events = run(tmp_path, "parts", docs / "m.ditamap", 1, profiles=profiles)
    assert ("chunk and merge", 0, 1) in events  # the fallback ran
    assert parts == whole


def test_batches_are_weighed_by_the_builds_that_keep_each_topic(tmp_path):
    # Topics 00-23 cycle through five generations, one in three profiled to its generation: a
    # profiled topic is kept by its profile's build and the unfiltered one, the others by all six.
    root_map = guide(tmp_path / "docs")
    docset = load(root_map)
    builds = {
        sf.file: (2 if int(sf.file.stem.split("-")[1]) % 3 == 0 else 6)
        for sf in docset.files.values()
        if sf.file.stem.startswith("topic-")
    }
    batches = topic_batches(docset, 1000, 12, builds)
    assert [f for batch in batches for f in batch] == [f for batch in topic_batches(docset, 1000) for f in batch]
    for batch in batches:
        weight = sum(max(1, builds.get(f, 0)) for f in batch)
        assert weight <= 12 or len(batch) == 1
    # Full batches hold two topics every build keeps, or one of those and up to three profiled ones.
    assert len(batches) > len(topic_batches(docset, 4)) > 1


def test_a_guide_in_batches_bounded_by_topic_builds_is_byte_identical(tmp_path):
    root_map = guide(tmp_path / "docs")
    profiles = {g: tmp_path / "docs" / f"{g}.ditaval" for g in GENERATIONS}
    whole, _ = run(tmp_path, "whole", root_map, 1000, profiles=profiles)
    parts, events = run(tmp_path, "parts", root_map, 1000, profiles=profiles, builds_per_run=15)
    assert batched(events) and events[-1][2] >= 8  # 25 files, most kept by all six builds
    assert parts == whole
