"""Profiles over two profiling attributes at once (a product on a platform), as DITAVALs define them:
each build keeps what DITA-OT would keep with that DITAVAL, the scheme validates both attributes,
valid.toml gives the readers' names, and `valid init` proposes the combined profiles with names
composed from the scheme's names of their values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import REPO
from valid import config
from valid.answer.scope import resolve_scope
from valid.cli import main
from valid.contracts import ProfileInfo

RELAY = REPO / "tests" / "fixtures" / "dita" / "two_attributes"

RELAY_TOML = f"""
[docset]
map = "{(RELAY / 'relay.ditamap').as_posix()}"
scheme = "{(RELAY / 'scheme.ditamap').as_posix()}"

[profiles.server-linux]
ditaval = "{(RELAY / 'ditaval' / 'server-linux.ditaval').as_posix()}"
labels = ["Relay Server for Linux"]

[profiles.server-windows]
ditaval = "{(RELAY / 'ditaval' / 'server-windows.ditaval').as_posix()}"
labels = ["Relay Server for Windows"]

[profiles.agent-linux]
ditaval = "{(RELAY / 'ditaval' / 'agent-linux.ditaval').as_posix()}"
labels = ["Relay Agent for Linux"]
"""


@pytest.fixture()
def relay_export(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv(config.CONFIG_ENV, raising=False)
    (tmp_path / "valid.toml").write_text(RELAY_TOML, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["export", "-o", "chunks.jsonl"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return tmp_path / "chunks.jsonl"


def _lines(path: Path) -> tuple[dict, dict[str, dict]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return lines[0], {line["source"]["path"]: line["scope"] for line in lines[1:]}


def test_each_build_keeps_what_both_attributes_allow(relay_export):
    _, scope = _lines(relay_export)
    everyone = {"server-linux": True, "server-windows": True, "agent-linux": True}
    assert scope["overview.dita"] == everyone
    assert scope["server-linux.dita"] == {**everyone, "server-windows": False, "agent-linux": False}
    assert scope["firewall.dita"] == {**everyone, "server-linux": False, "agent-linux": False}
    assert scope["agent.dita"] == {**everyone, "server-linux": False, "server-windows": False}


def test_labels_from_the_configuration_name_the_combined_profiles(relay_export):
    header, _ = _lines(relay_export)
    profiles = [ProfileInfo.model_validate(p) for p in header["profiles"]]
    assert [p.labels for p in profiles] == [
        ["Relay Server for Linux"], ["Relay Server for Windows"], ["Relay Agent for Linux"]
    ]
    assert resolve_scope("Which port does Relay Server for Windows open?", profiles).profiles == ["server-windows"]
    assert resolve_scope("How do I install the Relay Agent for Linux?", profiles).profiles == ["agent-linux"]


def test_a_value_neither_attribute_declares_is_refused_with_its_line(tmp_path, monkeypatch):
    monkeypatch.delenv(config.CONFIG_ENV, raising=False)
    bad = tmp_path / "relay"
    import shutil

    shutil.copytree(RELAY, bad)
    topic = bad / "firewall.dita"
    topic.write_text(topic.read_text(encoding="utf-8").replace("<p>", '<p platform="macos">'), encoding="utf-8")
    (tmp_path / "valid.toml").write_text(RELAY_TOML.replace(RELAY.as_posix(), bad.as_posix()), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["export", "-o", "chunks.jsonl"], catch_exceptions=False)
    assert result.exit_code == 2
    assert "firewall.dita:6" in result.output and "macos" in result.output
    assert not (tmp_path / "chunks.jsonl").exists()


def test_init_proposes_the_combined_profiles_with_names_from_the_scheme(tmp_path):
    out = tmp_path / "valid.toml"
    result = CliRunner().invoke(main, ["init", str(RELAY / "relay.ditamap"), "-o", str(out), "--search", str(RELAY)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    written = config.load(out)
    assert Path(written.resolve(written.docset.scheme)) == (RELAY / "scheme.ditamap").resolve()
    assert written.docset.attribute is None
    assert sorted(written.profiles) == ["agent-linux", "server-linux", "server-windows"]
    text = out.read_text(encoding="utf-8")
    assert "[profiles.server-windows]  # keeps @product=relay-server, @platform=windows" in text
    assert '# labels = ["Relay Server Windows"]' in text
