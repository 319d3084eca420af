"""The valid-index plan: one DITA-OT preprocess2 per profile, each with its own DITAVAL and job
directory, then the run document. plan.xsl runs in saxonche; the plan it writes runs in real Ant
against a stand-in for DITA-OT's build file (tests/fixtures/dita-ot/harness.xml)."""

from __future__ import annotations

import hashlib
import importlib.util
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest

_spec = importlib.util.spec_from_file_location("dita_ot_jobs", Path(__file__).parent / "fixtures" / "dita-ot" / "jobs.py")
jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jobs)

SCHEME = jobs.SOURCE / "scheme.ditamap"


def _unfiltered(tmp_path: Path) -> Path:
    return jobs.materialize(jobs.JOBS / "_unfiltered", jobs.SOURCE, tmp_path / "temp")


def _run_plan(tmp_path: Path, **props: str):
    return jobs.ant(
        "harness.plan",
        buildfile=jobs.HARNESS,
        harness__plugin__dir=str(jobs.REPO / "dita-ot-plugin"),
        harness__jobs=str(jobs.JOBS),
        harness__src__uri=jobs.dita_ot_uri(jobs.SOURCE),
        harness__temp=str(tmp_path / "temp"),
        **props,
    )


def test_scheme_profiles_get_ditavals_byte_identical_to_implied_ditaval(tmp_path):
    from valid.dita.scheme import load_scheme

    plan = jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid", scheme=SCHEME)
    scheme = load_scheme(SCHEME)
    names = [p.get("name") for p in ET.parse(plan).getroot().iter("profile")]
    assert names == scheme.profile_values("platform") == ["v5p", "v6e"]
    for name in names:
        written = (tmp_path / "temp" / "valid" / "ditaval" / f"{name}.ditaval").read_bytes()
        assert written == scheme.implied_ditaval("platform", name).encode("utf-8")


@pytest.mark.parametrize("parents", ["", "unix"])
def test_a_nested_schemes_profiles_and_ditavals_are_byte_identical_to_valid_exports(tmp_path, parents):
    from valid.dita.scheme import load_scheme

    source = jobs.REPO / "tests" / "fixtures" / "dita" / "nested_scheme" / "platform-scheme.ditamap"
    nested = tmp_path / "platform-scheme.ditamap"  # without its DOCTYPE: no DTD outside DITA-OT
    nested.write_text("\n".join(line for line in source.read_text().splitlines() if "DOCTYPE" not in line))
    work = tmp_path / "temp" / "valid"
    plan = jobs.plan(_unfiltered(tmp_path), work, scheme=nested, parent_profiles=parents)
    scheme = load_scheme(nested)
    names = [p.get("name") for p in ET.parse(plan).getroot().iter("profile")]
    assert names == scheme.profile_values("platform", [parents] if parents else [])
    assert ("unix" in names) == bool(parents)
    for name in names:
        written = (work / "ditaval" / f"{name}.ditaval").read_bytes()
        assert written == scheme.implied_ditaval("platform", name).encode("utf-8")


def test_each_profile_is_preprocessed_into_its_own_job_with_its_own_ditaval(tmp_path):
    jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid", scheme=SCHEME)
    result = _run_plan(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    work = tmp_path / "temp" / "valid"
    for name in ("v5p", "v6e"):
        log = (work / name / "harness.log").read_text()
        ditaval = str(work / "ditaval" / f"{name}.ditaval")
        assert f"args.filter={ditaval}\n" in log
        assert f"dita.input.valfile={ditaval}\n" in log
        assert f"dita.temp.dir={work / name}\n" in log
        assert (work / name / ".job.xml").is_file()
    # the unfiltered job (DITA-OT's own temp dir) is left as it was
    assert not (tmp_path / "temp" / "harness.log").exists()


def test_run_document_lists_profiles_in_order_with_ditaval_digests(tmp_path):
    from valid.contracts import SCHEMA_VERSION

    jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid", scheme=SCHEME, stylesheet_digest="ab" * 32)
    assert _run_plan(tmp_path).returncode == 0
    work = tmp_path / "temp" / "valid"
    run = ET.parse(work / "run.xml").getroot()
    assert run.tag == "valid-run"
    assert run.get("schema-version") == SCHEMA_VERSION
    assert run.get("map") == "gen.ditamap"
    assert run.get("attribute") == "platform"
    assert run.get("src-base") == jobs.dita_ot_uri(jobs.SOURCE)
    assert run.get("stylesheet-digest") == "ab" * 32
    assert run.get("scheme-digest") == hashlib.sha256(SCHEME.read_bytes()).hexdigest()
    profiles = run.findall("profile")
    assert [p.get("name") for p in profiles] == ["v5p", "v6e"]
    for p in profiles:
        name = p.get("name")
        ditaval = work / "ditaval" / f"{name}.ditaval"
        assert p.get("ditaval-digest") == hashlib.sha256(ditaval.read_bytes()).hexdigest()
        assert Path(url2pathname(urlparse(p.get("ditaval")).path)) == ditaval  # read for the header's keeps
        assert p.get("job") == jobs.dita_ot_uri(work / name) + ".job.xml"
    assert run.find("unfiltered").get("job").endswith("/temp/.job.xml")
    assert run.find("scheme").get("href") == jobs.dita_ot_uri(work / "scheme") + "scheme.ditamap"


def test_the_run_documents_scheme_is_a_copy_whose_elements_name_their_source_file_and_line(tmp_path):
    # The scheme is in no DITA-OT job, and XSLT has no line numbers: plan.xsl writes a copy with
    # @xtrf/@xtrc (line of each start tag, found in the file's text), so owned values from the
    # scheme get a file and line as in `valid export`.
    from lxml import etree

    jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid", scheme=SCHEME)
    copy = etree.parse(str(tmp_path / "temp" / "valid" / "scheme" / "scheme.ditamap")).getroot()
    source = etree.parse(str(SCHEME)).getroot()
    located = [e for e in copy.iter() if isinstance(e.tag, str)]
    authored = [e for e in source.iter() if isinstance(e.tag, str)]
    assert [e.tag for e in located] == [e.tag for e in authored]
    seen: dict[str, int] = {}
    for copied, original in zip(located, authored):
        seen[original.tag] = seen.get(original.tag, 0) + 1
        assert copied.get("xtrf") == jobs.dita_ot_uri(SCHEME.parent) + SCHEME.name
        assert copied.get("xtrc") == f"{original.tag}:{seen[original.tag]};{original.sourceline}:1"


def test_start_tag_lines_skip_comments_cdata_pis_and_the_doctype(tmp_path):
    from lxml import etree

    scheme = tmp_path / "odd.ditamap"
    scheme.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE subjectScheme [\n<!ENTITY x "<not-a-tag/>">\n]>\n'
        '<!-- <subjectdef keys="commented"/>\n -->\n<subjectScheme><?pi <nope/>?>\n'
        '  <subjectdef keys="gen"><subjectdef keys="a"\n     navtitle="a > b"><![CDATA[\n<fake/>]]>'
        '</subjectdef><subjectdef keys="b"/></subjectdef>\n'
        '  <enumerationdef><attributedef name="platform"/><subjectdef keyref="gen"/></enumerationdef>\n'
        '</subjectScheme>\n', encoding="utf-8")
    jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid", scheme=scheme)
    copy = etree.parse(str(tmp_path / "temp" / "valid" / "scheme" / "odd.ditamap")).getroot()
    lines = [(e.tag, e.sourceline) for e in etree.parse(str(scheme)).getroot().iter() if isinstance(e.tag, str)]
    assert lines[2] == ("subjectdef", 9)  # a start tag over two lines: where it ends, as lxml counts
    assert [(e.tag, e.get("xtrc")) for e in copy.iter() if isinstance(e.tag, str)] == [
        ("subjectScheme", "subjectScheme:1;7:1"),
        ("subjectdef", "subjectdef:1;8:1"),
        ("subjectdef", "subjectdef:2;9:1"),
        ("subjectdef", "subjectdef:3;10:1"),
        ("enumerationdef", "enumerationdef:1;11:1"),
        ("attributedef", "attributedef:1;11:1"),
        ("subjectdef", "subjectdef:4;11:1"),
    ]


def test_exporter_version_is_the_plugin_version_and_the_package_version(tmp_path):
    import valid

    jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid", scheme=SCHEME)
    assert _run_plan(tmp_path).returncode == 0
    run = ET.parse(tmp_path / "temp" / "valid" / "run.xml").getroot()
    plugin = ET.parse(jobs.REPO / "dita-ot-plugin" / "plugin.xml").getroot()
    assert run.get("exporter-version") == plugin.get("version") == valid.__version__


def test_explicit_ditavals_name_profiles_and_resolve_against_basedir(tmp_path):
    ditavals = tmp_path / "dv"
    ditavals.mkdir()
    for name in ("v5p", "v6e"):
        (ditavals / f"{name}.ditaval").write_text(
            f'<val><prop att="platform" action="exclude"/><prop att="platform" val="{name}" action="include"/></val>'
        )
    plan = jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid",
                     ditavals=f"v6e=dv/v6e.ditaval, {ditavals / 'v5p.ditaval'}", base_dir=tmp_path)
    props = {p.get("name"): p.get("location") for p in ET.parse(plan).getroot().iter("property")}
    assert props["valid.plan.ditaval.1"] == f"{tmp_path}/dv/v6e.ditaval"
    assert props["valid.plan.ditaval.2"] == str(ditavals / "v5p.ditaval")
    assert _run_plan(tmp_path).returncode == 0
    run = ET.parse(tmp_path / "temp" / "valid" / "run.xml").getroot()
    assert [p.get("name") for p in run.findall("profile")] == ["v6e", "v5p"]
    assert run.get("attribute") == "" and run.find("scheme") is None


def test_missing_explicit_ditaval_fails_the_build_naming_the_profile(tmp_path):
    jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid", ditavals="v5p=nowhere/v5p.ditaval", base_dir=tmp_path)
    result = _run_plan(tmp_path)
    assert result.returncode != 0
    assert "VALID: the DITAVAL of profile v5p does not exist" in result.stdout + result.stderr


def test_a_plan_for_separate_temp_dirs_fails_where_the_temp_dir_is_fixed(tmp_path):
    """`dita --temp` or a project file makes dita.temp.dir a user property, which no sub-build can
    override: a plan made for separate temp directories fails there rather than reuse a job."""
    jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid", scheme=SCHEME)
    result = _run_plan(tmp_path, dita__temp__dir=str(tmp_path / "temp"))
    assert result.returncode != 0
    assert "did not write its job to" in result.stdout + result.stderr


def test_with_a_fixed_temp_dir_each_profile_is_preprocessed_in_it_and_its_job_moved_to_its_own(tmp_path):
    temp = tmp_path / "temp"
    work = tmp_path / "temp.valid"  # beside the temp dir: every preprocess deletes its temp dir first
    jobs.plan(_unfiltered(tmp_path), work, scheme=SCHEME, shared_temp_dir=temp)
    result = _run_plan(tmp_path, dita__temp__dir=str(temp), valid__work__dir=str(work))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (work / "_unfiltered" / ".job.xml").is_file()
    for name in ("v5p", "v6e"):
        log = (work / name / "harness.log").read_text()
        assert f"args.filter={work / 'ditaval' / f'{name}.ditaval'}\n" in log
        assert f"dita.temp.dir={temp}\n" in log  # the fixed one
        assert (work / name / ".job.xml").is_file()
    assert not temp.exists() or not any(temp.iterdir())  # every job moved away
    run = ET.parse(work / "run.xml").getroot()
    assert run.find("unfiltered").get("job").endswith("/temp.valid/_unfiltered/.job.xml")


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"args__filter": "x.ditaval", "valid__scheme": str(SCHEME)}, "remove --filter"),
        ({}, "VALID: no profiles"),
        ({"valid__scheme": "missing/scheme.ditamap"}, "does not exist"),
        ({"valid__scheme": str(SCHEME), "store-type": "memory"}, "remove --store-type=memory"),
    ],
)
def test_init_refuses_configurations_that_would_export_a_wrong_scope(tmp_path, props, message):
    props = {k.replace("-", "_DASH_"): v for k, v in props.items()}
    args = [f"-D{k.replace('__', '.').replace('_DASH_', '-')}={v}" for k, v in props.items()]
    result = jobs.ant(
        *args, "valid-index.init",
        buildfile=jobs.HARNESS,
        harness__plugin__dir=str(jobs.REPO / "dita-ot-plugin"),
        args__input=str(jobs.SOURCE / "gen.ditamap"),
        output__dir=str(tmp_path / "out"),
        dita__temp__dir=str(tmp_path / "temp"),
    )
    assert result.returncode != 0
    assert message in result.stdout + result.stderr


def test_the_input_maps_directory_and_name_come_from_the_job_not_from_args_input(tmp_path):
    # args.input may be a path or a file: URI (a project file gives URIs); the unfiltered job's
    # @input file is the map DITA-OT resolved. input.xsl gives its directory (for git) and its
    # name (the default export name), percent-decoded.
    from lxml import etree
    from saxonche import PySaxonProcessor

    job_xml = _unfiltered(tmp_path)
    job = etree.parse(str(job_xml))
    root_map = job.find(".//file[@input='true']")
    root_map.set("src", "file:/srv/my%20docs/product.v2.ditamap")
    job.write(str(job_xml))
    out = tmp_path / "input" / "map-dir.txt"
    out.parent.mkdir()
    with PySaxonProcessor(license=False) as proc:
        exe = proc.new_xslt30_processor().compile_stylesheet(
            stylesheet_file=str(jobs.REPO / "dita-ot-plugin" / "xsl-plugin" / "input.xsl"))
        exe.set_parameter("root-file", proc.make_string_value("map-root.txt"))
        exe.set_base_output_uri(out.as_uri())
        exe.transform_to_file(source_file=str(job_xml), output_file=str(out))
    assert out.read_text(encoding="utf-8") == "/srv/my docs"
    assert (out.parent / "map-root.txt").read_text(encoding="utf-8") == "product.v2"


def test_profile_labels_are_the_ones_valid_export_writes(tmp_path):
    from valid.dita.scheme import load_scheme

    jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid", scheme=SCHEME)
    assert _run_plan(tmp_path).returncode == 0
    run = ET.parse(tmp_path / "temp" / "valid" / "run.xml").getroot()
    labels = {p.get("name"): [l.text for l in p.findall("label")] for p in run.findall("profile")}
    scheme = load_scheme(SCHEME)
    assert labels == {name: scheme.labels(name) for name in ("v5p", "v6e")}
    assert labels["v6e"] == ["Model v6e", "Trillium"]


def test_a_scheme_beside_explicit_ditavals_checks_and_names_the_values_while_the_ditavals_make_the_profiles(tmp_path):
    ditavals = tmp_path / "dv"
    ditavals.mkdir()
    (ditavals / "v6e.ditaval").write_text(
        '<val><prop att="platform" action="exclude"/><prop att="platform" val="v6e" action="include"/></val>'
    )
    jobs.plan(_unfiltered(tmp_path), tmp_path / "temp" / "valid", scheme=SCHEME,
              ditavals="v6e=dv/v6e.ditaval", base_dir=tmp_path)
    assert _run_plan(tmp_path).returncode == 0
    run = ET.parse(tmp_path / "temp" / "valid" / "run.xml").getroot()
    assert [p.get("name") for p in run.findall("profile")] == ["v6e"]
    # labels from the scheme (in the stylesheet), not the profile name; no attribute: the DITAVALs decide
    assert run.find("profile").find("label") is None
    assert run.get("attribute") == "" and run.find("scheme") is not None
    assert Path(url2pathname(urlparse(run.find("profile").get("ditaval")).path)) == ditavals / "v6e.ditaval"
