"""Specializations: @class and @domains defaults from the DTD shells a doc set ships, read locally."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from valid.dita.loader import load
from valid.errors import ConfigError
from valid.export import export
from valid.export.file import read_export

SPEC = Path(__file__).parent / "fixtures" / "dita" / "specialization"
WIDGET_PUBLIC = "-//ACME//DTD Widget Topic//EN"


def gear(docset):
    return next(sf for sf in docset.files.values() if sf.path.endswith("gear.dita")).root


def copy_fixture(tmp_path: Path) -> Path:
    shutil.copytree(SPEC, tmp_path / "spec")
    return tmp_path / "spec"


def test_shipped_shell_supplies_class_and_domains_through_its_modules():
    docset = load(SPEC / "widgets.ditamap")
    root = gear(docset)
    assert root.get("class") == "- topic/topic widgetTopic/widgetTopic "
    assert root.get("domains") == "(topic hi-d) (topic widget-d)"
    assert root.find("widgetBody/widgetFeature").get("class") == "- topic/section widgetTopic/widgetFeature "
    assert docset.warnings == []


def test_custom_specialization_chunks_like_its_base_type(tmp_path):
    out = tmp_path / "w.jsonl"
    export(SPEC / "widgets.ditamap", profiles={"all": SPEC / "all.ditaval"}, out=out)
    chunks = {c.id: c for c in read_export(out).chunks}
    assert chunks["topics/gear.dita#gear/torque"].type == "section"
    assert chunks["topics/gear.dita#gear/torque"].title == "Torque"
    assert chunks["topics/gear.dita#gear/body"].type == "body"
    assert chunks["topics/gear.dita#gear/body"].text == "A gear transmits torque."


def test_a_catalog_maps_the_public_id_to_the_shell(tmp_path):
    spec = copy_fixture(tmp_path)
    topic = spec / "topics" / "gear.dita"
    topic.write_text(topic.read_text().replace('"../dtd/widgetTopic.dtd"', '"widgetTopic.dtd"'))
    without = load(spec / "widgets.ditamap")
    assert gear(without).get("class") is None
    assert [w.feature for w in without.warnings][0] == "grammar"
    with_catalog = load(spec / "widgets.ditamap", catalog=spec / "catalog.xml")
    assert gear(with_catalog).get("class") == "- topic/topic widgetTopic/widgetTopic "
    assert with_catalog.warnings == []


def test_without_the_grammar_the_builtin_table_is_the_fallback_with_warnings(tmp_path):
    spec = copy_fixture(tmp_path)
    shutil.rmtree(spec / "dtd")
    docset = load(spec / "widgets.ditamap")
    root = gear(docset)
    assert root.find("title").get("class") == " - topic/title "  # the built-in DITA 1.3 table
    assert root.get("class") is None
    grammar, *unknown = docset.warnings
    assert (grammar.path, grammar.feature) == ("topics/gear.dita", "grammar")
    assert f"'{WIDGET_PUBLIC}' is not available locally" in grammar.message
    assert {w.feature for w in unknown} == {"unknown-element"}


def test_standard_dita_doctypes_without_a_shipped_grammar_are_silent(tmp_path):
    (tmp_path / "m.ditamap").write_text('<!DOCTYPE map PUBLIC "-//OASIS//DTD DITA Map//EN" "map.dtd">\n<map/>')
    assert load(tmp_path / "m.ditamap").warnings == []


def test_a_shell_outside_the_doc_set_root_is_not_read(tmp_path):
    spec = copy_fixture(tmp_path)
    shutil.move(spec / "dtd", tmp_path / "dtd")
    topic = spec / "topics" / "gear.dita"
    topic.write_text(topic.read_text().replace('"../dtd/widgetTopic.dtd"', '"../../dtd/widgetTopic.dtd"'))
    docset = load(spec / "widgets.ditamap")
    assert gear(docset).get("class") is None
    assert "outside the doc-set root and is not read" in docset.warnings[0].message


@pytest.mark.parametrize(
    "module_id",
    ["../../outside/widgetTopic.mod", "http://127.0.0.1:9/widgetTopic.mod", "/etc/passwd"],
)
def test_a_module_outside_the_root_or_on_the_network_is_refused(tmp_path, module_id):
    spec = copy_fixture(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(spec / "dtd" / "widgetTopic.mod", outside / "widgetTopic.mod")
    shell = spec / "dtd" / "widgetTopic.dtd"
    shell.write_text(shell.read_text().replace('"widgetTopic.mod"', f'"{module_id}"'))
    docset = load(spec / "widgets.ditamap")
    assert gear(docset).get("class") is None
    [grammar] = [w for w in docset.warnings if w.feature == "grammar"]
    assert "refers to '-//ACME//ELEMENTS Widget Topic//EN', which is not read" in grammar.message


def test_a_missing_or_malformed_catalog_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read catalog"):
        load(SPEC / "widgets.ditamap", catalog=tmp_path / "none.xml")
    (tmp_path / "c.xml").write_text("<catalog>")
    with pytest.raises(ConfigError, match="malformed catalog"):
        load(SPEC / "widgets.ditamap", catalog=tmp_path / "c.xml")
