"""`ant dist` builds the DITA-OT plugin zip: plugin.xml with the transtype and every parameter,
the Ant file wired to DITA-OT's preprocessing, the stylesheets byte for byte from xsl/, and the
stylesheet digest computed in Ant equal to Python's."""

from __future__ import annotations

import importlib.util
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("dita_ot_jobs", Path(__file__).parent / "fixtures" / "dita-ot" / "jobs.py")
jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jobs)

REPO = jobs.REPO
PLUGIN_SRC = REPO / "dita-ot-plugin"
DOCS = REPO / "docs" / "dita-ot.md"



@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """Build the zip into a scratch copy of the build dirs, so the test never races a developer's build/."""
    out = tmp_path_factory.mktemp("dist")
    result = jobs.ant("dist", build__dir=str(out / "build"), dist__dir=str(out / "dist"))
    assert result.returncode == 0, result.stdout + result.stderr
    version = ET.parse(PLUGIN_SRC / "plugin.xml").getroot().get("version")
    zip_path = out / "dist" / f"{jobs.PLUGIN_ID}-{version}.zip"
    assert zip_path.is_file()
    return zip_path


def test_ant_dist_builds_the_plugin_zip(dist):
    with zipfile.ZipFile(dist) as z:
        names = set(z.namelist())
    for required in ("plugin.xml", "build_valid-index.xml", "README.md", "xsl/valid-index.xsl",
                     "xsl-plugin/plan.xsl", "xsl-plugin/check-values.xsl",
                     "build_valid-html5.xml", "html5-ask-box-params.xml", "xsl-plugin/ask-box.xsl"):
        assert f"{jobs.PLUGIN_ID}/{required}" in names


def test_zip_stylesheets_are_byte_identical_to_xsl(dist, tmp_path):
    plugin = jobs.unpack(dist, tmp_path)
    shipped = sorted(p.relative_to(plugin / "xsl").as_posix() for p in (plugin / "xsl").rglob("*") if p.is_file())
    source = sorted(p.relative_to(REPO / "xsl").as_posix() for p in (REPO / "xsl").rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".md")
    assert shipped == source
    for rel in shipped:
        assert (plugin / "xsl" / rel).read_bytes() == (REPO / "xsl" / rel).read_bytes(), rel


def test_the_same_sources_give_the_same_zip(dist, tmp_path):
    again = jobs.ant("dist", build__dir=str(tmp_path / "build"), dist__dir=str(tmp_path / "dist"))
    assert again.returncode == 0
    assert (tmp_path / "dist" / dist.name).read_bytes() == dist.read_bytes()


def test_ant_stylesheet_digest_equals_python(dist, tmp_path):
    plugin = jobs.unpack(dist, tmp_path / "plugin")
    out = tmp_path / "digest.txt"
    result = jobs.ant("harness.digest", buildfile=jobs.HARNESS, harness__plugin__dir=str(plugin),
                      dita__plugin__org__valid__index__dir=str(plugin), dita__temp__dir=str(tmp_path / "temp"),
                      harness__out=str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    digest = out.read_text().strip()
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert digest == jobs.stylesheet_digest_by_definition(REPO / "xsl")
    from valid.export.xslt import stylesheet_digest

    assert digest == stylesheet_digest()


def test_ant_clean_removes_build_and_dist(tmp_path):
    (tmp_path / "build" / "x").mkdir(parents=True)
    (tmp_path / "dist").mkdir()
    result = jobs.ant("clean", build__dir=str(tmp_path / "build"), dist__dir=str(tmp_path / "dist"))
    assert result.returncode == 0
    assert not (tmp_path / "build").exists() and not (tmp_path / "dist").exists()


# ------------------------------------------------------------------- plugin.xml and the Ant file

def _params(transtype: str = "valid-index") -> dict[str, ET.Element]:
    root = ET.parse(PLUGIN_SRC / "plugin.xml").getroot()
    transtypes = {t.get("name"): t for t in root.findall("transtype")}
    assert list(transtypes) == ["valid-index", "valid-html5"]
    return {p.get("name"): p for p in transtypes[transtype].findall("param")}


def _all_params() -> dict[str, ET.Element]:
    return _params("valid-index") | _params("valid-html5")


# Each Ant file of the plugin, with the files it hands properties to (DITA-OT parameter files).
ANT_FILES = {
    "build_valid-index.xml": ("build_valid-index.xml",),
    "build_valid-html5.xml": ("build_valid-html5.xml", "html5-ask-box-params.xml"),
}


def _ant_text(ant_file: str) -> str:
    return "".join((PLUGIN_SRC / name).read_text() for name in ANT_FILES[ant_file])


def test_plugin_xml_declares_the_transtype_and_every_param():
    root = ET.parse(PLUGIN_SRC / "plugin.xml").getroot()
    assert root.get("id") == jobs.PLUGIN_ID
    assert [r.get("plugin") for r in root.findall("require")] == ["org.dita.base", "org.dita.html5"]
    assert [(f.get("extension"), f.get("file")) for f in root.findall("feature")] == [
        ("ant.import", "build_valid-index.xml"),
        ("ant.import", "build_valid-html5.xml"),
        ("dita.xsl.html5", "xsl-plugin/ask-box.xsl"),
        ("dita.conductor.html5.param", "html5-ask-box-params.xml"),
        ("dita.conductor.html5.toc.param", "html5-ask-box-params.xml"),
    ]
    html5 = root.find("transtype[@name='valid-html5']")
    assert html5.get("extends") == "html5"
    assert set(_params("valid-html5")) == {"valid.ask.url", "valid.ask.profile"}
    assert all(p.get("type") == "string" and p.get("desc") for p in _params("valid-html5").values())
    params = _params()
    assert set(params) == {
        "valid.scheme", "valid.attribute", "valid.parent.profiles", "valid.ditavals", "valid.output.name", "valid.index",
        "valid.audit", "valid.report", "valid.fail-on-gate", "valid.command", "valid.state",
    }
    for name, p in params.items():
        assert p.get("type") in {"enum", "string", "file", "dir"}, name
        assert p.get("desc"), name
        if p.get("type") == "enum":
            vals = [v.text for v in p.findall("val")]
            assert vals and sorted(vals) == ["no", "yes"], name
            assert len([v for v in p.findall("val") if v.get("default") == "true"]) == 1, name


@pytest.mark.parametrize("ant_file", ANT_FILES)
def test_every_valid_property_the_ant_file_reads_is_a_declared_param_or_set_inside_it(ant_file):
    text = _ant_text(ant_file)
    read = set(re.findall(r"\$\{([^}]+)\}", text))
    set_inside = set(re.findall(r'<(?:property|makeurl|checksum|condition|pathconvert|dirname|loadfile|loadresource|local|tempfile)\b[^>]*?\b(?:name|property)="([^"]+)"', text))
    set_inside |= set(re.findall(r'(?:outputproperty|errorproperty|resultproperty)="([^"]+)"', text))
    declared = set(_all_params())
    for name in sorted(read):
        if name.startswith("valid."):
            assert name in declared or name in set_inside, name


@pytest.mark.parametrize("ant_file", ANT_FILES)
def test_every_property_the_ant_file_reads_is_documented(ant_file):
    documented = DOCS.read_text()
    read = set(re.findall(r"\$\{([^}]+)\}", _ant_text(ant_file)))
    missing = sorted(name for name in read if f"`{name}`" not in documented)
    assert not missing, f"not in docs/dita-ot.md: {missing}"
    for name in _all_params():
        assert f"`{name}`" in documented, name


def test_ant_file_defines_dita2valid_index_on_dita_ot_preprocessing():
    root = ET.parse(PLUGIN_SRC / "build_valid-index.xml").getroot()
    targets = {t.get("name"): t for t in root.findall("target")}
    depends = [d.strip() for d in targets["dita2valid-index"].get("depends").split(",")]
    assert depends[0] == "build-init"
    assert "preprocess2" in depends
    # the profile jobs come from DITA-OT's preprocess2 too, and the export runs after all of them
    profile = [d.strip() for d in targets["valid-index.preprocess-profile"].get("depends").split(",")]
    assert profile == ["build-init", "preprocess2"]
    assert depends.index("preprocess2") < depends.index("valid-index.plan") < depends.index("valid-index.export")
    # only documented DITA-OT tasks and targets are used: no Java of our own, no core file edits
    assert not root.findall(".//taskdef") and not root.findall(".//java")


def test_plugin_stylesheets_are_well_formed_xslt_3():
    for xsl in sorted((PLUGIN_SRC / "xsl-plugin").glob("*.xsl")):
        root = ET.parse(xsl).getroot()
        assert root.tag == "{http://www.w3.org/1999/XSL/Transform}stylesheet" and root.get("version") == "3.0", xsl.name
