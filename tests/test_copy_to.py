"""@copy-to as DITA-OT 4.2.4 does it: the topicref names a copy of its topic under the new name.

The copy is a topic of its own in the job (and in the export, chunk ids start with the copy's
name); a @copy-to naming a file that exists is ignored with a warning (DITA-OT's DOTX064W); key
definitions with @copy-to point at the copy.
"""

from __future__ import annotations

import json
from pathlib import Path

from lxml import etree

from valid.dita.ditaval import parse_ditaval
from valid.dita.loader import load
from valid.dita.preprocess import preprocess

TOPIC = '<topic id="t"><title>T</title><body><p id="a">All.</p><p id="b" platform="v5p">v5p only.</p></body></topic>'


def write(base: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base / "m.ditamap"


def topic_uris(job) -> list[str]:
    return sorted(f.uri for f in job.files if f.format == "dita")


def hrefs(job, tag: str = "topicref") -> list[str]:
    return [t.get("href") for t in etree.parse(str(job.directory / "m.ditamap")).getroot().iter(tag)]


def test_copy_to_makes_a_copy_of_the_topic_beside_the_original(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicref href="t.dita"/><topicref href="t.dita" copy-to="copies/t-again.dita"/></map>',
        "t.dita": TOPIC,
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert topic_uris(job) == ["copies/t-again.dita", "t.dita"]
    # the job map as DITA-OT 4.2.4 writes it: @href on the source, @copy-to on the copy
    topicrefs = list(etree.parse(str(job.directory / "m.ditamap")).getroot().iter("topicref"))
    assert [(t.get("href"), t.get("copy-to")) for t in topicrefs] == [("t.dita", None), ("t.dita", "copies/t-again.dita")]
    copy = etree.parse(str(job.directory / "copies/t-again.dita")).getroot()
    assert copy.get("id") == "t" and copy.get("xtrf").endswith("/t.dita")  # its source stays t.dita
    listed = {f.get("uri"): f for f in etree.parse(str(job.job_file)).getroot().iter("file")}
    assert listed["copies/t-again.dita"].get("src").endswith("/t.dita")
    assert listed["copies/t-again.dita"].get("result").endswith("/copies/t-again.dita")


def test_the_copy_is_filtered_like_the_original(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicref href="t.dita" copy-to="t2.dita"/></map>',
        "t.dita": TOPIC,
    })
    v6e = parse_ditaval(b'<val><prop att="platform" val="v5p" action="exclude"/></val>', "v6e")
    job = preprocess(load(root_map), v6e, tmp_path / "job", name="v6e")
    assert topic_uris(job) == ["t.dita", "t2.dita"]
    assert [p.get("id") for p in etree.parse(str(job.directory / "t2.dita")).getroot().iter("p")] == ["a"]


def test_copy_to_naming_an_existing_file_is_ignored_with_a_warning(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map>\n<topicref href="t.dita" copy-to="other.dita"/></map>',
        "t.dita": TOPIC,
        "other.dita": '<topic id="o"><title>O</title></topic>',
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert topic_uris(job) == ["t.dita"]
    [warning] = [w for w in job.warnings if w.feature == "copy-to"]
    assert (warning.path, warning.line) == ("m.ditamap", 2)


def test_copy_to_in_a_submap_is_relative_to_the_submap(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><mapref href="sub/s.ditamap"/></map>',
        "sub/s.ditamap": '<map><topicref href="t.dita" copy-to="t-copy.dita"/></map>',
        "sub/t.dita": TOPIC,
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert topic_uris(job) == ["sub/t-copy.dita", "sub/t.dita"]


def test_a_key_definition_with_copy_to_points_at_the_copy(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map><keydef keys="k" href="t.dita" copy-to="t-key.dita"/><topicref keyref="k"/></map>',
        "t.dita": TOPIC,
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert hrefs(job) == ["t-key.dita"]
    assert topic_uris(job) == ["t-key.dita"]


def test_the_copy_is_exported_as_chunks_of_its_own(tmp_path):
    from valid.export import export

    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicref href="t.dita"/><topicref href="t.dita" copy-to="t2.dita"/></map>',
        "t.dita": TOPIC,
        "all.ditaval": "<val/>",
    })
    out = tmp_path / "out.jsonl"
    export(root_map, profiles=[("all", tmp_path / "all.ditaval")], out=out)
    chunks = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert sorted(c["id"] for c in chunks) == ["t.dita#t/body", "t2.dita#t/body"]
    assert {c["source"]["path"] for c in chunks} == {"t.dita"}


def test_the_source_of_a_copy_to_stays_in_the_build_beside_its_copy(tmp_path):
    """DITA-OT 4.2.4 keeps the topicref's source in the build and its HTML5 build publishes it,
    also where no other kept topicref names it (tests/test_plugin_export_parity.py checks this
    against DITA-OT)."""
    from valid.export import export

    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicref href="t.dita" copy-to="t2.dita"/><topicref href="t.dita" platform="v6e"/></map>',
        "t.dita": TOPIC,
        "v5p.ditaval": '<val><prop att="platform" val="v6e" action="exclude"/></val>',
    })
    out = tmp_path / "out.jsonl"
    export(root_map, profiles=[("v5p", tmp_path / "v5p.ditaval")], out=out)
    chunks = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert sorted(c["id"] for c in chunks) == ["t.dita#t/body", "t2.dita#t/body"]


def test_an_empty_xref_to_a_key_whose_definition_has_copy_to_gets_the_topic_title(tmp_path):
    """DITA-OT pulls the link text from the copy (the key's target); found on the Oxygen guide,
    where such links read "see ." in `valid export` and "see Publishing Templates" in the plugin."""
    from valid.export import export

    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicref href="t.dita" keys="k" copy-to="t-2.dita"/><topicref href="u.dita"/></map>',
        "t.dita": TOPIC,
        "u.dita": '<topic id="u"><title>U</title><body><p>See <xref keyref="k"/>.</p></body></topic>',
        "all.ditaval": "<val/>",
    })
    out = tmp_path / "out.jsonl"
    export(root_map, profiles=[("all", tmp_path / "all.ditaval")], out=out)
    chunks = {c["id"]: c for c in (json.loads(line) for line in out.read_text().splitlines()[1:])}
    assert chunks["u.dita#u/body"]["text"] == "See T."
