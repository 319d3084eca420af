"""Branch filtering (DITA 1.3 `ditavalref`) as DITA-OT 4.2.4's BranchFilterModule does it.

Each branch is filtered by the profile's DITAVAL *and* every `ditavalref` on it or above it; a
topic in a branch with a resource prefix or suffix becomes a renamed, branch-filtered copy; a key
scope prefix makes the branch a key scope.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from valid.dita.ditaval import parse_ditaval
from valid.dita.loader import load
from valid.dita.preprocess import preprocess
from valid.errors import DitaError

TOPIC = (
    '<topic id="t"><title>T</title><body>'
    '<p id="common">Common.</p><p id="v1" product="v1">Only v1.</p><p id="v2" product="v2">Only v2.</p>'
    '<p id="admin" audience="admin">Admins.</p></body></topic>'
)
ONLY = '<val><prop att="product" action="exclude"/><prop att="product" val="{}" action="include"/></val>'


def write(base: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base / "m.ditamap"


def ditavalref(href: str, prefix: str = "", suffix: str = "", keyscope_prefix: str = "") -> str:
    meta = ""
    if prefix:
        meta += f"<dvrResourcePrefix>{prefix}</dvrResourcePrefix>"
    if suffix:
        meta += f"<dvrResourceSuffix>{suffix}</dvrResourceSuffix>"
    if keyscope_prefix:
        meta += f"<dvrKeyscopePrefix>{keyscope_prefix}</dvrKeyscopePrefix>"
    return f'<ditavalref href="{href}">' + (f"<ditavalmeta>{meta}</ditavalmeta>" if meta else "") + "</ditavalref>"


def base_files(map_body: str, **extra: str) -> dict[str, str]:
    return {
        "m.ditamap": f"<map>{map_body}</map>",
        "t.dita": TOPIC,
        "v1.ditaval": ONLY.format("v1"),
        "v2.ditaval": ONLY.format("v2"),
        **extra,
    }


def kept(job, uri: str) -> list[str]:
    path = job.directory / uri
    if not path.exists() or path.stat().st_size == 0:
        return []
    return [p.get("id") for p in etree.parse(str(path)).getroot().iter("p")]


def topic_uris(job) -> list[str]:
    return sorted(f.uri for f in job.files if f.format == "dita")


def map_hrefs(job) -> list[str]:
    root = etree.parse(str(job.directory / "m.ditamap")).getroot()
    return [t.get("href") for t in root.iter("topicref") if t.get("href")]


TWO_BRANCHES = (
    "<topicgroup>" + ditavalref("v1.ditaval", prefix="v1-") + ditavalref("v2.ditaval", prefix="v2-")
    + '<topicref href="t.dita"/></topicgroup>'
)


def test_each_ditavalref_makes_a_branch_whose_topics_are_renamed_copies_filtered_by_it(tmp_path):
    root_map = write(tmp_path, base_files(TWO_BRANCHES))
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert topic_uris(job) == ["v1-t.dita", "v2-t.dita"]
    assert map_hrefs(job) == ["v1-t.dita", "v2-t.dita"]
    assert kept(job, "v1-t.dita") == ["common", "v1", "admin"]
    assert kept(job, "v2-t.dita") == ["common", "v2", "admin"]
    assert not any(w.feature == "ditavalref" for w in job.warnings)


def test_the_profile_ditaval_applies_on_top_of_every_branch(tmp_path):
    root_map = write(tmp_path, base_files(TWO_BRANCHES))
    no_admin = parse_ditaval(b'<val><prop att="audience" val="admin" action="exclude"/></val>', "p")
    job = preprocess(load(root_map), no_admin, tmp_path / "job", name="p")
    assert kept(job, "v1-t.dita") == ["common", "v1"]
    assert kept(job, "v2-t.dita") == ["common", "v2"]


def test_topicrefs_a_branch_ditaval_excludes_are_removed_from_that_branch_only(tmp_path):
    root_map = write(tmp_path, base_files(
        "<topicgroup>" + ditavalref("v1.ditaval", prefix="v1-") + ditavalref("v2.ditaval", prefix="v2-")
        + '<topicref href="t.dita"/><topicref href="u.dita" product="v2"/></topicgroup>',
        **{"u.dita": '<topic id="u"><title>U</title></topic>'},
    ))
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert topic_uris(job) == ["v1-t.dita", "v2-t.dita", "v2-u.dita"]


def test_suffix_goes_before_the_extension_and_nested_branches_accumulate(tmp_path):
    root_map = write(tmp_path, base_files(
        "<topicgroup>" + ditavalref("v1.ditaval", prefix="out-", suffix="-o")
        + "<topicgroup>" + ditavalref("none.ditaval", prefix="in-", suffix="-i")
        + '<topicref href="t.dita"/></topicgroup></topicgroup>',
        **{"none.ditaval": "<val/>"},
    ))
    job = preprocess(load(root_map), None, tmp_path / "job")
    # prefixes append outer-first, suffixes prepend inner-first (BranchFilterModule.Branch.merge)
    assert topic_uris(job) == ["out-in-t-i-o.dita"]
    assert kept(job, "out-in-t-i-o.dita") == ["common", "v1", "admin"]


def test_without_renames_a_topic_in_two_filter_contexts_gets_numbered_names(tmp_path):
    root_map = write(tmp_path, base_files(
        '<topicref href="t.dita"/><topicgroup>' + ditavalref("v1.ditaval") + '<topicref href="t.dita"/></topicgroup>'
        "<topicgroup>" + ditavalref("v2.ditaval") + '<topicref href="t.dita"/></topicgroup>'
    ))
    job = preprocess(load(root_map), None, tmp_path / "job")
    # the reference outside any branch keeps the name (DITA-OT's rewriteDuplicates)
    assert map_hrefs(job) == ["t.dita", "t-1.dita", "t-2.dita"]
    assert kept(job, "t.dita") == ["common", "v1", "v2", "admin"]
    assert kept(job, "t-1.dita") == ["common", "v1", "admin"]
    assert kept(job, "t-2.dita") == ["common", "v2", "admin"]


def test_a_single_branch_without_renames_filters_its_topic_in_place(tmp_path):
    root_map = write(tmp_path, base_files("<topicgroup>" + ditavalref("v2.ditaval") + '<topicref href="t.dita"/></topicgroup>'))
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert topic_uris(job) == ["t.dita"]
    assert kept(job, "t.dita") == ["common", "v2", "admin"]


def test_a_resource_only_topic_in_a_branch_without_renames_is_not_branch_filtered(tmp_path):
    # dita-ot#4119 (open in 4.2.4): the conref library keeps the v1 paragraph in a v2 branch
    root_map = write(tmp_path, base_files(
        "<topicgroup>" + ditavalref("v2.ditaval")
        + '<topicref href="lib.dita" processing-role="resource-only"/><topicref href="u.dita"/></topicgroup>',
        **{
            "lib.dita": '<topic id="lib"><title>L</title><body><p id="v1" product="v1">Only v1.</p></body></topic>',
            "u.dita": '<topic id="u"><title>U</title><body><p id="use" conref="lib.dita#lib/v1"/></body></topic>',
        },
    ))
    job = preprocess(load(root_map), None, tmp_path / "job")
    assert kept(job, "lib.dita") == ["v1"]
    assert kept(job, "u.dita") == ["use"]


def test_key_definitions_follow_their_branch_filter_rename_and_keyscope_prefix(tmp_path):
    def keydef(text: str, product: str) -> str:
        return (f'<keydef keys="name" product="{product}"><topicmeta><keywords><keyword>{text}</keyword>'
                "</keywords></topicmeta></keydef>")

    root_map = write(tmp_path, base_files(
        "<topicgroup>" + ditavalref("v1.ditaval", prefix="v1-", keyscope_prefix="r1")
        + ditavalref("v2.ditaval", prefix="v2-", keyscope_prefix="r2")
        + keydef("Release one", "v1") + keydef("Release two", "v2")
        + '<keydef keys="page" href="t.dita"/><topicref href="k.dita"/></topicgroup>'
        '<topicref href="root.dita"/>',
        **{
            "k.dita": '<topic id="k"><title>K</title><body><p id="n"><ph keyref="name"/></p></body></topic>',
            "root.dita": '<topic id="r"><title>R</title><body><p id="n"><ph keyref="r1.name"/> and '
                         '<ph keyref="r2.name"/></p></body></topic>',
        },
    ))
    job = preprocess(load(root_map), None, tmp_path / "job")

    def text(uri: str) -> str:
        return " ".join("".join(etree.parse(str(job.directory / uri)).getroot().find(".//p").itertext()).split())

    assert text("v1-k.dita") == "Release one"
    assert text("v2-k.dita") == "Release two"
    assert text("root.dita") == "Release one and Release two"
    keydefs = [k.get("href") for k in etree.parse(str(job.directory / "m.ditamap")).getroot().iter("keydef") if k.get("href")]
    assert keydefs == ["v1-t.dita", "v2-t.dita"]


def test_a_missing_branch_ditaval_is_an_error_with_file_and_line(tmp_path):
    root_map = write(tmp_path, {
        "m.ditamap": '<map>\n<topicgroup>\n<ditavalref href="gone.ditaval"/><topicref href="t.dita"/></topicgroup></map>',
        "t.dita": TOPIC,
    })
    with pytest.raises(DitaError, match=r"m\.ditamap:3: ditavalref 'gone\.ditaval'"):
        preprocess(load(root_map), None, tmp_path / "job")


def test_a_branch_ditaval_outside_the_doc_set_root_is_refused(tmp_path):
    (tmp_path / "out.ditaval").write_text("<val/>")
    root_map = write(tmp_path / "docs", {
        "m.ditamap": '<map><topicgroup><ditavalref href="../out.ditaval"/><topicref href="t.dita"/></topicgroup></map>',
        "t.dita": TOPIC,
    })
    with pytest.raises(DitaError, match="outside the doc-set root"):
        preprocess(load(root_map), None, tmp_path / "job")


def test_the_export_scopes_each_branch_copy_by_branch_and_profile(tmp_path):
    from valid.export import export

    root_map = write(tmp_path, base_files(
        "<topicgroup>" + ditavalref("v1.ditaval", prefix="v1-") + ditavalref("v2.ditaval", prefix="v2-")
        + '<topicref href="t.dita"/></topicgroup>',
        **{
            "user.ditaval": '<val><prop att="audience" val="admin" action="exclude"/></val>',
            "admin.ditaval": "<val/>",
        },
    ))
    root_map.parent.joinpath("t.dita").write_text(TOPIC.replace(
        "</body>", '<section id="s1" product="v1"><title>S1</title><p>One.</p></section>'
                   '<section id="sa" audience="admin"><title>SA</title><p>Admin section.</p></section></body>'))
    out = tmp_path / "out.jsonl"
    export(root_map, profiles=[("user", tmp_path / "user.ditaval"), ("admin", tmp_path / "admin.ditaval")], out=out)
    chunks = {c["id"]: c for c in map(json.loads, out.read_text().splitlines()[1:])}
    assert chunks["v1-t.dita#t/s1"]["scope"] == {"user": True, "admin": True}
    assert "v2-t.dita#t/s1" not in chunks  # the v2 branch filters it out in every profile
    assert chunks["v1-t.dita#t/sa"]["scope"] == {"user": False, "admin": True}
    assert chunks["v2-t.dita#t/sa"]["scope"] == {"user": False, "admin": True}
    assert chunks["v1-t.dita#t/s1"]["source"]["path"] == "t.dita"


def test_nested_branches_name_copies_and_key_scopes_as_dita_ot_does(tmp_path):
    """Shaped like DITA-OT's MapBranchFilterModuleTest: three platform branches around a topic
    with two audience branches inside; the expected names and key scopes are DITA-OT's."""

    def ref(href: str, suffix: str = "", scope_prefix: str = "") -> str:
        meta = (f"<ditavalmeta><dvrResourceSuffix>{suffix}</dvrResourceSuffix>"
                f"<dvrKeyscopePrefix>{scope_prefix}</dvrKeyscopePrefix></ditavalmeta>") if suffix else ""
        return f'<ditavalref href="{href}">{meta}</ditavalref>'

    topic = '<topic id="{0}"><title>{0}</title><body><p>{0}</p></body></topic>'
    root_map = write(tmp_path, {
        "m.ditamap": '<map><topicref href="install.dita" keyscope="install">'
                     + ref("linux.ditaval") + ref("mac.ditaval", "-mac", "mac-") + ref("win.ditaval", "-win", "win-")
                     + '<topicref href="perform-install.dita" keyscope="perform-install"/>'
                     '<topicref href="configure.dita" keyscope="configure">'
                     + ref("novice.ditaval", "-novice", "novice-") + ref("advanced.ditaval", "-admin", "admin-")
                     + '</topicref></topicref></map>',
        **{f"{n}.dita": topic.format(n) for n in ("install", "perform-install", "configure")},
        **{f"{n}.ditaval": "<val/>" for n in ("linux", "mac", "win", "novice", "advanced")},
    })
    job = preprocess(load(root_map), None, tmp_path / "job")
    refs = [(t.get("href"), t.get("keyscope"))
            for t in etree.parse(str(job.directory / "m.ditamap")).getroot().iter("topicref")]
    assert refs == [
        ("install.dita", "install"), ("perform-install.dita", "perform-install"),
        ("configure-novice.dita", "novice-configure"), ("configure-admin.dita", "admin-configure"),
        ("install-mac.dita", "mac-install"), ("perform-install-mac.dita", "perform-install"),
        ("configure-novice-mac.dita", "novice-configure"), ("configure-admin-mac.dita", "admin-configure"),
        ("install-win.dita", "win-install"), ("perform-install-win.dita", "perform-install"),
        ("configure-novice-win.dita", "novice-configure"), ("configure-admin-win.dita", "admin-configure"),
    ]
