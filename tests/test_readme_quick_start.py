"""The README's quick start stays true: two commands, and CI runs exactly the second one."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, flags=re.S)]


def test_the_quick_start_is_two_commands_install_and_demo_then_the_tests():
    install_and_demo, tests = quick_start_commands()
    assert install_and_demo.endswith("python3 -m valid demo")
    assert "[test]" not in install_and_demo  # the demo needs only what VALID itself needs
    assert tests.endswith("python3 -m pytest")
    assert '".[test]"' in tests  # the test command installs what the tests need


def test_ci_runs_exactly_the_readmes_test_command_as_its_last_line():
    _, tests = quick_start_commands()
    lines = [line.strip() for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    commands = [line for line in lines if line and not line.startswith("#")]
    assert commands[-1] == tests
