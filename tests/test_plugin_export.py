"""The stylesheets' DITA-OT entry point: xsl/valid-index.xsl over jobs shaped exactly like DITA-OT
4.x preprocess2 output (hand-written, tests/fixtures/dita-ot/jobs/, no valid:xpath), planned and
run as the plugin does, gives the same chunks (ids, text, scope) as `valid export` on the source."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("dita_ot_jobs", Path(__file__).parent / "fixtures" / "dita-ot" / "jobs.py")
jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jobs)

SCHEME = jobs.SOURCE / "scheme.ditamap"

@pytest.fixture(scope="module")
def plugin_export(tmp_path_factory) -> list[dict]:
    from saxonche import PySaxonProcessor

    tmp = tmp_path_factory.mktemp("plugin")
    unfiltered = jobs.materialize(jobs.JOBS / "_unfiltered", jobs.SOURCE, tmp / "temp")
    digest = jobs.stylesheet_digest_by_definition(jobs.REPO / "xsl")
    jobs.plan(unfiltered, tmp / "temp" / "valid", scheme=SCHEME, stylesheet_digest=digest)
    result = jobs.ant(
        "harness.plan",
        buildfile=jobs.HARNESS,
        harness__plugin__dir=str(jobs.REPO / "dita-ot-plugin"),
        harness__jobs=str(jobs.JOBS),
        harness__src__uri=jobs.dita_ot_uri(jobs.SOURCE),
        harness__temp=str(tmp / "temp"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    with PySaxonProcessor(license=False) as proc:
        exe = proc.new_xslt30_processor().compile_stylesheet(stylesheet_file=str(jobs.REPO / "xsl" / "valid-index.xsl"))
        text = exe.transform_to_string(source_file=str(tmp / "temp" / "valid" / "run.xml"))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def reference_export(tmp_path_factory) -> list[dict]:
    from valid import export

    out = tmp_path_factory.mktemp("ref") / "gen.jsonl"
    export.export(jobs.SOURCE / "gen.ditamap", scheme=SCHEME, out=out)
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]


def _chunks(lines: list[dict]) -> dict[str, dict]:
    return {c["id"]: c for c in lines if c["kind"] == "chunk"}


def test_plugin_export_lines_follow_the_contract(plugin_export):
    from valid.contracts import Chunk, ExportHeader

    assert plugin_export[0]["kind"] == "header"
    ExportHeader.model_validate(plugin_export[0])
    for line in plugin_export[1:]:
        Chunk.model_validate(line)


def test_same_chunk_ids_text_and_scope_as_valid_export(plugin_export, reference_export):
    ours, theirs = _chunks(plugin_export), _chunks(reference_export)
    assert sorted(ours) == sorted(theirs)
    for chunk_id, chunk in theirs.items():
        assert ours[chunk_id]["text"] == chunk["text"], chunk_id
        assert ours[chunk_id]["scope"] == chunk["scope"], chunk_id
        assert ours[chunk_id]["scope_origin"] == chunk["scope_origin"], chunk_id
        assert ours[chunk_id]["source"]["path"] == chunk["source"]["path"], chunk_id
        assert ours[chunk_id]["source"]["line"] == chunk["source"]["line"], chunk_id


def test_same_header_profiles_digests_and_counts(plugin_export, reference_export):
    ours, theirs = plugin_export[0], reference_export[0]
    for key in ("schema_version", "map", "attribute", "profiles", "scheme_digest", "exporter_version",
                "stylesheet_digest", "counts", "owned_values"):
        assert ours[key] == theirs[key], key


def test_fixture_covers_every_kind_of_scope(plugin_export):
    """The DITA-OT-shaped fixture is only worth comparing if it exercises the hard cases."""
    chunks = list(_chunks(plugin_export).values())
    origins = {c["scope_origin"] for c in chunks}
    assert origins == {"shared", "cascaded", "element"}
    assert any("~" in c["id"] for c in chunks), "a keyref variant (text differs by profile)"
    assert any(c["scope"] == {"v5p": True, "v6e": False} and c["scope_origin"] == "cascaded" for c in chunks)
