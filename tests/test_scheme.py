"""Subject scheme maps: values, hierarchy, names, owned values, implied DITAVALs, validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from valid.dita.ditaval import Filter, parse_ditaval
from valid.dita.loader import load
from valid.dita.scheme import load_scheme
from valid.errors import DitaError, SchemeValueError

FIXTURES = Path(__file__).parent / "fixtures" / "dita"
SCHEME = FIXTURES / "scheme" / "generations.ditamap"


def write(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


@pytest.fixture(scope="module")
def scheme():
    return load_scheme(SCHEME)


def test_valid_values_are_the_descendants_of_the_bound_subject_not_the_category(scheme):
    values = scheme.values("platform")
    assert "tpus" not in values
    assert values == ["v5", "v5p", "v5e", "v6e", "trillium", "tpu7x"]


def test_wrappers_are_transparent_and_keyref_subjectdef_extends_a_subject(scheme):
    assert scheme.subjects["v5p"].parent == "v5"
    assert scheme.subjects["v5"].parent == "tpus"  # through subjectHead and hasInstance
    assert scheme.subjects["tpu7x"].parent == "tpus"  # added by <subjectdef keyref="tpus">


def test_every_key_of_a_multi_key_subjectdef_is_a_value_but_one_profile(scheme):
    assert {"v6e", "trillium"} <= set(scheme.values("platform"))
    assert scheme.profile_values("platform") == ["v5p", "v5e", "v6e", "tpu7x"]


def test_a_broader_value_is_a_profile_only_when_the_writer_names_it(scheme):
    assert "v5" not in scheme.profile_values("platform")  # v5 covers v5p and v5e
    assert scheme.profile_values("platform", ["v5"]) == ["v5", "v5p", "v5e", "v6e", "tpu7x"]
    assert scheme.parent_values("platform") == ["v5"]  # tpus is the category, not a value
    with pytest.raises(SchemeValueError, match="'tpus' is not a value of @platform"):
        scheme.profile_values("platform", ["tpus"])


def test_schemeref_pulls_in_another_scheme(scheme):
    assert scheme.values("audience") == ["admin", "developer"]
    assert scheme.attributes() == ["audience", "platform", "otherprops"]


def test_elementdef_binding_applies_only_to_that_element(scheme):
    assert scheme.values("otherprops", "codeblock") == ["python", "shell"]
    assert scheme.values("otherprops", "p") is None
    assert scheme.values("otherprops") is None


def test_labels_are_navtitle_then_keywords(scheme):
    assert scheme.labels("v5p") == ["Cloud TPU v5p", "TPU v5p", "v5p Pod"]
    assert scheme.labels("v5e") == ["Cloud TPU v5e"]  # deprecated @navtitle
    assert scheme.labels("admin") == ["Administrators"]
    assert scheme.labels("developer") == ["developer"]  # no navtitle: the key


def test_owned_values_come_only_from_valid_value_data(scheme):
    assert scheme.owned_values("v6e") == ["v2-alpha-tpuv6e"]
    assert scheme.owned_values("v5p") == ["v2-alpha-tpuv5"]
    assert scheme.owned_values("v5") == []


def test_hierarchy_lists_children_per_value(scheme):
    tree = scheme.hierarchy()["platform"]
    assert tree["v5"] == ["v5p", "v5e"]
    assert tree["tpus"] == ["v5", "v6e", "trillium", "tpu7x"]


def test_digest_is_sha256_of_the_scheme_file(scheme):
    import hashlib

    assert scheme.digest == hashlib.sha256(SCHEME.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- implied DITAVALs


def test_implied_ditaval_is_attribute_scoped_and_never_a_global_default(scheme):
    text = scheme.implied_ditaval("platform", "v6e")
    assert '<prop att="platform" action="exclude"/>' in text
    assert '<prop att="platform" val="v6e" action="include"/>' in text
    assert '<prop att="platform" val="trillium" action="include"/>' in text  # the alias key too
    assert "<prop action" not in text
    f = Filter(parse_ditaval(text.encode(), "v6e"))
    assert not f.excludes({"platform": "v6e"})
    assert not f.excludes({"platform": "trillium"})
    assert f.excludes({"platform": "v5p"})
    assert f.excludes({"platform": "typo"})
    assert not f.excludes({"audience": "admin"})  # other attributes are untouched


def test_implied_ditaval_of_a_parent_value_includes_its_descendants(scheme):
    f = Filter(parse_ditaval(scheme.implied_ditaval("platform", "v5").encode(), "v5"))
    assert not f.excludes({"platform": "v5"})
    assert not f.excludes({"platform": "v5p"})
    assert not f.excludes({"platform": "v5e"})
    assert f.excludes({"platform": "v6e"})


def test_implied_ditaval_of_a_narrower_value_keeps_its_parent_but_not_its_siblings(scheme):
    text = scheme.implied_ditaval("platform", "v5p")
    f = Filter(parse_ditaval(text.encode(), "v5p"))
    assert not f.excludes({"platform": "v5"})  # content for the whole v5 family applies to v5p
    assert f.excludes({"platform": "v5e"})
    assert f.excludes({"platform": "v6e"})
    # the sibling has its own rule: DITA-OT's refinement would otherwise copy v5's include to it
    assert '<prop att="platform" val="v5e" action="exclude"/>' in text
    refined = Filter(parse_ditaval(text.encode(), "v5p"), hierarchy=scheme.hierarchy())
    assert refined.excludes({"platform": "v5e"})
    assert not refined.excludes({"platform": "v5"})


def test_implied_ditaval_is_deterministic(scheme):
    assert scheme.implied_ditaval("platform", "v5") == load_scheme(SCHEME).implied_ditaval("platform", "v5")


def test_implied_ditaval_refuses_an_undeclared_value(scheme):
    with pytest.raises(SchemeValueError, match="'tpus' is not a value of @platform"):
        scheme.implied_ditaval("platform", "tpus")


# --------------------------------------------------------------------------- validation

MAP = """<map><title>m</title>
<topicref href="a.dita" platform="v5p"/>
<topicref href="b.dita"/>
</map>"""


def test_validate_accepts_declared_values_groups_and_empty_attributes(tmp_path, scheme):
    write(
        tmp_path,
        {
            "m.ditamap": MAP,
            "a.dita": '<topic id="a"><title>A</title><body><p platform="">x</p>'
            '<p platform="hw(v5p v6e) tpu7x">y</p><codeblock otherprops="python">z</codeblock>'
            '<p otherprops="anything">free: not bound on p</p></body></topic>',
            "b.dita": '<topic id="b"><title>B</title><body><p audience="admin">x</p></body></topic>',
        },
    )
    scheme.validate(load(tmp_path / "m.ditamap"))


def test_validate_reports_every_undeclared_value_with_file_and_line(tmp_path, scheme):
    write(
        tmp_path,
        {
            "m.ditamap": MAP,
            "a.dita": '<topic id="a"><title>A</title>\n<body>\n<p platform="v5p v5x">x</p>\n'
            '<p platform="tpu(tpus)">category is not a value</p>\n</body></topic>',
            "b.dita": '<topic id="b"><title>B</title><body>\n<codeblock otherprops="rust">z</codeblock></body></topic>',
        },
    )
    with pytest.raises(SchemeValueError) as caught:
        scheme.validate(load(tmp_path / "m.ditamap"))
    err = caught.value
    assert (err.path, err.line) == ("a.dita", 3)
    assert "@platform value 'v5x' is not declared" in str(err)
    assert "2 more undeclared value(s)" in str(err)
    assert "a.dita:4 'tpus'" in str(err) and "b.dita:2 'rust'" in str(err)
    assert [(p, line, t) for p, line, _, t in err.problems] == [("a.dita", 3, "v5x"), ("a.dita", 4, "tpus"), ("b.dita", 2, "rust")]
    assert "\n" not in str(err)


def test_validate_checks_maps_too(tmp_path, scheme):
    write(
        tmp_path,
        {
            "m.ditamap": '<map>\n<topicref href="a.dita" platform="v7"/></map>',
            "a.dita": '<topic id="a"><title>A</title></topic>',
        },
    )
    with pytest.raises(SchemeValueError, match=r"m.ditamap:2: @platform value 'v7'"):
        scheme.validate(load(tmp_path / "m.ditamap"))


def test_empty_enumeration_allows_no_value(tmp_path):
    write(
        tmp_path,
        {
            "s.ditamap": '<subjectScheme><enumerationdef><attributedef name="product"/><subjectdef/>'
            "</enumerationdef></subjectScheme>",
            "m.ditamap": '<map><topicref href="a.dita" product="x"/></map>',
            "a.dita": '<topic id="a"><title>A</title></topic>',
        },
    )
    s = load_scheme(tmp_path / "s.ditamap")
    assert s.values("product") == []
    with pytest.raises(SchemeValueError, match="'x' is not declared"):
        s.validate(load(tmp_path / "m.ditamap"))


def test_binding_to_an_undefined_subject_is_an_error(tmp_path):
    write(
        tmp_path,
        {
            "s.ditamap": '<subjectScheme>\n<enumerationdef><attributedef name="platform"/>'
            '<subjectdef keyref="nothing"/></enumerationdef></subjectScheme>'
        },
    )
    with pytest.raises(DitaError, match=r"s.ditamap:2: enumerationdef binds @platform to undefined subject 'nothing'"):
        load_scheme(tmp_path / "s.ditamap")


def test_sample_scheme_has_three_generations():
    sample = load_scheme(Path(__file__).parent.parent / "schemes" / "tpu-generations.ditamap")
    assert sample.attributes() == ["platform"]
    assert sample.profile_values("platform") == ["v5p", "v6e", "tpu7x"]
    assert sample.labels("tpu7x")[0] == "TPU7x (Ironwood)"
    assert "Ironwood" in sample.labels("tpu7x")
