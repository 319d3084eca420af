"""Optional sidecar steps after the export (valid index / audit / report) and their gate, run by
the plugin's real Ant target on plain Ant: with a stand-in sidecar that records its calls, and with
the real `valid` on the sample."""

from __future__ import annotations

import importlib.util
import stat
from pathlib import Path

_spec = importlib.util.spec_from_file_location("dita_ot_jobs", Path(__file__).parent / "fixtures" / "dita-ot" / "jobs.py")
jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jobs)


def _fake_sidecar(tmp_path: Path, exit_code: int) -> Path:
    script = tmp_path / "fake-valid"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/calls.txt"\nexit {exit_code}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def _sidecar(tmp_path: Path, **props: str):
    defaults = {"valid__index": "no", "valid__audit": "no", "valid__report": "no", "valid__fail-on-gate": "yes"}
    defaults.update(props)
    args = [f"-D{k.replace('__', '.')}={v}" for k, v in defaults.items()]
    return jobs.ant(
        *args, "valid-index.sidecar",
        buildfile=jobs.HARNESS,
        harness__plugin__dir=str(jobs.REPO / "dita-ot-plugin"),
        valid__output__file=str(tmp_path / "gen.jsonl"),
    )


def test_audit_runs_strict_and_a_failed_gate_fails_the_build(tmp_path):
    result = _sidecar(tmp_path, valid__audit="yes", valid__command=str(_fake_sidecar(tmp_path, 1)))
    assert result.returncode != 0
    assert "VALID gate failed: 'valid audit' exited with 1" in result.stdout + result.stderr
    assert (tmp_path / "calls.txt").read_text() == f"audit {tmp_path / 'gen.jsonl'} --strict\n"


def test_gate_off_warns_and_the_build_goes_on(tmp_path):
    result = _sidecar(tmp_path, valid__audit="yes", **{"valid__fail-on-gate": "no"},
                      valid__command=str(_fake_sidecar(tmp_path, 1)))
    assert result.returncode == 0, result.stdout
    assert "the build goes on" in result.stdout
    assert (tmp_path / "calls.txt").read_text() == f"audit {tmp_path / 'gen.jsonl'}\n"


def test_steps_run_in_order_with_the_state_directory(tmp_path):
    result = _sidecar(tmp_path, valid__index="yes", valid__audit="yes", valid__report="yes",
                      valid__state=str(tmp_path / "state"), valid__command=str(_fake_sidecar(tmp_path, 0)))
    assert result.returncode == 0, result.stdout
    export = tmp_path / "gen.jsonl"
    assert (tmp_path / "calls.txt").read_text().splitlines() == [
        f"index {export} --state {tmp_path / 'state'}",
        f"audit {export} --strict",
        f"report {export} --state {tmp_path / 'state'}",
    ]


def test_no_step_is_run_by_default(tmp_path):
    result = _sidecar(tmp_path, valid__command=str(_fake_sidecar(tmp_path, 1)))
    assert result.returncode == 0
    assert not (tmp_path / "calls.txt").exists()


def test_a_missing_sidecar_is_a_clear_error(tmp_path):
    result = _sidecar(tmp_path, valid__index="yes", valid__command=str(tmp_path / "no-such-valid"))
    assert result.returncode != 0
    assert "VALID: could not run the sidecar" in result.stdout + result.stderr


def _real_sidecar(tmp_path: Path) -> Path:
    """The real `valid`, run by the interpreter of these tests (no PATH lookup)."""
    import sys

    script = tmp_path / "valid"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m valid "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_the_real_sidecar_indexes_audits_and_reports_the_sample_and_the_trap_fails_the_gate(tmp_path, sample_build):
    # The export the plugin would have written: the sample's, in place of gen.jsonl.
    (tmp_path / "gen.jsonl").write_bytes(sample_build.export.read_bytes())
    state = tmp_path / "state"
    result = _sidecar(tmp_path, valid__index="yes", valid__report="yes", valid__state=str(state),
                      valid__command=str(_real_sidecar(tmp_path)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (state / "active.json").is_file()
    assert (tmp_path / "valid-report" / "junit.xml").is_file()
    # With the audit step and the gate on, the sample's planted shared step fails the build.
    gated = _sidecar(tmp_path, valid__audit="yes", valid__command=str(_real_sidecar(tmp_path)))
    assert gated.returncode != 0
    output = gated.stdout + gated.stderr
    assert "VALID gate failed: 'valid audit' exited with 1" in output
    assert "create-tpu-vm.dita" in output and "v2-alpha-tpuv6e" in output
