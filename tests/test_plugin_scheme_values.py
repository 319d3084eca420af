"""Profiling values outside the subject scheme fail a valid-index build with file and line.
DITA-OT only warns (DOTJ049W); xsl-plugin/check-values.xsl runs over DITA-OT's unfiltered job."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("dita_ot_jobs", Path(__file__).parent / "fixtures" / "dita-ot" / "jobs.py")
jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jobs)

SCHEME = jobs.SOURCE / "scheme.ditamap"
BAD = jobs.HERE / "badvalues"


def _check(job: Path) -> str:
    from saxonche import PySaxonProcessor

    with PySaxonProcessor(license=False) as proc:
        exe = proc.new_xslt30_processor().compile_stylesheet(
            stylesheet_file=str(jobs.REPO / "dita-ot-plugin" / "xsl-plugin" / "check-values.xsl")
        )
        exe.set_parameter("scheme-uri", proc.make_string_value(jobs.dita_ot_uri(SCHEME.parent) + SCHEME.name))
        return exe.transform_to_string(source_file=str(job)) or ""


def test_undeclared_values_are_reported_with_file_and_line(tmp_path):
    report = _check(jobs.materialize(BAD / "job", BAD / "source", tmp_path / "job"))
    assert report.splitlines() == [
        "bad.ditamap:4: @platform value 'v5' is not declared in subject scheme scheme.ditamap (declared: v5p, v6e)",
        "t.dita:6: @platform value 'v7' is not declared in subject scheme scheme.ditamap (declared: v5p, v6e)",
        "t.dita:7: @platform value 'v9' is not declared in subject scheme scheme.ditamap (declared: v5p, v6e)",
    ]


def test_cascaded_topicref_value_is_not_reported_on_the_child_line(tmp_path):
    """The temp map's topicref carries platform="v6e v5" (mappull merged the topichead's typo);
    its own value in the source is "v6e", so only the topichead's line is reported."""
    job = jobs.materialize(BAD / "job", BAD / "source", tmp_path / "job")
    assert 'platform="v6e v5"' in (tmp_path / "job" / "bad.ditamap").read_text()
    assert "bad.ditamap:5:" not in _check(job)


def test_group_name_is_not_a_value_and_empty_values_pass(tmp_path):
    report = _check(jobs.materialize(BAD / "job", BAD / "source", tmp_path / "job"))
    assert "'gen'" not in report and "'v5p'" not in report
    assert "t.dita:8:" not in report


def test_the_same_values_fail_valid_export_scheme_validation():
    """Both paths refuse the same tokens (valid.dita.scheme.validate is the `valid export` side)."""
    import pytest

    from valid.dita.scheme import load_scheme
    from valid.errors import SchemeValueError

    from valid.dita.loader import load

    docset = load(BAD / "source" / "bad.ditamap")
    with pytest.raises(SchemeValueError) as err:
        load_scheme(SCHEME).validate(docset)
    tokens = sorted(t for _, _, _, t in err.value.problems)
    assert tokens == ["v5", "v7", "v9"]


def test_a_clean_doc_set_passes(tmp_path):
    assert _check(jobs.materialize(jobs.JOBS / "_unfiltered", jobs.SOURCE, tmp_path / "job")) == ""
