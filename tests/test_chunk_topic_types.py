"""Chunks of common topic types (xsl/topic-types.xsl), matched on @class tokens.

A glossary entry is one chunk: term, definition and alternate forms. A troubleshooting topic keeps
each part with its title: the condition is a chunk, and each solution is one chunk holding its
cause and its remedy (steps included). Reference properties and syntax are a table and a section.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from valid.export import export

GLOSSENTRY = """<glossentry id="tpu">
  <glossterm>Tensor Processing Unit</glossterm>
  <glossdef>An accelerator for machine learning workloads.</glossdef>
  <glossBody>
    <glossUsage>Spell it out on first use.</glossUsage>
    <glossAlt id="acr"><glossAcronym>TPU</glossAcronym></glossAlt>
    <glossAlt><glossSynonym>ML accelerator</glossSynonym></glossAlt>
  </glossBody>
</glossentry>"""

TROUBLESHOOTING = """<troubleshooting id="oom">
  <title>Out of memory</title>
  <troublebody>
    <condition><p>The job stops with RESOURCE_EXHAUSTED.</p></condition>
    <troubleSolution>
      <cause><p>The batch does not fit in high-bandwidth memory.</p></cause>
      <remedy><title>Shrink the batch</title>
        <steps><step><cmd>Halve the batch size.</cmd></step><step><cmd>Run again.</cmd></step></steps>
      </remedy>
    </troubleSolution>
    <troubleSolution id="second">
      <cause><title>Leaked buffers</title><p>Old arrays are still referenced.</p></cause>
      <remedy><p>Delete them.</p></remedy>
    </troubleSolution>
  </troublebody>
</troubleshooting>"""

REFERENCE = """<reference id="flags">
  <title>Flags</title>
  <refbody>
    <refsyn id="syntax"><title>Syntax</title>
      <syntaxdiagram><groupseq><kwd>tpu-vm</kwd> <kwd>create</kwd> <var>NAME</var></groupseq></syntaxdiagram>
    </refsyn>
    <properties id="props">
      <prophead><proptypehd>Flag</proptypehd><propvaluehd>Default</propvaluehd><propdeschd>Meaning</propdeschd></prophead>
      <property><proptype>--zone</proptype><propvalue>none</propvalue><propdesc>Where the VM runs.</propdesc></property>
    </properties>
  </refbody>
</reference>"""


@pytest.fixture(scope="module")
def chunks(tmp_path_factory) -> dict[str, dict]:
    base: Path = tmp_path_factory.mktemp("types")
    files = {
        "m.ditamap": '<map><title>Guide</title><topicref href="tpu.dita"/><topicref href="oom.dita"/>'
                     '<topicref href="flags.dita"/></map>',
        "tpu.dita": GLOSSENTRY,
        "oom.dita": TROUBLESHOOTING,
        "flags.dita": REFERENCE,
        "all.ditaval": "<val/>",
    }
    for name, text in files.items():
        (base / name).write_text(text, encoding="utf-8")
    out = base / "out.jsonl"
    export(base / "m.ditamap", profiles=[("all", base / "all.ditaval")], out=out)
    return {c["id"]: c for c in map(json.loads, out.read_text().splitlines()[1:])}


def test_a_glossary_entry_is_one_chunk_with_term_definition_and_alternates(chunks):
    gloss = [c for c in chunks.values() if c["id"].startswith("tpu.dita#")]
    assert [c["id"] for c in gloss] == ["tpu.dita#tpu/body"]
    [entry] = gloss
    assert entry["title"] == "Tensor Processing Unit"
    assert entry["text"].splitlines()[0] == "Tensor Processing Unit"
    for part in ("An accelerator for machine learning workloads.", "Acronym: TPU", "Synonym: ML accelerator",
                 "Spell it out on first use."):
        assert part in entry["text"]


def test_a_troubleshooting_condition_is_a_chunk_titled_condition(chunks):
    condition = chunks["oom.dita#oom/condition-1"]
    assert condition["type"] == "section"
    assert condition["title"] == "Condition"
    assert condition["text"] == "The job stops with RESOURCE_EXHAUSTED."


def test_each_troubleshooting_solution_keeps_cause_and_remedy_together_with_their_titles(chunks):
    first = chunks["oom.dita#oom/troubleSolution-1"]
    assert first["title"] == "Shrink the batch"  # the first title among cause and remedy
    assert first["text"] == (
        "Cause:\n\nThe batch does not fit in high-bandwidth memory.\n\n"
        "Shrink the batch:\n\n1. Halve the batch size.\n2. Run again."
    )
    second = chunks["oom.dita#oom/second"]
    assert second["title"] == "Leaked buffers"
    assert "Leaked buffers:\n\nOld arrays are still referenced." in second["text"]
    assert "Remedy:\n\nDelete them." in second["text"]
    # cause, remedy and the remedy's steps are not chunks of their own
    assert not [i for i in chunks if i.startswith("oom.dita#") and ("cause" in i or "remedy" in i or "steps" in i)]


def test_reference_syntax_and_properties_are_chunks(chunks):
    syntax = chunks["flags.dita#flags/syntax"]
    assert syntax["type"] == "section" and syntax["title"] == "Syntax"
    assert syntax["text"] == "tpu-vm create NAME"
    props = chunks["flags.dita#flags/props"]
    assert props["type"] == "table"
    assert props["text"] == "Flag | Default | Meaning\n--zone | none | Where the VM runs."
