"""An @id written with spaces around it is the id without them, as DITA-OT's DTD-validating parser
reads it (topic ids are declared ID, element ids NMTOKEN: both normalized).

Found on Apache Impala's documentation (`<concept id="examine_schema ">` in
topics/impala_tutorial.xml): the export's chunk id held the space ("#examine_schema /body") where
the DITA-OT plugin's is "#examine_schema/body". The fixture (tests/fixtures/dita/spaced_ids) has a
nested topic and a section with such ids; with DITA_HOME set, DITA-OT's normalized DITA output of
the same file is checked too.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner
from lxml import etree

from fixtures.dita_home import dita_command

from valid.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "dita" / "spaced_ids"
MAP = FIXTURE / "spaced_ids.ditamap"
DITAVAL = Path(__file__).parent / "fixtures" / "dita" / "key_title" / "ditaval" / "print.ditaval"
IDS = ["topics/tutorial.dita#tutorial/body", "topics/tutorial.dita#examine_schema/body",
       "topics/tutorial.dita#examine_schema/columns"]


def test_ids_written_with_spaces_around_them_are_read_without_them(tmp_path):
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["export", str(MAP), f"--profile=all={DITAVAL}", "-o", str(out), "--jobs", "1"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    chunks = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert [c["id"] for c in chunks] == IDS
    assert [c["topic_id"] for c in chunks] == ["tutorial", "examine_schema", "examine_schema"]


def test_dita_ot_reads_the_same_ids(tmp_path):
    dita = dita_command()
    run = subprocess.run(
        [str(dita), f"--input={MAP}", "--format=dita", f"--output={tmp_path / 'out'}",
         f"--temp={tmp_path / 'temp'}"],
        capture_output=True, text=True, timeout=300,
    )
    topic = tmp_path / "out" / "topics" / "tutorial.dita"
    assert topic.is_file(), (run.stdout + run.stderr)[-2000:]
    ids = [el.get("id") for el in etree.parse(str(topic)).iter() if el.get("id") is not None]
    assert ids == ["tutorial", "examine_schema", "columns"]
