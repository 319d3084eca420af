"""`valid ask --conversation ID`: the CLI's follow-ups, kept in the question log like the service's."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fixtures.answer.index import build_state

from valid.answer.conversation import named_key
from valid.questionlog.sqlite import QuestionLog
from valid.cli import main

PRIYA = "I'm on Ironwood. Which --version do I pass when I create the VM?"


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return build_state(tmp_path_factory.mktemp("cli-conversation"))


def ask(*args):
    return CliRunner().invoke(main, ["ask", *args])


def test_a_follow_up_from_the_cli_is_answered_as_the_previous_question_for_its_generation(state):
    first = ask(PRIYA, "--state", str(state), "--conversation", "vm-help", "--json")
    assert first.exit_code == 0, first.output
    assert "conversation vm-help, turn 1" in first.stderr
    follow = ask("and on v6e?", "--state", str(state), "--conversation", "vm-help", "--json")
    assert follow.exit_code == 0, follow.output
    assert "conversation vm-help, turn 2" in follow.stderr
    answer = json.loads(follow.stdout)
    assert answer["scope"] == ["v6e"]
    alone = json.loads(ask("Which --version do I pass when I create the VM?", "--state", str(state), "-g", "v6e",
                           "--json").stdout)
    assert answer["answers"] == alone["answers"]
    with QuestionLog(state / "questions.sqlite") as log:
        assert [t["question"] for t in log.turns(named_key("vm-help"))] == [PRIYA, "and on v6e?"]


def test_a_follow_up_without_a_generation_keeps_the_conversations(state):
    assert ask(PRIYA, "--state", str(state), "--conversation", "keep").exit_code == 0
    follow = ask("How do I delete a TPU VM?", "--state", str(state), "--conversation", "keep", "--json")
    assert json.loads(follow.stdout)["scope"] == ["tpu7x"]


@pytest.mark.parametrize(
    "args, says",
    [
        (("--conversation", "c", "--no-log"), "drop --no-log"),
        (("--conversation", "not an id"), "a conversation id is"),
    ],
)
def test_conversation_misuse_is_one_line_and_a_non_zero_exit(state, args, says):
    result = ask(PRIYA, "--state", str(state), *args)
    assert result.exit_code == 2 and says in result.output
    assert "Traceback" not in result.output
