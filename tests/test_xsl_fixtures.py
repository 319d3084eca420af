"""The preprocessed fixtures: shaped like DITA-OT 4.x preprocess2 output, and exactly what
generate.py makes from their sources (so an edit to src/ cannot silently leave stale jobs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree

from fixtures.preprocessed import generate

CASE = Path(generate.__file__).resolve().parent / "cloud-tpu"
JOBS = ("v5p", "v6e", "tpu7x", "_unfiltered")


def test_checked_in_jobs_are_what_the_generator_makes(tmp_path):
    case = generate.Case(CASE, jobs=tmp_path)
    for job in JOBS:
        case.write(job)
    expected = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    actual = sorted(p.relative_to(CASE / "jobs") for p in (CASE / "jobs").rglob("*") if p.is_file())
    assert actual == expected
    for relative in expected:
        assert (CASE / "jobs" / relative).read_bytes() == (tmp_path / relative).read_bytes(), relative


@pytest.mark.parametrize("job", JOBS)
def test_every_temp_element_has_class_xtrf_and_xtrc(job):
    for path in (CASE / "jobs" / job).rglob("*.dita*"):
        if not re.sub(r"<\?[^?]*\?>", "", path.read_text(encoding="utf-8")).strip():
            continue  # a filtered-out root: no element
        for element in etree.parse(str(path)).getroot().iter():
            if not isinstance(element.tag, str) or element.xpath("ancestor-or-self::*[contains(@class, 'ditaot-d/ditaval-')]"):
                continue  # flag markup: DITA-OT writes DITAVAL elements inside it as they are
            assert element.get("class"), (path, element.tag)
            assert element.get("xtrf", "").startswith("@ROOT_URI@/src/"), (path, element.tag)
            assert re.fullmatch(r"[\w.-]+:\d+;\d+:\d+", element.get("xtrc", "")), (path, element.tag)


def test_job_lists_the_root_map_as_input():
    for job in JOBS:
        files = etree.parse(str(CASE / "jobs" / job / ".job.xml")).getroot().findall("files/file")
        inputs = [f.get("uri") for f in files if f.get("input") == "true"]
        assert inputs == ["cloud-tpu.ditamap"]
        assert all((CASE / "jobs" / job / f.get("uri")).is_file() for f in files)


def test_filtered_out_root_is_written_without_an_element():
    text = (CASE / "jobs" / "tpu7x" / "topics" / "queued-resources.dita").read_text(encoding="utf-8")
    assert re.sub(r"<\?[^?]*\?>", "", text).strip() == ""
    assert "<task" in (CASE / "jobs" / "v5p" / "topics" / "queued-resources.dita").read_text(encoding="utf-8")
