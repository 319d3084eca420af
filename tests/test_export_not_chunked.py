"""No kept block element is dropped silently: the header counts, by element name, the block
elements some profile keeps whose content is in no chunk (xsl/coverage.xsl)."""

from __future__ import annotations

import json

from valid.export import export

TOPIC = """<topic id="t"><title>T</title><body>
  <p>Kept and chunked.</p>
  <draft-comment><ul><li>Internal only.</li></ul></draft-comment>
  <required-cleanup>Fix me.</required-cleanup>
  <image href="diagram.png" placement="break"/>
  <p>Inline <image href="icon.png"/> images are part of a paragraph.</p>
  <foreign><svg xmlns="http://www.w3.org/2000/svg"/></foreign>
  <section id="pictures"><title>Only a picture</title><image href="a.png" placement="break"/></section>
  <section id="gone" platform="nowhere"><p>Kept by no profile.</p></section>
  <draft-comment platform="nowhere">Kept by no profile: not counted.</draft-comment>
  <p platform="v5p">Kept in v5p only, and chunked there.</p>
</body>
<related-links><link href="t.dita"><desc>Navigation, not content.</desc></link></related-links>
</topic>"""


def run(tmp_path) -> dict:
    (tmp_path / "m.ditamap").write_text('<map><topicref href="t.dita"/></map>')
    (tmp_path / "t.dita").write_text(TOPIC)
    for name in ("v5p", "v6e"):
        (tmp_path / f"{name}.ditaval").write_text(
            f'<val><prop att="platform" action="exclude"/><prop att="platform" val="{name}" action="include"/></val>'
        )
    out = tmp_path / "out.jsonl"
    export(tmp_path / "m.ditamap", profiles=[(n, tmp_path / f"{n}.ditaval") for n in ("v5p", "v6e")], out=out)
    return json.loads(out.read_text().splitlines()[0])


def test_the_header_counts_kept_blocks_that_no_chunk_holds_by_element_name(tmp_path):
    counts = run(tmp_path)["counts"]
    assert counts["not_chunked"] == {
        "draft-comment": 1,  # its list is inside it: counted once
        "required-cleanup": 1,
        "image": 1,  # the block image; an inline image is part of its paragraph
        "foreign": 1,
        "section": 1,  # a section whose only content is an image writes no chunk
    }


def test_a_fully_chunked_topic_counts_nothing(tmp_path):
    (tmp_path / "m.ditamap").write_text('<map><topicref href="t.dita"/></map>')
    (tmp_path / "t.dita").write_text('<topic id="t"><title>T</title><shortdesc>S.</shortdesc><body><p>P.</p>'
                                     '<section><title>S</title><ul><li>x</li></ul></section></body></topic>')
    (tmp_path / "all.ditaval").write_text("<val/>")
    out = tmp_path / "out.jsonl"
    export(tmp_path / "m.ditamap", profiles=[("all", tmp_path / "all.ditaval")], out=out)
    assert json.loads(out.read_text().splitlines()[0])["counts"]["not_chunked"] == {}


def test_counts_from_batches_of_topics_add_up_to_the_one_run_counts(tmp_path):
    (tmp_path / "m.ditamap").write_text('<map><topicref href="a.dita"/><topicref href="b.dita"/></map>')
    for name in ("a", "b"):
        (tmp_path / f"{name}.dita").write_text(
            f'<topic id="{name}"><title>{name}</title><body><p>Text.</p><draft-comment>Todo.</draft-comment>'
            f'<image href="{name}.png" placement="break"/></body></topic>'
        )
    (tmp_path / "all.ditaval").write_text("<val/>")
    outputs, events = {}, []
    for per_run in (1000, 1):
        out = tmp_path / f"out-{per_run}.jsonl"
        events = []
        export(tmp_path / "m.ditamap", profiles=[("all", tmp_path / "all.ditaval")], out=out, topics_per_run=per_run,
               progress=lambda *e: events.append(e))
        outputs[per_run] = out.read_bytes()
    merged = [e for e in events if e[0] == "chunk and merge"]
    # the second export was joined from two batches, without falling back to one run
    assert ("chunk and merge", 0, 1) not in merged and merged[-1] == ("chunk and merge", 2, 2)
    assert outputs[1] == outputs[1000]
    assert json.loads(outputs[1].splitlines()[0])["counts"]["not_chunked"] == {"draft-comment": 2, "image": 2}
