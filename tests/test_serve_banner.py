"""`valid serve` says what it serves on start (issue 27 item 5): its URL, the release and its
builds, in one line on stdout, and the URL answers."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

from valid.index import Store, open_release

SIDECAR = Path(__file__).resolve().parents[1] / "sidecar"


def first_line(process: subprocess.Popen, seconds: float) -> str:
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    return got[0] if got else ""


def test_valid_serve_prints_its_url_release_and_builds_on_start(sample_build, tmp_path):
    state = tmp_path / "state"
    shutil.copytree(sample_build.state, state)
    with open_release(Store(state), sample_build.release_id) as release:
        labels = [p.labels[0] if p.labels else p.name for p in release.header.profiles]
    env = {**os.environ, "PYTHONPATH": str(SIDECAR)}
    process = subprocess.Popen(
        [sys.executable, "-m", "valid", "serve", "--state", str(state), "--port", "0", "--no-log"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        line = first_line(process, 120)
        found = re.search(r"(http://127\.0\.0\.1:(\d+)/)", line)
        assert found and found.group(2) != "0", line
        assert f"release {sample_build.release_id[:12]}" in line
        assert f"{len(labels)} builds: {', '.join(labels)}" in line
        for _ in range(100):  # listening once the line is out; uvicorn's loop may still be starting
            try:
                with urllib.request.urlopen(found.group(1) + "healthz", timeout=5) as response:
                    assert response.status == 200
                    break
            except OSError:
                threading.Event().wait(0.2)
        else:
            raise AssertionError(f"{found.group(1)}healthz never answered")
    finally:
        process.terminate()
        process.wait(30)
