"""preprocess2 emulation: one filtered job directory per profile, as DITA-OT 4.x filters a map."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from valid.dita import classes
from valid.dita.ditaval import parse_ditaval
from valid.dita.loader import XPATH_ATTR, load
from valid.dita.preprocess import UNFILTERED, preprocess
from valid.dita.scheme import load_scheme
from valid.errors import DitaError

FIXTURES = Path(__file__).parent / "fixtures" / "dita"
BASIC = FIXTURES / "basic"
PROFILES = ("v5p", "v6e", "tpu7x")


def write(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def ditaval_for(value: str, att: str = "platform"):
    text = f'<val><prop att="{att}" action="exclude"/><prop att="{att}" val="{value}" action="include"/></val>'
    return parse_ditaval(text.encode(), f"{value}.ditaval")


class Built:
    """The job directories of the basic fixture, one per profile plus _unfiltered."""

    def __init__(self, base: Path):
        docset = load(BASIC / "root.ditamap")
        scheme = load_scheme(BASIC / "scheme.ditamap")
        self.jobs = {}
        for name in PROFILES:
            ditaval = parse_ditaval(scheme.implied_ditaval("platform", name).encode(), name)
            self.jobs[name] = preprocess(docset, ditaval, base / name, name=name)
        self.jobs[UNFILTERED] = preprocess(docset, None, base / UNFILTERED)

    def listed(self, profile: str) -> dict[str, etree._Element]:
        job = etree.parse(str(self.jobs[profile].job_file)).getroot()
        return {f.get("uri"): f for f in job.iter("file")}

    def kept_topics(self, profile: str) -> set[str]:
        return {uri for uri, f in self.listed(profile).items() if f.get("format") == "dita" and f.get("valid-excluded") != "true"}

    def doc(self, profile: str, uri: str) -> etree._Element | None:
        path = self.jobs[profile].directory / uri
        if not path.exists() or path.stat().st_size == 0:
            return None
        return etree.parse(str(path)).getroot()

    def by_id(self, profile: str, uri: str, element_id: str):
        root = self.doc(profile, uri)
        if root is None:
            return None
        found = root.xpath("//*[@id=$id]", id=element_id)
        return found[0] if found else None

    def warnings(self, profile: str):
        return self.jobs[profile].warnings


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return Built(tmp_path_factory.mktemp("jobs"))


def text(el) -> str:
    return " ".join("".join(el.itertext()).split())


# --------------------------------------------------------------------------- maps


def test_map_branch_profiling_removes_the_branch_and_the_topics_only_it_references(built):
    assert "topics/v5p.dita" in built.kept_topics("v5p")
    assert "topics/v5p.dita" not in built.kept_topics("v6e")
    assert "topics/v5p.dita" not in built.listed("tpu7x")


def test_topic_referenced_from_two_differently_profiled_branches_is_kept_in_both(built):
    assert "topics/both.dita" in built.kept_topics("v5p")
    assert "topics/both.dita" in built.kept_topics("v6e")
    assert "topics/both.dita" not in built.listed("tpu7x")


def test_profiled_mapref_becomes_a_submap_wrapper_carrying_its_attributes(built):
    root_map = built.doc("v6e", "root.ditamap")
    wrappers = [s for s in root_map.iter("submap") if s.get("platform") == "v6e"]
    assert len(wrappers) == 1
    wrapper = wrappers[0]
    assert wrapper.get("class") == classes.SUBMAP_CLASS
    assert wrapper.get("audience") == "admin"
    assert wrapper.get("href") is None
    assert [t.get("href") for t in wrapper.iter("topicref")] == ["topics/v6e.dita", "topics/both.dita"]
    assert not list(root_map.iter("mapref"))
    assert "topics/v6e.dita" not in built.listed("v5p")


def test_submap_root_profiling_goes_to_first_level_topicrefs_without_their_own(built):
    # sub/rooted.ditamap has <map platform="tpu7x">: a first-level topicref with its own @platform
    # escapes the condition (DITA-OT maprefImpl), a nested one goes with its parent.
    assert {"topics/tpu7x.dita", "topics/nested.dita"} <= built.kept_topics("tpu7x")
    assert "topics/escapes.dita" not in built.listed("tpu7x")
    assert "topics/escapes.dita" in built.kept_topics("v5p")
    assert "topics/tpu7x.dita" not in built.listed("v5p")
    assert "topics/nested.dita" not in built.listed("v5p")


def test_printonly_content_is_excluded_in_every_profile_and_in_the_unfiltered_build(built):
    for profile in (*PROFILES, UNFILTERED):
        assert "topics/printonly.dita" not in built.listed(profile)


def test_inlined_subject_scheme_is_resource_only(built):
    root_map = built.doc("v5p", "root.ditamap")
    [scheme_wrapper] = [s for s in root_map.iter("submap") if s.get("type") == "subjectScheme"]
    assert scheme_wrapper.get("processing-role") == "resource-only"
    assert scheme_wrapper.find("enumerationdef") is not None


def test_job_xml_lists_every_file_with_format_and_the_input_map(built):
    job = etree.parse(str(built.jobs["v5p"].job_file)).getroot()
    props = {p.get("name"): p.findtext("string") for p in job.iter("property")}
    assert props["user.input.file"] == "root.ditamap"
    assert props["InputMapDir.uri"] == "file:" + BASIC.resolve().as_posix() + "/"
    files = built.listed("v5p")
    assert files["root.ditamap"].get("input") == "true"
    assert files["root.ditamap"].get("format") == "ditamap"
    assert files["topics/shared.dita"].get("src") == "file:" + (BASIC / "topics/shared.dita").resolve().as_posix()
    assert files["topics/library.dita"].get("resource-only") == "true"  # reached through a keydef
    assert files["topics/library.dita"].get("conref-target") == "true"
    assert files["topics/shared.dita"].get("resource-only") is None
    assert list(files) == sorted(files)


# --------------------------------------------------------------------------- topics


def test_element_profiling_removes_elements_in_a_shared_topic(built):
    steps = {p: [text(s) for s in built.doc(p, "topics/shared.dita").iter("step")] for p in PROFILES}
    assert steps["v5p"] == ["Open the console.", "Pick v5p.", "Pick either."]
    assert steps["v6e"] == ["Open the console.", "Pick v6e.", "Pick either."]
    assert steps["tpu7x"] == ["Open the console."]


def test_xtrc_counts_are_taken_before_filtering(built):
    [v6e_step] = [s for s in built.doc("v6e", "topics/shared.dita").iter("step") if s.get("platform") == "v6e"]
    assert v6e_step.get("xtrc").startswith("step:3;")
    assert v6e_step.get(XPATH_ATTR) == "/task[1]/taskbody[1]/steps[1]/step[3]"


def test_topic_root_excluded_leaves_a_file_with_no_topic_root(built):
    listed = built.listed("v5p")["topics/rootprofiled.dita"]
    assert listed.get("valid-excluded") == "true"
    assert (built.jobs["v5p"].directory / "topics/rootprofiled.dita").read_bytes() == b""
    assert built.doc("v6e", "topics/rootprofiled.dita").get("id") == "rootprofiled"


def test_profiled_key_definitions_give_per_profile_text(built):
    assert text(built.by_id("v5p", "topics/shared.dita", "chips")) == "Each host has the TPU v5p chip."
    assert text(built.by_id("v6e", "topics/shared.dita", "chips")) == "Each host has the Trillium chip."
    assert text(built.by_id("tpu7x", "topics/shared.dita", "chips")) == "Each host has the ."
    assert any(w.feature == "keyref" and "'chip'" in w.message for w in built.warnings("tpu7x"))
    assert not any("'chip'" in w.message for w in built.warnings("v5p"))


def test_undefined_key_keeps_the_fallback_content(built):
    assert text(built.by_id("v5p", "topics/shared.dita", "fallback")) == "Version: see the release notes."


def test_conref_is_scoped_by_both_ends(built):
    # <p platform="v5p v6e" conref="...#library/v6note"/> whose target has platform="v6e".
    assert built.by_id("v5p", "topics/shared.dita", "both-ends") is None  # target filtered out
    pulled = built.by_id("v6e", "topics/shared.dita", "both-ends")
    assert text(pulled) == "Only on v6e."
    assert built.by_id("tpu7x", "topics/shared.dita", "both-ends") is None  # referencer filtered out
    assert not any("v6note" in w.message for w in built.warnings("tpu7x"))


def test_conref_target_gone_drops_the_referencing_element_with_a_warning(built):
    assert built.doc("v6e", "topics/shared.dita").find(".//result") is None
    [w] = [w for w in built.warnings("v6e") if "library/done" in w.message]
    assert (w.path, w.line, w.feature) == ("topics/shared.dita", 16, "conref")
    assert "dropped" in w.message


def test_conref_result_keeps_referencer_attributes_and_carries_the_target_debug_attributes(built):
    result = built.doc("v5p", "topics/shared.dita").find(".//result")
    assert result.get("class") == " - topic/section task/result "  # the referencer's
    assert result.get("id") is None  # never the target's (DITA-OT's conrefImpl); the referencer has none
    assert result.get("conref") is None
    assert result.get("xtrf").endswith("/topics/library.dita")
    assert result.get("xtrc") == "section:1;5:1"
    assert result.get(XPATH_ATTR) == "/topic[1]/body[1]/section[1]"
    both = built.by_id("v6e", "topics/shared.dita", "both-ends")
    assert both.get("platform") == "v5p v6e"  # the referencer's value wins


def test_conkeyref_resolves_through_the_filtered_key_space(built):
    by_key = built.by_id("v5p", "topics/shared.dita", "by-key")
    assert text(by_key) == "A reusable note with a link."
    assert by_key.find("xref").get("href") == "shared.dita"


def test_unfiltered_build_keeps_every_profile(built):
    steps = [text(s) for s in built.doc(UNFILTERED, "topics/shared.dita").iter("step")]
    assert len(steps) == 4
    assert {"topics/v5p.dita", "topics/v6e.dita", "topics/tpu7x.dita", "topics/escapes.dita"} <= built.kept_topics(UNFILTERED)
    # the first definition of a profiled key wins when nothing is filtered
    assert text(built.by_id(UNFILTERED, "topics/shared.dita", "chips")) == "Each host has the TPU v5p chip."


def test_preprocess_is_deterministic(tmp_path, built):
    docset = load(BASIC / "root.ditamap")
    job = preprocess(docset, ditaval_for("v6e"), tmp_path / "again", name="v6e")
    first = built.jobs["v6e"].directory
    names = sorted(p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(job.directory).as_posix() for p in job.directory.rglob("*") if p.is_file())
    for name in names:
        assert (first / name).read_bytes() == (job.directory / name).read_bytes(), name


# --------------------------------------------------------------------------- small doc sets


def one_topic(tmp_path: Path, body: str, root_attrs: str = "", extra: dict[str, str] | None = None) -> Path:
    write(
        tmp_path,
        {
            "m.ditamap": '<map><topicref href="t.dita"/></map>',
            "t.dita": f'<topic id="t" {root_attrs}><title>T</title><body>{body}</body></topic>',
            **(extra or {}),
        },
    )
    return tmp_path / "m.ditamap"


def run(map_path: Path, ditaval, tmp_path: Path, name="p"):
    job = preprocess(load(map_path), ditaval, tmp_path / "job", name=name)
    path = job.directory / "t.dita"
    root = etree.parse(str(path)).getroot() if path.stat().st_size else None
    return job, root


def test_props_specialization_filters_only_with_domains_declared(tmp_path):
    rules = parse_ditaval(b'<val><prop att="tpugen" val="v5p" action="exclude"/></val>', "x")
    _, with_domains = run(one_topic(tmp_path / "a", '<p id="x" tpugen="v5p">x</p>', 'domains="a(props tpugen)"'), rules, tmp_path / "a")
    _, without = run(one_topic(tmp_path / "b", '<p id="x" tpugen="v5p">x</p>'), rules, tmp_path / "b")
    _, generalized = run(one_topic(tmp_path / "c", '<p id="x" props="tpugen(v5p)">x</p>'), rules, tmp_path / "c")
    assert with_domains.find(".//p") is None
    assert without.find(".//p") is not None
    assert generalized.find(".//p") is None


def test_element_without_class_is_not_filtered(tmp_path):
    root_map = one_topic(tmp_path, '<widget platform="v5p"><p platform="v5p">inner</p></widget>')
    job, root = run(root_map, ditaval_for("v6e"), tmp_path)
    assert root.find(".//widget") is not None  # no @class: never filtered
    assert root.find(".//widget/p") is None  # its DITA children still are


def test_excluded_element_takes_its_subtree_but_not_the_following_text(tmp_path):
    root_map = one_topic(tmp_path, '<p>before <ph platform="v5p">v5p <b>bold</b></ph> after</p>')
    _, root = run(root_map, ditaval_for("v6e"), tmp_path)
    assert text(root.find(".//p")) == "before after"


def test_nested_topic_is_excluded_with_its_subtree(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><topicref href="t.dita"/></map>',
            "t.dita": '<topic id="t"><title>T</title><topic id="n" platform="v5p"><title>N</title>'
            '<body><p>n</p></body></topic></topic>',
        },
    )
    _, root = run(tmp_path / "m.ditamap", ditaval_for("v6e"), tmp_path)
    assert root.find("topic") is None


def test_conref_range_pulls_the_siblings_from_start_to_end(tmp_path):
    root_map = one_topic(
        tmp_path,
        '<ol><li conref="lib.dita#lib/a" conrefend="lib.dita#lib/c"/></ol>',
        extra={
            "lib.dita": '<topic id="lib"><title>L</title><body><ol><li id="a">A</li><li id="b" platform="v5p">B</li>'
            '<li id="c">C</li><li id="d">D</li></ol></body></topic>'
        },
    )
    _, root = run(root_map, ditaval_for("v6e"), tmp_path)
    assert [text(li) for li in root.iter("li")] == ["A", "C"]


def test_conref_chain_is_followed(tmp_path):
    root_map = one_topic(
        tmp_path,
        '<p id="x" conref="#t/y"/><p id="y" conref="#t/z"/><p id="z">final</p>',
    )
    _, root = run(root_map, None, tmp_path)
    assert [text(p) for p in root.iter("p")] == ["final", "final", "final"]


def test_conref_cycle_is_dropped_with_a_warning(tmp_path):
    root_map = one_topic(tmp_path, '<p id="x" conref="#t/y">x</p><p id="y" conref="#t/x">y</p>')
    job, root = run(root_map, None, tmp_path)
    assert any("cycle" in w.message for w in job.warnings)


def test_key_defined_only_in_an_excluded_branch_does_not_exist(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><topicgroup platform="v5p"><keydef keys="k"><topicmeta><keywords><keyword>V5P'
            '</keyword></keywords></topicmeta></keydef></topicgroup>'
            '<keydef keys="k"><topicmeta><keywords><keyword>OTHER</keyword></keywords></topicmeta></keydef>'
            '<topicref href="t.dita"/></map>',
            "t.dita": '<topic id="t"><title>T</title><body><p><keyword keyref="k"/></p></body></topic>',
        },
    )
    _, v5p = run(tmp_path / "m.ditamap", ditaval_for("v5p"), tmp_path / "a")
    _, v6e = run(tmp_path / "m.ditamap", ditaval_for("v6e"), tmp_path / "b")
    assert text(v5p.find(".//p")) == "V5P"
    assert text(v6e.find(".//p")) == "OTHER"


def test_topicref_keyref_resolves_to_the_key_href(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><keydef keys="t" href="t.dita" platform="v5p"/><topicref keyref="t"/></map>',
            "t.dita": '<topic id="t"><title>T</title></topic>',
        },
    )
    job_v5p, _ = run(tmp_path / "m.ditamap", ditaval_for("v5p"), tmp_path / "a")
    job_v6e = preprocess(load(tmp_path / "m.ditamap"), ditaval_for("v6e"), tmp_path / "b", name="v6e")
    v5p_map = etree.parse(str(job_v5p.directory / "m.ditamap")).getroot()
    assert v5p_map.find("topicref").get("href") == "t.dita"
    assert "t.dita" not in [f.source.job_uri for f in job_v6e.files]


def test_topic_reached_only_by_a_link_is_not_exported_and_is_warned(tmp_path):
    root_map = one_topic(tmp_path, '<p><xref href="other.dita"/></p>', extra={"other.dita": '<topic id="o"><title>O</title></topic>'})
    job, _ = run(root_map, None, tmp_path)
    assert "other.dita" not in [f.source.job_uri for f in job.files]
    assert [w.feature for w in job.warnings] == ["link-crawl"]


def test_subject_scheme_in_the_map_refines_an_explicit_ditaval(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><mapref href="s.ditamap" type="subjectScheme"/><topicref href="t.dita"/></map>',
            "s.ditamap": '<subjectScheme><subjectdef keys="all"><subjectdef keys="v5"><subjectdef keys="v5p"/>'
            '</subjectdef><subjectdef keys="v6e"/></subjectdef><enumerationdef><attributedef name="platform"/>'
            '<subjectdef keyref="all"/></enumerationdef></subjectScheme>',
            "t.dita": '<topic id="t"><title>T</title><body><p platform="v5p">a</p><p platform="v6e">b</p></body></topic>',
        },
    )
    rules = parse_ditaval(b'<val><prop att="platform" val="v5" action="exclude"/></val>', "x")
    _, root = run(tmp_path / "m.ditamap", rules, tmp_path)
    assert [text(p) for p in root.iter("p")] == ["b"]


def test_root_map_excluded_is_an_error(tmp_path):
    write(tmp_path, {"m.ditamap": '<map platform="v5p"><topicref href="t.dita"/></map>', "t.dita": "<topic id='t'><title>T</title></topic>"})
    with pytest.raises(DitaError, match="profile v6e excludes the root map itself"):
        preprocess(load(tmp_path / "m.ditamap"), ditaval_for("v6e"), tmp_path / "job", name="v6e")


def test_hrefs_of_content_pulled_from_another_directory_are_rebased(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><topicref href="a/t.dita"/></map>',
            "a/t.dita": '<topic id="t"><title>T</title><body><p conref="../lib/l.dita#l/p"/></body></topic>',
            "lib/l.dita": '<topic id="l"><title>L</title><body><p id="p"><xref href="target.dita"/></p></body></topic>',
            "lib/target.dita": '<topic id="x"><title>X</title></topic>',
        },
    )
    job = preprocess(load(tmp_path / "m.ditamap"), None, tmp_path / "job")
    root = etree.parse(str(job.directory / "a/t.dita")).getroot()
    assert root.find(".//xref").get("href") == "../lib/target.dita"


# --------------------------------------------------------------------------- DITA-OT conformance cases (its own filtering test cases)


def kept_ids(job, uri: str) -> set[str]:
    path = job.directory / uri
    if path.stat().st_size == 0:
        return set()
    return {el.get("id") for el in etree.parse(str(path)).getroot().iter() if el.get("id")}


@pytest.mark.parametrize(
    "rules, kept",
    [
        # DITA-OT's integration test cases control_value_file map13 + filter1/filter2/filter3, and filter_multi
        ('<prop att="platform" val="linux" action="include"/>', {"linux", "redhat", "suse", "mswin", "zos", "programmer"}),
        ('<prop att="platform" val="linux" action="exclude"/>', {"mswin", "zos", "programmer"}),
        ('<prop att="platform" val="redhat" action="exclude"/>', {"linux", "suse", "mswin", "zos", "programmer"}),
        (
            '<prop att="platform" val="linux" action="exclude"/><prop att="audience" val="programmer" action="exclude"/>',
            {"mswin", "zos"},
        ),
    ],
)
def test_control_value_cases_filter_through_the_subject_scheme_hierarchy(tmp_path, rules, kept):
    folder = FIXTURES / "control_values"
    job = preprocess(load(folder / "map.ditamap"), parse_ditaval(f"<val>{rules}</val>".encode(), "f"), tmp_path, name="f")
    ids = kept_ids(job, "topic.dita")
    profiled = {"linux", "redhat", "suse", "mswin", "zos", "programmer"}
    assert ids & profiled == kept
    assert {"category", "empty"} <= ids  # a category used as a value and an empty value are kept


def test_profiling_filter_case_keeps_and_removes_what_dita_ot_does(tmp_path):
    folder = FIXTURES / "profiling_filter"
    ditaval = parse_ditaval((folder / "filter.ditaval").read_bytes(), "filter.ditaval")
    job = preprocess(load(folder / "map.ditamap"), ditaval, tmp_path, name="filter")
    ids = kept_ids(job, "topic.dita")
    assert {"expert", "windows", "arm", "dita-in-foreign", "nested-windows"}.isdisjoint(ids)
    assert {
        "no-audience", "audience-empty", "novice", "expert-novice", "osx", "windows-osx",
        "hw-empty", "foreign", "non-dita", "nested-osx",
    } <= ids


def test_empty_xref_gets_its_targets_title_as_profiled(tmp_path):
    """DITA-OT's topicpull fills an empty xref with the target's title, after filtering the target."""
    root = write(tmp_path, {
        "root.ditamap": '<map><topicref href="a.dita"/><topicref href="b.dita"/></map>',
        "a.dita": '<topic id="a"><title>A</title><body><p>See <xref href="b.dita"/> and '
                  '<xref href="b.dita#b/s1"/> and <xref href="b.dita">own text</xref>.</p></body></topic>',
        "b.dita": '<topic id="b"><title>Build <ph platform="v5p">for v5p</ph><ph platform="v6e">for v6e</ph></title>'
                  '<body><section id="s1"><title>Section one</title><p>x</p></section></body></topic>',
    })
    docset = load(root / "root.ditamap")
    job = preprocess(docset, ditaval_for("v6e"), tmp_path / "job", name="v6e")
    text = " ".join("".join(etree.parse(str(job.directory / "a.dita")).getroot().itertext()).split())
    assert "See Build for v6e and Section one and own text." in text


def test_empty_xref_gets_its_targets_title_with_keyrefs_resolved(tmp_path):
    """The pulled title is the target's as published: a keyref in it carries the key's text."""
    root = write(tmp_path, {
        "root.ditamap": '<map><keydef keys="tool"><topicmeta><keywords><keyword>Corvo CLI</keyword>'
                        '</keywords></topicmeta></keydef>'
                        '<topicref href="a.dita"/><topicref href="b.dita"/></map>',
        "a.dita": '<topic id="a"><title>A</title><body><p>See <xref href="b.dita"/>.</p></body></topic>',
        "b.dita": '<topic id="b"><title>Install <keyword keyref="tool"/></title><body><p>x</p></body></topic>',
    })
    docset = load(root / "root.ditamap")
    job = preprocess(docset, ditaval_for("v6e"), tmp_path / "job", name="v6e")
    text = " ".join("".join(etree.parse(str(job.directory / "a.dita")).getroot().itertext()).split())
    assert "See Install Corvo CLI." in text
