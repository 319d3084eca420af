"""Chunking and merging in batches of topic files gives the very bytes of one run over everything."""

from __future__ import annotations

import json
from pathlib import Path

from valid.export.batches import join, topic_batches
from valid.dita.loader import load
from valid.export import export
from valid.export.run import PARALLEL_SHARE

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


def reuse(docs: Path, library: str, pulls: dict[str, str]) -> dict[str, Path]:
    """A library topic and topics that each conref one of its sections, one topicref each."""
    docs.mkdir()
    (docs / "lib.dita").write_text(library)
    for name, section in pulls.items():
        (docs / f"{name}.dita").write_text(
            f'<topic id="{name}"><title>{name}</title><body><p>Own {name}.</p><section conref="lib.dita#lib/{section}"/></body></topic>'
        )
    refs = "".join(f'<topicref href="{name}.dita"/>' for name in pulls)
    (docs / "m.ditamap").write_text(f"<map><title>M</title>{refs}</map>")
    (docs / "all.ditaval").write_text("<val/>")
    return {"all": docs / "all.ditaval"}


def test_a_section_conrefd_into_topics_of_two_batches_is_joined_in_place(tmp_path):
    # Its chunks carry the library's source path in both batches: the join merges them by the
    # stylesheet's order (path, line, id) instead of running everything at once.
    docs = tmp_path / "docs"
    library = '<topic id="lib"><title>L</title><body><section id="s"><title>S</title><p>Shared.</p></section></body></topic>'
    profiles = reuse(docs, library, {"a": "s", "z": "s"})
    whole, _ = run(tmp_path, "whole", docs / "m.ditamap", 1000, profiles=profiles)
    parts, events = run(tmp_path, "parts", docs / "m.ditamap", 1, profiles=profiles)
    assert batched(events)
    assert parts == whole


def test_two_sections_of_one_source_line_pulled_into_two_batches_are_joined_in_id_order(tmp_path):
    # Both sections start on line 1 of the library: one run orders them by id (a's before z's).
    docs = tmp_path / "docs"
    library = (
        '<topic id="lib"><title>L</title><body><section id="s1"><title>One</title><p>First.</p></section>'
        '<section id="s2"><title>Two</title><p>Second.</p></section></body></topic>'
    )
    profiles = reuse(docs, library, {"a": "s2", "z": "s1"})
    whole, _ = run(tmp_path, "whole", docs / "m.ditamap", 1000, profiles=profiles)
    parts, events = run(tmp_path, "parts", docs / "m.ditamap", 1, profiles=profiles)
    assert batched(events)
    assert parts == whole


def batch_output(header: str, *chunks: tuple[str, str, int]) -> str:
    lines = [header]
    for chunk_id, path, line in chunks:
        source = {"path": path, "line": line, "xpath": "/topic[1]"}
        lines.append(json.dumps({"kind": "chunk", "id": chunk_id, "source": source, "scope": {"p": True}}))
    return "\n".join(lines) + "\n"


HEADER = '{"kind":"header","counts":{"chunks":1,"kept_by_no_profile":0,"per_profile":{"p":1}},"x":1}'


def test_batches_with_one_chunk_id_in_both_or_different_headers_are_not_joined():
    first = batch_output(HEADER, ("a.dita#a/body", "a.dita", 1))
    assert join([first, batch_output(HEADER, ("a.dita#a/body", "a.dita", 1))], ["p"]) is None
    assert join([first, batch_output(HEADER.replace('"x":1', '"x":2'), ("b.dita#b/body", "b.dita", 1))], ["p"]) is None
    joined = join([batch_output(HEADER, ("b.dita#b/body", "b.dita", 1)), first], ["p"])
    assert joined.split("\n")[0] == HEADER.replace('"chunks":1', '"chunks":2').replace('"p":1', '"p":2')
    assert [json.loads(line)["id"] for line in joined.split("\n")[1:-1]] == ["a.dita#a/body", "b.dita#b/body"]


def test_copies_of_a_topic_go_to_their_source_files_batch(tmp_path):
    # A @copy-to copy and a key scope's second copy are files of their own in every build; each
    # belongs to the batch of its source, so batches of one topic file are joined without a fallback.
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.dita").write_text('<topic id="a"><title>A</title><body><p>Alpha.</p></body></topic>')
    (docs / "k.dita").write_text('<topic id="k"><title>K</title><body><p>Uses <keyword keyref="name"/>.</p></body></topic>')
    (docs / "z.dita").write_text('<topic id="z"><title>Z</title><body><p>Zulu.</p></body></topic>')
    scopes = "".join(
        f'<topicgroup keyscope="{s}"><keydef keys="name"><topicmeta><keywords><keyword>{s}</keyword></keywords>'
        f'</topicmeta></keydef><topicref href="k.dita"/></topicgroup>'
        for s in ("one", "two")
    )
    (docs / "m.ditamap").write_text(
        f'<map><title>M</title><topicref href="a.dita"/><topicref href="a.dita" copy-to="a-copy.dita"/>{scopes}'
        '<topicref href="z.dita"/></map>'
    )
    (docs / "all.ditaval").write_text("<val/>")
    profiles = {"all": docs / "all.ditaval"}
    whole, _ = run(tmp_path, "whole", docs / "m.ditamap", 1000, profiles=profiles)
    assert b'"id":"a-copy.dita#a/body"' in whole and b'"id":"k-1.dita#k/body"' in whole
    parts, events = run(tmp_path, "parts", docs / "m.ditamap", 1, profiles=profiles)
    assert batched(events) and events[-1] == ("chunk and merge", 3, 3)
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


def test_parallel_workers_together_hold_a_share_of_the_builds_of_one_serial_run(tmp_path):
    # Each worker carries a SaxonC runtime of its own besides its batch, so two workers get
    # PARALLEL_SHARE of builds_per_run between them, not all of it.
    root_map = guide(tmp_path / "docs")
    profiles = {g: tmp_path / "docs" / f"{g}.ditaval" for g in GENERATIONS}
    docset = load(root_map)
    builds = {
        sf.file: (2 if int(sf.file.stem.split("-")[1]) % 3 == 0 else 6)
        for sf in docset.files.values()
        if sf.file.stem.startswith("topic-")
    }
    builds[docset.root_map.file.parent / "t" / "lib.dita"] = 6
    expected = topic_batches(docset, 1000, int(60 * PARALLEL_SHARE) // 2, builds)
    whole, _ = run(tmp_path, "whole", root_map, 1000, profiles=profiles)
    parts, events = run(tmp_path, "parts", root_map, 1000, profiles=profiles, builds_per_run=60, jobs=2)
    assert events[-1][2] == len(expected) > len(topic_batches(docset, 1000, 60 // 2, builds))
    assert parts == whole


def test_a_parallel_export_reports_the_chunk_and_merge_stage_before_its_first_batch_ends(tmp_path):
    root_map = guide(tmp_path / "docs")
    profiles = {g: tmp_path / "docs" / f"{g}.ditaval" for g in GENERATIONS}
    _, events = run(tmp_path, "parts", root_map, 4, profiles=profiles, jobs=2)
    batches = events[-1][2]
    assert batches > 1 and events[0] == ("chunk and merge", 0, batches)
