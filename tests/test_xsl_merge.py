"""xsl/merge.xsl: per-profile builds merged into scope, variants, scope_origin, counts, order."""

from __future__ import annotations

import json

import pytest

from fixtures.preprocessed.materialize import materialize
from valid.export.xslt import run_export

PROFILES = ["v5p", "v6e", "tpu7x"]


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> tuple[dict, list[dict]]:
    run = materialize("cloud-tpu", tmp_path_factory.mktemp("merge"))
    lines = [json.loads(line) for line in run_export(run).splitlines()]
    return lines[0], lines[1:]


@pytest.fixture(scope="module")
def chunks(export) -> dict[str, dict]:
    return {chunk["id"]: chunk for chunk in export[1]}


def in_scope(chunk: dict) -> list[str]:
    return [p for p in PROFILES if chunk["scope"][p]]


def test_every_chunk_has_a_scope_entry_for_every_profile_in_order(export):
    for chunk in export[1]:
        assert list(chunk["scope"]) == PROFILES


def test_step_profiled_for_one_generation_splits_the_steps_into_variants(chunks):
    v6e = chunks["topics/create-vm.dita#create-vm/steps-1~v6e"]
    assert "Enable queued resources for v6e." in v6e["text"]
    assert in_scope(v6e) == ["v6e"] and v6e["scope_origin"] == "element"
    for other in ("v5p", "tpu7x"):
        assert "Enable queued resources" not in chunks[f"topics/create-vm.dita#create-vm/steps-1~{other}"]["text"]
    assert "topics/create-vm.dita#create-vm/steps-1" not in chunks  # no unsuffixed line once split


def test_table_with_a_row_per_generation_gives_one_variant_per_generation(chunks):
    for profile, row in (("v5p", "v5p | 4"), ("v6e", "v6e | 8"), ("tpu7x", "TPU7x | 4")):
        table = chunks[f"topics/runtimes.dita#runtimes/machine-table~{profile}"]
        assert table["text"].splitlines() == ["Generation | Chips per host", row]
        assert in_scope(table) == [profile] and table["scope_origin"] == "element"


def test_keyref_text_variants_group_profiles_that_share_a_text(chunks):
    shared_text = chunks["topics/overview.dita#overview/body~v5p+tpu7x"]
    assert "Each TPU VM host has 4 chips." in shared_text["text"]
    assert in_scope(shared_text) == ["v5p", "tpu7x"]
    assert "Each TPU VM host has 8 chips." in chunks["topics/overview.dita#overview/body~v6e"]["text"]
    # Variants of one chunk share its source and differ in digest.
    assert shared_text["source"] == chunks["topics/overview.dita#overview/body~v6e"]["source"]
    assert shared_text["digest"] != chunks["topics/overview.dita#overview/body~v6e"]["digest"]


def test_scope_narrows_inside_shared_topic(chunks):
    note = chunks["topics/runtimes.dita#runtimes/tpu7x-note"]
    assert in_scope(note) == ["tpu7x"] and note["scope_origin"] == "element"
    versions_body = chunks["topics/runtimes.dita#runtimes/body"]
    assert in_scope(versions_body) == PROFILES and versions_body["scope_origin"] == "shared"


def test_topic_in_two_branches_is_in_scope_for_both_and_cascaded(chunks):
    for local in ("body", "versions"):
        chunk = chunks[f"topics/tpu-api.dita#tpu-api/{local}"]
        assert in_scope(chunk) == ["v5p", "v6e"] and chunk["scope_origin"] == "cascaded"


def test_topic_whose_root_is_excluded_is_out_of_scope_for_that_profile(chunks):
    for local in ("context-1", "steps-unordered-1"):
        chunk = chunks[f"topics/queued-resources.dita#queued-resources/{local}"]
        assert in_scope(chunk) == ["v5p", "v6e"] and chunk["scope_origin"] == "cascaded"


def test_submap_profiled_on_its_mapref_cascades(chunks):
    for local in ("body", "vm", "frameworks"):
        chunk = chunks[f"topics/tpu7x.dita#tpu7x/{local}"]
        assert in_scope(chunk) == ["tpu7x"] and chunk["scope_origin"] == "cascaded"


def test_shared_chunks_are_in_scope_everywhere(chunks):
    for chunk_id in ("topics/create-vm.dita#create-vm/before", "topics/overview.dita#overview/terms",
                     "topics/create-vm.dita#create-vm/topics/shared-snippets.dita:quota"):
        assert in_scope(chunks[chunk_id]) == PROFILES and chunks[chunk_id]["scope_origin"] == "shared"


def test_counts(export):
    header, lines = export
    counts = header["counts"]
    assert counts["chunks"] == len(lines) == 36
    assert counts["per_profile"] == {p: sum(1 for c in lines if c["scope"][p]) for p in PROFILES}
    assert counts["per_profile"] == {"v5p": 21, "v6e": 21, "tpu7x": 21}
    # runtimes.dita#v4-legacy: in the unfiltered build, in no profile's; never exported.
    assert counts["kept_by_no_profile"] == 1
    assert not any("v4-legacy" in c["id"] for c in lines)


def test_chunks_are_sorted_by_source_path_then_document_order_then_variant(export):
    lines = export[1]
    keys = [(c["source"]["path"], c["source"]["line"]) for c in lines]
    assert keys == sorted(keys)
    variants = [c["id"] for c in lines if c["id"].startswith("topics/create-vm.dita#create-vm/steps-1~")]
    assert variants == [f"topics/create-vm.dita#create-vm/steps-1~{p}" for p in PROFILES]


def test_ids_are_unique(export):
    ids = [c["id"] for c in export[1]]
    assert len(ids) == len(set(ids))


def test_no_unfiltered_job_counts_zero(tmp_path):
    run = materialize("cloud-tpu", tmp_path)
    text = run.read_text(encoding="utf-8")
    run.write_text("\n".join(l for l in text.splitlines() if "<unfiltered " not in l), encoding="utf-8")
    header = json.loads(run_export(run).splitlines()[0])
    assert header["counts"]["kept_by_no_profile"] == 0
