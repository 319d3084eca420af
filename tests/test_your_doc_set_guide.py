"""docs/your-doc-set.md stays true: its steps, run on its example doc set (a DITAVAL-only doc set whose
profile ids are ordinary words), give what the guide shows: profiles from DITAVALs, labels from
valid.toml, the planted finding and its fix, questions resolved by label, and a passing gate."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from conftest import REPO
from valid import config
from valid.cli import main

ORBIT = REPO / "tests" / "fixtures" / "dita" / "ditaval_only"
GUIDE = REPO / "docs" / "your-doc-set.md"


def valid(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture()
def orbit_docs(tmp_path, monkeypatch):
    monkeypatch.delenv(config.CONFIG_ENV, raising=False)
    monkeypatch.delenv("VALID_STATE", raising=False)
    copy = tmp_path / "orbit-docs"
    shutil.copytree(ORBIT, copy)
    monkeypatch.chdir(copy)
    yield copy
    config.apply(config.Config())


def test_the_guide_from_init_to_a_passing_gate(orbit_docs):
    guide = GUIDE.read_text(encoding="utf-8")

    initialised = valid("init", "orbit.ditamap")
    assert initialised.output.strip() in guide
    toml = orbit_docs / "valid.toml"
    text = toml.read_text(encoding="utf-8")
    text = text.replace('# labels = ["License Server"]', 'labels = ["Orbit License Server", "Orbit LS"]')
    text = text.replace('# labels = ["Studio"]', 'labels = ["Orbit Studio"]')
    text = text.replace('# trapset = "trapset.jsonl"', 'trapset = "trapset.jsonl"')
    toml.write_text(text, encoding="utf-8")

    exported = valid("export", "-o", "chunks.jsonl")
    audited = valid("audit", "chunks.jsonl")
    for line in (exported.output + audited.output).strip().splitlines():
        assert line in guide, line

    install = orbit_docs / "install.dita"
    install.write_text(install.read_text(encoding="utf-8").replace(
        "<codeph>orbit-server-4.2.0</codeph>", '<ph keyref="installer"/>'), encoding="utf-8")
    assert valid("export", "-o", "chunks.jsonl").exit_code == 0
    assert "audit: 0 findings" in valid("audit", "chunks.jsonl", "--strict").output
    assert valid("index", "chunks.jsonl").exit_code == 0

    def ask(question: str) -> dict:
        return json.loads(valid("ask", question, "--json", "--no-log").output)

    assert ask("How many seats does the Orbit License Server hand out?")["scope"] == ["license-server"]
    assert ask("Which package do I install?")["outcome"] == "ask"
    assert ask("How many models can an Orbit LS project hold?")["outcome"] == "refuse"

    evaluated = valid("eval", "--report", "eval")
    assert evaluated.exit_code == 0, evaluated.output
    assert evaluated.stdout.splitlines()[0] in guide
