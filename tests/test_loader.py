"""Secure loading: @class defaults, debug attributes, what is followed, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from valid.dita import classes
from valid.dita.loader import XPATH_ATTR, find_fragment, id_index, load
from valid.errors import DitaSyntaxError, MissingTargetError, UnsafeReferenceError

FIXTURES = Path(__file__).parent / "fixtures" / "dita"


def write(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


TOPIC = '<topic id="{id}"><title>{id}</title><body><p>text</p></body></topic>'


# --------------------------------------------------------------------------- @class defaults


@pytest.mark.parametrize(
    "name, value",
    [
        ("topic", " - topic/topic "),
        ("steps", " - topic/ol task/steps "),
        ("cmd", " - topic/ph task/cmd "),
        ("refsyn", " - topic/section reference/refsyn "),
        ("glossterm", " - topic/title concept/title glossentry/glossterm "),
        ("remedy", " - topic/section troubleshooting/remedy "),
        ("keydef", " + map/topicref mapgroup-d/keydef "),
        ("chapter", " - map/topicref bookmap/chapter "),
        ("subjectdef", " - map/topicref subjectScheme/subjectdef "),
        ("codeblock", " + topic/pre pr-d/codeblock "),
        ("uicontrol", " + topic/ph ui-d/uicontrol "),
        ("xmlelement", " + topic/keyword markup-d/markupname xml-d/xmlelement "),
        ("hazardstatement", " + topic/note hazard-d/hazardstatement "),
        ("ditavalref", " + map/topicref ditavalref-d/ditavalref "),
        ("equation-block", " + topic/div equation-d/equation-block "),
        ("svg-container", " + topic/foreign svg-d/svg-container "),
    ],
)
def test_class_defaults_cover_dita_13_types_and_domains(name, value):
    assert classes.default_class(name) == value


def test_loaded_elements_get_class_debug_attributes_and_xpath(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map>\n<topicref href="t.dita"/>\n</map>',
            "t.dita": '<task id="t">\n<title>T</title>\n<taskbody>\n<steps>\n<step><cmd>a</cmd></step>\n'
            "<step><cmd>b</cmd></step>\n</steps>\n</taskbody>\n</task>",
        },
    )
    docset = load(tmp_path / "m.ditamap")
    topic = docset.files[(tmp_path / "t.dita").resolve()]
    second_cmd = topic.root.findall(".//cmd")[1]
    assert second_cmd.get("class") == " - topic/ph task/cmd "
    assert second_cmd.get("xtrf") == "file:" + (tmp_path / "t.dita").resolve().as_posix()
    assert second_cmd.get("xtrc") == "cmd:2;6:1"
    assert second_cmd.get(XPATH_ATTR) == "/task[1]/taskbody[1]/steps[1]/step[2]/cmd[1]"
    assert docset.root_map.root.find("topicref").get("class") == " - map/topicref "


def test_an_existing_class_is_kept(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><topicref href="t.dita"/></map>',
            "t.dita": '<topic id="t"><title>T</title><body><myp class="- topic/p mydomain/myp ">x</myp></body></topic>',
        },
    )
    docset = load(tmp_path / "m.ditamap")
    assert docset.files[(tmp_path / "t.dita").resolve()].root.find(".//myp").get("class") == "- topic/p mydomain/myp "
    assert docset.warnings == []


def test_unclassifiable_elements_are_warned_with_file_line_and_name(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><topicref href="t.dita"/></map>',
            "t.dita": '<topic id="t"><title>T</title>\n<body>\n<widget>x</widget><widget/>'
            '<foreign><svg xmlns="http://www.w3.org/2000/svg"><g/></svg></foreign></body></topic>',
        },
    )
    docset = load(tmp_path / "m.ditamap")
    [w] = docset.warnings
    assert (w.path, w.line, w.feature) == ("t.dita", 3, "unknown-element")
    assert "<widget>" in w.message and "1 more" in w.message


def test_undeclared_entity_reference_is_warned_and_replaced(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><topicref href="t.dita"/></map>',
            "t.dita": '<!DOCTYPE topic PUBLIC "-//OASIS//DTD DITA Topic//EN" "topic.dtd">\n'
            '<topic id="t"><title>a&nbsp;b</title></topic>',
        },
    )
    docset = load(tmp_path / "m.ditamap")
    title = docset.files[(tmp_path / "t.dita").resolve()].root.find("title")
    assert title.text == "a\u00a0b"
    assert [w.feature for w in docset.warnings] == ["entity"]


# --------------------------------------------------------------------------- what is followed


def test_maprefs_topicrefs_keydefs_and_conrefs_are_followed_links_are_not(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><mapref href="sub/s.ditamap"/><keydef keys="k" href="k.dita"/></map>',
            "sub/s.ditamap": '<map><topicref href="../a.dita"/></map>',
            "a.dita": '<topic id="a"><title>A</title><body><p conref="lib.dita#lib/p1"/>'
            '<p><xref href="linked.dita"/></p></body></topic>',
            "lib.dita": '<topic id="lib"><title>L</title><body><p id="p1">x</p></body></topic>',
            "k.dita": TOPIC.format(id="k"),
            "linked.dita": TOPIC.format(id="linked"),
        },
    )
    docset = load(tmp_path / "m.ditamap")
    assert [sf.path for sf in docset.files.values()] == ["m.ditamap", "sub/s.ditamap", "k.dita", "a.dita", "lib.dita"]


def test_external_and_non_dita_references_are_not_loaded(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><topicref href="https://cloud.google.com/tpu" scope="external" format="html"/>'
            '<topicref href="guide.pdf" format="pdf"/></map>',
        },
    )
    docset = load(tmp_path / "m.ditamap")
    assert list(docset.files) == [(tmp_path / "m.ditamap").resolve()]
    assert [w.feature for w in docset.warnings] == ["non-dita-reference"]


def test_key_scopes_copy_to_branches_and_conref_push_are_not_warned_as_unsupported(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map>\n<topicgroup keyscope="s"><topicref href="a.dita" copy-to="b.dita"/></topicgroup>\n'
            '<ditavalref href="x.ditaval"/>\n</map>',
            "a.dita": '<topic id="a"><title>A</title><body><p conref="#a/x" conaction="pushafter"/>'
            '<p id="x">x</p></body></topic>',
        },
    )
    docset = load(tmp_path / "m.ditamap")
    # all preprocessed: test_keyscopes, test_copy_to, test_branch_filtering, test_conref_push
    assert docset.warnings == []


# --------------------------------------------------------------------------- what is refused


def test_a_malformed_topic_is_a_warning_naming_file_and_line_and_the_rest_loads(tmp_path):
    # DITA-OT reports DOTJ013E and builds without the file; the root map itself must parse.
    write(tmp_path, {"m.ditamap": '<map><topicref href="t.dita"/><topicref href="u.dita"/></map>',
                     "t.dita": "<topic id='t'>\n<title>T</title>\n<body></topic>",
                     "u.dita": "<topic id='u'><title>U</title></topic>"})
    docset = load(tmp_path / "m.ditamap")
    [warning] = docset.warnings
    assert (warning.path, warning.line, warning.feature) == ("t.dita", 3, "unreadable-file")
    assert warning.message.startswith("[DOTJ013E] malformed XML")
    assert [sf.path for sf in docset.files.values()] == ["m.ditamap", "u.dita"]


def test_a_malformed_root_map_is_still_an_error(tmp_path):
    write(tmp_path, {"m.ditamap": "<map>\n<topicref href='t.dita'>\n</map>"})
    with pytest.raises(DitaSyntaxError) as caught:
        load(tmp_path / "m.ditamap")
    assert (caught.value.path, caught.value.line) == ("m.ditamap", 3)


def test_a_missing_file_is_a_warning_naming_the_referencing_file_and_line(tmp_path):
    write(tmp_path, {"m.ditamap": '<map>\n\n<topicref href="gone.dita"/></map>'})
    [warning] = load(tmp_path / "m.ditamap").warnings
    assert (warning.path, warning.line, warning.feature) == ("m.ditamap", 3, "missing-file")
    assert warning.message == "[DOTX008E] @href='gone.dita' names a file that does not exist; it is not exported"


def test_a_conref_into_a_file_that_is_not_well_formed_is_a_warning_of_its_own(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><topicref href="a.dita"/></map>',
            "a.dita": '<topic id="a"><title>A</title>\n<body><p conref="lib.dita#lib/p"/></body></topic>',
            "lib.dita": '<topic id="lib"><title>L</title><body><p id="p">x</body></topic>',
        },
    )
    found = [(w.path, w.line, w.feature, w.message[:10]) for w in load(tmp_path / "m.ditamap").warnings]
    assert found == [("lib.dita", 1, "unreadable-file", "[DOTJ013E]"), ("a.dita", 2, "conref", "[DOTX010E]")]


def test_a_conref_to_a_missing_element_is_a_warning(tmp_path):
    write(
        tmp_path,
        {
            "m.ditamap": '<map><topicref href="a.dita"/></map>',
            "a.dita": '<topic id="a"><title>A</title>\n<body><p conref="#a/nope"/></body></topic>',
        },
    )
    [warning] = load(tmp_path / "m.ditamap").warnings
    assert (warning.path, warning.line, warning.feature) == ("a.dita", 2, "conref")
    assert warning.message.startswith("[DOTX010E] @conref='#a/nope': no element with that id")


def test_reference_outside_the_root_is_refused_before_reading_it(tmp_path):
    secret = tmp_path / "secret.dita"
    secret.write_text("<topic id='s'><title>SECRET</title></topic>")
    write(tmp_path, {"docs/m.ditamap": '<map>\n<topicref href="../secret.dita"/></map>'})
    with pytest.raises(UnsafeReferenceError, match=r"^m.ditamap:2: @href='../secret.dita' points outside the doc-set root"):
        load(tmp_path / "docs" / "m.ditamap")


def test_root_option_widens_the_doc_set(tmp_path):
    write(
        tmp_path,
        {"docs/m.ditamap": '<map><topicref href="../shared/s.dita"/></map>', "shared/s.dita": TOPIC.format(id="s")},
    )
    docset = load(tmp_path / "docs" / "m.ditamap", root=tmp_path)
    shared = docset.files[(tmp_path / "shared" / "s.dita").resolve()]
    assert (shared.path, shared.job_uri) == ("../shared/s.dita", "shared/s.dita")


def test_symlink_escaping_the_root_is_refused(tmp_path):
    outside = tmp_path / "outside"
    write(outside, {"t.dita": TOPIC.format(id="t")})
    write(tmp_path, {"docs/m.ditamap": '<map><topicref href="link.dita"/></map>'})
    (tmp_path / "docs" / "link.dita").symlink_to(outside / "t.dita")
    with pytest.raises(UnsafeReferenceError, match="outside the doc-set root"):
        load(tmp_path / "docs" / "m.ditamap")


@pytest.mark.parametrize(
    "href",
    ["file:///etc/passwd", "http://example.com/t.dita", "https://example.com/m.ditamap", "/etc/t.dita"],
)
def test_url_schemes_and_absolute_paths_are_refused_for_local_content(tmp_path, href):
    write(tmp_path, {"m.ditamap": f'<map>\n<topicref href="{href}" format="dita"/></map>'})
    with pytest.raises(UnsafeReferenceError, match=r"^m.ditamap:2: "):
        load(tmp_path / "m.ditamap")


def test_missing_root_map_is_a_missing_target(tmp_path):
    with pytest.raises(MissingTargetError, match="root map not found"):
        load(tmp_path / "nothing.ditamap")


def test_a_fragment_found_through_an_id_index_is_the_element_the_tree_walk_finds(tmp_path):
    # Duplicate ids: the first in document order wins; 'topic/element' looks only at elements
    # whose nearest topic is that topic (not a nested topic's); a bare id is a topic first.
    (tmp_path / "t.dita").write_text(
        '<dita><topic id="a"><title>A</title><body><p id="x">A x</p></body>'
        '<topic id="n"><title>N</title><body><p id="y">N y</p><p id="x">N x</p></body></topic></topic>'
        '<topic id="b"><title>B</title><body><p id="y">B y</p><p id="a">B a</p></body></topic></dita>'
    )
    (tmp_path / "m.ditamap").write_text('<map><topicref href="t.dita"/></map>')
    root = next(sf.root for sf in load(tmp_path / "m.ditamap").files.values() if sf.file.name == "t.dita")
    index = id_index(root)
    expected = {"a/x": "A x", "n/x": "N x", "n/y": "N y", "b/y": "B y", "a/y": None, "b/a": "B a", "c/x": None}
    for fragment, text in expected.items():
        for found in (find_fragment(root, fragment), find_fragment(root, fragment, index=index)):
            assert (found.text if found is not None else None) == text, fragment
    for fragment in ("a", "b", "n"):
        assert find_fragment(root, fragment, index=index).get("id") == fragment
        assert find_fragment(root, fragment, index=index) is find_fragment(root, fragment)
    assert find_fragment(root, "y", index=index).text == "N y"  # no topic 'y': the first element with it
