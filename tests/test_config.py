"""valid.toml: found upward from the working directory (or named by --config / VALID_CONFIG), read by
every command, and under flags and environment variables: flag > environment > valid.toml > built-in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from valid import config
from valid.cli import main

REPO = Path(__file__).resolve().parents[1]
ORBIT = REPO / "tests" / "fixtures" / "dita" / "ditaval_only"

ORBIT_TOML = f"""
[docset]
map = "{(ORBIT / 'orbit.ditamap').as_posix()}"

[profiles.studio]
ditaval = "{(ORBIT / 'ditaval' / 'studio.ditaval').as_posix()}"
labels = ["Orbit Studio"]

[profiles.license-server]
ditaval = "{(ORBIT / 'ditaval' / 'license-server.ditaval').as_posix()}"
labels = ["Orbit License Server", "Orbit LS"]
"""


@pytest.fixture(autouse=True)
def no_config_from_the_environment(monkeypatch):
    monkeypatch.delenv(config.CONFIG_ENV, raising=False)
    monkeypatch.delenv("VALID_STATE", raising=False)
    yield
    config.apply(config.Config())  # built-in prices again for the next test


def run(*args: str, **kwargs):
    return CliRunner().invoke(main, list(args), catch_exceptions=False, **kwargs)


def header(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8").splitlines()[0])


def test_the_nearest_valid_toml_in_the_working_directory_or_a_parent_is_found(tmp_path, monkeypatch):
    (tmp_path / "valid.toml").write_text('[index]\nstate = "releases"\n', encoding="utf-8")
    below = tmp_path / "docs" / "guide"
    below.mkdir(parents=True)
    monkeypatch.chdir(below)
    found = config.load()
    assert found.path == (tmp_path / "valid.toml").resolve()
    # Relative paths are relative to the file, not to the working directory.
    assert config.default_map(found)["ask"]["state"] == str((tmp_path / "releases").resolve())


def test_without_a_file_every_default_is_built_in(tmp_path):
    nothing = config.load(start=tmp_path)
    assert nothing.path is None
    assert all(options == {} for name, options in config.default_map(nothing).items() if name != "releases")


def test_every_command_reads_the_file_export_takes_its_doc_set_and_labels_from_it(tmp_path, monkeypatch):
    (tmp_path / "valid.toml").write_text(ORBIT_TOML, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("export", "-o", "chunks.jsonl")
    assert result.exit_code == 0, result.output
    profiles = {p["name"]: p["labels"] for p in header(tmp_path / "chunks.jsonl")["profiles"]}
    assert profiles == {"studio": ["Orbit Studio"], "license-server": ["Orbit License Server", "Orbit LS"]}


def test_a_flag_overrides_the_file(tmp_path, monkeypatch):
    (tmp_path / "valid.toml").write_text(ORBIT_TOML, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("export", "-o", "chunks.jsonl", "--label", "studio=Orbit Studio Edition")
    assert result.exit_code == 0, result.output
    profiles = {p["name"]: p["labels"] for p in header(tmp_path / "chunks.jsonl")["profiles"]}
    # The flag replaces the file's labels (for every profile: --label is one option), as any flag does.
    assert profiles["studio"] == ["Orbit Studio Edition"]
    assert profiles["license-server"] == ["license-server"]


def test_flag_beats_environment_beats_file(tmp_path, monkeypatch):
    (tmp_path / "valid.toml").write_text('[index]\nstate = "from-file"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    from_file = run("ask", "How many seats?")
    assert f"no active release in {(tmp_path / 'from-file').resolve()}" in from_file.output

    monkeypatch.setenv("VALID_STATE", str(tmp_path / "from-env"))
    from_env = run("ask", "How many seats?")
    assert f"no active release in {tmp_path / 'from-env'}" in from_env.output

    from_flag = run("ask", "How many seats?", "--state", str(tmp_path / "from-flag"))
    assert f"no active release in {tmp_path / 'from-flag'}" in from_flag.output


def test_config_option_and_variable_name_a_file_instead_of_the_search(tmp_path, monkeypatch):
    (tmp_path / "valid.toml").write_text('[index]\nstate = "nearest"\n', encoding="utf-8")
    named = tmp_path / "elsewhere" / "team.toml"
    named.parent.mkdir()
    named.write_text('[index]\nstate = "named"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    by_option = run("--config", str(named), "ask", "How many seats?")
    assert f"no active release in {(named.parent / 'named').resolve()}" in by_option.output

    monkeypatch.setenv(config.CONFIG_ENV, str(named))
    by_variable = run("ask", "How many seats?")
    assert f"no active release in {(named.parent / 'named').resolve()}" in by_variable.output


def test_a_named_file_that_does_not_exist_is_a_one_line_error(tmp_path):
    result = run("--config", str(tmp_path / "missing.toml"), "ask", "How many seats?")
    assert result.exit_code == 2
    assert "missing.toml: cannot read the configuration" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "text, says",
    [
        ("[index]\nstat = 'x'\n", "index.stat: Extra inputs are not permitted"),
        ("[tuning]\nsimilarity_floor = 2\n", "tuning.similarity_floor"),
        ("[index\n", "not valid TOML"),
    ],
)
def test_a_broken_file_is_a_one_line_error_naming_it(tmp_path, monkeypatch, text, says):
    (tmp_path / "valid.toml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("releases", "list")
    assert result.exit_code == 2
    assert "valid.toml" in result.output and says in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_labels_for_a_profile_that_does_not_exist_are_refused(tmp_path, monkeypatch):
    (tmp_path / "valid.toml").write_text(ORBIT_TOML + '\n[profiles.studoi]\nlabels = ["typo"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("export", "-o", "chunks.jsonl")
    assert result.exit_code == 2
    assert "'studoi', which is not a profile" in result.output
    assert not (tmp_path / "chunks.jsonl").exists()


def test_floors_from_the_file_change_what_is_answered(sample_build, tmp_path, monkeypatch):
    # One content word ("weekday") is in no chunk: coverage stays under 1, so floors of 1 refuse it.
    question = "How many chips does a TPU v5p VM have on a weekday?"
    monkeypatch.chdir(tmp_path)
    answered = json.loads(run("ask", question, "--json", "--no-log", "--state", str(sample_build.state)).output)
    assert answered["outcome"] == "answer"

    (tmp_path / "valid.toml").write_text("[tuning]\nsimilarity_floor = 1.0\ncoverage_floor = 1.0\n", encoding="utf-8")
    floored = json.loads(run("ask", question, "--json", "--no-log", "--state", str(sample_build.state)).output)
    assert floored["outcome"] == "refuse"
    assert config.load(start=tmp_path).tuning.similarity_floor == 1.0

    (tmp_path / "valid.toml").unlink()
    again = json.loads(run("ask", question, "--json", "--no-log", "--state", str(sample_build.state)).output)
    assert again["outcome"] == "answer"  # the tuning belonged to that run's engine, not to the process


def test_the_choice_floor_from_the_file_changes_the_choices_valid_ask_offers(sample_build, tmp_path, monkeypatch):
    # A generation whose content misses the answer floors is still offered as a choice when its best
    # similarity reaches the choice floor: a floor of 1 offers only the generations that answer.
    question = "how are the chips wired together in a pod, like what kind of torus is it?"
    monkeypatch.chdir(tmp_path)
    built_in = json.loads(run("ask", question, "--json", "--no-log", "--state", str(sample_build.state)).output)
    (tmp_path / "valid.toml").write_text("[tuning]\nchoice_floor = 1.0\n", encoding="utf-8")
    floored = json.loads(run("ask", question, "--json", "--no-log", "--state", str(sample_build.state)).output)
    assert built_in["outcome"] == floored["outcome"] == "ask"
    offered = {c["generation"] for c in built_in["choices"]}
    narrowed = {c["generation"] for c in floored["choices"]}
    assert narrowed < offered, (offered, narrowed)


def test_prices_from_the_file_extend_the_table(tmp_path, monkeypatch):
    from valid.answer import pricing
    from valid.errors import ConfigError

    monkeypatch.delenv("VALID_PRICES", raising=False)
    with pytest.raises(ConfigError):
        pricing.require_price("team-model")
    (tmp_path / "valid.toml").write_text(
        '[prices."team-model"]\ninput_per_million = 1.5\noutput_per_million = 6.0\n', encoding="utf-8"
    )
    config.apply(config.load(start=tmp_path))
    assert pricing.cost_usd("team-model", 1_000_000, 1_000_000) == 7.5


WORDS = ("title", "tagline", "noun", "noun_plural")


def test_every_setting_reaches_an_option_of_its_command():
    everything = config.Config(
        path=REPO / "valid.toml",
        docset=config.DocSetConfig(map="m.ditamap", scheme="s.ditamap", attribute="a", root=".", catalog="c.xml"),
        profiles={"p": config.ProfileConfig(ditaval="p.ditaval", labels=["P"])},
        index=config.IndexConfig(state="s", chroma_url="http://127.0.0.1:8000", embedder="offline"),
        answer=config.AnswerConfig(generator="offline", model="m", log_url="postgresql://valid@127.0.0.1:5432/valid"),
        evaluate=config.EvaluateConfig(trapset="t.jsonl", split="dev"),
        serve=config.ServeSection(**{name: 1 for name in config.ServeSection.model_fields if name not in ("host", "cors_origins", "published_url", *WORDS)},
                                  **{name: "w" for name in WORDS}, published_url="https://docs.example.com/{path}",
                                  host="127.0.0.1", cors_origins=["http://127.0.0.1"]),
    )
    from valid.cli import COMMANDS, area_commands

    for name, options in config.default_map(everything).items():
        command = area_commands(COMMANDS[name])[name]
        if name == "releases":
            for sub, sub_options in options.items():
                params = {p.name for p in command.commands[sub].params}
                assert set(sub_options) <= params, (name, sub)
            continue
        params = {p.name for p in command.params}
        assert options and set(options) <= params, (name, set(options) - params)


def test_the_versions_order_in_valid_toml_reaches_ask_and_eval(tmp_path):
    (tmp_path / "valid.toml").write_text('[versions]\norder = ["legacy", "classic", "next"]\n', encoding="utf-8")
    found = config.load(start=tmp_path)
    options = config.default_map(found)
    assert options["ask"]["version_order"] == "legacy,classic,next"
    assert options["eval"]["version_order"] == "legacy,classic,next"
