"""Conref push (@conaction) as DITA-OT 4.2.4 does it: pushreplace, mark + pushafter, pushbefore +
mark, into the target as the profile filters it; the pushed elements stay in the pushing topic
without their push attributes, marks go; problems are warned with file and line."""

from __future__ import annotations

import json
from pathlib import Path

from lxml import etree

from valid.dita.ditaval import parse_ditaval
from valid.dita.loader import load
from valid.dita.preprocess import preprocess

TARGET = (
    '<topic id="lib"><title>L</title><body><ol id="list">'
    '<li id="a">A</li><li id="b">B</li><li id="c" platform="v5p">C</li>'
    "</ol></body></topic>"
)


def build(tmp_path: Path, pusher_body: str, ditaval: bytes | None = None):
    (tmp_path / "m.ditamap").write_text('<map><topicref href="lib.dita"/><topicref href="push.dita"/></map>')
    (tmp_path / "lib.dita").write_text(TARGET)
    (tmp_path / "push.dita").write_text(f'<topic id="push"><title>P</title><body>\n{pusher_body}</body></topic>')
    rules = parse_ditaval(ditaval, "p") if ditaval else None
    job = preprocess(load(tmp_path / "m.ditamap"), rules, tmp_path / "job", name="p")

    def items(uri: str):
        root = etree.parse(str(job.directory / uri)).getroot()
        return [("".join(li.itertext()), li.get("id")) for li in root.iter("li")]

    return job, items


def test_pushreplace_replaces_the_target_and_takes_its_id(tmp_path):
    _, items = build(tmp_path, '<ol><li conaction="pushreplace" conref="lib.dita#lib/b">New B</li></ol>')
    assert items("lib.dita") == [("A", "a"), ("New B", "b"), ("C", "c")]
    assert items("push.dita") == [("New B", None)]  # still rendered where it was written


def test_mark_then_pushafter_inserts_after_the_target(tmp_path):
    _, items = build(tmp_path, '<ol><li conaction="mark" conref="lib.dita#lib/a"/><li conaction="pushafter">After A</li></ol>')
    assert [text for text, _ in items("lib.dita")] == ["A", "After A", "B", "C"]
    assert items("push.dita") == [("After A", None)]  # the mark is gone


def test_pushbefore_then_mark_inserts_before_the_target(tmp_path):
    _, items = build(
        tmp_path,
        '<ol><li conaction="pushbefore">First</li><li conaction="pushbefore">Second</li>'
        '<li conaction="mark" conref="lib.dita#lib/b"/></ol>',
    )
    assert [text for text, _ in items("lib.dita")] == ["A", "First", "Second", "B", "C"]


def test_a_pushing_element_the_profile_excludes_pushes_nothing(tmp_path):
    _, items = build(
        tmp_path,
        '<ol><li conaction="pushreplace" conref="lib.dita#lib/a" platform="v5p">v5p A</li></ol>',
        b'<val><prop att="platform" val="v5p" action="exclude"/></val>',
    )
    assert [text for text, _ in items("lib.dita")] == ["A", "B"]


def test_a_target_the_profile_excludes_takes_no_push_and_is_warned_with_file_and_line(tmp_path):
    job, items = build(
        tmp_path,
        '<ol>\n<li conaction="pushreplace" conref="lib.dita#lib/c">New C</li></ol>',
        b'<val><prop att="platform" val="v5p" action="exclude"/></val>',
    )
    assert [text for text, _ in items("lib.dita")] == ["A", "B"]
    [warning] = [w for w in job.warnings if w.feature == "conaction"]
    assert (warning.path, warning.line, "lib.dita#lib/c" in warning.message) == ("push.dita", 3, True)


def test_pushafter_without_a_mark_is_warned(tmp_path):
    job, items = build(tmp_path, '<ol><li conaction="pushafter">Lost</li></ol>')
    assert [text for text, _ in items("lib.dita")] == ["A", "B", "C"]
    assert [w.feature for w in job.warnings] == ["conaction"]


def test_pushed_content_is_chunked_in_the_target_topic(tmp_path):
    from valid.export import export

    (tmp_path / "m.ditamap").write_text('<map><topicref href="lib.dita"/><topicref href="push.dita"/></map>')
    (tmp_path / "lib.dita").write_text(
        '<topic id="lib"><title>L</title><body><section id="sec"><title>S</title><p>Old text.</p></section></body></topic>'
    )
    (tmp_path / "push.dita").write_text(
        '<topic id="push"><title>P</title><body><section conaction="pushreplace" conref="lib.dita#lib/sec">'
        "<title>S</title><p>Pushed text.</p></section></body></topic>"
    )
    (tmp_path / "all.ditaval").write_text("<val/>")
    out = tmp_path / "out.jsonl"
    export(tmp_path / "m.ditamap", profiles=[("all", tmp_path / "all.ditaval")], out=out)
    chunks = {c["id"]: c for c in map(json.loads, out.read_text().splitlines()[1:])}
    pushed = [c for i, c in chunks.items() if i.startswith("lib.dita#lib/") and c["type"] == "section"]
    assert [c["text"] for c in pushed] == ["Pushed text."]
    assert pushed[0]["source"]["path"] == "push.dita"
