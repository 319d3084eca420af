"""`valid export --jobs N`: worker processes give the very bytes of a serial export, and an error
in a worker is the same one line, with nothing written."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CLOUD_TPU, CORVANE

from valid.cli import main
from valid.errors import ConfigError
from valid.export import export
import valid.export.run
from valid.export.workers import BUILD_OVERHEAD, MAX_JOBS, MEMORY_BUDGET_MB, auto_jobs, deal, pool, usable_cpus

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from export import generate  # noqa: E402  (bench/export.py: the guide-shaped generated doc set)


def exported(tmp_path: Path, name: str, map_path: Path, **options) -> bytes:
    out = tmp_path / f"{name}.jsonl"
    export(map_path, out=out, **options)
    return out.read_bytes()


@pytest.mark.parametrize("sample", [CLOUD_TPU, CORVANE], ids=lambda s: s.name)
def test_a_bundled_sample_exported_by_two_workers_is_byte_identical_to_one_process(tmp_path, sample):
    serial = exported(tmp_path, "serial", sample.map, scheme=sample.scheme, jobs=1)
    assert exported(tmp_path, "parallel", sample.map, scheme=sample.scheme, jobs=2) == serial
    # Batches of two topic files: several stylesheet runs spread over the workers, joined in order.
    assert exported(tmp_path, "batched", sample.map, scheme=sample.scheme, jobs=2, topics_per_run=2) == serial


def test_a_generated_guide_exported_by_three_workers_is_byte_identical_to_one_process(tmp_path):
    root_map = generate(tmp_path / "docs", topics=60, profiles=5)
    scheme = root_map.parent / "scheme.ditamap"
    serial = exported(tmp_path, "serial", root_map, scheme=scheme, jobs=1, builds_per_run=90)
    parallel = exported(tmp_path, "parallel", root_map, scheme=scheme, jobs=3, builds_per_run=90)
    assert parallel == serial
    assert serial.count(b"\n") > 100  # a real export, with chunks


def profiled_root(tmp_path: Path, failing: tuple[str, ...] = ("b",)) -> Path:
    """Three profiles a, b, c; those in `failing` exclude the root map. With two processes the
    profiles are dealt in turn: a and c to the export's own process, b to the worker."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "m.ditamap").write_text('<map audience="admin">\n<title>M</title>\n<topicref href="t.dita"/>\n</map>')
    (docs / "t.dita").write_text('<topic id="t"><title>T</title><body><section><p>x</p></section></body></topic>')
    for name in ("a", "b", "c"):
        excluded = "admin" if name in failing else "nobody"
        (docs / f"{name}.ditaval").write_text(f'<val><prop att="audience" val="{excluded}" action="exclude"/></val>')
    return docs


def export_profiles(tmp_path: Path, monkeypatch, docs: Path, jobs: str):
    scratch = tmp_path / f"scratch-{jobs}"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    out = tmp_path / f"out-{jobs}.jsonl"
    args = [str(docs / "m.ditamap"), "-o", str(out), "--jobs", jobs]
    for name in ("a", "b", "c"):
        args += ["--profile", f"{name}={docs / f'{name}.ditaval'}"]
    result = CliRunner().invoke(main, ["export", *args], catch_exceptions=False)
    assert not out.exists()
    assert list(scratch.iterdir()) == []  # no job directory left behind
    return result


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_error_in_a_worker_is_the_serial_one_line_and_nothing_is_written(tmp_path, monkeypatch, jobs):
    result = export_profiles(tmp_path, monkeypatch, profiled_root(tmp_path), jobs)
    assert result.exit_code == 2
    assert result.output == "valid: error: m.ditamap:1: profile b excludes the root map itself\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_of_two_failing_builds_in_two_processes_the_first_profiles_error_is_the_one_reported(tmp_path, monkeypatch, jobs):
    # c fails in the export's own process, b in the worker: a serial export stops at b.
    result = export_profiles(tmp_path, monkeypatch, profiled_root(tmp_path, failing=("b", "c")), jobs)
    assert result.exit_code == 2
    assert result.output == "valid: error: m.ditamap:1: profile b excludes the root map itself\n"


def test_a_stylesheet_error_in_a_worker_is_the_serial_one_and_nothing_is_written(tmp_path, monkeypatch):
    broken = tmp_path / "xsl"
    shutil.copytree(Path(__file__).resolve().parents[1] / "xsl", broken)
    entry = broken / "valid-index.xsl"
    entry.write_text(entry.read_text(encoding="utf-8").replace("</xsl:stylesheet>", "<xsl:bogus/></xsl:stylesheet>"))
    monkeypatch.setenv("VALID_XSL_DIR", str(broken))  # workers inherit the environment
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    messages = []
    for jobs in (1, 2):
        out = tmp_path / f"out-{jobs}.jsonl"
        with pytest.raises(ConfigError) as raised:  # batches of two topic files: the runs are the workers'
            export(CLOUD_TPU.map, scheme=CLOUD_TPU.scheme, out=out, jobs=jobs, topics_per_run=2)
        assert not out.exists() and list(scratch.iterdir()) == []
        messages.append(str(raised.value))
    assert "does not compile" in messages[0] and len(messages[0].splitlines()) == 1
    assert messages[1] == messages[0]


def test_jobs_default_to_one_for_a_small_doc_set_and_to_the_cpus_at_most_four_otherwise():
    assert auto_jobs(topics=8, profiles=3) == 1
    assert 1 <= auto_jobs(topics=2500, profiles=20) <= 4


def test_jobs_chosen_for_a_user_fit_the_memory_budget_with_the_doc_set_loaded_in_each():
    # The Oxygen user guide: 2,648 topics, 19 profiles, about 340 MB once loaded.
    guide = auto_jobs(topics=2648, profiles=19, loaded_mb=340)
    assert 1 <= guide <= 2 and guide * 340 * BUILD_OVERHEAD <= MEMORY_BUDGET_MB
    assert auto_jobs(topics=2648, profiles=19, loaded_mb=600) == 1  # two would not fit
    assert auto_jobs(topics=2648, profiles=19, loaded_mb=100) == min(MAX_JOBS, usable_cpus())


def test_profiles_are_dealt_to_the_groups_in_turn_so_large_builds_listed_together_are_spread():
    assert deal(list(range(7)), 3) == [[0, 3, 6], [1, 4], [2, 5]]
    assert deal([1], 4) == [[1]]


def test_a_pool_with_one_task_per_worker_runs_each_task_in_a_fresh_process():
    with pool(2, tasks_per_worker=1) as workers:
        pids = [f.result() for f in [workers.submit(os.getpid) for _ in range(4)]]
    assert len(set(pids)) == 4 and os.getpid() not in pids
    with pool(2) as workers:  # without it, workers are reused
        assert len({f.result() for f in [workers.submit(os.getpid) for _ in range(6)]}) <= 2


def test_each_stylesheet_batch_of_a_parallel_export_gets_a_fresh_worker(tmp_path, monkeypatch):
    """A SaxonC heap grows from batch to batch in one process; one batch per worker bounds it."""
    asked = []

    def spy(workers, tasks_per_worker=None):
        asked.append(tasks_per_worker)
        return pool(workers, tasks_per_worker)

    monkeypatch.setattr(valid.export.run, "pool", spy)
    serial = exported(tmp_path, "serial", CLOUD_TPU.map, scheme=CLOUD_TPU.scheme, jobs=1, topics_per_run=2)
    parallel = exported(tmp_path, "parallel", CLOUD_TPU.map, scheme=CLOUD_TPU.scheme, jobs=2, topics_per_run=2)
    assert parallel == serial
    assert asked[-1] == 1  # the batches' pool: after the profile groups' pool, if there was one
