"""`valid serve` says what it serves on start (issue 27 item 5): its URL, the release and its
builds, in one line on stdout, and the URL answers."""

from __future__ import annotations

import json
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


def test_valid_ask_with_server_asks_the_running_service_and_prints_what_the_local_command_prints(sample_build, tmp_path):
    state = tmp_path / "state"
    shutil.copytree(sample_build.state, state)
    env = {**os.environ, "PYTHONPATH": str(SIDECAR)}
    env.pop("VALID_STATE", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "valid", "serve", "--state", str(state), "--port", "0", "--no-log"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    question = "I'm on Ironwood. Which --version do I pass when I create the VM?"
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/", first_line(process, 120)).group(0)
        remote = subprocess.run([sys.executable, "-m", "valid", "ask", question, "--server", url, "--json"],
                                env=env, capture_output=True, text=True, timeout=120)
        printed = subprocess.run([sys.executable, "-m", "valid", "ask", question, "--server", url],
                                 env=env, capture_output=True, text=True, timeout=120)
    finally:
        process.terminate()
        process.wait(30)
    local = subprocess.run([sys.executable, "-m", "valid", "ask", question, "--state", str(state), "--no-log", "--json"],
                           env=env, capture_output=True, text=True, timeout=300)
    assert remote.returncode == 0 and local.returncode == 0, remote.stderr + local.stderr
    served, here = json.loads(remote.stdout), json.loads(local.stdout)
    assert served["outcome"] == here["outcome"] == "answer"
    assert served["scope"] == here["scope"] == ["tpu7x"]
    assert [a["answer"] for a in served["answers"]] == [a["answer"] for a in here["answers"]]
    assert printed.returncode == 0 and "Scope: " in printed.stdout and served["release"][:12] in printed.stdout


def test_valid_ask_with_a_server_that_is_not_there_is_one_line(tmp_path):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(SIDECAR)}
    done = subprocess.run([sys.executable, "-m", "valid", "ask", "Which --version?", "--server", f"http://127.0.0.1:{port}"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("valid: error: cannot reach `valid serve`"), done.stderr


def test_the_ask_command_offers_the_generators_the_engine_makes():
    from valid.answer.wiring import GENERATORS as made
    from valid.commands.answer import GENERATORS as offered

    assert offered == made
