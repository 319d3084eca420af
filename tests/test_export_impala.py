"""Apache Impala's documentation (apache/impala, docs/) exported as it comes, with the settings a
user gets: a third public doc set, profiled on @audience with the two DITAVALs its own build uses
(HTML and PDF: bench/impala-docs.toml).

Runs where IMPALA_DOCS points at the docs/ folder of an apache/impala checkout (map
impala.ditamap); skipped otherwise. The scopes below were checked by hand against the sources at
commit b21595276c6c (docs/benchmarks.md, "A third public doc set"). With DITA_HOME set as well, the
topics exported for the HTML profile are checked against DITA-OT 4.2.4's own HTML5 build, and the
DITA-OT plugin's export of both profiles against `valid export`'s: the same ids, texts and scopes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_plugin_dita_ot import dita_ot, plugin_export  # noqa: F401  (dita_ot: the fixture)
from fixtures.dita_home import dita_command
from fixtures.public_docsets import docset

from valid.cli import main
from valid.export import export

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from plugin_parity import chunks, compare  # noqa: E402

CONFIG = Path(__file__).resolve().parents[1] / "bench" / "impala-docs.toml"


@pytest.fixture(scope="module")
def docs() -> tuple[Path, dict[str, Path]]:
    """The root map and its profiles (name -> DITAVAL)."""
    return docset("IMPALA_DOCS", CONFIG, "apache/impala's docs/ folder")


@pytest.fixture(scope="module")
def exported(docs, tmp_path_factory) -> tuple[Path, str]:
    """The export as `valid export` writes it with no tuning flags, and what it printed."""
    root_map, profiles = docs
    out = tmp_path_factory.mktemp("impala") / "impala.jsonl"
    arguments = ["export", str(root_map), *(f"--profile={name}={path}" for name, path in profiles.items()), "-o", str(out)]
    result = CliRunner().invoke(main, arguments, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out, result.output


def _lines(out: Path) -> tuple[dict, list[dict]]:
    header, *chunks = [json.loads(line) for line in out.read_text(encoding="utf-8").rstrip("\n").split("\n")]
    return header, chunks


def _text(chunks: list[dict], chunk_id: str, profile: str) -> str:
    """The text of the chunk (or its variant) that profile is shown."""
    [chunk] = [c for c in chunks if c["id"].split("~")[0] == chunk_id and c["scope"][profile]]
    return chunk["text"]


@pytest.mark.slow
def test_the_impala_docs_export_as_they_come_and_list_every_warning(exported, docs):
    out, output = exported
    _, profiles = docs
    header, chunks = _lines(out)
    assert "warning(s) by kind:" in output
    assert [p["name"] for p in header["profiles"]] == list(profiles)
    assert all(header["counts"]["per_profile"][name] > 1000 for name in profiles)
    assert len({c["id"] for c in chunks}) == len(chunks)
    warnings = header["warnings"]
    # What the doc set as it comes holds: keys no map defines (DITA-OT's DOTJ047I) and a topicref
    # whose fragment names no topic (DOTX061W). Every key that names a topic has a title to show.
    assert {w["feature"] for w in warnings} <= {"keyref", "topicref-fragment"}
    assert all(w["line"] > 0 for w in warnings)
    assert all("DOTJ047I" in w["message"] for w in warnings if w["feature"] == "keyref")
    listed = CliRunner().invoke(main, ["warnings", str(out)], catch_exceptions=False)
    assert len(listed.output.strip().splitlines()) == len(warnings)


@pytest.mark.slow
def test_the_impala_docs_scopes_are_what_each_build_keeps(exported):
    header, chunks = _lines(exported[0])
    # topics/impala_troubleshooting.xml: a paragraph with audience="PDF", which the HTML DITAVAL
    # includes and the PDF DITAVAL excludes ("These two are backward", says the DITAVAL).
    body = "topics/impala_troubleshooting.xml#troubleshooting/body"
    toc = "The following sections describe the general troubleshooting procedures"
    assert toc in _text(chunks, body, "impala_html")
    assert toc not in _text(chunks, body, "impala_pdf")
    assert "Troubleshooting for Impala requires" in _text(chunks, body, "impala_pdf")
    # topics/impala_incompatible_changes.xml: a cross-reference sentence in <ph audience="PDF">.
    section = "topics/impala_incompatible_changes.xml#incompatible_changes_22x/files_220"
    assert "See Rotating Impala Logs for details." in _text(chunks, section, "impala_html")
    assert "See Rotating" not in _text(chunks, section, "impala_pdf")
    # topics/impala_revoke.xml: <keyword keyref="grant"/>, a key with only an @href: both builds
    # show the GRANT topic's title, its own keyref resolved.
    revoke = "topics/impala_revoke.xml#revoke/body"
    for profile in ("impala_html", "impala_pdf"):
        assert "See GRANT Statement (Impala 2.0 or higher only) for the required privileges" in _text(chunks, revoke, profile)
    # topics/impala_drop_data_source.xml: the topic and its topicref carry audience="hidden",
    # which both DITAVALs exclude.
    assert not [c for c in chunks if c["source"]["path"] == "topics/impala_drop_data_source.xml"]
    assert header["counts"]["kept_by_no_profile"] > 0
    # The release notes: a topicref with audience="standalone", which both DITAVALs include.
    notes = [c for c in chunks if c["id"] == "topics/impala_release_notes.xml#impala_release_notes/body"]
    assert notes and all(notes[0]["scope"].values())


@pytest.mark.slow
def test_a_second_impala_docs_export_is_the_same_bytes(exported, docs, tmp_path):
    root_map, profiles = docs
    again = tmp_path / "again.jsonl"
    export(root_map, profiles=profiles, out=again)
    assert again.read_bytes() == exported[0].read_bytes()


@pytest.mark.slow
def test_the_html_profile_exports_the_topics_dita_ots_html5_build_publishes(exported, docs, tmp_path):
    dita = dita_command()
    root_map, profiles = docs
    run = subprocess.run(
        [str(dita), f"--input={root_map}", "--format=html5",
         f"--filter={profiles['impala_html']}", f"--output={tmp_path / 'out'}", f"--temp={tmp_path / 'temp'}"],
        capture_output=True, text=True, timeout=1800,
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    published = {p.relative_to(tmp_path / "out").with_suffix(".xml").as_posix()
                 for p in (tmp_path / "out" / "topics").glob("*.html")}
    _, chunks = _lines(exported[0])
    exported_topics = {c["id"].split("#")[0] for c in chunks if c["scope"]["impala_html"]}
    assert exported_topics == published


@pytest.mark.slow
def test_the_plugin_and_valid_export_give_the_same_ids_texts_and_scopes_on_the_impala_docs(
    exported, docs, dita_ot, tmp_path  # noqa: F811
):
    root_map, profiles = docs
    parity = compare(chunks(plugin_export(root_map, profiles, tmp_path / "plugin")), chunks(exported[0]))
    assert parity.agree, (parity.counts(), parity.only_in_plugin[:5], parity.only_in_export[:5],
                          [(d.id, d.field) for d in parity.differ[:5]])

