"""Questions about profiles over two profiling attributes (a product on a platform) find their profile
by the values it keeps, with no labels configured: the export header says which scheme value of each
attribute each profile keeps and the scheme's names for it; a question naming one value of each
attribute resolves to that combined profile, one value leaves the profiles keeping it to choose
from, and a combination no profile keeps is refused rather than answered from another profile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import BUNDLED_SAMPLES, REPO
from valid import config
from valid.answer.scope import resolve_scope
from valid.cli import main
from valid.contracts import ExportHeader, ProfileInfo
from valid.evaluate.trapset import load_trapset

RELAY = REPO / "tests" / "fixtures" / "dita" / "two_attributes"
NAMES = ("server-linux", "server-windows", "agent-linux")

# No labels: the profiles are named only by what the scheme calls the values they keep.
RELAY_TOML = f"""
[docset]
map = "{(RELAY / 'relay.ditamap').as_posix()}"
scheme = "{(RELAY / 'scheme.ditamap').as_posix()}"
""" + "".join(
    f"""
[profiles.{name}]
ditaval = "{(RELAY / 'ditaval' / f'{name}.ditaval').as_posix()}"
"""
    for name in NAMES
)


@pytest.fixture(scope="module")
def relay(tmp_path_factory) -> Path:
    """A directory with valid.toml (no labels) and the SaxonC export of the fixture, chunks.jsonl."""
    directory = tmp_path_factory.mktemp("relay")
    (directory / "valid.toml").write_text(RELAY_TOML, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(config.CONFIG_ENV, raising=False)
        patch.chdir(directory)
        result = CliRunner().invoke(main, ["export", "-o", "chunks.jsonl"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return directory


@pytest.fixture(scope="module")
def profiles(relay) -> list[ProfileInfo]:
    header = (relay / "chunks.jsonl").read_text(encoding="utf-8").splitlines()[0]
    return ExportHeader.model_validate_json(header).profiles


def test_the_header_says_which_value_of_each_attribute_each_profile_keeps_with_the_schemes_names(profiles):
    assert [p.name for p in profiles] == list(NAMES)
    assert [p.labels for p in profiles] == [[name] for name in NAMES]  # nothing configured
    assert [p.keeps for p in profiles] == [
        {"product": {"relay-server": ["Relay Server"]}, "platform": {"linux": ["Linux"]}},
        {"product": {"relay-server": ["Relay Server"]}, "platform": {"windows": ["Windows"]}},
        {"product": {"relay-agent": ["Relay Agent"]}, "platform": {"linux": ["Linux"]}},
    ]


def test_an_export_written_before_keeps_still_loads_with_nothing_kept():
    old = {"name": "v5p", "labels": ["TPU v5p"], "ditaval_digest": "0" * 64}
    assert ProfileInfo.model_validate(old).keeps == {}


@pytest.mark.parametrize(
    ("question", "profile"),
    [
        ("How do I open the firewall for Relay Server on Windows?", "server-windows"),
        ("How do I install the Relay Agent on Linux?", "agent-linux"),
        ("On Linux, how do I install Relay Server?", "server-linux"),
    ],
)
def test_a_question_naming_a_value_of_each_attribute_resolves_to_that_combined_profile(profiles, question, profile):
    resolution = resolve_scope(question, profiles)
    assert resolution.profiles == [profile]
    assert resolution.candidates == [] and resolution.unknown == []


def test_values_naming_two_combined_profiles_resolve_to_both(profiles):
    resolution = resolve_scope("Which port does Relay Server use on Linux and on Windows?", profiles)
    assert resolution.profiles == ["server-linux", "server-windows"]
    assert resolution.matched == ["Relay Server", "Linux", "Windows"]


@pytest.mark.parametrize(
    ("question", "keeping"),
    [
        ("On Linux, which port does it listen on?", ["server-linux", "agent-linux"]),
        ("Which port does Relay Server open?", ["server-linux", "server-windows"]),
    ],
)
def test_a_question_naming_one_attributes_value_leaves_the_profiles_keeping_it_to_choose_from(profiles, question, keeping):
    resolution = resolve_scope(question, profiles)
    assert resolution.profiles == []
    assert resolution.candidates == keeping
    assert resolution.matched  # the value's name narrowed the scope: a name, not what is asked about
    assert not resolution.version_named  # nothing narrows it to one: VALID asks


def test_a_combination_no_profile_keeps_resolves_to_no_profile_and_is_named_as_unknown(profiles):
    resolution = resolve_scope("Which port does Relay Agent on Windows connect to?", profiles)
    assert resolution.profiles == [] and resolution.candidates == []
    assert resolution.unknown == ["Relay Agent on Windows"]


def test_configured_labels_keep_priority_over_the_names_of_the_values(profiles):
    labelled = [p.model_copy(update={"labels": ["Windows Relay"]}) if p.name == "server-windows" else p for p in profiles]
    resolution = resolve_scope("Does Windows Relay need Relay Agent on Linux?", labelled)
    assert resolution.profiles == ["server-windows"]
    assert resolution.matched == ["Windows Relay"]


def test_value_ids_spelt_like_ordinary_words_name_a_value_only_in_code_form():
    # A scheme without navtitles: the values' only names are their keys, spelt like prose.
    def profile(name: str, edition: str, cloud: str) -> ProfileInfo:
        keeps = {"product": {edition: [edition]}, "platform": {cloud: [cloud]}}
        return ProfileInfo(name=name, labels=[name], ditaval_digest="0" * 64, keeps=keeps)

    profiles = [profile("a1", "json", "cloud"), profile("a2", "json", "desktop"), profile("a3", "feedback", "cloud")]
    prose = resolve_scope("How do I export json from the cloud?", profiles)
    assert prose.profiles == [] and prose.candidates == [] and prose.unknown == []
    assert resolve_scope("How do I export from the `json` edition on `cloud`?", profiles).profiles == ["a1"]


def test_asking_through_the_index_answers_in_the_combined_profile_and_never_from_another(relay):
    # The real commands in their own processes, as a reader runs them (embedded Chroma and the
    # configuration stay out of the test process).
    env = {k: v for k, v in os.environ.items() if k not in (config.CONFIG_ENV, "VALID_STATE")}
    env["PYTHONPATH"] = str(REPO / "sidecar")

    def valid(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "valid", *args], cwd=relay, env=env, capture_output=True, text=True)

    indexed = valid("index", "chunks.jsonl")
    assert indexed.returncode == 0, indexed.stderr

    def ask(question: str) -> dict:
        result = valid("ask", "--json", "--no-log", question)
        assert result.returncode in (0, 1), result.stderr
        return json.loads(result.stdout)

    firewall = ask("How do I open the firewall for Relay Server on Windows?")
    assert firewall["outcome"] == "answer" and firewall["scope"] == ["server-windows"]
    assert all(a["generation"] == "server-windows" for a in firewall["answers"])
    assert "Windows Firewall" in json.dumps(firewall["answers"])

    on_linux = ask("On Linux, which port is used?")
    assert on_linux["outcome"] == "ask"
    assert on_linux["choices"] and {c["generation"] for c in on_linux["choices"]} <= {"server-linux", "agent-linux"}

    nowhere = ask("Which port does Relay Agent on Windows connect to?")
    assert nowhere["outcome"] == "refuse" and nowhere["answers"] == [] and nowhere["scope"] == []
    assert "Relay Agent on Windows" in nowhere["refusal"]["reason"]


@pytest.mark.parametrize("sample", BUNDLED_SAMPLES, ids=lambda s: s.name)
def test_a_doc_set_over_one_attribute_resolves_every_trap_set_question_as_without_keeps(sample, tmp_path):
    from valid.export import export

    header = export(sample.map, scheme=sample.scheme, out=tmp_path / "chunks.jsonl").header
    profiles = header.profiles
    assert all(len(p.keeps) == 1 and p.name in p.keeps[header.attribute] for p in profiles)
    without = [p.model_copy(update={"keeps": {}}) for p in profiles]
    for trap in load_trapset(sample.trapset):
        assert resolve_scope(trap.question, profiles) == resolve_scope(trap.question, without), trap.id


def test_a_follow_up_naming_another_combination_leaves_the_previous_profile_also_on_the_ask_page(profiles):
    from valid.answer.conversation import PriorTurn, follow_up
    from valid.serve.answerer import Generation

    previous = PriorTurn("How do I open the firewall for Relay Server on Windows?", ("server-windows",))
    served = [Generation(p.name, p.labels[0], tuple(p.labels), p.keeps) for p in profiles]
    for generations in (profiles, served):
        turn = follow_up("And how do I install the Relay Agent on Linux?", previous, generations)
        assert turn.generation is None and not turn.inherited  # scoped by its own words: agent-linux
