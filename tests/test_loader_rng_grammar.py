"""Specializations declared in RELAX NG: @class and @domains defaults from the RNG shells a doc set
ships, read locally, as DITA-OT applies them to a document that names its grammar with
`<?xml-model href="..." schematypens="http://relaxng.org/ns/structure/1.0"?>`.

The fixture follows the DITA 1.3 RNG shells: the shell declares @domains (a:defaultValue on the
`domains-att` define), includes the OASIS base module by URN (its elements are VALID's built-in
table) and the widget module, whose elements' @class defaults are a:defaultValue annotations in
`<name>.attlist` defines combined by interleave.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from valid.dita.loader import load
from valid.export import export
from valid.export.file import read_export

SPEC = Path(__file__).parent / "fixtures" / "dita" / "specialization-rng"
MODULE_URN = "urn:acme:dita:rng:widgetTopicMod.rng"


def gear(docset):
    return next(sf for sf in docset.files.values() if sf.path.endswith("gear.dita")).root


def copy_fixture(tmp_path: Path) -> Path:
    shutil.copytree(SPEC, tmp_path / "spec")
    return tmp_path / "spec"


def test_an_rng_shell_supplies_class_and_domains_through_its_modules():
    docset = load(SPEC / "widgets.ditamap", catalog=SPEC / "catalog.xml")
    root = gear(docset)
    assert root.get("class") == "- topic/topic widgetTopic/widgetTopic "
    assert root.get("domains") == "(topic hi-d) (topic widget-d)"
    assert root.find("widgetBody").get("class") == "- topic/body widgetTopic/widgetBody "
    assert root.find("widgetBody/widgetFeature").get("class") == "- topic/section widgetTopic/widgetFeature "
    assert root.find("title").get("class") == " - topic/title "  # the OASIS module: the built-in table
    assert docset.warnings == []


def test_an_rng_specialization_chunks_like_its_base_type(tmp_path):
    out = tmp_path / "w.jsonl"
    export(SPEC / "widgets.ditamap", profiles={"all": SPEC / "all.ditaval"}, catalog=SPEC / "catalog.xml", out=out)
    chunks = {c.id: c for c in read_export(out).chunks}
    assert chunks["topics/gear.dita#gear/torque"].type == "section"
    assert chunks["topics/gear.dita#gear/torque"].text == "The gear carries up to 40 Nm."
    assert chunks["topics/gear.dita#gear/body"].text == "A gear transmits torque."


def test_modules_are_found_beside_the_shell_without_a_catalog(tmp_path):
    spec = copy_fixture(tmp_path)
    shell = spec / "rng" / "widgetTopicShell.rng"
    shell.write_text(shell.read_text().replace(MODULE_URN, "widgetTopicMod.rng"))
    docset = load(spec / "widgets.ditamap")
    assert gear(docset).get("class") == "- topic/topic widgetTopic/widgetTopic "
    assert docset.warnings == []


def test_a_module_that_is_not_available_locally_leaves_the_builtin_table_with_a_warning():
    docset = load(SPEC / "widgets.ditamap")  # the module's URN is in the catalog only
    assert gear(docset).get("class") is None
    grammar = next(w for w in docset.warnings if w.feature == "grammar")
    assert (grammar.path, grammar.line) == ("topics/gear.dita", 1)
    assert f"'{MODULE_URN}' (named in widgetTopicShell.rng) is not available locally" in grammar.message


def test_an_rng_shell_outside_the_doc_set_root_is_not_read(tmp_path):
    spec = copy_fixture(tmp_path)
    shutil.move(spec / "rng", tmp_path / "rng")
    topic = spec / "topics" / "gear.dita"
    topic.write_text(topic.read_text().replace('href="../rng/', 'href="../../rng/'))
    docset = load(spec / "widgets.ditamap")
    assert gear(docset).get("class") is None
    assert "is not available locally inside the doc-set root" in docset.warnings[0].message


def test_the_oasis_rng_shells_need_no_shipped_grammar(tmp_path):
    (tmp_path / "t.dita").write_text(
        '<?xml-model href="urn:oasis:names:tc:dita:rng:topic.rng" schematypens="http://relaxng.org/ns/structure/1.0"?>\n'
        '<topic id="t"><title>T</title></topic>'
    )
    (tmp_path / "m.ditamap").write_text('<map><topicref href="t.dita"/></map>')
    docset = load(tmp_path / "m.ditamap")
    assert docset.warnings == []
    assert next(sf for sf in docset.files.values() if sf.path == "t.dita").root.get("class") == " - topic/topic "
