"""The first breadcrumb is the map title as each profile's build filters it, as DITA-OT's output of
that build shows it: a guide for several editions names only the edition at hand, not all of them.
A chunk kept by several profiles whose titles differ lists each distinct title once, in profile order.
"""

from __future__ import annotations

import json
from pathlib import Path

from valid.export import export

MAP = """<bookmap>
  <booktitle>
    <mainbooktitle><ph keyref="product"/> <ph product="editor">for editing</ph><ph product="author">for authoring</ph></mainbooktitle>
  </booktitle>
  <keydef keys="product" product="editor"><topicmeta><keywords><keyword>Acme Editor</keyword></keywords></topicmeta></keydef>
  <keydef keys="product" product="author"><topicmeta><keywords><keyword>Acme Author</keyword></keywords></topicmeta></keydef>
  <chapter href="start.dita"/>
  <chapter href="macros.dita" product="editor"/>
</bookmap>"""
START = """<topic id="start"><title>Start</title><body>
  <p>Open a document from the File menu.</p>
  <section id="mode"><title>Modes</title><p>The default mode is <ph product="editor">Text</ph><ph product="author">Author</ph>.</p></section>
</body></topic>"""
MACROS = """<topic id="macros"><title>Macros</title><body><p>Record a macro from the Tools menu.</p></body></topic>"""
TITLE = {"editor": "Acme Editor for editing", "author": "Acme Author for authoring"}


def _export(tmp_path: Path, map_text: str = MAP) -> dict[str, dict]:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in {"guide.ditamap": map_text, "start.dita": START, "macros.dita": MACROS}.items():
        (docs / name).write_text(text, encoding="utf-8")
    (docs / "editor.ditaval").write_text('<val><prop att="product" val="author" action="exclude"/></val>', encoding="utf-8")
    (docs / "author.ditaval").write_text('<val><prop att="product" val="editor" action="exclude"/></val>', encoding="utf-8")
    out = tmp_path / "chunks.jsonl"
    export(docs / "guide.ditamap", profiles=[("editor", docs / "editor.ditaval"), ("author", docs / "author.ditaval")], out=out)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    return {line["id"]: line for line in lines}


def test_a_chunk_of_one_profile_starts_with_that_profiles_filtered_map_title(tmp_path):
    chunks = _export(tmp_path)
    assert chunks["macros.dita#macros/body"]["breadcrumbs"] == [TITLE["editor"], "Macros"]
    assert chunks["start.dita#start/mode~editor"]["breadcrumbs"] == [TITLE["editor"], "Start", "Modes"]
    assert chunks["start.dita#start/mode~author"]["breadcrumbs"] == [TITLE["author"], "Start", "Modes"]


def test_a_shared_chunk_lists_each_profiles_title_once(tmp_path):
    chunks = _export(tmp_path)
    assert chunks["start.dita#start/body"]["breadcrumbs"] == [f"{TITLE['editor']} / {TITLE['author']}", "Start"]


def test_profiles_with_the_same_filtered_title_share_it(tmp_path):
    plain = MAP.replace(
        '<mainbooktitle><ph keyref="product"/> <ph product="editor">for editing</ph><ph product="author">for authoring</ph></mainbooktitle>',
        "<mainbooktitle>Acme User Guide</mainbooktitle>",
    )
    chunks = _export(tmp_path, plain)
    assert chunks["start.dita#start/body"]["breadcrumbs"] == ["Acme User Guide", "Start"]
    assert chunks["start.dita#start/mode~author"]["breadcrumbs"] == ["Acme User Guide", "Start", "Modes"]
