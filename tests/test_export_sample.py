"""`valid export` end to end: the real stylesheet over the bundled sample and the fixture doc set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).parent.parent
SAMPLE_MAP = REPO / "sample_maps" / "cloud-tpu.ditamap"
SAMPLE_SCHEME = REPO / "schemes" / "tpu-generations.ditamap"
BASIC = Path(__file__).parent / "fixtures" / "dita" / "basic"


def read(path: Path):
    lines = path.read_text(encoding="utf-8").splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def in_scope(chunk) -> list[str]:
    return [p for p, kept in chunk["scope"].items() if kept]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    from valid.export import export

    out = tmp_path_factory.mktemp("sample") / "cloud-tpu.jsonl"
    result = export(SAMPLE_MAP, scheme=SAMPLE_SCHEME, out=out)
    return result, out


def test_sample_has_one_profile_per_generation_with_the_scheme_labels(sample):
    result, out = sample
    header, chunks = read(out)
    assert [p["name"] for p in header["profiles"]] == ["v5p", "v6e", "tpu7x"]
    assert header["attribute"] == "platform"
    assert header["profiles"][2]["labels"][0] == "TPU7x (Ironwood)"
    assert header["counts"]["chunks"] == len(chunks) == result.chunks
    assert result.header.scheme_digest is not None


def test_generation_branch_chunks_are_scoped_to_their_generation_only(sample):
    _, out = sample
    _, chunks = read(out)
    by_file: dict[str, set[tuple[str, ...]]] = {}
    for c in chunks:
        by_file.setdefault(c["source"]["path"], set()).add(tuple(in_scope(c)))
    assert by_file["v5p.dita"] == {("v5p",)}
    assert by_file["v6e.dita"] == {("v6e",)}
    assert by_file["tpu7x/tpu7x-overview.dita"] == {("tpu7x",)}
    assert all(c["scope_origin"] == "cascaded" for c in chunks if c["source"]["path"] == "v5p.dita")


def test_profiled_rows_split_the_shared_versions_table_into_one_variant_per_generation(sample):
    _, out = sample
    _, chunks = read(out)
    variants = {c["id"]: c for c in chunks if c["id"].startswith("runtimes.dita#runtimes/versions")}
    assert set(variants) == {
        "runtimes.dita#runtimes/versions~v5p",
        "runtimes.dita#runtimes/versions~v6e",
        "runtimes.dita#runtimes/versions~tpu7x",
    }
    assert "v2-alpha-tpuv5" in variants["runtimes.dita#runtimes/versions~v5p"]["text"]
    assert "v2-alpha-tpuv6e" not in variants["runtimes.dita#runtimes/versions~v5p"]["text"]
    assert in_scope(variants["runtimes.dita#runtimes/versions~v6e"]) == ["v6e"]
    v6e = variants["runtimes.dita#runtimes/versions~v6e"]["text"]
    assert "v2-alpha-tpuv6e" in v6e and "v2-alpha-tpuv5" not in v6e and "Not supported" not in v6e


def test_every_tpu7x_branch_chunk_is_in_scope_for_tpu7x_only(sample):
    _, out = sample
    _, chunks = read(out)
    tpu7x = [c for c in chunks if c["source"]["path"].startswith("tpu7x/")]
    assert len(tpu7x) >= 5
    assert all(in_scope(c) == ["tpu7x"] for c in tpu7x)
    # A tpu7x-only section inside a shared topic is narrowed by element profiling.
    note = next(c for c in chunks if c["id"] == "runtimes.dita#runtimes/tpu7x-note")
    assert in_scope(note) == ["tpu7x"] and note["scope_origin"] == "element"


def test_keyrefd_shared_section_has_one_variant_per_distinct_text(sample):
    _, out = sample
    _, chunks = read(out)
    slices = {c["id"]: c for c in chunks if c["id"].startswith("about-cloud-tpu.dita#about-cloud-tpu/slices")}
    assert {cid: in_scope(c) for cid, c in slices.items()} == {
        "about-cloud-tpu.dita#about-cloud-tpu/slices~v5p": ["v5p"],
        "about-cloud-tpu.dita#about-cloud-tpu/slices~v6e": ["v6e"],
        "about-cloud-tpu.dita#about-cloud-tpu/slices~tpu7x": ["tpu7x"],
    }
    assert "v6e-8" in slices["about-cloud-tpu.dita#about-cloud-tpu/slices~v6e"]["text"]
    assert "tpu7x-standard-4t" in slices["about-cloud-tpu.dita#about-cloud-tpu/slices~tpu7x"]["text"]
    # Two generations whose key resolves to the same text share one variant.
    vm = {c["id"]: in_scope(c) for c in chunks if c["id"].startswith("about-cloud-tpu.dita#about-cloud-tpu/tpu-vm")}
    assert vm == {
        "about-cloud-tpu.dita#about-cloud-tpu/tpu-vm~v5p+tpu7x": ["v5p", "tpu7x"],
        "about-cloud-tpu.dita#about-cloud-tpu/tpu-vm~v6e": ["v6e"],
    }


def test_the_planted_shared_step_is_in_scope_for_every_generation(sample):
    _, out = sample
    _, chunks = read(out)
    trap = next(c for c in chunks if c["id"] == "create-tpu-vm.dita#create-with-startup-script/startup-script-steps")
    assert in_scope(trap) == ["v5p", "v6e", "tpu7x"] and trap["scope_origin"] == "shared"
    assert "--version=v2-alpha-tpuv6e" in trap["text"]


def test_export_is_byte_identical_across_runs(sample, tmp_path):
    from valid.export import export

    _, first = sample
    again = tmp_path / "again.jsonl"
    export(SAMPLE_MAP, scheme=SAMPLE_SCHEME, out=again)
    assert again.read_bytes() == first.read_bytes()


def test_explicit_ditavals_give_the_same_scopes_as_the_scheme_profiles(sample, tmp_path):
    from valid.export import export

    _, implied = sample
    explicit = tmp_path / "explicit.jsonl"
    ditavals = REPO / "schemes" / "ditaval"
    profiles = [(name, ditavals / f"{name}.ditaval") for name in ("v5p", "v6e", "tpu7x")]
    export(SAMPLE_MAP, scheme=SAMPLE_SCHEME, profiles=profiles, out=explicit)
    _, a = read(implied)
    _, b = read(explicit)
    assert [(c["id"], c["scope"], c["text"]) for c in a] == [(c["id"], c["scope"], c["text"]) for c in b]


def test_cli_export_writes_the_file_and_a_summary(tmp_path):
    from valid.cli import main

    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["export", str(SAMPLE_MAP), "--scheme", str(SAMPLE_SCHEME), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {out}: ")
    assert "v5p " in result.output
    header, _ = read(out)
    assert header["kind"] == "header"


def test_fixture_doc_set_scopes(tmp_path):
    from valid.export import export

    out = tmp_path / "basic.jsonl"
    result = export(BASIC / "root.ditamap", scheme=BASIC / "scheme.ditamap", out=out)
    header, chunks = read(out)
    scopes = {}
    for c in chunks:
        scopes.setdefault((c["source"]["path"], c["source"]["xpath"]), set()).update(in_scope(c))
    assert scopes[("topics/both.dita", "/concept[1]/conbody[1]")] == {"v5p", "v6e"}  # two branches
    assert scopes[("topics/rootprofiled.dita", "/concept[1]/conbody[1]")] == {"v6e"}  # topic root
    assert scopes[("topics/escapes.dita", "/concept[1]/conbody[1]")] == {"v5p"}  # escapes the submap root
    assert not any(path == "topics/printonly.dita" for path, _ in scopes)  # printonly: no build keeps it
    assert header["counts"]["per_profile"] == {p: sum(1 for c in chunks if c["scope"][p]) for p in ("v5p", "v6e", "tpu7x")}
    assert any(w.feature == "conref" for w in result.warnings)


def test_widened_root_exports_topics_beside_the_map_directory(tmp_path):
    from valid.export import export

    (tmp_path / "maps").mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "maps" / "m.ditamap").write_text(
        '<map><title>M</title><topicref href="../shared/s.dita" platform="v5p"/><topicref href="local.dita"/></map>'
    )
    (tmp_path / "maps" / "local.dita").write_text('<topic id="local"><title>L</title><body><p>Local.</p></body></topic>')
    (tmp_path / "shared" / "s.dita").write_text('<topic id="s"><title>S</title><body><p>Shared.</p></body></topic>')
    v5p = tmp_path / "v5p.ditaval"
    v5p.write_text('<val><prop att="platform" action="exclude"/><prop att="platform" val="v5p" action="include"/></val>')
    v6e = tmp_path / "v6e.ditaval"
    v6e.write_text('<val><prop att="platform" action="exclude"/><prop att="platform" val="v6e" action="include"/></val>')
    out = tmp_path / "out.jsonl"
    export(tmp_path / "maps" / "m.ditamap", profiles=[("v5p", v5p), ("v6e", v6e)], root=tmp_path, out=out)
    _, chunks = read(out)
    scopes = {c["source"]["path"]: c["scope"] for c in chunks}
    assert scopes == {"../shared/s.dita": {"v5p": True, "v6e": False}, "local.dita": {"v5p": True, "v6e": True}}
