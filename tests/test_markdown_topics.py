"""Markdown topics are exported as DITA-OT 4.x reads them: a reference whose @format is markdown, md,
mdita or wikidocs is parsed into a DITA topic (valid.dita.markdown), scoped by the map's profiling like
any topic. Before, the own path warned "not DITA content" and left their text out, while DITA-OT's
build (and so the plugin's export) kept it. The plugin's export of the same fixture is compared chunk
by chunk in tests/test_plugin_dita_ot.py (with DITA_HOME)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from lxml import etree

from valid.dita.markdown import to_topic
from valid.export import export

FIXTURE = Path(__file__).parent / "fixtures" / "dita" / "markdown"
PROFILES = {"windows": FIXTURE / "windows.ditaval", "linux": FIXTURE / "linux.ditaval"}


def shape(topic: etree._Element) -> str:
    """The element tree as tag names and text, without @class: what the tests read."""
    for el in topic.iter():
        if isinstance(el.tag, str):
            el.attrib.pop("class", None)
    return etree.tostring(topic, encoding="unicode")


def test_a_wiki_page_without_a_heading_takes_its_title_from_the_file_name_and_opens_with_a_short_description():
    topic = shape(to_topic("The cache keeps `cache.ttl` seconds.\n\nSecond.\n", "Cache-tuning.md", "wikidocs"))
    assert topic.startswith('<topic id="cache-tuning"><title>Cache tuning</title><shortdesc>The cache keeps '
                            "<codeph>cache.ttl</codeph> seconds.</shortdesc><body><p>Second.</p></body>")


def test_markdown_dita_nests_a_topic_per_heading_level_and_a_section_class_opens_a_section():
    text = "# Top {#top .intro}\n\nFirst.\n\n## Part {.section}\n\nIn part.\n\n## Child\n\n### Grandchild\n\n## Sibling\n"
    topic = to_topic(text, "x.md", "markdown")
    assert topic.get("id") == "top" and topic.get("outputclass") == "intro"
    assert topic.find("body/p").text == "First."  # no short description in this format
    section = topic.find("body/section")
    assert (section.get("id"), section.findtext("title"), section.findtext("p")) == ("part", "Part", "In part.")
    assert [t.get("id") for t in topic.findall("topic")] == ["child", "sibling"]
    assert topic.find("topic/topic").findtext("title") == "Grandchild"


def test_mdita_opens_a_section_below_the_first_heading_and_writes_code_as_teletype():
    topic = to_topic("# Cloud\n\nImage `orbit:4`.\n\n## Health\n\nOn `/healthz`.\n", "cloud.md", "mdita")
    assert shape(topic) == (
        '<topic id="cloud"><title>Cloud</title><shortdesc>Image <tt>orbit:4</tt>.</shortdesc><body>'
        '<section id="health"><title>Health</title><p>On <tt>/healthz</tt>.</p></section></body></topic>'
    )


def test_blocks_keep_what_the_writer_wrote():
    text = (
        "# T\n\n- one\n- **two**\n\n```shell\n./run \\\n  --port 1\n```\n\n"
        "| Key | Value |\n| --- | --- |\n| a | 1 |\n\n"
        '!!! tip "Sizing"\n\n    Start small.\n\n> Quoted.\n\nSee [docs](https://example.com).\n'
    )
    body = to_topic(text, "t.md", "markdown").find("body")
    assert [li.xpath("string()") for li in body.findall("ul/li")] == ["one", "two"]
    code = body.find("codeblock")
    assert (code.text, code.get("outputclass")) == ("./run \\\n  --port 1", "shell")
    assert [e.text for e in body.findall("table/tgroup/thead/row/entry")] == ["Key", "Value"]
    assert [e.text for e in body.findall("table/tgroup/tbody/row/entry")] == ["a", "1"]
    note = body.find("note")
    assert note.get("type") == "tip" and [p.text for p in note.findall("p")] == ["Sizing", "Start small."]
    assert body.findtext("lq/p") == "Quoted."
    link = body.find("p/xref")
    assert (link.get("href"), link.get("scope"), link.text) == ("https://example.com", "external", "docs")


def test_the_export_holds_markdown_topics_scoped_by_the_maps_profiling(tmp_path):
    result = export(FIXTURE / "guide.ditamap", profiles=PROFILES, out=tmp_path / "e.jsonl")
    chunks = {c["id"]: c for c in map(json.loads, (tmp_path / "e.jsonl").read_text().splitlines()[1:])}
    # Brought in through a key to a wiki page, a Markdown DITA topic, and an MDITA topic for Linux.
    assert chunks["Cache-tuning.md#cache-tuning/body"]["scope"] == {"windows": True, "linux": True}
    assert "(300 by default)" in chunks["Cache-tuning.md#cache-tuning/body"]["text"]
    assert "--port 8443" in chunks["install.md#install/body"]["text"]
    assert chunks["cloud.md#running-in-the-cloud/body"]["scope"] == {"windows": False, "linux": True}
    assert chunks["install.md#install/body"]["source"] == {"path": "install.md", "line": 4, "xpath": ""}
    assert not [w for w in result.warnings if w.feature == "non-dita-reference"]


def test_a_section_heading_no_deeper_than_its_topic_leaves_the_file_out_with_its_line(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(FIXTURE, docs)
    # DITA-OT's parser refuses it too ("Level 2 section title must be higher level than parent topic title 3").
    (docs / "install.md").write_text("# Install\n\n## Deep\n\n### Deeper\n\n## Back {.section}\n\nText.\n")
    result = export(docs / "guide.ditamap", profiles=PROFILES, out=tmp_path / "e.jsonl")
    [warning] = [w for w in result.warnings if w.feature == "unreadable-file"]
    assert (warning.path, warning.line) == ("install.md", 7)
    assert "DOTJ013E" in warning.message and "section heading" in warning.message
    ids = [json.loads(line)["id"] for line in (tmp_path / "e.jsonl").read_text().splitlines()[1:]]
    assert not [i for i in ids if i.startswith("install.md")] and "cloud.md#running-in-the-cloud/body" in ids


def test_a_markdown_file_that_is_not_utf8_is_left_out_with_the_line_of_its_first_bad_byte(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(FIXTURE, docs)
    (docs / "cloud.md").write_bytes(b"# Cloud\n\nPort 8081.\n\nCaf\xe9 latte.\n")
    result = export(docs / "guide.ditamap", profiles=PROFILES, out=tmp_path / "e.jsonl")
    [warning] = [w for w in result.warnings if w.feature == "unreadable-file"]
    assert (warning.path, warning.line) == ("cloud.md", 5) and "UTF-8" in warning.message
