"""xsl/text.xsl: chunk text (steps, lists, tables, paragraphs, verbatim code), skipped content,
and the `code` list."""

from __future__ import annotations

import json

import pytest

from fixtures.preprocessed.materialize import materialize
from valid.export.xslt import run_export


@pytest.fixture(scope="module")
def chunks(tmp_path_factory) -> dict[str, dict]:
    run = materialize("cloud-tpu", tmp_path_factory.mktemp("text"))
    lines = [json.loads(line) for line in run_export(run).splitlines()]
    return {line["id"]: line for line in lines[1:]}


def test_steps_are_numbered_with_details_indented_and_choices_as_dashes(chunks):
    assert chunks["topics/create-vm.dita#create-vm/steps-1~v5p"]["text"] == (
        "1. Set the zone.\n"
        "gcloud config set compute/zone us-central2-b\n"  # verbatim: never indented
        "2. Create the VM with gcloud compute tpus tpu-vm create.\n"
        "   Pass --version=v2-alpha-tpuv5.\n"
        "   1. Choose a name.\n"
        "   2. Choose an accelerator type.\n"
        "3. Pick how to connect.\n"
        "   - Use gcloud compute tpus tpu-vm ssh.\n"
        "   - Use the console.\n"
        "4. Check the accelerator type.\n"
        "   See Cloud TPU overview for chip counts."
    )


def test_unordered_steps_use_dashes(chunks):
    assert chunks["topics/queued-resources.dita#queued-resources/steps-unordered-1"]["text"] == (
        "- Run gcloud compute tpus queued-resources create.\n"
        "- Check the state with gcloud compute tpus queued-resources describe."
    )


def test_paragraphs_are_separated_by_blank_lines_and_whitespace_normalized(chunks):
    text = chunks["topics/overview.dita#overview/body~v6e"]["text"]
    assert text == (
        "Cloud TPU runs machine learning workloads on tensor processing units.\n\n"
        "Each TPU VM host has 8 chips.\n\n"
        "A slice is a set of chips connected by inter-chip interconnect.\n\n"
        "- TPU v5p: training at scale.\n"
        "- TPU v6e (Trillium): training and serving.\n"
        "- TPU7x (Ironwood): inference."
    )


def test_skipped_content_is_not_in_the_text(chunks):
    body = chunks["topics/overview.dita#overview/body~v6e"]["text"]
    for hidden in ("chips per host", "Check the ICI name", "Old text about TPU v4", "tpu-docs", "owner"):
        assert hidden not in body  # indexterm, draft-comment, required-cleanup, data
    steps = chunks["topics/create-vm.dita#create-vm/steps-1~v6e"]["text"]
    assert "change" not in steps  # ditaval-startprop/endprop flag markup



def test_link_text_dita_ot_generated_is_kept(chunks):
    # An empty xref that DITA-OT's topicpull filled (<?ditaot gentext?> + the target's title)
    # reads as the published page does, not "see ."
    steps = chunks["topics/create-vm.dita#create-vm/steps-1~v6e"]["text"]
    assert "Cloud TPU overview" in steps


def test_a_links_desc_is_hover_text_and_not_in_the_sentence(tmp_path):
    # DITA-OT 4.x topicpull also copies the target's shortdesc into the xref as <desc> after
    # <?ditaot genshortdesc?>; HTML shows it on hover only, so the sentence stays "See X for ...".
    run = materialize("cloud-tpu", tmp_path)
    for job in sorted((run.parent / "jobs").glob("*/topics/create-vm.dita")):
        text = job.read_text(encoding="utf-8")
        assert "Cloud TPU overview</xref>" in text
        job.write_text(text.replace(
            "Cloud TPU overview</xref>",
            'Cloud TPU overview<?ditaot genshortdesc?><desc class="- topic/desc ">Hover only.</desc></xref>',
        ), encoding="utf-8")
    lines = [json.loads(line) for line in run_export(run).splitlines()]
    steps = {c["id"]: c for c in lines[1:]}["topics/create-vm.dita#create-vm/steps-1~v6e"]["text"]
    assert "See Cloud TPU overview for chip counts." in steps
    assert "Hover only" not in steps


def test_table_rows_are_cells_joined_with_bars_header_first(chunks):
    assert chunks["topics/runtimes.dita#runtimes/machine-table~tpu7x"]["text"] == (
        "Generation | Chips per host\nTPU7x | 4"
    )
    assert chunks["topics/runtimes.dita#runtimes/versions~v6e"]["text"] == (
        "Framework | Generation | Version\nJAX | v6e | v2-alpha-tpuv6e"
    )


def test_codeblock_is_verbatim_with_line_breaks(chunks):
    example = chunks["topics/overview.dita#overview/list-example"]
    code = "gcloud compute tpus accelerator-types list \\\n    --zone=us-central2-b"
    assert example["text"] == code  # leading blank line and trailing whitespace dropped, indentation kept
    assert example["code"] == [code]
    assert example["title"] == "List accelerator types"


def test_definition_lists_and_notes(chunks):
    assert chunks["topics/overview.dita#overview/terms"]["text"] == (
        "- Host\n  A VM attached to TPU chips.\n- Slice\n  Chips that work together.\n\n"
        "Tip: Use gcloud compute tpus list to see your TPUs."
    )


def test_code_lists_code_phrases_and_blocks_in_order_once(chunks):
    assert chunks["topics/create-vm.dita#create-vm/steps-1~v6e"]["code"] == [
        "gcloud config set compute/zone us-central2-b",  # codeblock
        "gcloud compute tpus tpu-vm create",  # codeph
        "--version=v2-alpha-tpuv6e",  # option, with its keyref resolved
        "gcloud compute tpus tpu-vm ssh",  # userinput
    ]
    assert chunks["topics/create-vm.dita#create-vm/body"]["code"] == ["gcloud"]  # cmdname in the shortdesc
    refsyn = chunks["topics/runtimes.dita#runtimes/refsyn-1"]
    assert refsyn["code"] == ["--version", "gcloud compute tpus tpu-vm create NAME --version=VERSION"]


def test_every_code_item_appears_verbatim_in_its_chunk_text(chunks):
    for chunk in chunks.values():
        for code in chunk["code"]:
            assert code in chunk["text"], (chunk["id"], code)


def test_section_title_is_not_repeated_in_the_text(chunks):
    vm = chunks["topics/tpu7x.dita#tpu7x/vm"]
    assert vm["title"] == "VM shape"
    assert vm["text"] == "Each TPU7x VM has 4 chips. Use the tpu7x-standard-4t machine type."
