"""Questions about the versions on a generated doc set of eleven versions of one product, written
by this test: version strings that sort wrongly as text (2.10 after 2.9), a pre-release (3.0-rc.1
between 2.10 and 3.0), versions listed in the scheme out of order, a version named in the release
notes that is not documented (2.5), an option that exists in a middle range only (--legacy,
2.0 to 2.2, with its deprecation and removal notices), and one with a gap (--watch-dir, missing
from 2.0 only). Exported through SaxonC, indexed into a real release, asked through valid.answer."""

from __future__ import annotations

import pytest

from valid.answer.versions_catalog import build_catalog, version_key
from valid.answer.wiring import open_engine

# Scheme order on purpose not version order: the order must come from the version strings.
SCHEME_ORDER = ["2.10", "1.0", "1.1", "1.2", "2.0", "2.1", "2.2", "2.8", "2.9", "3.0", "3.0-rc.1"]
VERSION_ORDER = ["1.0", "1.1", "1.2", "2.0", "2.1", "2.2", "2.8", "2.9", "2.10", "3.0-rc.1", "3.0"]
KEY = {v: "n-" + v for v in SCHEME_ORDER}


def _in(*versions: str) -> str:
    return " ".join(KEY[v] for v in versions)


def _from(first: str) -> list[str]:
    return VERSION_ORDER[VERSION_ORDER.index(first):]


NOTES = {
    "1.0": "First release, with nimbus export and nimbus import.",
    "1.1": "New: --watch-dir for nimbus export.",
    "1.2": "Changed: exports are written in parallel.",
    "2.0": "New: --legacy keeps the 1.x file layout. Removed: --watch-dir, for now.",
    "2.1": "New: --watch-dir is back.",
    "2.2": "Deprecated: --legacy, to be removed in a later release.",
    "2.8": "Removed: --legacy. The 2.5 line was never released.",
    "2.9": "New: --zstd compresses exports with zstd.",
    "2.10": "New: --checksum verifies every exported file.",
    "3.0-rc.1": "New (preview): nimbus serve.",
    "3.0": "Changed: nimbus serve is no longer a preview.",
}


def _scheme() -> str:
    subjects = "".join(
        f'<subjectdef keys="{KEY[v]}"><topicmeta><navtitle>Nimbus {v}</navtitle>'
        f"<keywords><keyword>Nimbus v{v}</keyword></keywords></topicmeta></subjectdef>"
        for v in SCHEME_ORDER
    )
    return (
        '<subjectScheme id="nimbus"><subjectdef keys="nimbus-release">'
        f"<topicmeta><navtitle>Nimbus release</navtitle></topicmeta>{subjects}</subjectdef>"
        '<enumerationdef><attributedef name="product"/><subjectdef keyref="nimbus-release"/></enumerationdef></subjectScheme>'
    )


def _reference() -> str:
    rows = [
        ("--format FORMAT", "json", "The format of the exported files.", _in(*VERSION_ORDER)),
        ("--watch-dir DIR", "none", "Export again whenever DIR changes.", _in("1.1", "1.2", *_from("2.1"))),
        ("--legacy", "off", "Keep the 1.x file layout.", _in("2.0", "2.1", "2.2")),
        ("--zstd", "off", "Compress the exported files with zstd.", _in(*_from("2.9"))),
        ("--checksum", "off", "Verify every exported file after writing it.", _in(*_from("2.10"))),
    ]
    body = "".join(
        f'<row product="{scope}"><entry><parmname>{flag.split()[0]}</parmname>{flag[len(flag.split()[0]):]}</entry>'
        f"<entry>{default}</entry><entry>{what}</entry></row>"
        for flag, default, what, scope in rows
    )
    port_old = f'<p product="{_in(*VERSION_ORDER[:6])}">The status port is 8080 by default.</p>'
    port_new = f'<p product="{_in(*VERSION_ORDER[6:])}">The status port is 9090 by default.</p>'
    legacy_note = f'<note product="{_in("2.2")}" type="caution">Deprecated: <parmname>--legacy</parmname> will be removed in a later release.</note>'
    return (
        '<reference id="nimbus-export"><title>nimbus export</title><shortdesc>Export a project to files.</shortdesc><refbody>'
        '<section id="synopsis"><title>Synopsis</title><p>nimbus export [OPTIONS] PROJECT</p></section>'
        f'<section id="defaults"><title>Status port</title>{port_old}{port_new}</section>'
        f'<section id="naming"><title>Project names</title><p>A project name is 2 to 40 characters long.</p></section>'
        f'<table id="options"><title>Options of nimbus export</title><tgroup cols="3"><tbody>{body}</tbody></tgroup></table>'
        f"{legacy_note}</refbody></reference>"
    )


def _notes() -> str:
    sections = "".join(
        f'<section id="notes-{v.replace(".", "-")}" product="{KEY[v]}"><title>Nimbus {v}</title><p>{text}</p></section>'
        for v, text in NOTES.items()
    )
    return f'<reference id="release-notes"><title>Release notes</title><refbody>{sections}</refbody></reference>'


def _serve() -> str:
    return (
        '<concept id="nimbus-serve"><title>nimbus serve</title><conbody>'
        "<p>Serve a project's exports over HTTP.</p></conbody></concept>"
    )


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    from valid.embed import make_embedder
    from valid.export import export
    from valid.index import Store, build_release

    root = tmp_path_factory.mktemp("nimbus")
    docs = root / "docs"
    docs.mkdir()
    files = {
        "scheme.ditamap": _scheme(),
        "nimbus.ditamap": (
            '<map><title>Nimbus</title><topicref href="export.dita"/><topicref href="notes.dita"/>'
            f'<topicref href="serve.dita" product="{_in("3.0-rc.1", "3.0")}"/></map>'
        ),
        "export.dita": _reference(),
        "notes.dita": _notes(),
        "serve.dita": _serve(),
    }
    for name, text in files.items():
        (docs / name).write_text('<?xml version="1.0" encoding="UTF-8"?>\n' + text, encoding="utf-8")
    out = root / "nimbus.jsonl"
    export(docs / "nimbus.ditamap", scheme=docs / "scheme.ditamap", out=out)
    build_release(out, make_embedder("offline"), Store(root / "state"))
    with open_engine(root / "state", log=False, gap_issues=False) as running:
        yield running


def keys(*versions: str) -> list[str]:
    return [KEY[v] for v in versions]


def versions_of(engine, question):
    answer = engine.ask(question).answer
    assert answer.outcome == "versions", (answer.outcome, answer.refusal, answer.choices)
    assert answer.checks["passed"] is True
    return answer.versions


def test_version_strings_sort_as_versions_not_as_text_and_a_pre_release_before_its_release():
    assert sorted(SCHEME_ORDER, key=version_key) == VERSION_ORDER
    assert version_key("2.10") > version_key("2.9") and version_key("3.0-rc.1") < version_key("3.0")


def test_the_list_follows_version_order_although_the_scheme_lists_them_otherwise(engine):
    v = versions_of(engine, "Which versions of Nimbus are documented?")
    assert v.versions == keys(*VERSION_ORDER)
    assert v.labels[-3:] == ["Nimbus 2.10", "Nimbus 3.0-rc.1", "Nimbus 3.0"]


def test_the_latest_is_the_release_not_its_pre_release_and_2_10_is_newer_than_2_9(engine):
    assert versions_of(engine, "What is the latest Nimbus release?").versions == keys("3.0")
    assert versions_of(engine, "How many Nimbus versions are there?").summary.startswith("The documentation covers 11")


def test_a_version_named_in_the_text_but_not_documented_does_not_exist_and_its_neighbours_are_named(engine):
    v = versions_of(engine, "Is Nimbus 2.5 documented?")
    assert v.verdict is False and v.versions == keys("2.2", "2.8")


def test_since_when_for_a_new_option_names_2_10_after_2_9(engine):
    v = versions_of(engine, "Since which version is --checksum available?")
    assert v.versions == keys("2.9", "2.10")
    assert {p.generation: p.role for p in v.evidence} == {KEY["2.9"]: "lacks", KEY["2.10"]: "has"}


def test_a_thing_in_a_middle_range_only_has_its_first_and_last_build_and_its_removal_notice(engine):
    since = versions_of(engine, "Which version added --legacy?")
    assert since.versions == keys("1.2", "2.0")
    until = versions_of(engine, "Which version removed --legacy?")
    assert until.versions == keys("2.2", "2.8")
    after = next(p for p in until.evidence if p.generation == KEY["2.8"])
    assert after.role == "notice" and "Removed" in after.text
    assert any(p.generation == KEY["2.2"] and "Deprecated" in p.text for p in until.evidence)


def test_a_gap_in_the_middle_is_said_not_smoothed_over(engine):
    v = versions_of(engine, "Since which version is --watch-dir documented?")
    assert v.versions == keys("1.0", "1.1")
    assert v.gaps == keys("2.0") and "Nimbus 2.0" in v.summary


def test_what_changed_in_2_10_is_against_2_9_its_predecessor_in_version_order(engine):
    v = versions_of(engine, "What changed in Nimbus 2.10?")
    assert v.versions == keys("2.9", "2.10")
    assert v.evidence[0].role == "release-notes" and "--checksum" in v.evidence[0].text


def test_the_same_in_every_version_yes_and_no(engine):
    same = versions_of(engine, "Is the project name length the same in every Nimbus version?")
    assert same.verdict is True and same.versions == keys(*VERSION_ORDER)
    differs = versions_of(engine, "Is the status port the same in every Nimbus version?")
    assert differs.verdict is False
    said = {p.generation: p.text for p in differs.evidence}
    assert "8080" in said[KEY["2.2"]] and "9090" in said[KEY["2.8"]]


def test_an_explicit_order_overrides_the_version_strings(engine):
    catalog = build_catalog(engine.profiles, order=keys("3.0", "1.0"))
    (product,) = catalog.products
    assert product.profiles[:2] == keys("3.0", "1.0") and product.by_version_strings is False
