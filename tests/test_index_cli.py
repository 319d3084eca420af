"""`valid index` and `valid releases`: thin commands over valid.index, errors as one line."""

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from fakes.gemini import FakeGemini
from fixtures.index.exports import sample_topics, write_export
from valid.cli import main
from valid.index import Store, active_release_id, list_releases

DOCS = Path(__file__).parent.parent / "docs" / "index.md"


def run(*args, env=None, ok=True):
    result = CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def _edited():
    topics = sample_topics()
    first = topics[0]
    return [first.with_chunks([replace(first.chunks[0], text="Edited prerequisites.")] + list(first.chunks[1:]))] + topics[1:]


def test_valid_index_builds_and_activates_a_release_with_the_offline_embedder(tmp_path):
    export = write_export(tmp_path / "chunks.jsonl", sample_topics())
    out = run("index", export, "--state", tmp_path / "state").output
    assert re.search(r"release [0-9a-f]{12} built \(active\): 18 chunks, v5p 10, v6e 10, tpu7x 7", out)
    assert "18 computed, 0 reused (minilm-l6-v2-int8@" in out
    again = run("index", export, "--state", tmp_path / "state").output
    assert "reused (active)" in again and "0 computed, 18 reused" in again


def test_valid_index_with_gemini_uses_the_configured_model_and_dimension(tmp_path):
    export = write_export(tmp_path / "chunks.jsonl", sample_topics())
    with FakeGemini() as fake:
        env = {"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": fake.base_url}
        report = json.loads(
            run("index", export, "--state", tmp_path / "state", "--embedder", "gemini", "--embed-dimension", 32, "--json", env=env).output
        )
    assert report["embedding"] == {"embedder": "gemini/gemini-embedding-001", "dimension": 32, "inputs": 18, "embedded": 18, "reused": 0, "variants_sharing": 0}
    assert {r.body["requests"][0]["taskType"] for r in fake.requests} == {"RETRIEVAL_DOCUMENT"}
    assert {r.body["requests"][0]["outputDimensionality"] for r in fake.requests} == {32}


def test_releases_list_activate_and_rollback(tmp_path):
    state = tmp_path / "state"
    run("index", write_export(tmp_path / "a.jsonl", sample_topics()), "--state", state)
    run("index", write_export(tmp_path / "b.jsonl", _edited()), "--state", state, "--no-activate")
    store = Store(state)
    first, second = (r.id for r in list_releases(store))
    assert active_release_id(store) == first
    listing = run("releases", "list", "--state", state).output.splitlines()
    assert listing[0].startswith(f"* {first[:12]}") and listing[1].startswith(f"  {second[:12]}")
    assert run("releases", "activate", second[:12], "--state", state).output.strip() == f"active release: {second[:12]}"
    assert active_release_id(store) == second
    stale = run("releases", "activate", first[:12], "--expected", "none", "--state", state, ok=False)
    assert stale.exit_code == 2 and "meanwhile; rerun" in stale.output
    assert run("releases", "rollback", "--state", state).output.strip() == f"active release: {first[:12]}"
    assert [r["id"] for r in json.loads(run("releases", "list", "--json", "--state", state).output) if r["active"]] == [first]


def test_errors_are_one_line_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "chunk"}\n')
    result = run("index", bad, "--state", tmp_path / "state", ok=False)
    assert result.exit_code == 2
    assert result.output.startswith("valid: error: ") and result.output.count("\n") == 1 and "Traceback" not in result.output
    assert "bad.jsonl:1: the first line is not an export header" in result.output
    missing = run("releases", "rollback", "--state", tmp_path / "state", ok=False)
    assert missing.exit_code == 2 and "nothing to roll back to" in missing.output
    unreachable = run("index", write_export(tmp_path / "a.jsonl", sample_topics()), "--state", tmp_path / "s2",
                      "--chroma-url", "http://127.0.0.1:9", ok=False)
    assert unreachable.exit_code == 2 and "cannot reach Chroma at http://127.0.0.1:9" in unreachable.output


@pytest.mark.parametrize("command", ["index", "releases", "releases list", "releases activate", "releases rollback", "releases prune"])
def test_every_command_has_help_and_a_docs_section(command):
    help_text = run(*command.split(), "--help").output
    assert len(help_text.split("\n\n")[1].strip()) > 20
    assert f"valid {command}" in DOCS.read_text()
