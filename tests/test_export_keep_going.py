"""Issue 26 item 1: the export keeps going where DITA-OT 4.2.4 keeps going, and does with each
construct what DITA-OT does; every problem is one warning with file:line and DITA-OT's message id.

The fixture (tests/fixtures/keep-going) holds one of each: a topicref and a mapref to missing files,
a topic that is not well-formed, conrefs to a missing element and to a missing file, conkeyrefs to
an undefined key, to a missing element and through a key whose file is missing, a conref push into
a missing file, conref pushes through keys (one whose file is missing), a conref range whose end is
missing, a keyref to an undefined key, a topicref whose fragment names no topic, a link to a missing
file. The first tests
check VALID's export; the DITA-OT tests (DITA_HOME set) build the same fixture with
`dita --format=dita` and check that DITA-OT keeps and drops the same elements.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from fixtures.dita_home import dita_command

from valid.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "keep-going"
ROOT_MAP = FIXTURE / "root.ditamap"
DITAVAL = FIXTURE / "all.ditaval"

# The paragraphs of topics/main.dita by @id -> the text DITA-OT 4.2.4's build shows for each (None:
# DITA-OT drops the element). Written from a DITA-OT run of the fixture; the DITA-OT tests below
# check it again wherever DITA_HOME is set.
MAIN_PARAGRAPHS = {
    "kept": "A paragraph with no reference.",
    "resolved": "Library paragraph one.",
    "missing-element": None,
    "missing-file": None,
    "undefined-conkeyref": "Own text of a conkeyref to an undefined key.",
    "conkeyref-missing-element": None,
    "bad-range": "Library paragraph one.",
    "conkeyref-missing-file": None,
    "push-to-missing-file": "Own text of a push into a missing file.",
    "undefined-keyref": "Before fallback phrase after.",
    "pulls-pushed": None,  # its target, lib/p2, was replaced by a push through a key (topics/pusher.dita)
}

# The same for topics/pusher.dita: conref pushes through @conkeyref (DITA-OT resolves the key first).
PUSHER_PARAGRAPHS = {
    "push-key-missing-file": "Own text of a push through a key whose file is missing.",
    "push-key-existing": "Pushed over library paragraph two.",
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[list[dict], str]:
    out = tmp_path_factory.mktemp("keep-going") / "out.jsonl"
    result = CliRunner().invoke(
        main, ["export", str(ROOT_MAP), "--profile", f"all={DITAVAL}", "-o", str(out), "--jobs", "1"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()], result.output


def _warnings(exported, feature: str) -> list[str]:
    lines, _ = exported
    return [f"{w['path']}:{w['line']}: {w['message']}" for w in lines[0]["warnings"] if w["feature"] == feature]


def _main_text(exported) -> str:
    lines, _ = exported
    [body] = [c for c in lines[1:] if c["id"] == "topics/main.dita#main/body"]
    return body["text"]


def _own_text(paragraph_id: str) -> str:
    main = etree.parse(str(FIXTURE / "topics" / "main.dita"))
    [p] = main.xpath(f"//p[@id='{paragraph_id}']")
    return "".join(p.itertext()).strip()


# ----------------------------------------------------------------------------- VALID's export


def test_a_topicref_to_a_missing_file_is_a_warning_and_the_rest_is_exported(exported):
    assert (
        "root.ditamap:8: [DOTX008E] @href='topics/missing-topic.dita' names a file that does not exist; it is not exported"
    ) in _warnings(exported, "missing-file")
    ids = [c["id"] for c in exported[0][1:]]
    assert "topics/after.dita#after/body" in ids  # the topic after every missing one
    assert not any("missing-topic" in i for i in ids)


def test_a_mapref_to_a_missing_map_is_a_warning(exported):
    assert "root.ditamap:9: [DOTX008E] @href='missing-submap.ditamap' names a file that does not exist; it is not exported" in _warnings(exported, "missing-file")


def test_a_topic_that_is_not_well_formed_is_a_warning_and_not_exported(exported):
    [warning] = _warnings(exported, "unreadable-file")
    assert warning.startswith("topics/broken.dita:7: [DOTJ013E] malformed XML")
    assert not any("broken" in c["id"] for c in exported[0][1:])


def test_a_conref_to_a_missing_element_drops_the_referencing_element(exported):
    assert "topics/main.dita:8: [DOTX010E] @conref='lib.dita#lib/nope': no element with that id in topics/lib.dita; the element is dropped" in _warnings(exported, "conref")
    assert _own_text("missing-element") not in _main_text(exported)


def test_a_conref_to_a_missing_file_drops_the_referencing_element(exported):
    assert "topics/main.dita:9: [DOTX008E] @conref='gone.dita#gone/p1' names a file that does not exist; the element is dropped" in _warnings(exported, "missing-file")
    assert _own_text("missing-file") not in _main_text(exported)


def test_a_conkeyref_to_an_undefined_key_keeps_the_element_with_its_own_content(exported):
    warnings = _warnings(exported, "conkeyref")
    assert "topics/main.dita:10: [DOTJ046E] key 'nokey' is not defined in every profile; the element keeps its own content" in warnings
    assert _own_text("undefined-conkeyref") in _main_text(exported)


def test_a_conkeyref_to_a_missing_element_drops_the_referencing_element(exported):
    warnings = _warnings(exported, "conkeyref")
    assert "topics/main.dita:11: [DOTX010E] @conkeyref='lib/nope': no element 'lib/nope' in topics/lib.dita; the element is dropped" in warnings
    assert _own_text("conkeyref-missing-element") not in _main_text(exported)


def test_a_conkeyref_to_a_key_whose_file_is_missing_drops_the_referencing_element(exported):
    assert "root.ditamap:6: [DOTX008E] @href='topics/gone-key.dita' names a file that does not exist; it is not exported" in _warnings(exported, "missing-file")
    assert "topics/main.dita:13: [DOTX010E] @conkeyref='gonekey/p1': key 'gonekey' names a file that does not exist; the element is dropped" in _warnings(exported, "conkeyref")
    assert _own_text("conkeyref-missing-file") not in _main_text(exported)


def test_a_conref_push_into_a_missing_file_keeps_the_pushing_element_where_it_is(exported):
    assert "topics/main.dita:14: [DOTX008E] @conref='gone-push.dita#gone/p1' names a file that does not exist; nothing is pushed" in _warnings(exported, "missing-file")
    assert "Own text of a push into a missing file." in _main_text(exported)


def test_a_conref_push_through_a_key_replaces_its_target_and_stays_where_it_is(exported):
    lines, _ = exported
    [pusher] = [c for c in lines[1:] if c["id"] == "topics/pusher.dita#pusher/body"]
    assert pusher["text"] == "\n\n".join(PUSHER_PARAGRAPHS.values())
    # The replaced target is gone, so a conref to it drops the referencing element.
    assert _own_text("pulls-pushed") not in _main_text(exported)
    assert "Library paragraph two." not in _main_text(exported)
    assert "topics/pusher.dita:6: [DOTX008E] conref push through @conkeyref='gonekey/p9': the key names a file that does not exist; nothing is pushed" in _warnings(exported, "missing-file")


def test_a_topicref_whose_fragment_names_no_topic_exports_the_whole_file(exported):
    assert _warnings(exported, "topicref-fragment") == [
        "root.ditamap:13: [DOTX061W] @href='topics/frag.dita#nosuchtopic': the fragment names no topic in "
        "topics/frag.dita; the whole file is exported"
    ]
    lines, _ = exported
    [frag] = [c["text"] for c in lines[1:] if c["id"] == "topics/frag.dita#frag/body"]
    assert frag.startswith("Referenced with a fragment naming no topic.")


def test_a_link_to_a_missing_file_is_a_warning_at_the_link(exported):
    assert "topics/frag.dita:7: [DOTX008E] a link to 'nowhere.dita' names a file that does not exist; the link has no target" in _warnings(exported, "missing-file")


def test_a_conref_range_whose_end_is_missing_pulls_the_start_alone(exported):
    assert _warnings(exported, "conrefend") == [
        "topics/main.dita:12: [DOTX071E] @conrefend='lib.dita#lib/nope' names no element; only the start is pulled"
    ]
    text = _main_text(exported)
    assert text.count("Library paragraph one.") == 2 and "Library paragraph two." not in text


def test_a_keyref_to_an_undefined_key_keeps_the_element_with_its_own_content(exported):
    assert "topics/main.dita:15: [DOTJ047I] key 'undefined-key' is not defined in every profile; the element keeps its fallback content" in _warnings(exported, "keyref")
    assert "Before fallback phrase after." in _main_text(exported)


def test_the_body_holds_exactly_what_dita_ot_keeps_in_order(exported):
    expected = "\n\n".join(t for t in MAIN_PARAGRAPHS.values() if t is not None)
    assert _main_text(exported) == expected


def test_one_run_lists_every_problem_in_a_summary_by_kind(exported):
    _, output = exported
    assert "by kind:" in output
    for kind in ("missing-file", "unreadable-file", "conref", "conkeyref", "conrefend", "keyref"):
        assert f"  {kind} " in output, kind
    assert "(DOTX008E) root.ditamap:6, root.ditamap:8, root.ditamap:9" in output


def test_a_problem_every_build_reports_alike_is_one_warning(exported):
    # The unfiltered build and profile `all` both miss key 'nokey': one warning, not one per build.
    assert len(_warnings(exported, "conkeyref")) == 3 and len(_warnings(exported, "keyref")) == 1


def test_a_problem_some_builds_report_names_those_profiles():
    from valid.contracts import ExportWarning
    from valid.export.warnings import merge_profiles

    def said(profile: str) -> ExportWarning:
        return ExportWarning(path="t.dita", line=3, feature="keyref",
                             message=f"key 'k' is not defined in profile {profile}; the element keeps its fallback content")
    merged = merge_profiles([said("v5p"), said("_unfiltered"), said("v6e")], ["v5p", "v6e", "v7", "_unfiltered"])
    assert [w.message for w in merged] == ["key 'k' is not defined in profiles v5p, v6e, _unfiltered; the element keeps its fallback content"]
    assert merge_profiles([said("v5p")], ["v5p", "_unfiltered"]) == [said("v5p")]


def test_the_summary_counts_each_kind_most_frequent_first_with_its_first_places():
    from valid.contracts import ExportWarning
    from valid.export.warnings import summary

    def w(feature: str, line: int, message: str = "x") -> ExportWarning:
        return ExportWarning(path="t.dita", line=line, feature=feature, message=message)
    text = summary([w("keyref", 1), w("missing-file", 2, "[DOTX008E] a"), w("missing-file", 3, "[DOTX008E] b"),
                    w("missing-file", 4), w("missing-file", 5)], first=3)
    lines = text.splitlines()
    assert lines[0] == "5 warning(s) by kind:"
    assert lines[1].split() == ["missing-file", "4", "(DOTX008E)", "t.dita:2,", "t.dita:3,", "t.dita:4,", "..."]
    assert lines[2].split() == ["keyref", "1", "t.dita:1"]


def test_strict_fails_after_listing_every_warning_and_writes_nothing(tmp_path):
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        main, ["export", str(ROOT_MAP), "--profile", f"all={DITAVAL}", "-o", str(out), "--jobs", "1",
               "--strict", "--warnings"], catch_exceptions=False,
    )
    assert result.exit_code == 2
    listed = [line for line in result.output.splitlines() if ": [DOT" in line]
    assert len(listed) == 16  # every warning, not the first one
    assert result.output.strip().splitlines()[-1].startswith("valid: error: 16 warning(s) with --strict")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_strict_comes_from_valid_toml_too(tmp_path):
    out = tmp_path / "out.jsonl"
    (tmp_path / "valid.toml").write_text("[docset]\nstrict = true\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["--config", str(tmp_path / "valid.toml"), "export", str(ROOT_MAP), "--profile", f"all={DITAVAL}",
               "-o", str(out), "--jobs", "1"], catch_exceptions=False,
    )
    assert result.exit_code == 2 and "with --strict" in result.output
    assert not out.exists()


def test_workers_keep_going_to_the_same_bytes(exported, tmp_path):
    out = tmp_path / "parallel.jsonl"
    result = CliRunner().invoke(
        main, ["export", str(ROOT_MAP), "--profile", f"all={DITAVAL}", "--profile", f"again={DITAVAL}", "-o", str(out),
               "--jobs", "2"], catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    serial = tmp_path / "serial.jsonl"
    CliRunner().invoke(main, ["export", str(ROOT_MAP), "--profile", f"all={DITAVAL}", "--profile", f"again={DITAVAL}",
                              "-o", str(serial), "--jobs", "1"], catch_exceptions=False)
    assert out.read_bytes() == serial.read_bytes()


def test_valid_warnings_lists_an_exports_warnings_as_text_and_json(exported, tmp_path):
    lines, _ = exported
    export_file = tmp_path / "e.jsonl"
    export_file.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    text = CliRunner().invoke(main, ["warnings", str(export_file)], catch_exceptions=False)
    assert text.exit_code == 0
    assert len(text.output.strip().splitlines()) == len(lines[0]["warnings"])
    assert "topics/main.dita:8: conref: [DOTX010E]" in text.output
    as_json = json.loads(CliRunner().invoke(main, ["warnings", str(export_file), "--format", "json"]).output)
    assert [w["id"] for w in as_json if w["feature"] == "unreadable-file"] == ["DOTJ013E"]
    assert len(as_json) == len(lines[0]["warnings"])


def test_valid_init_reports_the_warnings_instead_of_failing(tmp_path):
    out = tmp_path / "valid.toml"
    result = CliRunner().invoke(main, ["init", str(ROOT_MAP), "-o", str(out), "--search", str(FIXTURE)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert out.is_file()
    assert "warning(s) by kind:" in result.output
    assert "(DOTX008E) root.ditamap:6, root.ditamap:8, root.ditamap:9, ..." in result.output
    every = CliRunner().invoke(main, ["init", str(ROOT_MAP), "-o", str(out), "--search", str(FIXTURE), "--force",
                                      "--warnings"], catch_exceptions=False)
    assert "topics/broken.dita:7: unreadable-file: [DOTJ013E] malformed XML" in every.output


# ----------------------------------------------------------------------------- DITA-OT 4.2.4


@pytest.fixture(scope="module")
def dita_ot_build(tmp_path_factory) -> tuple[Path, str]:
    """DITA-OT's own build of the fixture (normalized DITA output) and its log."""
    dita = dita_command()
    out = tmp_path_factory.mktemp("dita-ot-keep-going")
    run = subprocess.run(
        [str(dita), f"--input={ROOT_MAP}", "--format=dita", f"--filter={DITAVAL}", f"--output={out / 'out'}",
         f"--temp={out / 'temp'}"],
        capture_output=True, text=True, timeout=300,
    )
    log = run.stdout + run.stderr
    if not (out / "out" / "topics" / "main.dita").is_file():
        pytest.fail(f"DITA-OT did not build the fixture (exit {run.returncode}):\n{log[-2000:]}")
    return out / "out", log


def _dita_ot_paragraphs(build: Path) -> dict[str, str]:
    main = etree.parse(str(build / "topics" / "main.dita"))
    return {p.get("id"): " ".join("".join(p.itertext()).split()) for p in main.iter("p")}


@pytest.mark.parametrize("paragraph_id", list(MAIN_PARAGRAPHS))
def test_dita_ot_keeps_and_drops_the_same_elements(dita_ot_build, exported, paragraph_id):
    build, _ = dita_ot_build
    theirs = _dita_ot_paragraphs(build)
    expected = MAIN_PARAGRAPHS[paragraph_id]
    assert theirs.get(paragraph_id) == expected  # DITA-OT does what the table says
    # ... and so does VALID's export: kept text present, dropped element's own text absent.
    if expected is None:
        assert _own_text(paragraph_id) not in _main_text(exported)
    else:
        assert expected in _main_text(exported)


@pytest.mark.parametrize("paragraph_id", list(PUSHER_PARAGRAPHS))
def test_dita_ot_pushes_through_keys_as_valid_does(dita_ot_build, exported, paragraph_id):
    build, _ = dita_ot_build
    pusher = etree.parse(str(build / "topics" / "pusher.dita"))
    theirs = {p.get("id"): " ".join("".join(p.itertext()).split()) for p in pusher.iter("p")}
    assert theirs.get(paragraph_id) == PUSHER_PARAGRAPHS[paragraph_id]
    lines, _ = exported
    [ours] = [c["text"] for c in lines[1:] if c["id"] == "topics/pusher.dita#pusher/body"]
    assert PUSHER_PARAGRAPHS[paragraph_id] in ours


def test_dita_ot_builds_without_the_missing_and_broken_topics_as_valid_does(dita_ot_build, exported):
    build, _ = dita_ot_build
    theirs = sorted(p.relative_to(build).as_posix() for p in build.rglob("*.dita"))
    ours = sorted({c["source"]["path"] for c in exported[0][1:]})
    assert theirs == ["topics/after.dita", "topics/frag.dita", "topics/lib.dita", "topics/main.dita",
                      "topics/pusher.dita"]  # lib: a resource-only conref source
    assert ours == ["topics/after.dita", "topics/frag.dita", "topics/main.dita", "topics/pusher.dita"]


def test_dita_ot_reports_the_same_message_ids(dita_ot_build, exported):
    _, log = dita_ot_build
    lines, _ = exported
    ours = {w["message"][1:9] for w in lines[0]["warnings"] if w["message"].startswith("[DOT")}
    # DOTJ047I is an INFO message, which DITA-OT's default log level does not print.
    for message_id in ours - {"DOTJ047I"}:
        assert f"[{message_id}]" in log, message_id


# ----------------------------------------------------------------------------- a real doc set as it comes


@pytest.mark.slow
def test_dita_ot_docs_userguide_exports_as_it_comes_and_lists_every_warning(tmp_path):
    """DITA-OT's own documentation (dita-ot/docs) from a source checkout lacks the 17 topics its
    build generates; the export goes on past every reference to them and lists each one."""
    docs = os.environ.get("DITA_OT_DOCS")
    if not docs:
        pytest.skip("DITA_OT_DOCS is not set: no checkout of dita-ot/docs to export")
    root_map = Path(docs) / "userguide.ditamap"
    if not root_map.is_file():
        pytest.skip(f"DITA_OT_DOCS has no userguide.ditamap: {docs}")
    out = tmp_path / "userguide.jsonl"
    result = CliRunner().invoke(
        main, ["export", str(root_map), "--profile", f"html={Path(docs) / 'resources' / 'html.ditaval'}", "-o", str(out)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "warning(s) by kind:" in result.output
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    warnings = lines[0]["warnings"]
    # The reference in quotes, its file part: every missing file, each named at every reference.
    missing = [w["message"].split("'")[1].partition("#")[0].rpartition("/")[2]
               for w in warnings if w["feature"] == "missing-file"]
    assert {"error-messages.xml", "parameters-base.dita", "all-extension-points.dita"} <= set(missing)
    assert len(set(missing)) >= 17 and len(missing) > len(set(missing))
    assert all(w["line"] > 0 for w in warnings if w["feature"] in ("missing-file", "conref", "conkeyref"))
    listed = CliRunner().invoke(main, ["warnings", str(out)], catch_exceptions=False)
    assert len(listed.output.strip().splitlines()) == len(warnings)  # every one, one line each
    assert len(lines) > 500  # the guide itself is there
    # Its Markdown pages (the PDF theme and Markdown syntax references, @format="wikidocs" keys) are
    # parsed as DITA-OT parses them, not left out as "not DITA content".
    assert not [w for w in warnings if w["feature"] == "non-dita-reference"]
    assert {"resources/theme/Styles.md", "reference/markdown/MDITA-syntax.md"} <= {
        line["id"].partition("#")[0] for line in lines[1:]
    }
