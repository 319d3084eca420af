"""xsl/chunk.xsl and xsl/job.xsl: what a chunk is, which topics a build keeps, chunk identity,
titles and breadcrumbs."""

from __future__ import annotations

import json

import pytest

from fixtures.preprocessed.materialize import materialize
from valid.export.xslt import run_export


@pytest.fixture(scope="module")
def chunks(tmp_path_factory) -> dict[str, dict]:
    run = materialize("cloud-tpu", tmp_path_factory.mktemp("chunks"))
    lines = [json.loads(line) for line in run_export(run).splitlines()]
    return {line["id"]: line for line in lines[1:]}


def base_ids(chunks: dict[str, dict]) -> set[str]:
    return {chunk_id.split("~")[0] for chunk_id in chunks}


def test_every_chunk_type_is_exported(chunks):
    types = {}
    for chunk in chunks.values():
        types.setdefault(chunk["type"], set()).add(chunk["id"].split("~")[0])
    assert "topics/tpu7x.dita#tpu7x/body" in types["body"]
    assert "topics/tpu7x.dita#tpu7x/vm" in types["section"]
    assert "topics/overview.dita#overview/list-example" in types["example"]
    assert "topics/runtimes.dita#runtimes/machine-table" in types["table"]  # topic/table
    assert "topics/runtimes.dita#runtimes/versions" in types["table"]  # properties: a simpletable
    assert "topics/create-vm.dita#create-vm/choicetable-1" in types["table"]  # choicetable in a step
    assert "topics/create-vm.dita#create-vm/steps-1" in types["steps"]
    assert "topics/queued-resources.dita#queued-resources/steps-unordered-1" in types["steps"]


def test_section_specializations_are_sections(chunks):
    ids = base_ids(chunks)
    for local in ("before", "context-1", "result-1", "postreq-1"):  # prereq (has an id), context, result, postreq
        assert f"topics/create-vm.dita#create-vm/{local}" in ids
    assert chunks["topics/runtimes.dita#runtimes/refsyn-1"]["type"] == "section"


def test_local_id_is_element_id_else_qname_and_source_count(chunks):
    ids = base_ids(chunks)
    assert "topics/overview.dita#overview/terms" in ids  # @id
    # No @id: qname and its count among same-named elements of the source file (from @xtrc).
    assert "topics/overview.dita#overview-pricing/section-2" in ids


def test_nested_topic_gives_its_own_chunks_with_both_titles(chunks):
    billing = chunks["topics/overview.dita#overview-pricing/section-2"]
    assert billing["topic_id"] == "overview-pricing"
    assert billing["breadcrumbs"] == ["Cloud TPU", "Cloud TPU overview", "Pricing", "Billing"]
    # The nested topic is outside the outer body: its text is not in the outer body chunk.
    assert all("chip-hour" not in c["text"] for c in chunks.values() if c["topic_id"] == "overview")


def test_conref_chunk_local_id_names_the_file_it_came_from(chunks):
    quota = chunks["topics/create-vm.dita#create-vm/topics/shared-snippets.dita:quota"]
    assert quota["topic_id"] == "create-vm"
    assert quota["source"]["path"] == "topics/shared-snippets.dita"
    assert quota["breadcrumbs"] == ["Cloud TPU", "Create a TPU VM", "Quota"]


def test_resource_only_reference_is_not_exported(chunks):
    assert not any(c["id"].startswith("topics/shared-snippets.dita") for c in chunks.values())


def test_rest_of_body_excludes_other_chunks_and_keeps_shortdesc(chunks):
    body = chunks["topics/tpu-api.dita#tpu-api/body"]
    assert body["text"] == "Manage TPU VMs with the Cloud TPU API.\n\nUse the tpu.googleapis.com service."
    assert body["title"] == "Cloud TPU API"
    assert body["breadcrumbs"] == ["Cloud TPU", "Cloud TPU API"]  # own title equals the topic's: not repeated


def test_empty_body_gives_no_body_chunk(chunks):
    # overview-pricing's body holds only a section; queued-resources has no shortdesc and only chunks.
    assert "topics/overview.dita#overview-pricing/body" not in base_ids(chunks)
    assert "topics/queued-resources.dita#queued-resources/body" not in base_ids(chunks)


def test_table_inside_section_is_its_own_chunk_and_not_in_the_section_text(chunks):
    section = chunks["topics/runtimes.dita#runtimes/machine-types"]
    assert section["text"] == "Machine types differ by generation."
    table = chunks["topics/runtimes.dita#runtimes/machine-table~v6e"]
    assert table["title"] == "Chips per host"
    assert table["breadcrumbs"] == ["Cloud TPU", "TPU software versions", "Chips per host"]


def test_steps_and_untitled_tables_take_the_topic_title(chunks):
    assert chunks["topics/create-vm.dita#create-vm/steps-1~v6e"]["title"] == "Create a TPU VM"
    assert chunks["topics/runtimes.dita#runtimes/versions~v5p"]["title"] == "TPU software versions"


def test_choicetable_is_left_out_of_the_steps_text(chunks):
    steps = chunks["topics/create-vm.dita#create-vm/steps-1~v6e"]["text"]
    assert "v6e-8" not in steps and "Accelerator type" not in steps
    assert "Check the accelerator type." in steps


def test_a_stylesheet_importing_the_export_overrides_chunk_types_in_mode_chunk_type(tmp_path):
    # The extension point the DITA-OT plugin exposes (org.valid.index.xsl): a team's stylesheet,
    # imported after xsl/valid-index.xsl, makes its own elements chunks without forking xsl/.
    from saxonche import PySaxonProcessor

    from valid.export.xslt import SAXON_CONFIG, xsl_dir

    wrapper = tmp_path / "team.xsl"
    wrapper.write_text(f"""<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
        xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:v="urn:valid:xsl" exclude-result-prefixes="#all">
      <xsl:import href="{(xsl_dir() / 'valid-index.xsl').as_uri()}"/>
      <xsl:template match="*[contains(@class, ' topic/note ')]" mode="v:chunk-type" as="xs:string">section</xsl:template>
      <xsl:template match="*[contains(@class, ' topic/example ')]" mode="v:chunk-type" as="xs:string"><xsl:sequence select="''"/></xsl:template>
    </xsl:stylesheet>""", encoding="utf-8")
    run = materialize("cloud-tpu", tmp_path)
    with PySaxonProcessor(license=False) as proc:
        for name, value in SAXON_CONFIG.items():  # as `valid export` runs it (no DTD loading)
            proc.set_configuration_property(name, value)
        exe = proc.new_xslt30_processor().compile_stylesheet(stylesheet_file=str(wrapper))
        exe.set_parameter("digests", proc.make_string_value("deferred"))
        lines = [json.loads(line) for line in exe.transform_to_string(source_file=str(run)).splitlines()]
    plain = [json.loads(line) for line in run_export(run).splitlines()]
    notes = [c for c in lines[1:] if c["source"]["xpath"].rsplit("/", 1)[-1].startswith("note[")]
    assert notes and {c["type"] for c in notes} == {"section"}
    assert not any(c["type"] == "example" for c in lines[1:])  # '' from the mode: not a chunk
    assert any(c["type"] == "example" for c in plain[1:])
