"""An empty <term> or <abbreviated-form> whose key names a glossary entry shows the entry's text,
as DITA-OT 4.2.4's HTML5 rendering does (topic.xsl, abbrev-d.xsl): the first reference to a key in
a document shows the surface form, else the term; later ones the preferred acronym or
abbreviation, else the term. The entry is read as the profile filters it.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from valid.dita.ditaval import parse_ditaval
from valid.dita.loader import load
from valid.dita.preprocess import preprocess

DOT = (
    '<glossentry id="dot"><glossterm>DITA Open Toolkit</glossterm><glossdef>A publishing engine.</glossdef>'
    "<glossBody><glossAlt><glossAcronym>DITA-OT</glossAcronym></glossAlt></glossBody></glossentry>"
)


def paragraphs(tmp_path: Path, body: str, entry: str = DOT, ditaval: bytes | None = None) -> list[str]:
    files = {
        "m.ditamap": '<map><keydef keys="dot" href="dot.dita"/><topicref href="t.dita"/></map>',
        "t.dita": f'<topic id="t"><title>T</title><body>{body}</body></topic>',
        "dot.dita": entry,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    rules = parse_ditaval(ditaval, "p") if ditaval else None
    job = preprocess(load(tmp_path / "m.ditamap"), rules, tmp_path / "job", name="p")
    assert not [w for w in job.warnings if w.feature == "keyref"]
    root = etree.parse(str(job.directory / "t.dita")).getroot()
    return ["".join(p.itertext()) for p in root.iter("p")]


def test_the_first_reference_shows_the_term_and_later_ones_the_acronym(tmp_path):
    body = '<p>Get the <abbreviated-form keyref="dot"/> kit.</p><p>Run <abbreviated-form keyref="dot"/>.</p>'
    assert paragraphs(tmp_path, body) == ["Get the DITA Open Toolkit kit.", "Run DITA-OT."]


def test_a_term_element_follows_the_same_rule(tmp_path):
    body = '<p><term keyref="dot"/> and <term keyref="dot"/></p>'
    assert paragraphs(tmp_path, body) == ["DITA Open Toolkit and DITA-OT"]


def test_a_term_with_its_own_text_keeps_it_and_counts_as_the_first_reference(tmp_path):
    body = '<p><term keyref="dot">the toolkit</term>, then <abbreviated-form keyref="dot"/></p>'
    assert paragraphs(tmp_path, body) == ["the toolkit, then DITA-OT"]


def test_the_surface_form_is_the_first_references_text_when_there_is_one(tmp_path):
    entry = DOT.replace("<glossBody>", "<glossBody><glossSurfaceForm>DITA Open Toolkit (DITA-OT)</glossSurfaceForm>")
    body = '<p><abbreviated-form keyref="dot"/></p>'
    assert paragraphs(tmp_path, body, entry) == ["DITA Open Toolkit (DITA-OT)"]


def test_a_preferred_acronym_wins_over_an_earlier_unmarked_one(tmp_path):
    entry = DOT.replace(
        "</glossAlt>",
        '</glossAlt><glossAlt><glossAbbreviation>DOT</glossAbbreviation><glossStatus value="preferred"/></glossAlt>',
    )
    body = '<p><abbreviated-form keyref="dot"/>, <abbreviated-form keyref="dot"/></p>'
    assert paragraphs(tmp_path, body, entry) == ["DITA Open Toolkit, DOT"]


def test_an_entry_without_a_short_form_shows_its_term_every_time(tmp_path):
    entry = '<glossentry id="dot"><glossterm>Toolkit</glossterm><glossdef>An engine.</glossdef></glossentry>'
    body = '<p><abbreviated-form keyref="dot"/>, <abbreviated-form keyref="dot"/></p>'
    assert paragraphs(tmp_path, body, entry) == ["Toolkit, Toolkit"]


def test_the_entry_is_read_as_the_profile_filters_it(tmp_path):
    entry = DOT.replace(
        "<glossBody>", '<glossBody><glossSurfaceForm product="old">Open Toolkit</glossSurfaceForm>'
    )
    exclude_old = b'<val><prop att="product" val="old" action="exclude"/></val>'
    body = '<p><abbreviated-form keyref="dot"/></p>'
    assert paragraphs(tmp_path, body, entry) == ["Open Toolkit"]
    assert paragraphs(tmp_path, body, entry, exclude_old) == ["DITA Open Toolkit"]
