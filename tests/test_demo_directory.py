"""`valid demo` writes under one directory it prints (default ./valid-demo/): the export, the index
state, the report and a valid.toml, so that `valid ask` run from there answers from the demo's index."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conftest import CLOUD_TPU
from valid import config
from valid.cli import main


def _small_trapset(path: Path) -> Path:
    """Five scoped questions of the bundled trap set: the whole pipeline, at a fraction of the time."""
    lines = [line for line in CLOUD_TPU.trapset.read_text(encoding="utf-8").splitlines()
             if json.loads(line)["stratum"] == "scoped"][:5]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_demo_writes_only_under_its_directory_and_leaves_a_config_that_finds_its_index(tmp_path, monkeypatch):
    monkeypatch.delenv(config.CONFIG_ENV, raising=False)
    monkeypatch.delenv("VALID_STATE", raising=False)
    trapset = _small_trapset(tmp_path.parent / f"{tmp_path.name}-traps.jsonl")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["demo", "--trapset", str(trapset)], catch_exceptions=False)
    assert result.exit_code == 0, result.output

    demo = tmp_path / "valid-demo"
    assert [p.name for p in tmp_path.iterdir()] == ["valid-demo"]
    assert f"everything is under {demo}" in result.output
    assert {"chunks.jsonl", "state", "report", "valid.toml"} <= {p.name for p in demo.iterdir()}
    # The sample keeps its look through the setting any doc set has: its builds are generations.
    assert config.load(demo / "valid.toml").serve.noun == "generation"

    monkeypatch.chdir(demo)
    asked = CliRunner().invoke(main, ["ask", "How many chips does a TPU v5p VM have?", "--json", "--no-log"],
                               catch_exceptions=False)
    assert asked.exit_code == 0, asked.output
    assert json.loads(asked.output)["scope"] == ["v5p"]
