"""The ask box's profile, as `valid-html5.init` names it from the build's DITAVAL: the same name
valid-index's plan gives that DITAVAL in `valid.ditavals` (FILE form), and one profile or a clear
refusal. Plain Ant (the init target needs no DITA-OT task) with a stand-in for DITA-OT's html5
build, and plan.xsl through saxonche: no DITA_HOME needed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("dita_ot_jobs", Path(__file__).parent / "fixtures" / "dita-ot" / "jobs.py")
jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jobs)

PLUGIN = jobs.REPO / "dita-ot-plugin"


def _init(tmp_path: Path, **props: str):
    """Run valid-html5.init in a project that stands in for DITA-OT (its dita2html5 does nothing)."""
    stand_in = tmp_path / "stand-in.xml"
    stand_in.write_text(
        '<project name="dita-ot-stand-in" default="valid-html5.init">'
        '<target name="dita2html5"/>'
        f'<import file="{PLUGIN / "build_valid-html5.xml"}"/>'
        "</project>"
    )
    run = jobs.ant("valid-html5.init", buildfile=stand_in, **props)
    return run, run.stdout + run.stderr


def _box_src(output: str) -> str:
    found = re.search(r"VALID ask box: (\S+)", output)
    assert found, output
    return found.group(1)


def _plan_profile(tmp_path: Path, ditaval: str) -> str:
    unfiltered = jobs.materialize(jobs.JOBS / "_unfiltered", jobs.SOURCE, tmp_path / "temp")
    plan = jobs.plan(unfiltered, tmp_path / "temp" / "valid", ditavals=ditaval, base_dir=tmp_path)
    props = {p.get("name"): p.get("location") for p in ET.parse(plan).getroot().iter("property")}
    return props["valid.plan.job.1"]


@pytest.mark.parametrize("ditaval", ["schemes/ditaval/v5p.ditaval", "/docs/filters/linux-build.v2.ditaval", "cli-2.0.0.ditaval"])
def test_the_box_is_preset_to_the_profile_valid_index_names_the_same_ditaval(tmp_path, ditaval):
    run, output = _init(tmp_path, args__filter=ditaval, valid__ask__url="https://ask.example.com/")
    assert run.returncode == 0, output
    assert _box_src(output) == f"https://ask.example.com/?generation={_plan_profile(tmp_path, ditaval)}"


def test_valid_ask_profile_wins_over_the_ditavals_name(tmp_path):
    run, output = _init(tmp_path, args__filter="v6e.ditaval", valid__ask__profile="Trillium",
                        valid__ask__url="http://127.0.0.1:8080")
    assert run.returncode == 0, output
    assert _box_src(output) == "http://127.0.0.1:8080/?generation=Trillium"


@pytest.mark.parametrize("props, message", [
    ({"args__filter": "v5p.ditaval"}, "VALID: valid-html5 needs valid.ask.url"),
    ({"args__filter": "v5p.ditaval", "valid__ask__url": "javascript:alert(1)"}, "VALID: valid.ask.url must be an http:// or https:// URL"),
    ({"args__filter": "v5p.ditaval", "valid__ask__url": 'https://a.example.com/"onload="x'}, "VALID: valid.ask.url must be an http:// or https:// URL"),
    ({"valid__ask__url": "https://ask.example.com"}, "VALID: valid-html5 does not know this build's profile"),
    ({"args__filter": os.pathsep.join(["v5p.ditaval", "v6e.ditaval"]), "valid__ask__url": "https://ask.example.com"},
     "VALID: valid-html5 presets the ask box to one profile"),
    ({"args__filter": "v5p.ditaval", "valid__ask__profile": "v5p gen", "valid__ask__url": "https://ask.example.com"},
     "VALID: profile name 'v5p gen' must be letters, digits"),
], ids=["no-url", "not-http", "quote-in-url", "no-ditaval", "two-ditavals", "bad-name"])
def test_without_one_profile_and_an_http_url_the_build_stops_in_one_line(tmp_path, props, message):
    run, output = _init(tmp_path, **props)
    assert run.returncode != 0
    assert message in output and "VALID ask box:" not in output
