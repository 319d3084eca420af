"""xsl/source.xsl: a chunk's source path, line and xpath (from @valid:xpath, else found in the
source file by @xtrc)."""

from __future__ import annotations

import json
from pathlib import Path

from fixtures.preprocessed.materialize import materialize
from valid.export.xslt import run_export


def export_chunks(run: Path) -> dict[str, dict]:
    return {c["id"]: c for c in map(json.loads, run_export(run).splitlines()[1:])}


def test_source_path_is_relative_to_src_base_and_line_comes_from_xtrc(tmp_path):
    chunks = export_chunks(materialize("cloud-tpu", tmp_path))
    steps = chunks["topics/create-vm.dita#create-vm/steps-1~v5p"]["source"]
    assert steps["path"] == "topics/create-vm.dita"
    assert steps["line"] == 15


def test_xpath_falls_back_to_the_source_element_named_by_xtrc(tmp_path):
    # The fixtures are shaped like real DITA-OT output: no @valid:xpath anywhere.
    chunks = export_chunks(materialize("cloud-tpu", tmp_path))
    assert chunks["topics/create-vm.dita#create-vm/steps-1~v5p"]["source"]["xpath"] == "/task[1]/taskbody[1]/steps[1]"
    # Counted in the source, before filtering: the choicetable sits in the fifth step of the source.
    assert (chunks["topics/create-vm.dita#create-vm/choicetable-1~v6e"]["source"]["xpath"]
            == "/task[1]/taskbody[1]/steps[1]/step[5]/choicetable[1]")
    assert (chunks["topics/overview.dita#overview-pricing/section-2"]["source"]["xpath"]
            == "/concept[1]/concept[1]/conbody[1]/section[1]")
    # A conref'd element is found in the file it came from.
    assert (chunks["topics/create-vm.dita#create-vm/topics/shared-snippets.dita:quota"]["source"]["xpath"]
            == "/concept[1]/conbody[1]/section[1]")


def test_valid_xpath_attribute_wins_over_the_lookup(tmp_path):
    run = materialize("cloud-tpu", tmp_path)
    for job in ("v5p", "v6e", "tpu7x"):
        topic = run.parent / "jobs" / job / "topics" / "tpu-api.dita"
        if topic.exists():
            text = topic.read_text(encoding="utf-8").replace(
                '<section id="versions"', '<section xmlns:valid="urn:valid:dita" valid:xpath="/concept[1]/x[9]" id="versions"')
            topic.write_text(text, encoding="utf-8")
    chunks = export_chunks(run)
    assert chunks["topics/tpu-api.dita#tpu-api/versions"]["source"]["xpath"] == "/concept[1]/x[9]"


def test_xpath_is_empty_when_the_source_file_cannot_be_read(tmp_path):
    run = materialize("cloud-tpu", tmp_path)
    (run.parent / "src" / "topics" / "tpu7x.dita").unlink()
    vm = export_chunks(run)["topics/tpu7x.dita#tpu7x/vm"]["source"]
    assert vm == {"path": "topics/tpu7x.dita", "line": 7, "xpath": ""}


def test_paths_are_decoded_when_the_doc_set_path_needs_escaping(tmp_path):
    run = materialize("cloud-tpu", tmp_path / "doc set é")
    chunks = export_chunks(run)
    assert chunks["topics/tpu7x.dita#tpu7x/vm"]["source"] == {
        "path": "topics/tpu7x.dita", "line": 7, "xpath": "/concept[1]/conbody[1]/section[1]"}
    header = json.loads(run_export(run).splitlines()[0])
    scheme = next(o for o in header["owned_values"] if o["rule"] == "scheme-data")
    assert scheme["source"]["path"] == "../scheme/tpu-generations.ditamap"


def test_xtrc_without_a_location_still_names_the_source_element(tmp_path):
    # DITA-OT writes only "qname:count" when its parser gave no locator.
    run = materialize("cloud-tpu", tmp_path)
    for job in ("v5p", "v6e", "tpu7x"):
        topic = run.parent / "jobs" / job / "topics" / "runtimes.dita"
        topic.write_text(topic.read_text(encoding="utf-8").replace('xtrc="refsyn:1;7:13"', 'xtrc="refsyn:1"'),
                         encoding="utf-8")
    chunks = export_chunks(run)
    refsyn = chunks["topics/runtimes.dita#runtimes/refsyn-1"]
    assert refsyn["source"] == {"path": "topics/runtimes.dita", "line": 0, "xpath": "/reference[1]/refbody[1]/refsyn[1]"}
