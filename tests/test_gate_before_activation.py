"""Gate before activation in the sidecar's own pipelines: `valid demo`, and the scripted pipeline
(`valid index --no-activate --release-file`, `valid report --release`, `valid releases activate`).
A release that fails its gate is registered but never becomes active; the previous one stays.
(The DITA-OT plugin's post-steps: tests/test_plugin_sidecar.py and tests/test_plugin_dita_ot.py.)"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from valid.cli import main
from valid.index import Store, list_releases, read_active

REPO = Path(__file__).resolve().parents[1]
TRAPSET = REPO / "sidecar" / "valid" / "data" / "trapset-cloud-tpu.jsonl"


def _failing_trapset(path: Path) -> Path:
    """Three answerable questions whose expected and forbidden values are swapped: right answers
    now count as wrong, so the gate fails whatever the release holds."""
    lines = []
    for line in TRAPSET.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        expect = q["expect"]
        if expect.get("outcome") == "answer" and expect.get("forbidden") and len(expect.get("scope", [])) == 1:
            (generation,) = expect["scope"]
            expect["values"], expect["forbidden"] = {generation: [expect["forbidden"]]}, [
                v for group in expect["values"][generation] for v in group]
            lines.append(json.dumps(q))
        if len(lines) == 3:
            break
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _changed_sample(tmp_path: Path) -> Path:
    """The sample with one sentence changed, so its export gives a new release."""
    sample = tmp_path / "sample_maps"
    shutil.copytree(REPO / "sample_maps", sample)
    topic = sample / "about-cloud-tpu.dita"
    text = topic.read_text(encoding="utf-8")
    topic.write_text(text.replace("</shortdesc>", " Changed for this test.</shortdesc>", 1), encoding="utf-8")
    return sample / "cloud-tpu.ditamap"


def _copy_state(sample_build, tmp_path: Path) -> tuple[Path, str]:
    state = tmp_path / "state"
    shutil.copytree(sample_build.state, state)
    active = read_active(Store(state)).active
    assert active is not None
    return state, active


def test_demo_with_a_failing_gate_leaves_the_previous_release_active(tmp_path, sample_build):
    state, previous = _copy_state(sample_build, tmp_path)
    result = CliRunner().invoke(main, [
        "demo", "--state", str(state), "--dir", str(tmp_path / "out"), "--map", str(_changed_sample(tmp_path)),
        "--scheme", str(REPO / "schemes" / "tpu-generations.ditamap"),
        "--trapset", str(_failing_trapset(tmp_path / "traps.jsonl")),
    ])
    assert result.exit_code == 1, result.output
    assert "failed the gate and is NOT active" in result.output
    assert read_active(Store(state)).active == previous
    assert len(list_releases(Store(state))) == 2  # built and registered, never served


def test_scripted_pipeline_activates_only_after_the_report_gate(tmp_path, sample_build):
    state, previous = _copy_state(sample_build, tmp_path)
    runner = CliRunner()
    chunks, release_file = tmp_path / "chunks.jsonl", tmp_path / "release.txt"
    exported = runner.invoke(main, ["export", str(_changed_sample(tmp_path)), "--scheme",
                                    str(REPO / "schemes" / "tpu-generations.ditamap"), "-o", str(chunks)])
    assert exported.exit_code == 0, exported.output
    indexed = runner.invoke(main, ["index", str(chunks), "--state", str(state), "--no-activate",
                                   "--release-file", str(release_file)])
    assert indexed.exit_code == 0, indexed.output
    release = release_file.read_text(encoding="utf-8").strip()
    assert release != previous and read_active(Store(state)).active == previous
    # The gate runs on the new release, not on the active one.
    failed = runner.invoke(main, ["report", str(chunks), "--state", str(state), "--release", release,
                                  "--trapset", str(_failing_trapset(tmp_path / "traps.jsonl")),
                                  "-o", str(tmp_path / "report-failed")])
    assert failed.exit_code == 1, failed.output
    assert json.loads((tmp_path / "report-failed" / "report.json").read_text())["release"] == release
    assert read_active(Store(state)).active == previous
    passed = runner.invoke(main, ["report", str(chunks), "--state", str(state), "--release", release,
                                  "-o", str(tmp_path / "report")])
    assert passed.exit_code == 0, passed.output
    activated = runner.invoke(main, ["releases", "activate", release, "--state", str(state)])
    assert activated.exit_code == 0, activated.output
    assert read_active(Store(state)).active == release
