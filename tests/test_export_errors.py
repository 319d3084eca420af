"""`valid export` fails clearly: one line with file and line, non-zero exit, nothing written."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from valid.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "dita"
SCHEME = FIXTURES / "basic" / "scheme.ditamap"


def write(base: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base


@pytest.fixture
def isolated_tmp(tmp_path, monkeypatch):
    """Route the exporter's temporary job directories into a directory the test can inspect."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return scratch


def run_export(*args: str):
    return CliRunner().invoke(main, ["export", *args], catch_exceptions=False)


def assert_clean_failure(result, out: Path, scratch: Path, message: str):
    assert result.exit_code != 0
    assert result.output.startswith("valid: error: "), result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()
    assert list(out.parent.glob(f".{out.name}.*")) == []  # no half-written temp file
    assert list(scratch.iterdir()) == []  # no job directory left behind


def doc_set(tmp_path: Path, topic: str) -> Path:
    return write(
        tmp_path / "docs",
        {"m.ditamap": '<map><title>M</title>\n<topicref href="t.dita"/>\n</map>', "t.dita": topic},
    ) / "m.ditamap"


def assert_strict_failure(result, out: Path, scratch: Path, listed: list[str]):
    """--strict: every warning listed on stderr first, then the one error line; nothing written."""
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("valid: error: ") and "with --strict" in lines[-1], result.output
    for place in listed:
        assert place in result.output
    assert "Traceback" not in result.output
    assert not out.exists()
    assert list(out.parent.glob(f".{out.name}.*")) == []
    assert list(scratch.iterdir()) == []


def _with_good_topic(tmp_path: Path, topicrefs: str, files: dict[str, str]) -> Path:
    good = '<topic id="g"><title>G</title><body><p>kept</p></body></topic>'
    return write(tmp_path / "docs", {"m.ditamap": f'<map><title>M</title>\n<topicref href="g.dita"/>\n{topicrefs}</map>',
                                     "g.dita": good, **files}) / "m.ditamap"


def test_a_malformed_topic_fails_the_run_under_strict_after_listing_it(tmp_path, isolated_tmp):
    root_map = _with_good_topic(tmp_path, '<topicref href="t.dita"/>', {"t.dita": '<topic id="t"><title>T</title>\n<body><p>x</body>\n</topic>'})
    out = tmp_path / "out.jsonl"
    result = run_export(str(root_map), "--scheme", str(SCHEME), "-o", str(out), "--strict")
    assert_strict_failure(result, out, isolated_tmp, ["t.dita:2", "DOTJ013E"])


def test_a_missing_href_target_fails_the_run_under_strict_after_listing_it(tmp_path, isolated_tmp):
    root_map = _with_good_topic(tmp_path, '<topicref href="nope.dita"/>', {})
    out = tmp_path / "out.jsonl"
    result = run_export(str(root_map), "--scheme", str(SCHEME), "-o", str(out), "--strict", "--warnings")
    assert_strict_failure(result, out, isolated_tmp,
                          ["m.ditamap:3: missing-file: [DOTX008E] @href='nope.dita' names a file that does not exist"])


def test_a_missing_href_target_is_only_a_warning_without_strict(tmp_path, isolated_tmp):
    root_map = _with_good_topic(tmp_path, '<topicref href="nope.dita"/>', {})
    out = tmp_path / "out.jsonl"
    result = run_export(str(root_map), "--scheme", str(SCHEME), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "1 warning(s) by kind:" in result.output and "m.ditamap:3" in result.output
    assert out.exists()


def test_unknown_subject_scheme_value(tmp_path, isolated_tmp):
    root_map = doc_set(tmp_path, '<topic id="t"><title>T</title>\n<body>\n<p platform="v5e">x</p>\n<p platform="v9">y</p></body></topic>')
    out = tmp_path / "out.jsonl"
    result = run_export(str(root_map), "--scheme", str(SCHEME), "-o", str(out))
    assert_clean_failure(result, out, isolated_tmp, "t.dita:3: @platform value 'v5e' is not declared in subject scheme scheme.ditamap")
    assert "1 more undeclared value(s): t.dita:4 'v9'" in result.output


def test_unreadable_ditaval(tmp_path, isolated_tmp):
    root_map = doc_set(tmp_path, '<topic id="t"><title>T</title></topic>')
    out = tmp_path / "out.jsonl"
    missing = tmp_path / "v5p.ditaval"
    result = run_export(str(root_map), "--profile", f"v5p={missing}", "-o", str(out))
    assert_clean_failure(result, out, isolated_tmp, "v5p.ditaval: cannot read DITAVAL")


def test_invalid_ditaval_action(tmp_path, isolated_tmp):
    root_map = doc_set(tmp_path, '<topic id="t"><title>T</title></topic>')
    out = tmp_path / "out.jsonl"
    bad = write(tmp_path, {"bad.ditaval": '<val>\n<prop att="platform" action="hide"/>\n</val>'}) / "bad.ditaval"
    result = run_export(str(root_map), "--profile", f"v5p={bad}", "-o", str(out))
    assert_clean_failure(result, out, isolated_tmp, "bad.ditaval:2: <prop> has action='hide'")


def test_xxe_attempt(tmp_path, isolated_tmp):
    secret = write(tmp_path, {"secret.txt": "TOP-SECRET"}) / "secret.txt"
    root_map = doc_set(
        tmp_path,
        f'<?xml version="1.0"?>\n<!DOCTYPE topic [\n<!ENTITY x SYSTEM "{secret.as_uri()}">\n]>\n'
        '<topic id="t"><title>&x;</title></topic>',
    )
    out = tmp_path / "out.jsonl"
    result = run_export(str(root_map), "--scheme", str(SCHEME), "-o", str(out))
    assert_clean_failure(result, out, isolated_tmp, "t.dita:3: external entity 'x' is refused")
    assert "TOP-SECRET" not in result.output


def test_reference_outside_the_root(tmp_path, isolated_tmp):
    write(tmp_path, {"outside.dita": '<topic id="o"><title>SECRET</title></topic>'})
    root_map = write(tmp_path / "docs", {"m.ditamap": '<map>\n\n<topicref href="../outside.dita"/></map>'}) / "m.ditamap"
    out = tmp_path / "out.jsonl"
    result = run_export(str(root_map), "--scheme", str(SCHEME), "-o", str(out))
    assert_clean_failure(result, out, isolated_tmp, "m.ditamap:3: @href='../outside.dita' points outside the doc-set root")


def test_no_profiles_is_a_config_error(tmp_path, isolated_tmp):
    root_map = doc_set(tmp_path, '<topic id="t"><title>T</title></topic>')
    out = tmp_path / "out.jsonl"
    result = run_export(str(root_map), "-o", str(out))
    assert_clean_failure(result, out, isolated_tmp, "give --scheme FILE")


def test_scheme_with_several_attributes_needs_attribute(tmp_path, isolated_tmp):
    root_map = doc_set(tmp_path, '<topic id="t"><title>T</title></topic>')
    out = tmp_path / "out.jsonl"
    scheme = FIXTURES / "scheme" / "generations.ditamap"
    result = run_export(str(root_map), "--scheme", str(scheme), "-o", str(out))
    assert_clean_failure(result, out, isolated_tmp, "binds 3 attributes (audience, platform, otherprops); choose one with --attribute")
    result = run_export(str(root_map), "--scheme", str(scheme), "--attribute", "product", "-o", str(out))
    assert_clean_failure(result, out, isolated_tmp, "does not bind @product")


def test_malformed_profile_option(tmp_path, isolated_tmp):
    root_map = doc_set(tmp_path, '<topic id="t"><title>T</title></topic>')
    out = tmp_path / "out.jsonl"
    result = run_export(str(root_map), "--profile", "v5p", "-o", str(out))
    assert_clean_failure(result, out, isolated_tmp, "expected NAME=FILE.ditaval")


def test_existing_output_is_left_untouched_on_failure(tmp_path, isolated_tmp):
    root_map = write(tmp_path / "docs", {"m.ditamap": "<map><topicref href='nope.dita'/></map>"}) / "m.ditamap"
    out = tmp_path / "out.jsonl"
    out.write_text("previous export\n")
    result = run_export(str(root_map), "--scheme", str(SCHEME), "-o", str(out))
    assert result.exit_code != 0
    assert out.read_text() == "previous export\n"


def test_values_are_checked_against_a_scheme_the_map_references_even_without_scheme_option(tmp_path, isolated_tmp):
    docs = write(
        tmp_path / "docs",
        {
            "m.ditamap": '<map><mapref href="s.ditamap" type="subjectScheme"/>\n<topicref href="t.dita" platform="v8"/></map>',
            "s.ditamap": '<subjectScheme><subjectdef keys="all"><subjectdef keys="v5p"/></subjectdef>'
            '<enumerationdef><attributedef name="platform"/><subjectdef keyref="all"/></enumerationdef></subjectScheme>',
            "t.dita": '<topic id="t"><title>T</title></topic>',
        },
    )
    ditaval = write(tmp_path, {"v5p.ditaval": '<val><prop att="platform" val="v8" action="exclude"/></val>'}) / "v5p.ditaval"
    out = tmp_path / "out.jsonl"
    result = run_export(str(docs / "m.ditamap"), "--profile", f"v5p={ditaval}", "-o", str(out))
    assert_clean_failure(result, out, isolated_tmp, "m.ditamap:2: @platform value 'v8' is not declared in subject scheme s.ditamap")
