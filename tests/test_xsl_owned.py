"""xsl/owned.xsl: owned values (keydef, scheme-data) and profile labels in the header."""

from __future__ import annotations

import json
import re

import pytest

from fixtures.preprocessed.materialize import materialize
from valid.export.xslt import run_export


@pytest.fixture(scope="module")
def header(tmp_path_factory) -> dict:
    run = materialize("cloud-tpu", tmp_path_factory.mktemp("owned"))
    return json.loads(run_export(run).splitlines()[0])


def owned(header: dict, rule: str) -> dict[str, list[str]]:
    return {o["value"]: o["profiles"] for o in header["owned_values"] if o["rule"] == rule}


def test_keydef_values_held_by_some_of_the_defining_profiles_are_owned(header):
    assert owned(header, "keydef") == {
        "4 chips": ["v5p", "tpu7x"],
        "8 chips": ["v6e"],
        # tpu7x defines no runtime-version: each text belongs to a strict subset of v5p, v6e.
        "v2-alpha-tpuv5": ["v5p"],
        "v2-alpha-tpuv6e": ["v6e"],
    }
    # "product" resolves to the same text in every profile: nobody owns it.
    assert all(o["key"] != "product" for o in header["owned_values"])


def test_keydef_owned_value_names_its_key_and_source(header):
    eight = next(o for o in header["owned_values"] if o["value"] == "8 chips")
    assert eight["key"] == "chips-per-host"
    assert eight["source"] == {"path": "cloud-tpu.ditamap", "line": 9, "xpath": "/map[1]/keydef[2]"}


def test_scheme_data_is_owned_by_its_subject_and_the_subjects_below_it(header):
    assert owned(header, "scheme-data") == {
        "v5p-8": ["v5p"],
        "v6e-8": ["v6e"],
        "ct6e-standard-4t": ["v6e"],
        "tpu7x-standard-4t": ["tpu7x"],
        "v2-alpha": ["v5p", "v6e"],  # on the family subject "before-ironwood"
    }  # "Cloud TPU" sits on the root subject: every profile has it, so it is not owned
    data = next(o for o in header["owned_values"] if o["value"] == "tpu7x-standard-4t")
    assert data["key"] is None
    assert data["source"]["path"] == "../scheme/tpu-generations.ditamap"
    assert data["source"]["xpath"] == "/subjectScheme[1]/subjectdef[1]/subjectdef[2]/data[1]"


def test_owned_values_are_sorted_by_rule_key_value(header):
    keys = [(o["rule"], o["key"] or "", o["value"]) for o in header["owned_values"]]
    assert keys == sorted(keys)


def test_labels_come_from_the_run_document_else_the_subject_scheme(header):
    labels = {p["name"]: p["labels"] for p in header["profiles"]}
    assert labels["v6e"] == ["Trillium (v6e)", "TPU v6e"]  # <label> in the run document wins
    assert labels["v5p"] == ["Cloud TPU v5p", "TPU v5p", "v5p"]  # navtitle, then keywords
    assert labels["tpu7x"] == ["TPU7x", "Ironwood"]


def test_without_a_scheme_labels_are_the_profile_name_and_no_data_is_owned(tmp_path):
    run = materialize("cloud-tpu", tmp_path)
    text = re.sub(r"<scheme [^>]*/>", "", run.read_text(encoding="utf-8"))
    run.write_text(text, encoding="utf-8")
    header = json.loads(run_export(run).splitlines()[0])
    assert {p["name"]: p["labels"] for p in header["profiles"]} == {
        "v5p": ["v5p"], "v6e": ["Trillium (v6e)", "TPU v6e"], "tpu7x": ["tpu7x"]}
    assert owned(header, "scheme-data") == {}
    assert owned(header, "keydef")  # keydef values do not need a scheme
