"""The audit on the bundled sample (sample_maps/, schemes/): the planted trap and a clean variant.

The sample hard-codes `--version=v2-alpha-tpuv6e` in a shared step of create-tpu-vm.dita (the
trap described in docs/sample-content.md). The audit must report exactly that, with
its file and line; the same doc set with the value replaced by a keyref must give no finding, and
the gap issue opened for the trap must close.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from click.testing import CliRunner

from valid.audit import IssueStore, find, load_export
from valid.cli import main
from valid.export import export

REPO = Path(__file__).resolve().parents[1]
TRAP_LINE = "  --version=v2-alpha-tpuv6e \\\n  --metadata-from-file=startup-script=startup.sh"
FIXED_LINE = '  --version=<ph keyref="tpu-software-version"/> \\\n  --metadata-from-file=startup-script=startup.sh'


def _export(root: Path, out: Path):
    export(root / "sample_maps" / "cloud-tpu.ditamap", scheme=root / "schemes" / "tpu-generations.ditamap", out=out)
    return load_export(out)


@pytest.fixture(scope="module")
def sample_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("sample") / "chunks.jsonl"
    _export(REPO, path)
    return path


@pytest.fixture(scope="module")
def sample(sample_path):
    return load_export(sample_path)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """The sample with the trap fixed the way a writer would: the hard-coded version becomes a
    keyref to the generation key."""
    root = tmp_path_factory.mktemp("clean")
    shutil.copytree(REPO / "sample_maps", root / "sample_maps")
    shutil.copytree(REPO / "schemes", root / "schemes")
    task = root / "sample_maps" / "create-tpu-vm.dita"
    text = task.read_text(encoding="utf-8")
    assert text.count(TRAP_LINE) == 1, "the planted trap moved: update TRAP_LINE"
    task.write_text(text.replace(TRAP_LINE, FIXED_LINE), encoding="utf-8")
    return _export(root, root / "chunks.jsonl")


def _line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def test_sample_trap_step_is_reported_with_file_and_line(sample):
    findings = find(sample)
    assert [f.summary() for f in findings if f.value != "v2-alpha-tpuv6e"] == []
    (finding,) = findings
    assert finding.path == "create-tpu-vm.dita"
    assert finding.line == _line_of(REPO / "sample_maps" / "create-tpu-vm.dita", '<steps id="startup-script-steps"')
    assert finding.owners == ["v6e"]
    assert finding.shown_to == ["v5p", "v6e", "tpu7x"]
    assert finding.rule == "keydef"


def test_clean_sample_has_zero_findings(clean):
    assert [f.summary() for f in find(clean)] == []
    # Not vacuous: the fixed steps now show each generation its own version.
    fixed = {c.id.rpartition("~")[2]: c.text for c in clean.chunks if "/startup-script-steps~" in c.id}
    assert "--version=v2-alpha-tpuv5 " in fixed["v5p"]
    assert "--version=v2-alpha-tpuv6e " in fixed["v6e"]


def test_fixing_the_sample_trap_closes_its_gap_issue(sample, clean, tmp_path):
    store = IssueStore(tmp_path)
    opened, _, _ = store.sync(find(sample))
    assert [i.source.split(":")[0] for i in opened] == ["create-tpu-vm.dita"]
    opened, closed, unchanged = store.sync(find(clean))
    assert (opened, unchanged) == ([], [])
    assert [i.state for i in closed] == ["closed"]


def test_sample_fingerprints_are_identical_across_exports(sample, tmp_path):
    again = _export(REPO, tmp_path / "again.jsonl")
    assert [f.fingerprint for f in find(again)] == [f.fingerprint for f in find(sample)]


def test_strict_audit_of_the_sample_exits_1_with_the_trap_on_one_line(sample_path):
    result = CliRunner().invoke(main, ["audit", str(sample_path), "--strict"])
    assert result.exit_code == 1
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("error: ")]
    assert line.startswith("error: create-tpu-vm.dita:")
    assert "v2-alpha-tpuv6e (owned by v6e)" in line
