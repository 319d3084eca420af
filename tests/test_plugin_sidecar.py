"""Optional sidecar steps after the export (valid index / audit / report), their gate, and
activation only after the gate, run by the plugin's real Ant target on plain Ant: with a stand-in
sidecar that records its calls, and with the real `valid` on the sample."""

from __future__ import annotations

import importlib.util
import stat
from pathlib import Path

_spec = importlib.util.spec_from_file_location("dita_ot_jobs", Path(__file__).parent / "fixtures" / "dita-ot" / "jobs.py")
jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jobs)


def _fake_sidecar(tmp_path: Path, exit_code: int, *, failing: str = "") -> Path:
    """Records its calls (the --release-file path as RELEASE_FILE); writes the release id 'r123456'
    where `valid index --release-file` would. Exits `exit_code`, or 1 for the command `failing`."""
    script = tmp_path / "fake-valid"
    script.write_text(
        "#!/bin/sh\n"
        f'calls="{tmp_path}/calls.txt"\n'
        'line=""; prev=""\n'
        'for a in "$@"; do\n'
        '  if [ "$prev" = "--release-file" ]; then echo r123456 > "$a"; a=RELEASE_FILE; fi\n'
        '  line="$line${line:+ }$a"; prev="$a"\n'
        "done\n"
        'echo "$line" >> "$calls"\n'
        f'[ -n "{failing}" ] && [ "$1" = "{failing}" ] && exit 1\n'
        f"exit {exit_code}\n"
    )
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
    # --strict always: the exit code is the verdict; valid.fail-on-gate only decides the build's
    assert (tmp_path / "calls.txt").read_text() == f"audit {tmp_path / 'gen.jsonl'} --strict\n"


def test_steps_run_in_order_with_the_state_directory(tmp_path):
    result = _sidecar(tmp_path, valid__index="yes", valid__audit="yes", valid__report="yes",
                      valid__state=str(tmp_path / "state"), valid__command=str(_fake_sidecar(tmp_path, 0)))
    assert result.returncode == 0, result.stdout
    export = tmp_path / "gen.jsonl"
    state = tmp_path / "state"
    assert (tmp_path / "calls.txt").read_text().splitlines() == [
        f"index {export} --no-activate --release-file RELEASE_FILE --state {state}",
        f"audit {export} --strict",
        f"report {export} --release r123456 --state {state}",
        f"releases activate r123456 --state {state}",
    ]


def test_a_failed_gate_with_fail_on_gate_no_goes_on_but_does_not_activate(tmp_path):
    result = _sidecar(tmp_path, valid__index="yes", valid__audit="yes", valid__report="yes",
                      **{"valid__fail-on-gate": "no"}, valid__command=str(_fake_sidecar(tmp_path, 0, failing="audit")))
    assert result.returncode == 0, result.stdout
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert [c.split()[0] for c in calls] == ["index", "audit", "report"]
    assert "release r123456 NOT activated ('valid audit' failed)" in result.stdout


def test_a_failed_gate_fails_the_build_before_activation(tmp_path):
    result = _sidecar(tmp_path, valid__index="yes", valid__report="yes",
                      valid__command=str(_fake_sidecar(tmp_path, 0, failing="report")))
    assert result.returncode != 0
    assert "VALID gate failed: 'valid report' exited with 1" in result.stdout + result.stderr
    assert [c.split()[0] for c in (tmp_path / "calls.txt").read_text().splitlines()] == ["index", "report"]


def test_index_alone_activates_its_release(tmp_path):
    result = _sidecar(tmp_path, valid__index="yes", valid__command=str(_fake_sidecar(tmp_path, 0)))
    assert result.returncode == 0, result.stdout
    assert (tmp_path / "calls.txt").read_text().splitlines()[-1] == "releases activate r123456"


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


def test_a_failing_gate_leaves_the_previous_release_active_with_the_real_sidecar(tmp_path, sample_build):
    from valid.export import export
    from valid.index import Store, list_releases, read_active

    ditavals = jobs.REPO / "schemes" / "ditaval"
    state = tmp_path / "state"
    # A first build (two generations) passes its gate, so its release is activated.
    export(jobs.REPO / "sample_maps" / "cloud-tpu.ditamap", out=tmp_path / "gen.jsonl",
           profiles={"v5p": ditavals / "v5p.ditaval", "v6e": ditavals / "v6e.ditaval"})
    first = _sidecar(tmp_path, valid__index="yes", valid__report="yes", valid__state=str(state),
                     valid__command=str(_real_sidecar(tmp_path)))
    assert first.returncode == 0, first.stdout + first.stderr
    previous = read_active(Store(state)).active
    assert previous is not None
    # The next build (all three generations) is indexed, then fails the audit gate: its release is
    # registered but never served; the first one stays active.
    (tmp_path / "gen.jsonl").write_bytes(sample_build.export.read_bytes())
    gated = _sidecar(tmp_path, valid__index="yes", valid__audit="yes", valid__report="yes",
                     valid__state=str(state), valid__command=str(_real_sidecar(tmp_path)))
    assert gated.returncode != 0
    assert "VALID gate failed: 'valid audit' exited with 1" in gated.stdout + gated.stderr
    releases = list_releases(Store(state))
    assert len(releases) == 2
    assert read_active(Store(state)).active == previous
    # With valid.fail-on-gate=no the build goes on, and still does not activate the release.
    warned = _sidecar(tmp_path, valid__index="yes", valid__audit="yes", **{"valid__fail-on-gate": "no"},
                      valid__state=str(state), valid__command=str(_real_sidecar(tmp_path)))
    assert warned.returncode == 0, warned.stdout + warned.stderr
    assert "NOT activated ('valid audit' failed)" in warned.stdout
    assert read_active(Store(state)).active == previous
