"""Internal DTD subsets: internal general entities are expanded within bounds, everything else refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from valid.dita import entities
from valid.dita.loader import load
from valid.errors import UnsafeReferenceError


def load_topic(tmp_path: Path, topic: str):
    (tmp_path / "m.ditamap").write_text('<map><topicref href="t.dita"/></map>', encoding="utf-8")
    (tmp_path / "t.dita").write_text(topic, encoding="utf-8")
    docset = load(tmp_path / "m.ditamap")
    return docset, docset.files[(tmp_path / "t.dita").resolve()].root


VERSIONS = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<!DOCTYPE topic PUBLIC "-//OASIS//DTD DITA Topic//EN" "topic.dtd" [\n'
    '  <!ENTITY PRODUCT_MAJOR "28">\n'
    "  <!ENTITY PRODUCT_MINOR '&PRODUCT_MAJOR;.0'>\n"
    '  <!ENTITY tm "&#8482;">\n'
    '  <!ENTITY prodname "<ph>Widget&tm;</ph>">\n'
    "]>\n"
)


def test_internal_general_entities_are_expanded_in_text_markup_and_attributes(tmp_path):
    _, root = load_topic(
        tmp_path,
        VERSIONS + '<topic id="t"><title>Release &PRODUCT_MINOR;</title>\n'
        '<body><p otherprops="v&PRODUCT_MAJOR;">Use &prodname; &amp; more.</p></body></topic>',
    )
    assert root.find("title").text == "Release 28.0"
    p = root.find("body/p")
    assert p.get("otherprops") == "v28"
    assert "".join(p.itertext()) == "Use Widget\u2122 & more."
    assert p.find("ph").get("class") == " - topic/ph "  # expanded markup is annotated like the rest
    serialized = etree.tostring(root, encoding="unicode")
    assert "&PRODUCT" not in serialized and "&prodname" not in serialized


def test_expanded_elements_carry_the_line_of_the_reference(tmp_path):
    _, root = load_topic(tmp_path, VERSIONS + '<topic id="t"><title>T</title>\n<body>\n\n<p>&prodname;</p></body></topic>')
    ph = root.find("body/p/ph")
    assert ph.sourceline == 11
    assert ph.get("xtrc") == "ph:1;11:1"


def test_undeclared_entity_warnings_report_the_real_line_after_an_internal_subset(tmp_path):
    docset, root = load_topic(
        tmp_path,
        VERSIONS + '<topic id="t"><title>T</title>\n<body>\n<p>a&nbsp;&PRODUCT_MAJOR;</p></body></topic>',
    )
    assert root.find("body/p").text == "a\u00a028"
    [w] = docset.warnings
    assert (w.path, w.line, w.feature) == ("t.dita", 10, "entity")


def test_external_entity_is_refused_with_its_line_and_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    with pytest.raises(UnsafeReferenceError) as caught:
        load_topic(
            tmp_path,
            f'<?xml version="1.0"?>\n<!DOCTYPE topic [\n  <!ENTITY ok "x">\n  <!ENTITY xxe SYSTEM "{secret.as_uri()}">\n]>\n'
            '<topic id="t"><title>&xxe;</title></topic>',
        )
    assert str(caught.value) == "t.dita:4: external entity 'xxe' is refused (no DTD or external entity is ever read)"
    assert "TOP-SECRET" not in str(caught.value)


@pytest.mark.parametrize(
    "subset, line, message",
    [
        ('\n<!ENTITY % pe "x">', 3, "parameter entity 'pe' is refused"),
        ('\n<!ENTITY % pe SYSTEM "http://example.com/x.dtd">', 3, "parameter entity 'pe' is refused"),
        ('\n\n%shell;', 4, "parameter entity reference %shell; is refused"),
        ('\n<!ENTITY pub PUBLIC "-//X//EN" "x.ent">', 3, "external entity 'pub' is refused"),
        ('\n<!ENTITY pic SYSTEM "pic.png" NDATA png>', 3, "external entity 'pic' is refused"),
        ('\n<![INCLUDE[ <!ENTITY a "b"> ]]>', 3, "conditional sections are refused"),
    ],
)
def test_parameter_and_external_entities_are_refused_with_their_line(tmp_path, subset, line, message):
    with pytest.raises(UnsafeReferenceError) as caught:
        load_topic(tmp_path, f'<?xml version="1.0"?>\n<!DOCTYPE topic [{subset}\n]>\n<topic id="t"><title>T</title></topic>')
    assert str(caught.value).startswith(f"t.dita:{line}: {message}")


def billion_laughs(levels: int) -> str:
    decls = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, levels + 1)
    ]
    return "\n".join(decls)


def test_billion_laughs_fails_with_file_and_line_of_the_declaration_over_the_bound(tmp_path):
    subset = billion_laughs(9)
    with pytest.raises(UnsafeReferenceError) as caught:
        load_topic(tmp_path, f"<!DOCTYPE topic [\n{subset}\n]>\n<topic id='t'><title>&lol9;</title></topic>")
    # lol0 is on line 2; lol4 (11,111 nested expansions) is within bounds, lol5 (111,111) is not.
    assert str(caught.value).startswith("t.dita:7: entity 'lol5' takes entity expansion past its bounds")


def test_many_references_to_a_large_entity_fail_at_the_reference_that_crosses_the_bound(tmp_path):
    subset = f'<!ENTITY big "{"x" * 300_000}">'  # fine on its own
    body = "\n".join("<p>&big;</p>" for _ in range(40))  # 12,000,000 characters in all
    with pytest.raises(UnsafeReferenceError) as caught:
        load_topic(tmp_path, f"<!DOCTYPE topic [\n{subset}\n]>\n<topic id='t'><title>T</title><body>\n{body}</body></topic>")
    first_p = 5
    assert str(caught.value).startswith(f"t.dita:{first_p + 33}: this reference to entity 'big'")


def test_deep_nesting_is_refused_with_its_line(tmp_path):
    decls = ['<!ENTITY e0 "x">'] + [f'<!ENTITY e{i} "&e{i - 1};">' for i in range(1, entities.MAX_DEPTH + 2)]
    with pytest.raises(UnsafeReferenceError, match=r"^t.dita:\d+: entity 'e\d+' nests more than 10 levels deep"):
        load_topic(tmp_path, "<!DOCTYPE topic [\n" + "\n".join(decls) + "\n]>\n<topic id='t'><title>&e11;</title></topic>")


def test_too_many_declarations_are_refused(tmp_path):
    decls = "\n".join(f'<!ENTITY e{i} "x">' for i in range(entities.MAX_DECLARATIONS + 1))
    with pytest.raises(UnsafeReferenceError, match=rf"^t.dita:{entities.MAX_DECLARATIONS + 2}: more than 1,000 entity"):
        load_topic(tmp_path, f"<!DOCTYPE topic [\n{decls}\n]>\n<topic id='t'><title>T</title></topic>")


def test_recursive_entities_are_refused_with_their_line(tmp_path):
    with pytest.raises(UnsafeReferenceError, match=r"^t.dita:3: entity 'b' refers to itself through 'a'"):
        load_topic(tmp_path, "<!DOCTYPE topic [\n<!ENTITY a '&b;'>\n<!ENTITY b '&a;'>\n]>\n<topic id='t'><title>&a;</title></topic>")


def test_malformed_replacement_text_names_the_line_of_the_reference(tmp_path):
    # A referenced topic that does not parse is DITA-OT's DOTJ013E: warned, and the build goes on without it.
    (tmp_path / "m.ditamap").write_text('<map><topicref href="t.dita"/></map>', encoding="utf-8")
    (tmp_path / "t.dita").write_text(
        "<!DOCTYPE topic [\n<!ENTITY bad '<ph>x'>\n]>\n<topic id='t'><title>T</title>\n<shortdesc>&bad;</shortdesc></topic>",
        encoding="utf-8",
    )
    [warning] = load(tmp_path / "m.ditamap").warnings
    assert (warning.path, warning.line, warning.feature) == ("t.dita", 5, "unreadable-file")
    assert warning.message.startswith("[DOTJ013E] malformed XML")


def test_a_subset_with_only_element_declarations_and_comments_is_accepted(tmp_path):
    _, root = load_topic(
        tmp_path,
        "<!DOCTYPE topic [\n<!-- a ']>' in a comment -->\n<!ELEMENT x (#PCDATA)>\n"
        "<!ATTLIST x a CDATA 'v>w'>\n<?pi x?>\n]>\n<topic id='t'><title>T</title></topic>",
    )
    assert root.find("title").text == "T"


def test_every_undeclared_entity_on_a_line_is_reported_at_that_line(tmp_path):
    # Without an internal subset, and after one whose declared entity is expanded on the same line.
    docset, root = load_topic(
        tmp_path,
        '<!DOCTYPE topic PUBLIC "-//OASIS//DTD DITA Topic//EN" "topic.dtd">\n'
        '<topic id="t"><title>T</title>\n<body>\n<p>a&nbsp;b&reg;c&copy;</p>\n<p>&mdash;</p></body></topic>',
    )
    assert root.find("body/p").text == "a\u00a0b\u00aec\u00a9"
    assert [(w.line, w.message.split()[2]) for w in docset.warnings] == [
        (4, "&nbsp;"), (4, "&reg;"), (4, "&copy;"), (5, "&mdash;")
    ]
    docset, root = load_topic(
        tmp_path,
        VERSIONS + '<topic id="t"><title>T&PRODUCT_MAJOR;&nbsp;&reg;</title>\n<body>\n<p>&prodname;&tm;&copy;x</p></body></topic>',
    )
    assert root.find("title").text == "T28\u00a0\u00ae"
    assert [(w.line, w.message.split()[2]) for w in docset.warnings] == [(8, "&nbsp;"), (8, "&reg;"), (10, "&copy;")]
    assert root.find("body/p/ph").sourceline == 10  # a declared entity's markup after another on its line
