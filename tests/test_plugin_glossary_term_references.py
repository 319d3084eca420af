"""References to glossary entries read the same through the plugin as through `valid export`.

DITA-OT's preprocess fills an empty <term> or <abbreviated-form> whose key names a glossentry with
the entry's title after <?ditaot gentext?>; its HTML5 output then shows the surface form for the
first reference to the key and the preferred short form for later ones, from the entry as the build
filtered it. The stylesheets render that text from the job's glossentry, so the plugin's chunk text
is what `valid export` gives (tests/test_glossary_term_references.py holds the rule itself).

The jobs under tests/fixtures/dita-ot/glossary/jobs/ are DITA-OT 4.2.4's own preprocess2 output for
glossary/source/ (one per profile, machine paths replaced by placeholders); the same source through
a real DITA-OT is in tests/test_plugin_dita_ot.py.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("dita_ot_jobs", Path(__file__).parent / "fixtures" / "dita-ot" / "jobs.py")
jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jobs)

GLOSSARY = jobs.HERE / "glossary"
SOURCE = GLOSSARY / "source"
SCHEME = SOURCE / "scheme.ditamap"

# What DITA-OT's HTML5 output of each build shows for the topic (the rule of glossterms.py).
EXPECTED = {
    "v5p": "Install the DITA Open Toolkit first. Then run DITA-OT on your maps.\n\n"
    "Each virtual machine builds one map; a second VM builds another with DITA-OT.\n\n"
    "A build host is fine too.",
    # v6e keeps the entry's surface form, which v5p's build filters out.
    "v6e": "Install the DITA Open Toolkit (DITA-OT) first. Then run DITA-OT on your maps.\n\n"
    "Each virtual machine builds one map; a second VM builds another with DITA-OT.\n\n"
    "A build host is fine too.",
}


def _chunks(lines: list[dict]) -> dict[str, dict]:
    return {c["id"]: c for c in lines if c["kind"] == "chunk"}


@pytest.fixture(scope="module")
def plugin_export(tmp_path_factory) -> list[dict]:
    from saxonche import PySaxonProcessor

    tmp = tmp_path_factory.mktemp("plugin-glossary")
    unfiltered = jobs.materialize(GLOSSARY / "jobs" / "_unfiltered", SOURCE, tmp / "temp")
    digest = jobs.stylesheet_digest_by_definition(jobs.REPO / "xsl")
    jobs.plan(unfiltered, tmp / "temp" / "valid", scheme=SCHEME, stylesheet_digest=digest)
    result = jobs.ant(
        "harness.plan",
        buildfile=jobs.HARNESS,
        harness__plugin__dir=str(jobs.REPO / "dita-ot-plugin"),
        harness__jobs=str(GLOSSARY / "jobs"),
        harness__src__uri=jobs.dita_ot_uri(SOURCE),
        harness__temp=str(tmp / "temp"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    with PySaxonProcessor(license=False) as proc:
        exe = proc.new_xslt30_processor().compile_stylesheet(stylesheet_file=str(jobs.REPO / "xsl" / "valid-index.xsl"))
        text = exe.transform_to_string(source_file=str(tmp / "temp" / "valid" / "run.xml"))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_the_plugin_shows_each_builds_glossary_text(plugin_export):
    chunks = _chunks(plugin_export)
    for profile, text in EXPECTED.items():
        assert chunks[f"topics/start.dita#start/body~{profile}"]["text"] == text


def test_the_plugin_and_valid_export_give_the_same_chunks(plugin_export, tmp_path):
    from valid.export import export

    export(SOURCE / "gloss.ditamap", scheme=SCHEME, out=tmp_path / "ref.jsonl")
    reference = [json.loads(line) for line in (tmp_path / "ref.jsonl").read_text(encoding="utf-8").splitlines()]
    ours, theirs = _chunks(plugin_export), _chunks(reference)
    assert sorted(ours) == sorted(theirs)
    for chunk_id, chunk in theirs.items():
        assert ours[chunk_id]["text"] == chunk["text"], chunk_id
        assert ours[chunk_id]["scope"] == chunk["scope"], chunk_id


def test_the_jobs_hold_dita_ots_generated_title_not_the_rendered_text():
    # Guards the fixture: without the stylesheet's rule the plugin would read DITA-OT's gentext,
    # the entry's title for every reference ("Then run DITA Open Toolkit on your maps").
    start = (GLOSSARY / "jobs" / "v5p" / "topics" / "start.dita").read_text(encoding="utf-8")
    assert start.count('type="glossentry"><?ditaot gentext?>DITA Open Toolkit</abbreviated-form>') == 2
    assert "DITA-OT<" not in start
