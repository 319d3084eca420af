"""Integration with a real DITA-OT 4.x: install the built zip, run `dita --format=valid-index` on
sample_maps/ and compare the export with `valid export`'s. DITA-OT is never vendored or downloaded:
the test runs only where DITA_HOME points at an installation, and says why it is skipped otherwise."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("dita_ot_jobs", Path(__file__).parent / "fixtures" / "dita-ot" / "jobs.py")
jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jobs)

DITA_HOME = os.environ.get("DITA_HOME", "")
DITA = Path(DITA_HOME) / "bin" / ("dita.bat" if os.name == "nt" else "dita") if DITA_HOME else None
MAP = jobs.REPO / "sample_maps" / "cloud-tpu.ditamap"
SCHEME = jobs.REPO / "schemes" / "tpu-generations.ditamap"


def _dita(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(DITA), *args], cwd=cwd, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def dita_ot(tmp_path_factory) -> Path:
    if not DITA_HOME:
        pytest.skip("DITA_HOME is not set: no DITA-OT 4.x to run the plugin in (DITA-OT is never downloaded by the tests)")
    if not DITA.is_file():
        pytest.skip(f"DITA_HOME has no bin/dita: {DITA_HOME}")
    version = _dita("--version", cwd=jobs.REPO)
    found = re.search(r"(\d+)\.(\d+)(\.\d+)?", version.stdout + version.stderr)
    if not found or found.group(1) != "4":
        pytest.skip(f"DITA_HOME is not DITA-OT 4.x ({(version.stdout + version.stderr).strip()[:80]})")
    out = tmp_path_factory.mktemp("dist")
    built = jobs.ant("dist", build__dir=str(out / "build"), dist__dir=str(out / "dist"))
    assert built.returncode == 0, built.stdout + built.stderr
    version = ET.parse(jobs.REPO / "dita-ot-plugin" / "plugin.xml").getroot().get("version")
    installed = _dita("install", str(out / "dist" / f"{jobs.PLUGIN_ID}-{version}.zip"), "--force", cwd=jobs.REPO)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    transtypes = _dita("transtypes", cwd=jobs.REPO)
    assert "valid-index" in transtypes.stdout
    return DITA


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_dita_valid_index_matches_valid_export_on_the_sample(dita_ot, tmp_path):
    from valid.export import export

    out = tmp_path / "out"
    run = _dita("--input", str(MAP), "--format", "valid-index", "--output", str(out),
                f"--valid.scheme={SCHEME}", cwd=jobs.REPO)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    ours = _lines(out / "cloud-tpu.jsonl")
    reference = tmp_path / "ref.jsonl"
    export(MAP, scheme=SCHEME, out=reference)
    theirs = _lines(reference)
    for key in ("schema_version", "map", "attribute", "profiles", "scheme_digest", "stylesheet_digest", "counts"):
        assert ours[0][key] == theirs[0][key], key
    a = {c["id"]: (c["text"], c["scope"]) for c in ours[1:]}
    b = {c["id"]: (c["text"], c["scope"]) for c in theirs[1:]}
    assert a == b


def test_undeclared_value_fails_the_dita_ot_build_with_file_and_line(dita_ot, tmp_path):
    sample = tmp_path / "sample_maps"
    shutil.copytree(MAP.parent, sample)
    topic = next(p for p in sorted(sample.rglob("*.dita")) if 'platform="v6e"' in p.read_text(encoding="utf-8"))
    text = topic.read_text(encoding="utf-8")
    line = text[: text.index('platform="v6e"')].count("\n") + 1
    topic.write_text(text.replace('platform="v6e"', 'platform="v6"', 1), encoding="utf-8")
    run = _dita("--input", str(sample / MAP.name), "--format", "valid-index", "--output", str(tmp_path / "out"),
                f"--valid.scheme={SCHEME}", cwd=jobs.REPO)
    assert run.returncode != 0
    rel = topic.relative_to(sample).as_posix()
    assert f"{rel}:{line}: @platform value 'v6' is not declared" in run.stdout + run.stderr
