"""valid.export.xslt: running the export stylesheet with saxonche, its contract, determinism, errors, and
the stylesheet digest."""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import threading
from pathlib import Path

import pytest
from saxonche import PySaxonProcessor

from fixtures.preprocessed.materialize import materialize
from valid.contracts import Chunk, ExportHeader
from valid.errors import ConfigError, ExportContractError
from valid.export.xslt import SAXON_CONFIG
from valid.export.xslt import fill_digests, run_export, stylesheet_digest, xsl_dir


@pytest.fixture()
def run(tmp_path) -> Path:
    return materialize("cloud-tpu", tmp_path)


def test_every_line_validates_against_the_contract_with_keys_in_model_order(run):
    lines = run_export(run).splitlines()
    header = json.loads(lines[0])
    ExportHeader.model_validate(header)
    assert list(header) == list(ExportHeader.model_fields)
    assert len(lines) == 1 + header["counts"]["chunks"]
    for line in lines[1:]:
        chunk = json.loads(line)
        Chunk.model_validate(chunk)
        assert list(chunk) == list(Chunk.model_fields)
        assert chunk["digest"] == hashlib.sha256(chunk["text"].encode("utf-8")).hexdigest()


def test_header_carries_the_run_document(run):
    header = json.loads(run_export(run).splitlines()[0])
    assert header["map"] == "cloud-tpu.ditamap"
    assert header["attribute"] == "platform"
    assert header["schema_version"] == "1.0"
    assert header["exporter_version"] == "0.1.0"
    assert header["stylesheet_digest"] == "0" * 64
    assert header["scheme_digest"] == "1" * 64
    assert header["source_commit"] is None  # empty in the run document
    assert [p["ditaval_digest"] for p in header["profiles"]] == ["5" * 64, "6" * 64, "7" * 64]
    assert header["warnings"] == [{"path": "topics/create-vm.dita", "line": 14, "feature": "conref",
                                   "message": "section pulled in by conref from topics/shared-snippets.dita"}]


def test_output_is_byte_identical_on_rerun(run):
    first = run_export(run)
    assert run_export(run) == first
    assert first.endswith("\n") and "\r" not in first


def test_output_does_not_depend_on_where_the_doc_set_lives(tmp_path):
    one = run_export(materialize("cloud-tpu", tmp_path / "a"))
    two = run_export(materialize("cloud-tpu", tmp_path / "elsewhere" / "b"))
    assert one == two


def test_paths_in_json_are_not_slash_escaped(run):
    assert "\\/" not in run_export(run)


def test_missing_job_file_is_a_one_line_error_naming_it(run):
    job = run.parent / "jobs" / "v6e" / ".job.xml"
    job.unlink()
    with pytest.raises(ExportContractError) as error:
        run_export(run)
    message = str(error.value)
    assert "\n" not in message
    assert f"cannot read job file {job}" in message and "profile v6e" in message


def test_profile_without_a_job_is_an_error(run):
    text = run.read_text(encoding="utf-8")
    run.write_text(text.replace('job="@', 'x="@').replace(' job="file:', ' x="file:', 1), encoding="utf-8")
    with pytest.raises(ExportContractError, match="profile v5p has no job"):
        run_export(run)


def test_unreadable_temp_topic_is_an_error_naming_it(run):
    topic = run.parent / "jobs" / "v5p" / "topics" / "overview.dita"
    topic.write_text("<concept id='overview'><title>broken", encoding="utf-8")
    with pytest.raises(ExportContractError, match=f"cannot read temp file {topic}"):
        run_export(run)


def _reference_a_topic_the_build_never_wrote(run: Path, listed: str) -> None:
    """Every profile's map references topics/generated.dita, which no job holds; `listed` is its
    line in each .job.xml (DITA-OT lists a source it could not load, DOTX008E, without @format)."""
    for job in (run.parent / "jobs").iterdir():
        map_file = next(job.glob("*.ditamap"))
        text = map_file.read_text(encoding="utf-8")
        close = text.rindex("</")
        map_file.write_text(text[:close] + '<topicref class="- map/topicref " href="topics/generated.dita"/>'
                            + text[close:], encoding="utf-8")
        job_file = job / ".job.xml"
        job_file.write_text(job_file.read_text(encoding="utf-8").replace("</files>", listed + "</files>"),
                            encoding="utf-8")


def test_a_topic_the_build_could_not_load_contributes_nothing(run):
    # A doc set with a missing topic: DITA-OT reports it and builds the rest, and so does the stylesheet.
    before = run_export(run)
    _reference_a_topic_the_build_never_wrote(run, '<file uri="topics/generated.dita" path="topics/generated.dita"/>')
    assert run_export(run) == before


def test_a_topic_the_job_lists_as_written_but_is_missing_contributes_nothing(run):
    # A source checkout without the topics its own build generates (dita-ot/docs): DITA-OT lists
    # such a file with @format, writes nothing for it, reports it and builds the rest.
    before = run_export(run)
    _reference_a_topic_the_build_never_wrote(run, '<file uri="topics/generated.dita" format="dita"/>')
    assert run_export(run) == before


def test_not_a_run_document_is_an_error(tmp_path):
    document = tmp_path / "other.xml"
    document.write_text("<job/>", encoding="utf-8")
    with pytest.raises(ExportContractError, match="not a VALID run document"):
        run_export(document)
    with pytest.raises(ExportContractError, match="run document not found"):
        run_export(tmp_path / "missing.xml")


def test_jobs_are_never_fetched_over_the_network(run):
    requests = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            requests.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write((run.parent / "jobs" / "v5p" / ".job.xml").read_bytes())

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/v5p/.job.xml"
        text = run.read_text(encoding="utf-8")
        start = text.index('job="', text.index('name="v5p"'))
        end = text.index('"', start + 5)
        run.write_text(text[:start] + f'job="{url}"' + text[end + 1:], encoding="utf-8")
        with pytest.raises(ExportContractError, match="cannot read job file"):
            run_export(run)
    finally:
        server.shutdown()
        server.server_close()
    assert requests == []


def test_stylesheet_digest_is_sha256_over_sorted_xsl_files():
    root = xsl_dir()
    files = sorted(root.rglob("*.xsl"), key=lambda p: p.relative_to(root).as_posix())
    assert [p.name for p in files][:1] == ["chunk.xsl"]
    assert stylesheet_digest() == hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()


def test_stylesheet_digest_follows_the_xsl_dir_env(tmp_path, monkeypatch, run):
    copy = tmp_path / "xsl-copy"
    shutil.copytree(xsl_dir(), copy)
    monkeypatch.setenv("VALID_XSL_DIR", str(copy))
    assert xsl_dir() == copy.resolve()
    assert stylesheet_digest() == stylesheet_digest(Path(__file__).resolve().parents[1] / "xsl")
    (copy / "json.xsl").write_bytes((copy / "json.xsl").read_bytes() + b"\n")
    assert stylesheet_digest() != stylesheet_digest(Path(__file__).resolve().parents[1] / "xsl")
    assert json.loads(run_export(run).splitlines()[0])["kind"] == "header"  # runs from the copy


def test_xsl_dir_env_without_stylesheets_is_a_config_error(tmp_path, monkeypatch):
    monkeypatch.setenv("VALID_XSL_DIR", str(tmp_path))
    with pytest.raises(ConfigError, match="VALID_XSL_DIR"):
        xsl_dir()


def test_run_parameter_names_the_run_document_when_the_source_is_another_file(run):
    # As a build tool that must pass a source file (DITA-OT's <xslt in=".job.xml">) would call it.
    with PySaxonProcessor(license=False) as processor:
        for name, value in SAXON_CONFIG.items():
            processor.set_configuration_property(name, value)
        executable = processor.new_xslt30_processor().compile_stylesheet(
            stylesheet_file=str(xsl_dir() / "valid-index.xsl"))
        executable.set_parameter("run", processor.make_string_value(run.as_uri()))
        executable.set_parameter("digests", processor.make_string_value("deferred"))
        out = executable.transform_to_string(source_file=str(run.parent / "jobs" / "v5p" / ".job.xml"))
    assert fill_digests(out) == run_export(run)
