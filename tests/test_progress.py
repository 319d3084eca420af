"""Progress on stderr for export and index: stage, counts, rate, time left; only when wanted."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from fixtures.index.exports import sample_topics, write_export
from valid.progress import StderrProgress, wanted

ROOT = Path(__file__).parent.parent
SAMPLE = ROOT / "sample_maps" / "cloud-tpu.ditamap"
SCHEME = ROOT / "schemes" / "tpu-generations.ditamap"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def valid(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "sidecar")}
    return subprocess.run([sys.executable, "-m", "valid", *map(str, args)], capture_output=True, text=True, env=env)


def test_progress_is_shown_on_a_terminal_or_when_asked_and_never_with_json_unless_asked():
    assert wanted(False, stream=Terminal())
    assert not wanted(False, stream=io.StringIO())
    assert not wanted(False, as_json=True, stream=Terminal())
    assert wanted(True, stream=io.StringIO())
    assert wanted(True, as_json=True, stream=io.StringIO())


def test_each_stage_shows_its_counts_rate_and_time_left():
    now = [0.0]
    stream = Terminal()
    progress = StderrProgress("valid index", stream=stream, clock=lambda: now[0])
    for done in range(0, 101, 10):
        progress("embed", done, 100)
        now[0] += 1.0
    progress("vectors", 5, 5)
    progress.close()
    lines = stream.getvalue().split("\n")
    assert "\rvalid index: embed 40/100 (10.0/s, 0:06 left)\033[K" in lines[0]  # redrawn in place
    assert lines[0].endswith("valid index: embed 100/100 (10.0/s, 0:10 in all)\033[K")
    assert lines[1].startswith("\rvalid index: vectors 5/5")


def test_in_a_log_lines_are_plain_and_spaced_out():
    now = [0.0]
    stream = io.StringIO()
    progress = StderrProgress("valid export", stream=stream, clock=lambda: now[0])
    for done in range(1, 21):
        now[0] += 1.0
        progress("preprocess", done, 20)
    assert "\r" not in stream.getvalue()
    assert stream.getvalue().splitlines() == [  # one line every 5 s, and the last
        "valid export: preprocess 5/20 (1.2/s, 0:12 left)",
        "valid export: preprocess 10/20 (1.1/s, 0:09 left)",
        "valid export: preprocess 15/20 (1.1/s, 0:05 left)",
        "valid export: preprocess 20/20 (1.1/s, 0:19 in all)",
    ]


def test_export_is_silent_when_stderr_is_not_a_terminal(tmp_path):
    done = valid("export", SAMPLE, "--scheme", SCHEME, "-o", tmp_path / "out.jsonl")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_export_with_progress_reports_its_stages_in_a_log(tmp_path):
    done = valid("export", SAMPLE, "--scheme", SCHEME, "-o", tmp_path / "out.jsonl", "--progress")
    assert done.returncode == 0, done.stderr
    for stage in ("valid export: load 1/1", "valid export: preprocess 4/4", "valid export: chunk and merge 1/1"):
        assert stage in done.stderr
    assert done.stdout.startswith("wrote ")


def test_index_progress_follows_the_same_rules(tmp_path):
    export = write_export(tmp_path / "chunks.jsonl", sample_topics())
    quiet = valid("index", export, "--state", tmp_path / "a", "--json")
    assert quiet.returncode == 0, quiet.stderr
    assert "valid index:" not in quiet.stderr
    loud = valid("index", export, "--state", tmp_path / "b", "--json", "--progress")
    assert loud.returncode == 0, loud.stderr
    assert "valid index: embed" in loud.stderr and "18/18" in loud.stderr
