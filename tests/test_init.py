"""`valid init MAP` writes a commented valid.toml from what the doc set uses: a fitting subject scheme
(profiles and labels from it), else its DITAVAL files (labels suggested for a writer to confirm)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import BUNDLED_SAMPLES, REPO
from valid import config
from valid.cli import main
from valid.dita.scheme import load_scheme

ORBIT = REPO / "tests" / "fixtures" / "dita" / "ditaval_only"


def init(*args: str):
    return CliRunner().invoke(main, ["init", *args], catch_exceptions=False)


@pytest.fixture(autouse=True)
def no_config_from_the_environment(monkeypatch):
    monkeypatch.delenv(config.CONFIG_ENV, raising=False)


@pytest.mark.parametrize("sample", BUNDLED_SAMPLES, ids=lambda s: s.name)
def test_init_on_a_bundled_sample_finds_its_scheme_attribute_and_profiles(sample, tmp_path):
    out = tmp_path / "valid.toml"
    result = init(str(sample.map), "-o", str(out), "--search", str(REPO))
    assert result.exit_code == 0, result.output

    written = config.load(out)
    scheme = load_scheme(sample.scheme)
    (attribute,) = scheme.attributes()
    assert Path(written.resolve(written.docset.map)) == sample.map.resolve()
    assert Path(written.resolve(written.docset.scheme)) == sample.scheme.resolve()
    assert written.docset.attribute == attribute
    assert list(written.profiles) == scheme.profile_values(attribute)
    # The scheme's labels are shown, commented: the scheme stays their one source until a writer overrides.
    text = out.read_text(encoding="utf-8")
    for value in scheme.profile_values(attribute):
        assert "# labels = " + json.dumps(scheme.labels(value), ensure_ascii=False) in text
    assert all(not p.labels and p.ditaval is None for p in written.profiles.values())


def test_init_on_a_bundled_sample_gives_an_export_identical_to_the_flags(tmp_path, monkeypatch):
    sample = BUNDLED_SAMPLES[0]
    assert init(str(sample.map), "-o", str(tmp_path / "valid.toml"), "--search", str(REPO)).exit_code == 0
    monkeypatch.chdir(tmp_path)
    by_file = CliRunner().invoke(main, ["export", "-o", "by-file.jsonl"], catch_exceptions=False)
    by_flags = CliRunner().invoke(
        main, ["export", str(sample.map), "--scheme", str(sample.scheme), "-o", "by-flags.jsonl"], catch_exceptions=False
    )
    assert by_file.exit_code == by_flags.exit_code == 0, by_file.output + by_flags.output
    assert (tmp_path / "by-file.jsonl").read_bytes() == (tmp_path / "by-flags.jsonl").read_bytes()


def test_init_on_a_ditaval_only_doc_set_lists_one_profile_per_fitting_ditaval(tmp_path):
    out = tmp_path / "valid.toml"
    result = init(str(ORBIT / "orbit.ditamap"), "-o", str(out), "--search", str(ORBIT))
    assert result.exit_code == 0, result.output

    written = config.load(out)
    assert written.docset.scheme is None
    assert {name: Path(written.resolve(p.ditaval)) for name, p in written.profiles.items()} == {
        "license-server": (ORBIT / "ditaval" / "license-server.ditaval").resolve(),
        "studio": (ORBIT / "ditaval" / "studio.ditaval").resolve(),
    }
    text = out.read_text(encoding="utf-8")
    assert "Profiling values the doc set uses: @product: studio, license-server" in text
    # Suggested names are left for a writer to confirm: a made-up ordinary word must not claim questions.
    assert '# labels = ["License Server"]' in text and '# labels = ["Studio"]' in text
    assert all(not p.labels for p in written.profiles.values())


def test_labels_a_writer_adds_to_the_written_file_reach_the_export(tmp_path, monkeypatch):
    out = tmp_path / "valid.toml"
    assert init(str(ORBIT / "orbit.ditamap"), "-o", str(out), "--search", str(ORBIT)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    text = text.replace('# labels = ["License Server"]', 'labels = ["Orbit License Server", "Orbit LS"]')
    text = text.replace('# labels = ["Studio"]', 'labels = ["Orbit Studio"]')
    out.write_text(text, encoding="utf-8")
    tomllib.loads(text)

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["export", "-o", "chunks.jsonl"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    head = json.loads((tmp_path / "chunks.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert {p["name"]: p["labels"] for p in head["profiles"]} == {
        "license-server": ["Orbit License Server", "Orbit LS"],
        "studio": ["Orbit Studio"],
    }


def test_init_does_not_replace_an_existing_file_unless_forced(tmp_path):
    out = tmp_path / "valid.toml"
    out.write_text("# mine\n", encoding="utf-8")
    refused = init(str(ORBIT / "orbit.ditamap"), "-o", str(out), "--search", str(ORBIT))
    assert refused.exit_code == 2 and "exists; pass --force" in refused.output
    assert out.read_text(encoding="utf-8") == "# mine\n"
    assert init(str(ORBIT / "orbit.ditamap"), "-o", str(out), "--search", str(ORBIT), "--force").exit_code == 0
    assert "[profiles.studio]" in out.read_text(encoding="utf-8")
