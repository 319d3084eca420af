"""`valid ask`: readable by default (scope first), the answer object with --json, one-line errors."""

import json

import pytest
from click.testing import CliRunner
from fixtures.answer.index import build_state

from valid.cli import main

KEYS = ["outcome", "scope", "matched", "answers", "choices", "refusal", "not_used", "checks", "run", "release"]


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return str(build_state(tmp_path_factory.mktemp("cli")))


def ask(*args):
    return CliRunner().invoke(main, ["ask", *args], catch_exceptions=False)


def test_readable_output_starts_with_the_scope_and_cites_every_step(state):
    result = ask("I'm on Ironwood. Which --version do I pass when I create the VM?", "--state", state)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "Scope: TPU7x (Ironwood) (matched: 'Ironwood')"
    assert "For TPU7x (Ironwood):" in lines
    assert any(line.strip().startswith("[runtimes.dita#runtimes/tpu7x-note]") for line in lines)
    assert any(line.startswith("Not used: Content profiled only for TPU v5p and TPU v6e (Trillium)") for line in lines)
    assert lines[-1].startswith("Run: offline, ")


def test_json_prints_the_answer_object_with_exactly_the_issue_keys(state):
    result = ask("How many chips per host?", "--state", state, "--json")
    assert result.exit_code == 0
    obj = json.loads(result.output)
    assert list(obj) == KEYS
    assert obj["outcome"] == "ask" and [c["generation"] for c in obj["choices"]] == ["v5p", "v6e", "tpu7x"]
    assert obj["refusal"] is None and obj["answers"] == []
    assert list(obj["run"]) == ["generator", "model", "calls", "tokens_in", "tokens_out", "cost_usd", "latency_ms"]
    answered = json.loads(ask("How many chips?", "--state", state, "--json", "--generation", "tpu7x").output)
    # Added fields (issue 27): the generations an answer is for, the cited title path and published pages.
    assert list(answered["answers"][0]) == ["generation", "generations", "answer", "steps"]
    assert list(answered["answers"][0]["steps"][0]) == ["text", "cite", "title_path", "pages"]


def test_a_comparison_prints_one_column_per_generation_with_each_cells_citation(state):
    result = ask("How does the software version differ between TPU v5p and TPU v6e?", "--state", state)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "Scope: TPU v5p, TPU v6e (Trillium) (matched: 'TPU v5p', 'TPU v6e')"
    header = next(line for line in lines if line.startswith("TPU v5p "))
    assert header.split(" | ") [1].strip() == "TPU v6e (Trillium)"
    row = next(i for i, line in enumerate(lines) if line.endswith("— differs"))
    values = next(line for line in lines[row:] if line.startswith("values: "))
    left, right = values.split(" | ")
    assert "v2-alpha-tpuv5" in left and "v2-alpha-tpuv6e" in right and "v2-alpha-tpuv6e" not in left
    assert any(line.startswith("[runtimes.dita#runtimes/versions~v5p]") for line in lines)
    as_json = json.loads(ask("How does the software version differ between TPU v5p and TPU v6e?", "--state", state, "--json").output)
    assert list(as_json) == [*KEYS, "comparison"] and as_json["outcome"] == "compare"


def test_a_refusal_names_what_is_missing_and_its_gap_issue(state):
    result = ask("How many chips does a TPU v4 VM have?", "--state", state)
    assert result.exit_code == 0
    assert "Refused: The question names TPU v4" in result.output
    assert "Missing: documentation for TPU v4" in result.output and "Gap issue: " in result.output


def test_an_unknown_generation_option_is_a_one_line_error_listing_the_valid_ones(state):
    result = ask("How many chips?", "--state", state, "--generation", "v4")
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith("valid: error: unknown generation 'v4'") and "tpu7x (TPU7x (Ironwood))" in line


def test_gemini_without_a_key_is_a_one_line_config_error(state, monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    result = ask("How many chips?", "--state", state, "--generator", "gemini")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "valid: error: no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), or use --generator offline"
    ]


def test_no_active_release_is_a_one_line_error(tmp_path):
    result = ask("How many chips?", "--state", str(tmp_path / "empty"))
    assert result.exit_code == 2 and "no active release" in result.output
    assert len(result.output.strip().splitlines()) == 1


def _logged_and_opened(state: str) -> tuple[int, list[str]]:
    """Questions in the state's question log and gap issues in its issue store."""
    import sqlite3
    from pathlib import Path

    root = Path(state)
    db = sqlite3.connect(root / "questions.sqlite")
    try:
        logged = db.execute("SELECT count(*) FROM questions").fetchone()[0]
    finally:
        db.close()
    issues = sorted(str(p.relative_to(root)) for p in (root / "issues").rglob("*")) if (root / "issues").exists() else []
    return logged, issues


@pytest.mark.parametrize("question", ["", "   ", "\t\n "])
def test_a_blank_question_is_a_usage_error_that_logs_and_opens_nothing(state, question):
    ask("Which runtime version do I use on Ironwood?", "--state", state)  # the log and issue store exist
    before = _logged_and_opened(state)
    result = ask(question, "--state", state)
    assert result.exit_code == 2
    assert "Error: the question is empty" in result.output
    assert _logged_and_opened(state) == before


def test_a_question_over_the_servers_bound_is_a_usage_error_from_the_same_setting(state, tmp_path, monkeypatch):
    from valid.serve.limits import Limits

    bound = Limits().max_question_chars
    ask("Which runtime version do I use on Ironwood?", "--state", state)
    before = _logged_and_opened(state)
    too_long = "Which --version do I pass on Ironwood? " * (bound // 39) + "x" * (bound % 39 + 1)
    assert len(too_long) == bound + 1
    result = ask(too_long, "--state", state)
    assert result.exit_code == 2
    assert f"the longest accepted is {bound:,}" in result.output
    assert _logged_and_opened(state) == before
    # valid.toml's [serve] max_question_chars bounds `valid ask` too: one setting for both.
    (tmp_path / "valid.toml").write_text("[serve]\nmax_question_chars = 20\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = ask("Which --version do I pass on Ironwood?", "--state", state)
    assert result.exit_code == 2
    assert "the longest accepted is 20 " in result.output
    assert ask("Which --version?", "--state", state, "--json").exit_code == 0
