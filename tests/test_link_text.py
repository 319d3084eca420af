"""Link text in `valid export` as DITA-OT 4.2.4 writes it (its topicpull and keyref steps)."""

from __future__ import annotations

import json
from pathlib import Path


def write(base: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base / "m.ditamap"


def test_an_empty_keyref_xref_in_content_reused_from_another_directory_gets_the_target_title(tmp_path):
    """Found on the Oxygen guide (reusables/ conref'd into topics/): "see  topic." in `valid
    export` where DITA-OT's build reads "see How to Customize the Menu topic."."""
    from valid.export import export

    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicref href="topics/t.dita" keys="k"/><topicref href="topics/a.dita"/></map>',
        "topics/t.dita": '<topic id="t"><title>Target title</title><body><p>x</p></body></topic>',
        "topics/a.dita": '<topic id="a"><title>A</title><body><p conref="../reuse/r.dita#r/p1"/></body></topic>',
        "reuse/r.dita": '<topic id="r"><title>R</title><body><p id="p1">See <xref keyref="k"/> topic.</p></body></topic>',
        "all.ditaval": "<val/>",
    })
    out = tmp_path / "out.jsonl"
    export(root_map, profiles=[("all", tmp_path / "all.ditaval")], out=out)
    chunks = {c["id"]: c for c in (json.loads(line) for line in out.read_text().splitlines()[1:])}
    assert chunks["topics/a.dita#a/body"]["text"] == "See Target title topic."
    assert json.loads(out.read_text().splitlines()[0])["warnings"] == []
