"""What `valid export` hands the stylesheet: profiles, digests, labels, jobs, warnings."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from lxml import etree

from valid import __version__
from valid.contracts import ExportWarning
from valid.dita.loader import load
from valid.dita.scheme import load_scheme
from valid.errors import ConfigError
from valid.export import resolve_profiles, source_commit, write_run_document

FIXTURES = Path(__file__).parent / "fixtures" / "dita"
BASIC = FIXTURES / "basic"
SAMPLE_SCHEME = Path(__file__).parent.parent / "schemes" / "tpu-generations.ditamap"


def test_profiles_from_the_scheme_are_one_per_value_with_the_implied_ditaval_digest():
    scheme = load_scheme(BASIC / "scheme.ditamap")
    profiles, attribute = resolve_profiles(scheme, None, None)
    assert attribute == "platform"
    assert [p.name for p in profiles] == ["v5p", "v6e", "tpu7x"]
    v6e = profiles[1]
    assert v6e.ditaval == scheme.implied_ditaval("platform", "v6e").encode()
    assert v6e.digest == hashlib.sha256(v6e.ditaval).hexdigest()
    assert v6e.labels == ("Cloud TPU v6e", "Trillium")


def test_explicit_profiles_digest_the_ditaval_bytes_and_take_labels_from_the_scheme(tmp_path):
    scheme = load_scheme(SAMPLE_SCHEME)
    ditaval = Path(__file__).parent.parent / "schemes" / "ditaval" / "v6e.ditaval"
    profiles, attribute = resolve_profiles(scheme, None, [("v6e", ditaval), ("custom", ditaval)])
    assert attribute is None  # profiles did not come from the scheme
    assert profiles[0].digest == hashlib.sha256(ditaval.read_bytes()).hexdigest()
    assert profiles[0].labels[0] == "TPU v6e (Trillium)"
    assert profiles[1].labels == ("custom",)


@pytest.mark.parametrize("name", ["", "two words", "_unfiltered", "../x"])
def test_profile_names_must_be_safe(tmp_path, name):
    ditaval = tmp_path / "x.ditaval"
    ditaval.write_text("<val/>")
    with pytest.raises(ConfigError):
        resolve_profiles(None, None, [(name, ditaval)])


def test_duplicate_profile_names_are_refused(tmp_path):
    ditaval = tmp_path / "x.ditaval"
    ditaval.write_text("<val/>")
    with pytest.raises(ConfigError, match="given twice"):
        resolve_profiles(None, None, [("a", ditaval), ("a", ditaval)])


def test_run_document_lists_profiles_jobs_scheme_and_warnings(tmp_path):
    docset = load(BASIC / "root.ditamap")
    scheme = load_scheme(BASIC / "scheme.ditamap")
    profiles, attribute = resolve_profiles(scheme, None, None)
    jobs = {p.name: tmp_path / p.name / ".job.xml" for p in profiles}
    warning = ExportWarning(path="topics/a.dita", line=3, feature="keyref", message="key 'x' undefined")
    path = tmp_path / "run.xml"
    write_run_document(
        path,
        docset=docset,
        profiles=profiles,
        jobs=jobs,
        unfiltered=tmp_path / "_unfiltered" / ".job.xml",
        scheme=scheme,
        attribute=attribute,
        warnings=[warning],
        stylesheet_digest="ab" * 32,
    )
    run = etree.parse(str(path)).getroot()
    assert run.tag == "valid-run"
    assert run.get("schema-version") == "1.0"
    assert run.get("exporter-version") == __version__
    assert run.get("stylesheet-digest") == "ab" * 32
    assert run.get("scheme-digest") == scheme.digest
    assert run.get("map") == "root.ditamap"
    assert run.get("attribute") == "platform"
    assert run.get("src-base") == "file:" + BASIC.resolve().as_posix() + "/"
    assert [p.get("name") for p in run.findall("profile")] == ["v5p", "v6e", "tpu7x"]
    v5p = run.find("profile")
    assert v5p.get("job") == "file:" + jobs["v5p"].as_posix()
    assert v5p.get("ditaval-digest") == profiles[0].digest
    assert [label.text for label in v5p.findall("label")] == ["Cloud TPU v5p", "TPU v5p"]
    assert run.find("unfiltered").get("job").endswith("/_unfiltered/.job.xml")
    scheme_copy = tmp_path / "scheme" / "scheme.ditamap"
    assert run.find("scheme").get("href") == "file:" + scheme_copy.as_posix()
    copied = etree.parse(str(scheme_copy)).getroot()
    assert copied.getroottree().docinfo.doctype == ""  # no DTD for the XSLT processor to fetch
    assert copied.find("subjectdef").get("xtrf") == "file:" + (BASIC / "scheme.ditamap").resolve().as_posix()
    [w] = run.findall("warning")
    assert (w.get("path"), w.get("line"), w.get("feature"), w.text) == ("topics/a.dita", "3", "keyref", "key 'x' undefined")


def test_source_commit_is_null_outside_git_and_head_inside(tmp_path):
    assert source_commit(tmp_path) is None
    assert source_commit(tmp_path / "does-not-exist") is None
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "m.ditamap").write_text("<map/>")
    subprocess.run(["git", "-C", str(tmp_path), "add", "m.ditamap"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "-m", "x"], check=True, env={**os.environ, **env})
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert source_commit(tmp_path) == head


def test_explicit_ditaval_rules_for_undeclared_values_are_warned(tmp_path):
    from valid.dita.ditaval import parse_ditaval
    from valid.export.run import _undeclared_ditaval_values

    scheme = load_scheme(SAMPLE_SCHEME)
    ditaval = parse_ditaval(
        b'<val>\n<prop att="platform" action="exclude"/>\n<prop att="platform" val="v6E" action="include"/>\n'
        b'<prop att="audience" val="admin" action="exclude"/>\n</val>',
        "typo.ditaval",
    )
    [w] = _undeclared_ditaval_values(ditaval, scheme)
    assert (w.path, w.line, w.feature) == ("typo.ditaval", 3, "ditaval-value")
    assert "'v6E'" in w.message
