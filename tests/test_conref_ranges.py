"""Conref ranges (@conrefend) and conref push, as DITA-OT 4.2.4's conrefImpl.xsl does them.

A range pulls the start and its following siblings up to the one whose @id is the end's element
id, in the target as the profile filters it; the siblings after the start lose their @id. When
the end is filtered out (or is not a following sibling), only the start is pulled (DOTX071E).
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from valid.dita.ditaval import parse_ditaval
from valid.dita.loader import load
from valid.dita.preprocess import preprocess

LIB = (
    '<topic id="lib"><title>L</title><body><ol>'
    '<li id="a">A</li><li id="b" platform="v5p">B</li><li id="c">C</li><li id="d" platform="v6e">D</li><li id="e">E</li>'
    "</ol></body></topic>"
)


def build(tmp_path: Path, body: str, ditaval: bytes | None = None, lib: str = LIB):
    files = {
        "m.ditamap": '<map><topicref href="t.dita"/></map>',
        "t.dita": f'<topic id="t"><title>T</title><body>\n{body}</body></topic>',
        "lib.dita": lib,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    rules = parse_ditaval(ditaval, "p") if ditaval else None
    job = preprocess(load(tmp_path / "m.ditamap"), rules, tmp_path / "job", name="p")
    return job, etree.parse(str(job.directory / "t.dita")).getroot()


def items(root) -> list[tuple[str, str | None]]:
    return [("".join(li.itertext()), li.get("id")) for li in root.iter("li")]


def test_a_range_pulls_start_to_end_and_no_pulled_element_keeps_a_target_id(tmp_path):
    # As DITA-OT 4.2.4 writes it (its `dita` transtype): the start takes the referencing element's
    # @id, if it has one, never the target's; the rest of the range have none.
    _, root = build(tmp_path, '<ol><li conref="lib.dita#lib/a" conrefend="lib.dita#lib/c"/></ol>')
    assert items(root) == [("A", None), ("B", None), ("C", None)]
    (tmp_path / "own").mkdir()
    _, root = build(tmp_path / "own", '<ol><li id="mine" conref="lib.dita#lib/a" conrefend="lib.dita#lib/c"/></ol>')
    assert items(root) == [("A", "mine"), ("B", None), ("C", None)]


def test_elements_the_profile_excludes_inside_the_range_are_not_pulled(tmp_path):
    exclude_v5p = b'<val><prop att="platform" val="v5p" action="exclude"/></val>'
    _, root = build(tmp_path, '<ol><li conref="lib.dita#lib/a" conrefend="lib.dita#lib/c"/></ol>', exclude_v5p)
    assert [text for text, _ in items(root)] == ["A", "C"]


def test_an_end_the_profile_excludes_leaves_only_the_start_with_a_warning(tmp_path):
    exclude_v6e = b'<val><prop att="platform" val="v6e" action="exclude"/></val>'
    job, root = build(tmp_path, '<ol><li conref="lib.dita#lib/a" conrefend="lib.dita#lib/d"/></ol>', exclude_v6e)
    assert [text for text, _ in items(root)] == ["A"]
    [warning] = [w for w in job.warnings if w.feature == "conrefend"]
    assert (warning.path, warning.line) == ("t.dita", 2)


def test_an_end_before_the_start_leaves_only_the_start(tmp_path):
    job, root = build(tmp_path, '<ol><li conref="lib.dita#lib/c" conrefend="lib.dita#lib/a"/></ol>')
    assert [text for text, _ in items(root)] == ["C"]
    assert any(w.feature == "conrefend" for w in job.warnings)


def test_the_end_is_found_by_its_element_id_whatever_form_the_reference_takes(tmp_path):
    _, root = build(tmp_path, '<ol><li conref="lib.dita#lib/a" conrefend="#lib/b"/></ol>')
    assert [text for text, _ in items(root)] == ["A", "B"]


def test_a_conkeyref_with_a_conrefend_pulls_the_range_without_a_warning(tmp_path):
    # DITA-OT's ConkeyrefFilter turns @conkeyref into @conref and leaves @conrefend as written;
    # conrefImpl then finds the end by its element id, whatever file the @conrefend names.
    (tmp_path / "m.ditamap").write_text('<map><keydef keys="lib" href="lib.dita"/><topicref href="t.dita"/></map>')
    (tmp_path / "t.dita").write_text(
        '<topic id="t"><title>T</title><body>\n'
        '<ol><li conkeyref="lib/a" conrefend="elsewhere/old-name.dita#lib/c"/></ol></body></topic>'
    )
    (tmp_path / "lib.dita").write_text(LIB)
    docset = load(tmp_path / "m.ditamap")
    job = preprocess(docset, None, tmp_path / "job", name="p")
    root = etree.parse(str(job.directory / "t.dita")).getroot()
    assert items(root) == [("A", None), ("B", None), ("C", None)]
    assert not [w for w in docset.warnings + job.warnings if w.feature == "conrefend"]
