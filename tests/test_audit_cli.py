"""`valid audit`: warn by default, --strict fails on any open finding, --json, --owned-values."""

import json

import pytest
from click.testing import CliRunner

from fixtures.audit.exports import chunk, export, jsonl
from valid.audit import OwnedValueTable
from valid.cli import main

ALL = ["v5p", "v6e", "tpu7x"]
TRAP = chunk("create-tpu-vm.dita#create-tpu-vm/steps", "Run --version=v2-alpha-tpuv6e.", ALL, line=41)
OTHER = chunk("about.dita#about/x", "Use v5p-8 for the examples.", ALL, line=12)
CLEAN = chunk("about.dita#about/y", "Use the accelerator type for your generation.", ALL, line=20)


@pytest.fixture
def write(tmp_path):
    def _write(*chunks):
        path = tmp_path / "chunks.jsonl"
        path.write_text(jsonl(export(chunks)))
        return path

    return _write


def run(*args):
    return CliRunner().invoke(main, ["audit", *map(str, args)])


def test_audit_warns_by_default_and_exits_0(write):
    result = run(write(TRAP, OTHER))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("warning: about.dita:12: about.dita#about/x shows v5p-8 (owned by v5p)")
    assert lines[1].startswith("warning: create-tpu-vm.dita:41: ")
    assert "v2-alpha-tpuv6e (owned by v6e)" in lines[1] and "[rule keydef, " in lines[1]
    assert lines[2].startswith("audit: 2 findings (")


def test_strict_mode_exits_1_with_one_line_per_finding(write):
    result = run(write(TRAP, OTHER), "--strict")
    assert result.exit_code == 1
    assert [line.split(":")[0] for line in result.stdout.splitlines()[:2]] == ["error", "error"]
    assert result.stderr.strip() == "valid: audit failed: 2 open findings (--strict)"


def test_strict_mode_exits_0_on_a_clean_export(write):
    result = run(write(CLEAN), "--strict")
    assert result.exit_code == 0
    assert result.stdout.startswith("audit: 0 findings")


def test_strict_json_mode_prints_the_report_and_one_line_per_finding_on_stderr(write):
    result = run(write(TRAP), "--strict", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["failed"] is True
    (finding,) = report["findings"]
    assert {k: finding[k] for k in ("chunk_id", "path", "line", "value", "owners", "rule")} == {
        "chunk_id": "create-tpu-vm.dita#create-tpu-vm/steps",
        "path": "create-tpu-vm.dita",
        "line": 41,
        "value": "v2-alpha-tpuv6e",
        "owners": ["v6e"],
        "rule": "keydef",
    }
    assert result.stderr.splitlines()[0].startswith("error: create-tpu-vm.dita:41: ")


def test_issues_option_records_and_reports_the_sync(write, tmp_path):
    path = write(TRAP)
    first = run(path, "--issues", tmp_path / "issues")
    second = run(path, "--issues", tmp_path / "issues")
    assert "issues: 1 opened, 0 closed, 0 unchanged" in first.stdout
    assert "issues: 0 opened, 0 closed, 1 unchanged" in second.stdout


def test_owned_values_option_writes_the_stable_table(write, tmp_path):
    out = tmp_path / "owned.json"
    assert run(write(TRAP), "--owned-values", out).exit_code == 0
    table = OwnedValueTable.from_json(out.read_text())
    assert table.owners("v2-alpha-tpuv6e") == ["v6e"]


def test_missing_export_is_a_one_line_error(tmp_path):
    result = run(tmp_path / "nope.jsonl")
    assert result.exit_code == 2
    assert result.stderr.strip().endswith("nope.jsonl: no such export file (write one with `valid export`)")


def test_broken_export_line_names_file_and_line(write):
    path = write(TRAP)
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"scope_origin":"shared"', '"scope_origin":"everywhere"')
    path.write_text("\n".join(lines) + "\n")
    result = run(path)
    assert result.exit_code == 2
    assert "chunks.jsonl:2: invalid chunk: scope_origin" in result.stderr
    assert "Traceback" not in result.output
