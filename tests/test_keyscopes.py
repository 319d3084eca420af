"""Key scopes (DITA 1.3 @keyscope) resolve as DITA-OT 4.2.4 resolves them (KeyrefReader, KeyrefModule).

A key reference resolves in the key space of the scope its topic is referenced from: ancestor
scopes take precedence over the scope's own definitions, child scopes' keys are visible under
qualified names (`scope.key`), and a topic with key references referenced from two scopes is
resolved twice, the second copy named `<name>-1.<ext>`.
"""

from __future__ import annotations

import json
from pathlib import Path

from lxml import etree

from valid.dita.ditaval import parse_ditaval
from valid.dita.loader import load
from valid.dita.preprocess import preprocess


def write(base: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base / "m.ditamap"


def keydef(key: str, text: str, attrs: str = "") -> str:
    return f'<keydef keys="{key}"{attrs}><topicmeta><keywords><keyword>{text}</keyword></keywords></topicmeta></keydef>'


def topic(refs: str) -> str:
    return f'<topic id="t"><title>T</title><body><p id="p">{refs}</p></body></topic>'


def texts(job, uri: str) -> str:
    root = etree.parse(str(job.directory / uri)).getroot()
    return " ".join("".join(root.find(".//p").itertext()).split())


def ditaval_for(value: str):
    text = f'<val><prop att="platform" action="exclude"/><prop att="platform" val="{value}" action="include"/></val>'
    return parse_ditaval(text.encode(), value)


def job_uris(job) -> list[str]:
    return sorted(f.uri for f in job.files)


def test_a_topic_referenced_from_two_scopes_resolves_in_each_and_the_second_is_a_renamed_copy(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicgroup keyscope="a">' + keydef("prod", "Alpha") + '<topicref href="t.dita"/></topicgroup>'
                     '<topicgroup keyscope="b">' + keydef("prod", "Beta") + '<topicref href="t.dita"/></topicgroup></map>',
        "t.dita": topic('<ph keyref="prod"/>'),
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert job_uris(job) == ["m.ditamap", "t-1.dita", "t.dita"]
    assert texts(job, "t.dita") == "Alpha"
    assert texts(job, "t-1.dita") == "Beta"
    hrefs = [t.get("href") for t in etree.parse(str(job.directory / "m.ditamap")).getroot().iter("topicref")]
    assert hrefs == ["t.dita", "t-1.dita"]
    assert not any(w.feature == "keyscope" for w in job.warnings)


def test_definitions_in_an_ancestor_scope_take_precedence_over_the_scope_own(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map>' + keydef("prod", "Root") + '<topicgroup keyscope="a">' + keydef("prod", "Alpha")
                     + keydef("only", "Inner") + '<topicref href="t.dita"/></topicgroup></map>',
        "t.dita": topic('<ph keyref="prod"/> <ph keyref="only"/>'),
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert texts(job, "t.dita") == "Root Inner"


def test_scope_qualified_names_reach_into_child_scopes_from_anywhere_above_them(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicgroup keyscope="a">' + keydef("prod", "Alpha")
                     + '<topicgroup keyscope="inner">' + keydef("deep", "Deep") + '</topicgroup></topicgroup>'
                     '<topicgroup keyscope="b"><topicref href="t.dita"/></topicgroup></map>',
        # from scope b: a.prod and a.inner.deep come through the root scope; an unqualified
        # name of another scope does not resolve
        "t.dita": topic('<ph keyref="a.prod"/> <ph keyref="a.inner.deep"/> <ph keyref="prod">none</ph>'),
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert texts(job, "t.dita") == "Alpha Deep none"
    assert [w.message.split("'")[1] for w in job.warnings if w.feature == "keyref"] == ["prod"]


def test_an_own_key_spelled_like_a_qualified_name_wins_over_the_child_scope_key(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicgroup keyscope="a">' + keydef("prod", "Alpha") + '</topicgroup>'
                     + keydef("a.prod", "Literal") + '<topicref href="t.dita"/></map>',
        "t.dita": topic('<ph keyref="a.prod"/>'),
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert texts(job, "t.dita") == "Literal"


def test_several_scope_names_on_one_element_name_the_same_keys(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicgroup keyscope="a alias">' + keydef("prod", "Alpha") + '</topicgroup>'
                     '<topicref href="t.dita"/></map>',
        "t.dita": topic('<ph keyref="a.prod"/> <ph keyref="alias.prod"/>'),
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert texts(job, "t.dita") == "Alpha Alpha"


def test_a_map_own_definitions_precede_those_of_its_submaps_whatever_the_document_order(tmp_path):
    # DITA-OT reads the scope's own map content first, then each submap.
    root_map = write(tmp_path, {
        "m.ditamap": '<map><mapref href="sub.ditamap"/>' + keydef("prod", "Root") + '<topicref href="t.dita"/></map>',
        "sub.ditamap": '<map>' + keydef("prod", "Sub") + keydef("extra", "Extra") + '</map>',
        "t.dita": topic('<ph keyref="prod"/> <ph keyref="extra"/>'),
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert texts(job, "t.dita") == "Root Extra"


def test_a_keyscope_on_a_mapref_or_on_the_submap_root_scopes_the_submap(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><mapref href="one.ditamap" keyscope="one"/><mapref href="two.ditamap"/>'
                     '<topicref href="t.dita"/></map>',
        "one.ditamap": '<map>' + keydef("prod", "One") + '</map>',
        "two.ditamap": '<map keyscope="two">' + keydef("prod", "Two") + '</map>',
        "t.dita": topic('<ph keyref="one.prod"/> <ph keyref="two.prod"/> <ph keyref="prod">unscoped</ph>'),
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert texts(job, "t.dita") == "One Two unscoped"


def test_profiled_definitions_inside_a_scope_still_give_per_profile_text(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicgroup keyscope="a">' + keydef("chip", "Chip v5p", ' platform="v5p"')
                     + keydef("chip", "Chip v6e", ' platform="v6e"') + '<topicref href="t.dita"/></topicgroup>'
                     '<topicgroup keyscope="b">' + keydef("chip", "Other chip") + '<topicref href="t.dita"/></topicgroup></map>',
        "t.dita": topic('<ph keyref="chip"/>'),
    })
    docset = load(root_map)
    v5p = preprocess(docset, ditaval_for("v5p"), tmp_path / "v5p", name="v5p")
    v6e = preprocess(docset, ditaval_for("v6e"), tmp_path / "v6e", name="v6e")
    assert (texts(v5p, "t.dita"), texts(v5p, "t-1.dita")) == ("Chip v5p", "Other chip")
    assert (texts(v6e, "t.dita"), texts(v6e, "t-1.dita")) == ("Chip v6e", "Other chip")


def test_a_topic_without_key_references_is_not_copied_per_scope(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicgroup keyscope="a"><topicref href="t.dita"/></topicgroup>'
                     '<topicgroup keyscope="b"><topicref href="t.dita"/></topicgroup></map>',
        "t.dita": topic("plain"),
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert job_uris(job) == ["m.ditamap", "t.dita"]


def test_conkeyref_resolves_in_the_topic_scope(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicgroup keyscope="a"><keydef keys="lib" href="a.dita"/><topicref href="t.dita"/></topicgroup>'
                     '<topicgroup keyscope="b"><keydef keys="lib" href="b.dita"/><topicref href="t.dita"/></topicgroup></map>',
        "t.dita": '<topic id="t"><title>T</title><body><p id="p" conkeyref="lib/x"/></body></topic>',
        "a.dita": '<topic id="a"><title>A</title><body><p id="x">From A</p></body></topic>',
        "b.dita": '<topic id="b"><title>B</title><body><p id="x">From B</p></body></topic>',
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert (texts(job, "t.dita"), texts(job, "t-1.dita")) == ("From A", "From B")


def test_each_scope_copy_is_its_own_chunk_in_the_export(tmp_path):
    from valid.export import export

    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicgroup keyscope="a">' + keydef("prod", "Alpha") + '<topicref href="t.dita"/></topicgroup>'
                     '<topicgroup keyscope="b">' + keydef("prod", "Beta") + '<topicref href="t.dita"/></topicgroup></map>',
        "t.dita": topic('Use <ph keyref="prod"/> here.'),
        "all.ditaval": "<val/>",
    })
    out = tmp_path / "out.jsonl"
    export(root_map, profiles=[("all", tmp_path / "all.ditaval")], out=out)
    chunks = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    by_id = {c["id"]: c for c in chunks}
    assert set(by_id) == {"t.dita#t/body", "t-1.dita#t/body"}
    assert "Alpha" in by_id["t.dita#t/body"]["text"] and "Beta" in by_id["t-1.dita#t/body"]["text"]
    assert {c["source"]["path"] for c in chunks} == {"t.dita"}  # both copies point at the one source


def test_a_key_definition_referring_to_another_key_takes_its_text_and_target(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><keydef keys="name" keyref="real"/>' + keydef("real", "Real name")
                     + '<keydef keys="own" keyref="real"><topicmeta><keywords><keyword>Own text</keyword></keywords>'
                     '</topicmeta></keydef><keydef keys="loop1" keyref="loop2"/><keydef keys="loop2" keyref="loop1"/>'
                     '<topicref href="t.dita"/></map>',
        "t.dita": topic('<ph keyref="name"/> <ph keyref="own"/> <ph keyref="loop1">cycle</ph>'),
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert texts(job, "t.dita") == "Real name Own text cycle"
