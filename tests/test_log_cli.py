"""`valid log`: the question log listed, filtered and exported (CSV, JSON) from the command line."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from valid.questionlog.sqlite import QuestionLog
from valid.cli import main


def question(n: int, day: str, outcome: str, scope: list[str], cost: float, latency: float) -> dict:
    return {
        "asked_at": f"{day}T10:00:{n:02d}.000+00:00", "question": f"question {n}", "scope": scope, "matched": [],
        "unknown": [], "release_id": "r" * 64, "outcome": outcome, "degraded": 0, "generator": "gemini",
        "model": "m", "attempts": 1, "calls": 1, "tokens_in": 10, "tokens_out": 5, "cost_usd": cost,
        "latency_ms": latency, "stages": {}, "retrieval": {}, "sent": {}, "checks": {},
        "gap_issues": [f"gap{n}"] if outcome == "refuse" else [],
        "answer": {"outcome": outcome, "refusal": {"reason": "nothing in scope"} if outcome == "refuse" else None},
    }  # fmt: skip


ROWS = [
    question(1, "2026-11-28", "answer", ["tpu7x"], 0.002, 120.0),
    question(2, "2026-11-29", "refuse", ["v6e"], 0.001, 80.0),
    question(3, "2026-11-29", "ask", [], 0.0, 60.0),
    question(4, "2026-11-30", "answer", ["v6e"], 0.004, 900.0),
    question(5, "2026-11-30", "refuse", ["v5p"], 0.0, 40.0),
]


@pytest.fixture
def log_path(tmp_path):
    path = tmp_path / "state" / "questions.sqlite"
    with QuestionLog(path) as log:
        for n, r in enumerate(ROWS, start=1):
            qid = log.log_question(r)
            log.start_conversation(f"c{n}")
            log.add_turn({"answer_id": f"{n:032x}", "conversation_id": f"c{n}", "question_id": qid,
                          "question": r["question"], "asked_as": r["question"], "generations": r["scope"],
                          "outcome": r["outcome"], "scope": r["scope"]})
        log.record_feedback(f"{1:032x}", "up", [], None)
        log.record_feedback(f"{4:032x}", "down", ["wrong_version", "unclear"], "said v5p")
    return path


def run(*args: str) -> str:
    result = CliRunner().invoke(main, ["log", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def listed(log_path, *filters: str) -> list[str]:
    return [e["question"] for e in json.loads(run("--question-log", str(log_path), "--format", "json", *filters))]


def test_every_question_is_listed_one_line_each_oldest_first(log_path):
    lines = run("--state", str(log_path.parent)).splitlines()
    assert [line.split("  ")[-1] for line in lines] == [f"question {n}" for n in range(1, 6)]
    assert lines[3].split()[1:3] == ["answer", "v6e"] and " - " in lines[3], "feedback shows as + or -"


@pytest.mark.parametrize(
    "filters, expected",
    [
        (("--refused",), [2, 5]),
        (("--outcome", "answer", "--outcome", "ask"), [1, 3, 4]),
        (("--since", "2026-11-29", "--until", "2026-11-29"), [2, 3]),
        (("--since", "2026-11-29T10:00:03"), [3, 4, 5]),
        (("--generation", "v6e"), [2, 4]),
        (("--feedback", "any"), [1, 4]),
        (("--feedback", "none"), [2, 3, 5]),
        (("--feedback", "down", "--reason", "wrong_version"), [4]),
        (("--min-cost", "0.002"), [1, 4]),
        (("--max-cost", "0"), [3, 5]),
        (("--limit", "2"), [4, 5]),
    ],
)
def test_filters_narrow_the_list(log_path, filters, expected):
    assert listed(log_path, *filters) == [f"question {n}" for n in expected]


def test_csv_export_has_a_header_and_one_row_per_question_with_its_feedback(log_path, tmp_path):
    out = tmp_path / "log.csv"
    run("--question-log", str(log_path), "--format", "csv", "--out", str(out))
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [r["question"] for r in rows] == [f"question {n}" for n in range(1, 6)]
    assert rows[3]["reasons"] == "wrong_version|unclear" and rows[3]["comment"] == "said v5p"
    assert rows[1]["gap_issues"] == "gap2" and rows[1]["refusal"] == "nothing in scope"
    assert float(rows[3]["cost_usd"]) == 0.004


def test_json_export_keeps_lists_as_lists(log_path):
    entry = json.loads(run("--question-log", str(log_path), "--format", "json", "--feedback", "down"))[0]
    assert entry["reasons"] == ["wrong_version", "unclear"] and entry["scope"] == ["v6e"] and entry["turn"] == 1


@pytest.mark.parametrize(
    "args, says",
    [
        (("--state", "/nonexistent-state"), "no question log here"),
        (("--since", "last week"), "not an ISO date"),
    ],
)
def test_bad_input_is_one_line_and_a_non_zero_exit(log_path, args, says):
    result = CliRunner().invoke(main, ["log", *args])
    assert result.exit_code == 2 and says in result.output
    assert "Traceback" not in result.output


def log_with_questions(path, *typed: str):
    with QuestionLog(path) as log:
        for n, text in enumerate(typed, start=1):
            log.log_question({**question(n, "2026-11-30", "answer", ["v6e"], 0.0, 10.0), "question": text})
    return path


# What a spreadsheet evaluates when a cell starts with it (OWASP's CSV injection list).
FORMULA_STARTS = ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "\rCR"]


def test_csv_cells_a_spreadsheet_would_run_as_formulas_are_neutralised(tmp_path):
    path = log_with_questions(tmp_path / "questions.sqlite", *FORMULA_STARTS, "a plain question")
    rows = list(csv.DictReader(io.StringIO(run("--question-log", str(path), "--format", "csv"))))
    assert [r["question"] for r in rows] == [f"'{text}" for text in FORMULA_STARTS] + ["a plain question"]
    # Numbers stay numbers (a negative cost would be a number, not a formula).
    assert all(float(r["cost_usd"]) == 0.0 and float(r["latency_ms"]) == 10.0 for r in rows)


def test_csv_export_keeps_negative_numbers_as_numbers():
    from valid.questionlog.query import to_csv

    entry = {**question(1, "2026-11-30", "answer", [], -0.5, 10.0), "turn": -1}
    row = next(csv.DictReader(io.StringIO(to_csv([entry]))))
    assert row["cost_usd"] == "-0.5" and row["turn"] == "-1"


# CSI (colours, cursor moves, screen clears), OSC (window titles, hyperlinks; BEL- or ST-ended),
# DCS, single-character escapes, 8-bit C1 controls, other C0 controls and DEL.
HOSTILE = [
    "\x1b[31mred\x1b[0m text",
    "\x1b[2J\x1b[Hcleared",
    "\x1b]0;owned title\x07titled",
    "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ here",
    "\x1bP+q1b5b\x1b\\dcs",
    "\x1bcreset",
    "\x9b31mc1 csi\x9d0;t\x9c c1",
    "bell\x07 back\x08space del\x7f nul\x00",
]


def test_the_table_strips_every_terminal_control_sequence_from_questions(tmp_path):
    path = log_with_questions(tmp_path / "questions.sqlite", *HOSTILE)
    # color=True: as on a terminal, where click passes escapes through instead of stripping colours.
    result = CliRunner().invoke(main, ["log", "--question-log", str(path)], color=True)
    assert result.exit_code == 0, result.output
    table = result.stdout
    lines = table.splitlines()
    assert len(lines) == len(HOSTILE)
    for line in lines:
        assert all(ch == "\n" or (ch.isprintable() and ch != "\x7f") for ch in line), repr(line)
    assert [line.split("  ")[-1] for line in lines] == [
        "red text", "cleared", "titled", "link here", "dcs", "reset", "c1 csi c1", "bell backspace del nul",
    ]


def test_valid_log_reads_the_state_named_in_valid_toml_as_ask_and_serve_do(log_path, tmp_path, monkeypatch):
    monkeypatch.delenv("VALID_CONFIG", raising=False)
    monkeypatch.delenv("VALID_STATE", raising=False)
    project = tmp_path / "project"
    project.mkdir()
    (project / "valid.toml").write_text(f'[index]\nstate = "{log_path.parent.as_posix()}"\n', encoding="utf-8")
    monkeypatch.chdir(project)
    assert len(run().splitlines()) == len(ROWS)
    # The gap issues beside the log come from the same state directory.
    from valid.audit.issues import IssueDraft, IssueStore

    IssueStore(log_path.parent / "issues").append_issues(
        "question", [IssueDraft(fingerprint="f1", title="nothing on v6e quotas", body="b", source="questions")])
    assert "nothing on v6e quotas" in run("issues", "--format", "json")
    assert not (project / ".valid").exists()
